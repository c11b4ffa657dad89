package server

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/keypairs"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/servergroups"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/projects"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/security/groups"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/networks"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/flavor"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/image"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// Preflight is what the checks of a server look at before anything is made. An empty value is
// not checked: it is unknown yet (the adapter checks again once the apply knows it, before the
// port is made) or unchanged since the server was made.
type Preflight struct {
	// IdentityID and Region are the tenant; without the identity, nothing inside it is checked.
	IdentityID string
	Region     string
	FlavorID   string
	ImageID    string
	// Root is where the root disk is (the flavor's, or a root volume), for the flavor and image.
	Root      RootDisk
	NetworkID string
	// SecurityGroupIDs are the groups to check (those new to the port).
	SecurityGroupIDs []string
	// ServerGroup and SSHKey ask that the identity has its server group and its keypair.
	ServerGroup bool
	SSHKey      bool
	// Host is the compute host, Hypervisor the hypervisor (hypervisor_hostname) a new server is
	// pinned to, checked against Placement with the flavor. HostSet tells whether either is set
	// at all (known or not): a flavor described as pinned_only requires one.
	Host       string
	Hypervisor string
	HostSet    bool
}

// Checker checks servers' input against the cloud through the run's caches: the flavor and
// image listings the data sources share (flavor.Cache.Lookup, image.Cache.Lookup), and the
// run's memo of the other reads (CheckCache), so that a run reads each object once however
// many servers name it.
type Checker struct {
	Cloud   *cloud.Client
	Flavors *flavor.Cache
	Images  *image.Cache
	Reads   *CheckCache
}

// Check returns what is wrong with p (nil when nothing is); an error when the cloud could not
// say. Without a region (unknown yet) nothing is checked.
func (c Checker) Check(ctx context.Context, p Preflight) ([]Problem, error) {
	if p.Region == "" {
		return nil, nil
	}

	region, err := c.Cloud.ResolveRegion(p.Region)
	if err != nil {
		return nil, err
	}

	out, err := c.checkBoot(ctx, region, p)
	if err != nil || p.IdentityID == "" {
		return out, err
	}

	if p.NetworkID != "" || len(p.SecurityGroupIDs) > 0 || p.ServerGroup || p.SSHKey {
		more, err := c.checkTenant(ctx, region, p)
		if err != nil {
			return nil, err
		}

		out = append(out, more...)
	}

	if (p.Host == "" && p.Hypervisor == "") || p.FlavorID == "" || len(out) > 0 {
		return out, nil
	}

	more, err := c.checkHost(ctx, region, p)

	return append(out, more...), err
}

// checkHost runs the Placement preflight of a pinned server (HostCheck: Check for a host,
// CheckHypervisor for a hypervisor), in the admin scope, never memoized: what is free changes as
// servers are made.
func (c Checker) checkHost(ctx context.Context, region string, p Preflight) ([]Problem, error) {
	admin, err := c.Cloud.Tenant(ctx, p.IdentityID, region, cloud.Admin)
	if err != nil {
		return nil, err
	}

	h, err := NewHostCheck(admin)
	if err != nil {
		return nil, err
	}

	attribute, what, target := "host", "Host", "the compute host "+p.Host
	if p.Hypervisor != "" {
		attribute, what, target = "hypervisor_hostname", "Hypervisor", "the hypervisor "+p.Hypervisor
		err = h.CheckHypervisor(ctx, p.Hypervisor, p.FlavorID)
	} else {
		err = h.Check(ctx, p.Host, p.FlavorID)
	}

	var he *HostError

	switch {
	case errors.As(err, &he) && len(he.Short) > 0:
		return []Problem{{Attribute: attribute, Summary: what + " has no room for the flavor", Detail: he.Error() + "."}}, nil
	case errors.As(err, &he):
		return []Problem{{Attribute: attribute, Summary: "Unknown " + strings.ToLower(what), Detail: he.Error() + "."}}, nil
	case err != nil:
		return nil, admin.AdminRefusal("Nova or Placement", "reading "+target, err)
	}

	return nil, nil
}

// checkBoot checks that the flavor and the image exist and make a server together, and that a
// flavor described as pinned_only gets a host.
func (c Checker) checkBoot(ctx context.Context, region string, p Preflight) ([]Problem, error) {
	flavorID, imageID := p.FlavorID, p.ImageID

	var out []Problem

	base := c.Cloud.Base()

	f, fOK, err := catalogLookup(ctx, catalogEntry{"flavor", "flavor_id", "Nova", base.Compute}, region, flavorID, c.Flavors.Lookup, &out)
	if err != nil {
		return nil, err
	}

	img, iOK, err := catalogLookup(ctx, catalogEntry{"image", "image_id", "Glance", base.Image}, region, imageID, c.Images.Lookup, &out)
	if err != nil {
		return nil, err
	}

	if fOK && iOK {
		out = append(out, Compatibility(f, img, p.Root)...)
	}

	if fOK && f.PinnedOnly && !p.HostSet {
		out = append(out, Problem{Attribute: "host", Summary: "Flavor requires a host", Detail: fmt.Sprintf(
			"The flavor %s (%s) is for pinned servers only (pinned_only in the provider's flavors): set "+
				"hypervisor_hostname to the hypervisor (compute node) the server runs on, or host to its compute host.", f.Name, f.ID)})
	}

	return out, nil
}

// catalogEntry is a kind of catalog object a server boots from (a flavor, an image): the
// attribute that names it, and its service's client in the configured scope.
type catalogEntry struct {
	kind, attribute, service string
	client                   func(region string) (*gophercloud.ServiceClient, error)
}

// catalogLookup looks id (of kind e) up in region with the run's cache lookup; nothing is
// looked up for "". An id the service does not have adds its problem to out.
func catalogLookup[T any](ctx context.Context, e catalogEntry, region, id string,
	lookup func(ctx context.Context, region, id string, sc *gophercloud.ServiceClient) (T, bool, error), out *[]Problem,
) (T, bool, error) {
	var zero T

	if id == "" {
		return zero, false, nil
	}

	sc, err := e.client(region)
	if err != nil {
		return zero, false, err
	}

	v, ok, err := lookup(ctx, region, id, sc)
	if err != nil {
		return zero, false, fmt.Errorf("looking up %s %s: %w", e.kind, id, err)
	}

	if !ok {
		*out = append(*out, Problem{Attribute: e.attribute, Summary: "Unknown " + e.kind,
			Detail: fmt.Sprintf("%s has no %s %s in region %s.", e.service, e.kind, id, region)})
	}

	return v, ok, nil
}

// checkTenant checks what lives in the identity's project: the network and security groups
// belong to it (in this region), and the server group and keypair asked for exist.
func (c Checker) checkTenant(ctx context.Context, region string, p Preflight) ([]Problem, error) {
	priv, err := c.Cloud.Tenant(ctx, p.IdentityID, region, cloud.Privileged)
	if err != nil {
		return nil, err
	}

	// Whose a network or group is only an admin token can see (to tell "another identity's"
	// from "not found"): read them in the admin scope.
	admin, err := c.Cloud.Tenant(ctx, p.IdentityID, region, cloud.Admin)
	if err != nil {
		return nil, err
	}

	var out []Problem

	if p.NetworkID != "" {
		r, err := c.lookup(ctx, admin, admin.Network, "network", p.NetworkID, readNetwork)
		if err != nil {
			return nil, err
		}

		out = appendProblem(out, owned("network_id", "Network", p.NetworkID, r, priv))
	}

	for _, id := range p.SecurityGroupIDs {
		r, err := c.lookup(ctx, admin, admin.Network, "security group", id, readSecurityGroup)
		if err != nil {
			return nil, err
		}

		out = appendProblem(out, owned("security_group_ids", "Security group", id, r, priv))
	}

	// In an identity this provider did not make, the provider acts as the service user, never as
	// the identity's user: what only that user has is refused, with why and the way out.
	if p.ServerGroup || p.SSHKey {
		as, err := c.Cloud.Tenant(ctx, p.IdentityID, region, cloud.AsIdentity)
		if err != nil {
			return nil, err
		}

		if as.AsServiceUser() {
			return append(out, madeElsewhere(p, as.ProjectID())...), nil
		}
	}

	if p.ServerGroup {
		// The identity's server group is named like its project: unikorn-identity-<name>.
		project, err := c.lookup(ctx, priv, priv.Keystone, "project", priv.ProjectID(), readProject)
		if err != nil {
			return nil, err
		}

		group, err := c.lookup(ctx, priv, priv.Compute, "server group", project.name, readServerGroup)
		if err != nil {
			return nil, err
		}

		out = appendProblem(out, missing(group, "server_group", "server_group", "server group", project.name, priv))
	}

	if p.SSHKey {
		// Keypairs belong to a user: read as the identity's user, through its trust, as the create will.
		as, err := c.Cloud.Tenant(ctx, p.IdentityID, region, cloud.AsIdentity)
		if err != nil {
			return nil, err
		}

		kp, err := c.lookup(ctx, as, as.Compute, "keypair", naming.KeypairName, readKeypair)
		if err != nil {
			return nil, err
		}

		out = appendProblem(out, missing(kp, "ssh_key", "ssh_public_key", "keypair", naming.KeypairName, priv))
	}

	return out, nil
}

// madeElsewhere are the problems of a new server in identity projectID, which this provider did
// not make (Unikorn's, say: no creation mark and no Keystone trust to the service user), asking
// for what only the identity's own user has: its keypair (ssh_key) and its server group.
func madeElsewhere(p Preflight, projectID string) []Problem {
	const why = "Identity %s was not made by this provider (Unikorn's region service or someone else made it, and it has " +
		"no Keystone trust to the service user), so the provider acts in it as the service user and never logs in as " +
		"the identity's own user (Unikorn logs in with the password it stored)."

	var out []Problem

	if p.SSHKey {
		out = append(out, Problem{Attribute: "ssh_key", Summary: "ssh_key in an identity this provider did not make", Detail: fmt.Sprintf(why+
			" The keypair %s belongs to the identity's user, and Nova injects only a keypair of the user who makes or "+
			"rebuilds the server. Install the key with user_data (cloud-init's ssh_authorized_keys) instead.", projectID, naming.KeypairName)})
	}

	if p.ServerGroup {
		out = append(out, Problem{Attribute: "server_group", Summary: "server_group in an identity this provider did not make",
			Detail: fmt.Sprintf(why+" Its server group belongs to whoever made the identity (Unikorn's servers have not used "+
				"it since v1.10), and this provider puts no server into a server group it did not make. Leave server_group "+
				"unset.", projectID)})
	}

	return out
}

// missing is the problem of a server asking (at attribute) for the identity's kind name, which
// the identity does not have (it makes one with its setting); nil when it has.
func missing(r found, attribute, setting, kind, name string, t *cloud.Tenant) *Problem {
	if r.ok {
		return nil
	}

	return &Problem{Attribute: attribute, Summary: "Identity has no " + kind, Detail: fmt.Sprintf(
		"Identity %s has no %s %s in region %s: set %s on its unikorn_identity "+
			"(and apply that first, when it is added in the same change), or leave %s unset.",
		t.ProjectID(), kind, name, t.Region(), setting, attribute)}
}

func appendProblem(out []Problem, p *Problem) []Problem {
	if p == nil {
		return out
	}

	return append(out, *p)
}

// found is what a check read of one object: whether it exists, and its owner, sharing and name.
type found struct {
	ok        bool
	projectID string
	shared    bool
	name      string
}

// memoKey is one read of a check: of one tenant and object.
type memoKey struct {
	region, project, kind, id string
}

// CheckCache is the memo of the server checks' reads during one provider run (a 404 is kept
// too): the client bundle holds one, shared by every server of the run. Its zero value is
// ready to use.
type CheckCache struct {
	reads cloud.OnceCache[memoKey, found]
}

// reader reads one object with a service client.
type reader func(ctx context.Context, sc *gophercloud.ServiceClient, id string) (found, error)

// lookup reads kind id with read, on the tenant's client of that service, once per run.
func (c Checker) lookup(ctx context.Context, t *cloud.Tenant, client func() (*gophercloud.ServiceClient, error),
	kind, id string, read reader,
) (found, error) {
	return c.Reads.reads.Get(ctx, memoKey{region: t.Region(), project: t.ProjectID(), kind: kind, id: id},
		func(ctx context.Context) (found, error) {
			sc, err := client()
			if err != nil {
				return found{}, err
			}

			return read(ctx, sc, id)
		})
}

// owned is the problem of an object the server names that is not the identity's in its
// region: Neutron of the tenant's region does not know it (it is another region's, or there is
// none), or it belongs to another project. A shared network (a provider network) is anyone's.
func owned(attribute, what, id string, r found, t *cloud.Tenant) *Problem {
	switch {
	case !r.ok:
		return &Problem{Attribute: attribute, Summary: what + " not found", Detail: fmt.Sprintf(
			"%s %s is not in region %s, the server's: a server uses only what is in its own identity and region.",
			what, id, t.Region())}
	case r.projectID != t.ProjectID() && !r.shared:
		return &Problem{Attribute: attribute, Summary: what + " of another identity", Detail: fmt.Sprintf(
			"%s %s (%s) belongs to project %s, not to identity %s: a server uses only what is in its own identity.",
			what, id, r.name, r.projectID, t.ProjectID())}
	}

	return nil
}

// notFound is nil for a 404 (the object is not there, which the check reports) and err
// otherwise.
func notFound(err error) error {
	if gophercloud.ResponseCodeIs(err, http.StatusNotFound) {
		return nil
	}

	return err
}

// readNetwork reads network id from Neutron.
func readNetwork(ctx context.Context, sc *gophercloud.ServiceClient, id string) (found, error) {
	n, err := networks.Get(ctx, sc, id).Extract()
	if err != nil {
		return found{}, wrap(notFound(err), "reading network %s", id)
	}

	return found{ok: true, projectID: cmp.Or(n.ProjectID, n.TenantID), shared: n.Shared, name: n.Name}, nil
}

// readSecurityGroup reads security group id from Neutron.
func readSecurityGroup(ctx context.Context, sc *gophercloud.ServiceClient, id string) (found, error) {
	g, err := groups.Get(ctx, sc, id).Extract()
	if err != nil {
		return found{}, wrap(notFound(err), "reading security group %s", id)
	}

	return found{ok: true, projectID: cmp.Or(g.ProjectID, g.TenantID), name: g.Name}, nil
}

// readProject reads the identity's Keystone project (for its name).
func readProject(ctx context.Context, sc *gophercloud.ServiceClient, id string) (found, error) {
	p, err := projects.Get(ctx, sc, id).Extract()
	if err != nil {
		return found{}, fmt.Errorf("reading the identity's project %s: %w", id, err)
	}

	return found{ok: true, projectID: p.ID, name: p.Name}, nil
}

// readServerGroup looks up the project's one server group named exactly name.
func readServerGroup(ctx context.Context, sc *gophercloud.ServiceClient, name string) (found, error) {
	pages, err := servergroups.List(sc, servergroups.ListOpts{}).AllPages(ctx)
	if err != nil {
		return found{}, fmt.Errorf("listing server groups: %w", err)
	}

	all, err := servergroups.ExtractServerGroups(pages)
	if err != nil {
		return found{}, fmt.Errorf("reading server groups: %w", err)
	}

	g, ok, err := naming.One("server group", name, all,
		func(g servergroups.ServerGroup) string { return g.Name }, func(g servergroups.ServerGroup) string { return g.ID })
	if err != nil || !ok {
		return found{}, err
	}

	return found{ok: true, projectID: g.ProjectID, name: g.Name}, nil
}

// readKeypair reads the calling user's keypair name.
func readKeypair(ctx context.Context, sc *gophercloud.ServiceClient, name string) (found, error) {
	kp, err := keypairs.Get(ctx, sc, name, nil).Extract()
	if err != nil {
		return found{}, wrap(notFound(err), "reading keypair %s", name)
	}

	return found{ok: true, name: kp.Name}, nil
}

// wrap adds what was being done to err (nil stays nil).
func wrap(err error, format string, args ...any) error {
	if err == nil {
		return nil
	}

	return fmt.Errorf(format+": %w", append(args, err)...)
}
