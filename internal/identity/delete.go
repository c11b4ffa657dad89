package identity

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// Delete removes an identity: tenant objects still in the project (refused unless force),
// then keypair, server group, trust, application credential, user, Neutron's default security
// groups, the project's quota records, and the project. Every 404 is success; a missing user
// does not stop the project from being deleted.
func (s *Service) Delete(ctx context.Context, ref Ref, force bool) error {
	c := s.cloud

	sc, domainID, err := s.manager(ctx)
	if err != nil {
		return err
	}

	project, err := lookupProject(ctx, sc, domainID, ref.ProjectID, ref.Name)
	if err != nil {
		return err
	}

	if project == nil {
		tflog.Info(ctx, "The identity's project is already gone", map[string]any{"project_id": ref.ProjectID})
		return nil
	}

	projectID := project.ID
	name := strings.TrimPrefix(project.Name, naming.IdentityPrefix)
	ctx = tflog.SetField(ctx, "project_id", projectID)

	roleIDs, err := s.config.roleIDsFor(ctx, sc, withManager(ref.Roles))
	if err != nil {
		return err
	}

	ids := make([]string, 0, len(roleIDs))
	for _, id := range roleIDs {
		ids = append(ids, id)
	}

	slices.Sort(ids)

	if err := grantRoles(ctx, sc, c.ServiceUserID(), projectID, ids); err != nil {
		return fmt.Errorf("granting the service user its roles on project %s: %w", projectID, err)
	}

	priv, err := s.tenants(ctx, projectID, cloud.Privileged)
	if err != nil {
		return err
	}

	// Tenant objects first: refuse, or remove them with force.
	if err := s.clearTenantObjects(ctx, priv, force); err != nil {
		return err
	}

	user, err := lookupUser(ctx, sc, domainID, ref.UserID, naming.IdentityUser(name))
	if err != nil {
		return err
	}

	userID := ""
	if user != nil {
		userID = user.ID
	}

	if err := s.deleteNova(ctx, priv, projectID, userID, name); err != nil {
		return err
	}

	if user != nil {
		if err := s.deleteCredentials(ctx, sc, projectID, user.ID, name); err != nil {
			return err
		}

		if err := deleteUser(ctx, sc, user.ID); err != nil {
			return err
		}
	}

	// Stock policy lets only admin remove a project's default security group.
	admin, err := s.tenants(ctx, projectID, cloud.Admin)
	if err != nil {
		return err
	}

	for _, t := range admin {
		network, err := t.Network()
		if err != nil {
			return err
		}

		if err := deleteDefaultSecurityGroups(ctx, network, projectID); err != nil {
			return fmt.Errorf("region %s: %w", t.Region(),
				c.AdminRefusal("Neutron", "deleting the default security group of project "+projectID, err))
		}
	}

	if err := s.resetQuotas(ctx, projectID); err != nil {
		return err
	}

	c.ForgetProject(projectID)

	if err := deleteProject(ctx, sc, projectID); err != nil {
		return err
	}

	tflog.Info(ctx, "Deleted the identity")

	return nil
}

// deleteNova removes the keypair and server group of every served region: through the trust
// when it still works, otherwise in the privileged scope priv (the keypair then by the user's
// ID, which needs an admin role, and not at all without a user).
func (s *Service) deleteNova(ctx context.Context, priv []*cloud.Tenant, projectID, userID, name string) error {
	ts, asIdentity := priv, false

	if asUser, err := s.tenants(ctx, projectID, cloud.AsIdentity); err == nil {
		ts, asIdentity = asUser, true
	} else {
		tflog.Debug(ctx, "No identity scope for deleting the keypair and server group; using the privileged scope",
			map[string]any{"error": err.Error()})
	}

	for _, t := range ts {
		compute, err := t.Compute()
		if err != nil {
			return err
		}

		switch {
		case asIdentity:
			err = deleteKeypair(ctx, compute, naming.KeypairName, "")
		case userID != "":
			// Another user's keypair: an admin call (the server group below belongs to the
			// project, which the privileged scope may delete).
			err = s.deleteKeypairAsAdmin(ctx, t, userID)
		}

		if err != nil {
			return fmt.Errorf("region %s: %w", t.Region(), err)
		}

		if err := deleteServerGroups(ctx, compute, naming.IdentityServerGroup(name)); err != nil {
			return fmt.Errorf("region %s: %w", t.Region(), err)
		}
	}

	return nil
}

// deleteKeypairAsAdmin deletes the identity user's keypair in t's region in the admin scope.
func (s *Service) deleteKeypairAsAdmin(ctx context.Context, t *cloud.Tenant, userID string) error {
	admin, err := t.As(ctx, cloud.Admin)
	if err != nil {
		return err
	}

	compute, err := admin.Compute()
	if err != nil {
		return err
	}

	return s.cloud.AdminRefusal("Nova", "deleting the keypair of user "+userID,
		deleteKeypair(ctx, compute, naming.KeypairName, userID))
}

// deleteCredentials deletes the trusts and application credentials of the identity's user.
func (s *Service) deleteCredentials(ctx context.Context, sc *gophercloud.ServiceClient, projectID, userID, name string) error {
	c := s.cloud

	base, err := c.Base().Keystone()
	if err != nil {
		return err
	}

	trusts, err := findTrusts(ctx, base, c.ServiceUserID(), userID, projectID)
	if err != nil {
		return err
	}

	for _, t := range trusts {
		err := deleteTrust(ctx, sc, t.ID)
		c.ForgetProject(projectID) // later scopes must not use the trust

		if err != nil {
			return err
		}
	}

	acs, err := findApplicationCredentials(ctx, sc, userID, naming.IdentityApplicationCredential(name))
	if err != nil {
		return err
	}

	for _, ac := range acs {
		if err := deleteApplicationCredential(ctx, sc, userID, ac.ID); err != nil {
			return err
		}
	}

	return nil
}
