// Package catalog is the kit of the data sources that select from a region's catalog listed
// once per run (unikorn_flavors / unikorn_flavor, unikorn_volume_classes /
// unikorn_volume_class): one Read that resolves the region, takes the region's listing from
// the per-run cache, selects what matches the model's filters and lets the model keep the
// result. It belongs with adapter's data-source kit and may move there.
package catalog

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
)

// Model is what the model of a catalog data source does: say the region to list (resolved in
// place) and its filter F, and keep the result made of the matching objects T of a region.
type Model[T, F any] interface {
	Query() (*types.String, F)
	Keep(ctx context.Context, matches []T, region string, diags *diag.Diagnostics)
}

// Listing is one kind of catalog: Noun names it in the summary and the log ("flavors"), Field
// is the log field of its count, List takes a region's objects from the per-run cache, and
// Select keeps those that match a filter.
type Listing[Meta adapter.Meta, T, F any] struct {
	Noun, Field string
	List        func(ctx context.Context, m Meta, region string) ([]T, error)
	Select      func(all []T, filter F) []T
}

// NewDataSource is the data source unikorn_<typeName> of l: the filters plus attributes, read
// by selecting the region's objects and letting the model M (its pointer type P implements
// Model) keep its result.
func NewDataSource[Meta adapter.Meta, T, F, M any, P interface {
	*M
	Model[T, F]
}](l Listing[Meta, T, F], typeName, description string, filters, attributes map[string]schema.Attribute) datasource.DataSource {
	return adapter.NewDataSource(adapter.Kind{TypeName: typeName, Noun: l.Noun},
		adapter.DataSourceSchema(description, filters, attributes),
		func(ctx context.Context, m Meta, data *M, diags *diag.Diagnostics) {
			region, filter := P(data).Query()

			name, ok := adapter.ReadRegion(m.Cloud(), region, diags)
			if !ok {
				return
			}

			ctx = tflog.SetField(ctx, "region", name)

			all, err := l.List(ctx, m, name)
			if err != nil {
				diags.AddError("Error listing "+l.Noun, fmt.Sprintf("region %s: %s", name, err))
				return
			}

			matches := l.Select(all, filter)

			tflog.Debug(ctx, "Selected "+l.Noun, map[string]any{l.Field: len(all), "matches": len(matches)})

			P(data).Keep(ctx, matches, name, diags)
		})
}
