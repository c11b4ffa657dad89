package loadbalancer

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/loadbalancer/v2/pools"
)

// A member memo answers for a pool only while the load balancer is ACTIVE with the memoed
// updated_at and the pool listing names exactly the memoed member IDs.
func TestMemberMemoAnswersOnlyForAnUnchangedPool(t *testing.T) {
	t.Parallel()

	at := time.Date(2026, 12, 2, 8, 34, 7, 0, time.UTC)
	memoed := &Topology{ProvisioningStatus: StatusActive, UpdatedAt: at, Listeners: []ObservedListener{{
		Name: "ssh", PoolID: "p-1",
		Members:   []Member{{Address: "10.0.0.5", Port: 22, Weight: 7}, {Address: "10.0.0.6", Port: 22, Weight: 1}},
		MemberIDs: map[string]string{"10.0.0.5:22": "m-5", "10.0.0.6:22": "m-6"},
	}, {
		// A batch update made this pool's members: their IDs are unknown, so it is left out.
		Name: "https", PoolID: "p-2", Members: []Member{{Address: "10.0.0.5", Port: 443, Weight: 1}},
	}}}

	// The memo goes through the private state as JSON.
	raw, err := json.Marshal(memoed.memo())
	if err != nil {
		t.Fatal(err)
	}

	var memo *MemberMemo
	if err := json.Unmarshal(raw, &memo); err != nil {
		t.Fatal(err)
	}

	if _, ok := memo.Pools["p-2"]; ok {
		t.Fatalf("memo %s keeps a pool whose member IDs are unknown", raw)
	}

	now := func(status string, updated time.Time) *Topology {
		return &Topology{ProvisioningStatus: status, UpdatedAt: updated}
	}

	for _, tc := range []struct {
		name   string
		memo   *MemberMemo
		t      *Topology
		pool   string
		listed []string
		want   bool
	}{
		{"unchanged", memo, now(StatusActive, at), "p-1", []string{"m-6", "m-5"}, true},
		{"no memo", nil, now(StatusActive, at), "p-1", []string{"m-5", "m-6"}, false},
		{"updated since", memo, now(StatusActive, at.Add(time.Second)), "p-1", []string{"m-5", "m-6"}, false},
		{"not ACTIVE", memo, now(StatusPendingUpdate, at), "p-1", []string{"m-5", "m-6"}, false},
		{"a member more", memo, now(StatusActive, at), "p-1", []string{"m-5", "m-6", "m-7"}, false},
		{"a member replaced", memo, now(StatusActive, at), "p-1", []string{"m-5", "m-7"}, false},
		{"pool not memoed", memo, now(StatusActive, at), "p-2", []string{"m-9"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			members, ids, ok := tc.memo.members(tc.t, tc.pool, tc.listed)
			if ok != tc.want {
				t.Fatalf("answered %v, want %v", ok, tc.want)
			}

			if ok && (!slices.Equal(members, memoed.Listeners[0].Members) || ids["10.0.0.5:22"] != "m-5" || ids["10.0.0.6:22"] != "m-6") {
				t.Fatalf("memo gave %v %v, want the memoed members with their IDs", members, ids)
			}
		})
	}
}

// After a batch update the status tree names the members' IDs, the fresher word on those
// already known; a member the topology does not hold is not taken.
func TestLearnMemberIDsFromTheStatusTree(t *testing.T) {
	t.Parallel()

	o := ObservedListener{
		PoolID:    "p-1",
		Members:   []Member{{Address: "10.0.0.5", Port: 22, Weight: 1}, {Address: "10.0.0.6", Port: 22, Weight: 1}},
		MemberIDs: map[string]string{"10.0.0.6:22": "m-6"},
	}

	o.learnMemberIDs([]pools.Member{
		{ID: "m-5", Address: "10.0.0.5", ProtocolPort: 22},
		{ID: "m-6-other", Address: "10.0.0.6", ProtocolPort: 22},
		{ID: "m-9", Address: "10.0.0.9", ProtocolPort: 22},
	})

	if want := map[string]string{"10.0.0.5:22": "m-5", "10.0.0.6:22": "m-6-other"}; len(o.MemberIDs) != len(want) ||
		o.MemberIDs["10.0.0.5:22"] != "m-5" || o.MemberIDs["10.0.0.6:22"] != "m-6-other" {
		t.Fatalf("member IDs %v, want %v", o.MemberIDs, want)
	}
}
