package adapter

// The look-up kit: the data sources that find one object a resource manages (unikorn_network,
// unikorn_server, unikorn_identity, ...) without managing it, by `id` or by `name` where a
// scope attribute says (`identity_id`, `project_id`, `domain_id`), and expose what the resource
// exposes: the resource's own attributes, computed, filled by the concept's core as the
// resource's Read fills them.

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/datasourcevalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
)

// Scoped is where a look-up by name looks: the scope attribute that is set (`identity_id`) and
// its value.
type Scoped struct {
	Attribute, Value string
}

// Lookup is what is special about one look-up data source. M is the model of the resource whose
// attributes it exposes.
type Lookup[T Meta, M any] struct {
	// Kind names the data source (unikorn_<TypeName>) and one object in messages (Noun).
	Kind Kind
	// Nouns names several objects in messages; "": Noun + "s".
	Nouns string
	// Description is the data source's.
	Description string
	// Resource is the resource whose attributes the data source exposes, all computed except
	// the look-up's own (`id`, `name`, `region`, Scope); its `timeouts` and every sensitive or
	// write-only attribute are left out.
	Resource func() resource.Resource
	// Regional says that the objects live in a region: the data source has `region`.
	Regional bool
	// Omit are the resource's attributes that say nothing of an object found (force_destroy:
	// what a destroy of the resource may do).
	Omit []string
	// Scope are the attributes of which exactly one says where a `name` is looked for (none: a
	// name is unique where the kind lives, as an identity's). Given with `id`, the object found
	// must be in it.
	Scope []string
	// ByID reads the object id in region ("" for a kind without one) into the resource's
	// model; an error that is cloud.ErrNotLocated (errors.Is) when it is not there.
	ByID func(ctx context.Context, m T, region, id string) (M, error)
	// ByName reads every object called name (the user-given name the resource takes) in scope
	// (the zero Scoped for a kind without one) and region.
	ByName func(ctx context.Context, m T, region string, scope Scoped, name string) ([]M, error)
}

// LookupDataSource is the data source of a Lookup.
type LookupDataSource[T Meta, M any] struct {
	DataSourceBase[T]

	lookup Lookup[T, M]
	// model is the resource's attribute types (M's object type); exposed the attributes the data
	// source shows of it.
	model   map[string]attr.Type
	exposed []string
	schema  schema.Schema
}

var (
	_ datasource.DataSourceWithConfigure        = (*LookupDataSource[Meta, struct{}])(nil)
	_ datasource.DataSourceWithConfigValidators = (*LookupDataSource[Meta, struct{}])(nil)
	_ datasource.DataSourceWithValidateConfig   = (*LookupDataSource[Meta, struct{}])(nil)
)

// NewLookup is the data source of l.
func NewLookup[T Meta, M any](l Lookup[T, M]) *LookupDataSource[T, M] {
	ctx := context.Background()
	res := &resource.SchemaResponse{}
	l.Resource().Schema(ctx, resource.SchemaRequest{}, res)

	d := &LookupDataSource[T, M]{DataSourceBase: NewDataSourceBase[T](l.Kind), lookup: l}
	d.model = res.Schema.Type().(attr.TypeWithAttributeTypes).AttributeTypes() //nolint:forcetypeassert // a schema's type is an object
	attrs := maps.Clone(res.Schema.Attributes)
	for _, a := range l.Omit {
		delete(attrs, a)
	}

	d.schema = lookupSchema(l.Kind.Noun, l.Description, attrs, l.Regional, l.Scope)

	for name := range d.schema.Attributes {
		d.exposed = append(d.exposed, name)
	}

	slices.Sort(d.exposed)

	return d
}

// Schema answers the data source's schema.
func (d *LookupDataSource[T, M]) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = d.schema
}

// ConfigValidators: exactly one of `id` and `name`; at most one scope attribute.
func (d *LookupDataSource[T, M]) ConfigValidators(context.Context) []datasource.ConfigValidator {
	out := []datasource.ConfigValidator{datasourcevalidator.ExactlyOneOf(path.MatchRoot("id"), path.MatchRoot("name"))}

	if len(d.lookup.Scope) > 1 {
		scope := make([]path.Expression, len(d.lookup.Scope))
		for i, a := range d.lookup.Scope {
			scope[i] = path.MatchRoot(a)
		}

		out = append(out, datasourcevalidator.Conflicting(scope...))
	}

	return out
}

// ValidateConfig refuses a `name` given without the scope that says where to look.
func (d *LookupDataSource[T, M]) ValidateConfig(ctx context.Context, req datasource.ValidateConfigRequest, resp *datasource.ValidateConfigResponse) {
	if len(d.lookup.Scope) == 0 {
		return
	}

	var name types.String

	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("name"), &name)...)

	if name.IsNull() || name.IsUnknown() {
		return
	}

	for _, a := range d.lookup.Scope {
		var v types.String

		resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root(a), &v)...)

		if !v.IsNull() {
			return
		}
	}

	resp.Diagnostics.AddAttributeError(path.Root("name"), "Missing scope of the name", fmt.Sprintf(
		"A %s is found by name in a project: give %s with `name`, or give `id` instead.", d.lookup.Kind.Noun, orList(d.lookup.Scope)))
}

// Read finds the one object the configuration names and writes what the resource would show of it.
func (d *LookupDataSource[T, M]) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	diags := &resp.Diagnostics
	summary := "Error reading " + d.lookup.Kind.Noun

	if !d.Configured() {
		diags.AddError(summary, "The provider is not configured.")
		return
	}

	q := map[string]string{}

	for _, a := range append([]string{"id", "name", "region"}, d.lookup.Scope...) {
		if _, ok := d.schema.Attributes[a]; !ok {
			continue
		}

		var v types.String

		diags.Append(req.Config.GetAttribute(ctx, path.Root(a), &v)...)
		q[a] = v.ValueString()
	}

	if diags.HasError() {
		return
	}

	ctx = tflog.SetField(ctx, "data_source", "unikorn_"+d.lookup.Kind.TypeName)

	ctx, cancel := context.WithTimeout(ctx, Deadline)
	defer cancel()

	found, region, ok := d.find(ctx, q, diags)
	if !ok {
		return
	}

	values, ok := d.values(ctx, found, diags)
	if !ok {
		return
	}

	if q["id"] != "" {
		for _, a := range d.lookup.Scope {
			if want := q[a]; want != "" && stringOf(values[a]) != want {
				diags.AddAttributeError(path.Root(a), "The "+d.lookup.Kind.Noun+" is elsewhere", fmt.Sprintf(
					"The %s %s is not in %s %s (its %s is %q).", d.lookup.Kind.Noun, q["id"], a, want, a, stringOf(values[a])))

				return
			}
		}
	}

	if d.lookup.Regional {
		values["region"] = types.StringValue(region)
	}

	diags.Append(d.write(ctx, values, &resp.State)...)
}

// StateOf is the state of m, a resource model as the look-up's ByID or ByName returns it, as
// Read writes it: what a unit test of a concept's look-up checks against the schema.
func (d *LookupDataSource[T, M]) StateOf(ctx context.Context, m M) (tfsdk.State, diag.Diagnostics) {
	var diags diag.Diagnostics

	state := tfsdk.State{Schema: d.schema, Raw: tftypes.NewValue(d.schema.Type().TerraformType(ctx), nil)}

	if values, ok := d.values(ctx, m, &diags); ok {
		diags.Append(d.write(ctx, values, &state)...)
	}

	return state, diags
}

// values are the attribute values of the resource model m (its timeouts null when unset).
func (d *LookupDataSource[T, M]) values(ctx context.Context, m M, diags *diag.Diagnostics) (map[string]attr.Value, bool) {
	withNullTimeouts(ctx, &m, d.model)

	obj, dd := types.ObjectValueFrom(ctx, d.model, m)
	diags.Append(dd...)

	return obj.Attributes(), !dd.HasError()
}

// write sets state to the exposed attributes of values.
func (d *LookupDataSource[T, M]) write(ctx context.Context, values map[string]attr.Value, state *tfsdk.State) diag.Diagnostics {
	kept := make(map[string]attr.Value, len(d.exposed))
	keptTypes := make(map[string]attr.Type, len(d.exposed))

	for _, a := range d.exposed {
		kept[a], keptTypes[a] = values[a], d.model[a]
	}

	out, diags := types.ObjectValue(keptTypes, kept)
	if !diags.HasError() {
		diags.Append(state.Set(ctx, out)...)
	}

	return diags
}

// find runs the look-up q asks for: by ID (in every served region when q gives none, for a
// regional kind) or by name in its scope and region. It returns the object and its region.
func (d *LookupDataSource[T, M]) find(ctx context.Context, q map[string]string, diags *diag.Diagnostics) (M, string, bool) {
	var none M

	l, c := d.lookup, d.Cloud()
	noun := l.Kind.Noun
	region := ""

	if l.Regional && (q["region"] != "" || q["id"] == "") {
		r, err := c.ResolveRegion(q["region"])
		if err != nil {
			diags.AddAttributeError(path.Root("region"), SummaryRegionNotServed, err.Error())
			return none, "", false
		}

		region = r
	}

	ctx = tflog.SetField(ctx, "region", region)

	if id := q["id"]; id != "" {
		var (
			found M
			err   error
		)

		if l.Regional && region == "" {
			found, region, err = cloud.InEveryRegion(ctx, c, noun, id,
				func(ctx context.Context, r string) (M, error) { return l.ByID(ctx, d.Meta, r, id) })
		} else {
			found, err = l.ByID(ctx, d.Meta, region, id)
		}

		switch {
		case errors.Is(err, cloud.ErrNotLocated):
			diags.AddAttributeError(path.Root("id"), "No "+noun+" found", err.Error())
		case err != nil:
			diags.AddError("Error reading "+noun, fmt.Sprintf("%s %s: %s", noun, id, err))
		}

		return found, region, err == nil
	}

	scope := Scoped{}

	for _, a := range l.Scope {
		if q[a] != "" {
			scope = Scoped{Attribute: a, Value: q[a]}
		}
	}

	all, err := l.ByName(ctx, d.Meta, region, scope, q["name"])
	if err != nil {
		diags.AddError("Error reading "+noun, fmt.Sprintf("%s %q%s: %s", noun, q["name"], where(scope, region), err))
		return none, "", false
	}

	nouns := l.Nouns
	if nouns == "" {
		nouns = noun + "s"
	}

	one, ok := Singular[M]{Noun: noun, Nouns: nouns, Label: func(m M) string { return d.idOf(ctx, m) }}.One(all, region,
		fmt.Sprintf("No %s is called %q%s.", noun, q["name"], where(scope, region)),
		"Give `id` instead of `name`.", diags)

	return one, region, ok
}

// idOf is the `id` of m.
func (d *LookupDataSource[T, M]) idOf(ctx context.Context, m M) string {
	withNullTimeouts(ctx, &m, d.model)
	obj, _ := types.ObjectValueFrom(ctx, d.model, m)

	return stringOf(obj.Attributes()["id"])
}

// NullModel is the model M of resource r with every attribute null, each of its schema's type:
// what a look-up's ByID or ByName flattens into when no plan or state gave a model (the state an
// import leaves before Read, without its ID).
func NullModel[M any](ctx context.Context, r resource.Resource) (M, error) {
	var m M

	s := &resource.SchemaResponse{}
	r.Schema(ctx, resource.SchemaRequest{}, s)

	typ, _ := s.Schema.Type().TerraformType(ctx).(tftypes.Object)

	nulls := make(map[string]tftypes.Value, len(typ.AttributeTypes))
	for name, t := range typ.AttributeTypes {
		nulls[name] = tftypes.NewValue(t, nil)
	}

	if diags := (tfsdk.State{Schema: s.Schema, Raw: tftypes.NewValue(typ, nulls)}).Get(ctx, &m); diags.HasError() {
		return m, fmt.Errorf("a null model of %T: %v", r, diags.Errors())
	}

	return m, nil
}

// withNullTimeouts sets the `timeouts` of the resource model *m to a null of its type (model's
// "timeouts") when it is the zero value, which has no type: a model filled by a core, not read
// from a plan, has no timeouts, and the data source shows none.
func withNullTimeouts[M any](ctx context.Context, m *M, model map[string]attr.Type) {
	t, ok := model["timeouts"]
	if !ok {
		return
	}

	v := reflect.ValueOf(m).Elem()

	for _, f := range reflect.VisibleFields(v.Type()) {
		if f.Tag.Get("tfsdk") != "timeouts" || !f.IsExported() {
			continue
		}

		field := v.FieldByIndex(f.Index)
		if !field.IsZero() {
			return
		}

		null, err := t.ValueFromTerraform(ctx, tftypes.NewValue(t.TerraformType(ctx), nil))
		if err == nil && reflect.TypeOf(null) == field.Type() {
			field.Set(reflect.ValueOf(null))
		}

		return
	}
}

// where says where a name was looked for: " in identity_id 1234 in region RegionOne".
func where(scope Scoped, region string) string {
	out := ""
	if scope.Attribute != "" {
		out += fmt.Sprintf(" in %s %s", scope.Attribute, scope.Value)
	}

	if region != "" {
		out += " in region " + region
	}

	return out
}

// stringOf is the value of a string, "" for any other value.
func stringOf(v attr.Value) string {
	if s, ok := v.(types.String); ok {
		return s.ValueString()
	}

	return ""
}

// orList is "`a`", "`a` or `b`", "`a`, `b` or `c`".
func orList(names []string) string {
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = "`" + n + "`"
	}

	if len(quoted) == 1 {
		return quoted[0]
	}

	return strings.Join(quoted[:len(quoted)-1], ", ") + " or " + quoted[len(quoted)-1]
}

// lookupSchema is the schema of a look-up data source of noun: the resource's attributes, all
// computed, plus `id` and `name` (exactly one given), `region` when regional, and the scope
// attributes, optional.
func lookupSchema(noun, description string, attrs map[string]rschema.Attribute, regional bool, scope []string) schema.Schema {
	out := map[string]schema.Attribute{}

	for name, a := range attrs {
		if name == "timeouts" || a.IsSensitive() || a.IsWriteOnly() {
			continue
		}

		out[name] = computedAttribute(a)
	}

	out["id"] = schema.StringAttribute{
		Optional: true, Computed: true,
		MarkdownDescription: "ID of the " + noun + " to find. Exactly one of `id` and `name`." + idRegions(regional),
		Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
	}

	out["name"] = schema.StringAttribute{
		Optional: true, Computed: true,
		MarkdownDescription: "Name of the " + noun + " to find, as the resource takes it. Exactly one of `id` and `name`" +
			nameScope(scope) + ". Several matches are an error that lists them.",
		Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
	}

	if regional {
		out["region"] = schema.StringAttribute{
			Optional: true, Computed: true,
			MarkdownDescription: "Region to look in, recorded where the " + noun + " was found. Default: with `name`, the " +
				"provider's `region`; with `id`, every served region, the provider's `region` first.",
			Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
		}
	}

	for _, a := range scope {
		desc := withoutPlanSentences(attrs[a].GetMarkdownDescription())
		out[a] = schema.StringAttribute{
			Optional: true, Computed: true,
			MarkdownDescription: desc + " With `name`: where to look. With `id`: checked, when given.",
			Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
		}
	}

	return schema.Schema{MarkdownDescription: description, Attributes: out}
}

func idRegions(regional bool) string {
	if !regional {
		return ""
	}

	return " Without `region`, every served region is searched, the provider's `region` first; a " +
		"match in several is an error."
}

func nameScope(scope []string) string {
	if len(scope) == 0 {
		return ""
	}

	return "; with `name`, exactly one of " + orList(scope)
}

// planWords mark a sentence of a resource attribute's description that speaks of plans and
// configurations ("Changing it replaces the network.", "Updated in place."), which a data source
// has no use for.
var planWords = regexp.MustCompile(`\breplaces\b|\bDefault:|\bUnset[:,]|\bUpdated in place\b|\bthe configuration\b`)

// sentenceEnd ends a sentence: a full stop and a space (not the dot of "v1.11").
var sentenceEnd = regexp.MustCompile(`\.\s+`)

// withoutPlanSentences is description without its plan sentences.
func withoutPlanSentences(description string) string {
	var kept []string

	// "e.g. " and "i.e. " end no sentence.
	abbreviations := strings.NewReplacer("e.g. ", "e.g.\x00", "i.e. ", "i.e.\x00")

	for _, sentence := range sentenceEnd.Split(abbreviations.Replace(strings.TrimSpace(description)), -1) {
		if sentence != "" && !planWords.MatchString(sentence) {
			kept = append(kept, strings.TrimSuffix(sentence, "."))
		}
	}

	if len(kept) == 0 {
		return ""
	}

	return strings.ReplaceAll(strings.Join(kept, ". ")+".", "\x00", " ")
}

// computedAttribute is the data-source form of the resource attribute a: computed, of the same
// type (custom types included), sensitivity and description, without plan rules.
func computedAttribute(a rschema.Attribute) schema.Attribute {
	desc := withoutPlanSentences(a.GetMarkdownDescription())

	switch a := a.(type) {
	case rschema.StringAttribute:
		return schema.StringAttribute{Computed: true, Sensitive: a.IsSensitive(), MarkdownDescription: desc, CustomType: a.CustomType}
	case rschema.BoolAttribute:
		return schema.BoolAttribute{Computed: true, Sensitive: a.IsSensitive(), MarkdownDescription: desc, CustomType: a.CustomType}
	case rschema.Int64Attribute:
		return schema.Int64Attribute{Computed: true, Sensitive: a.IsSensitive(), MarkdownDescription: desc, CustomType: a.CustomType}
	case rschema.Int32Attribute:
		return schema.Int32Attribute{Computed: true, Sensitive: a.IsSensitive(), MarkdownDescription: desc, CustomType: a.CustomType}
	case rschema.Float64Attribute:
		return schema.Float64Attribute{Computed: true, Sensitive: a.IsSensitive(), MarkdownDescription: desc, CustomType: a.CustomType}
	case rschema.NumberAttribute:
		return schema.NumberAttribute{Computed: true, Sensitive: a.IsSensitive(), MarkdownDescription: desc, CustomType: a.CustomType}
	case rschema.ListAttribute:
		return schema.ListAttribute{Computed: true, Sensitive: a.IsSensitive(), MarkdownDescription: desc, CustomType: a.CustomType, ElementType: a.ElementType}
	case rschema.SetAttribute:
		return schema.SetAttribute{Computed: true, Sensitive: a.IsSensitive(), MarkdownDescription: desc, CustomType: a.CustomType, ElementType: a.ElementType}
	case rschema.MapAttribute:
		return schema.MapAttribute{Computed: true, Sensitive: a.IsSensitive(), MarkdownDescription: desc, CustomType: a.CustomType, ElementType: a.ElementType}
	case rschema.ObjectAttribute:
		return schema.ObjectAttribute{Computed: true, Sensitive: a.IsSensitive(), MarkdownDescription: desc, CustomType: a.CustomType, AttributeTypes: a.AttributeTypes}
	case rschema.SingleNestedAttribute:
		return schema.SingleNestedAttribute{Computed: true, Sensitive: a.IsSensitive(), MarkdownDescription: desc, CustomType: a.CustomType,
			Attributes: computedAttributes(a.Attributes)}
	case rschema.ListNestedAttribute:
		return schema.ListNestedAttribute{Computed: true, Sensitive: a.IsSensitive(), MarkdownDescription: desc, CustomType: a.CustomType,
			NestedObject: schema.NestedAttributeObject{Attributes: computedAttributes(a.NestedObject.Attributes), CustomType: a.NestedObject.CustomType}}
	case rschema.SetNestedAttribute:
		return schema.SetNestedAttribute{Computed: true, Sensitive: a.IsSensitive(), MarkdownDescription: desc, CustomType: a.CustomType,
			NestedObject: schema.NestedAttributeObject{Attributes: computedAttributes(a.NestedObject.Attributes), CustomType: a.NestedObject.CustomType}}
	case rschema.MapNestedAttribute:
		return schema.MapNestedAttribute{Computed: true, Sensitive: a.IsSensitive(), MarkdownDescription: desc, CustomType: a.CustomType,
			NestedObject: schema.NestedAttributeObject{Attributes: computedAttributes(a.NestedObject.Attributes), CustomType: a.NestedObject.CustomType}}
	}

	panic(fmt.Sprintf("adapter: no data-source form of resource attribute type %T", a))
}

func computedAttributes(attrs map[string]rschema.Attribute) map[string]schema.Attribute {
	out := make(map[string]schema.Attribute, len(attrs))
	for name, a := range attrs {
		out[name] = computedAttribute(a)
	}

	return out
}
