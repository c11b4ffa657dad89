package adapter

import (
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
)

// PlanRegion settles the planned `region` of a regional resource in ModifyPlan. Left out of
// the configuration, it becomes the provider's default region, so that the plan shows where
// the object goes and a changed default replaces it; a region the provider does not serve is
// a plan-time error on the attribute. client is nil before the provider is configured: the
// value is then returned as it is.
func PlanRegion(client *cloud.Client, planned, configured types.String, diags *diag.Diagnostics) types.String {
	if client == nil {
		return planned
	}

	if planned.IsUnknown() && configured.IsNull() {
		return types.StringValue(client.DefaultRegion())
	}

	if !planned.IsUnknown() && !planned.IsNull() {
		if _, err := client.ResolveRegion(planned.ValueString()); err != nil {
			diags.AddAttributeError(path.Root("region"), "Region not served", err.Error())
		}
	}

	return planned
}
