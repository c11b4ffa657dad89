package server

// This file is the core of the one-off operations on a server that Terraform actions run
// (unikorn_server_reboot; unikorn_server_snapshot_now is snapshot.go's): each waits for the
// server to be idle, acts, and waits for it to settle, telling its progress as it goes.

import (
	"context"
	"errors"
	"fmt"

	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/servers"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
)

// Progress receives what an operation is doing, for the user ("Rebooting server ...").
type Progress func(message string)

// say hands message to p, or logs it when there is no p (p logs what it is handed).
func (p Progress) say(ctx context.Context, message string) {
	if p == nil {
		tflog.Info(ctx, message)
		return
	}

	p(message)
}

// Poll states of a server an operation waits on.
const (
	stateIdle = "idle"
	stateBusy = "busy"
)

// idleState is the poll state of srv: idle when it is ACTIVE or SHUTOFF with no task in
// progress, busy while Nova works on it, ERROR (with its fault) when it failed.
func idleState(srv *servers.Server) (string, string) {
	switch {
	case srv.Status == statusError:
		return statusError, faultOf(srv)
	case srv.TaskState == "" && (srv.Status == statusActive || srv.Status == statusShutoff):
		return stateIdle, ""
	}

	return stateBusy, ""
}

// waitIdle waits until server id is idle (idleState) and returns it as last read.
func (s *Service) waitIdle(ctx context.Context, id string) (*servers.Server, error) {
	srv, err := cloud.Poll(ctx, cloud.PollSpec{Pending: []string{stateBusy}, Target: []string{stateIdle}},
		func(ctx context.Context) (*servers.Server, string, string, error) {
			srv, err := servers.Get(ctx, s.compute, id).Extract()
			if err != nil {
				return nil, "", "", err
			}

			state, detail := idleState(srv)

			return srv, state, detail, nil
		})

	var state *cloud.StateError

	switch {
	case errors.As(err, &state):
		return srv, fmt.Errorf("server %s is %s: %s", id, state.State, state.Detail)
	case err != nil:
		return srv, s.callError("waiting for", id, err)
	}

	return srv, nil
}

// Reboot reboots server id, hard (a power cycle, which also starts a stopped server) or soft
// (the guest is asked to restart), once it is idle, and waits until it is idle again.
func (s *Service) Reboot(ctx context.Context, id string, hard bool, progress Progress) error {
	how, kind := servers.SoftReboot, "soft"
	if hard {
		how, kind = servers.HardReboot, "hard"
	}

	progress.say(ctx, fmt.Sprintf("Waiting for server %s to be idle", id))

	if _, err := s.waitIdle(ctx, id); err != nil {
		return err
	}

	s.wrote(id)

	if err := servers.Reboot(ctx, s.compute, id, servers.RebootOpts{Type: how}).ExtractErr(); err != nil {
		return s.callError("rebooting ("+kind+")", id, err)
	}

	progress.say(ctx, fmt.Sprintf("Nova is rebooting server %s (%s)", id, kind))

	srv, err := s.waitIdle(ctx, id)
	if err != nil {
		return err
	}

	progress.say(ctx, fmt.Sprintf("Server %s is %s again", id, srv.Status))

	return nil
}
