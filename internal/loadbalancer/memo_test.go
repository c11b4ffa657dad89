package loadbalancer

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gophercloud/gophercloud/v2/openstack/loadbalancer/v2/pools"
)

// A memo answers only while the load balancer is ACTIVE with the memoed updated_at and the
// memoed listener and pool IDs; it goes through the private state as JSON unchanged, and what
// it gives a read is a copy.
func TestMemoAnswersOnlyForAnUnchangedLoadBalancer(t *testing.T) {
	t.Parallel()

	at := time.Date(2026, 12, 2, 8, 34, 7, 0, time.UTC)
	read := &Topology{
		ProvisioningStatus: StatusActive, UpdatedAt: at, ListenerIDs: []string{"l-1"}, PoolIDs: []string{"p-1"},
		Listeners: []ObservedListener{{
			Name: "ssh", ListenerID: "l-1", Protocol: ProtocolTCP, Port: 22, AllowedCIDRs: []string{"10.0.0.0/8"},
			ListenerStatus: StatusActive, PoolID: "p-1", PoolStatus: StatusActive, DefaultPoolID: "p-1",
			Members:   []Member{{Address: "10.0.0.5", Port: 22, Weight: 7}, {Address: "10.0.0.6", Port: 22, Weight: 1}},
			MemberIDs: map[string]string{"10.0.0.5:22": "m-5", "10.0.0.6:22": "m-6"},
			MonitorID: "hm-1", MonitorStatus: StatusActive, Monitor: &MonitorSpec{Interval: 10, Timeout: 5, HealthyThreshold: 3, UnhealthyThreshold: 3},
		}},
		Foreign: []ForeignListener{{ID: "l-9", Name: "theirs", Protocol: ProtocolTCP, Port: 9}},
	}

	raw, err := json.Marshal(read.memo())
	if err != nil {
		t.Fatal(err)
	}

	var memo *Memo
	if err := json.Unmarshal(raw, &memo); err != nil {
		t.Fatal(err)
	}

	now := func(status string, updated time.Time, listeners, pools []string) *Topology {
		return &Topology{ProvisioningStatus: status, UpdatedAt: updated, ListenerIDs: listeners, PoolIDs: pools}
	}

	for _, tc := range []struct {
		name string
		memo *Memo
		t    *Topology
		want bool
	}{
		{"unchanged", memo, now(StatusActive, at, []string{"l-1"}, []string{"p-1"}), true},
		{"no memo", nil, now(StatusActive, at, []string{"l-1"}, []string{"p-1"}), false},
		{"updated since", memo, now(StatusActive, at.Add(time.Second), []string{"l-1"}, []string{"p-1"}), false},
		{"not ACTIVE", memo, now(StatusPendingUpdate, at, []string{"l-1"}, []string{"p-1"}), false},
		{"a listener more", memo, now(StatusActive, at, []string{"l-1", "l-2"}, []string{"p-1"}), false},
		{"a pool replaced", memo, now(StatusActive, at, []string{"l-1"}, []string{"p-2"}), false},
		{"no updated_at", &Memo{ListenerIDs: []string{"l-1"}, PoolIDs: []string{"p-1"}}, now(StatusActive, time.Time{}, []string{"l-1"}, []string{"p-1"}), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			if got := tc.memo.answers(tc.t); got != tc.want {
				t.Fatalf("answered %v, want %v", got, tc.want)
			}
		})
	}

	got := now(StatusActive, at, []string{"l-1"}, []string{"p-1"})
	memo.children(got)

	if diff := cmp.Diff(read.Listeners, got.Listeners); diff != "" {
		t.Fatalf("children from the memo (-read +memo):\n%s", diff)
	}

	if diff := cmp.Diff(read.Foreign, got.Foreign); diff != "" {
		t.Fatalf("foreign listeners from the memo (-read +memo):\n%s", diff)
	}

	got.Listeners[0].Members[0].Weight, got.Listeners[0].MemberIDs["10.0.0.5:22"], got.Listeners[0].Monitor.Interval = 1, "x", 99
	again := now(StatusActive, at, nil, nil)
	memo.children(again)

	if again.Listeners[0].Members[0].Weight != 7 || again.Listeners[0].MemberIDs["10.0.0.5:22"] != "m-5" || again.Listeners[0].Monitor.Interval != 10 {
		t.Fatalf("a change to what the memo gave changed the memo: %+v", again.Listeners[0])
	}
}

// A topology vouches for its children only when all of it is ACTIVE, Octavia gave an
// updated_at and every member's ID is known.
func TestMemoOnlyOfASettledTopology(t *testing.T) {
	t.Parallel()

	at := time.Date(2026, 12, 2, 8, 34, 7, 0, time.UTC)
	top := func(change func(*Topology)) *Topology {
		t := &Topology{ProvisioningStatus: StatusActive, UpdatedAt: at, Listeners: []ObservedListener{{
			Name: "ssh", ListenerID: "l-1", ListenerStatus: StatusActive, PoolID: "p-1", PoolStatus: StatusActive,
			Members: []Member{{Address: "10.0.0.5", Port: 22, Weight: 1}}, MemberIDs: map[string]string{"10.0.0.5:22": "m-5"},
		}}}
		change(t)

		return t
	}

	for _, tc := range []struct {
		name   string
		change func(*Topology)
		want   bool
	}{
		{"settled", func(*Topology) {}, true},
		{"load balancer pending", func(t *Topology) { t.ProvisioningStatus = StatusPendingUpdate }, false},
		{"pool in ERROR", func(t *Topology) { t.Listeners[0].PoolStatus = StatusError }, false},
		{"no updated_at", func(t *Topology) { t.UpdatedAt = time.Time{} }, false},
		{"a member's ID unknown", func(t *Topology) { t.Listeners[0].MemberIDs = nil }, false},
	} {
		if got := top(tc.change).memo() != nil; got != tc.want {
			t.Errorf("%s: memo %v, want %v", tc.name, got, tc.want)
		}
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
