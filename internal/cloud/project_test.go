package cloud

import (
	"errors"
	"testing"
)

// TestProjectTenantChecksHumanProject: a human project is bound only when it carries the tag
// of unikorn_project, outside the Default domain and not an identity's, once per project and
// run; it has no identity scope, and a tenant bound to it keeps its kind under As.
func TestProjectTenantChecksHumanProject(t *testing.T) {
	t.Parallel()

	human := func(id, name, domain string, tags ...string) map[string]any {
		return map[string]any{"id": id, "name": name, "domain_id": domain, "tags": tags}
	}

	tests := []struct {
		name, project string
		keystone      map[string]any // nil: no such project
		scope         Scope
		wantErr       string
	}{
		{name: "human project", project: "h1", keystone: human("h1", "research", "dom-sso", "unikorn:human-project")},
		{name: "human project in the managed domain", project: "h2", keystone: human("h2", "ops", "dom-managed-id", "x=y", "unikorn:human-project")},
		{name: "unknown project", project: "typo", wantErr: "no project the service user may read has that ID"},
		{name: "untagged", project: "p3", keystone: human("p3", "payroll", "dom-sso"), wantErr: `project "payroll" lacks the tag "unikorn:human-project"`},
		{
			name: "Default domain", project: "p4", keystone: human("p4", "service", "default", "unikorn:human-project"),
			wantErr: `project "service" is in Keystone's Default domain`,
		},
		{
			name: "an identity's", project: "p5", keystone: human("p5", "unikorn-identity-x", "dom-managed-id", "unikorn:human-project"),
			wantErr: "is an identity's: refer to it with identity_id",
		},
		{name: "service user's own project", project: fakeBaseProject, wantErr: "it is the service user's own project"},
		{
			name: "no identity scope", project: "h1", keystone: human("h1", "research", "dom-sso", "unikorn:human-project"),
			scope: AsIdentity, wantErr: "a human project has no identity scope",
		},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			f := newFakeCloud(t, map[string][]string{"RegionOne": allServices})
			f.projects = map[string]map[string]any{tt.project: tt.keystone}

			c := mustClient(t, f, nil)

			for range 2 {
				tenant, err := c.ProjectTenant(t.Context(), tt.project, "", tt.scope)
				if tt.wantErr != "" {
					var projectErr *ProjectError
					if !errors.As(err, &projectErr) || projectErr.ProjectID != tt.project || tenant != nil {
						t.Fatalf("tenant %v, err %v; want a ProjectError for %s", tenant, err, tt.project)
					}

					wantErrorContaining(t, err, tt.wantErr)

					continue
				}

				if err != nil || tenant.ProjectID() != tt.project || tenant.Session().ProjectID() != tt.project {
					t.Fatalf("tenant %v, err %v", tenant, err)
				}

				if _, err := tenant.As(t.Context(), AsIdentity); err == nil {
					t.Fatal("As(AsIdentity) of a human project bound the identity scope")
				}

				if admin, err := tenant.As(t.Context(), Admin); err != nil || admin.ProjectID() != tt.project {
					t.Fatalf("As(Admin) = %v, %v", admin, err)
				}
			}

			if got := f.api.Count("GET /v3/projects/" + tt.project); tt.wantErr == "" && got != 1 {
				t.Errorf("project read %d times for two tenants; want once per run", got)
			}

			// An identity's tenant never accepts a human project, nor the other way round.
			if tt.wantErr == "" {
				if _, err := c.Tenant(t.Context(), tt.project, "", Privileged); err == nil {
					t.Error("Tenant() bound a human project as an identity")
				}
			}
		})
	}
}
