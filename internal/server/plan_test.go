package server

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// TestRebuildWarning (item 13): a plan that rebuilds a server in place warns at the attribute
// that causes it, naming the server and the loss of its root disk, and offers image_change; a
// plan that replaces the server for its image (image_change = "replace") does not.
func TestRebuildWarning(t *testing.T) {
	t.Parallel()

	state := serverModel{
		Name: types.StringValue("web"), ID: types.StringValue("srv-1"), ImageID: types.StringValue("img-1"),
		SSHKey: types.BoolValue(false), UserDataSHA256: types.StringNull(), ImageChange: types.StringNull(),
	}

	tests := []struct {
		name     string
		change   func(m *serverModel)
		replaces bool
		warnAt   path.Path // empty: no warning
		say      []string
	}{
		{name: "nothing changes", change: func(*serverModel) {}},
		{
			name:   "image_id changes, image_change unset",
			change: func(m *serverModel) { m.ImageID = types.StringValue("img-2") },
			warnAt: path.Root("image_id"),
			say:    []string{`"web" (srv-1)`, "from img-1 to img-2", "root disk", "lost", `image_change = "replace"`},
		},
		{
			name: "image_id changes, image_change = rebuild",
			change: func(m *serverModel) {
				m.ImageID, m.ImageChange = types.StringUnknown(), types.StringValue(ImageChangeRebuild)
			},
			warnAt: path.Root("image_id"),
			say:    []string{"a value known after apply"},
		},
		{
			name: "image_id changes, image_change = replace",
			change: func(m *serverModel) {
				m.ImageID, m.ImageChange = types.StringValue("img-2"), types.StringValue(ImageChangeReplace)
			},
			replaces: true,
		},
		{
			name:   "ssh_key changes",
			change: func(m *serverModel) { m.SSHKey = types.BoolValue(true) },
			warnAt: path.Root("ssh_key"),
			say:    []string{"ssh_key changes", "root disk"},
		},
		{
			name:   "image_change alone changes nothing",
			change: func(m *serverModel) { m.ImageChange = types.StringValue(ImageChangeReplace) },
		},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			plan := state
			tt.change(&plan)

			if got := replaces(plan, state); got != tt.replaces {
				t.Fatalf("replaces = %v, want %v", got, tt.replaces)
			}

			var diags diag.Diagnostics
			if !tt.replaces {
				warnRebuild(plan, state, &diags)
			}

			if len(tt.warnAt.Steps()) == 0 {
				if len(diags) != 0 {
					t.Fatalf("diagnostics = %v, want none", diags)
				}

				return
			}

			if len(diags) != 1 || diags.WarningsCount() != 1 {
				t.Fatalf("diagnostics = %v, want one warning", diags)
			}

			d, ok := diags[0].(diag.DiagnosticWithPath)
			if !ok || !d.Path().Equal(tt.warnAt) {
				t.Fatalf("warning %v is not at %s", diags[0], tt.warnAt)
			}

			for _, want := range tt.say {
				if !strings.Contains(d.Summary()+" "+d.Detail(), want) {
					t.Errorf("warning %q / %q does not say %q", d.Summary(), d.Detail(), want)
				}
			}
		})
	}
}
