package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/volume"
)

// volumeSettings is the part of the provider block that configures the volume package.
type volumeSettings struct {
	VolumeClasses types.Object `tfsdk:"volume_classes"`
}

// volumeMeta is what Configure derives from volumeSettings: the volume class listing that every
// volume class data source of a region shares for the life of the provider process.
type volumeMeta struct {
	volumeClasses *volume.Cache
}

// VolumeClassCache is the volume class listing shared by every volume class data source.
func (m *volumeMeta) VolumeClassCache() *volume.Cache {
	if m.volumeClasses == nil {
		return volume.NewCache(volume.Settings{})
	}

	return m.volumeClasses
}

// configure validates the settings and fills meta.
func (s volumeSettings) configure(ctx context.Context, meta *volumeMeta) diag.Diagnostics {
	settings, diags := volume.ExpandSettings(ctx, s.VolumeClasses)
	if diags.HasError() {
		return diags
	}

	meta.volumeClasses = volume.NewCache(settings)

	tflog.Debug(ctx, "Configured the volume classes", map[string]any{
		"offered_ids": len(settings.IDs), "descriptions": len(settings.Descriptions),
	})

	return diags
}
