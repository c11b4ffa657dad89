package volume

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// NewVolumeLookup is the constructor the provider lists: the unikorn_volume data source, which
// finds one volume by ID or by name in a project and shows what the resource shows of it.
func NewVolumeLookup() datasource.DataSource {
	return adapter.NewLookup(adapter.Lookup[meta, volumeModel]{
		Kind: adapter.Kind{TypeName: "volume", Noun: "volume"},
		Description: "Finds one existing Cinder volume — one that another configuration's `unikorn_volume` made, or " +
			"one made directly in an identity's or a `unikorn_project`'s project — and shows what `unikorn_volume` " +
			"shows of it: its size, class, source, status and attachments. It manages nothing.\n\n" +
			"With `name` it looks in the project of `identity_id` or `project_id`, in `region`, for the volume whose " +
			"Cinder name is exactly `" + naming.Volume("<name>") + "`; none or several such volumes are an error (Cinder " +
			"lets two volumes share a name: give `id` then). With `id` it finds the volume in whatever identity's or " +
			"`unikorn_project`'s project it is (its `name` is null when its Cinder name is not of that form), and in " +
			"whatever served region unless `region` is given. Volumes are read in the privileged scope of their " +
			"project; all the look-ups of volumes in one project and region share one Cinder listing per Terraform " +
			"run. Unikorn's region service makes no volumes.",
		Resource: NewResource, Regional: true, Scope: []string{"identity_id", "project_id"},
		ByID:   volumeByID,
		ByName: volumesCalled,
	})
}

// volumeByID reads volume id of region, in whatever project it is: found through the provider's
// configured scope (an admin's sees every project), then read in the privileged scope of its
// project, as the resource's Read reads it.
func volumeByID(ctx context.Context, m meta, region, id string) (volumeModel, error) {
	c := m.Cloud()

	sc, err := c.Base().BlockStorage(region)
	if err != nil {
		return volumeModel{}, err
	}

	found, ok, err := getAnywhere(ctx, pin(sc), region, id)

	switch {
	case err != nil:
		return volumeModel{}, err
	case !ok:
		return volumeModel{}, cloud.NotLocated("volume", id, region)
	}

	owner := adapter.Scoped{Attribute: "identity_id", Value: found.TenantID}
	if inHumanProject(ctx, c, found.TenantID) {
		owner.Attribute = "project_id"
	}

	vols, err := lookupVolumes(ctx, c, region, owner)
	if err != nil {
		return volumeModel{}, fmt.Errorf("volume %s is in project %s: %w", id, found.TenantID, err)
	}

	vol, err := vols.Get(ctx, id)
	if err != nil {
		return volumeModel{}, err
	}

	return lookedUp(region, owner, vol), nil
}

// volumesCalled reads every volume of the project scope names in region whose Cinder name is
// exactly naming.Volume(name), from the run's listing of the project's volumes.
func volumesCalled(ctx context.Context, m meta, region string, scope adapter.Scoped, name string) ([]volumeModel, error) {
	vols, err := lookupVolumes(ctx, m.Cloud(), region, scope)
	if err != nil {
		return nil, err
	}

	called, err := vols.Called(ctx, naming.Volume(name))
	if err != nil {
		return nil, err
	}

	out := make([]volumeModel, 0, len(called))
	for _, vol := range called {
		out = append(out, lookedUp(vols.Region(), scope, vol))
	}

	tflog.Debug(ctx, "Looked up volumes by name", map[string]any{"volume": naming.Volume(name), "project_id": scope.Value, "found": len(out)})

	return out, nil
}

// lookupVolumes is the core bound, in the privileged scope, to the project of owner: an
// identity's (identity_id) or a unikorn_project's (project_id).
func lookupVolumes(ctx context.Context, c *cloud.Client, region string, owner adapter.Scoped) (*Volumes, error) {
	bind := c.Tenant
	if owner.Attribute == "project_id" {
		bind = c.ProjectTenant
	}

	t, err := bind(ctx, owner.Value, region, cloud.Privileged)
	if err != nil {
		return nil, err
	}

	return New(t)
}

// lookedUp is the resource's model of vol in region, owned by owner, flattened as the resource's
// Read flattens it.
func lookedUp(region string, owner adapter.Scoped, vol *Volume) volumeModel {
	m := volumeModel{IdentityID: types.StringNull(), ProjectID: types.StringNull()}

	if owner.Attribute == "project_id" {
		m.ProjectID = types.StringValue(owner.Value)
	} else {
		m.IdentityID = types.StringValue(owner.Value)
	}

	flatten(&m, region, vol)

	return m
}
