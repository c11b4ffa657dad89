package adapter

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
)

// fakePrivate is a resource's private state: keys to JSON.
type fakePrivate map[string][]byte

func (f fakePrivate) GetKey(_ context.Context, key string) ([]byte, diag.Diagnostics) {
	return f[key], nil
}

func (f fakePrivate) SetKey(_ context.Context, key string, value []byte) diag.Diagnostics {
	if len(value) == 0 {
		delete(f, key)
	} else {
		f[key] = value
	}

	return nil
}

func TestPrivateStateKeepsDropsAndForgets(t *testing.T) {
	t.Parallel()

	type memo struct {
		Pools map[string][]string `json:"pools"`
	}

	ctx := context.Background()
	p := fakePrivate{}

	var diags diag.Diagnostics

	SetPrivate(ctx, p, "members", &memo{Pools: map[string][]string{"p-1": {"m-1"}}}, &diags)

	if got := GetPrivate[memo](ctx, p, "members"); diags.HasError() || got == nil || got.Pools["p-1"][0] != "m-1" {
		t.Fatalf("kept %s, read back %+v (%v)", p["members"], got, diags)
	}

	// An older provider's value that does not decode is dropped, not reported.
	p["members"] = []byte(`{"pools": "not a map"}`)
	if got := GetPrivate[memo](ctx, p, "members"); got != nil {
		t.Fatalf("read %+v from a value that does not decode", got)
	}

	// A nil value removes the key.
	SetPrivate[memo](ctx, p, "members", nil, &diags)

	if _, ok := p["members"]; ok || GetPrivate[memo](ctx, p, "members") != nil {
		t.Fatalf("the key is still there: %s", p["members"])
	}
}
