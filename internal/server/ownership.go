package server

// This file is the server's part of the ownership rule (naming.Mark, cloud.Adopt; DESIGN.md §5,
// "adopt only your own unfinished create"):
//
//   - the Nova server carries the creation mark of a unikorn_server in its create request's
//     metadata, and the completion mark, written as the last step of Ensure (one metadata key);
//   - the port server-<name> is a part: it is posted with the creation mark as its description,
//     tagged with it right after, and only then given its own (empty) description;
//   - the floating IPs this provider makes are keyed by their description
//     (floatingIPDescription), which already says which server they were made for.
//
// A create that meets a server or a port of its names adopts them only when the server is an
// unfinished create of a unikorn_server and the port carries a unikorn_server's creation mark;
// anything else is refused before any write with a *cloud.ExistsError. The marks are system
// metadata: never shown in `metadata`, never removed by the metadata convergence.

import (
	"context"
	"errors"
	"fmt"
	"maps"

	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/servers"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/ports"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/network"
)

// Type is the resource type whose creates mark a server and its port.
const Type = "unikorn_server"

// made is the creation mark of the objects of a unikorn_server.
var made = naming.MadeFor(Type)

// serverExisting describes the server srv of name for the ownership rule.
func (s *Service) serverExisting(name string, srv *servers.Server) cloud.Existing {
	return cloud.Existing{
		Type: Type, Kind: "server", Name: name, ID: srv.ID, Where: s.String(), ImportID: s.region + "/" + srv.ID,
		Mark: naming.MarkOf(srv.Metadata),
	}
}

// portExisting describes the port server-<name> for the ownership rule: a part of the server,
// not imported by itself.
func (s *Service) portExisting(name string, p *Port) cloud.Existing {
	return cloud.Existing{
		Type: Type, Kind: "port", Name: naming.ServerPort(name), ID: p.ID, Where: s.String(), Part: Type + " " + name,
		Mark: p.Mark,
	}
}

// claim applies the ownership rule to what findPair found of name, before anything is written:
// a server found by its name (not by the ID the state records) may be taken only when it is an
// unfinished create of a unikorn_server, and a port found by its name only when it carries a
// unikorn_server's creation mark (or is the port of the recorded server itself). The server is
// judged first: its refusal names what the user can import.
func (s *Service) claim(name string, port *Port, srv *servers.Server, known Known) error {
	if srv != nil && srv.ID != known.ServerID {
		if err := cloud.Adopt(s.serverExisting(name, srv)); err != nil {
			return uniqueNames(err)
		}
	}

	recordedServer := srv != nil && srv.ID == known.ServerID

	if port != nil && port.ID != known.PortID && (!recordedServer || port.DeviceID != srv.ID) {
		return cloud.Adopt(s.portExisting(name, port))
	}

	return nil
}

// uniqueNames adds to the refusal of a finished server what a create_before_destroy replacement
// meets: the old server still holds the name when the new one is made.
func uniqueNames(err error) error {
	var exists *cloud.ExistsError
	if !errors.As(err, &exists) || exists.Claim != cloud.ClaimFinished {
		return err
	}

	return fmt.Errorf("%w. Server names are unique in an identity's project and region: a replacement planned with "+
		"create_before_destroy is made while the server it replaces still holds the name, so it needs another name (or "+
		"drop create_before_destroy); the existing server is left untouched", err)
}

// withMarks is md with the mark keys of have added (md itself is not changed): what the
// metadata of a server carrying have must be, since a convergence never removes the marks.
func withMarks(md, have map[string]string) map[string]string {
	out := maps.Clone(md)
	if out == nil {
		out = map[string]string{}
	}

	for k, v := range have {
		if naming.IsMarkKey(k) {
			out[k] = v
		}
	}

	return out
}

// madeHere tells whether a create of a unikorn_server made srv: it carries the creation mark.
func madeHere(srv *servers.Server) bool { return naming.MarkOf(srv.Metadata).Kind == Type }

// withoutMarks is md without its mark keys: the metadata the user sees.
func withoutMarks(md map[string]string) map[string]string {
	if md == nil {
		return nil
	}

	out := maps.Clone(md)
	maps.DeleteFunc(out, func(k, _ string) bool { return naming.IsMarkKey(k) })

	return out
}

// complete writes the completion mark on srv, the last step of its create: only on a server
// that carries a unikorn_server's creation mark and not the completion mark yet (an imported
// server is never marked; one already complete costs nothing).
func (s *Service) complete(ctx context.Context, srv *servers.Server) (*servers.Server, error) {
	have := naming.MarkOf(srv.Metadata)
	if have.Kind != Type || have.Completed {
		return srv, nil
	}

	s.wrote(srv.ID)

	done := have.Done().Properties()
	if _, err := servers.CreateMetadatum(ctx, s.compute, srv.ID, servers.MetadatumOpts{
		naming.MarkCompletedKey: done[naming.MarkCompletedKey],
	}).Extract(); err != nil {
		return srv, fmt.Errorf("marking server %s as made: %w", srv.ID, err)
	}

	tflog.Debug(ctx, "Marked the server as made", map[string]any{"server_id": srv.ID})

	next := *srv
	next.Metadata = withMarks(srv.Metadata, done)

	return &next, nil
}

// markPort tags port id with the creation mark it was posted with (as its description), then
// gives it its own description (none): the end of a port's create.
func (s *Service) markPort(ctx context.Context, id string) (*Port, error) {
	s.tenant.Wrote(network.PortKind, id)

	if err := network.Tag(ctx, s.network, network.TagPorts, id, made); err != nil {
		return nil, err
	}

	none := ""

	p, err := ports.Update(ctx, s.network, id, ports.UpdateOpts{Description: &none}).Extract()
	if err != nil {
		return nil, fmt.Errorf("writing the description of port %s: %w", id, err)
	}

	return toPort(p), nil
}
