package identity

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/trusts"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/leftovers"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// Delete removes an identity: tenant objects still in the project (refused unless force),
// then keypair, server group, trust, application credential, user, Neutron's default security
// groups, the project's quota records, and the project. Every 404 is success; a missing user
// does not stop the project from being deleted, nor does a keypair that cannot be deleted (a
// notice says so).
//
// The per-region steps cover every region the identity was applied in (recorded on its project:
// internal/leftovers), also one the provider no longer serves, as long as the Keystone catalog
// has it: a region the catalog lacks is passed over with a notice.
//
// Delete acts on the recorded IDs only: a recorded project or user that is gone is done with,
// never looked for by name (a newer identity may carry the name). The name is used only for an
// object whose ID was never recorded.
func (s *Service) Delete(ctx context.Context, ref Ref, force bool) ([]Notice, error) {
	d := &deletion{svc: s, ref: ref, unreachable: map[string]bool{}}

	return d.notices, d.run(ctx, force)
}

// deletion is one run of Delete.
type deletion struct {
	svc     *Service
	ref     Ref
	notices []Notice
	// regions are where the identity was applied: the served regions and those recorded on
	// its project.
	regions []string
	// unreachable are the regions of regions that the Keystone catalog lacks, told once.
	unreachable map[string]bool
}

// bind binds the identity's project with scope in every region of d.regions that the Keystone
// catalog has; each one it lacks is a notice (once).
func (d *deletion) bind(ctx context.Context, projectID string, scope cloud.Scope) ([]*cloud.Tenant, error) {
	c := d.svc.cloud

	ts, skipped, err := leftovers.Bind(ctx, d.regions, func(ctx context.Context, region string) (*cloud.Tenant, error) {
		return c.BindAnywhere(ctx, projectID, region, scope)
	})
	if err != nil {
		return nil, err
	}

	for _, u := range skipped {
		if d.unreachable[u.Region] {
			continue
		}

		d.unreachable[u.Region] = true
		d.notices = append(d.notices, Notice{
			Summary: "Region not looked into",
			Detail: fmt.Sprintf("The identity (project %s) was applied in region %s, which this provider no longer serves, "+
				"and the Keystone catalog no longer offers it (%s): whatever the project still holds there could not be "+
				"checked or deleted.", projectID, u.Region, u.Err),
		})
	}

	return ts, nil
}

// unlessRecorded is name when no ID was recorded, else "" (no lookup by name).
func unlessRecorded(id, name string) string {
	if id != "" {
		return ""
	}

	return name
}

func (d *deletion) run(ctx context.Context, force bool) error {
	s, ref := d.svc, d.ref
	c := s.cloud

	sc, domainID, err := s.manager(ctx)
	if err != nil {
		return err
	}

	project, err := lookupProject(ctx, sc, domainID, ref.ProjectID, unlessRecorded(ref.ProjectID, ref.Name))
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

	d.regions = leftovers.Regions(c.Regions(), project.Extra)

	roleIDs, err := s.config.roleIDsFor(ctx, sc, serviceUserRoles(ref.Roles))
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

	priv, err := d.bind(ctx, projectID, cloud.Privileged)
	if err != nil {
		return err
	}

	// Tenant objects first (volumes among them: unikorn_volume makes them as the identity's
	// user): refuse, or remove them with force.
	if err := leftovers.Clear(ctx, priv, leftovers.Options{Owner: "identity", Force: force, Volumes: true}); err != nil {
		return err
	}

	user, err := lookupUser(ctx, sc, domainID, ref.UserID, unlessRecorded(ref.UserID, naming.IdentityUser(name)))
	if err != nil {
		return err
	}

	userID := ""
	if user != nil {
		userID = user.ID
	}

	// The identity's own trust: from its user to the service user on its project (DESIGN.md §4).
	var own []trusts.Trust

	if user != nil {
		base, err := c.Base().Keystone()
		if err != nil {
			return err
		}

		if own, err = findTrusts(ctx, base, c.ServiceUserID(), user.ID, projectID); err != nil {
			return err
		}
	}

	if err := d.deleteNova(ctx, priv, projectID, userID, name, len(own) > 0); err != nil {
		return err
	}

	if user != nil {
		creds, err := s.credentials(ctx, projectID)
		if err != nil {
			return err
		}

		if err := s.deleteCredentials(ctx, creds, projectID, user.ID, name, own); err != nil {
			return err
		}

		if err := deleteUser(ctx, sc, user.ID); err != nil {
			return err
		}
	}

	// Stock policy lets only admin remove a project's default security group and reset its quotas.
	admin, err := d.bind(ctx, projectID, cloud.Admin)
	if err != nil {
		return err
	}

	if err := leftovers.Forget(ctx, admin); err != nil {
		return err
	}

	c.ForgetProject(projectID)

	if err := deleteProject(ctx, sc, projectID); err != nil {
		return err
	}

	tflog.Info(ctx, "Deleted the identity")

	return nil
}

// deleteNova removes the keypair and server group of every region of priv: through the
// identity's own trust (ownTrust) when it still works, otherwise in the privileged scope priv
// (the keypair then by the user's ID, which needs an admin role, and not at all without a
// user, or when the state says none was made). A keypair that cannot be deleted is a notice,
// never a destroy that fails forever.
func (d *deletion) deleteNova(ctx context.Context, priv []*cloud.Tenant, projectID, userID, name string, ownTrust bool) error {
	s := d.svc
	ts, asIdentity := priv, false

	if ownTrust {
		if asUser, err := d.bind(ctx, projectID, cloud.AsIdentity); err == nil {
			ts, asIdentity = asUser, true
		} else {
			tflog.Debug(ctx, "No identity scope for deleting the keypair and server group; using the privileged scope",
				map[string]any{"error": err.Error()})
		}
	}

	for _, t := range ts {
		compute, err := t.Compute()
		if err != nil {
			return err
		}

		switch {
		case asIdentity:
			err = deleteKeypair(ctx, compute, naming.KeypairName, "")
		case userID != "" && d.ref.CheckNova:
			// Another user's keypair: an admin call (the server group below belongs to the
			// project, which the privileged scope may delete).
			if kerr := s.deleteKeypairAsAdmin(ctx, t, userID); kerr != nil {
				d.notices = append(d.notices, Notice{
					Summary: "Keypair left behind",
					Detail: fmt.Sprintf("The keypair %q of user %s in region %s could not be deleted without the identity's "+
						"trust: %s. Nova keeps it after the user is gone; delete it as an admin "+
						"(openstack keypair delete --user %s %s) if it matters.", naming.KeypairName, userID, t.Region(), kerr,
						userID, naming.KeypairName),
				})
			}
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

// deleteCredentials deletes the identity's trusts (own: from its user to the service user on
// its project) and the application credentials of its user.
func (s *Service) deleteCredentials(ctx context.Context, sc *gophercloud.ServiceClient, projectID, userID, name string,
	own []trusts.Trust,
) error {
	c := s.cloud

	for _, t := range own {
		err := deleteTrust(ctx, sc, t.ID)
		c.ForgetProject(projectID) // later scopes must not use the trust

		if err != nil {
			return err
		}
	}

	acs, err := identityCredentials(ctx, sc, userID, name)
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
