package cloud

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
)

// assignmentsJSON are role assignments in Keystone's answer format.
func assignmentsJSON(t *testing.T, doc string) []assignment {
	t.Helper()

	var out []assignment
	if err := json.Unmarshal([]byte(doc), &out); err != nil {
		t.Fatal(err)
	}

	return out
}

func TestGrantsOf(t *testing.T) {
	t.Parallel()

	const (
		homeAdmin  = `{"role":{"name":"admin"},"scope":{"project":{"id":"home"}},"links":{"assignment":"https://k/v3/projects/home/users/u/roles/r"}}`
		domAdmin   = `{"role":{"name":"admin"},"scope":{"domain":{"id":"dom"}},"links":{"assignment":"https://k/v3/domains/dom/users/u/roles/r"}}`
		domManager = `{"role":{"name":"manager"},"scope":{"domain":{"id":"dom"}},"links":{"assignment":"https://k/v3/domains/dom/users/u/roles/m"}}`
		// effective=true expands an inherited grant onto each project of the domain.
		inheritedExpanded = `{"role":{"name":"admin"},"scope":{"project":{"id":"p1"}},"links":{"assignment":"https://k/v3/OS-INHERIT/domains/dom/users/u/roles/r/inherited_to_projects"}}`
		// without effective, the domain's own listing says what it is inherited to.
		inheritedDirect = `{"role":{"name":"admin"},"scope":{"domain":{"id":"dom"},"OS-INHERIT:inherited_to":"projects"},"links":{"assignment":"https://k/v3/OS-INHERIT/domains/dom/users/u/roles/r/inherited_to_projects"}}`
		otherDomain     = `{"role":{"name":"admin"},"scope":{"domain":{"id":"other"}},"links":{"assignment":"https://k/v3/domains/other/users/u/roles/r"}}`
	)

	tests := []struct {
		name       string
		doc        string
		model      GrantModel
		domain     []string
		inherited  []string
		missing    int
		missingFor string
	}{
		{name: "cloud admin", doc: "[" + homeAdmin + "," + domAdmin + "]", model: CloudAdmin, domain: []string{"admin"}},
		{name: "cloud admin with manager on the domain", doc: "[" + homeAdmin + "," + domManager + "]", model: CloudAdmin, domain: []string{"manager"}},
		{
			name: "inherited admin, expanded", doc: "[" + domAdmin + "," + inheritedExpanded + "]", model: InheritedAdmin,
			domain: []string{"admin"}, inherited: []string{"admin"},
		},
		{
			name: "inherited admin, direct listing", doc: "[" + domAdmin + "," + inheritedDirect + "]", model: InheritedAdmin,
			domain: []string{"admin"}, inherited: []string{"admin"},
		},
		{name: "nothing on the managed domain", doc: "[" + homeAdmin + "," + otherDomain + "]", model: CloudAdmin, missing: 1, missingFor: "identities"},
		{name: "no admin anywhere for quotas", doc: "[" + domManager + "]", model: GrantsUnchecked, domain: []string{"manager"}, missing: 1, missingFor: "quotas"},
	}

	c := &Client{settings: &settings{userName: "svc", userDomainName: "Default", domain: "unikorn", projectName: "home"}, baseProjectID: "home"}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			g := grantsOf(assignmentsJSON(t, tt.doc), "dom", "home")
			if g.Model != tt.model || !slices.Equal(g.Domain, tt.domain) || !slices.Equal(g.Inherited, tt.inherited) {
				t.Fatalf("grants = %+v, want model %s, domain %v, inherited %v", g, tt.model, tt.domain, tt.inherited)
			}

			err := c.checkGrants(g, []Feature{FeatureQuotas})
			if tt.missing == 0 {
				if err != nil {
					t.Fatalf("checkGrants: %v", err)
				}

				return
			}

			var ge *GrantError
			if !errors.As(err, &ge) || len(ge.Missing) != tt.missing || !strings.Contains(ge.Missing[0].NeededFor, tt.missingFor) {
				t.Fatalf("checkGrants = %v, want %d missing grant(s) for %s", err, tt.missing, tt.missingFor)
			}

			if !strings.HasPrefix(ge.Missing[0].Command, "openstack role add --user svc --user-domain Default ") {
				t.Errorf("command = %q", ge.Missing[0].Command)
			}
		})
	}
}

func TestShellWord(t *testing.T) {
	t.Parallel()

	for in, want := range map[string]string{"unikorn": "unikorn", "my project": "'my project'", "it's": `'it'\''s'`} {
		if got := shellWord(in); got != want {
			t.Errorf("shellWord(%q) = %q, want %q", in, got, want)
		}
	}
}
