package identity

import (
	"context"
	"fmt"
	"strings"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/keypairs"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/servergroups"
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

// ensureServerGroup keeps the group if it has the policy, replaces it if not, makes it if
// missing, and deletes it when policy is "" (no group wanted). It returns the group's ID, and
// whether it was there already.
func ensureServerGroup(ctx context.Context, sc *gophercloud.ServiceClient, name, policy string) (string, bool, error) {
	existing, err := findServerGroup(ctx, sc, name)
	if err != nil {
		return "", false, err
	}

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
