package quota

import (
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/objectdefault"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// maxQuota is the largest quota the services accept (a 32-bit signed integer).
const maxQuota = 1<<31 - 1

// Attribute is the `quotas` attribute of a resource that owns a Keystone project (whose is
// "the identity's"): one nested object per service, each quota defaulting to unlimited.
func Attribute(whose string) schema.SingleNestedAttribute {
	groups := map[string]schema.Attribute{}

	for _, g := range Groups {
		fields := map[string]schema.Attribute{}

		for _, f := range g.Fields {
			fields[f.Key] = schema.Int64Attribute{
				Optional:            true,
				Computed:            true,
				Default:             int64default.StaticInt64(Unlimited),
				MarkdownDescription: f.Description + " `-1` (the default) means unlimited.",
				Validators:          []validator.Int64{int64validator.Between(Unlimited, maxQuota)},
			}
		}

		groups[g.Name] = schema.SingleNestedAttribute{
			Optional:            true,
			Computed:            true,
			Default:             objectdefault.StaticValue(groupValue(g, nil)),
			MarkdownDescription: g.Description + " Every quota left out is unlimited.",
			Attributes:          fields,
		}
	}

	return schema.SingleNestedAttribute{
		Optional: true,
		Computed: true,
		Default:  objectdefault.StaticValue(Value(AllUnlimited())),
		MarkdownDescription: "Quotas of " + whose + " project, set in every region the provider serves. Every quota left " +
			"out is unlimited (`-1`), as in Unikorn. Updated in place.",
		Attributes: groups,
	}
}

func groupType(g Group) types.ObjectType {
	attrs := map[string]attr.Type{}
	for _, f := range g.Fields {
		attrs[f.Key] = types.Int64Type
	}

	return types.ObjectType{AttrTypes: attrs}
}

// Type is the object type of the `quotas` attribute.
func Type() types.ObjectType {
	attrs := map[string]attr.Type{}
	for _, g := range Groups {
		attrs[g.Name] = groupType(g)
	}

	return types.ObjectType{AttrTypes: attrs}
}

// groupValue is one group's object; quotas missing from values are unlimited.
func groupValue(g Group, values map[string]int64) types.Object {
	attrs := map[string]attr.Value{}

	for _, f := range g.Fields {
		v, ok := values[f.Key]
		if !ok {
			v = Unlimited
		}

		attrs[f.Key] = types.Int64Value(v)
	}

	return types.ObjectValueMust(groupType(g).AttrTypes, attrs)
}

// Value is the `quotas` object of q.
func Value(q Set) types.Object {
	attrs := map[string]attr.Value{}
	for _, g := range Groups {
		attrs[g.Name] = groupValue(g, q[g.Name])
	}

	return types.ObjectValueMust(Type().AttrTypes, attrs)
}

// Null is the null `quotas` object: quotas the state does not know (the next plan sets them).
func Null() types.Object {
	return types.ObjectNull(Type().AttrTypes)
}

// Expand reads the `quotas` object; nil when it is null or unknown. Unknown or null quotas
// inside are unlimited.
func Expand(o types.Object) Set {
	if o.IsNull() || o.IsUnknown() {
		return nil
	}

	q := AllUnlimited()

	for _, g := range Groups {
		gv, ok := o.Attributes()[g.Name].(types.Object)
		if !ok || gv.IsNull() || gv.IsUnknown() {
			continue
		}

		for _, f := range g.Fields {
			v, ok := gv.Attributes()[f.Key].(types.Int64)
			if !ok || v.IsNull() || v.IsUnknown() {
				continue
			}

			q[g.Name][f.Key] = v.ValueInt64()
		}
	}

	return q
}
