package loadbalancer

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/gophercloud/gophercloud/v2/openstack/loadbalancer/v2/pools"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// This file holds the members of a listener's pool: how they are read (with their weights,
// which only a pool's member list says) and how they are converged: a change of one member's
// weight alone is a PUT on that member, any other change one batch update of the pool's
// members.

// memberKey is what makes a member the same member: its address and port.
func memberKey(m Member) string { return m.Address + ":" + strconv.Itoa(m.Port) }

// readMembers reads the members of every pool in poolOf (pool ID → entry) at once, each pool's
// by its member list (a member's weight is said nowhere else).
func (s *Service) readMembers(ctx context.Context, poolOf map[string]*ObservedListener) error {
	reads := make([]func() error, 0, len(poolOf))

	for poolID, o := range poolOf {
		reads = append(reads, func() error { return s.readPoolMembers(ctx, poolID, o) })
	}

	return parallel(reads...)
}

// readPoolMembers reads the members of pool poolID into o: the members, their IDs and whether
// a unikorn_loadbalancer_members marked them.
func (s *Service) readPoolMembers(ctx context.Context, poolID string, o *ObservedListener) error {
	ms, err := s.listMembers(ctx, poolID)
	if err == nil {
		o.Members, o.MemberIDs, o.MembersTagged = membersOf(ms)
	}

	return err
}

// listMembers lists the members of pool poolID.
func (s *Service) listMembers(ctx context.Context, poolID string) ([]pools.Member, error) {
	return cloud.ListAll(ctx, pools.ListMembers(s.Octavia, poolID, pools.ListMembersOpts{}), pools.ExtractMembers,
		"the members of pool "+poolID)
}

// membersOf are the members of a pool that are not gone or going, sorted, their IDs, and
// whether one of them carries naming.MembersHeldTag.
func membersOf(ms []pools.Member) (out []Member, ids map[string]string, tagged bool) {
	out = make([]Member, 0, len(ms))
	ids = make(map[string]string, len(ms))

	for _, m := range ms {
		if m.ProvisioningStatus == StatusDeleted || m.ProvisioningStatus == StatusPendingDelete {
			continue
		}

		member := Member{Address: m.Address, Port: m.ProtocolPort, Weight: m.Weight}
		out = append(out, member)
		ids[memberKey(member)] = m.ID
		tagged = tagged || slices.Contains(m.Tags, naming.MembersHeldTag)
	}

	return sortMembers(out), ids, tagged
}

// reweighted is the one member of want whose weight alone differs from have; false when the
// change is anything else (none, members added or removed, several weights).
func reweighted(want, have []Member) (Member, bool) {
	if len(want) != len(have) {
		return Member{}, false
	}

	var changed []Member

	for i := range want {
		switch {
		case memberKey(want[i]) != memberKey(have[i]):
			return Member{}, false
		case want[i] != have[i]:
			changed = append(changed, want[i])
		}
	}

	if len(changed) != 1 {
		return Member{}, false
	}

	return changed[0], true
}

// convergeMembers makes the members of o's pool those of want: one member's new weight by a
// PUT on that member (its ID known), anything else by one batch update of the pool's members.
// o records what the change made.
//
// With mark (a unikorn_loadbalancer_members), every member is set with naming.MembersHeldTag,
// and members that lack it are set again even when nothing else changes: the mark and the
// members go in one batch, one change of the load balancer.
func (s *Service) convergeMembers(ctx context.Context, st *stepper, pool, subnetID string, want ListenerSpec, o *ObservedListener, mark bool) error {
	members := sortMembers(want.Members)
	remark := mark && len(members) > 0 && !o.MembersTagged

	if slices.Equal(members, o.Members) && !remark {
		return nil
	}

	if m, ok := reweighted(members, o.Members); ok && !remark && o.MemberIDs[memberKey(m)] != "" {
		return s.reweigh(ctx, st, pool, m, o)
	}

	var tags []string
	if mark {
		tags = []string{naming.MembersHeldTag}
	}

	batch := make([]pools.BatchUpdateMemberOpts, 0, len(members))
	for _, m := range members {
		batch = append(batch, pools.BatchUpdateMemberOpts{Address: m.Address, ProtocolPort: m.Port, SubnetID: &subnetID, Weight: new(m.Weight), Tags: tags})
	}

	if err := st.do(ctx, change{
		what:   fmt.Sprintf("setting the %d members of pool %s", len(members), pool),
		mutate: func(ctx context.Context) error { return pools.BatchUpdateMembers(ctx, s.Octavia, o.PoolID, batch).Err },
		landed: func(ctx context.Context) (bool, error) {
			ms, err := s.listMembers(ctx, o.PoolID)
			now, _, tagged := membersOf(ms)

			return err == nil && slices.Equal(now, members) && (tagged || !remark), err
		},
	}); err != nil {
		return err
	}

	// The batch's answer has no body, and says nothing of which members Octavia kept and which
	// it made anew: their IDs come from the status tree that ends the apply (settle).
	o.Members, o.MemberIDs, o.MembersTagged = members, nil, mark && len(members) > 0

	return nil
}

// reweigh sets the weight of member m of o's pool (a PUT on the member) and records the answer.
func (s *Service) reweigh(ctx context.Context, st *stepper, pool string, m Member, o *ObservedListener) error {
	id := o.MemberIDs[memberKey(m)]

	record := func(got *pools.Member) bool {
		i := slices.IndexFunc(o.Members, func(have Member) bool { return memberKey(have) == memberKey(m) })
		if i < 0 || got == nil {
			return false
		}

		o.Members[i].Weight = got.Weight

		return got.Weight == m.Weight
	}

	return st.do(ctx, change{
		what: fmt.Sprintf("setting the weight of member %s of pool %s to %d", memberKey(m), pool, m.Weight),
		mutate: func(ctx context.Context) error {
			got, err := pools.UpdateMember(ctx, s.Octavia, o.PoolID, id, pools.UpdateMemberOpts{Weight: new(m.Weight)}).Extract()
			if err == nil {
				record(got)
			}

			return err
		},
		landed: func(ctx context.Context) (bool, error) {
			got, err := pools.GetMember(ctx, s.Octavia, o.PoolID, id).Extract()
			if err != nil {
				return false, err
			}

			return record(got), nil
		},
	})
}

// createMembers are the members of the single-call create.
func createMembers(subnetID string, ms []Member) []pools.CreateMemberOpts {
	var out []pools.CreateMemberOpts
	for _, m := range sortMembers(ms) {
		out = append(out, pools.CreateMemberOpts{Address: m.Address, ProtocolPort: m.Port, SubnetID: subnetID, Weight: new(m.Weight)})
	}

	return out
}
