package server

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloudtest"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

func TestOwned(t *testing.T) {
	t.Parallel()

	tenant := cloud.NewTenant(nil, "p1", "RegionOne")

	tests := []struct {
		name string
		read found
		want string // the problem's summary; "" for none
	}{
		{"the identity's", found{ok: true, projectID: "p1"}, ""},
		{"shared (a provider network)", found{ok: true, projectID: "admin", shared: true}, ""},
		{"another identity's", found{ok: true, projectID: "p2", name: "network-x"}, "Network of another identity"},
		{"not in the region", found{}, "Network not found"},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			p := owned("network_id", "Network", "net-1", tt.read, tenant)

			switch {
			case tt.want == "" && p != nil:
				t.Fatalf("problem %+v, want none", p)
			case tt.want != "" && (p == nil || p.Summary != tt.want || p.Attribute != "network_id" || !strings.Contains(p.Detail, "net-1")):
				t.Fatalf("problem %+v, want %q at network_id naming net-1", p, tt.want)
			}
		})
	}
}

func TestReaders(t *testing.T) {
	t.Parallel()

	api := cloudtest.New(t)
	api.Reply("GET", "/network/v2.0/networks/net-1", 200, map[string]any{"network": map[string]any{
		"id": "net-1", "name": "network-a", "project_id": "p1", "shared": false,
	}})
	api.Reply("GET", "/network/v2.0/networks/net-shared", 200, map[string]any{"network": map[string]any{
		"id": "net-shared", "name": "provider", "tenant_id": "admin", "shared": true,
	}})
	api.Reply("GET", "/network/v2.0/security-groups/sg-1", 200, map[string]any{"security_group": map[string]any{
		"id": "sg-1", "name": "securitygroup-a", "project_id": "p2",
	}})
	api.Reply("GET", "/network/v2.0/networks/net-500", 500, map[string]any{"NeutronError": map[string]any{"message": "boom"}})
	api.Reply("GET", "/compute/os-keypairs/"+naming.KeypairName, 200, map[string]any{"keypair": map[string]any{"name": naming.KeypairName}})
	api.Reply("GET", "/compute/os-server-groups", 200, map[string]any{"server_groups": []any{
		map[string]any{"id": "g-near", "name": "unikorn-identity-team2"},
		map[string]any{"id": "g-1", "name": "unikorn-identity-team", "project_id": "p1"},
		map[string]any{"id": "g-dup1", "name": "unikorn-identity-twins"},
		map[string]any{"id": "g-dup2", "name": "unikorn-identity-twins"},
	}})
	api.Reply("GET", "/identity/projects/p1", 200, keystoneProject())

	neutron := api.ServiceClient("/network/", "/network/v2.0/")
	compute := api.ServiceClient("/compute/", "/compute/")
	keystone := api.ServiceClient("/identity/", "/identity/")
	ctx := context.Background()

	tests := []struct {
		name string
		read func() (found, error)
		want found
		err  string
	}{
		{"network", func() (found, error) { return readNetwork(ctx, neutron, "net-1") }, found{ok: true, projectID: "p1", name: "network-a"}, ""},
		{"shared network, legacy tenant_id", func() (found, error) { return readNetwork(ctx, neutron, "net-shared") },
			found{ok: true, projectID: "admin", shared: true, name: "provider"}, ""},
		{"network not in the region", func() (found, error) { return readNetwork(ctx, neutron, "net-far") }, found{}, ""},
		{"network read failing", func() (found, error) { return readNetwork(ctx, neutron, "net-500") }, found{}, "reading network net-500"},
		{"security group", func() (found, error) { return readSecurityGroup(ctx, neutron, "sg-1") },
			found{ok: true, projectID: "p2", name: "securitygroup-a"}, ""},
		{"security group not in the region", func() (found, error) { return readSecurityGroup(ctx, neutron, "sg-far") }, found{}, ""},
		{"keypair", func() (found, error) { return readKeypair(ctx, compute, naming.KeypairName) }, found{ok: true, name: naming.KeypairName}, ""},
		{"no keypair", func() (found, error) { return readKeypair(ctx, compute, "other") }, found{}, ""},
		{"server group, exactly", func() (found, error) { return readServerGroup(ctx, compute, "unikorn-identity-team") },
			found{ok: true, projectID: "p1", name: "unikorn-identity-team"}, ""},
		{"no server group", func() (found, error) { return readServerGroup(ctx, compute, "unikorn-identity-tea") }, found{}, ""},
		{"two server groups", func() (found, error) { return readServerGroup(ctx, compute, "unikorn-identity-twins") }, found{}, "g-dup1"},
		{"project", func() (found, error) { return readProject(ctx, keystone, "p1") }, found{ok: true, projectID: "p1", name: "unikorn-identity-team"}, ""},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			got, err := tt.read()

			switch {
			case tt.err == "" && err != nil:
				t.Fatalf("err = %v", err)
			case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
				t.Fatalf("err = %v, want one naming %q", err, tt.err)
			case got != tt.want:
				t.Fatalf("read %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestNotFoundKeepsOtherErrors(t *testing.T) {
	t.Parallel()

	if err := notFound(gophercloud.ErrUnexpectedResponseCode{Actual: http.StatusNotFound}); err != nil {
		t.Fatalf("404: %v; want not found", err)
	}

	boom := errors.New("boom")
	if err := notFound(boom); !errors.Is(err, boom) {
		t.Fatalf("err = %v, want boom", err)
	}
}

// model is a server's plan or state with the values the checks look at.
func model(identity, flavor, image, network string, groups []string, serverGroup, sshKey bool) serverModel {
	str := func(s string) types.String {
		if s == "?" {
			return types.StringUnknown()
		}

		return types.StringValue(s)
	}

	set := types.SetNull(types.StringType)
	if groups != nil {
		elems := make([]types.String, len(groups))
		for i, g := range groups {
			elems[i] = str(g)
		}

		set, _ = types.SetValueFrom(context.Background(), types.StringType, elems)
	}

	return serverModel{
		Name: types.StringValue("web"), Region: types.StringValue("RegionOne"), IdentityID: str(identity),
		FlavorID: str(flavor), ImageID: str(image), NetworkID: str(network), SecurityGroupIDs: set,
		ServerGroup: types.BoolValue(serverGroup), SSHKey: types.BoolValue(sshKey),
	}
}

// pinned is m with host.
func pinned(m serverModel, host string) serverModel {
	m.Host = types.StringValue(host)

	return m
}

// onHypervisor is m with hypervisor_hostname.
func onHypervisor(m serverModel, hypervisor string) serverModel {
	m.HypervisorHostname = types.StringValue(hypervisor)

	return m
}

func TestPreflightOf(t *testing.T) {
	t.Parallel()

	made := model("p1", "f1", "i1", "n1", []string{"sg-1"}, true, true)
	ptr := func(m serverModel) *serverModel { return &m }

	tests := []struct {
		name  string
		plan  serverModel
		state *serverModel
		want  Preflight
	}{
		{"create: everything", made, nil, Preflight{
			IdentityID: "p1", Region: "RegionOne", FlavorID: "f1", ImageID: "i1", NetworkID: "n1",
			SecurityGroupIDs: []string{"sg-1"}, ServerGroup: true, SSHKey: true,
		}},
		{"create: what is unknown waits for the apply", model("?", "f1", "?", "?", []string{"sg-1", "?"}, false, false), nil,
			Preflight{Region: "RegionOne", FlavorID: "f1"}},
		{"unchanged: nothing", made, ptr(made), Preflight{IdentityID: "p1", Region: "RegionOne"}},
		{"a new image: the flavor is checked against it", model("p1", "f1", "i2", "n1", []string{"sg-1"}, true, true), ptr(made),
			Preflight{IdentityID: "p1", Region: "RegionOne", FlavorID: "f1", ImageID: "i2"}},
		{"a new flavor: checked against the image", model("p1", "f2", "i1", "n1", []string{"sg-1"}, true, true), ptr(made),
			Preflight{IdentityID: "p1", Region: "RegionOne", FlavorID: "f2", ImageID: "i1"}},
		{"a security group added: only it", model("p1", "f1", "i1", "n1", []string{"sg-1", "sg-2"}, true, true), ptr(made),
			Preflight{IdentityID: "p1", Region: "RegionOne", SecurityGroupIDs: []string{"sg-2"}}},
		{"ssh_key turned on", made, ptr(model("p1", "f1", "i1", "n1", []string{"sg-1"}, true, false)),
			Preflight{IdentityID: "p1", Region: "RegionOne", SSHKey: true}},
		{"a new network replaces: everything", model("p1", "f1", "i1", "n2", []string{"sg-1"}, true, true), ptr(made), Preflight{
			IdentityID: "p1", Region: "RegionOne", FlavorID: "f1", ImageID: "i1", NetworkID: "n2",
			SecurityGroupIDs: []string{"sg-1"}, ServerGroup: true, SSHKey: true,
		}},
		{"create pinned: the host with the flavor", pinned(made, "node-a"), nil, Preflight{
			IdentityID: "p1", Region: "RegionOne", FlavorID: "f1", ImageID: "i1", NetworkID: "n1",
			SecurityGroupIDs: []string{"sg-1"}, ServerGroup: true, SSHKey: true, Host: "node-a", HostSet: true,
		}},
		{"another host replaces: everything", pinned(made, "node-b"), ptr(pinned(made, "node-a")), Preflight{
			IdentityID: "p1", Region: "RegionOne", FlavorID: "f1", ImageID: "i1", NetworkID: "n1",
			SecurityGroupIDs: []string{"sg-1"}, ServerGroup: true, SSHKey: true, Host: "node-b", HostSet: true,
		}},
		{"a host set on a server without one (import): not checked again", pinned(made, "node-a"), ptr(made),
			Preflight{IdentityID: "p1", Region: "RegionOne", HostSet: true}},
		{"create pinned to a hypervisor: the hypervisor with the flavor", onHypervisor(made, "node-a.example.com"), nil, Preflight{
			IdentityID: "p1", Region: "RegionOne", FlavorID: "f1", ImageID: "i1", NetworkID: "n1",
			SecurityGroupIDs: []string{"sg-1"}, ServerGroup: true, SSHKey: true, Hypervisor: "node-a.example.com", HostSet: true,
		}},
		{"another hypervisor replaces: everything", onHypervisor(made, "node-b.example.com"), ptr(onHypervisor(made, "node-a.example.com")), Preflight{
			IdentityID: "p1", Region: "RegionOne", FlavorID: "f1", ImageID: "i1", NetworkID: "n1",
			SecurityGroupIDs: []string{"sg-1"}, ServerGroup: true, SSHKey: true, Hypervisor: "node-b.example.com", HostSet: true,
		}},
		{"a hypervisor set on a server without one (import): not checked again", onHypervisor(made, "node-a.example.com"), ptr(made),
			Preflight{IdentityID: "p1", Region: "RegionOne", HostSet: true}},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			got := preflightOf(context.Background(), tt.plan, tt.state)
			slices.Sort(got.SecurityGroupIDs)

			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("preflightOf = %+v\nwant          %+v", got, tt.want)
			}
		})
	}
}
