package quota

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloudtest"
)

func groupOf(t *testing.T, name string) Group {
	t.Helper()

	for _, g := range Groups {
		if g.Name == name {
			return g
		}
	}

	t.Fatalf("no quota group %s", name)

	return Group{}
}

func TestGroupsCoverTheIssueList(t *testing.T) {
	t.Parallel()

	want := map[string][]string{
		Compute:      {"cores", "instances", "key_pairs", "metadata_items", "ram", "server_group_members", "server_groups"},
		Network:      {"floatingip", "network", "port", "rbac_policy", "router", "security_group", "security_group_rule", "subnet", "subnetpool"},
		BlockStorage: {"backup_gigabytes", "backups", "gigabytes", "groups", "per_volume_gigabytes", "snapshots", "volumes"},
		LoadBalancer: {"health_monitor", "listener", "load_balancer", "member", "pool"},
	}

	got := map[string][]string{}

	for _, g := range Groups {
		for _, f := range g.Fields {
			got[g.Name] = append(got[g.Name], f.Key)
		}
	}

	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("quota fields (-want +got):\n%s", diff)
	}

	for g, fields := range AllUnlimited() {
		for k, v := range fields {
			if v != -1 {
				t.Fatalf("default %s.%s = %d, want -1", g, k, v)
			}
		}
	}
}

func TestQuotaParse(t *testing.T) {
	t.Parallel()

	// Nova's answer carries the project ID among the numbers.
	nova, err := groupOf(t, Compute).parse([]byte(`{"quota_set": {"id": "p-1", "instances": 20, "cores": -1, "ram": 51200,
		"key_pairs": 100, "metadata_items": 128, "server_groups": 10, "server_group_members": 10}}`))
	if err != nil {
		t.Fatal(err)
	}

	if nova["instances"] != 20 || nova["ram"] != 51200 || nova["cores"] != -1 {
		t.Fatalf("nova = %v", nova)
	}

	// Octavia answers null for "no limit set", and may leave fields out.
	lb, err := groupOf(t, LoadBalancer).parse([]byte(`{"quota": {"load_balancer": null, "listener": 5, "pool": 1.0}}`))
	if err != nil {
		t.Fatal(err)
	}

	if want := map[string]int64{"load_balancer": -1, "listener": 5, "pool": 1, "member": -1, "health_monitor": -1}; !cmp.Equal(want, lb) {
		t.Fatalf("octavia = %v, want %v", lb, want)
	}

	if _, err := groupOf(t, Network).parse([]byte(`{"quota": {"port": "many"}}`)); err == nil {
		t.Fatal("a non-number quota must be an error")
	}

	if _, err := groupOf(t, Network).parse([]byte(`{"quota_set": {}}`)); err == nil {
		t.Fatal("a missing envelope must be an error")
	}
}

func TestPutQuotasSendsEveryField(t *testing.T) {
	t.Parallel()

	f := cloudtest.New(t)
	f.Reply("PUT", "/network/v2.0/quotas/p-1", 200, map[string]any{"quota": map[string]any{"port": 7, "network": -1}})

	q := AllUnlimited()
	q[Network]["port"] = 7

	got, err := put(context.Background(), f.ServiceClient("/network/v2.0/", "/network/v2.0/"), groupOf(t, Network), "p-1", q)
	if err != nil {
		t.Fatal(err)
	}

	if got["port"] != 7 {
		t.Fatalf("answer parsed as %v", got)
	}

	sent := f.Last(t, "PUT /network/v2.0/quotas/p-1").JSON(t, "quota")
	if len(sent) != 9 || sent["port"] != float64(7) || sent["subnetpool"] != float64(-1) {
		t.Fatalf("sent %v, want all 9 Neutron quotas", sent)
	}

	g := cloudtest.New(t)
	g.Reply("PUT", "/lb/v2.0/lbaas/quotas/p-1", 202, map[string]any{"quota": map[string]any{"load_balancer": 2}})

	if _, err := put(context.Background(), g.ServiceClient("/lb/v2.0/", "/lb/v2.0/"), groupOf(t, LoadBalancer), "p-1", q); err != nil {
		t.Fatalf("octavia quotas at /v2.0/lbaas/quotas: %v", err)
	}
}

func TestMergeQuotasShowsDriftInAnyRegion(t *testing.T) {
	t.Parallel()

	want := AllUnlimited()
	want[Compute]["instances"] = 10

	one := want.Clone()
	two := want.Clone()
	two[Compute]["instances"] = 3 // changed out of band in the second region
	two[Network]["port"] = 50

	got := Merge([]Set{one, two}, want)

	if got[Compute]["instances"] != 3 || got[Network]["port"] != 50 || got[Compute]["cores"] != -1 {
		t.Fatalf("merged = %v", got)
	}

	if !Merge([]Set{one, one.Clone()}, want).Equal(want) {
		t.Fatal("regions in agreement with want must merge to want")
	}

	if got := Merge([]Set{two, one}, nil); got[Compute]["instances"] != 3 {
		t.Fatalf("without want the first region wins, got %v", got[Compute])
	}
}
