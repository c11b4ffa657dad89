package image

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

var (
	_ resource.ResourceWithImportState    = (*imageResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*imageResource)(nil)
	_ resource.ResourceWithValidateConfig = (*imageResource)(nil)
)

// NewImageResource is the constructor the provider lists.
func NewImageResource() resource.Resource {
	return &imageResource{adapter.NewRegionalAdmin[meta, *Manager, resourceModel](adapter.Kind{
		TypeName: "image", Noun: "image",
		Timeouts: adapter.Timeouts{Create: 30 * time.Minute, Read: 5 * time.Minute, Update: 10 * time.Minute, Delete: 10 * time.Minute},
	}, adapter.AdminOps[meta, *Manager, resourceModel]{
		Bind:    func(_ meta, c *cloud.Client, region string) (*Manager, error) { return bindManager(c, region) },
		Observe: observe,
		// Unprotecting it first when it is recorded as protected: the plan allowed that.
		Delete: func(ctx context.Context, mgr *Manager, m *resourceModel) error {
			return mgr.Delete(ctx, m.ID.ValueString(), m.Name.ValueString(), m.Protected.ValueBool())
		},
		Locate: func(ctx context.Context, mgr *Manager, idOrName string) (cloud.Located, error) {
			img, err := mgr.Locate(ctx, idOrName)
			if err != nil {
				return cloud.Located{}, err
			}

			return cloud.Located{ID: img.ID, Name: img.Name}, nil
		},
		ModifyPlan: checkPlan,
	})}
}

// imageResource is unikorn_image: a region's Glance image, an admin object of the region
// made in the service user's own project (no identity): the kit's regional admin resource
// (Read, Delete, ImportState, ModifyPlan) with its Create, Update and ValidateConfig.
type imageResource struct {
	adapter.RegionalAdmin[meta, *Manager, resourceModel, *resourceModel]
}

// bindManager is the image core of the resolved region in the service user's own scope.
func bindManager(c *cloud.Client, region string) (*Manager, error) {
	sc, err := c.Base().Image(region)
	if err != nil {
		return nil, err
	}

	return NewManager(sc, c.Base().ProjectID(), region, c.AdminRefusal), nil
}

// Create makes the image (or adopts what an interrupted create of a unikorn_image left),
// records it, imports source_url by web-download, waits for it to be active, converges what
// changes in place (protection last), and ends with the completion mark.
func (r *imageResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	r.Open(ctx, adapter.Create, req.Plan, &resp.Diagnostics,
		func(ctx context.Context, op *adapter.Operation, mgr *Manager, plan *resourceModel, region adapter.InRegion, subject func(string) string) {
			spec := expand(ctx, *plan, &resp.Diagnostics)
			if resp.Diagnostics.HasError() {
				return
			}

			created, err := mgr.Create(ctx, spec)

			var made adapter.Made
			if img := created.Image; img != nil {
				made = adapter.Made{ID: img.ID, Name: img.Name, Adopted: created.Adopted, Where: fmt.Sprintf(
					"in the service user's project in %s (status %s, created at %s)", region, img.Status,
					img.CreatedAt.UTC().Format(time.RFC3339))}
			}

			// Recorded before waiting: a failed import leaves a tainted resource, never an untracked image.
			if !r.Record(ctx, op, plan, made, err, subject, &resp.State, &resp.Diagnostics, func(m *resourceModel) {
				flatten(m, ViewOf(created.Image, spec.SourceURL), mgr.Region())
			}) {
				return
			}

			img, err := mgr.Import(ctx, created.Image, spec.SourceURL)
			if err == nil {
				img, err = mgr.Converge(ctx, img, keepProvenance(spec, img))
			}

			if err == nil {
				img, err = mgr.Complete(ctx, img)
			}

			made.Adopted = false
			r.Record(ctx, op, plan, made, err, subject, &resp.State, &resp.Diagnostics, func(m *resourceModel) {
				flatten(m, ViewOf(img, spec.SourceURL), mgr.Region())
			})
		})
}

// observe reads the recorded image again: by ID, else found again by name. The source is
// known from the state, except after an import or a re-find: Glance's import task says it then
// (while Glance keeps it).
func observe(ctx context.Context, mgr *Manager, m *resourceModel, _ *diag.Diagnostics) (adapter.Observed, error) {
	obs, err := mgr.Observe(ctx, m.ID.ValueString(), m.Name.ValueString())
	if obs.Image == nil || err != nil {
		return adapter.Observed{Gone: err == nil}, err
	}

	source := ""
	if m.SourceURL.IsNull() || obs.RefoundFrom != "" {
		if source, err = mgr.SourceURL(ctx, obs.Image.ID); err != nil {
			tflog.Warn(ctx, "Could not read the image's import task", map[string]any{"error": err.Error()})
		}
	}

	flatten(m, ViewOf(obs.Image, source), mgr.Region())

	return adapter.Observed{
		RefoundFrom: obs.RefoundFrom, Name: obs.Image.Name, ID: obs.Image.ID,
		Detail: " created at " + obs.Image.CreatedAt.UTC().Format(time.RFC3339),
	}, nil
}

// Update converges visibility, protection, tags, minimums, properties and organization in
// place (one JSON patch).
func (r *imageResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	r.Open(ctx, adapter.Update, req.Plan, &resp.Diagnostics,
		func(ctx context.Context, op *adapter.Operation, mgr *Manager, plan *resourceModel, _ adapter.InRegion, subject func(string) string) {
			spec := expand(ctx, *plan, &resp.Diagnostics)
			if resp.Diagnostics.HasError() {
				return
			}

			id := plan.ID.ValueString()

			img, err := mgr.Get(ctx, id)
			if err == nil {
				img, err = mgr.Converge(ctx, img, keepProvenance(spec, img))
			}

			if err != nil {
				op.Fail(subject(id), err)
				return
			}

			flatten(plan, ViewOf(img, spec.SourceURL), mgr.Region())
			resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
		})
}

// ValidateConfig checks the Unikorn properties and the organization's visibility.
func (r *imageResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	config, ok := adapter.Get[resourceModel](ctx, req.Config, &resp.Diagnostics)
	if !ok {
		return
	}

	checkProperties(config, &resp.Diagnostics)
}

// checkPlan refuses, at plan time, to destroy or replace a protected image unless the same
// change turns protection off.
func checkPlan(_ context.Context, plan, config, state *resourceModel, diags *diag.Diagnostics) {
	switch {
	case state == nil || !state.Protected.ValueBool():
	case plan == nil:
		diags.AddAttributeError(path.Root("protected"), "Protected image", fmt.Sprintf(
			"The image %q (%s) is protected: Glance refuses to delete it, and so does this plan. Apply protected = false "+
				"first, then destroy it.", state.Name.ValueString(), state.ID.ValueString()))
	case !plan.Protected.Equal(types.BoolValue(false)):
		if why := replacedBy(*plan, *config, *state); len(why) > 0 {
			diags.AddAttributeError(path.Root("protected"), "Protected image", fmt.Sprintf(
				"The change replaces the protected image %q (%s), which deletes it (a new %s). Set protected = false in the "+
					"same change to allow that, or apply protected = false first.",
				state.Name.ValueString(), state.ID.ValueString(), strings.Join(why, ", ")))
		}
	}
}

// replacedBy names the attributes whose known planned values replace the image (the
// attributes' own plan modifiers decide the same; the resource's ModifyPlan does not see them).
func replacedBy(plan, config, state resourceModel) []string {
	var why []string

	for _, a := range []struct {
		name         string
		planned, was types.String
		replaces     bool
	}{
		{"name", plan.Name, state.Name, true},
		{"disk_format", plan.DiskFormat, state.DiskFormat, true},
		{"container_format", plan.ContainerFormat, state.ContainerFormat, true},
		{"source_url", plan.SourceURL, state.SourceURL, !state.SourceURL.IsNull()},
		{"region", config.Region, state.Region, !config.Region.IsNull()},
	} {
		if a.replaces && !a.planned.IsUnknown() && !a.planned.Equal(a.was) {
			why = append(why, a.name)
		}
	}

	return why
}

// Glance's visibilities, disk and container formats, as the resource accepts them.
var (
	imageVisibilities = []string{"public", "private", "shared", "community"}
	diskFormats       = []string{"ami", "ari", "aki", "vhd", "vhdx", "vmdk", "raw", "qcow2", "vdi", "ploop", "iso"}
	containerFormats  = []string{"ami", "ari", "aki", "bare", "ovf", "ova", "docker", "compressed"}
)

// glanceNameMax is Glance's limit on an image name.
const glanceNameMax = 255

// resourceModel is the state of unikorn_image.
type resourceModel struct {
	adapter.RegionalObject

	Checksum        types.String `tfsdk:"checksum"`
	ContainerFormat types.String `tfsdk:"container_format"`
	CreatedAt       types.String `tfsdk:"created_at"`
	DiskFormat      types.String `tfsdk:"disk_format"`
	MinDiskGB       types.Int64  `tfsdk:"min_disk_gb"`
	MinRAMMiB       types.Int64  `tfsdk:"min_ram_mib"`
	OrganizationID  types.String `tfsdk:"organization_id"`
	Properties      types.Map    `tfsdk:"properties"`
	Protected       types.Bool   `tfsdk:"protected"`
	SizeBytes       types.Int64  `tfsdk:"size_bytes"`
	SourceURL       types.String `tfsdk:"source_url"`
	Status          types.String `tfsdk:"status"`
	Tags            types.Set    `tfsdk:"tags"`
	Visibility      types.String `tfsdk:"visibility"`
}

func (r *imageResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "A Glance image of a region, made in the service user's own project and filled by Glance's " +
			"**web-download** import from `source_url` (the apply waits until Glance says `active` and logs the import's " +
			"progress). Region preparation: it needs the service user's admin grant. When `properties` carry `unikorn:` keys, " +
			"or `organization_id` is set, they are checked at plan time against Unikorn's image property schema, so that the " +
			"`unikorn_images` data sources accept the image. Deleting a protected image is a plan-time error unless the " +
			"same change turns `protected` off.\n\n" +
			"**Unikorn.** The schema is `v2.image.schema.json` of Unikorn's region service as of v1.16.4 (unchanged through " +
			"v1.19.0): the same one the image data sources apply, so the plan refuses exactly the properties Unikorn refuses " +
			"(for example `unikorn:gpu_models = \"H100-SXM5\"` or `\"A100, H100\"`: models are letters, digits and " +
			"underscores joined by commas) and accepts what it accepts (empty OS strings, any other `unikorn:package:`, the " +
			"legacy `unikorn:kubernetes_version`). Images valid for the schemas of Unikorn v1.12.0–v1.16.3 pass too; those " +
			"also limited `unikorn:os:family` to `debian`/`redhat` and `unikorn:os:distro` to `ubuntu`/`rocky`, so an image " +
			"outside those is listed by Unikorn v1.16.4 and later only; v1.10.0–v1.11.x did not check the `kubernetes` and " +
			"`slurmd` package versions, and one without `v` is refused here as Unikorn v1.12.0 and later refuse it. Unikorn " +
			"lists only `public` images. An organization " +
			"image in Unikorn's shape, which Unikorn lists for its organization as it lists the images it imports itself, is " +
			"`public` with `organization_id`; the default stays `private` (a public image is visible to, and bootable by, every " +
			"project of the cloud in Glance, which Unikorn's API hides from other organizations and Glance does not), and a " +
			"private organization image is listed by this provider's image data sources only.\n\n" +
			"**Adoption.** The image carries the provider's ownership marks among its Glance properties (not shown in " +
			"`properties`): `unikorn_terraform_kind = unikorn_image` from its creation, and `unikorn_terraform_created` once " +
			"its import is done and it is converged. A create that finds an image of its name in the service user's project " +
			"adopts it only when it is what an interrupted create of a `unikorn_image` left (the first mark without the " +
			"second): it then imports and converges it. Any other image of the name (made by hand, by Unikorn, by another " +
			"tool, or a finished `unikorn_image` of another configuration) is refused before anything is written, with the " +
			"`terraform import` command that takes it over. An image gone by its recorded ID is replaced by one of its name " +
			"only under the same rule; images made before these marks existed keep working by their recorded IDs.",
		Attributes: map[string]schema.Attribute{
			"checksum": adapter.StableString("Glance's MD5 checksum of the image data."),
			"container_format": schema.StringAttribute{
				Optional: true, Computed: true, Default: stringdefault.StaticString("bare"),
				MarkdownDescription: "Container format: one of `" + strings.Join(containerFormats, "`, `") + "`. Default `bare`. " +
					"Changing it replaces the image.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
				Validators:    []validator.String{stringvalidator.OneOf(containerFormats...)},
			},
			"created_at": adapter.StableString("When Glance made the image (RFC 3339)."),
			"disk_format": schema.StringAttribute{
				Required: true,
				MarkdownDescription: "Disk format of the data at `source_url`: one of `" + strings.Join(diskFormats, "`, `") +
					"`. Changing it replaces the image.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
				Validators:    []validator.String{stringvalidator.OneOf(diskFormats...)},
			},
			"id": adapter.IDAttribute("Glance ID of the image."),
			"min_disk_gb": schema.Int64Attribute{
				Optional: true, Computed: true, Default: int64default.StaticInt64(0),
				MarkdownDescription: "Smallest root disk, in GB, that Nova boots the image on (0: no minimum). Changes in place.",
				Validators:          []validator.Int64{int64validator.AtLeast(0)},
			},
			"min_ram_mib": schema.Int64Attribute{
				Optional: true, Computed: true, Default: int64default.StaticInt64(0),
				MarkdownDescription: "Smallest RAM, in MiB, that Nova boots the image with (0: no minimum). Changes in place.",
				Validators:          []validator.Int64{int64validator.AtLeast(0)},
			},
			"name": schema.StringAttribute{
				Required: true,
				MarkdownDescription: "Glance name of the image, by which it is found again (exactly: a second image of the name " +
					"in the project is an error). Changing it replaces the image.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
				Validators:    []validator.String{imageName()},
			},
			"organization_id": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "Makes it an organization image, with the properties Unikorn's own image import writes: `" +
					PropertyOrganizationID + "` = this ID, and Unikorn's provenance tags `" + PropertySourceTag + "` = `" + SourceImport +
					"` (an image that already names another source, such as a Unikorn snapshot taken over by import, keeps it) and `" +
					PropertyOrganizationTag + "` = this ID. The provider writes the three (they are not shown in `properties`, " +
					"where they cannot be set) and removes them when `organization_id` is unset. The image data sources return it " +
					"for this organization only, without a signature check (it is in the service user's own project, which no " +
					"tenant can write to); Unikorn lists it for the organization only when it is `public`. The whole property set is " +
					"then checked against the Unikorn schema. Changes in place.",
				Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"properties": schema.MapAttribute{
				Optional: true, ElementType: types.StringType,
				MarkdownDescription: "Glance properties of the image (Glance's own, such as `os_hash_value` or " +
					"`os_glance_*`, are left out). `unikorn:` keys are checked against the Unikorn image schema at plan time; `" +
					PropertyOrganizationID + "` and Unikorn's provenance tags `" + PropertySourceTag + "` and `" +
					PropertyOrganizationTag + "` are written from `organization_id`. Change in place.",
				Validators: []validator.Map{mapvalidator.KeysAre(stringvalidator.LengthAtLeast(1))},
			},
			"protected": schema.BoolAttribute{
				Optional: true, Computed: true, Default: booldefault.StaticBool(false),
				MarkdownDescription: "Whether Glance refuses to delete the image. Set once the import is done; changes in place. " +
					"Destroying or replacing a protected image is a plan-time error unless the same change sets it to false.",
			},
			"region": adapter.RegionAttribute("image"),
			"size_bytes": schema.Int64Attribute{
				Computed: true, MarkdownDescription: "Size of the image data in bytes.",
				PlanModifiers: []planmodifier.Int64{int64planmodifier.UseStateForUnknown()},
			},
			"source_url": schema.StringAttribute{
				Required:  true,
				Sensitive: true,
				MarkdownDescription: "`http` or `https` URL that Glance's web-download import fetches the image data from " +
					"(Glance's `import_filtering_opts` decide which hosts and ports it may reach). Changing it replaces the image. " +
					"Sensitive, since it is often a pre-signed URL: logs and errors show no more of it than its scheme, host and " +
					"path.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplaceIf(sourceChanged,
					"A new source URL replaces the image.", "A new source URL replaces the image.")},
				Validators: []validator.String{sourceURL()},
			},
			"status": adapter.StableString("Glance's status of the image (`active` once imported)."),
			"tags": schema.SetAttribute{
				Optional: true, ElementType: types.StringType,
				MarkdownDescription: "Glance tags of the image. Change in place.",
				Validators:          []validator.Set{setvalidator.ValueStringsAre(stringvalidator.LengthBetween(1, glanceNameMax))},
			},
			"timeouts": adapter.TimeoutsAttribute(ctx),
			"visibility": schema.StringAttribute{
				Optional: true, Computed: true, Default: stringdefault.StaticString("private"),
				MarkdownDescription: "Who sees the image: `public`, `private`, `shared` or `community`. Default `private`. Unikorn " +
					"lists only `public` images (with `organization_id`, only for that organization: Unikorn's shape of an " +
					"organization image); `public` also lets every project of the cloud see and boot the image in Glance. Changes " +
					"in place.",
				Validators: []validator.String{stringvalidator.OneOf(imageVisibilities...)},
			},
		},
	}
}

// sourceChanged replaces the image for a new source_url, but not when the state does not know
// the source (an import, after Glance dropped the import task): the configured one is taken.
func sourceChanged(_ context.Context, req planmodifier.StringRequest, resp *stringplanmodifier.RequiresReplaceIfFuncResponse) {
	resp.RequiresReplace = !req.StateValue.IsNull() && !req.PlanValue.Equal(req.StateValue)
}

// imageName checks a Glance image name: 1 to 255 characters, no control characters, no white
// space around it.
func imageName() validator.String {
	return adapter.StringCheck("name",
		fmt.Sprintf("an image name of 1 to %d characters, without control characters or surrounding white space", glanceNameMax),
		checkImageName)
}

func checkImageName(s string) error {
	switch {
	case s == "":
		return errors.New("must not be empty")
	case len([]rune(s)) > glanceNameMax:
		return fmt.Errorf("must be at most %d characters", glanceNameMax)
	case strings.TrimSpace(s) != s:
		return errors.New("must not begin or end with white space")
	case strings.IndexFunc(s, unicode.IsControl) >= 0:
		return errors.New("must not contain control characters")
	}

	return nil
}

// sourceURL checks that a source is an absolute http or https URL with a host.
func sourceURL() validator.String {
	return adapter.StringCheck("source URL", "an absolute `http` or `https` URL with a host", checkSourceURL)
}

func checkSourceURL(s string) error {
	u, err := url.Parse(s)

	// The message never quotes the URL whole: it may be pre-signed.
	switch {
	case err != nil:
		cause := err
		if urlErr := (*url.Error)(nil); errors.As(err, &urlErr) {
			cause = urlErr.Err // without the URL it quotes
		}

		return fmt.Errorf("the source URL cannot be read as a URL: %w", cause)
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Errorf("the source URL (scheme %q) is not an http or https URL: Glance's web-download fetches only those", u.Scheme)
	case u.Host == "":
		return errors.New("the source URL has no host")
	}

	return nil
}

// checkProperties reports, at plan time, every violation of the Unikorn image schema by the
// properties of config (organization_id included as its property), when they carry unikorn:
// keys or an organization: the same reasons the image data sources give when they leave an
// image out. Unknown values are left to the apply.
func checkProperties(config resourceModel, diags *diag.Diagnostics) {
	if config.Properties.IsUnknown() || config.OrganizationID.IsUnknown() {
		return
	}

	props := map[string]string{}
	if !config.Properties.IsNull() {
		for k, v := range config.Properties.Elements() {
			s, ok := v.(types.String)
			if !ok || s.IsUnknown() {
				return
			}

			props[k] = s.ValueString()
		}
	}

	p := path.Root("properties")

	if _, ok := props[PropertyOrganizationID]; ok {
		diags.AddAttributeError(p.AtMapKey(PropertyOrganizationID), "Invalid Unikorn image property",
			fmt.Sprintf("Set the organization with organization_id, not the property %q.", PropertyOrganizationID))

		return
	}

	for _, k := range slices.Sorted(maps.Keys(props)) {
		switch {
		case naming.IsMarkKey(k):
			diags.AddAttributeError(p.AtMapKey(k), "Reserved image property", fmt.Sprintf(
				"%q is the provider's own ownership mark of the images it makes: it cannot be configured.", k))

			return
		case isProvenanceKey(k):
			diags.AddAttributeError(p.AtMapKey(k), "Reserved image property", fmt.Sprintf(
				"%q is one of Unikorn's provenance tags, which the provider writes from organization_id (as Unikorn's "+
					"import does: %s = %q and %s = the organization) and removes without it: it cannot be configured.",
				k, PropertySourceTag, SourceImport, PropertyOrganizationTag))

			return
		}
	}

	org := config.OrganizationID.ValueString()
	maps.Copy(props, organizationProperties(org))

	if org == "" && !slices.ContainsFunc(slices.Collect(maps.Keys(props)), func(k string) bool { return strings.HasPrefix(k, "unikorn:") }) {
		return
	}

	asAny := make(map[string]any, len(props))
	for k, v := range props {
		asAny[k] = v
	}

	err := Validate(asAny)
	if err == nil {
		return
	}

	for _, e := range adapter.Unjoin(err) {
		at := p
		if pe, ok := errors.AsType[*PropertyError](e); ok && pe.Property != PropertyOrganizationID {
			if _, present := props[pe.Property]; present {
				at = p.AtMapKey(pe.Property)
			}
		} else if ok {
			at = path.Root("organization_id")
		}

		diags.AddAttributeError(at, "Invalid Unikorn image property", fmt.Sprintf(
			"The image breaks the Unikorn image schema, so the image data sources would leave it out: %s.", e))
	}

}

// expand is the core's spec of the plan.
func expand(ctx context.Context, m resourceModel, diags *diag.Diagnostics) Spec {
	spec := Spec{
		Name:            m.Name.ValueString(),
		SourceURL:       m.SourceURL.ValueString(),
		DiskFormat:      m.DiskFormat.ValueString(),
		ContainerFormat: m.ContainerFormat.ValueString(),
		Visibility:      m.Visibility.ValueString(),
		Protected:       m.Protected.ValueBool(),
		MinDiskGB:       int(m.MinDiskGB.ValueInt64()),
		MinRAMMiB:       int(m.MinRAMMiB.ValueInt64()),
		Tags:            []string{},
		Properties:      map[string]string{},
	}

	if !m.Tags.IsNull() {
		diags.Append(m.Tags.ElementsAs(ctx, &spec.Tags, false)...)
	}

	if !m.Properties.IsNull() {
		diags.Append(m.Properties.ElementsAs(ctx, &spec.Properties, false)...)
	}

	maps.Copy(spec.Properties, organizationProperties(m.OrganizationID.ValueString()))

	return spec
}

// flatten writes what Glance says of img into m (source_url only when Glance's view knows it).
func flatten(m *resourceModel, img *Glance, region string) {
	props := maps.Clone(img.Properties)
	org := props[PropertyOrganizationID]
	delete(props, PropertyOrganizationID)
	maps.DeleteFunc(props, func(k, _ string) bool { return isProvenanceKey(k) })

	m.ID = types.StringValue(img.ID)
	m.Name = types.StringValue(img.Name)
	m.Region = types.StringValue(region)
	m.Status = types.StringValue(img.Status)
	m.Checksum = adapter.StringOrNull(img.Checksum)
	m.SizeBytes = types.Int64Value(img.SizeBytes)
	m.CreatedAt = types.StringValue(img.CreatedAt.UTC().Format(time.RFC3339))
	m.DiskFormat = types.StringValue(img.DiskFormat)
	m.ContainerFormat = types.StringValue(img.ContainerFormat)
	m.Visibility = types.StringValue(img.Visibility)
	m.Protected = types.BoolValue(img.Protected)
	m.MinDiskGB = types.Int64Value(int64(img.MinDiskGB))
	m.MinRAMMiB = types.Int64Value(int64(img.MinRAMMiB))
	m.OrganizationID = adapter.StringOrNull(org)
	m.Tags = adapter.StringSet(img.Tags, m.Tags)
	m.Properties = adapter.StringMap(props, m.Properties)

	if img.SourceURL != "" {
		m.SourceURL = types.StringValue(img.SourceURL)
	}
}
