package adapter

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
)

// The provider-settings kit: what every concept's provider arguments share (the
// provider_settings.go files of the concept packages and provider's *_settings.go). The
// provider is configured before any plan, so an argument that is only known after apply is
// an error, always reported the same way.

// SummaryUnknownArgument is the summary of every provider argument known only after apply.
const SummaryUnknownArgument = "Unknown provider argument"

// UnknownArgument is the one diagnostic for the provider argument at p that depends on a value
// only known after apply.
func UnknownArgument(p path.Path) diag.Diagnostic {
	return diag.NewAttributeErrorDiagnostic(p, SummaryUnknownArgument,
		fmt.Sprintf("The provider cannot be configured because %s depends on a value that is only known after apply. "+
			"Set it to a literal, a variable, a file() or an environment variable instead.", p))
}

// ReadArgument tells whether the provider argument v at p is set and known: false when it is
// unset, and when it is unknown, which is reported (UnknownArgument).
func ReadArgument(p path.Path, v attr.Value, diags *diag.Diagnostics) bool {
	if v.IsUnknown() {
		diags.Append(UnknownArgument(p))
		return false
	}

	return !v.IsNull()
}

// ReadObjectArgument reads the object argument v at p into its model M (a struct with tfsdk
// tags); false when it is unset, unknown (reported) or could not be read (reported).
func ReadObjectArgument[M any](ctx context.Context, p path.Path, v types.Object, diags *diag.Diagnostics) (M, bool) {
	var m M

	if !ReadArgument(p, v, diags) {
		return m, false
	}

	d := v.As(ctx, &m, basetypes.ObjectAsOptions{})
	diags.Append(d...)

	return m, !d.HasError()
}

// ListElement is one element of a list argument whose values are all known: its index, its
// path and its model M.
type ListElement[M any] struct {
	Index int
	At    path.Path
	Value M
}

// ReadListArgument reads the list of objects v at p into the models M of its elements
// (structs with tfsdk tags). An element with a value only known after apply is reported
// (UnknownIn) and left out; nil (and only then) when the list is unset, unknown (reported) or
// could not be read (reported).
func ReadListArgument[M any](ctx context.Context, p path.Path, v types.List, diags *diag.Diagnostics) []ListElement[M] {
	if !ReadArgument(p, v, diags) {
		return nil
	}

	var models []M

	if d := v.ElementsAs(ctx, &models, false); d.HasError() {
		diags.Append(d...)
		return nil
	}

	out := make([]ListElement[M], 0, len(models))

	for i, m := range models {
		if at := p.AtListIndex(i); !UnknownIn(at, v.Elements()[i], diags) {
			out = append(out, ListElement[M]{Index: i, At: at, Value: m})
		}
	}

	return out
}

// Keyed is what a list argument keyed by its elements' `id` (each at most once) says of a
// duplicate: the diagnostic's summary, and the Subject ("Flavor") and the unit of Each ("flavor
// ID") of its detail.
type Keyed struct {
	Summary, Subject, Each string
}

// Duplicate is the one rule of such a list at p: an element whose id an earlier element already
// has (seen maps an id to the index of its first element) is an error at its id, and true;
// otherwise the id is recorded as seen at index i.
func (k Keyed) Duplicate(seen map[string]int, id string, i int, p path.Path, diags *diag.Diagnostics) bool {
	if first, dup := seen[id]; dup {
		diags.AddAttributeError(p.AtListIndex(i).AtName("id"), k.Summary,
			fmt.Sprintf("%s %q is already described by %s[%d]: describe each %s once.", k.Subject, id, p, first, k.Each))

		return true
	}

	seen[id] = i

	return false
}

// ReadStringSetArgument reads the set of strings v at p, sorted; nil when it is unset or
// unknown (reported).
func ReadStringSetArgument(ctx context.Context, p path.Path, v types.Set, diags *diag.Diagnostics) []string {
	if !ReadArgument(p, v, diags) {
		return nil
	}

	var values []string

	diags.Append(v.ElementsAs(ctx, &values, false)...)
	slices.Sort(values)

	return values
}

// StringSetArgument is an optional provider argument that is a set of at least one string,
// none of them empty (read with ReadStringSetArgument).
func StringSetArgument(description string) schema.SetAttribute {
	return schema.SetAttribute{
		Optional:            true,
		ElementType:         types.StringType,
		MarkdownDescription: description,
		Validators: []validator.Set{
			setvalidator.SizeAtLeast(1),
			setvalidator.ValueStringsAre(stringvalidator.LengthAtLeast(1)),
		},
	}
}

// UnknownIn reports (UnknownArgument) every value of the provider argument v at p, however deep
// inside objects, that is only known after apply, in attribute order; true when there is one.
// It is the check of one element of a list of objects (flavors[i], volume_classes.metadata[i]).
func UnknownIn(p path.Path, v attr.Value, diags *diag.Diagnostics) bool {
	if v.IsUnknown() {
		diags.Append(UnknownArgument(p))
		return true
	}

	obj, ok := v.(types.Object)
	if !ok || obj.IsNull() {
		return false
	}

	attributes := obj.Attributes()
	found := false

	for _, name := range slices.Sorted(maps.Keys(attributes)) {
		found = UnknownIn(p.AtName(name), attributes[name], diags) || found
	}

	return found
}
