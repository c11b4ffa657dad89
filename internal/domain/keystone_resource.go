package domain

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
)

// The Keystone resources' framework kit (unikorn_domain, unikorn_role, unikorn_federation,
// unikorn_project): their base, the model part and the schema attributes they share, and the
// endings of their operations.

// KeystoneResource is the base of a global admin resource of Keystone made as the service
// user (unikorn_domain, unikorn_role, unikorn_federation, unikorn_project): the kit's
// ResourceBase with the concept's view T of the client bundle and its timeouts, the opening of
// its operations on the core C, with the model M, and the Read and ImportState of its objects
// O, which its Keystone hooks say how to find.
type KeystoneResource[T adapter.Meta, C, M any, PM interface {
	*M
	adapter.AdminModel
}, O any] struct {
	adapter.ResourceBase[T]

	hooks Keystone[C, M, O]
}

// Keystone is what a Keystone resource says of its objects O, for the kit's Read and import.
type Keystone[C, M, O any] struct {
	// TypeName names the resource: unikorn_<TypeName>.
	TypeName string
	// Timeouts are the operations' defaults; zero: DefaultTimeouts.
	Timeouts adapter.Timeouts
	// Bind makes the core bound to the provider's client.
	Bind func(*cloud.Client) (C, error)
	// Observe reads what Keystone holds of the object m records: nil when it is gone
	// altogether; refound when its recorded ID is gone and the object of its name is taken for
	// it; noun names it in messages ("domain", "global role"). It may add warnings to diags.
	Observe func(ctx context.Context, core C, m *M, diags *diag.Diagnostics) (out *O, refound bool, noun string, err error)
	// Flatten writes out into m, and names it; it may add warnings to diags.
	Flatten func(ctx context.Context, m *M, out *O, diags *diag.Diagnostics) (name, id string)
	// Locate finds the object to import by the import ID.
	Locate func(ctx context.Context, core C, importID string) (cloud.Located, error)
}

// NewKeystoneResource is the base of the resource that hooks describe, with the concept's
// view T of the client bundle (adapter.Meta when it needs nothing more).
func NewKeystoneResource[T adapter.Meta, C, M any, PM interface {
	*M
	adapter.AdminModel
}, O any](hooks Keystone[C, M, O]) KeystoneResource[T, C, M, PM, O] {
	if hooks.Timeouts == (adapter.Timeouts{}) {
		hooks.Timeouts = DefaultTimeouts
	}

	return KeystoneResource[T, C, M, PM, O]{
		ResourceBase: adapter.NewResourceBase[T](adapter.Kind{TypeName: hooks.TypeName, Noun: hooks.TypeName, Timeouts: hooks.Timeouts}),
		hooks:        hooks,
	}
}

// Open is the kit's opening of one operation (adapter.OpenGlobal).
func (r *KeystoneResource[T, C, M, PM, O]) Open(ctx context.Context, opKind adapter.Op, src adapter.Source, diags *diag.Diagnostics,
	do func(ctx context.Context, op *adapter.Operation, core C, m *M, subject string),
) {
	adapter.OpenGlobal[T, M, PM](ctx, &r.ResourceBase, opKind, src, diags, r.hooks.Bind, do)
}

// Read refreshes every attribute from Keystone: an object gone by ID and found again by its
// name is said with a warning, one gone altogether leaves the state.
func (r *KeystoneResource[T, C, M, PM, O]) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	r.Open(ctx, adapter.Read, req.State, &resp.Diagnostics, func(ctx context.Context, op *adapter.Operation, core C, m *M, subject string) {
		oldID := PM(m).Opening().ID.ValueString()

		out, refound, noun, err := r.hooks.Observe(ctx, core, m, &resp.Diagnostics)
		if err != nil {
			op.Fail(subject, err)
			return
		}

		Refreshed(ctx, resp, noun, oldID, out, refound, func(out *O) (string, string) {
			name, id := r.hooks.Flatten(ctx, m, out, &resp.Diagnostics)
			resp.Diagnostics.Append(resp.State.Set(ctx, m)...)

			return name, id
		})
	})
}

// ImportState imports the object that the Locate hook finds by the import ID
// (adapter.ImportGlobal); Read fills in the rest.
func (r *KeystoneResource[T, C, M, PM, O]) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	r.ImportGlobal(ctx, req, resp, func(ctx context.Context, importID string) (cloud.Located, error) {
		core, err := r.hooks.Bind(r.Cloud())
		if err != nil {
			return cloud.Located{}, err
		}

		return r.hooks.Locate(ctx, core, importID)
	})
}

// Record is what writes an object the core answered into the state, through m (the Flatten
// hook); a later failure names it.
func (r *KeystoneResource[T, C, M, PM, O]) Record(ctx context.Context, m *M, state *tfsdk.State, diags *diag.Diagnostics) func(*O) string {
	return func(out *O) string {
		name, id := r.hooks.Flatten(ctx, m, out, diags)
		diags.Append(state.Set(ctx, m)...)

		return adapter.Subject(name, id, nil)
	}
}

// Core is the core bound to the provider's client, for a plan check; a failure is an error
// diagnostic (summary) and nil.
func (r *KeystoneResource[T, C, M, PM, O]) Core(summary string, diags *diag.Diagnostics) (C, bool) {
	core, err := r.hooks.Bind(r.Cloud())
	if err != nil {
		diags.AddError(summary, err.Error())
	}

	return core, err == nil
}

// KeystoneModel is the part of a Keystone resource's model that domains, roles and projects
// share: their ID, name and description, and the timeouts. Embedded, it makes the model an
// adapter.AdminModel named by its name.
type KeystoneModel struct {
	Description types.String   `tfsdk:"description"`
	ID          types.String   `tfsdk:"id"`
	Name        types.String   `tfsdk:"name"`
	Timeouts    timeouts.Value `tfsdk:"timeouts"`
}

// Opening makes a model that embeds KeystoneModel an adapter.AdminModel (a global object).
func (m *KeystoneModel) Opening() adapter.AdminOpening {
	return adapter.AdminOpening{Name: m.Name, ID: m.ID, Timeouts: m.Timeouts}
}

// Observed writes what Keystone says of the object's ID, name and description.
func (m *KeystoneModel) Observed(id, name, description string) {
	m.ID = types.StringValue(id)
	m.Name = types.StringValue(name)
	m.Description = types.StringValue(description)
}

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

// NameAttribute is the required `name` of a Keystone object (noun) of at most maxLen
// characters, checked as Keystone stores it (KeystoneName); description says where it is
// unique and how it changes.
func NameAttribute(noun string, maxLen int, description string) schema.StringAttribute {
	return schema.StringAttribute{
		Required:            true,
		MarkdownDescription: description,
		Validators:          []validator.String{KeystoneName(noun, maxLen)},
	}
}

// DescriptionAttribute is the optional `description` of a Keystone object (noun), "" by
// default, updated in place.
func DescriptionAttribute(noun string) schema.StringAttribute {
	return schema.StringAttribute{
		Optional:            true,
		Computed:            true,
		Default:             stringdefault.StaticString(""),
		MarkdownDescription: "Description of the " + noun + ". Updated in place.",
	}
}

// EnabledAttribute is the optional `enabled` flag of a Keystone object, true by default,
// updated in place; what says what it means.
func EnabledAttribute(what string) schema.BoolAttribute {
	return schema.BoolAttribute{
		Optional:            true,
		Computed:            true,
		Default:             booldefault.StaticBool(true),
		MarkdownDescription: what + " Default `true`. Updated in place.",
	}
}

// ForceDestroyAttribute is the optional `force_destroy` of an object that holds others, false
// by default; description says what it deletes.
func ForceDestroyAttribute(description string) schema.BoolAttribute {
	return schema.BoolAttribute{
		Optional:            true,
		Computed:            true,
		Default:             booldefault.StaticBool(false),
		MarkdownDescription: description,
	}
}

// Recorded ends a create or an update whose core answered out (what exists, nil when nothing
// does) and err. A name taken by an object this resource may not adopt (cloud.ExistsError) is
// an error at the attribute taken; nothing made is the operation's failure (subject). Otherwise record writes what exists
// to the state and names it, and err fails the operation only after that: a failed apply
// leaves a tainted resource, never an untracked object.
func Recorded[O any](op *adapter.Operation, diags *diag.Diagnostics, taken path.Path, summary string, out *O, err error, subject string,
	record func(*O) (subject string),
) {
	var exists *cloud.ExistsError

	switch {
	case out == nil && errors.As(err, &exists):
		diags.AddAttributeError(taken, summary, err.Error())
	case out == nil:
		op.Fail(subject, err)
	default:
		if subject = record(out); err != nil {
			op.Fail(subject, err)
		}
	}
}

// Refreshed ends the Read of a Keystone object recorded as oldID, of which the core found out
// (nil when it is gone altogether: the state is removed; refound when its recorded ID is gone
// and the object of its name is taken for it, which a warning says before a plan acts on it).
// noun names the object ("domain", "global role"); record writes out to the state and names it.
func Refreshed[O any](ctx context.Context, resp *resource.ReadResponse, noun, oldID string, out *O, refound bool,
	record func(*O) (name, id string),
) {
	if out == nil {
		tflog.Warn(ctx, "The "+noun+" is gone; removing it from the state", map[string]any{"id": oldID})
		resp.State.RemoveResource(ctx)

		return
	}

	name, newID := record(out)

	if refound {
		kind := noun[strings.LastIndex(noun, " ")+1:]
		resp.Diagnostics.AddWarning(strings.ToUpper(kind[:1])+kind[1:]+" found again by name", fmt.Sprintf("The %s %s recorded "+
			"as %s is gone; %s, the %s of that name, is taken for it. If this configuration did not make it, remove this "+
			"resource from the state before applying or destroying.", noun, name, oldID, newID, kind))
	}
}
