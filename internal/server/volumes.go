package server

// This file is a server's data volumes (unikorn_server.volumes): Cinder volumes of the same
// project attached through Nova and detached again in place, without replacing the server.
// Unikorn's region service models the same thing (uni-region's ServerSpec.Volumes: the IDs of
// existing volumes a server attaches) without provider code for it yet.

import (
	"context"
	"fmt"
	"net/http"
	"slices"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/servers"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/volumeattach"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/volume"
)

// attachedVolumes are the IDs of the volumes attached to srv, sorted.
func attachedVolumes(srv *servers.Server) []string {
	ids := make([]string, 0, len(srv.AttachedVolumes))
	for _, v := range srv.AttachedVolumes {
		ids = append(ids, v.ID)
	}

	slices.Sort(ids)

	return ids
}

// volumes is the volume core of the service's tenant, for the attachment waits.
func (s *Service) volumes() (*volume.Volumes, error) {
	if s.tenant == nil {
		return nil, fmt.Errorf("no Cinder client in %s", s)
	}

	return volume.New(s.tenant)
}

// convergeVolumes attaches to srv the volumes of want it lacks and detaches those it has that
// want leaves out, each through Nova, waiting for Cinder to say each is done; it returns the
// server as Nova then says. A volume that another server holds is waited for (moving a volume
// between two servers in one apply), then an error that names that server.
func (s *Service) convergeVolumes(ctx context.Context, srv *servers.Server, want []string) (*servers.Server, error) {
	have := attachedVolumes(srv)

	var detach, attach []string

	for _, id := range have {
		if !slices.Contains(want, id) {
			detach = append(detach, id)
		}
	}

	for _, id := range want {
		if !slices.Contains(have, id) {
			attach = append(attach, id)
		}
	}

	if len(detach) == 0 && len(attach) == 0 {
		return srv, nil
	}

	vols, err := s.volumes()
	if err != nil {
		return srv, err
	}

	if s.tenant != nil {
		s.tenant.Wrote(serverKind, srv.ID) // its attachments change
	}

	for _, id := range detach {
		tflog.Info(ctx, "Detaching a volume", map[string]any{"volume_id": id})

		err := volumeattach.Delete(ctx, s.compute, srv.ID, id).ExtractErr()
		if err != nil && !gophercloud.ResponseCodeIs(err, http.StatusNotFound) {
			return srv, fmt.Errorf("detaching volume %s from server %s: %w", id, srv.ID, err)
		}

		if err := vols.WaitDetached(ctx, id, srv.ID); err != nil {
			return srv, err
		}
	}

	for _, id := range attach {
		here, err := vols.WaitAttachable(ctx, id, srv.ID)
		if err != nil {
			return srv, err
		}

		if !here {
			tflog.Info(ctx, "Attaching a volume", map[string]any{"volume_id": id})

			if _, err := volumeattach.Create(ctx, s.compute, srv.ID, volumeattach.CreateOpts{VolumeID: id}).Extract(); err != nil {
				return srv, fmt.Errorf("attaching volume %s to server %s: %w", id, srv.ID, err)
			}
		}

		if err := vols.WaitAttached(ctx, id, srv.ID); err != nil {
			return srv, err
		}
	}

	got, err := servers.Get(ctx, s.compute, srv.ID).Extract()
	if err != nil {
		return srv, fmt.Errorf("reading server %s after its volumes changed: %w", srv.ID, err)
	}

	return got, nil
}
