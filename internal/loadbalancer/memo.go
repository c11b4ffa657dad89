package loadbalancer

import (
	"maps"
	"slices"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/loadbalancer/v2/loadbalancers"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
)

// Memo is what the last read or apply of a load balancer found of its children (listeners,
// pools, health monitors and members, with their IDs and settings), kept in the resource's
// private state so that the next read need not list them again: a refresh then costs the
// load balancer listing and its floating IP, and the read before an update only the load
// balancer.
//
// Octavia puts the load balancer through PENDING_UPDATE for every change of any child, a
// member's weight included, which sets its updated_at; the load balancer object also names
// its listeners' and pools' IDs. So while the load balancer is ACTIVE with the memoed
// updated_at and the same listener and pool IDs, its children are as memoed.
// TestAccLoadBalancer_drift changes a listener, members and a member's weight alone out of
// band to hold Octavia to this.
type Memo struct {
	UpdatedAt   time.Time          `json:"updated_at"`
	ListenerIDs []string           `json:"listener_ids"`
	PoolIDs     []string           `json:"pool_ids"`
	Listeners   []ObservedListener `json:"listeners"`
	Foreign     []ForeignListener  `json:"foreign"`
}

// privateMemo is the key of the resource's private state that keeps its Memo.
const privateMemo = "children"

// answers tells whether the memo holds t's children as they are now: t (the load balancer as
// just read, without children) is ACTIVE, with the memoed updated_at and child IDs.
func (m *Memo) answers(t *Topology) bool {
	return m != nil && t.ProvisioningStatus == StatusActive && !t.UpdatedAt.IsZero() && m.UpdatedAt.Equal(t.UpdatedAt) &&
		slices.Equal(m.ListenerIDs, t.ListenerIDs) && slices.Equal(m.PoolIDs, t.PoolIDs)
}

// children gives t the memoed children: copies, which the caller may change.
func (m *Memo) children(t *Topology) {
	t.Listeners = make([]ObservedListener, len(m.Listeners))
	for i, o := range m.Listeners {
		t.Listeners[i] = o.clone()
	}

	t.Foreign = slices.Clone(m.Foreign)
}

// memo is what t says of its children, for the next read; nil when t cannot vouch for them:
// the load balancer or a child is not ACTIVE, Octavia gave no updated_at, or a member's ID is
// unknown (a batch update's, which the status tree did not name).
func (t *Topology) memo() *Memo {
	if t == nil || t.ProvisioningStatus != StatusActive || t.UpdatedAt.IsZero() {
		return nil
	}

	if object, _ := t.notActive(); object != "" {
		return nil
	}

	if !t.membersKnown() {
		return nil
	}

	m := &Memo{UpdatedAt: t.UpdatedAt, ListenerIDs: t.ListenerIDs, PoolIDs: t.PoolIDs, Foreign: t.Foreign}

	for _, o := range t.Listeners {
		m.Listeners = append(m.Listeners, o.clone())
	}

	return m
}

// membersKnown tells whether t knows the ID of every member.
func (t *Topology) membersKnown() bool {
	for _, o := range t.Listeners {
		for _, member := range o.Members {
			if o.MemberIDs[memberKey(member)] == "" {
				return false
			}
		}
	}

	return true
}

// clone is a copy of o that shares nothing with it.
func (o ObservedListener) clone() ObservedListener {
	o.AllowedCIDRs = slices.Clone(o.AllowedCIDRs)
	o.Members = slices.Clone(o.Members)
	o.MemberIDs = maps.Clone(o.MemberIDs)

	if o.Monitor != nil {
		spec := *o.Monitor
		o.Monitor = &spec
	}

	return o
}

// childIDs are the IDs of lb's listeners and pools as the load balancer object names them,
// sorted.
func childIDs(lb *loadbalancers.LoadBalancer) (listenerIDs, poolIDs []string) {
	for _, l := range lb.Listeners {
		listenerIDs = append(listenerIDs, l.ID)
	}

	for _, p := range lb.Pools {
		poolIDs = append(poolIDs, p.ID)
	}

	return cloud.SortedSet(listenerIDs), cloud.SortedSet(poolIDs)
}
