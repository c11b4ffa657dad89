package loadbalancer

import (
	"errors"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// twoListeners is a load balancer whose listener "http" leaves its members elsewhere (inline
// members unset) and whose listener "ssh" gives them inline.
func twoListeners() Spec {
	return Spec{
		Name:      "app",
		NetworkID: "net-1",
		Listeners: []ListenerSpec{
			{Name: "http", Protocol: ProtocolTCP, Port: 80, MembersElsewhere: true},
			{Name: "ssh", Protocol: ProtocolTCP, Port: 22, Members: []Member{{"10.0.0.5", 22, 1}}},
		},
	}
}

// poolOf is the fake's pool named name.
func (f *fakeCloud) poolOf(t *testing.T, name string) map[string]any {
	t.Helper()

	f.mu.Lock()
	defer f.mu.Unlock()

	for _, p := range f.pools {
		if p["name"] == name {
			return p
		}
	}

	t.Fatalf("no pool %s", name)

	return nil
}

// poolState is what the fake holds of pool name: its tags and its members, sorted, with their
// IDs by memberKey.
func (f *fakeCloud) poolState(t *testing.T, name string) (tags []string, members []Member, ids map[string]string) {
	t.Helper()

	p := f.poolOf(t, name)

	f.mu.Lock()
	defer f.mu.Unlock()

	for _, tag := range items(p["tags"]) {
		tags = append(tags, str(tag))
	}

	ids = map[string]string{}

	for _, m := range f.members[str(p["id"])] {
		port, _ := m["protocol_port"].(float64)
		weight, _ := m["weight"].(float64)
		member := Member{Address: str(m["address"]), Port: int(port), Weight: int(weight)}
		members = append(members, member)
		ids[memberKey(member)] = str(m["id"])
	}

	return tags, sortMembers(members), ids
}

func octaviaMutations(f *fakeCloud) []string {
	_, mutations := f.counters()
	return mutations
}

func TestEnsure_membersElsewhereTagsThePoolAndLeavesItsMembersAlone(t *testing.T) {
	t.Parallel()

	f := newFakeCloud(t)
	svc := f.service()

	top, err := svc.Ensure(t.Context(), twoListeners(), "", nil)
	if err != nil {
		t.Fatal(err)
	}

	// The pool of "http" is posted with the tag and gets no member batch; "ssh" gets its own.
	want := []string{"POST loadbalancers", "POST listeners", "POST pools", "POST listeners", "POST pools", "PUT members", "PUT loadbalancers"}
	if diff := cmp.Diff(want, octaviaMutations(f)); diff != "" {
		t.Errorf("mutations (-want +got):\n%s", diff)
	}

	tags, _, _ := f.poolState(t, naming.Pool("app", "http"))
	if !slices.Contains(tags, naming.MembersExternalTag) || !slices.Contains(tags, naming.MarkPrefix+Type) {
		t.Errorf("pool tags %v, want the creation mark and %s", tags, naming.MembersExternalTag)
	}

	if tags, _, _ := f.poolState(t, naming.Pool("app", "ssh")); slices.Contains(tags, naming.MembersExternalTag) {
		t.Errorf("the pool of inline members is tagged %v", tags)
	}

	// Someone else (the members resource) holds the members: the load balancer's updates leave
	// them alone, whatever they are.
	if _, err := svc.HoldMembers(t.Context(), top.ID, "http", []Member{{"10.0.0.8", 8080, 1}}, true, nil); err != nil {
		t.Fatal(err)
	}

	f.resetCounters()

	spec := twoListeners()
	spec.Listeners[0].AllowedCIDRs = []string{"10.0.0.0/8"}

	if _, err := svc.Ensure(t.Context(), spec, top.ID, nil); err != nil {
		t.Fatal(err)
	}

	if diff := cmp.Diff([]string{"PUT listeners"}, octaviaMutations(f)); diff != "" {
		t.Errorf("mutations of an update (-want +got):\n%s", diff)
	}

	if _, members, _ := f.poolState(t, naming.Pool("app", "http")); !slices.Equal(members, []Member{{"10.0.0.8", 8080, 1}}) {
		t.Errorf("members %v after the load balancer's update, want those the members resource set", members)
	}
}

func TestHoldMembers_setReweighRelease(t *testing.T) {
	t.Parallel()

	f := newFakeCloud(t)
	svc := f.service()

	top, err := svc.Ensure(t.Context(), twoListeners(), "", nil)
	if err != nil {
		t.Fatal(err)
	}

	pool := naming.Pool("app", "http")
	members := []Member{{"10.0.0.9", 8080, 1}, {"10.0.0.8", 8080, 3}}

	f.resetCounters()

	held := false

	lp, err := svc.HoldMembers(t.Context(), top.ID, "http", members, true, func() { held = true })
	if err != nil {
		t.Fatal(err)
	}

	// One batch: the members, each with the mark of who holds them; the pool is not written.
	if diff := cmp.Diff([]string{"PUT members"}, octaviaMutations(f)); diff != "" {
		t.Errorf("mutations of the create (-want +got):\n%s", diff)
	}

	tags, got, ids := f.poolState(t, pool)
	if !held || slices.Contains(tags, naming.MembersHeldTag) || !slices.Contains(tags, naming.MembersExternalTag) ||
		!slices.Contains(tags, naming.MarkPrefix+Type) {
		t.Errorf("onHeld called: %t; pool tags %v, want the creation mark and the external tag alone", held, tags)
	}

	for _, m := range f.members[lp.Pool.PoolID] {
		if tags := strs(m["tags"]); !slices.Equal(tags, []string{naming.MembersHeldTag}) {
			t.Errorf("member %v has the tags %v, want %s", m["address"], tags, naming.MembersHeldTag)
		}
	}

	if !lp.Pool.held() {
		t.Error("the pool returned is not held")
	}

	if want := sortMembers(members); !slices.Equal(got, want) || !slices.Equal(lp.Pool.Members, want) {
		t.Errorf("members %v (returned %v), want %v", got, lp.Pool.Members, want)
	}

	// One weight alone: a PUT on that member, which keeps its ID.
	f.resetCounters()

	members[0].Weight = 5

	if _, err := svc.HoldMembers(t.Context(), top.ID, "http", members, false, nil); err != nil {
		t.Fatal(err)
	}

	if diff := cmp.Diff([]string{"PUT member"}, octaviaMutations(f)); diff != "" {
		t.Errorf("mutations of a weight change (-want +got):\n%s", diff)
	}

	if _, got, now := f.poolState(t, pool); !slices.Equal(got, sortMembers(members)) || now[memberKey(members[0])] != ids[memberKey(members[0])] {
		t.Errorf("members %v (IDs %v, were %v), want %v with the same IDs", got, now, ids, sortMembers(members))
	}

	// Unchanged: nothing written.
	f.resetCounters()

	if _, err := svc.HoldMembers(t.Context(), top.ID, "http", members, false, nil); err != nil {
		t.Fatal(err)
	}

	if m := octaviaMutations(f); len(m) != 0 {
		t.Errorf("mutations of an unchanged update: %v, want none", m)
	}

	// Delete: none left, one batch (the marks go with the members).
	f.resetCounters()

	if err := svc.ReleaseMembers(t.Context(), top.ID, "http"); err != nil {
		t.Fatal(err)
	}

	if diff := cmp.Diff([]string{"PUT members"}, octaviaMutations(f)); diff != "" {
		t.Errorf("mutations of the delete (-want +got):\n%s", diff)
	}

	if tags, got, _ := f.poolState(t, pool); len(got) != 0 || slices.Contains(tags, naming.MembersHeldTag) ||
		!slices.Contains(tags, naming.MembersExternalTag) {
		t.Errorf("after the delete: members %v, tags %v; want none, and the pool still left to someone else", got, tags)
	}

	if conflicts, _ := f.counters(); conflicts != 0 {
		t.Errorf("%d requests met the immutability lock", conflicts)
	}

	// Gone load balancer or listener: a delete is done.
	if err := svc.ReleaseMembers(t.Context(), top.ID, "nosuch"); err != nil {
		t.Errorf("delete for a listener without pool: %v", err)
	}

	if err := svc.ReleaseMembers(t.Context(), "lb-gone", "http"); err != nil {
		t.Errorf("delete for a load balancer that is gone: %v", err)
	}
}

func TestMembers_heldInOnePlaceOnly(t *testing.T) {
	t.Parallel()

	f := newFakeCloud(t)
	svc := f.service()

	top, err := svc.Ensure(t.Context(), twoListeners(), "", nil)
	if err != nil {
		t.Fatal(err)
	}

	f.resetCounters()

	// The load balancer resource gives the members of "ssh" inline: refused, nothing written.
	var inline *InlineMembersError
	if _, err := svc.HoldMembers(t.Context(), top.ID, "ssh", []Member{{"10.0.0.8", 22, 1}}, true, nil); !errors.As(err, &inline) {
		t.Errorf("holding inline members: %v, want an InlineMembersError", err)
	}

	var gone *PoolGoneError
	if _, err := svc.HoldMembers(t.Context(), top.ID, "nosuch", nil, true, nil); !errors.As(err, &gone) {
		t.Errorf("holding the members of a listener without pool: %v, want a PoolGoneError", err)
	}

	if m := octaviaMutations(f); len(m) != 0 {
		t.Errorf("mutations of refused holds: %v, want none", m)
	}

	if _, err := svc.HoldMembers(t.Context(), top.ID, "http", []Member{{"10.0.0.8", 80, 1}}, true, nil); err != nil {
		t.Fatal(err)
	}

	// A second create for the held pool: refused (import it).
	var twice *AlreadyHeldError
	if _, err := svc.HoldMembers(t.Context(), top.ID, "http", nil, true, nil); !errors.As(err, &twice) {
		t.Errorf("holding held members again: %v, want an AlreadyHeldError", err)
	}

	// The load balancer resource now gives the held members inline: refused before any change,
	// even one of another listener.
	f.resetCounters()

	spec := twoListeners()
	spec.Listeners[0].MembersElsewhere = false
	spec.Listeners[0].Members = []Member{{"10.0.0.9", 80, 1}}
	spec.Listeners[1].AllowedCIDRs = []string{"10.0.0.0/8"}

	var refused *HeldMembersError
	if _, err := svc.Ensure(t.Context(), spec, top.ID, nil); !errors.As(err, &refused) {
		t.Errorf("inline members of a held pool: %v, want a HeldMembersError", err)
	}

	// Nor may the listener go while its members are held.
	pruned := twoListeners()
	pruned.Listeners = pruned.Listeners[1:]

	if _, err := svc.Ensure(t.Context(), pruned, top.ID, nil); !errors.As(err, &refused) || !refused.Pruned {
		t.Errorf("pruning a listener whose members are held: %v, want a HeldMembersError", err)
	}

	if m := octaviaMutations(f); len(m) != 0 {
		t.Errorf("mutations of refused updates: %v, want none", m)
	}

	// Once the members resource let go, the load balancer takes them back: the members in one
	// batch, then its tag off.
	if err := svc.ReleaseMembers(t.Context(), top.ID, "http"); err != nil {
		t.Fatal(err)
	}

	f.resetCounters()

	spec.Listeners[1].AllowedCIDRs = nil

	if _, err := svc.Ensure(t.Context(), spec, top.ID, nil); err != nil {
		t.Fatal(err)
	}

	if diff := cmp.Diff([]string{"PUT members", "PUT pools"}, octaviaMutations(f)); diff != "" {
		t.Errorf("mutations of taking the members back (-want +got):\n%s", diff)
	}

	tags, members, _ := f.poolState(t, naming.Pool("app", "http"))
	if slices.Contains(tags, naming.MembersExternalTag) || !slices.Equal(members, spec.Listeners[0].Members) {
		t.Errorf("after taking the members back: tags %v, members %v", tags, members)
	}

	// And leaves them elsewhere again: the tag on, the members as they are.
	f.resetCounters()

	if _, err := svc.Ensure(t.Context(), twoListeners(), top.ID, nil); err != nil {
		t.Fatal(err)
	}

	if diff := cmp.Diff([]string{"PUT pools"}, octaviaMutations(f)); diff != "" {
		t.Errorf("mutations of leaving the members elsewhere (-want +got):\n%s", diff)
	}

	if tags, kept, _ := f.poolState(t, naming.Pool("app", "http")); !slices.Contains(tags, naming.MembersExternalTag) || !slices.Equal(kept, members) {
		t.Errorf("after leaving the members elsewhere: tags %v, members %v, want the tag and the members kept", tags, kept)
	}
}

func TestFlattenListener_membersElsewhereStayNull(t *testing.T) {
	t.Parallel()

	ctx := t.Context()

	var diags diag.Diagnostics

	o := ObservedListener{Name: "http", Protocol: ProtocolTCP, Port: 80, ListenerID: "l", PoolID: "p", DefaultPoolID: "p",
		Members: []Member{{"10.0.0.8", 80, 1}}}

	for _, c := range []struct {
		name     string
		prior    *listenerModel
		external bool
		null     bool
	}{
		{"unset in the state", &listenerModel{Members: types.ListNull(memberType)}, false, true},
		{"import of a pool left elsewhere", nil, true, true},
		{"import of inline members", nil, false, false},
		{"inline in the state", &listenerModel{Members: emptyMembers(&diags)}, false, false},
	} {
		obs := o
		obs.MembersExternal = c.external

		l := flattenListener(ctx, "app", obs, c.prior, &diags)
		if l.Members.IsNull() != c.null {
			t.Errorf("%s: members %v, want null: %t", c.name, l.Members, c.null)
		}
	}

	if diags.HasError() {
		t.Error(diags)
	}
}

func TestMembers_unmarkedPoolIsNeverTagged(t *testing.T) {
	t.Parallel()

	f := newFakeCloud(t)
	svc := f.service()

	top, err := svc.Ensure(t.Context(), twoListeners(), "", nil)
	if err != nil {
		t.Fatal(err)
	}

	// The pool of "http" as Unikorn makes one: no tags at all.
	p := f.poolOf(t, naming.Pool("app", "http"))
	f.mu.Lock()
	p["tags"] = []any{}
	f.mu.Unlock()
	f.resetCounters()

	spec := twoListeners()
	spec.Listeners[1].AllowedCIDRs = []string{"10.0.0.0/8"}

	if _, err := svc.Ensure(t.Context(), spec, top.ID, nil); err != nil {
		t.Fatal(err)
	}

	if diff := cmp.Diff([]string{"PUT listeners"}, octaviaMutations(f)); diff != "" {
		t.Errorf("mutations (-want +got):\n%s", diff)
	}

	var inline *InlineMembersError
	if _, err := svc.HoldMembers(t.Context(), top.ID, "http", nil, true, nil); !errors.As(err, &inline) || !inline.Unmarked {
		t.Errorf("holding the members of an unmarked pool: %v, want an InlineMembersError saying it is not this provider's", err)
	}
}

func TestSplitMembersID(t *testing.T) {
	t.Parallel()

	for _, c := range []struct {
		id, region, lb, listener string
		ok                       bool
	}{
		{"RegionOne/lb-id/http", "RegionOne", "lb-id", "http", true},
		{"lb-id/http", "", "lb-id", "http", true},
		{"lb-id", "", "", "", false},
		{"RegionOne/lb-id/", "", "", "", false},
		{"a/b/c/d", "", "", "", false},
	} {
		region, lb, listener, err := splitMembersID(c.id)
		if (err == nil) != c.ok || region != c.region || lb != c.lb || listener != c.listener {
			t.Errorf("splitMembersID(%q) = %q, %q, %q, %v", c.id, region, lb, listener, err)
		}
	}
}

func TestHoldMembers_parallelOnOneLoadBalancer(t *testing.T) {
	t.Parallel()

	f := newFakeCloud(t)
	svc := f.service()

	spec := twoListeners()
	spec.Listeners[1].Members, spec.Listeners[1].MembersElsewhere = nil, true

	top, err := svc.Ensure(t.Context(), spec, "", nil)
	if err != nil {
		t.Fatal(err)
	}

	f.resetCounters()

	// Terraform applies the members resources of one load balancer at once.
	errs := make(chan error, 2)
	for i, listener := range []string{"http", "ssh"} {
		go func() {
			_, err := f.service().HoldMembers(t.Context(), top.ID, listener, []Member{{"10.0.0.8", 80 + i, 1}}, true, nil)
			errs <- err
		}()
	}

	for range 2 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}

	if conflicts, mutations := f.counters(); conflicts != 0 || len(mutations) != 2 {
		t.Errorf("%d requests met the lock; mutations %v, want none and 2 (one batch each)", conflicts, mutations)
	}

	for i, listener := range []string{"http", "ssh"} {
		if err := f.service().ReleaseMembers(t.Context(), top.ID, listener); err != nil {
			t.Errorf("release of %s (%d): %v", listener, i, err)
		}
	}
}

// TestHoldMembers_emptyHoldTagsThePool: no member can carry the mark of an empty hold, so the
// pool carries it until members do; members taken over as they are (moved from the load
// balancer resource) are marked by one batch all the same.
func TestHoldMembers_emptyHoldTagsThePool(t *testing.T) {
	t.Parallel()

	f := newFakeCloud(t)
	svc := f.service()

	spec := twoListeners()
	spec.Listeners[0].MembersElsewhere, spec.Listeners[0].Members = false, []Member{{"10.0.0.7", 80, 1}}
	later := []Member{{"10.0.0.8", 80, 2}}

	top, err := svc.Ensure(t.Context(), spec, "", nil)
	if err != nil {
		t.Fatal(err)
	}

	// The load balancer leaves http's members elsewhere; an empty hold tags the pool, then
	// empties it.
	if _, err := svc.Ensure(t.Context(), twoListeners(), top.ID, nil); err != nil {
		t.Fatal(err)
	}

	f.resetCounters()

	pool := naming.Pool("app", "http")

	if _, err := svc.HoldMembers(t.Context(), top.ID, "http", nil, true, nil); err != nil {
		t.Fatal(err)
	}

	if diff := cmp.Diff([]string{"PUT pools", "PUT members"}, octaviaMutations(f)); diff != "" {
		t.Errorf("mutations of an empty hold (-want +got):\n%s", diff)
	}

	if tags, members, _ := f.poolState(t, pool); !slices.Contains(tags, naming.MembersHeldTag) || len(members) != 0 {
		t.Errorf("after an empty hold: tags %v, members %v; want the held tag and none", tags, members)
	}

	// Members later: one batch, marked; the pool's tag stays until the release.
	f.resetCounters()

	if _, err := svc.HoldMembers(t.Context(), top.ID, "http", later, false, nil); err != nil {
		t.Fatal(err)
	}

	if diff := cmp.Diff([]string{"PUT members"}, octaviaMutations(f)); diff != "" {
		t.Errorf("mutations of the first members (-want +got):\n%s", diff)
	}

	f.resetCounters()

	if err := svc.ReleaseMembers(t.Context(), top.ID, "http"); err != nil {
		t.Fatal(err)
	}

	if diff := cmp.Diff([]string{"PUT members", "PUT pools"}, octaviaMutations(f)); diff != "" {
		t.Errorf("mutations of the release (-want +got):\n%s", diff)
	}

	if tags, members, _ := f.poolState(t, pool); slices.Contains(tags, naming.MembersHeldTag) || len(members) != 0 {
		t.Errorf("after the release: tags %v, members %v; want neither", tags, members)
	}

	// Members the pool has already, unmarked (left there by the load balancer resource), are
	// taken over by one batch that marks them.
	if err := svc.ReleaseMembers(t.Context(), top.ID, "http"); err != nil {
		t.Fatal(err)
	}

	if _, err := svc.Ensure(t.Context(), spec, top.ID, nil); err != nil {
		t.Fatal(err)
	}

	if _, err := svc.Ensure(t.Context(), twoListeners(), top.ID, nil); err != nil {
		t.Fatal(err)
	}

	f.resetCounters()

	lp, err := svc.HoldMembers(t.Context(), top.ID, "http", spec.Listeners[0].Members, true, nil)
	if err != nil {
		t.Fatal(err)
	}

	if diff := cmp.Diff([]string{"PUT members"}, octaviaMutations(f)); diff != "" || !lp.Pool.MembersTagged {
		t.Errorf("mutations of taking over unmarked members (-want +got):\n%s (marked: %t)", diff, lp.Pool.MembersTagged)
	}
}
