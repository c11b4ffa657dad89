package loadbalancer

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/gophercloud/gophercloud/v2/openstack/loadbalancer/v2/loadbalancers"
	"github.com/gophercloud/gophercloud/v2/openstack/loadbalancer/v2/pools"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// This file holds the core of unikorn_loadbalancer_members (issue 32): the members of one
// listener's pool given outside the unikorn_loadbalancer, so that the load balancer can be made
// while the servers boot and only the member batches wait for them.
//
// A pool's members are managed in exactly one place. Who holds them is written on the pool as
// Octavia tags (naming.MembersExternalTag, naming.MembersHeldTag), each by the resource it
// speaks for:
//
//   - the load balancer resource tags a pool "external" while the pool's listener leaves
//     `members` unset, and then never touches its members; it takes the tag off again when the
//     listener gives `members`, and refuses to while the pool is held (preflight);
//   - the members resource holds only a pool tagged "external" (else the load balancer resource
//     manages the members inline, and it refuses before any write), tags it "held" as its first
//     write, sets the members with the load balancer resource's one batch update
//     (convergeMembers), and on delete sets them to none and takes its tag off.

// HeldMembersError refuses a listener whose configuration gives members, or that the
// configuration no longer has (Pruned), while a unikorn_loadbalancer_members holds its pool's
// members.
type HeldMembersError struct {
	LoadBalancer string // the user-given name
	Listener     string
	PoolID       string
	Pruned       bool
}

func (e *HeldMembersError) Error() string {
	if e.Pruned {
		return fmt.Sprintf("%s is no longer configured, but the members of its pool %s are held by a "+
			"unikorn_loadbalancer_members resource (the pool carries the tag %s): remove that resource too (an apply that "+
			"does both destroys it first)", describeListener(e.LoadBalancer, e.Listener), e.PoolID, naming.MembersHeldTag)
	}

	return fmt.Sprintf("the members of %s (pool %s) are held by a unikorn_loadbalancer_members resource (its pool carries "+
		"the tag %s): a listener's members are managed in one place only. Remove `members` from this listener, or remove "+
		"that resource (destroying it sets the pool's members to none and takes its tag off)",
		describeListener(e.LoadBalancer, e.Listener), e.PoolID, naming.MembersHeldTag)
}

// InlineMembersError refuses to hold the members of a listener whose unikorn_loadbalancer gives
// them inline (its pool does not carry naming.MembersExternalTag).
type InlineMembersError struct {
	LoadBalancerID string
	LoadBalancer   string // the user-given name
	Listener       string
	PoolID         string
	// Unmarked says that this provider did not make the pool (Unikorn did, or someone by hand):
	// it is never tagged, and its members are given inline only.
	Unmarked bool
}

func (e *InlineMembersError) Error() string {
	if e.Unmarked {
		return fmt.Sprintf("pool %s of %s of load balancer %s (%s) was not made by this provider (Unikorn's, or made by "+
			"hand and imported): its members are given inline only, in the unikorn_loadbalancer", e.PoolID,
			describeListener(e.LoadBalancer, e.Listener), e.LoadBalancer, e.LoadBalancerID)
	}

	return fmt.Sprintf("the unikorn_loadbalancer %s (%s) manages the members of %s (pool %s) inline: a listener's "+
		"members are managed in one place only. Leave `members` unset (null, not []) on that listener of the "+
		"unikorn_loadbalancer and apply it (its pool then carries the tag %s); an apply that does both orders them so",
		e.LoadBalancer, e.LoadBalancerID, describeListener(e.LoadBalancer, e.Listener), e.PoolID, naming.MembersExternalTag)
}

// AlreadyHeldError refuses the create of a unikorn_loadbalancer_members for a pool that another
// one holds already (or that an interrupted create of one left held).
type AlreadyHeldError struct {
	Region, LoadBalancerID, Listener, PoolID string
}

func (e *AlreadyHeldError) Error() string {
	importID := e.LoadBalancerID + "/" + e.Listener
	if e.Region != "" {
		importID = e.Region + "/" + importID
	}

	return fmt.Sprintf("the members of listener %q of load balancer %s (pool %s) are held already by a "+
		"unikorn_loadbalancer_members (its pool carries the tag %s): another configuration's, or one whose create was "+
		"interrupted. Import it: terraform import <address> %s", e.Listener, e.LoadBalancerID, e.PoolID,
		naming.MembersHeldTag, importID)
}

// setMemberTags records which tags of who holds its members the pool carries.
func (o *ObservedListener) setMemberTags(tags []string) {
	o.MembersExternal = slices.Contains(tags, naming.MembersExternalTag)
	o.MembersHeld = slices.Contains(tags, naming.MembersHeldTag)
}

// held tells whether a unikorn_loadbalancer_members holds the pool's members: the pool or one
// of its members carries naming.MembersHeldTag.
func (o *ObservedListener) held() bool {
	return o.MembersHeld || o.MembersTagged
}

// poolTags are the tags a new pool of listener l is posted with: the creation mark, and the
// tag that leaves its members to someone else when l leaves them unset.
func poolTags(l ListenerSpec) []string {
	tags := created.Tags()
	if l.MembersElsewhere {
		tags = append(tags, naming.MembersExternalTag)
	}

	return tags
}

// convergeMemberHolder puts on (or takes off) the pool of o the tag that says the load balancer
// resource leaves its members alone, as want asks.
func (s *Service) convergeMemberHolder(ctx context.Context, st *stepper, pool string, want ListenerSpec, o *ObservedListener) error {
	if o.PoolID == "" || want.MembersElsewhere == o.MembersExternal {
		return nil
	}

	if want.MembersElsewhere && o.PoolMark.Kind != Type {
		// A pool this provider did not make (Unikorn's, or one made by hand, imported) is never
		// tagged: an apply writes nothing into it. Its members are left alone all the same.
		return nil
	}

	return s.retagPool(ctx, st, pool, o, naming.MembersExternalTag, want.MembersElsewhere)
}

// retagPool puts tag on the pool of o (on: true) or takes it off, as one step of st, keeping
// its other tags (read again first: the pool's tags are not all recorded), and records the
// pool's tags after the change in o.
func (s *Service) retagPool(ctx context.Context, st *stepper, pool string, o *ObservedListener, tag string, on bool) error {
	verb := "tagging pool " + pool + " " + tag
	if !on {
		verb = "taking tag " + tag + " off pool " + pool
	}

	done := func(tags []string) bool { return slices.Contains(tags, tag) == on }

	return st.do(ctx, change{
		what: verb,
		mutate: func(ctx context.Context) error {
			p, err := pools.Get(ctx, s.Octavia, o.PoolID).Extract()
			if err != nil {
				return err
			}

			if done(p.Tags) {
				o.setMemberTags(p.Tags)
				return nil
			}

			tags := slices.DeleteFunc(slices.Clone(p.Tags), func(t string) bool { return t == tag })
			if on {
				tags = append(tags, tag)
			}

			p, err = pools.Update(ctx, s.Octavia, o.PoolID, pools.UpdateOpts{Tags: &tags}).Extract()
			if err == nil {
				o.setMemberTags(p.Tags)
			}

			return err
		},
		landed: func(ctx context.Context) (bool, error) {
			p, err := pools.Get(ctx, s.Octavia, o.PoolID).Extract()
			if err != nil {
				return false, err
			}

			o.setMemberTags(p.Tags)

			return done(p.Tags), nil
		},
	})
}

// ListenerPool is one listener's pool of a load balancer as unikorn_loadbalancer_members sees
// it: where it is, who holds its members and what they are.
type ListenerPool struct {
	LoadBalancerID string
	// LoadBalancer is the user-given name of the load balancer (lb-<name>).
	LoadBalancer string
	// ProjectID is the load balancer's project.
	ProjectID string
	Listener  string
	// PoolName is lb-<name>-<listener>-pool.
	PoolName string
	// Pool holds the pool's ID, its holders' tags, members and member IDs.
	Pool ObservedListener

	lb *loadbalancers.LoadBalancer
}

// FindListenerPool finds load balancer lbID and the pool of its listener listener (by the
// linkage contract's name, exactly), with its members; nil without error when either is gone.
func (s *Service) FindListenerPool(ctx context.Context, lbID, listener string) (*ListenerPool, error) {
	lb, err := s.get(ctx, lbID)
	if err != nil || lb == nil || lb.ProvisioningStatus == StatusPendingDelete {
		return nil, err
	}

	name, err := NameOf(lb.Name)
	if err != nil {
		return nil, err
	}

	poolName := naming.Pool(name, listener)

	all, err := s.listPools(ctx, lb.ID)
	if err != nil {
		return nil, err
	}

	all = slices.DeleteFunc(all, func(p pools.Pool) bool { return removed(p.ProvisioningStatus) || !poolBelongsTo(p, lb.ID) })

	p, ok, err := naming.One("pool", poolName, all, func(p pools.Pool) string { return p.Name }, func(p pools.Pool) string { return p.ID })
	if err != nil || !ok {
		return nil, err
	}

	lp := &ListenerPool{
		LoadBalancerID: lb.ID, LoadBalancer: name, ProjectID: lb.ProjectID, Listener: listener, PoolName: poolName, lb: lb,
		Pool: ObservedListener{Name: listener, PoolID: p.ID, PoolStatus: p.ProvisioningStatus, PoolMark: naming.MarkOfTags(p.Tags)},
	}
	lp.Pool.setMemberTags(p.Tags)

	if err := s.readPoolMembers(ctx, p.ID, &lp.Pool); err != nil {
		return nil, err
	}

	return lp, nil
}

// PoolGoneError is a load balancer or listener pool that is not there to hold members of.
type PoolGoneError struct {
	LoadBalancerID, Listener string
}

func (e *PoolGoneError) Error() string {
	return fmt.Sprintf("load balancer %s has no pool for listener %q (no load balancer of that ID, or no listener of that "+
		"name in its unikorn_loadbalancer)", e.LoadBalancerID, e.Listener)
}

// lbLocks serialize, within the provider process, the changes that the members resources of
// one load balancer make (load balancer ID → *sync.Mutex): Terraform applies them in parallel,
// while Octavia takes one change of a load balancer at a time and answers another 409 (its
// lock), which the stepper rightly never retries. Only the changes are serialized: each
// resource reads its own pool before it takes the lock (the pools are not each other's). The
// load balancer resource itself is ordered before them (they refer to its ID).
var lbLocks sync.Map

// lockLoadBalancer waits for the members changes of load balancer id in this process to end
// and returns the unlock, and whether it had to wait (another one changed the load balancer
// meanwhile).
func lockLoadBalancer(id string) (unlock func(), waited bool) {
	v, _ := lbLocks.LoadOrStore(id, &sync.Mutex{})

	mu, _ := v.(*sync.Mutex)
	if !mu.TryLock() {
		mu.Lock()

		waited = true
	}

	return mu.Unlock, waited
}

// HoldMembers makes the members of listener's pool of load balancer lbID exactly members, held
// by a unikorn_loadbalancer_members: it refuses, before any write, a pool whose members the
// load balancer resource manages inline (*InlineMembersError) and, on create, one held already
// (*AlreadyHeldError). The members are set with the load balancer resource's update (one
// weight alone by a PUT on that member, anything else in one batch), each carrying
// naming.MembersHeldTag: the mark and the members are one change of the load balancer. An
// empty list cannot carry it: the pool is tagged instead, before its members go. onHeld is
// called once the marking change is answered, before any wait. It returns the pool as the
// change left it.
func (s *Service) HoldMembers(ctx context.Context, lbID, listener string, members []Member, create bool, onHeld func()) (*ListenerPool, error) {
	lp, err := s.FindListenerPool(ctx, lbID, listener)

	switch {
	case err != nil:
		return nil, err
	case lp == nil:
		return nil, &PoolGoneError{LoadBalancerID: lbID, Listener: listener}
	case create && lp.Pool.held():
		return lp, &AlreadyHeldError{Region: s.Region, LoadBalancerID: lp.LoadBalancerID, Listener: listener, PoolID: lp.Pool.PoolID}
	case !lp.Pool.MembersExternal && !lp.Pool.held():
		return lp, &InlineMembersError{LoadBalancerID: lp.LoadBalancerID, LoadBalancer: lp.LoadBalancer, Listener: listener,
			PoolID: lp.Pool.PoolID, Unmarked: lp.Pool.PoolMark.Kind != Type}
	}

	unlock, waited := lockLoadBalancer(lbID)
	defer unlock()

	// Whatever follows changes the load balancer: read it from Octavia from now on. Another
	// members resource of the load balancer may have changed it while this one waited for the
	// lock: then the stepper looks before its first change.
	s.wroteAll("")

	st := &stepper{s: s, id: lp.LoadBalancerID, ready: !waited && lp.lb.ProvisioningStatus == StatusActive, onChange: onHeld}

	if len(members) == 0 && !lp.Pool.MembersHeld {
		if err := s.retagPool(ctx, st, lp.PoolName, &lp.Pool, naming.MembersHeldTag, true); err != nil {
			return lp, err
		}
	}

	if err := s.convergeMembers(ctx, st, lp.PoolName, lp.lb.VipSubnetID, ListenerSpec{Members: members}, &lp.Pool, true); err != nil {
		return lp, err
	}

	tflog.Debug(ctx, "Members of the listener's pool held", map[string]any{
		"loadbalancer_id": lp.LoadBalancerID, "pool_id": lp.Pool.PoolID, "members": len(lp.Pool.Members), "steps": st.steps,
	})

	return lp, nil
}

// ReleaseMembers sets the members of listener's pool of load balancer lbID to none (which takes
// their marks with them) and takes the tag of a unikorn_loadbalancer_members off the pool. A
// load balancer or pool already gone is fine; a pool that no unikorn_loadbalancer_members
// holds is left as it is.
func (s *Service) ReleaseMembers(ctx context.Context, lbID, listener string) error {
	lp, err := s.FindListenerPool(ctx, lbID, listener)
	if err != nil || lp == nil {
		return err
	}

	if !lp.Pool.held() {
		tflog.Warn(ctx, "The listener's pool is not held by a unikorn_loadbalancer_members; its members are left as they are",
			map[string]any{"loadbalancer_id": lp.LoadBalancerID, "pool_id": lp.Pool.PoolID})

		return nil
	}

	unlock, waited := lockLoadBalancer(lbID)
	defer unlock()

	s.wroteAll("")

	st := &stepper{s: s, id: lp.LoadBalancerID, ready: !waited && lp.lb.ProvisioningStatus == StatusActive}

	if err := s.convergeMembers(ctx, st, lp.PoolName, lp.lb.VipSubnetID, ListenerSpec{}, &lp.Pool, false); err != nil {
		return ignoreNotFound(err)
	}

	if !lp.Pool.MembersHeld {
		return nil
	}

	return ignoreNotFound(s.retagPool(ctx, st, lp.PoolName, &lp.Pool, naming.MembersHeldTag, false))
}
