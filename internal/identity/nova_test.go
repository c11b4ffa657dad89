package identity

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/config/clouds"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloudtest"
)

// ensureServerGroup is what ensureNova does in one region for identity foo: find its group,
// check it (checkServerGroup), converge it (convergeServerGroup).
func ensureServerGroup(ctx context.Context, sc *gophercloud.ServiceClient, policy string) (string, error) {
	const name = "unikorn-identity-foo"

	existing, err := findServerGroup(ctx, sc, name)
	if err != nil {
		return "", err
	}

	if err := checkServerGroup(ctx, sc, existing, policy); err != nil {
		return "", err
	}

	id, _, err := convergeServerGroup(ctx, sc, name, policy, existing)

	return id, err
}

func TestEnsureServerGroup(t *testing.T) {
	t.Parallel()

	ctx := context.Background()
	groups := func(gs ...any) map[string]any { return map[string]any{"server_groups": gs} }

	t.Run("keeps a group with the policy, ignoring near misses", func(t *testing.T) {
		t.Parallel()

		f := cloudtest.New(t)
		f.Reply("GET", "/compute/os-server-groups", 200, groups(
			map[string]any{"id": "sg-near", "name": "unikorn-identity-foo-2", "policy": "affinity"},
			map[string]any{"id": "sg-1", "name": "unikorn-identity-foo", "policy": "soft-anti-affinity"},
		))

		id, err := ensureServerGroup(ctx, f.ServiceClient("/compute/", "/compute/"), "soft-anti-affinity")
		if err != nil || id != "sg-1" {
			t.Fatalf("ensureServerGroup = %q, %v", id, err)
		}

		if f.Count("POST /compute/os-server-groups") != 0 {
			t.Fatal("made a twin")
		}
	})

	t.Run("replaces a group with another policy", func(t *testing.T) {
		t.Parallel()

		f := cloudtest.New(t)
		// The list shows sg-1 until it is deleted, then sg-2 once it is made.
		f.Sequence("GET", "/compute/os-server-groups", groups(
			map[string]any{"id": "sg-1", "name": "unikorn-identity-foo", "policies": []string{"affinity"}},
		), groups(map[string]any{"id": "sg-2", "name": "unikorn-identity-foo", "policy": "anti-affinity"}))
		f.Reply("DELETE", "/compute/os-server-groups/sg-1", 204, nil)
		f.Reply("POST", "/compute/os-server-groups", 200, map[string]any{"server_group": map[string]any{"id": "sg-2", "name": "unikorn-identity-foo"}})

		id, err := ensureServerGroup(ctx, f.ServiceClient("/compute/", "/compute/"), "anti-affinity")
		if err != nil || id != "sg-2" {
			t.Fatalf("ensureServerGroup = %q, %v", id, err)
		}

		sent := f.Last(t, "POST /compute/os-server-groups").JSON(t, "server_group")
		if sent["policy"] != "anti-affinity" || sent["policies"] != nil {
			t.Fatalf("created with %v, want the 2.64+ policy field", sent)
		}
	})

	t.Run("two groups of the name are an error", func(t *testing.T) {
		t.Parallel()

		f := cloudtest.New(t)
		f.Reply("GET", "/compute/os-server-groups", 200, groups(
			map[string]any{"id": "sg-1", "name": "unikorn-identity-foo"},
			map[string]any{"id": "sg-2", "name": "unikorn-identity-foo"},
		))

		_, err := ensureServerGroup(ctx, f.ServiceClient("/compute/", "/compute/"), "affinity")

		var dup *naming.DuplicateError
		if !errors.As(err, &dup) {
			t.Fatalf("err = %v, want a DuplicateError", err)
		}
	})

	t.Run("no policy deletes the group", func(t *testing.T) {
		t.Parallel()

		f := cloudtest.New(t)
		f.Reply("GET", "/compute/os-server-groups", 200, groups(map[string]any{"id": "sg-1", "name": "unikorn-identity-foo"}))
		f.Reply("DELETE", "/compute/os-server-groups/sg-1", 204, nil)

		id, err := ensureServerGroup(ctx, f.ServiceClient("/compute/", "/compute/"), "")
		if err != nil || id != "" || f.Count("DELETE /compute/os-server-groups/sg-1") != 1 {
			t.Fatalf("ensureServerGroup = %q, %v; calls %v", id, err, f.Calls())
		}
	})

	// Issue 26, item 7: a group that holds servers is neither replaced by another policy nor
	// dropped: its servers would fall out of any group, and each would be replaced.
	for _, policy := range []string{"soft-affinity", ""} {
		t.Run("a group with servers is kept: policy "+policy, func(t *testing.T) {
			t.Parallel()

			f := cloudtest.New(t)
			f.Reply("GET", "/compute/os-server-groups", 200, groups(map[string]any{
				"id": "sg-1", "name": "unikorn-identity-foo", "policy": "anti-affinity", "members": []string{"s-2", "s-1"},
			}))
			f.Reply("GET", "/compute/servers/detail", 200, map[string]any{"servers": []any{
				map[string]any{"id": "s-1", "name": "web"}, map[string]any{"id": "s-9", "name": "other"},
			}})

			_, err := ensureServerGroup(ctx, f.ServiceClient("/compute/", "/compute/"), policy)

			var inUse *GroupInUseError
			if !errors.As(err, &inUse) || !slices.Equal(inUse.Servers, []string{"s-2", "web (s-1)"}) {
				t.Fatalf("ensureServerGroup: %v; want a GroupInUseError naming web (s-1) and s-2", err)
			}

			for _, want := range []string{"sg-1", "anti-affinity", "Replace or move them first"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("%q does not say %q", err, want)
				}
			}

			if len(f.Writes()) != 0 {
				t.Fatalf("the group was changed: %v", f.Writes())
			}
		})
	}
}

// Issue 26, item 7: the plan's check of a policy change reads each recorded group once, in the
// privileged scope, and names the servers of one that holds any.
func TestServerGroupsInUse(t *testing.T) {
	t.Parallel()

	f := cloudtest.New(t)
	c := fakeCloud(t, f)
	identityProjectInFake(f)
	f.Reply("GET", "/compute/v2.1/os-server-groups/sg-1", 200, map[string]any{"server_group": map[string]any{
		"id": "sg-1", "name": "unikorn-identity-foo", "policy": "anti-affinity", "members": []string{"s-1"},
	}})
	f.Reply("GET", "/compute/v2.1/servers/detail", 200, map[string]any{"servers": []any{map[string]any{"id": "s-1", "name": "web"}}})

	svc := NewService(c, nil)

	err := svc.ServerGroupsInUse(context.Background(), "p-1", map[string]string{"RegionOne": "sg-1"}, "affinity")

	var inUse *GroupInUseError
	if !errors.As(err, &inUse) || inUse.Region != "RegionOne" || !slices.Equal(inUse.Servers, []string{"web (s-1)"}) {
		t.Fatalf("ServerGroupsInUse: %v; want web (s-1) named in RegionOne", err)
	}

	// A group that is gone holds nothing.
	if err := svc.ServerGroupsInUse(context.Background(), "p-1", map[string]string{"RegionOne": "sg-gone"}, "affinity"); err != nil {
		t.Fatal(err)
	}
}

func TestEnsureKeypair(t *testing.T) {
	t.Parallel()

	ctx := context.Background()
	key := "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKey1 alice@example"

	f := cloudtest.New(t)
	f.Reply("GET", "/compute/os-keypairs/unikorn-openstack-provider", 200, map[string]any{"keypair": map[string]any{
		"name": "unikorn-openstack-provider", "public_key": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKey1 other-comment\n",
	}})

	// Same key, other comment: kept.
	if _, err := ensureKeypair(ctx, f.ServiceClient("/compute/", "/compute/"), naming.KeypairName, key); err != nil {
		t.Fatal(err)
	}

	if n := len(f.Calls()); n != 1 {
		t.Fatalf("calls %v, want only the lookup", f.Calls())
	}

	// Another key: replaced.
	f.Reply("DELETE", "/compute/os-keypairs/unikorn-openstack-provider", 202, nil)
	f.Reply("POST", "/compute/os-keypairs", 200, map[string]any{"keypair": map[string]any{"name": "unikorn-openstack-provider"}})

	if _, err := ensureKeypair(ctx, f.ServiceClient("/compute/", "/compute/"), naming.KeypairName, "ssh-ed25519 AAAAOther"); err != nil {
		t.Fatal(err)
	}

	if f.Count("DELETE /compute/os-keypairs/unikorn-openstack-provider") != 1 || f.Count("POST /compute/os-keypairs") != 1 {
		t.Fatalf("calls %v, want delete then import", f.Calls())
	}

	sent := f.Last(t, "POST /compute/os-keypairs").JSON(t, "keypair")
	if sent["public_key"] != "ssh-ed25519 AAAAOther" || sent["private_key"] != nil {
		t.Fatalf("imported %v", sent)
	}
}

func TestCloudsYAMLParsesBack(t *testing.T) {
	t.Parallel()

	doc, err := CloudsYAML("unikorn-identity-foo", "http://keystone:5000/v3", "RegionTwo", "internal", "ac-id", "s3cr:et'\"")
	if err != nil {
		t.Fatal(err)
	}

	ao, eo, _, err := clouds.Parse(clouds.WithCloudsYAML(strings.NewReader(doc)), clouds.WithCloudName("unikorn-identity-foo"))
	if err != nil {
		t.Fatalf("gophercloud cannot read it: %v\n%s", err, doc)
	}

	if ao.IdentityEndpoint != "http://keystone:5000/v3" || ao.ApplicationCredentialID != "ac-id" ||
		ao.ApplicationCredentialSecret != "s3cr:et'\"" || eo.Region != "RegionTwo" || eo.Availability != "internal" {
		t.Fatalf("parsed back %+v %+v from\n%s", ao, eo, doc)
	}

	if !strings.Contains(doc, "auth_type: v3applicationcredential") {
		t.Fatalf("auth type missing:\n%s", doc)
	}
}

func TestSameKey(t *testing.T) {
	t.Parallel()

	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"ssh-rsa AAAA a", "ssh-rsa AAAA b\n", true},
		{"ssh-rsa AAAA", "ssh-ed25519 AAAA", false},
		{"ssh-rsa AAAA", "ssh-rsa AAAB", false},
		{"junk", " junk ", true},
	} {
		if got := sameKey(tc.a, tc.b); got != tc.want {
			t.Errorf("sameKey(%q, %q) = %v", tc.a, tc.b, got)
		}
	}
}

func TestNamePattern(t *testing.T) {
	t.Parallel()

	for name, ok := range map[string]bool{
		"a": true, "tf-acc-123": true, strings.Repeat("a", 40): true,
		"": false, "A": false, "a_b": false, strings.Repeat("a", 41): false, "a b": false,
	} {
		if NamePattern.MatchString(name) != ok {
			t.Errorf("NamePattern(%q) = %v, want %v", name, !ok, ok)
		}

		if ok {
			if err := naming.ValidateName(naming.KindIdentity, name); err != nil {
				t.Errorf("%q passes the schema but not the naming contract: %v", name, err)
			}
		}
	}
}
