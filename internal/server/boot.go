package server

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/servergroups"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/servers"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/network"
)

// bootRequest is the create of a server but for its port: what can fail before anything is
// sent is settled in it.
type bootRequest struct {
	opts       servers.CreateOpts
	keyName    string // "": none
	host       string // "": scheduled anywhere
	hypervisor string // "": scheduled anywhere
	hints      servers.SchedulerHintOptsBuilder
}

// pinned tells whether the boot targets a host or a hypervisor.
func (b bootRequest) pinned() bool { return b.host != "" || b.hypervisor != "" }

// target names the host or hypervisor of a pinned boot, for messages.
func (b bootRequest) target() string {
	if b.hypervisor != "" {
		return "hypervisor " + b.hypervisor
	}

	return "host " + b.host
}

// newBootRequest prepares the boot of spec's server: its metadata (all but the server's own
// ID, which Nova has yet to choose), user data, keypair and server group.
func (s *Service) newBootRequest(ctx context.Context, spec Spec, project projectFacts, linkage Linkage) (bootRequest, error) {
	md, _, err := DesiredMetadata("", linkage, spec.Tags)
	if err != nil {
		return bootRequest{}, err
	}

	// The server carries the creation mark from its first moment: a create killed before its
	// end leaves a server that the next create of this resource adopts, and no other.
	boot := bootRequest{opts: servers.CreateOpts{
		Name:      naming.Server(spec.Name),
		FlavorRef: spec.FlavorID,
		ImageRef:  spec.ImageID,
		Metadata:  withMarks(md, made.Properties()),
	}}

	// Booted from a root volume made from the image: the server itself names no image.
	if boot.opts.BlockDevice = bootDevice(spec); boot.opts.BlockDevice != nil {
		boot.opts.ImageRef = ""
	}

	if len(spec.UserData) > 0 {
		// Encoded here: gophercloud would send data that happens to be valid base64 as is.
		boot.opts.UserData = []byte(base64.StdEncoding.EncodeToString(spec.UserData))
	}

	if s.serviceUser && (spec.SSHKey || spec.ServerGroup) {
		return bootRequest{}, s.madeElsewhereError(spec)
	}

	if spec.SSHKey {
		boot.keyName = naming.KeypairName
	}

	if boot.host, boot.hypervisor = spec.Host, spec.Hypervisor; boot.pinned() && s.pinned == nil {
		return bootRequest{}, fmt.Errorf("server %q is pinned to %s, but no privileged scope is bound to create it", spec.Name, boot.target())
	}

	if spec.ServerGroup {
		group, err := s.serverGroup(ctx, project.name)
		if err != nil {
			return bootRequest{}, err
		}

		boot.hints = servers.SchedulerHintOpts{Group: group}
	}

	return boot, nil
}

// madeElsewhereError is the refusal of spec's keypair or server group in an identity this
// provider did not make (the plan's problems, madeElsewhere, as one error).
func (s *Service) madeElsewhereError(spec Spec) error {
	problems := madeElsewhere(Preflight{SSHKey: spec.SSHKey, ServerGroup: spec.ServerGroup}, s.projectID)
	details := make([]string, len(problems))

	for i, p := range problems {
		details[i] = p.Detail
	}

	return fmt.Errorf("server %q: %s", spec.Name, strings.Join(details, " "))
}

// groups are the server groups the boot puts the server into.
func (b bootRequest) groups() *[]string {
	ids := []string{}
	if hints, ok := b.hints.(servers.SchedulerHintOpts); ok && hints.Group != "" {
		ids = append(ids, hints.Group)
	}

	return &ids
}

// onPort is the create of the server on port portID.
func (b bootRequest) onPort(portID string) servers.CreateOptsBuilder {
	opts := b.opts
	opts.Networks = []servers.Network{{Port: portID}}

	if b.keyName == "" && !b.pinned() {
		return opts
	}

	return bootExtras{CreateOptsBuilder: opts, keyName: b.keyName, host: b.host, hypervisor: b.hypervisor}
}

// createServer boots the server on port through cloud.Create: a lost answer is followed by a
// look for the server by its exact name (and the POST made again when none shows up), and a
// twin of the name made meanwhile by someone else makes this create remove its own server
// again. It returns Nova's first answer (status BUILD) or the server found.
func (s *Service) createServer(ctx context.Context, spec Spec, boot bootRequest, portID string) (*servers.Server, error) {
	name := naming.Server(spec.Name)
	create := boot.onPort(portID)

	s.wrote(name)
	s.tenant.Wrote(network.PortKind, portID) // Nova binds the port to the server

	// A pinned server is made in the privileged scope: Nova's host targeting is admin-only.
	compute := s.compute
	if boot.pinned() {
		compute = s.pinned
	}

	srv, err := cloud.Create(ctx, cloud.CreateSpec[servers.Server]{
		Kind: "server",
		Name: name,
		Create: func(ctx context.Context) (servers.Server, error) {
			made, err := servers.Create(ctx, compute, create, boot.hints).Extract()
			if err != nil && boot.pinned() && s.refusal != nil {
				err = s.refusal("a server create on "+boot.target()+" (policy compute:servers:create:requested_destination)", err)
			}

			if err != nil {
				return servers.Server{}, err
			}

			// The create answer holds little more than the ID. The server is in the server group
			// it was booted into (Nova fails the boot otherwise).
			return servers.Server{ID: made.ID, Name: name, Status: statusBuild, ServerGroups: boot.groups()}, nil
		},
		// The name is listed once more by the polling rounds, which also wait for it to boot.
		Find:   func(ctx context.Context) ([]servers.Server, error) { return s.serversNamedAgain(ctx, name) },
		ID:     func(srv servers.Server) string { return srv.ID },
		Delete: func(ctx context.Context, id string) error { return s.deleteServer(ctx, id, name) },
		// After a lost answer, only a server that a unikorn_server's create began is this one.
		Adopt: func(srv servers.Server) error { return uniqueNames(cloud.Adopt(s.serverExisting(spec.Name, &srv))) },
	})
	s.wrote(srv.ID)

	if err != nil {
		err = fmt.Errorf("creating server %q (flavor %s, image %s) on port %s: %w", spec.Name, spec.FlavorID, spec.ImageID, portID, err)
	}

	if srv.ID == "" {
		return nil, err
	}

	tflog.Info(ctx, "Created the server", map[string]any{"server_id": srv.ID})

	return &srv, err
}

// bootExtras adds to a server create what gophercloud's CreateOpts does not carry: the keypair
// (key_name), the compute host (host) and the hypervisor (hypervisor_hostname), both of
// microversion 2.74, which the scheduler still checks.
type bootExtras struct {
	servers.CreateOptsBuilder

	keyName, host, hypervisor string
}

func (o bootExtras) ToServerCreateMap() (map[string]any, error) {
	b, err := o.CreateOptsBuilder.ToServerCreateMap()
	if err != nil {
		return nil, err
	}

	server, ok := b["server"].(map[string]any)
	if !ok {
		return nil, errors.New("unexpected server create body")
	}

	if o.keyName != "" {
		server["key_name"] = o.keyName
	}

	if o.host != "" {
		server["host"] = o.host
	}

	if o.hypervisor != "" {
		server["hypervisor_hostname"] = o.hypervisor
	}

	return b, nil
}

// serverGroup is the ID of the identity's server group (named like its project).
func (s *Service) serverGroup(ctx context.Context, projectName string) (string, error) {
	pages, err := servergroups.List(s.compute, servergroups.ListOpts{}).AllPages(ctx)
	if err != nil {
		return "", fmt.Errorf("listing server groups: %w", err)
	}

	all, err := servergroups.ExtractServerGroups(pages)
	if err != nil {
		return "", fmt.Errorf("reading server groups: %w", err)
	}

	name := naming.IdentityServerGroup(strings.TrimPrefix(projectName, naming.IdentityPrefix))

	sg, ok, err := naming.One("server group", name, all,
		func(g servergroups.ServerGroup) string { return g.Name }, func(g servergroups.ServerGroup) string { return g.ID })

	switch {
	case err != nil:
		return "", err
	case !ok:
		return "", fmt.Errorf("the identity has no server group %s in region %s: set server_group on its unikorn_identity",
			name, s.region)
	}

	return sg.ID, nil
}
