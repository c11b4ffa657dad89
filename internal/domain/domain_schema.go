package domain

import (
	"context"
	"fmt"
	"strings"
	"unicode"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
)

// MaxNameLength is Keystone's limit of a domain's name.
const MaxNameLength = 64

// KeystoneName checks the name of a Keystone object (domain, role) of at most max characters,
// as Keystone stores it: not empty, no control characters, no surrounding white space (which
// Keystone would keep, and which no operator means).
func KeystoneName(noun string, maxLen int) validator.String {
	return adapter.StringCheck("name",
		fmt.Sprintf("a %s name of 1 to %d characters, without control characters or surrounding white space", noun, maxLen),
		func(s string) error {
			switch {
			case s == "":
				return fmt.Errorf("the %s name is empty", noun)
			case len([]rune(s)) > maxLen:
				return fmt.Errorf("the %s name %q is longer than Keystone's %d characters", noun, s, maxLen)
			case strings.TrimSpace(s) != s:
				return fmt.Errorf("the %s name %q starts or ends with white space", noun, s)
			case strings.ContainsFunc(s, unicode.IsControl):
				return fmt.Errorf("the %s name %q contains a control character", noun, s)
			}

			return nil
		})
}

// domainModel is unikorn_domain's model.
type domainModel struct {
	KeystoneModel

	Enabled      types.Bool `tfsdk:"enabled"`
	ForceDestroy types.Bool `tfsdk:"force_destroy"`
}

func (m domainModel) spec() Spec {
	return Spec{Name: m.Name.ValueString(), Description: m.Description.ValueString(), Enabled: m.Enabled.ValueBool()}
}

// flatten writes what Keystone says of the domain into m; force_destroy, which Keystone does
// not know, stays as it is (false after an import).
func (m *domainModel) flatten(d *Domain) {
	m.Observed(d.ID, d.Name, d.Description)
	m.Enabled = types.BoolValue(d.Enabled)

	if m.ForceDestroy.IsNull() || m.ForceDestroy.IsUnknown() {
		m.ForceDestroy = types.BoolValue(false)
	}
}

func (r *domainResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "A Keystone domain of the cloud, for preparing a region: the service user manages it as cloud " +
			"admin (the admin role on its own project). Name, description and `enabled` change in place.\n\n" +
			"Destroying disables the domain and deletes it. A domain that still holds projects or domain-specific roles is " +
			"not deleted unless `force_destroy` is set, which deletes them first (projects leaves first) and lists them in a " +
			"warning. Keystone's `Default` domain and the provider's own managed domain (the provider's `domain`) can " +
			"never be created, imported, changed or destroyed through this resource: the plan fails.\n\n" +
			"**Import** with the domain's ID or its name.",
		Attributes: map[string]schema.Attribute{
			"description": DescriptionAttribute("domain"),
			"enabled":     EnabledAttribute("Whether the domain is enabled: the users of a disabled domain cannot authenticate."),
			"force_destroy": ForceDestroyAttribute("Destroy the domain even when it still holds projects or domain-specific roles, deleting " +
				"them first. Default `false`: such a domain is not destroyed, and the error lists what it holds. It takes " +
				"effect once applied (set it, apply, then destroy)."),
			"id": adapter.IDAttribute("ID of the Keystone domain."),
			"name": NameAttribute("domain", MaxNameLength, fmt.Sprintf("Name of the domain, unique in Keystone (ignoring case), at most "+
				"%d characters. Neither `Default` nor the provider's managed domain. Updated in place (the ID stays).", MaxNameLength)),
			"timeouts": adapter.TimeoutsAttribute(ctx),
		},
	}
}
