package server

// This file is a server's data volumes (unikorn_server.volumes): Cinder volumes of the same
// project attached through Nova and detached again in place, without replacing the server.
// Unikorn's region service models the same thing (uni-region's ServerSpec.Volumes: the IDs of
// existing volumes a server attaches) without provider code for it yet.

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/servers"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
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
// between two servers in one apply), then an error that names that server. The volume the
// server boots from (rootID, "" for none) is not one of its volumes: it is never detached.
func (s *Service) convergeVolumes(ctx context.Context, srv *servers.Server, want []string, rootID string) (*servers.Server, error) {
	have := withoutRoot(attachedVolumes(srv), rootID)

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
		if err := vols.Detach(ctx, srv.ID, id); err != nil {
			return srv, err
		}
	}

	for _, id := range attach {
		if err := vols.Attach(ctx, srv.ID, id); err != nil {
			return srv, err
		}
	}

	listed := want
	if rootID != "" {
		listed = append(slices.Clone(want), rootID)
	}

	return s.waitVolumesListed(ctx, srv, listed)
}

// novaSettleBudget bounds how long a server's volumes wait for Nova to list what Cinder says.
const novaSettleBudget = 2 * time.Minute

// waitVolumesListed waits until Nova lists exactly want as srv's volumes, and returns the server
// as Nova then says. Cinder says a volume is detached (available) before Nova's compute service
// drops it from the server (it destroys the block device mapping last): read at once, Nova
// would still list it, and the state would record an attachment that is gone.
func (s *Service) waitVolumesListed(ctx context.Context, srv *servers.Server, want []string) (*servers.Server, error) {
	wantSorted := slices.Sorted(slices.Values(want))

	wctx, cancel := context.WithTimeout(ctx, novaSettleBudget)
	defer cancel()

	got, err := cloud.Poll(wctx, cloud.PollSpec{Pending: []string{"settling"}, Target: []string{"listed"}, MinInterval: 500 * time.Millisecond, MaxInterval: 3 * time.Second},
		func(ctx context.Context) (*servers.Server, string, string, error) {
			got, err := servers.Get(ctx, s.compute, srv.ID).Extract()
			if err != nil {
				return nil, "", "", err
			}

			if slices.Equal(attachedVolumes(got), wantSorted) {
				return got, "listed", "", nil
			}

			return got, "settling", "", nil
		})
	if err != nil {
		var listed []string
		if got != nil {
			listed = attachedVolumes(got)
		}

		return srv, fmt.Errorf("server %s: Cinder attached %v, but Nova still lists %v: %w", srv.ID, wantSorted, listed, err)
	}

	return got, nil
}
