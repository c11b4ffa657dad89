package flavor

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
)

// Provider arguments of this package.
const (
	OverridesArgument = "flavors"
	AllowListArgument = "flavor_ids"
)

// ProviderAttributes are the provider arguments that configure flavors:
// `flavors` (the enrichment table, keyed by flavor ID) and `flavor_ids`
// (the allow-list).
func ProviderAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		AllowListArgument: adapter.StringSetArgument("Nova flavor IDs that the flavor data sources may return. Other public " +
			"flavors are left out. Unset: every public flavor."),
		OverridesArgument: schema.ListNestedAttribute{
			Optional: true,
			MarkdownDescription: "What Nova does not know about flavors, keyed by flavor `id` (each ID at most once): CPU architecture " +
				"and family, the CPU count and memory to advertise, bare metal, CPU pinning and GPUs. The flavor data sources " +
				"report these values; an entry for a flavor Nova does not list has no effect.",
			Validators:   []validator.List{UniqueIDs()},
			NestedObject: schema.NestedAttributeObject{Attributes: overrideAttributes()},
		},
	}
}

// overrideAttributes describe one element of `flavors`.
func overrideAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"baremetal": schema.BoolAttribute{Optional: true, MarkdownDescription: "The flavor schedules onto bare-metal machines. Default `false`."},
		"cpu": schema.SingleNestedAttribute{
			Optional:            true,
			MarkdownDescription: "The flavor's processors.",
			Attributes: map[string]schema.Attribute{
				"architecture": oneOf(false, "CPU architecture: `x86_64` (default) or `aarch64`.", Architectures()),
				"count":        atLeastOne(false, "CPU count to report instead of Nova's `vcpus` (e.g. the cores of a bare-metal machine)."),
				"family":       text(false, "CPU family, free text, e.g. `AMD EPYC Genoa`."),
			},
		},
		"gpu": schema.SingleNestedAttribute{
			Optional:            true,
			MarkdownDescription: "The flavor's GPUs. Unset: the flavor has none.",
			Attributes: map[string]schema.Attribute{
				"logical_count":  atLeastOne(false, "GPUs the operating system sees (an AMD MI250 card is two). Default: `physical_count`."),
				"memory_gib":     atLeastOne(false, "Memory of one GPU in GiB. Unset: unknown."),
				"model":          text(true, "GPU model, e.g. `H100`."),
				"physical_count": atLeastOne(true, "GPU devices (cards) in the flavor."),
				"vendor":         oneOf(true, "GPU vendor: `NVIDIA` or `AMD`.", GPUVendors()),
			},
		},
		"id":         text(true, "Nova flavor ID."),
		"memory_gib": atLeastOne(false, "Memory in GiB to report instead of Nova's `ram`."),
		"pinned_only": schema.BoolAttribute{
			Optional: true,
			MarkdownDescription: "The flavor is for pinned servers only (dedicated hosts and CPUs): a `unikorn_server` of this " +
				"flavor must set `host` (a plan-time error otherwise). Default `false`.",
		},
	}
}

// text is a provider string argument that is not empty.
func text(required bool, description string) schema.StringAttribute {
	return schema.StringAttribute{
		Required: required, Optional: !required, MarkdownDescription: description,
		Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
	}
}

// oneOf is a provider string argument that is one of values.
func oneOf(required bool, description string, values []string) schema.StringAttribute {
	return schema.StringAttribute{
		Required: required, Optional: !required, MarkdownDescription: description,
		Validators: []validator.String{stringvalidator.OneOf(values...)},
	}
}

// atLeastOne is a provider count argument of at least 1.
func atLeastOne(required bool, description string) schema.Int64Attribute {
	return schema.Int64Attribute{
		Required: required, Optional: !required, MarkdownDescription: description,
		Validators: []validator.Int64{int64validator.AtLeast(1)},
	}
}

// OverrideModel is one element of the provider argument `flavors`.
type OverrideModel struct {
	Baremetal  types.Bool   `tfsdk:"baremetal"`
	CPU        types.Object `tfsdk:"cpu"`
	GPU        types.Object `tfsdk:"gpu"`
	ID         types.String `tfsdk:"id"`
	MemoryGiB  types.Int64  `tfsdk:"memory_gib"`
	PinnedOnly types.Bool   `tfsdk:"pinned_only"`
}

// CPUModel is `flavors[*].cpu`.
type CPUModel struct {
	Architecture types.String `tfsdk:"architecture"`
	Count        types.Int64  `tfsdk:"count"`
	Family       types.String `tfsdk:"family"`
}

// GPUOverrideModel is `flavors[*].gpu`.
type GPUOverrideModel struct {
	LogicalCount  types.Int64  `tfsdk:"logical_count"`
	MemoryGiB     types.Int64  `tfsdk:"memory_gib"`
	Model         types.String `tfsdk:"model"`
	PhysicalCount types.Int64  `tfsdk:"physical_count"`
	Vendor        types.String `tfsdk:"vendor"`
}

// ExpandOverrides turns the provider argument `flavors` into Overrides,
// reporting duplicate IDs, values only known after apply and every problem
// Overrides.Validate finds as attribute errors.
func ExpandOverrides(ctx context.Context, list types.List) (Overrides, diag.Diagnostics) {
	var diags diag.Diagnostics

	root := path.Root(OverridesArgument)
	elements := adapter.ReadListArgument[OverrideModel](ctx, root, list, &diags)

	if elements == nil {
		return nil, diags
	}

	overrides := make(Overrides, len(elements))
	index := make(map[string]int, len(elements))

	for _, e := range elements {
		if id := e.Value.ID.ValueString(); !duplicateID(index, id, e.Index, root, &diags) {
			overrides[id] = e.Value.override(ctx, &diags)
		}
	}

	if diags.HasError() {
		return nil, diags
	}

	if err := overrides.Validate(); err != nil {
		for _, e := range adapter.Unjoin(err) {
			var oe *OverrideError
			if !errors.As(e, &oe) {
				diags.AddAttributeError(root, "Invalid flavor description", e.Error())
				continue
			}

			p := root.AtListIndex(index[oe.FlavorID])
			for name := range strings.SplitSeq(oe.Field, ".") {
				if name != "" {
					p = p.AtName(name)
				}
			}

			diags.AddAttributeError(p, "Invalid flavor description", oe.Error())
		}
	}

	return overrides, diags
}

// override converts one element whose values are all known.
func (m OverrideModel) override(ctx context.Context, diags *diag.Diagnostics) Override {
	o := Override{
		MemoryGiB:  intPointer(m.MemoryGiB),
		Baremetal:  m.Baremetal.ValueBool(),
		PinnedOnly: m.PinnedOnly.ValueBool(),
	}

	if !m.CPU.IsNull() {
		var cpu CPUModel

		diags.Append(m.CPU.As(ctx, &cpu, basetypes.ObjectAsOptions{})...)
		o.CPU = CPU{Architecture: cpu.Architecture.ValueString(), Count: intPointer(cpu.Count), Family: cpu.Family.ValueString()}
	}

	if !m.GPU.IsNull() {
		var gpu GPUOverrideModel

		diags.Append(m.GPU.As(ctx, &gpu, basetypes.ObjectAsOptions{})...)
		o.GPU = &GPU{
			Vendor:        gpu.Vendor.ValueString(),
			Model:         gpu.Model.ValueString(),
			MemoryGiB:     int(gpu.MemoryGiB.ValueInt64()),
			PhysicalCount: int(gpu.PhysicalCount.ValueInt64()),
			LogicalCount:  int(gpu.LogicalCount.ValueInt64()),
		}
	}

	return o
}

// ExpandAllowList turns the provider argument `flavor_ids` into the
// allow-list, sorted; nil when unset. An override for a flavor outside the
// allow-list has no effect, which is reported as a warning.
func ExpandAllowList(ctx context.Context, set types.Set, overrides Overrides) ([]string, diag.Diagnostics) {
	var diags diag.Diagnostics

	ids := adapter.ReadStringSetArgument(ctx, path.Root(AllowListArgument), set, &diags)
	if set.IsNull() || set.IsUnknown() {
		return nil, diags
	}

	var outside []string

	for id := range overrides {
		if !slices.Contains(ids, id) {
			outside = append(outside, id)
		}
	}

	if len(outside) > 0 {
		slices.Sort(outside)
		diags.AddAttributeWarning(path.Root(OverridesArgument), "Flavor descriptions without effect",
			fmt.Sprintf("The flavors %s are described in %q but not allowed by %q, so the data sources never return them.",
				strings.Join(outside, ", "), OverridesArgument, AllowListArgument))
	}

	return ids, diags
}

// UniqueIDs validates, at plan time, that no two elements of the provider
// argument `flavors` have the same `id`.
func UniqueIDs() validator.List {
	return adapter.ListCheck("each flavor `id` appears at most once", func(elems []attr.Value, p path.Path, diags *diag.Diagnostics) {
		seen := map[string]int{}

		for i, elem := range elems {
			obj, ok := elem.(types.Object)
			if !ok || obj.IsNull() || obj.IsUnknown() {
				continue
			}

			id, ok := obj.Attributes()["id"].(types.String)
			if !ok || id.IsNull() || id.IsUnknown() {
				continue
			}

			duplicateID(seen, id.ValueString(), i, p, diags)
		}
	})
}

// duplicateID is the one rule of both checks (adapter.Keyed).
func duplicateID(seen map[string]int, id string, i int, p path.Path, diags *diag.Diagnostics) bool {
	return adapter.Keyed{Summary: "Duplicate flavor ID", Subject: "Flavor", Each: "flavor ID"}.Duplicate(seen, id, i, p, diags)
}
