package flavor

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/boolplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
)

var (
	_ resource.ResourceWithImportState    = (*managedResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*managedResource)(nil)
	_ resource.ResourceWithValidateConfig = (*managedResource)(nil)
)

// managedTimeouts are the operations' default timeouts: every Nova flavor call is synchronous.
var managedTimeouts = adapter.Timeouts{
	Create: 5 * time.Minute, Read: 2 * time.Minute, Update: 5 * time.Minute, Delete: 5 * time.Minute,
}

// NewFlavorResource is unikorn_flavor, the constructor the provider lists.
func NewFlavorResource() resource.Resource {
	return &managedResource{adapter.NewRegionalAdmin[meta, *Admin, managedModel](
		adapter.Kind{TypeName: "flavor", Noun: "flavor", Timeouts: managedTimeouts},
		adapter.AdminOps[meta, *Admin, managedModel]{
			Bind:    func(_ meta, c *cloud.Client, region string) (*Admin, error) { return bindAdmin(c, region) },
			Observe: observeManaged,
			Delete:  func(ctx context.Context, a *Admin, m *managedModel) error { return a.Delete(ctx, m.ID.ValueString()) },
			Locate:  locateManaged,
			// After a change, a flavor data source read later in this run lists Nova again.
			Changed: func(mt meta, a *Admin, m *managedModel) { mt.FlavorCache().forget(a.Region(), m.ID.ValueString()) },
		})}
}

// managedResource is unikorn_flavor: the kit's regional admin resource (Read, Delete,
// ImportState, ModifyPlan) with its Create, Update and ValidateConfig.
type managedResource struct {
	adapter.RegionalAdmin[meta, *Admin, managedModel, *managedModel]
}

// bindAdmin is the flavor core of the resolved region in the service user's own scope.
func bindAdmin(c *cloud.Client, region string) (*Admin, error) {
	compute, err := c.Base().Compute(region)
	if err != nil {
		return nil, err
	}

	return NewAdmin(compute, region, c.AdminRefusal), nil
}

// observeManaged reads the recorded flavor again, by its ID (never by its name: Observe).
func observeManaged(ctx context.Context, a *Admin, m *managedModel, _ *diag.Diagnostics) (adapter.Observed, error) {
	out, err := a.Observe(ctx, m.ID.ValueString())
	if out == nil || err != nil {
		return adapter.Observed{Gone: err == nil}, err
	}

	flattenManaged(m, out, a.Region())

	return adapter.Observed{Name: out.Name, ID: out.ID}, nil
}

// locateManaged finds the flavor to import by its ID or its name.
func locateManaged(ctx context.Context, a *Admin, idOrName string) (cloud.Located, error) {
	f, err := a.Locate(ctx, idOrName)
	if f == nil {
		if err == nil {
			err = fmt.Errorf("region %s has no flavor with the ID or name %q", a.Region(), idOrName)
		}

		return cloud.Located{}, err
	}

	return cloud.Located{ID: f.ID, Name: f.Name}, nil
}

// apply opens a create or an update of the planned flavor, lets do make it or bring it to
// spec, and records what Nova holds then (the kit's Record).
func (r *managedResource) apply(ctx context.Context, opKind adapter.Op, src tfsdk.Plan, state *tfsdk.State, diags *diag.Diagnostics,
	do func(ctx context.Context, a *Admin, plan *managedModel, spec ManagedSpec) (*Managed, error),
) {
	r.Open(ctx, opKind, src, diags,
		func(ctx context.Context, op *adapter.Operation, a *Admin, plan *managedModel, region adapter.InRegion, subject func(string) string) {
			spec := expandManaged(ctx, *plan, diags)
			if diags.HasError() {
				return
			}

			out, err := do(ctx, a, plan, spec)

			var made adapter.Made
			if out != nil {
				made = adapter.Made{ID: out.ID, Name: out.Name, Where: "in " + string(region)}
			}

			r.Record(ctx, op, plan, made, err, subject, state, diags, func(m *managedModel) { flattenManaged(m, out, string(region)) })
		})
}

// Create makes the flavor; a flavor of its name (or flavor_id) that exists is refused: import it.
func (r *managedResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	r.apply(ctx, adapter.Create, req.Plan, &resp.State, &resp.Diagnostics,
		func(ctx context.Context, a *Admin, _ *managedModel, spec ManagedSpec) (*Managed, error) {
			return a.Ensure(ctx, spec)
		})
}

// Update converges the extra specs and the access list in place, from what Nova holds now.
func (r *managedResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	r.apply(ctx, adapter.Update, req.Plan, &resp.State, &resp.Diagnostics,
		func(ctx context.Context, a *Admin, plan *managedModel, spec ManagedSpec) (*Managed, error) {
			cur, err := a.Observe(ctx, plan.ID.ValueString())

			switch {
			case err != nil:
				return nil, err
			case cur == nil:
				return nil, errors.New("the flavor is gone from Nova; the next plan creates it again")
			}

			return a.Converge(ctx, cur, spec)
		})
}

// ValidateConfig refuses access_project_ids on a public flavor.
func (r *managedResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	config, ok := adapter.Get[managedModel](ctx, req.Config, &resp.Diagnostics)
	if ok {
		checkAccess(config.IsPublic, config.AccessProjectIDs, &resp.Diagnostics)
	}
}

// checkAccess reports access projects on a flavor that is public (is_public true or unset,
// the default): Nova keeps access lists for private flavors only.
func checkAccess(public types.Bool, access types.Set, diags *diag.Diagnostics) {
	if access.IsNull() || public.IsUnknown() || (!public.IsNull() && !public.ValueBool()) {
		return
	}

	diags.AddAttributeError(path.Root("access_project_ids"), "Access list on a public flavor",
		"access_project_ids gives a private flavor to projects, but this flavor is public (is_public is true, or unset: "+
			"the default), which every project sees already. Set is_public = false, or remove access_project_ids.")
}

// novaNameMax is the longest flavor name, flavor ID, extra spec key or value Nova takes.
const novaNameMax = 255

// flavorNameValidator checks a flavor name as Nova does: 1 to 255 printable characters
// without white space at either end.
var flavorNameValidator = adapter.StringCheck("name",
	fmt.Sprintf("a flavor name of 1 to %d printable characters, without white space at either end", novaNameMax), checkFlavorName)

// checkFlavorName is Nova's rule for a flavor name.
func checkFlavorName(s string) error {
	first, _ := utf8.DecodeRuneInString(s)
	last, _ := utf8.DecodeLastRuneInString(s)

	switch {
	case s == "":
		return errors.New("a flavor name must not be empty")
	case !utf8.ValidString(s):
		return fmt.Errorf("%q is not valid UTF-8", s)
	case utf8.RuneCountInString(s) > novaNameMax:
		return fmt.Errorf("a flavor name has at most %d characters, %q has %d", novaNameMax, s, utf8.RuneCountInString(s))
	case unicode.IsSpace(first) || unicode.IsSpace(last):
		return fmt.Errorf("%q starts or ends with white space", s)
	case strings.IndexFunc(s, func(r rune) bool { return !unicode.IsPrint(r) && r != ' ' }) >= 0:
		return fmt.Errorf("%q holds a control or other non-printable character", s)
	}

	return nil
}

// flavorIDPattern is Nova's form of a given flavor ID: letters, digits, '.', '_', '-' and
// inner spaces.
var flavorIDPattern = regexp.MustCompile(`^[A-Za-z0-9._-]([A-Za-z0-9. _-]*[A-Za-z0-9._-])?$`)

// flavorIDValidator checks a given flavor ID as Nova does.
var flavorIDValidator = adapter.StringCheck("flavor ID",
	fmt.Sprintf("1 to %d letters, digits, '.', '_', '-' and inner spaces", novaNameMax), checkFlavorID)

func checkFlavorID(s string) error {
	if len(s) > novaNameMax || !flavorIDPattern.MatchString(s) {
		return fmt.Errorf("%q is not a Nova flavor ID: 1 to %d letters, digits, '.', '_', '-' and spaces (not at either end)",
			s, novaNameMax)
	}

	return nil
}

// fixedInt is a required count of the flavor: Nova cannot change it, so a change replaces.
func fixedInt(description string, validators ...validator.Int64) schema.Int64Attribute {
	return schema.Int64Attribute{
		Required:            true,
		MarkdownDescription: description + " Changing it replaces the flavor.",
		PlanModifiers:       []planmodifier.Int64{int64planmodifier.RequiresReplace()},
		Validators:          validators,
	}
}

// fixedSize is an optional size of the flavor, 0 by default.
func fixedSize(description string) schema.Int64Attribute {
	return schema.Int64Attribute{
		Optional:            true,
		Computed:            true,
		Default:             int64default.StaticInt64(0),
		MarkdownDescription: description + " Default: `0`. Changing it replaces the flavor.",
		PlanModifiers:       []planmodifier.Int64{int64planmodifier.RequiresReplace()},
		Validators:          []validator.Int64{int64validator.AtLeast(0)},
	}
}

func (r *managedResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "A Nova flavor of a region, made by the provider's service user (flavors are admin objects of " +
			"the region: the service user needs cloud admin, and a refusal says so). A public flavor is seen by every project " +
			"and by the `unikorn_flavors` / `unikorn_flavor` data sources (within the provider's `flavor_ids` allow-list, when " +
			"one is set); a private one only by the projects of " +
			"`access_project_ids`.\n\n" +
			"Nova keeps flavor names unique. Nova cannot change a flavor's sizes, so changing any of them replaces the " +
			"flavor; `extra_specs` and `access_project_ids` change in place.\n\n" +
			"**Adoption.** A flavor carries no mark of who made it (its extra specs and description are the user's), so a " +
			"create never adopts one: it looks for a flavor of the name (and of `flavor_id`) first and refuses one that " +
			"exists, touching nothing, with the `terraform import` command that takes it over (and how its sizes differ, " +
			"when they do). A create whose answer was lost (a proxy's error after Nova acted) recovers the flavor it made " +
			"itself. A create interrupted after Nova made the flavor (a killed apply) leaves a flavor that the next apply " +
			"refuses: import it, or delete it. A flavor gone by its recorded ID is gone: one of the same name is never " +
			"taken for it.\n\n" +
			"**Import** with `REGION/ID` or `REGION/name` (a bare `ID` or `name` means the provider's default region).",
		Attributes: map[string]schema.Attribute{
			"access_project_ids": schema.SetAttribute{
				Optional:    true,
				ElementType: types.StringType,
				MarkdownDescription: "IDs of the projects a private flavor (`is_public = false`) is given to, exactly: projects " +
					"given it out of band lose it on the next apply. Only for a private flavor (a plan-time error otherwise). " +
					"Unset: no project. Updated in place.",
				Validators: []validator.Set{
					setvalidator.SizeAtLeast(1),
					setvalidator.ValueStringsAre(stringvalidator.LengthBetween(1, novaNameMax)),
				},
			},
			"disk_gb":      fixedSize("Size of the root disk, in GB; `0` means the size of the image booted."),
			"ephemeral_gb": fixedSize("Size of the ephemeral disk, in GB."),
			"extra_specs": schema.MapAttribute{
				Optional:    true,
				ElementType: types.StringType,
				MarkdownDescription: "Nova extra specs of the flavor (e.g. `hw:cpu_policy = \"dedicated\"`, " +
					"`resources:VGPU = \"1\"`), exactly: keys set out of band are removed on the next apply. Nova checks the " +
					"keys of its own namespaces. Unset: none. Updated in place.",
				Validators: []validator.Map{
					mapvalidator.SizeAtLeast(1),
					mapvalidator.KeysAre(stringvalidator.LengthBetween(1, novaNameMax)),
					mapvalidator.ValueStringsAre(stringvalidator.LengthBetween(0, novaNameMax)),
				},
			},
			"flavor_id": schema.StringAttribute{
				Optional: true,
				Computed: true,
				MarkdownDescription: "The flavor ID to create the flavor with, e.g. `m1.large`. Default: a UUID that Nova " +
					"chooses. Always the same as `id`. Changing it replaces the flavor.",
				PlanModifiers: []planmodifier.String{
					stringplanmodifier.UseStateForUnknown(),
					stringplanmodifier.RequiresReplaceIfConfigured(),
				},
				Validators: []validator.String{flavorIDValidator},
			},
			"id": adapter.IDAttribute("ID of the Nova flavor."),
			"is_public": schema.BoolAttribute{
				Optional:            true,
				Computed:            true,
				Default:             booldefault.StaticBool(true),
				MarkdownDescription: "Whether every project sees the flavor. Default: `true`. Changing it replaces the flavor.",
				PlanModifiers:       []planmodifier.Bool{boolplanmodifier.RequiresReplace()},
			},
			"name": schema.StringAttribute{
				Required: true,
				MarkdownDescription: "Name of the flavor, unique in the region (Nova's rule); the flavor is found again by it. " +
					"Changing it replaces the flavor.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
				Validators:    []validator.String{flavorNameValidator},
			},
			"ram_mib":  fixedInt("Memory, in MiB.", int64validator.AtLeast(1)),
			"region":   adapter.RegionAttribute("flavor"),
			"swap_mib": fixedSize("Size of the swap disk, in MiB."),
			"timeouts": adapter.TimeoutsAttribute(ctx),
			"vcpus":    fixedInt("Number of virtual CPUs.", int64validator.AtLeast(1)),
		},
	}
}

// managedModel is the state of a unikorn_flavor.
type managedModel struct {
	adapter.RegionalObject

	AccessProjectIDs types.Set    `tfsdk:"access_project_ids"`
	DiskGB           types.Int64  `tfsdk:"disk_gb"`
	EphemeralGB      types.Int64  `tfsdk:"ephemeral_gb"`
	ExtraSpecs       types.Map    `tfsdk:"extra_specs"`
	FlavorID         types.String `tfsdk:"flavor_id"`
	IsPublic         types.Bool   `tfsdk:"is_public"`
	RAMMiB           types.Int64  `tfsdk:"ram_mib"`
	SwapMiB          types.Int64  `tfsdk:"swap_mib"`
	VCPUs            types.Int64  `tfsdk:"vcpus"`
}

// expandManaged is the core's spec of the plan.
func expandManaged(ctx context.Context, m managedModel, diags *diag.Diagnostics) ManagedSpec {
	spec := ManagedSpec{
		Name:        m.Name.ValueString(),
		ID:          adapter.KnownOrNull(m.FlavorID).ValueString(),
		VCPUs:       int(m.VCPUs.ValueInt64()),
		RAMMiB:      int(m.RAMMiB.ValueInt64()),
		DiskGB:      int(m.DiskGB.ValueInt64()),
		EphemeralGB: int(m.EphemeralGB.ValueInt64()),
		SwapMiB:     int(m.SwapMiB.ValueInt64()),
		Public:      m.IsPublic.ValueBool(),
		ExtraSpecs:  map[string]string{},
	}

	if !m.ExtraSpecs.IsNull() && !m.ExtraSpecs.IsUnknown() {
		diags.Append(m.ExtraSpecs.ElementsAs(ctx, &spec.ExtraSpecs, false)...)
	}

	spec.Access = adapter.Elements[string](ctx, m.AccessProjectIDs, diags)

	return spec
}

// flattenManaged writes what Nova holds of the flavor into m; the region is the core's.
func flattenManaged(m *managedModel, f *Managed, region string) {
	m.ID = types.StringValue(f.ID)
	m.FlavorID = types.StringValue(f.ID)
	m.Name = types.StringValue(f.Name)
	m.Region = types.StringValue(region)
	m.VCPUs = types.Int64Value(int64(f.VCPUs))
	m.RAMMiB = types.Int64Value(int64(f.RAMMiB))
	m.DiskGB = types.Int64Value(int64(f.DiskGB))
	m.EphemeralGB = types.Int64Value(int64(f.EphemeralGB))
	m.SwapMiB = types.Int64Value(int64(f.SwapMiB))
	m.IsPublic = types.BoolValue(f.Public)
	m.ExtraSpecs = adapter.StringMap(f.ExtraSpecs, m.ExtraSpecs)
	m.AccessProjectIDs = adapter.StringSet(f.Access, m.AccessProjectIDs)
}
