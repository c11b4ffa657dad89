package adapter

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// StringOrNull is s, or null when s is empty.
func StringOrNull(s string) types.String {
	if s == "" {
		return types.StringNull()
	}

	return types.StringValue(s)
}

// KnownOrNull is v, or null while v is unknown: for computed values the cloud did not answer.
func KnownOrNull(v types.String) types.String {
	if v.IsUnknown() {
		return types.StringNull()
	}

	return v
}

// emptyStaysNull tells whether an empty collection is written as null: when the prior value
// (plan or state) was null or unknown, so that an unset attribute does not turn into [].
func emptyStaysNull(n int, prior attr.Value) bool {
	return n == 0 && (prior.IsNull() || prior.IsUnknown())
}

func stringValues(values []string) []attr.Value {
	elems := make([]attr.Value, len(values))
	for i, v := range values {
		elems[i] = types.StringValue(v)
	}

	return elems
}

// StringList is the list of values; an empty one stays null where prior was null.
func StringList(values []string, prior types.List) types.List {
	if emptyStaysNull(len(values), prior) {
		return types.ListNull(types.StringType)
	}

	return types.ListValueMust(types.StringType, stringValues(values))
}

// StringSet is the set of values; an empty one stays null where prior was null.
func StringSet(values []string, prior types.Set) types.Set {
	if emptyStaysNull(len(values), prior) {
		return types.SetNull(types.StringType)
	}

	return types.SetValueMust(types.StringType, stringValues(values))
}

// SetOf is the set of elems of type t; an empty one stays null where prior was null.
func SetOf(t attr.Type, elems []attr.Value, prior types.Set) types.Set {
	if emptyStaysNull(len(elems), prior) {
		return types.SetNull(t)
	}

	return types.SetValueMust(t, elems)
}

// ListOfValues is the list of elems of type t; an empty one stays null where prior was null.
func ListOfValues(t attr.Type, elems []attr.Value, prior types.List) types.List {
	if emptyStaysNull(len(elems), prior) {
		return types.ListNull(t)
	}

	return types.ListValueMust(t, elems)
}

// StringMap is the map of values; an empty one stays null where prior was null.
func StringMap(values map[string]string, prior types.Map) types.Map {
	if emptyStaysNull(len(values), prior) {
		return types.MapNull(types.StringType)
	}

	elems := make(map[string]attr.Value, len(values))
	for k, v := range values {
		elems[k] = types.StringValue(v)
	}

	return types.MapValueMust(types.StringType, elems)
}

// PlanFlaggedValue is the plan of a computed value that exists while a flag is on (a public
// address while `public_ip` is true): unknown while the flag is unknown, null when it is off,
// the prior value when the flag was already on and the value known, else unknown (the apply
// makes it). priorFlag and prior are null on create.
func PlanFlaggedValue(flag, priorFlag types.Bool, prior types.String) types.String {
	switch {
	case flag.IsUnknown():
		return types.StringUnknown()
	case !flag.ValueBool():
		return types.StringNull()
	case priorFlag.ValueBool() && !prior.IsNull() && !prior.IsUnknown():
		return prior
	}

	return types.StringUnknown()
}

// Elements reads the elements of a list or set into the models E; nil for a null or unknown
// collection.
func Elements[E any](ctx context.Context, c interface {
	IsNull() bool
	IsUnknown() bool
	ElementsAs(ctx context.Context, target any, allowUnhandled bool) diag.Diagnostics
}, diags *diag.Diagnostics,
) []E {
	if c.IsNull() || c.IsUnknown() {
		return nil
	}

	var out []E

	diags.Append(c.ElementsAs(ctx, &out, false)...)

	return out
}
