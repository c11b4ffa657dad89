package acctest

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/keypairs"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/servers"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/security/groups"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/networks"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/ports"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
)

// UnikornServer is a server as Unikorn's region service makes it: the port
// server-<ID> and the Nova server of the display name Name on it, with Unikorn's metadata.
type UnikornServer struct {
	// ID is Unikorn's server ID (the port's name after server-, the serverID metadata value).
	ID, Name, Region            string
	ServerID, PortID, PrivateIP string
	// Metadata is the Nova metadata Unikorn gave the server.
	Metadata map[string]string

	keyName          string
	securityGroupIDs []string
}

// unikornServerPortName is the port's name (P/network.go:serverName@v1.10.0,v1.16.7,v1.19.0).
func unikornServerPortName(id string) string { return "server-" + id }

// unikornTagKey is the pattern of the tag names that become metadata keys
// (P/provider.go:tagKeyRegex@v1.16.7,v1.19.0).
var unikornTagKey = regexp.MustCompile(`^([a-z0-9][a-z0-9-]*)\.[^/]+/([a-z0-9][a-z0-9-]*)$`)

// CreateServer makes the server name (flavorID, imageID) on network n in the security groups
// sgs, with the user tags tags, as Unikorn's P/provider.go:CreateServer does (@v1.19.0; the same
// steps at v1.10.0 and v1.16.7), as the identity's user: the port, then the Nova server with
// Unikorn's metadata and keypair, no server group. It waits for the server to be ACTIVE
// (Unikorn's monitor watches it instead). Its cleanup deletes server and port in Unikorn's order.
func (u UnikornIdentity) CreateServer(t *testing.T, n UnikornNetwork, sgs []UnikornSecurityGroup, name, flavorID, imageID string,
	tags map[string]string,
) UnikornServer {
	t.Helper()

	ctx := context.Background()
	s := UnikornServer{Name: name, Region: n.Region, keyName: unikornKeypair}

	// The server's ID: random before v1.16.7 (NewObjectMetadata), then uuid5 of the network's ID
	// and the display name (pkg/handler/server/client_v2.go:generateV2@v1.16.7,v1.19.0).
	if u.Gen.deterministicServerIDs() {
		id, err := unikornDeterministicID(n.ID, name)
		if err != nil {
			t.Fatalf("the Unikorn server ID of %s on network %s: %v", name, n.ID, err)
		}

		s.ID = id
	} else {
		s.ID = unikornResourceID(t)
	}

	t.Cleanup(func() { s.delete(t) })

	// As the identity's user (P/provider.go:CreateServer, networkFromServicePrincipal@v1.19.0).
	sess := u.session(t)
	neutron := clientOf(t, "Neutron", n.Region, sess.Network)

	// The port (P/provider.go:reconcileServerPort, P/network.go:CreateServerPort@v1.19.0): the
	// network and groups found by name (lookupNetwork, lookupSecurityGroup), the groups always
	// sent (an empty list is no group), no address pairs, no fixed IPs, no description.
	networkID := unikornFind(t, "network", unikornNetworkName(n.ID), func() ([]networks.Network, error) {
		return AllPages(ctx, networks.List(neutron, networks.ListOpts{Name: unikornNetworkName(n.ID)}), networks.ExtractNetworks)
	}, func(x networks.Network) (string, string) { return x.Name, x.ID })

	s.securityGroupIDs = make([]string, len(sgs))

	for i, sg := range sgs {
		name := unikornSecurityGroupName(sg.ID)
		s.securityGroupIDs[i] = unikornFind(t, "security group", name, func() ([]groups.SecGroup, error) {
			return AllPages(ctx, groups.List(neutron, groups.ListOpts{Name: name}), groups.ExtractGroups)
		}, func(x groups.SecGroup) (string, string) { return x.Name, x.ID })
	}

	p, err := ports.Create(ctx, neutron, ports.CreateOpts{
		Name: unikornServerPortName(s.ID), NetworkID: networkID, SecurityGroups: &s.securityGroupIDs,
	}).Extract()
	if err != nil {
		t.Fatalf("creating the Unikorn port %s: %v", unikornServerPortName(s.ID), err)
	}

	s.PortID = p.ID

	if len(p.FixedIPs) == 0 {
		t.Fatalf("the Unikorn port %s has no address", p.ID)
	}

	s.PrivateIP = p.FixedIPs[0].IPAddress // status.privateIP

	// No floating IP: publicIPAllocation is not asked (P/provider.go:reconcileFloatingIP).

	// The metadata (P/provider.go:reconcileServer@v1.16.7,v1.19.0; P10/provider.go:reconcileServer@v1.10.0).
	s.Metadata = u.Gen.serverMetadata(s.ID, u.OrganizationID, u.UnikornProjectID, unikornRegionID(t, n.Region), tags)

	// The Nova server, as the identity's user at microversion 2.90 (computeForServerCreate: the
	// privileged scope only with an infrastructureRef, v1.17.0+, not asked here): the display
	// name, the port and its network, the metadata, key_name unikorn-openstack-provider (always
	// at v1.10.0; from v1.16.0 unless an SSH CA is set, from v1.18.7 while sshInjection is
	// identityKeypair, the default: resolveServerKeyName@v1.16.7,v1.19.0), no scheduler hints
	// (never the identity's server group since v1.10.0), no user data here
	// (P/compute.go:CreateServer@v1.10.0,v1.16.7,v1.19.0).
	compute := unikornCompute(t, sess, n.Region)

	srv, err := servers.Create(ctx, compute, keypairs.CreateOptsExt{
		CreateOptsBuilder: servers.CreateOpts{
			Name: name, ImageRef: imageID, FlavorRef: flavorID, Metadata: s.Metadata,
			Networks: []servers.Network{{Port: p.ID, UUID: p.NetworkID}},
		},
		KeyName: s.keyName,
	}, servers.SchedulerHintOpts{}).Extract()
	if err != nil {
		t.Fatalf("creating the Unikorn server %s: %v", name, err)
	}

	s.ServerID = srv.ID

	if err := waitServerActive(ctx, compute, srv.ID); err != nil {
		t.Fatalf("waiting for the Unikorn server %s: %v", srv.ID, err)
	}

	return s
}

// serverMetadata is the Nova metadata the generation gives a new server: the user tags whose
// names match tagKeyRegex as <service>:<local_name with _ for ->, in the tags' order (a map's
// here: sorted by name), then the namespaced system keys, then the legacy keys, the later
// overwriting the earlier (P/provider.go:reconcileServer, metadataKey@v1.16.7,v1.19.0); at
// v1.10.0 the legacy keys only (P10/provider.go:reconcileServer@v1.10.0).
func (g UnikornGeneration) serverMetadata(serverID, organizationID, projectID, regionID string, tags map[string]string) map[string]string {
	md := map[string]string{}

	if g.namespaced() {
		for _, name := range slices.Sorted(maps.Keys(tags)) {
			if m := unikornTagKey.FindStringSubmatch(name); m != nil {
				md[m[1]+":"+strings.ReplaceAll(m[2], "-", "_")] = tags[name]
			}
		}

		maps.Copy(md, map[string]string{
			"region:server_id": serverID, "identity:organization_id": organizationID,
			"identity:project_id": projectID, "region:region_id": regionID,
		})
	}

	// The legacy keys, "frozen for backwards compat".
	maps.Copy(md, map[string]string{
		"serverID": serverID, "organizationID": organizationID, "projectID": projectID, "regionID": regionID,
	})

	return md
}

// unikornFind is the ID of the first object of kind named exactly name that list answers, as
// Unikorn's lookups by name keep it (v1.14.0+; an error before on duplicates).
func unikornFind[T any](t *testing.T, kind, name string, list func() ([]T, error), nameID func(T) (string, string)) string {
	t.Helper()

	all, err := list()
	if err != nil {
		t.Fatalf("looking up the Unikorn %s %s: %v", kind, name, err)
	}

	for _, o := range all {
		if n, id := nameID(o); n == name {
			return id
		}
	}

	t.Fatalf("no Unikorn %s %s", kind, name)

	return ""
}

// waitServerActive waits for server id to be ACTIVE.
func waitServerActive(ctx context.Context, compute *gophercloud.ServiceClient, id string) error {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()

	_, err := cloud.Poll(ctx, cloud.PollSpec{Pending: []string{"BUILD"}, Target: []string{"ACTIVE"}},
		func(ctx context.Context) (*servers.Server, string, string, error) {
			s, err := servers.Get(ctx, compute, id).Extract()
			if err != nil {
				return nil, "", "", err
			}

			return s, s.Status, s.Fault.Message, nil
		})

	return err
}

// delete deletes, as an admin, the Nova server and then the port (P/provider.go:DeleteServer@v1.19.0;
// no floating IP was made); 404s are done.
func (s UnikornServer) delete(t *testing.T) {
	t.Helper()

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	if s.ServerID != "" {
		if err := deleteServer(ctx, AdminCompute(t, s.Region), s.ServerID); err != nil && !gophercloud.ResponseCodeIs(err, 404) {
			t.Errorf("deleting the Unikorn server %s: %v", s.ServerID, err)
		}
	}

	if s.PortID != "" {
		if err := ports.Delete(ctx, AdminNeutron(t, s.Region), s.PortID).ExtractErr(); err != nil && !gophercloud.ResponseCodeIs(err, 404) {
			t.Errorf("deleting the Unikorn port %s: %v", s.PortID, err)
		}
	}
}

// Unchanged checks, as an admin, that the server is as Unikorn made it: Nova's name, metadata
// (exactly: Unikorn's serverID and regionID values included, nothing added or dropped) and
// key_name, and its port: the name server-<ID>, the device, the address and the security groups.
func (s UnikornServer) Unchanged(t *testing.T) error {
	t.Helper()

	ctx := context.Background()

	var errs []error

	expect := func(what string, got, want any) {
		if fmt.Sprint(got) != fmt.Sprint(want) {
			errs = append(errs, fmt.Errorf("%s is %v, want %v", what, got, want))
		}
	}

	compute := AdminCompute(t, s.Region)
	compute.Microversion = unikornComputeMicroversion

	srv, err := servers.Get(ctx, compute, s.ServerID).Extract()
	if err != nil {
		return fmt.Errorf("the Unikorn server %s: %w", s.ServerID, err)
	}

	expect("Nova's name", srv.Name, s.Name)
	expect("the metadata", srv.Metadata, s.Metadata) // fmt prints maps sorted
	expect("the key_name", srv.KeyName, s.keyName)

	p, err := ports.Get(ctx, AdminNeutron(t, s.Region), s.PortID).Extract()
	if err != nil {
		return fmt.Errorf("the Unikorn port %s: %w", s.PortID, err)
	}

	expect("the port's name", p.Name, unikornServerPortName(s.ID))
	expect("the port's device", p.DeviceID, s.ServerID)
	expect("the port's description", p.Description, "")

	var addresses []string
	for _, ip := range p.FixedIPs {
		addresses = append(addresses, ip.IPAddress)
	}

	expect("the port's addresses", addresses, []string{s.PrivateIP})
	expect("the port's security groups", sorted(p.SecurityGroups), sorted(s.securityGroupIDs))

	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("the Unikorn server %s (%s) changed: %w", s.Name, s.ServerID, err)
	}

	return nil
}

// sorted is a sorted copy of ss.
func sorted(ss []string) []string {
	return slices.Sorted(slices.Values(ss))
}
