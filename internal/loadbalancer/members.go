package loadbalancer

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/gophercloud/gophercloud/v2/openstack/loadbalancer/v2/pools"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
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
		reads = append(reads, func() (err error) {
			o.Members, o.MemberIDs, err = s.listMembers(ctx, poolID)
			return err
		})
	}

	return parallel(reads...)
}

// listMembers lists the members of pool poolID, sorted, and their IDs by memberKey.
func (s *Service) listMembers(ctx context.Context, poolID string) ([]Member, map[string]string, error) {
	ms, err := cloud.ListAll(ctx, pools.ListMembers(s.Octavia, poolID, pools.ListMembersOpts{}), pools.ExtractMembers,
		"the members of pool "+poolID)
	if err != nil {
		return nil, nil, err
	}

	out, ids := membersOf(ms)

	return out, ids, nil
}

// membersOf are the members of a pool that are not gone or going, sorted, and their IDs.
func membersOf(ms []pools.Member) ([]Member, map[string]string) {
	out := make([]Member, 0, len(ms))
	ids := make(map[string]string, len(ms))

	for _, m := range ms {
		if m.ProvisioningStatus == StatusDeleted || m.ProvisioningStatus == StatusPendingDelete {
			continue
		}

		member := Member{Address: m.Address, Port: m.ProtocolPort, Weight: m.Weight}
		out = append(out, member)
		ids[memberKey(member)] = m.ID
	}

	return sortMembers(out), ids
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
func (s *Service) convergeMembers(ctx context.Context, st *stepper, pool, subnetID string, want ListenerSpec, o *ObservedListener) error {
	members := sortMembers(want.Members)
	if slices.Equal(members, o.Members) {
		return nil
	}

	if m, ok := reweighted(members, o.Members); ok && o.MemberIDs[memberKey(m)] != "" {
		return s.reweigh(ctx, st, pool, m, o)
	}

	batch := make([]pools.BatchUpdateMemberOpts, 0, len(members))
	for _, m := range members {
		batch = append(batch, pools.BatchUpdateMemberOpts{Address: m.Address, ProtocolPort: m.Port, SubnetID: &subnetID, Weight: new(m.Weight)})
	}

	if err := st.do(ctx, change{
		what:   fmt.Sprintf("setting the %d members of pool %s", len(members), pool),
		mutate: func(ctx context.Context) error { return pools.BatchUpdateMembers(ctx, s.Octavia, o.PoolID, batch).Err },
		landed: func(ctx context.Context) (bool, error) {
			now, _, err := s.listMembers(ctx, o.PoolID)
			return err == nil && slices.Equal(now, members), err
		},
	}); err != nil {
		return err
	}

	// The batch's answer has no body, and says nothing of which members Octavia kept and which
	// it made anew: their IDs come from the status tree that ends the apply (settle).
	o.Members, o.MemberIDs = members, nil

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
