package identity

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/keypairs"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/servergroups"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/servers"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// Nova steps of one region. The compute client is normally the identity scope's, so that what
// is made belongs to the identity's user.

// findServerGroup finds the project's server group of exactly that name; nil if none.
func findServerGroup(ctx context.Context, sc *gophercloud.ServiceClient, name string) (*servergroups.ServerGroup, error) {
	all, err := listServerGroups(ctx, sc, name)
	if err != nil {
		return nil, err
	}

	sg, ok, err := naming.One("server group", name, all,
		func(g servergroups.ServerGroup) string { return g.Name }, func(g servergroups.ServerGroup) string { return g.ID })
	if err != nil || !ok {
		return nil, err
	}

	return &sg, nil
}

// listServerGroups lists the project's server groups named exactly name.
func listServerGroups(ctx context.Context, sc *gophercloud.ServiceClient, name string) ([]servergroups.ServerGroup, error) {
	all, err := cloud.ListAll(ctx, servergroups.List(sc, servergroups.ListOpts{}), servergroups.ExtractServerGroups, "server groups")
	if err != nil {
		return nil, err
	}

	return naming.Exact(all, name, func(g servergroups.ServerGroup) string { return g.Name }), nil
}

// serverGroupPolicy is the policy of a group, whatever the microversion that answered.
func serverGroupPolicy(g servergroups.ServerGroup) string {
	if g.Policy != nil && *g.Policy != "" {
		return *g.Policy
	}

	if len(g.Policies) > 0 {
		return g.Policies[0]
	}

	return ""
}

// checkServerGroup refuses, with a *GroupInUseError, to replace or drop existing (the group
// found, or nil) when it holds servers and does not have policy ("": no group wanted).
func checkServerGroup(ctx context.Context, sc *gophercloud.ServiceClient, existing *servergroups.ServerGroup, policy string) error {
	if existing == nil || len(existing.Members) == 0 || (policy != "" && serverGroupPolicy(*existing) == policy) {
		return nil
	}

	return groupInUse(ctx, sc, *existing, policy)
}

// convergeServerGroup keeps existing (the group found, or nil, once it passed checkServerGroup)
// if it has the policy, replaces it if not, makes the group if missing, and deletes it when
// policy is "" (no group wanted). It returns the group's ID, and whether it was there already.
func convergeServerGroup(ctx context.Context, sc *gophercloud.ServiceClient, name, policy string, existing *servergroups.ServerGroup,
) (string, bool, error) {
	if existing != nil {
		if policy != "" && serverGroupPolicy(*existing) == policy {
			return existing.ID, true, nil
		}

		if err := deleteServerGroup(ctx, sc, existing.ID); err != nil {
			return "", false, err
		}

		tflog.Info(ctx, "Deleted the identity's server group", map[string]any{
			"server_group_id": existing.ID, "old_policy": serverGroupPolicy(*existing), "policy": policy,
		})
	}

	if policy == "" {
		return "", false, nil
	}

	// Nova allows two groups of one name: a twin made meanwhile is removed again.
	sg, err := cloud.Create(ctx, cloud.CreateSpec[*servergroups.ServerGroup]{
		Kind: "server group", Name: name,
		Create: func(ctx context.Context) (*servergroups.ServerGroup, error) {
			return servergroups.Create(ctx, sc, servergroups.CreateOpts{Name: name, Policy: policy}).Extract()
		},
		Find: func(ctx context.Context) ([]*servergroups.ServerGroup, error) {
			all, err := listServerGroups(ctx, sc, name)

			return pointers(all), err
		},
		ID:     func(g *servergroups.ServerGroup) string { return g.ID },
		Delete: func(ctx context.Context, id string) error { return deleteServerGroup(ctx, sc, id) },
	})
	if err != nil {
		return "", false, fmt.Errorf("creating server group %q with policy %s: %w", name, policy, err)
	}

	tflog.Info(ctx, "Created the identity's server group", map[string]any{"server_group_id": sg.ID, "policy": policy})

	return sg.ID, false, nil
}

// GroupInUseError refuses to change the policy of a server group that holds servers (or to
// drop the group): Nova cannot change a policy, and deleting the group under its servers would
// leave each out of any group, to be replaced by the next plan.
type GroupInUseError struct {
	Region         string // "" when not known
	GroupID, Name  string
	Policy, Wanted string // Wanted is "" when the group is to be dropped
	// Servers names the servers in the group: `name (ID)`, or the ID of one that could not be
	// read.
	Servers []string
}

func (e *GroupInUseError) Error() string {
	where := ""
	if e.Region != "" {
		where = " in region " + e.Region
	}

	change, after := fmt.Sprintf("changing its policy to %s", e.Wanted), "change the policy: an empty group is made again with it"
	if e.Wanted == "" {
		change, after = "dropping it", "drop the group"
	}

	return fmt.Sprintf("the server group %q (%s, policy %s)%s holds %d server(s): %s. Nova cannot change a group's policy, "+
		"so %s would delete the group under them, and each would then be replaced. Replace or move them first (destroy "+
		"them, or set server_group = false on them, which replaces them outside the group), then %s",
		e.Name, e.GroupID, e.Policy, where, len(e.Servers), strings.Join(e.Servers, ", "), change, after)
}

// groupInUse is the *GroupInUseError of group g, whose servers it names from one listing of
// the project's servers (their IDs alone when the listing fails).
func groupInUse(ctx context.Context, sc *gophercloud.ServiceClient, g servergroups.ServerGroup, wanted string) error {
	names := map[string]string{}

	all, err := cloud.ListAll(ctx, servers.List(sc, servers.ListOpts{}), servers.ExtractServers, "servers")
	if err != nil {
		tflog.Debug(ctx, "Could not list the servers to name those of the server group", map[string]any{"error": err.Error()})
	}

	for _, srv := range all {
		names[srv.ID] = srv.Name
	}

	members := make([]string, len(g.Members))
	for i, id := range g.Members {
		members[i] = id
		if n := names[id]; n != "" {
			members[i] = fmt.Sprintf("%s (%s)", n, id)
		}
	}

	slices.Sort(members)

	return &GroupInUseError{GroupID: g.ID, Name: g.Name, Policy: serverGroupPolicy(g), Wanted: wanted, Servers: members}
}

// deleteServerGroups deletes every server group of the project named exactly name.
func deleteServerGroups(ctx context.Context, sc *gophercloud.ServiceClient, name string) error {
	all, err := listServerGroups(ctx, sc, name)
	if err != nil {
		return err
	}

	for _, g := range all {
		if err := deleteServerGroup(ctx, sc, g.ID); err != nil {
			return err
		}
	}

	return nil
}

func deleteServerGroup(ctx context.Context, sc *gophercloud.ServiceClient, id string) error {
	return cloud.Gone(servergroups.Delete(ctx, sc, id).ExtractErr(), "deleting server group %s", id)
}

// getKeypair reads the calling user's keypair; nil if it does not exist.
func getKeypair(ctx context.Context, sc *gophercloud.ServiceClient, name string) (*keypairs.KeyPair, error) {
	kp, err := keypairs.Get(ctx, sc, name, nil).Extract()

	return present(kp, err, "reading keypair %q", name)
}

// ensureKeypair makes the calling user's keypair hold publicKey: kept when it does, replaced
// when it holds another key, deleted when publicKey is "". It reports whether a keypair with
// the key was there already.
func ensureKeypair(ctx context.Context, sc *gophercloud.ServiceClient, name, publicKey string) (bool, error) {
	existing, err := getKeypair(ctx, sc, name)
	if err != nil {
		return false, err
	}

	if existing != nil {
		if publicKey != "" && sameKey(existing.PublicKey, publicKey) {
			return true, nil
		}

		if err := deleteKeypair(ctx, sc, name, ""); err != nil {
			return false, err
		}
	}

	if publicKey == "" {
		return false, nil
	}

	// Nova keeps keypair names unique per user: no twin can be made.
	kp, err := cloud.Create(ctx, cloud.CreateSpec[*keypairs.KeyPair]{
		Kind: "keypair", Name: name,
		Create: func(ctx context.Context) (*keypairs.KeyPair, error) {
			return keypairs.Create(ctx, sc, keypairs.CreateOpts{Name: name, PublicKey: strings.TrimSpace(publicKey)}).Extract()
		},
		Find: func(ctx context.Context) ([]*keypairs.KeyPair, error) {
			return cloud.Optional(getKeypair(ctx, sc, name))
		},
		ID: func(kp *keypairs.KeyPair) string { return kp.Name },
	})
	if err != nil {
		return false, fmt.Errorf("importing keypair %q: %w", name, err)
	}

	tflog.Info(ctx, "Imported the identity's keypair", map[string]any{"keypair": kp.Name, "fingerprint": kp.Fingerprint})

	return false, nil
}

// deleteKeypair deletes a keypair of the calling user, or of userID (admin only) when given.
func deleteKeypair(ctx context.Context, sc *gophercloud.ServiceClient, name, userID string) error {
	var opts keypairs.DeleteOptsBuilder
	if userID != "" {
		opts = keypairs.DeleteOpts{UserID: userID}
	}

	return cloud.Gone(keypairs.Delete(ctx, sc, name, opts).ExtractErr(), "deleting keypair %q", name)
}

// ServerGroupsInUse checks, before a plan changes the policy of the identity projectID's server
// group to wanted ("" when the group is dropped), the groups the state records (groupIDs: region
// → ID) in the privileged scope: a group that holds servers is a *GroupInUseError. It costs one
// read of the group per served region, and one listing of the servers of a region whose group
// holds any; a group that is gone is no obstacle.
func (s *Service) ServerGroupsInUse(ctx context.Context, projectID string, groupIDs map[string]string, wanted string) error {
	for _, region := range s.cloud.Regions() {
		id := groupIDs[region]
		if id == "" {
			continue
		}

		t, err := s.cloud.Tenant(ctx, projectID, region, cloud.Privileged)
		if err != nil {
			return err
		}

		compute, err := t.Compute()
		if err != nil {
			return err
		}

		g, err := servergroups.Get(ctx, compute, id).Extract()
		if g, err = present(g, err, "reading server group %s in region %s", id, region); err != nil {
			return err
		}

		if g == nil {
			continue // gone: nothing is grouped in it
		}

		if err := checkServerGroup(ctx, compute, g, wanted); err != nil {
			var inUse *GroupInUseError
			if errors.As(err, &inUse) {
				inUse.Region = region
			}

			return err
		}
	}

	return nil
}
