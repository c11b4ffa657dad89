package provider

import (
	"context"
	"crypto/ecdsa"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/flavor"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/image"
)

// catalogSettings is the part of the provider block that configures the catalog packages
// (flavor, image): the flavor descriptions and allow-list, and the image signing key.
type catalogSettings struct {
	FlavorIDs       types.Set    `tfsdk:"flavor_ids"`
	Flavors         types.List   `tfsdk:"flavors"`
	ImageSigningKey types.String `tfsdk:"image_signing_key"`
}

// catalogMeta is what Configure derives from catalogSettings for the catalog packages,
// including the listing caches that make every flavor and image data source of a region
// share one Nova flavor list and one Glance image list for the life of the provider process.
type catalogMeta struct {
	flavorIDs       []string
	flavorOverrides flavor.Overrides
	imageSigningKey *ecdsa.PublicKey

	flavorCache *flavor.Cache
	imageCache  *image.Cache
}

// FlavorIDs is the flavor allow-list (sorted); empty means every public flavor.
func (m *catalogMeta) FlavorIDs() []string {
	return slices.Clone(m.flavorIDs)
}

// FlavorOverrides are the provider's flavor descriptions, keyed by flavor ID.
func (m *catalogMeta) FlavorOverrides() flavor.Overrides {
	return m.flavorOverrides
}

// ImageSigningKey is the key public images must be signed with; nil when unset.
func (m *catalogMeta) ImageSigningKey() *ecdsa.PublicKey {
	return m.imageSigningKey
}

// FlavorCache is the flavor listing shared by every flavor data source of the process.
func (m *catalogMeta) FlavorCache() *flavor.Cache {
	return m.flavorCache
}

// ImageCache is the image listing shared by every image data source of the process.
func (m *catalogMeta) ImageCache() *image.Cache {
	return m.imageCache
}

// catalogAttributes are the provider arguments of catalogSettings.
func catalogAttributes() map[string]schema.Attribute {
	return mergeAttributes(flavor.ProviderAttributes(), image.ProviderAttributes())
}

// configure validates the settings (the schema validators already ran at plan time) and
// fills meta.
func (s catalogSettings) configure(ctx context.Context, meta *catalogMeta) diag.Diagnostics {
	var diags diag.Diagnostics

	overrides, d := flavor.ExpandOverrides(ctx, s.Flavors)
	diags.Append(d...)

	ids, d := flavor.ExpandAllowList(ctx, s.FlavorIDs, overrides)
	diags.Append(d...)

	key, d := image.ExpandSigningKey(s.ImageSigningKey)
	diags.Append(d...)

	if diags.HasError() {
		return diags
	}

	meta.flavorIDs = ids
	meta.flavorOverrides = overrides
	meta.imageSigningKey = key
	meta.flavorCache = flavor.NewCache(ids, overrides)
	meta.imageCache = image.NewCache(key)

	tflog.Debug(ctx, "Configured the flavor and image catalog", map[string]any{
		"flavor_descriptions": len(overrides),
		"flavor_allow_list":   len(ids),
		"image_signing_key":   key != nil,
	})

	return diags
}
