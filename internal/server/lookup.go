package server

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
)

// NewServerLookup is the constructor the provider lists: the unikorn_server data source, which
// finds one server by ID (in any identity) or by name in an identity, and shows what the
// resource shows of it.
func NewServerLookup() datasource.DataSource {
	return adapter.NewLookup(adapter.Lookup[meta, serverModel]{
		Kind: adapter.Kind{TypeName: "server", Noun: "server"},
		Description: "Finds one existing server — one that another configuration's `unikorn_server` made, or one that " +
			"Unikorn's region service made — and shows what `unikorn_server` shows of it: its port, addresses, flavor, " +
			"image, security groups, metadata, volumes and power state. It manages nothing.\n\n" +
			"With `name` it looks in the project of the identity `identity_id`, in `region`, for the server whose Nova " +
			"name is exactly `name` (Nova holds the user's name itself, for this provider's servers and Unikorn's alike); " +
			"none or several such servers are an error (Nova lets two servers share a name: give `id` then). With `id` " +
			"it finds the server in whatever identity it is, and in whatever served region unless `region` is given. " +
			"The server's port is paired as the resource pairs it: `server-<name>` for this provider's servers, the port " +
			"attached to the server for Unikorn's (`server-<Unikorn server ID>`). The servers are read in the privileged " +
			"scope of their identity; all the look-ups of servers in one identity and region share one Nova listing per " +
			"Terraform run. `tags` and `user_data_sha256` are null: only a configuration knows them.",
		Resource: NewResource, Regional: true, Scope: []string{"identity_id"},
		ByID:   serverByID,
		ByName: serversCalled,
	})
}

// serverByID reads server id of region, in whatever identity's project it is: found through the
// provider's configured scope (an admin's sees every project), then observed in the privileged
// scope of its identity, as the resource's Read observes it.
func serverByID(ctx context.Context, m meta, region, id string) (serverModel, error) {
	sc, err := m.Cloud().Base().Compute(region)
	if err != nil {
		return serverModel{}, err
	}

	loc, ok, err := locateID(ctx, sc, region, id)
	if err != nil || !ok {
		return serverModel{}, notLocated(err, id, region)
	}

	svc, err := lookupService(ctx, m, loc.ProjectID, region)
	if err != nil {
		return serverModel{}, fmt.Errorf("server %s is in project %s: %w", id, loc.ProjectID, err)
	}

	found, err := svc.Observe(ctx, loc.Name, Known{ServerID: id})
	if err != nil || found == nil || found.ID != id {
		return serverModel{}, notLocated(err, id, region)
	}

	return lookedUp(ctx, svc, found)
}

// notLocated is err, or, without one, the error that the server id is not in region.
func notLocated(err error, id, region string) error {
	if err != nil {
		return err
	}

	return cloud.NotLocated("server", id, region)
}

// serversCalled reads every server of the identity scope.Value in region whose Nova name is
// exactly name, from the run's listing of the identity's servers (one listing however many
// look-ups read it).
func serversCalled(ctx context.Context, m meta, region string, scope adapter.Scoped, name string) ([]serverModel, error) {
	svc, err := lookupService(ctx, m, scope.Value, region)
	if err != nil {
		return nil, err
	}

	named, err := svc.serversNamed(ctx, name)
	if err != nil {
		return nil, err
	}

	out := make([]serverModel, 0, len(named))

	for _, srv := range named {
		found, err := svc.Observe(ctx, name, Known{ServerID: srv.ID})
		if err != nil {
			return nil, err
		}

		if found == nil || found.ID != srv.ID { // deleted since it was listed
			continue
		}

		model, err := lookedUp(ctx, svc, found)
		if err != nil {
			return nil, err
		}

		out = append(out, model)
	}

	return out, nil
}

// lookupService is the core bound to the identity of project projectID in region in the
// privileged scope, which reads a server whoever made it (an identity Unikorn made included).
func lookupService(ctx context.Context, m meta, projectID, region string) (*Service, error) {
	t, err := m.Cloud().Tenant(ctx, projectID, region, cloud.Privileged)
	if err != nil {
		return nil, err
	}

	return NewService(t)
}

// lookedUp is the resource's model of the server found by svc, flattened as the resource's Read
// flattens it from a state that knows nothing: its attached volumes shown, its tags (which only
// a configuration knows) null.
func lookedUp(ctx context.Context, svc *Service, found *Server) (serverModel, error) {
	m, err := adapter.NullModel[serverModel](ctx, NewResource())
	if err != nil {
		return serverModel{}, err
	}

	m.Volumes = adapter.NeverNullSet
	flatten(&m, svc.Region(), found, m)

	for _, note := range found.Notes {
		tflog.Warn(ctx, "Server "+found.Name+": "+note)
	}

	tflog.Debug(ctx, "Looked up a server", map[string]any{"server_id": found.ID, "identity_id": found.ProjectID, "made_here": found.Made})

	return m, nil
}
