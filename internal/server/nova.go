package server

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/flavors"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/servers"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/projects"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// Nova server statuses the provider acts on.
const (
	statusActive       = "ACTIVE"
	statusBuild        = "BUILD"
	statusError        = "ERROR"
	statusShutoff      = "SHUTOFF"
	statusRebuild      = "REBUILD"
	statusResize       = "RESIZE"
	statusVerifyResize = "VERIFY_RESIZE"
	statusReboot       = "REBOOT"
	statusHardReboot   = "HARD_REBOOT"
	statusMigrating    = "MIGRATING"
	statusDeleted      = "DELETED"
	statusSoftDeleted  = "SOFT_DELETED"

	taskDeleting = "deleting"
)

// settled are the statuses of a server that is not busy; transient ones are waited through.
var (
	settled   = []string{statusActive, statusShutoff}
	transient = []string{statusBuild, statusRebuild, statusReboot, statusHardReboot, statusMigrating, statusResize}
)

// addressWaitBudget bounds the wait for Nova to show a floating IP change (Neutron tells Nova
// asynchronously; on a healthy cloud it takes well under a second).
const addressWaitBudget = time.Minute

// projectFacts is what the identity's Keystone project says about a server's linkage.
type projectFacts struct {
	name             string // unikorn-identity-<name>
	organizationID   string
	unikornProjectID string
}

// project reads the identity's Keystone project, its tags and its name: once per run for every
// server of the identity (cloud.Tenant.IdentityProject).
func (s *Service) project(ctx context.Context) (projectFacts, error) {
	p, ok, err := s.tenant.IdentityProject(ctx)
	if !ok {
		p, err = projects.Get(ctx, s.keystone, s.projectID).Extract()
	}

	if err != nil {
		return projectFacts{}, fmt.Errorf("reading the identity's project %s: %w", s.projectID, err)
	}

	org, proj, err := naming.ParseProjectTags(p.Tags)
	if err != nil {
		return projectFacts{}, fmt.Errorf("project %s: %w", s.projectID, err)
	}

	return projectFacts{name: p.Name, organizationID: org, unikornProjectID: proj}, nil
}

// nameFilter is Nova's name filter for exactly name. Nova matches names as an unanchored
// regular expression, so the filter is anchored and escaped; the results are still compared
// exactly (naming.One), whatever a cloud does with the filter.
func nameFilter(name string) string {
	return "^" + regexp.QuoteMeta(name) + "$"
}

// findServer returns the server of knownID, or (knownID unknown or gone) the project's one
// server named exactly name; nil when there is none.
func (s *Service) findServer(ctx context.Context, name string, known Known) (*servers.Server, error) {
	if knownID := known.ServerID; knownID != "" {
		srv, exists, ok, err := s.listedServer(ctx, knownID, known.NoServerGroup)

		switch {
		case err != nil:
			return nil, err
		case ok && !exists:
			err = cloud.NotFoundError(serverKind, knownID)
		case !ok:
			srv, err = servers.Get(ctx, s.compute, knownID).Extract()
		}

		switch {
		case err == nil && srv.Status != statusDeleted && srv.Status != statusSoftDeleted:
			return srv, nil
		case err != nil && !gophercloud.ResponseCodeIs(err, http.StatusNotFound):
			return nil, fmt.Errorf("reading server %s: %w", knownID, err)
		}

		tflog.Debug(ctx, "The recorded server is gone; looking it up by name", map[string]any{"server_id": knownID})
	}

	return s.findServerByName(ctx, name)
}

// findServerByName returns the project's one server named exactly name, nil if none.
func (s *Service) findServerByName(ctx context.Context, name string) (*servers.Server, error) {
	all, err := s.serversNamed(ctx, name)
	if err != nil {
		return nil, err
	}

	srv, ok, err := naming.One("server", name, all,
		func(s servers.Server) string { return s.Name }, func(s servers.Server) string { return s.ID })
	if err != nil || !ok {
		return nil, err
	}

	return &srv, nil
}

// serversNamed lists the project's servers named exactly name (from the run's listing when it
// can answer).
func (s *Service) serversNamed(ctx context.Context, name string) ([]servers.Server, error) {
	if listed, ok, err := s.listedServersNamed(ctx, name); err != nil || ok {
		return listed, err
	}

	all, err := listServers(ctx, s.compute, servers.ListOpts{Name: nameFilter(name)})
	if err != nil {
		return nil, fmt.Errorf("looking up server %q: %w", name, err)
	}

	return naming.Exact(all, name, func(s servers.Server) string { return s.Name }), nil
}

func listServers(ctx context.Context, sc *gophercloud.ServiceClient, opts servers.ListOpts) ([]servers.Server, error) {
	pages, err := servers.List(sc, opts).AllPages(ctx)
	if err != nil {
		return nil, err
	}

	return servers.ExtractServers(pages)
}

// readServer reads server id, for a poll.
func (s *Service) readServer(ctx context.Context, id string) (servers.Server, error) {
	srv, err := servers.Get(ctx, s.compute, id).Extract()
	if err != nil {
		return servers.Server{}, err
	}

	return *srv, nil
}

// waitFor polls srv until its status is in target, through pending; ERROR (or any status in
// neither) fails at once with Nova's fault. It returns the last server read (srv if none).
func (s *Service) waitFor(ctx context.Context, srv *servers.Server, pending, target []string) (*servers.Server, error) {
	next, err := serverRounds.Poll(ctx, s.tenant, srv.Name, srv.ID, cloud.PollSpec{Pending: pending, Target: target},
		func(got servers.Server) (string, string) {
			if got.Status != statusError {
				return got.Status, ""
			}

			return got.Status, faultOf(&got)
		},
		func(ctx context.Context) (servers.Server, error) { return s.readServer(ctx, srv.ID) })

	if next.ServerGroups == nil {
		// A listing leaves them out; a server's server groups are set at its boot.
		next.ServerGroups = srv.ServerGroups
	}

	return s.waited(srv, &next, target, err)
}

// waited is the end of waitFor: the last server read (srv if none) and the error said.
func (s *Service) waited(srv, last *servers.Server, target []string, err error) (*servers.Server, error) {
	next := last
	if next.ID == "" {
		next = srv
	}

	var state *cloud.StateError
	if errors.As(err, &state) {
		return next, fmt.Errorf("server %s is %s: %s", srv.ID, state.State, state.Detail)
	}

	if err != nil {
		return next, fmt.Errorf("waiting for server %s to be %s: %w", srv.ID, strings.Join(target, " or "), err)
	}

	return next, nil
}

// waitSettled waits for srv to be ACTIVE or SHUTOFF (a new server: ACTIVE).
func (s *Service) waitSettled(ctx context.Context, srv *servers.Server) (*servers.Server, error) {
	if srv.Status == statusActive || srv.Status == statusShutoff {
		return srv, nil
	}

	return s.waitFor(ctx, srv, transient, settled)
}

// wantedFlavorName is the name of the flavor of spec: known when the state recorded it, else
// read from Nova.
func (s *Service) wantedFlavorName(ctx context.Context, flavorID string, known Known) (string, error) {
	if known.FlavorID == flavorID && known.FlavorName != "" {
		return known.FlavorName, nil
	}

	f, err := flavors.Get(ctx, s.compute, flavorID).Extract()
	if err != nil {
		return "", fmt.Errorf("reading flavor %s: %w", flavorID, err)
	}

	return f.Name, nil
}

// resize moves srv to the flavor flavorID (called name) and confirms it. A cloud that cannot
// resize (for example a single compute host without allow_resize_to_same_host) leaves the
// server where it was without a fault: that is reported as an error too.
func (s *Service) resize(ctx context.Context, srv *servers.Server, flavorID, name string) (*servers.Server, error) {
	from := flavorNameOf(srv)

	s.wrote(srv.ID)

	if err := servers.Resize(ctx, s.compute, srv.ID, servers.ResizeOpts{FlavorRef: flavorID}).ExtractErr(); err != nil {
		return srv, fmt.Errorf("resizing server %s from %s to %s: %w", srv.ID, from, name, err)
	}

	tflog.Info(ctx, "Resizing the server", map[string]any{"from": from, "to": name})

	next, err := s.waitFor(ctx, srv, []string{statusResize}, []string{statusVerifyResize, statusActive, statusShutoff})
	if err != nil {
		return next, err
	}

	if next.Status != statusVerifyResize {
		if flavorNameOf(next) == name { // confirmed by the cloud itself (resize_confirm_window)
			return next, nil
		}

		return next, fmt.Errorf("resizing server %s from %s to %s: Nova put the server back to %s on flavor %s without a fault; "+
			"the scheduler found no host for it (see `openstack server event list %s`; a cloud with a single compute "+
			"host needs allow_resize_to_same_host)", srv.ID, from, name, next.Status, flavorNameOf(next), srv.ID)
	}

	if err := servers.ConfirmResize(ctx, s.compute, srv.ID).ExtractErr(); err != nil {
		return next, fmt.Errorf("confirming the resize of server %s to %s: %w", srv.ID, name, err)
	}

	return s.waitFor(ctx, srv, []string{statusVerifyResize, statusResize}, settled)
}

// rebuildOpts is a rebuild that also sets the keypair (microversion 2.54) and the user data
// (2.57), which gophercloud's RebuildOpts does not carry. Both are always sent, so that the
// rebuilt server has exactly what the spec says; but for keepKey, where Nova keeps the keypair
// the server has.
type rebuildOpts struct {
	imageID  string
	keyName  string // "": none
	keepKey  bool   // key_name left out: the server keeps the keypair it has
	userData []byte // nil: none
}

func (o rebuildOpts) ToServerRebuildMap() (map[string]any, error) {
	b := map[string]any{"imageRef": o.imageID, "key_name": nil, "user_data": nil}

	switch {
	case o.keepKey:
		delete(b, "key_name")
	case o.keyName != "":
		b["key_name"] = o.keyName
	}

	if len(o.userData) > 0 {
		b["user_data"] = base64.StdEncoding.EncodeToString(o.userData)
	}

	return map[string]any{"rebuild": b}, nil
}

// rebuild re-images srv, keeping its port, addresses and metadata. As the service user (an
// identity this provider did not make) the identity's keypair cannot be named: a server that
// already has it keeps it (key_name is left out of the rebuild), one that has not cannot get it.
func (s *Service) rebuild(ctx context.Context, srv *servers.Server, spec Spec) (*servers.Server, error) {
	opts := rebuildOpts{imageID: spec.ImageID, userData: spec.UserData}

	switch {
	case spec.SSHKey && s.serviceUser && srv.KeyName == naming.KeypairName:
		opts.keepKey = true
	case spec.SSHKey && s.serviceUser:
		return srv, s.madeElsewhereError(Spec{Name: spec.Name, SSHKey: true})
	case spec.SSHKey:
		opts.keyName = naming.KeypairName
	}

	s.wrote(srv.ID)

	if _, err := servers.Rebuild(ctx, s.compute, srv.ID, opts).Extract(); err != nil {
		return srv, fmt.Errorf("rebuilding server %s with image %s: %w", srv.ID, spec.ImageID, err)
	}

	tflog.Info(ctx, "Rebuilding the server", map[string]any{"image_id": spec.ImageID})

	return s.waitFor(ctx, srv, []string{statusRebuild}, settled)
}

// convergeMetadata makes srv's metadata exactly md (one request when it differs). On a server
// this provider did not make (!made), only the keys that differ are written, one merge of those
// set and one delete of each removed, so that no other key is ever rewritten.
func (s *Service) convergeMetadata(ctx context.Context, srv *servers.Server, md map[string]string, made bool) (*servers.Server, error) {
	if maps.Equal(srv.Metadata, md) {
		return srv, nil
	}

	if !made {
		return s.patchMetadata(ctx, srv, md)
	}

	s.wrote(srv.ID)

	got, err := servers.ResetMetadata(ctx, s.compute, srv.ID, servers.MetadataOpts(md)).Extract()
	if err != nil {
		return srv, fmt.Errorf("setting the metadata of server %s: %w", srv.ID, err)
	}

	next := *srv
	next.Metadata = got

	return &next, nil
}

// patchMetadata writes on srv the keys whose values differ in md (one merge) and removes those
// md does not have (one delete each), leaving every other key as it is.
func (s *Service) patchMetadata(ctx context.Context, srv *servers.Server, md map[string]string) (*servers.Server, error) {
	set := map[string]string{}

	for k, v := range md {
		if have, ok := srv.Metadata[k]; !ok || have != v {
			set[k] = v
		}
	}

	s.wrote(srv.ID)

	next := *srv
	next.Metadata = maps.Clone(srv.Metadata)

	if len(set) > 0 {
		if _, err := servers.UpdateMetadata(ctx, s.compute, srv.ID, servers.MetadataOpts(set)).Extract(); err != nil {
			return srv, fmt.Errorf("writing the metadata keys %s of server %s: %w", strings.Join(slices.Sorted(maps.Keys(set)), ", "), srv.ID, err)
		}

		if next.Metadata == nil {
			next.Metadata = map[string]string{}
		}

		maps.Copy(next.Metadata, set) // what Nova answers: the keys it had, merged with those sent
	}

	for _, k := range slices.Sorted(maps.Keys(srv.Metadata)) {
		if _, keep := md[k]; keep {
			continue
		}

		err := servers.DeleteMetadatum(ctx, s.compute, srv.ID, k).ExtractErr()
		if err != nil && !gophercloud.ResponseCodeIs(err, http.StatusNotFound) {
			return &next, fmt.Errorf("removing the metadata key %s of server %s: %w", k, srv.ID, err)
		}

		delete(next.Metadata, k)
	}

	return &next, nil
}

// convergePower starts or stops srv to reach power ("" keeps it). Other statuses than ACTIVE
// and SHUTOFF (paused, suspended, ...) are left alone.
func (s *Service) convergePower(ctx context.Context, srv *servers.Server, power string) (*servers.Server, error) {
	if (power == PowerStopped && srv.Status == statusActive) || (power == PowerRunning && srv.Status == statusShutoff) {
		s.wrote(srv.ID)
	}

	switch {
	case power == PowerStopped && srv.Status == statusActive:
		if err := servers.Stop(ctx, s.compute, srv.ID).ExtractErr(); err != nil {
			return srv, fmt.Errorf("stopping server %s: %w", srv.ID, err)
		}

		return s.waitFor(ctx, srv, []string{statusActive}, []string{statusShutoff})

	case power == PowerRunning && srv.Status == statusShutoff:
		if err := servers.Start(ctx, s.compute, srv.ID).ExtractErr(); err != nil {
			return srv, fmt.Errorf("starting server %s: %w", srv.ID, err)
		}

		return s.waitFor(ctx, srv, []string{statusShutoff}, []string{statusActive})
	}

	return srv, nil
}

// waitAddress waits, within addressWaitBudget, until Nova reports the floating address want
// ("" for none) on the port with mac. Nova learns of floating IP changes from Neutron
// asynchronously, and reads come from Nova; so that a refresh right after apply shows what
// the apply did, the apply waits here. ok is false when Nova did not catch up in time.
func (s *Service) waitAddress(ctx context.Context, srv *servers.Server, mac, want string) (*servers.Server, bool, error) {
	if floatingAddress(srv, mac) == want {
		return srv, true, nil
	}

	wctx, cancel := context.WithTimeout(ctx, addressWaitBudget)
	defer cancel()

	next, err := cloud.Poll(wctx, cloud.PollSpec{
		Pending:     []string{"stale"},
		Target:      []string{"seen"},
		MinInterval: 250 * time.Millisecond,
		MaxInterval: 5 * time.Second,
	}, func(ctx context.Context) (*servers.Server, string, string, error) {
		srv, err := servers.Get(ctx, s.compute, srv.ID).Extract()
		if err != nil {
			return nil, "", "", err
		}

		if floatingAddress(srv, mac) == want {
			return srv, "seen", "", nil
		}

		return srv, "stale", "", nil
	})

	var timeout *cloud.WaitTimeoutError

	switch {
	case errors.As(err, &timeout) && ctx.Err() == nil:
		if next == nil {
			next = srv
		}

		return next, false, nil
	case err != nil:
		return srv, false, fmt.Errorf("reading server %s: %w", srv.ID, err)
	}

	return next, true, nil
}

// deleteServer deletes server id, called name, and waits until Nova answers 404 (polled in the
// rounds of the servers' names). A server whose deletion fails (Nova puts it in ERROR) fails at
// once with its fault.
func (s *Service) deleteServer(ctx context.Context, id, name string) error {
	s.wrote(id)

	err := servers.Delete(ctx, s.compute, id).ExtractErr()

	switch {
	case gophercloud.ResponseCodeIs(err, http.StatusNotFound):
		return nil
	case err != nil:
		return fmt.Errorf("deleting server %s: %w", id, err)
	}

	_, err = serverRounds.Poll(ctx, s.tenant, name, id, cloud.PollSpec{Pending: []string{taskDeleting}, NotFoundIsTarget: true},
		func(srv servers.Server) (string, string) {
			if srv.Status == statusError && srv.TaskState != taskDeleting {
				return statusError, faultOf(&srv)
			}

			return taskDeleting, ""
		},
		func(ctx context.Context) (servers.Server, error) { return s.readServer(ctx, id) })

	var state *cloud.StateError
	if errors.As(err, &state) {
		return fmt.Errorf("deleting server %s: Nova failed to delete it: %s", id, state.Detail)
	}

	if err != nil {
		return fmt.Errorf("waiting for server %s to be deleted: %w", id, err)
	}

	tflog.Info(ctx, "Deleted the server", map[string]any{"server_id": id})

	return nil
}

// flavorID resolves the ID of the flavor a server runs (Nova gives only its name): the known
// pair when the name is unchanged, else the one flavor the project can see with that name.
func (s *Service) flavorID(ctx context.Context, name string, known Known) (string, error) {
	if name == "" {
		return "", nil
	}

	if name == known.FlavorName && known.FlavorID != "" {
		return known.FlavorID, nil
	}

	pages, err := flavors.ListDetail(s.compute, flavors.ListOpts{AccessType: flavors.AllAccess}).AllPages(ctx)
	if err != nil {
		return "", fmt.Errorf("listing flavors to resolve %q: %w", name, err)
	}

	all, err := flavors.ExtractFlavors(pages)
	if err != nil {
		return "", fmt.Errorf("reading flavors: %w", err)
	}

	f, ok, err := naming.One("flavor", name, all, func(f flavors.Flavor) string { return f.Name }, func(f flavors.Flavor) string { return f.ID })
	if err != nil || !ok {
		return "", err
	}

	return f.ID, nil
}

// flavorNameOf is the name of the flavor a server runs.
func flavorNameOf(srv *servers.Server) string {
	name, _ := srv.Flavor["original_name"].(string)

	return name
}

// floatingAddress is the floating IPv4 (else IPv6) address Nova reports on the port with mac
// (any port when mac is ""); "" when none.
func floatingAddress(srv *servers.Server, mac string) string {
	var v6 string

	for _, a := range novaAddresses(srv) {
		if a.kind != "floating" || (mac != "" && !strings.EqualFold(a.mac, mac)) {
			continue
		}

		if a.version != 6 {
			return a.addr
		}

		v6 = a.addr
	}

	return v6
}

// listsPort tells whether Nova reports an address of srv on the port with mac: the server is
// on that port, whether or not Neutron has recorded it as the port's device yet.
func listsPort(srv *servers.Server, mac string) bool {
	return mac != "" && slices.ContainsFunc(novaAddresses(srv), func(a novaAddress) bool { return strings.EqualFold(a.mac, mac) })
}

// novaAddress is one address Nova reports for a server.
type novaAddress struct {
	addr, kind, mac string // kind: "fixed" or "floating"
	version         int
}

// novaAddresses are the addresses Nova reports for srv (none for nil), network by network.
func novaAddresses(srv *servers.Server) []novaAddress {
	if srv == nil {
		return nil
	}

	var out []novaAddress

	for _, raw := range srv.Addresses {
		list, ok := raw.([]any)
		if !ok {
			continue
		}

		for _, item := range list {
			a, ok := item.(map[string]any)
			if !ok {
				continue
			}

			addr, _ := a["addr"].(string)
			kind, _ := a["OS-EXT-IPS:type"].(string)
			mac, _ := a["OS-EXT-IPS-MAC:mac_addr"].(string)
			version, _ := a["version"].(float64)

			out = append(out, novaAddress{addr: addr, kind: kind, mac: mac, version: int(version)})
		}
	}

	return out
}
