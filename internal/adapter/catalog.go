package adapter

// The catalog kit: the data sources that select from a region's catalog listed once per run
// (unikorn_flavors / unikorn_flavor, unikorn_volume_classes / unikorn_volume_class): one Read
// that resolves the region, takes the region's listing from the per-run cache, selects what
// matches the model's filters and lets the model keep the result.

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// CatalogModel is what the model of a catalog data source does: say the region to list (resolved in
// place) and its filter F, and keep the result made of the matching objects E of a region.
type CatalogModel[E, F any] interface {
	Query() (*types.String, F)
	Keep(ctx context.Context, matches []E, region string, diags *diag.Diagnostics)
}

// CatalogListing is one kind of catalog: Noun names it in the summary and the log ("flavors"), Field
// is the log field of its count, List takes a region's objects from the per-run cache, and
// Match tells whether an object matches a filter (the filter's Match method: `Filter.Match`).
type CatalogListing[T Meta, E, F any] struct {
	Noun, Field string
	List        func(ctx context.Context, m T, region string) ([]E, error)
	Match       func(filter F, e E) bool
}

// Select is the elements of all that match, in their input order.
func Select[E any](all []E, match func(E) bool) []E {
	var out []E

	for _, e := range all {
		if match(e) {
			out = append(out, e)
		}
	}

	return out
}

// NewCatalogDataSource is the data source unikorn_<typeName> of l: the filters plus
// attributes, read by selecting the region's objects and letting the model M (its pointer type
// P implements CatalogModel) keep its result.
func NewCatalogDataSource[T Meta, E, F, M any, P interface {
	*M
	CatalogModel[E, F]
}](l CatalogListing[T, E, F], typeName, description string, filters, attributes map[string]schema.Attribute) datasource.DataSource {
	return NewDataSource(Kind{TypeName: typeName, Noun: l.Noun},
		DataSourceSchema(description, filters, attributes),
		func(ctx context.Context, m T, data *M, diags *diag.Diagnostics) {
			region, filter := P(data).Query()

			name, ok := ReadRegion(m.Cloud(), region, diags)
			if !ok {
				return
			}

			ctx = tflog.SetField(ctx, "region", name)

			all, err := l.List(ctx, m, name)
			if err != nil {
				diags.AddError("Error listing "+l.Noun, fmt.Sprintf("region %s: %s", name, err))
				return
			}

			matches := Select(all, func(e E) bool { return l.Match(filter, e) })

			tflog.Debug(ctx, "Selected "+l.Noun, map[string]any{l.Field: len(all), "matches": len(matches)})

			P(data).Keep(ctx, matches, name, diags)
		})
}

// Singular is the rule of a singular data source (unikorn_flavor, unikorn_image,
// unikorn_volume_class): exactly one of its matches. Noun names one ("flavor"), Nouns several
// ("flavors"), and Label names one match in the list of an ambiguous result ("name (id)").
type Singular[E any] struct {
	Noun, Nouns string
	Label       func(E) string
}

// One is the only element of matches, found in region ("" for a kind without one); false otherwise, with an error: "No
// <noun> found" saying noMatch, or "Several <nouns> found" listing the matches and ending with
// narrow (what to do about it).
func (s Singular[E]) One(matches []E, region, noMatch, narrow string, diags *diag.Diagnostics) (E, bool) {
	switch len(matches) {
	case 1:
		return matches[0], true
	case 0:
		diags.AddError("No "+s.Noun+" found", noMatch)
	default:
		labels := make([]string, len(matches))
		for i, m := range matches {
			labels[i] = s.Label(m)
		}

		detail := fmt.Sprintf("expected exactly one %s, but %d match the filters: %s. %s", s.Noun, len(matches),
			strings.Join(labels, ", "), narrow)
		if region != "" {
			detail = "In region " + region + ": " + detail
		}

		diags.AddError("Several "+s.Nouns+" found", detail)
	}

	var none E

	return none, false
}
