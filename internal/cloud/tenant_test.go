package cloud

import (
	"errors"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2"
)

func TestNewTenantAndScope(t *testing.T) {
	t.Parallel()

	sess := &Session{kind: scopePrivileged, projectID: "p"}

	tenant := NewTenant(sess, "p", "R")
	if tenant.Session() != sess || tenant.ProjectID() != "p" || tenant.Region() != "R" || tenant.String() != "project p, region R" {
		t.Errorf("NewTenant() = %v with session %v", tenant, tenant.Session())
	}

	for scope, want := range map[Scope]string{Privileged: "privileged", AsIdentity: "identity", Scope(7): "privileged"} {
		if got := scope.String(); got != want {
			t.Errorf("Scope(%d).String() = %q, want %q", int(scope), got, want)
		}
	}
}

func TestLooksLikeID(t *testing.T) {
	t.Parallel()

	tests := map[string]bool{
		"0b8e4f0e-8c9a-4d47-9a55-1f0b2c3d4e5f":           true,
		"0B8E4F0E-8C9A-4D47-9A55-1F0B2C3D4E5F":           true,
		"00000000-0000-0000-0000-000000000000":           true,
		"":                                               false,
		"web":                                            false,
		"network-web":                                    false,
		"0b8e4f0e8c9a4d479a551f0b2c3d4e5f":               false, // Keystone's form, not Nova's or Neutron's
		"0b8e4f0e-8c9a-4d47-9a55-1f0b2c3d4e5":            false,
		"0b8e4f0e-8c9a-4d47-9a55-1f0b2c3d4e5ff":          false,
		"0b8e4f0e-8c9a-4d47-9a55-1f0b2c3d4e5g":           false,
		" 0b8e4f0e-8c9a-4d47-9a55-1f0b2c3d4e5f":          false,
		"0b8e4f0e-8c9a-4d47-9a55-1f0b2c3d4e5f\n":         false,
		"RegionOne/0b8e4f0e-8c9a-4d47-9a55-1f0b2c3d4e5f": false,
	}

	for in, want := range tests {
		if got := LooksLikeID(in); got != want {
			t.Errorf("LooksLikeID(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestTenant(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name, project, region string
		scope                 Scope
		wantRegion, wantScope string // wantScope: the scope of the tenant's tokens
		wantErr               string
	}{
		{name: "default region", project: "p1", scope: Privileged, wantRegion: "RegionOne", wantScope: "project:p1"},
		{name: "named region", project: "p1", region: "RegionTwo", scope: Privileged, wantRegion: "RegionTwo", wantScope: "project:p1"},
		{name: "as the identity", project: "p1", region: "RegionTwo", scope: AsIdentity, wantRegion: "RegionTwo", wantScope: "trust:t-p1"},
		{name: "unserved region", project: "p1", region: "Unserved", scope: Privileged,
			wantErr: `region "Unserved" is not served by this provider (served regions: RegionOne, RegionTwo)`},
		{name: "unserved region as the identity", project: "p1", region: "Unserved", scope: AsIdentity, wantErr: "not served"},
		{name: "empty project", scope: Privileged, wantErr: "empty identity (project) ID"},
		{name: "empty project as the identity", region: "RegionTwo", scope: AsIdentity, wantErr: "empty identity (project) ID"},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			f := newFakeCloud(t, map[string][]string{"RegionOne": allServices, "RegionTwo": allServices, "Unserved": allServices})
			f.setTrusts(fakeTrust("t-p1", "p1"))
			headers := f.serviceHeaders()

			c := mustClient(t, f, func(c *Config) { c.Regions = []string{"RegionOne", "RegionTwo"} })

			tenant, err := c.Tenant(t.Context(), tt.project, tt.region, tt.scope)
			if tt.wantErr != "" {
				wantErrorContaining(t, err, tt.wantErr)

				// Rejected before authenticating or listing anything.
				if tenant != nil || f.posts("project:p1") != 0 || f.posts("trust:t-p1") != 0 || f.listings() != 0 {
					t.Errorf("tenant %v; %d project and %d trust token requests, %d trust listings; want none",
						tenant, f.posts("project:p1"), f.posts("trust:t-p1"), f.listings())
				}

				return
			}

			if err != nil {
				t.Fatal(err)
			}

			if tenant.ProjectID() != tt.project || tenant.Region() != tt.wantRegion || tenant.Session().ProjectID() != tt.project {
				t.Errorf("tenant of project %q in %q (session %v), want %q in %q", tenant.ProjectID(), tenant.Region(), tenant.Session(), tt.project, tt.wantRegion)
			}

			if want := "project " + tt.project + ", region " + tt.wantRegion; tenant.String() != want {
				t.Errorf("String() = %q, want %q", tenant.String(), want)
			}

			// Every client is the tenant's region's, in the tenant's scope.
			for service, get := range map[string]func() (*gophercloud.ServiceClient, error){
				"compute": tenant.Compute, "network": tenant.Network, "image": tenant.Image,
				"load-balancer": tenant.LoadBalancer, "block-storage": tenant.BlockStorage,
			} {
				sc, err := get()
				if err != nil {
					t.Fatal(err)
				}

				path := endpointPath(tt.wantRegion, service)
				if !strings.HasPrefix(sc.Endpoint, f.url+path) {
					t.Errorf("%s endpoint %s, want %s", service, sc.Endpoint, f.url+path)
				}

				if _, err := sc.Get(t.Context(), sc.ServiceURL("probe"), nil, nil); err != nil {
					t.Fatal(err)
				}

				if seen := headers(path + "/probe"); len(seen) != 1 || f.scopeOf(seen[0].Get("X-Auth-Token")) != tt.wantScope {
					t.Errorf("%s: %d probes, want one with a token of scope %s", service, len(seen), tt.wantScope)
				}
			}

			if ks, err := tenant.Keystone(); err != nil || ks.Endpoint != f.url+"/v3/" {
				t.Errorf("Keystone() = %v, %v", ks, err)
			}

			// Bound once: the same scope again reuses the session.
			if again, err := c.Tenant(t.Context(), tt.project, tt.region, tt.scope); err != nil || again.Session() != tenant.Session() {
				t.Errorf("second Tenant(): %v, %v; want the same session", again, err)
			}
		})
	}
}

// TestTenantChecksIdentityProject: a tenant is bound only to an identity project of the
// managed domain (behaviour 2 of the fault-safety issue), checked once per project and run.
func TestTenantChecksIdentityProject(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name, project string
		keystone      map[string]any // nil: no such project
		wantErr       string
	}{
		{name: "identity project", project: "p1"},
		{name: "unknown project", project: "typo", wantErr: "identity typo is not an identity of this provider: no project of the managed domain has that ID"},
		{
			name: "other domain", project: "p2", keystone: map[string]any{"id": "p2", "name": "unikorn-identity-x", "domain_id": "default"},
			wantErr: `project "unikorn-identity-x" is in domain default, not in the managed domain dom-managed-id`,
		},
		{
			name: "not made by unikorn_identity", project: "p3", keystone: map[string]any{"id": "p3", "name": "payroll", "domain_id": "dom-managed-id"},
			wantErr: `project "payroll" was not made by unikorn_identity`,
		},
		{name: "service user's own project", project: fakeBaseProject, wantErr: "it is the service user's own project"},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			f := newFakeCloud(t, map[string][]string{"RegionOne": allServices})
			f.projects = map[string]map[string]any{}

			if tt.project != "p1" && tt.project != fakeBaseProject {
				f.projects[tt.project] = tt.keystone
			}

			c := mustClient(t, f, nil)

			for range 2 {
				tenant, err := c.Tenant(t.Context(), tt.project, "", Privileged)
				if tt.wantErr != "" {
					var idErr *IdentityProjectError
					if !errors.As(err, &idErr) || idErr.ProjectID != tt.project {
						t.Fatalf("err %v; want an IdentityProjectError for %s", err, tt.project)
					}

					wantErrorContaining(t, err, tt.wantErr)

					if tenant != nil {
						t.Fatalf("tenant %v bound to a project that is not an identity", tenant)
					}

					continue
				}

				if err != nil || tenant.ProjectID() != tt.project {
					t.Fatalf("tenant %v, err %v", tenant, err)
				}
			}

			if got := f.api.Count("GET /v3/projects/" + tt.project); tt.wantErr == "" && got != 1 {
				t.Errorf("project read %d times for two tenants; want once per run", got)
			}
		})
	}
}
