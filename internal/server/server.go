// Package server owns the Unikorn server: a Nova server on its own Neutron port
// `server-<name>`, with an optional floating IP, created in an identity's project as the
// identity's own user (DESIGN.md §4, §5).
//
// The core (this file, nova.go, neutron.go, metadata.go, checks.go, preflight.go, locate.go)
// holds no Terraform types:
// [Service.Ensure] converges a server (port, server, metadata, power state, floating IP) and
// is safe to re-run after a crash at any point, since every object is looked up by its
// deterministic name and adopted when an interrupted create of a unikorn_server left it
// (ownership.go: the marks, and what is refused); [Service.Observe] re-reads a server with two
// requests;
// [Service.Delete] removes the server, its floating IP and its port; [Checker] finds bad input
// before anything is made. Every core call takes a *cloud.Tenant. resource.go, schema.go,
// plan.go and flatten.go adapt it to terraform-plugin-framework on the adapter kit; the
// floating IPs are the network core's (network.EnsureFloatingIP, network.RemoveFloatingIPs).
package server

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/servers"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/ports"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/network"
)

// Power states of a server as the resource speaks of them.
const (
	PowerRunning = "running"
	PowerStopped = "stopped"
)

// PowerStates are the values of power_state.
var PowerStates = []string{PowerRunning, PowerStopped}

// AddressPair is an allowed address pair of the server's port. An empty MACAddress means the
// port's own MAC (Neutron fills it in).
type AddressPair struct {
	IPAddress  string
	MACAddress string
}

// Spec is what a server should be.
type Spec struct {
	// Name is the user-given name: the Nova display name; the port is server-<name>.
	Name      string
	NetworkID string
	FlavorID  string
	ImageID   string
	// SecurityGroupIDs are exactly the port's security groups (none: the port has none).
	SecurityGroupIDs    []string
	AllowedAddressPairs []AddressPair
	// PublicIP asks for a floating IP on the external network of the network's router.
	PublicIP bool
	// ServerGroup schedules the server into the identity's server group.
	ServerGroup bool
	// SSHKey injects the identity's keypair.
	SSHKey bool
	// UserData is handed to the server at boot; nil: none. It is never logged.
	UserData []byte
	// RebuildForUserData rebuilds an existing server so that it boots with UserData (Nova
	// cannot tell which user data a server has).
	RebuildForUserData bool
	// Tags are the user's tags, translated into metadata (naming.TagsToMetadata).
	Tags map[string]string
	// PowerState is PowerRunning or PowerStopped.
	PowerState string
	// Host pins a new server to this compute host ("": the scheduler picks one). It is made in
	// the privileged scope (Service.Pin): Nova's host targeting is admin-only.
	Host string
	// Hypervisor pins a new server to this hypervisor (Nova's hypervisor_hostname: one compute
	// node, one Ironic node on a baremetal cloud), as Unikorn pins (its infrastructureRef); made
	// in the privileged scope as Host is.
	Hypervisor string
	// Volumes are exactly the IDs of the volumes attached to the server, when ManageVolumes;
	// without it the server's attachments are not managed.
	Volumes       []string
	ManageVolumes bool
	// RootVolume boots the server from a volume that Nova makes from ImageID when it makes the
	// server; nil: from the image, on the flavor's local disk.
	RootVolume *RootVolume
}

// Known is what an earlier apply recorded (Terraform state, private state); any may be "".
type Known struct {
	ServerID string
	PortID   string
	// FlavorID and FlavorName are the server's flavor as last seen: Nova (microversion ≥ 2.47)
	// names a server's flavor but does not give its ID, so the pair saves a flavor lookup.
	FlavorID   string
	FlavorName string
	// NoServerGroup says that server ServerID was in no server group when last seen. Nova puts a
	// server into a group only when it boots it, so it still is in none: a refresh from the
	// run's listing need not list the server groups for it.
	NoServerGroup bool
	// Tags are the tags the last apply wrote (nil: none, or an import): on a server this
	// provider did not make, the metadata keys of those no longer configured are removed, and no
	// other key (KeptMetadata).
	Tags map[string]string
	// RootVolumeID is the volume the server boots from, as recorded; RootVolumeGoes says that
	// Nova deletes it with the server (delete_on_termination), so that a delete waits for it.
	RootVolumeID   string
	RootVolumeGoes bool
}

// Server is a server as found in the cloud.
type Server struct {
	ID        string
	Name      string
	ProjectID string
	UserID    string
	Status    string
	Created   time.Time
	// Fault is Nova's fault message of a server in ERROR.
	Fault      string
	FlavorID   string // "" when it could not be resolved
	FlavorName string
	ImageID    string
	KeyName    string
	// Host is the server's compute host and Hypervisor its hypervisor (compute node): "" when
	// Nova does not say (it tells admins only).
	Host       string
	Hypervisor string
	// ServerGroupIDs are the server groups the server was scheduled into.
	ServerGroupIDs []string
	// VolumeIDs are the volumes attached to the server, sorted, but for the one it boots from.
	VolumeIDs []string
	// RootVolumeID is the volume the server boots from ("": it boots from its image).
	// RootVolume is what Cinder and Nova say of that volume when it was looked for (a server
	// just made, imported or adopted); nil when it is the recorded one.
	RootVolumeID string
	RootVolume   *RootVolume
	// Metadata is the server's metadata without the ownership marks.
	Metadata map[string]string
	// Made says that a create of a unikorn_server made the server (its creation mark): its
	// metadata is converged exactly, where that of any other server keeps every key but those of
	// its tags (KeptMetadata).
	Made bool

	// Port is nil when the server's port server-<name> is missing.
	Port *Port
	// PublicIPAddress is the floating address Nova reports on the port; "" when none.
	PublicIPAddress string

	// Notes are warnings for the user (metadata keys shadowed, a slow cloud, ...).
	Notes []string
}

// Port is the Neutron port of a server.
type Port struct {
	ID                  string
	Created             time.Time
	NetworkID           string
	DeviceID            string
	MACAddress          string
	PrivateIP           string
	SecurityGroupIDs    []string
	AllowedAddressPairs []AddressPair
	// Mark is the port's ownership mark (naming.MarkOfNeutron); untagged says that it is still
	// only its description (a create stopped before it tagged the port).
	Mark     naming.Mark
	untagged bool
}

// Service runs server operations in one tenant (an identity's project in one region) through
// the credential scope the tenant was bound with.
type Service struct {
	projectID string
	region    string
	compute   *gophercloud.ServiceClient
	network   *gophercloud.ServiceClient
	keystone  *gophercloud.ServiceClient
	// tenant is the identity's project in the region as bound: the run's listings and polling
	// rounds (listing.go); nil for a core on fake endpoints (tests), which reads one by one.
	tenant *cloud.Tenant
	// serviceUser says that the service acts as the service user in an identity this provider did
	// not make (cloud.Tenant.AsServiceUser): what only the identity's user has (its keypair, its
	// server group) is refused.
	serviceUser bool

	// pinned is the privileged scope's Nova client, which creates pinned servers (Pin);
	// refusal explains its 403.
	pinned  *gophercloud.ServiceClient
	refusal func(call string, err error) error
}

// NewService binds the core to t: bound with cloud.AsIdentity to make or change a server (so
// that the cloud records it as the identity's user's), with cloud.Privileged to read and delete
// one (which a broken or missing trust never blocks).
func NewService(t *cloud.Tenant) (*Service, error) {
	compute, err := t.Compute()
	if err != nil {
		return nil, err
	}

	neutron, err := t.Network()
	if err != nil {
		return nil, err
	}

	keystone, err := t.Keystone()
	if err != nil {
		return nil, err
	}

	return &Service{
		projectID: t.ProjectID(), region: t.Region(), compute: compute, network: neutron, keystone: keystone, tenant: t,
		serviceUser: t.AsServiceUser(),
	}, nil
}

// Pin lets the service create servers pinned to a host or hypervisor (Spec.Host, Spec.Hypervisor) through t, the same
// tenant bound with cloud.Privileged: Nova's host targeting is admin-only under stock policy,
// and the server must be made inside the identity's project, so it is made there as the
// service user (whose roles there allow it where Nova's policy lets them, or where it is admin).
func (s *Service) Pin(t *cloud.Tenant) error {
	compute, err := t.Compute()
	if err != nil {
		return err
	}

	s.pinned = compute
	s.refusal = func(call string, err error) error { return t.ProjectAdminRefusal("Nova", call, err) }

	return nil
}

// Region is the resolved region of the service.
func (s *Service) Region() string { return s.region }

// ProjectID is the identity's project.
func (s *Service) ProjectID() string { return s.projectID }

// String names the tenant for messages: "project P, region R".
func (s *Service) String() string { return tenantName(s.projectID, s.region) }

// tenantName names an identity's project in a region for messages, like cloud.Tenant does.
func tenantName(projectID, region string) string {
	return "project " + projectID + ", region " + region
}

// Ensure makes the cloud hold the server of spec and returns it as it is afterwards. The port
// and server are found again by their IDs in known or by their names; what is found by name is
// adopted only when an interrupted create of a unikorn_server left it (claim), and refused with a
// *cloud.ExistsError before any write otherwise. Whatever is missing is made, whatever differs is
// converged (port update, resize, rebuild, metadata, power, floating IP), and the server's
// completion mark is written last. A create whose answer is lost is recovered by its name
// (cloud.Create), only when what is found is its own.
// On error the returned Server holds what exists so far; it is nil when no server exists (a
// port made by this call is then deleted again when Nova refused the server for certain, and
// kept, for the next apply to adopt, when Nova may have made it after all).
func (s *Service) Ensure(ctx context.Context, spec Spec, known Known) (*Server, error) {
	ctx = tflog.SetField(ctx, "server", spec.Name)

	project, err := s.project(ctx)
	if err != nil {
		return nil, err
	}

	linkage := Linkage{OrganizationID: project.organizationID, ProjectID: project.unikornProjectID, Region: s.region}

	// Look both up first: a server of that name that is not on the port is a conflict to
	// report before anything is made.
	port, srv, err := s.findPair(ctx, spec.Name, known)
	if err != nil {
		return nil, err
	}

	freshServer := srv == nil

	var boot bootRequest

	if freshServer {
		// What can stop the boot before Nova is asked stops it before the port is made.
		if boot, err = s.newBootRequest(ctx, spec, project, linkage); err != nil {
			return nil, err
		}
	}

	freshPort := port == nil

	if freshPort {
		if port, err = s.createPort(ctx, spec); err != nil {
			return nil, err
		}
	} else if port, err = s.convergePort(ctx, port, spec); err != nil {
		if srv == nil {
			return nil, err
		}

		return s.result(srv, port, known, nil), err
	}

	ctx = tflog.SetField(ctx, "port_id", port.ID)

	if freshServer {
		if srv, err = s.createServer(ctx, spec, boot, port.ID); err != nil {
			return s.failedCreate(ctx, srv, port, freshPort, known, err)
		}

		// Nova names the flavor of the new server once it answers a read.
		known.FlavorID, known.FlavorName = spec.FlavorID, ""
	}

	// The server exists: from here on every error returns what there is, to be recorded.
	ctx = tflog.SetField(ctx, "server_id", srv.ID)

	var notes []string

	// Found by name with nothing recorded (a create): adopted, and said so.
	if !freshServer && known.ServerID == "" {
		notes = append(notes, s.adopted("server", spec.Name, srv.ID, srv.Created))
	}

	if !freshPort && known.PortID == "" {
		notes = append(notes, s.adopted("port", naming.ServerPort(spec.Name), port.ID, port.Created))
	}

	// A server made by this call is this provider's, whatever the read of it says yet.
	made := freshServer || madeHere(srv)

	fail := func(err error) (*Server, error) {
		out := s.result(srv, port, known, notes)
		out.Made = made

		return out, err
	}

	// A new server's floating IP goes on while it boots, so that Nova knows of it by the time the
	// server is up (Neutron tells Nova asynchronously): the wait for Nova to show it then
	// mostly costs nothing.
	var address string

	if freshServer {
		if address, err = s.floatingIP(ctx, spec, port, freshPort); err != nil {
			return fail(err)
		}
	}

	if srv, err = s.waitSettled(ctx, srv); err != nil {
		return fail(err)
	}

	if freshServer {
		known.FlavorName = flavorNameOf(srv)
	} else {
		if srv, err = s.convergeBoot(ctx, srv, spec, &known); err != nil {
			return fail(err)
		}
	}

	// A server this provider made carries exactly its linkage and tags; any other (Unikorn's,
	// imported) keeps what it carries but for the keys of its tags.
	var (
		md       map[string]string
		shadowed []string
	)

	if made {
		md, shadowed, err = DesiredMetadata(srv.ID, linkage, spec.Tags)
	} else {
		md, shadowed, err = KeptMetadata(withoutMarks(srv.Metadata), spec.Tags, known.Tags)
	}

	if err != nil {
		return fail(err)
	}

	md = withMarks(md, srv.Metadata) // the marks are no one's metadata to converge

	for _, key := range shadowed {
		notes = append(notes, fmt.Sprintf("A tag translates to the system metadata key %q: the system value is kept.", key))
	}

	if srv, err = s.convergeMetadata(ctx, srv, md, made); err != nil {
		return fail(err)
	}

	if srv, err = s.convergePower(ctx, srv, spec.PowerState); err != nil {
		return fail(err)
	}

	root, err := s.rootOf(ctx, srv, known)
	if err != nil {
		return fail(err)
	}

	known.RootVolumeID = root.id

	if spec.ManageVolumes {
		if srv, err = s.convergeVolumes(ctx, srv, spec.Volumes, root.id); err != nil {
			return fail(err)
		}
	}

	if !freshServer {
		if address, err = s.floatingIP(ctx, spec, port, freshPort); err != nil {
			return fail(err)
		}
	}

	srv, seen, err := s.waitAddress(ctx, srv, port.MACAddress, address)
	if err != nil {
		return fail(err)
	}

	// The last step: from here on the server is a finished create, which no other create adopts.
	if srv, err = s.complete(ctx, srv); err != nil {
		return fail(err)
	}

	out := s.result(srv, port, known, notes)
	out.Made = made
	out.setRoot(root)

	if !seen {
		// Record what Neutron holds; Nova will say the same once Neutron's notice reaches it.
		out.PublicIPAddress = address
		out.Notes = append(out.Notes, fmt.Sprintf("Nova did not report the floating IP change of server %s within %s "+
			"(Neutron notifies Nova of it): a refresh may show public_ip_address out of date until it does.", srv.ID, addressWaitBudget))
	}

	return out, nil
}

// convergeBoot resizes an existing server to the spec's flavor and rebuilds it when its image,
// keypair or user data must change. known's flavor pair follows what the server runs.
func (s *Service) convergeBoot(ctx context.Context, srv *servers.Server, spec Spec, known *Known) (*servers.Server, error) {
	want, err := s.wantedFlavorName(ctx, spec.FlavorID, *known)
	if err != nil {
		return srv, err
	}

	if flavorNameOf(srv) != want {
		if srv, err = s.resize(ctx, srv, spec.FlavorID, want); err != nil {
			return srv, err
		}
	}

	known.FlavorID, known.FlavorName = spec.FlavorID, want

	wantKey := ""
	if spec.SSHKey {
		wantKey = naming.KeypairName
	}

	imageID, _ := srv.Image["id"].(string)

	// A server booted from a volume names no image: its image is not compared.
	if (imageID != "" && imageID != spec.ImageID) || srv.KeyName != wantKey || spec.RebuildForUserData {
		return s.rebuild(ctx, srv, spec)
	}

	return srv, nil
}

// result is the Server for srv and port, with the flavor resolved from known when the server
// still runs the flavor known names.
func (s *Service) result(srv *servers.Server, port *Port, known Known, notes []string) *Server {
	out := toServer(srv)
	out.Port = port
	out.Notes = notes
	out.setRoot(bootVolume{id: known.RootVolumeID})

	if out.FlavorName != "" && out.FlavorName == known.FlavorName {
		out.FlavorID = known.FlavorID
	}

	if port != nil {
		out.PublicIPAddress = floatingAddress(srv, port.MACAddress)
	}

	return out
}

// failedCreate is the result of a server create that failed with err on port. A server it
// still returns (a twin it could not remove) is recorded. Without one, a port made by this
// apply is deleted only when Nova refused the server for certain (or this create removed its
// own twin): after any other failure Nova may have made the server after all, on that port,
// and the next apply adopts both.
func (s *Service) failedCreate(ctx context.Context, srv *servers.Server, port *Port, freshPort bool, known Known, err error) (*Server, error) {
	if srv != nil {
		return s.result(srv, port, known, nil), err
	}

	var twin *cloud.TwinError

	if freshPort && (cloud.Definite(err) || errors.As(err, &twin)) {
		return nil, errors.Join(err, s.deletePort(ctx, port.ID))
	}

	if freshPort {
		tflog.Warn(ctx, "Keeping the server's port: Nova may have made the server after all", map[string]any{"port_id": port.ID})
	}

	return nil, err
}

// findPair finds the server of name (by known's ID, else by name) and its port (by known's ID,
// else paired with the server: findPort), and checks that they belong together. A server that
// Nova is still building may not have bound its port yet (a create interrupted right after Nova
// took it): then it waits for Nova to bind it, or to finish building, before it judges.
func (s *Service) findPair(ctx context.Context, name string, known Known) (*Port, *servers.Server, error) {
	srv, err := s.findServer(ctx, name, known)
	if err != nil {
		return nil, nil, err
	}

	// Whatever was found by name and is not this provider's unfinished create is refused here,
	// before anything is written: the server before its port is even looked for.
	if err := s.claim(name, nil, srv, known); err != nil {
		return nil, nil, err
	}

	port, err := s.findPort(ctx, name, known.PortID, srv)
	if err != nil {
		return nil, nil, err
	}

	if err := s.claim(name, port, srv, known); err != nil {
		return nil, nil, err
	}

	if srv != nil && port != nil && port.DeviceID == "" && srv.Status == statusBuild && !listsPort(srv, port.MACAddress) {
		if port, srv, err = s.awaitBinding(ctx, port, srv); err != nil {
			return nil, nil, err
		}
	}

	return port, srv, checkPairing(name, portNameOf(name, srv), port, srv)
}

// awaitBinding polls port and srv until Neutron names a device of the port, Nova reports an
// address of srv on it, or srv is no longer building.
func (s *Service) awaitBinding(ctx context.Context, port *Port, srv *servers.Server) (*Port, *servers.Server, error) {
	type pair struct {
		port *Port
		srv  *servers.Server
	}

	tflog.Info(ctx, "The server is being built and its port is not bound yet; waiting for Nova to bind it")

	got, err := cloud.Poll(ctx, cloud.PollSpec{Pending: []string{"unbound"}, Target: []string{"settled"}},
		func(ctx context.Context) (pair, string, string, error) {
			p, err := ports.Get(ctx, s.network, port.ID).Extract()
			if err != nil {
				return pair{}, "", "", err
			}

			next, err := servers.Get(ctx, s.compute, srv.ID).Extract()
			if err != nil {
				return pair{}, "", "", err
			}

			if p.DeviceID == "" && next.Status == statusBuild && !listsPort(next, p.MACAddress) {
				return pair{toPort(p), next}, "unbound", "", nil
			}

			return pair{toPort(p), next}, "settled", "", nil
		})
	if err != nil {
		return nil, nil, fmt.Errorf("waiting for server %s to bind port %s: %w", srv.ID, port.ID, err)
	}

	return got.port, got.srv, nil
}

// checkPairing refuses a server and a port of the name that do not belong together: the
// provider never aliases objects it did not pair. A server is on the port when Neutron names
// it as the port's device, or when Nova reports it on the port while Neutron names no device yet.
func checkPairing(name, portName string, port *Port, srv *servers.Server) error {
	switch {
	case srv != nil && port == nil:
		return fmt.Errorf("server %q (%s) exists without its port %s: it was not made by this provider; "+
			"delete it or rename this server", name, srv.ID, portName)
	case srv != nil && port.DeviceID != srv.ID && (port.DeviceID != "" || !listsPort(srv, port.MACAddress)):
		return fmt.Errorf("server %q (%s) is not attached to port %s (%s, attached to %q): "+
			"delete one of them", name, srv.ID, portName, port.ID, port.DeviceID)
	case srv == nil && port != nil && port.DeviceID != "":
		return fmt.Errorf("port %s (%s) is attached to device %s, which is not a server called %q in this project: "+
			"delete or detach it", portName, port.ID, port.DeviceID, name)
	}

	return nil
}

// Observe re-reads the server: by its known ID, else (404) by its exact name. It returns nil
// when the server is gone. Steady state costs two requests: the server and its port. A server
// or port found again by name in place of a recorded one that is gone is said in a note naming
// both IDs and when the one found was made.
func (s *Service) Observe(ctx context.Context, name string, known Known) (*Server, error) {
	ctx = tflog.SetField(ctx, "server", name)

	srv, err := s.findServer(ctx, name, known)
	if err != nil || srv == nil {
		return nil, err
	}

	// A server found by name in place of the recorded one is taken only by the rule of a
	// create: what another configuration finished, or someone else made, is not this one.
	if srv.ID != known.ServerID && !cloud.Owns(Type, naming.MarkOf(srv.Metadata)) {
		tflog.Warn(ctx, "The recorded server is gone; a server of its name is not this configuration's, so it is not taken",
			map[string]any{"recorded_id": known.ServerID, "found_id": srv.ID, "marks": naming.MarkOf(srv.Metadata).String()})

		return nil, nil
	}

	out := toServer(srv)

	if known.ServerID != "" && out.ID != known.ServerID {
		out.Notes = append(out.Notes, s.refound("server", name, known.ServerID, out.ID, out.Created))
	}

	if out.Port, err = s.findPort(ctx, name, known.PortID, srv); err != nil {
		return nil, err
	}

	// A port found by name is the server's when the server is on it, or when a unikorn_server's
	// create made it.
	if p := out.Port; p != nil && p.ID != known.PortID && p.DeviceID != srv.ID && !cloud.Owns(Type, p.Mark) {
		out.Port = nil
	}

	if out.Port != nil {
		out.PublicIPAddress = floatingAddress(srv, out.Port.MACAddress)

		if known.PortID != "" && out.Port.ID != known.PortID {
			out.Notes = append(out.Notes, s.refound("port", portNameOf(name, srv), known.PortID, out.Port.ID, out.Port.Created))
		}
	}

	if out.FlavorID, err = s.flavorID(ctx, out.FlavorName, known); err != nil {
		return nil, err
	}

	root, err := s.rootOf(ctx, srv, known)
	if err != nil {
		return nil, err
	}

	out.setRoot(root)

	return out, nil
}

// adopted is the note of the kind name found existing on a create, id made at created, and taken
// over instead of a new one made: what an interrupted create of a unikorn_server left unfinished.
func (s *Service) adopted(kind, name, id string, created time.Time) string {
	return fmt.Sprintf("The %s %s (%s) already existed in %s, created %s, and was adopted instead of a new one being made: "+
		"a create of a unikorn_server began it and never finished (an interrupted apply leaves such objects behind).",
		kind, name, id, s, when(created))
}

// when is created for a message.
func when(created time.Time) string {
	if created.IsZero() {
		return "at a time the cloud does not say"
	}

	return created.UTC().Format(time.RFC3339)
}

// refound is the note of the kind name recorded as oldID, gone, and found again by its name as
// newID, made at created (zero: Nova or Neutron did not say).
func (s *Service) refound(kind, name, oldID, newID string, created time.Time) string {
	return fmt.Sprintf("The %s %s recorded as %s in %s is gone; %s, found by its name, was created %s and is recorded "+
		"instead. If it is not the one this configuration made, remove the server from the state before applying.",
		kind, name, oldID, s, newID, when(created))
}

// Delete removes the server (and waits until Nova answers 404), then the floating IPs on its
// port (deleting those this provider made, detaching others), then the port. Every 404 is
// success. Objects are deleted by their recorded IDs only, never found by name: a newer
// server that reuses the name is not this one's. Only when nothing at all was recorded is the
// port looked up by name, and deleted only when a unikorn_server's create made it.
func (s *Service) Delete(ctx context.Context, name string, known Known) error {
	ctx = tflog.SetField(ctx, "server", name)

	if known.ServerID != "" {
		if err := s.deleteServer(ctx, known.ServerID, naming.Server(name)); err != nil {
			return err
		}
	}

	if known.RootVolumeID != "" && known.RootVolumeGoes {
		if err := s.waitRootGone(ctx, known.RootVolumeID); err != nil {
			return err
		}
	}

	portID := known.PortID
	if portID == "" && known.ServerID == "" {
		port, err := s.findPortByName(ctx, naming.ServerPort(name))
		if err != nil {
			return err
		}

		// Only a port that a unikorn_server's create made: never someone else's of the name.
		if port != nil && cloud.Owns(Type, port.Mark) {
			portID = port.ID
		}
	}

	if portID == "" {
		return nil
	}

	if err := network.RemoveFloatingIPs(ctx, s.network, network.PublicAddress{
		ProjectID: s.projectID, PortID: portID, Description: floatingIPDescription(name), Tenant: s.tenant,
	}); err != nil {
		return err
	}

	return s.deletePort(ctx, portID)
}

// toServer reads the fields of a Nova server.
func toServer(srv *servers.Server) *Server {
	out := &Server{
		ID:         srv.ID,
		Name:       srv.Name,
		ProjectID:  srv.TenantID,
		UserID:     srv.UserID,
		Status:     srv.Status,
		Created:    srv.Created,
		KeyName:    srv.KeyName,
		Host:       srv.Host,
		Hypervisor: srv.HypervisorHostname,
		Metadata:   withoutMarks(srv.Metadata), // the ownership marks are no one's metadata
		Made:       madeHere(srv),
		VolumeIDs:  attachedVolumes(srv),
	}

	if srv.Status == "ERROR" {
		out.Fault = faultOf(srv)
	}

	if name, ok := srv.Flavor["original_name"].(string); ok {
		out.FlavorName = name
	}

	if id, ok := srv.Image["id"].(string); ok {
		out.ImageID = id
	}

	if srv.ServerGroups != nil {
		out.ServerGroupIDs = slices.Clone(*srv.ServerGroups)
	}

	return out
}

// faultOf describes the fault of a server in ERROR.
func faultOf(srv *servers.Server) string {
	f := srv.Fault
	if f.Message == "" {
		return "Nova recorded no fault message"
	}

	if f.Code != 0 {
		return fmt.Sprintf("%s (code %d)", strings.TrimSpace(f.Message), f.Code)
	}

	return strings.TrimSpace(f.Message)
}

// ProviderID is the server's Kubernetes node providerID: openstack://REGION/ID.
func ProviderID(region, id string) string {
	return "openstack://" + region + "/" + id
}
