package project

import (
	"context"
	"slices"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/groups"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/projects"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/domain"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/leftovers"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// Delete removes the project: it refuses while the project holds servers, load balancers,
// floating IPs, routers, ports, networks, security groups or volumes in any region it was
// applied in (a *leftovers.Error) unless force, which deletes them first; then Neutron's default
// security groups, the quota records, the recorded group and the project. A project already gone
// is done. Delete acts on the recorded IDs only.
//
// The regions are the served ones and those recorded on the project (leftovers.Regions), also
// one the provider no longer serves, as long as the Keystone catalog has it (a region it lacks
// is passed over with a warning in the log).
//
// The project gets the provider's mark and the service user its grants first when they are
// missing (a project imported, or whose first apply died early), so that it can be looked into.
func (s *Service) Delete(ctx context.Context, ref Ref, force bool) error {
	p, err := s.getProject(ctx, ref.ProjectID)
	if err != nil || p == nil {
		return err
	}

	ctx = tflog.SetField(ctx, "project_id", p.ID)

	if err := s.prepareDelete(ctx, p); err != nil {
		return err
	}

	regions := leftovers.Regions(s.cloud.Regions(), p.Extra)

	priv, err := s.tenantsIn(ctx, p.ID, regions, cloud.Privileged)
	if err != nil {
		return err
	}

	if err := leftovers.Clear(ctx, priv, leftovers.Options{Owner: "project", Force: force, Volumes: true}); err != nil {
		return err
	}

	admin, err := s.tenantsIn(ctx, p.ID, regions, cloud.Admin)
	if err != nil {
		return err
	}

	if err := leftovers.Forget(ctx, admin); err != nil {
		return err
	}

	if ref.GroupID != "" {
		if err := groups.Delete(ctx, s.Keystone, ref.GroupID).ExtractErr(); err != nil && !domain.NotFound(err) {
			return s.Refused("deleting group "+ref.GroupID, err)
		}
	}

	s.cloud.ForgetProject(p.ID)

	if err := projects.Delete(ctx, s.Keystone, p.ID).ExtractErr(); err != nil && !domain.NotFound(err) {
		return s.Refused("deleting project "+p.ID, err)
	}

	tflog.Info(ctx, "Deleted the project")

	return nil
}

// prepareDelete marks the project and grants the service user its roles there, where missing.
func (s *Service) prepareDelete(ctx context.Context, p *projects.Project) error {
	if !slices.Contains(p.Tags, naming.HumanProjectTag) {
		tags := cloud.SortedSet(append(slices.Clone(p.Tags), naming.HumanProjectTag))
		if _, err := projects.Update(ctx, s.Keystone, p.ID, projects.UpdateOpts{Tags: &tags}).Extract(); err != nil {
			return s.Refused("marking project "+p.ID, err)
		}
	}

	current, err := s.listAssignments(ctx, p.ID)
	if err != nil {
		return err
	}

	missing, err := s.missingServiceGrants(ctx, current)
	if err != nil || len(missing) == 0 {
		return err
	}

	for _, a := range missing {
		if err := s.assign(ctx, p.ID, a); err != nil {
			return err
		}
	}

	// Tokens keep the roles they were issued with.
	s.cloud.ForgetProject(p.ID)

	return nil
}

// missingServiceGrants are the service user's roles that current (the project's assignments)
// lacks, as assignments to make.
func (s *Service) missingServiceGrants(ctx context.Context, current []Assignment) ([]Assignment, error) {
	roleIDs, err := s.roles.KeystoneRoleIDs(ctx, s.Keystone, s.roles.ServiceRoles())
	if err != nil {
		return nil, err
	}

	user := s.cloud.ServiceUserID()

	var out []Assignment

	for _, role := range s.roles.ServiceRoles() {
		if !slices.ContainsFunc(current, func(a Assignment) bool { return a.UserID == user && a.RoleName == role }) {
			out = append(out, Assignment{RoleID: roleIDs[role], RoleName: role, UserID: user, Name: "the service user"})
		}
	}

	return out, nil
}

// tenantsIn binds the project in every region of regions with scope, served or not, as long as
// the Keystone catalog has it; a region it lacks is left out with a warning: nothing there can
// be reached through this Keystone any more.
func (s *Service) tenantsIn(ctx context.Context, projectID string, regions []string, scope cloud.Scope) ([]*cloud.Tenant, error) {
	ts, skipped, err := leftovers.Bind(ctx, regions, func(ctx context.Context, region string) (*cloud.Tenant, error) {
		return s.cloud.BindProjectAnywhere(ctx, projectID, region, scope)
	})

	for _, u := range skipped {
		tflog.Warn(ctx, "The project was applied in a region the Keystone catalog no longer offers: not looked into",
			map[string]any{"region": u.Region, "error": u.Err.Error()})
	}

	return ts, err
}
