package domain

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
)

var (
	_ resource.ResourceWithConfigure   = (*domainResource)(nil)
	_ resource.ResourceWithImportState = (*domainResource)(nil)
	_ resource.ResourceWithModifyPlan  = (*domainResource)(nil)
)

// MaxNameLength is Keystone's limit of a domain's name.
const MaxNameLength = 64

// DefaultTimeouts are the Keystone resources' default operation timeouts.
var DefaultTimeouts = adapter.Timeouts{
	Create: 5 * time.Minute, Read: 5 * time.Minute, Update: 5 * time.Minute, Delete: 10 * time.Minute,
}

// Summaries of the domain's own diagnostics.
const (
	summaryProtected = "Domain not manageable"
	summaryExists    = "Domain exists already"
	summaryNotEmpty  = "Domain not empty"
	summaryForced    = "Deleted with the domain"
)

// NewDomainResource is unikorn_domain.
func NewDomainResource() resource.Resource {
	r := &domainResource{}
	r.KeystoneResource = NewKeystoneResource[adapter.Meta, *Service, domainModel, *domainModel](Keystone[*Service, domainModel, Domain]{
		TypeName: "domain",
		Bind:     NewService,
		Observe: func(ctx context.Context, svc *Service, m *domainModel, _ *diag.Diagnostics) (*Domain, bool, string, error) {
			d, refound, err := svc.Observe(ctx, m.ID.ValueString(), m.Name.ValueString())
			return d, refound, "domain", err
		},
		Flatten: func(_ context.Context, m *domainModel, d *Domain, _ *diag.Diagnostics) (string, string) {
			m.flatten(d)
			return d.Name, d.ID
		},
		Locate: r.locate,
	})

	return r
}

type domainResource struct {
	KeystoneResource[adapter.Meta, *Service, domainModel, *domainModel, Domain]
}

func (r *domainResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "A Keystone domain of the cloud, for preparing a region: the service user manages it as cloud " +
			"admin (the admin role on its own project). Name, description and `enabled` change in place.\n\n" +
			"Destroying disables the domain and deletes it. A domain that still holds projects or domain-specific roles is " +
			"not deleted unless `force_destroy` is set, which deletes them first (projects leaves first) and lists them in a " +
			"warning. Keystone's `Default` domain and the provider's own managed domain (the provider's `domain`) can " +
			"never be created, imported, changed or destroyed through this resource: the plan fails.\n\n" +
			"**Adoption.** The domain carries the provider's ownership marks as Keystone tags: " +
			"`unikorn-terraform:unikorn_domain` from its creation, and `unikorn-terraform:created` " +
			"once its create finished. A create looks for the domain of its name first and adopts it only when it is what " +
			"an interrupted create of a `unikorn_domain` left (the first mark without the second): it is then brought to the configuration " +
			"and marked finished. Any other domain of " +
			"the name (one made by hand, by Unikorn, by another tool, or a finished `unikorn_domain` of another configuration) " +
			"is refused before anything is written, with the `terraform import` command that takes it over: importing is the " +
			"only way to manage an existing domain. A create whose answer was lost (a proxy's error after Keystone acted) " +
			"recovers only its own domain. A domain gone by its recorded ID is replaced by one of its name only under the " +
			"same rule; domains made before these marks existed keep working by their recorded IDs.\n\n" +
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

// Create creates the domain, or adopts the one an interrupted create of a unikorn_domain left
// unfinished; any other domain of the name is an error that says how to import it.
func (r *domainResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	r.Open(ctx, adapter.Create, req.Plan, &resp.Diagnostics, func(ctx context.Context, op *adapter.Operation, svc *Service, m *domainModel, subject string) {
		d, err := svc.Create(ctx, m.spec())
		Recorded(op, &resp.Diagnostics, path.Root("name"), summaryExists, d, err, subject, r.Record(ctx, m, &resp.State, &resp.Diagnostics))
	})
}

// Update changes name, description and enabled in place.
func (r *domainResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	prior, ok := adapter.Get[domainModel](ctx, req.State, &resp.Diagnostics)
	if !ok {
		return
	}

	r.Open(ctx, adapter.Update, req.Plan, &resp.Diagnostics, func(ctx context.Context, op *adapter.Operation, svc *Service, m *domainModel, subject string) {
		cur := &Domain{ID: prior.ID.ValueString(), Name: prior.Name.ValueString(), Description: prior.Description.ValueString(),
			Enabled: prior.Enabled.ValueBool()}

		d, err := svc.Update(ctx, cur, m.spec())
		Recorded(op, &resp.Diagnostics, path.Root("name"), summaryExists, d, err, adapter.Subject(prior.Name.ValueString(), cur.ID, nil),
			r.Record(ctx, m, &resp.State, &resp.Diagnostics))
	})
}

// Delete disables and deletes the domain, refusing one that still holds projects or roles
// unless force_destroy (which then names what it deleted).
func (r *domainResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	r.Open(ctx, adapter.Delete, req.State, &resp.Diagnostics, func(ctx context.Context, op *adapter.Operation, svc *Service, m *domainModel, subject string) {
		managedID, err := managedDomainID(ctx, r.Cloud())
		if err != nil {
			op.Fail(subject, err)
			return
		}

		deleted, err := svc.Delete(ctx, m.ID.ValueString(), managedID, m.ForceDestroy.ValueBool())
		if len(deleted) > 0 {
			names := make([]string, len(deleted))
			for i, o := range deleted {
				names[i] = o.String()
			}

			resp.Diagnostics.AddWarning(summaryForced, fmt.Sprintf("force_destroy deleted %d objects of domain %s: %s.",
				len(deleted), subject, strings.Join(names, ", ")))
		}

		adapter.FailOrRefuse[*NotEmptyError](op, subject, err, summaryNotEmpty)
	})
}

// locate finds a domain to import by ID or name; the protected domains are refused.
func (r *domainResource) locate(ctx context.Context, svc *Service, idOrName string) (cloud.Located, error) {
	loc, err := svc.Locate(ctx, idOrName)
	if err != nil {
		return loc, err
	}

	managedID, err := managedDomainID(ctx, r.Cloud())
	if err == nil {
		err = Protected(loc.ID, loc.Name, managedID)
	}

	return loc, err
}

// ModifyPlan refuses, at plan time, to manage Keystone's Default domain or the provider's
// managed domain (by name on create or rename, by ID on every plan including destroy), and a
// create or rename onto the name of a domain that exists already, unless a create meets what an
// interrupted create of a unikorn_domain left unfinished (which it adopts).
func (r *domainResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	c := r.Cloud()
	if c == nil {
		return
	}

	var state *domainModel

	if !req.State.Raw.IsNull() {
		s, ok := adapter.Get[domainModel](ctx, req.State, &resp.Diagnostics)
		if !ok {
			return
		}

		state = &s
	}

	p, planning := adapter.OpenPlan[domainModel](ctx, req, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}

	managedID, err := managedDomainID(ctx, c)
	if err != nil {
		resp.Diagnostics.AddError("Error reading the managed domain", err.Error())
		return
	}

	if state != nil {
		if err := Protected(state.ID.ValueString(), state.Name.ValueString(), managedID); err != nil {
			resp.Diagnostics.AddError(summaryProtected, err.Error()+". Remove it from the state (terraform state rm).")
			return
		}
	}

	if !planning || p.Plan.Name.IsUnknown() || (state != nil && state.Name.Equal(p.Plan.Name)) {
		return
	}

	r.planName(ctx, p.Plan.Name.ValueString(), state, managedID, &resp.Diagnostics)
}

// planName checks a new name: not a protected domain's, not another domain's.
func (r *domainResource) planName(ctx context.Context, name string, state *domainModel, managedID string, diags *diag.Diagnostics) {
	if err := Protected("", name, managedID); err != nil {
		diags.AddAttributeError(path.Root("name"), summaryProtected, err.Error())
		return
	}

	svc, ok := r.Core("Error reading domains", diags)
	if !ok {
		return
	}

	clashing, err := svc.Clashing(ctx, name)
	if err != nil {
		diags.AddError("Error reading domains", fmt.Sprintf("domains named %q: %s", name, err))
		return
	}

	for _, d := range clashing {
		if state != nil && d.ID == state.ID.ValueString() {
			continue
		}

		if err := Protected(d.ID, d.Name, managedID); err != nil {
			diags.AddAttributeError(path.Root("name"), summaryProtected, err.Error())
			return
		}

		// A rename never adopts; a create adopts only an interrupted create of its exact name.
		err := cloud.Adopt(d.Existing())
		if err == nil && (state != nil || d.Name != name) {
			err = &cloud.ExistsError{Existing: d.Existing(), Claim: cloud.ClaimOf(TypeName, d.Mark)}
		}

		if err != nil {
			diags.AddAttributeError(path.Root("name"), summaryExists, err.Error())
			return
		}
	}
}

// managedDomainID is the provider's managed domain, "" when none is configured.
func managedDomainID(ctx context.Context, c *cloud.Client) (string, error) {
	if c == nil {
		return "", errors.New("the provider is not configured")
	}

	id, err := c.ManagedDomainID(ctx)
	if err != nil && strings.Contains(err.Error(), "no managed Keystone domain is configured") {
		return "", nil
	}

	return id, err
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
