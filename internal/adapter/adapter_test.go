package adapter

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
)

func TestSplitImportID(t *testing.T) {
	t.Parallel()

	tests := []struct {
		in         string
		region, id string
		wantErr    bool
	}{
		{in: "abc", id: "abc"},
		{in: "RegionTwo/abc", region: "RegionTwo", id: "abc"},
		{in: "", wantErr: true},
		{in: "/abc", wantErr: true},
		{in: "RegionOne/", wantErr: true},
		{in: "a/b/c", wantErr: true},
	}

	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()

			region, id, err := SplitImportID(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("SplitImportID(%q) error = %v, want error %v", tt.in, err, tt.wantErr)
			}

			if region != tt.region || id != tt.id {
				t.Fatalf("SplitImportID(%q) = %q, %q; want %q, %q", tt.in, region, id, tt.region, tt.id)
			}
		})
	}
}

type fooer interface{ Foo() string }

type foo struct{}

func (foo) Foo() string { return "foo" }

func TestProviderData(t *testing.T) {
	t.Parallel()

	var diags diag.Diagnostics

	if _, ok := ProviderData[fooer](nil, &diags); ok || diags.HasError() {
		t.Fatalf("nil provider data: ok=%v diags=%v, want not ok and no diagnostics", ok, diags)
	}

	got, ok := ProviderData[fooer](foo{}, &diags)
	if !ok || got.Foo() != "foo" || diags.HasError() {
		t.Fatalf("matching provider data: ok=%v diags=%v", ok, diags)
	}

	if _, ok := ProviderData[fooer](42, &diags); ok || !diags.HasError() {
		t.Fatalf("wrong provider data: ok=%v diags=%v, want an error", ok, diags)
	}
}
