package project

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func user(role, id, name, domainID string) Assignment {
	return Assignment{RoleID: "r-" + role, RoleName: role, UserID: id, Name: name, DomainID: domainID}
}

func group(role, id, name, domainID string) Assignment {
	return Assignment{RoleID: "r-" + role, RoleName: role, GroupID: id, Name: name, DomainID: domainID}
}

func TestConverge(t *testing.T) {
	t.Parallel()

	o := owner{userDomainID: "sso", groupID: "g-own", groupName: "lab-members", serviceUserID: "svc"}

	current := []Assignment{
		user("member", "u-alice", "alice", "sso"),                                // wanted
		group("member", "g-own", "lab-members", "sso"),                           // wanted, the project's own group
		group("reader", "0123456789abcdef0123456789abcdef", "auditors", "other"), // wanted by ID
		user("reader", "u-bob", "bob", "sso"),                                    // recorded before, no longer wanted
		user("member", "u-carol", "carol", "sso"),                                // someone else's
		user("member", "u-alice2", "alice", "elsewhere"),                         // same name, another domain: someone else's
		user("manager", "svc", "unikorn", "default"),                             // the service user's
		user("member", "svc", "unikorn", "default"),                              // the service user's
	}

	want := []Binding{
		{Role: "member", Users: []string{"alice", "dave"}, Groups: []string{"lab-members"}},
		{Role: "reader", Groups: []string{"0123456789abcdef0123456789abcdef"}},
	}
	prior := []Binding{{Role: "reader", Users: []string{"bob"}}, {Role: "member", Users: []string{"alice"}}}

	c := converge(current, want, o, prior, o)

	wantHeld := []Binding{
		{Role: "member", Users: []string{"alice"}, Groups: []string{"lab-members"}},
		{Role: "reader", Groups: []string{"0123456789abcdef0123456789abcdef"}},
	}
	if diff := cmp.Diff(wantHeld, c.held, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("held (-want +got):\n%s", diff)
	}

	if diff := cmp.Diff([]entry{{role: "member", ref: "dave"}}, c.missing, cmp.AllowUnexported(entry{})); diff != "" {
		t.Errorf("missing (-want +got):\n%s", diff)
	}

	if diff := cmp.Diff([]Assignment{current[3]}, c.extra); diff != "" {
		t.Errorf("extra (-want +got):\n%s", diff)
	}

	if diff := cmp.Diff([]Assignment{current[4], current[5]}, c.foreign); diff != "" {
		t.Errorf("foreign (-want +got):\n%s", diff)
	}

	// With the user domain changed since, the prior's names mean the old domain's users.
	moved := o
	moved.userDomainID = "elsewhere"

	c = converge(current, nil, o, []Binding{{Role: "member", Users: []string{"alice"}}}, moved)
	if len(c.extra) != 1 || c.extra[0].UserID != "u-alice2" {
		t.Errorf("extra %v, want only alice of the prior's domain", c.extra)
	}
}

func TestAdopt(t *testing.T) {
	t.Parallel()

	o := owner{userDomainID: "sso", groupID: "g-own", groupName: "lab-members", serviceUserID: "svc"}

	got, foreign := adopt([]Assignment{
		user("reader", "u-bob", "bob", "sso"),
		user("member", "u-alice", "alice", "sso"),
		group("member", "g-own", "lab-members", "proj-domain"),
		group("member", "g-x", "auditors", "other"),
		user("member", "u-z", "zed", "other"),
		user("manager", "svc", "unikorn", "default"),
	}, o)

	want := []Binding{
		{Role: "member", Users: []string{"alice"}, Groups: []string{"g-x", "lab-members"}},
		{Role: "reader", Users: []string{"bob"}},
	}
	if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("adopted (-want +got):\n%s", diff)
	}

	if len(foreign) != 1 || foreign[0].UserID != "u-z" {
		t.Errorf("foreign %v, want the user of another domain", foreign)
	}
}

func TestUnion(t *testing.T) {
	t.Parallel()

	got := union([]Binding{{Role: "reader", Users: []string{"bob"}}, {Role: "member", Users: []string{"alice"}}},
		[]Binding{{Role: "member", Users: []string{"carol"}, Groups: []string{"g"}}, {Role: "admin", Users: []string{"x"}}})

	want := []Binding{
		{Role: "reader", Users: []string{"bob"}},
		{Role: "member", Users: []string{"alice", "carol"}, Groups: []string{"g"}},
		{Role: "admin", Users: []string{"x"}},
	}
	if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("union (-want +got):\n%s", diff)
	}
}
