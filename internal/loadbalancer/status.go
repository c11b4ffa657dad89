package loadbalancer

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/loadbalancer/v2/loadbalancers"
	"github.com/gophercloud/gophercloud/v2/openstack/loadbalancer/v2/pools"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
)

// Octavia provisioning states (DESIGN.md §6): ACTIVE continues, PENDING_* waits, anything
// else (ERROR, DELETED) fails and quotes the status tree.
const (
	StatusActive        = "ACTIVE"
	StatusError         = "ERROR"
	StatusPendingCreate = "PENDING_CREATE"
	StatusPendingUpdate = "PENDING_UPDATE"
	StatusPendingDelete = "PENDING_DELETE"
	StatusDeleted       = "DELETED"
)

// pendingStates are the provisioning states that mean "Octavia is working: wait". While the
// load balancer is in one of them, Octavia refuses every change to it or its children with
// HTTP 409 (its immutability lock), which is why every mutation waits for ACTIVE first.
var pendingStates = []string{StatusPendingCreate, StatusPendingUpdate, StatusPendingDelete}

// ProvisioningError is a load balancer (or one of its children) in a provisioning state in
// which the provider cannot continue: ERROR, or a state it does not know. Tree is Octavia's
// status tree of the load balancer, rendered for humans, so the failing child is named.
type ProvisioningError struct {
	LoadBalancerID string
	// Object is what is in State; "" means the load balancer itself.
	Object string
	State  string
	// While says what the provider was doing ("creating listener lb-web-http-listener").
	While string
	Tree  string
}

func (e *ProvisioningError) Error() string {
	var b strings.Builder

	if e.While != "" {
		fmt.Fprintf(&b, "%s: ", e.While)
	}

	object := e.Object
	if object == "" {
		object = "load balancer " + e.LoadBalancerID
	}

	fmt.Fprintf(&b, "%s is in provisioning status %s", object, orNone(e.State))

	if e.Tree != "" {
		b.WriteString("; Octavia's status tree:\n")
		b.WriteString(e.Tree)
	}

	return b.String()
}

// ConflictError is an HTTP 409 from Octavia: a change met the load balancer's immutability
// lock, or a conflicting object. The provider never retries it: every mutation waits for the
// load balancer to be ACTIVE first, so a 409 means someone else is changing it at the same time.
type ConflictError struct {
	What string
	Err  error
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("%s: Octavia answered HTTP 409 Conflict (another client is changing this load balancer, "+
		"or an object conflicts with it): %v", e.What, e.Err)
}

func (e *ConflictError) Unwrap() error { return e.Err }

// isNotFound tells whether err is an HTTP 404.
func isNotFound(err error) bool {
	return gophercloud.ResponseCodeIs(err, http.StatusNotFound)
}

// isConflict tells whether err is an HTTP 409.
func isConflict(err error) bool {
	return gophercloud.ResponseCodeIs(err, http.StatusConflict)
}

// waitActive polls the load balancer until its provisioning status is ACTIVE, with backoff
// from s.PollMin to s.PollMax, within ctx's deadline. An ERROR (or unknown) status fails at
// once with a *ProvisioningError that quotes the status tree.
func (s *Service) waitActive(ctx context.Context, id, while string) (*loadbalancers.LoadBalancer, error) {
	lb, err := s.poll(ctx, cloud.PollSpec{
		Pending:     pendingStates,
		Target:      []string{StatusActive},
		MinInterval: s.pollMin(),
		MaxInterval: s.pollMax(),
	}, id)

	return lb, s.explain(ctx, id, while, err)
}

// waitSettled polls the load balancer until it is no longer PENDING_*: ACTIVE or ERROR are
// both accepted (a delete is allowed in either).
func (s *Service) waitSettled(ctx context.Context, id, while string) (*loadbalancers.LoadBalancer, error) {
	lb, err := s.poll(ctx, cloud.PollSpec{
		Pending:     []string{StatusPendingCreate, StatusPendingUpdate},
		Target:      []string{StatusActive, StatusError, StatusPendingDelete},
		MinInterval: s.pollMin(),
		MaxInterval: s.pollMax(),
	}, id)

	return lb, s.explain(ctx, id, while, err)
}

// waitGone polls the load balancer until Octavia answers 404.
func (s *Service) waitGone(ctx context.Context, id, while string) error {
	_, err := s.poll(ctx, cloud.PollSpec{
		Pending:          append(append([]string{}, pendingStates...), StatusDeleted),
		NotFoundIsTarget: true,
		MinInterval:      s.pollMin(),
		MaxInterval:      s.pollMax(),
	}, id)

	return s.explain(ctx, id, while, err)
}

// Polling rounds of the tenant's load balancers (cloud.Rounds), from what Octavia takes on the
// local cloud (tools/bench, Zed, amphora_noop_driver): a listener, pool or health monitor is
// ACTIVE again 0.5–1 s after its change, a member batch or a member's update after 1–1.5 s, a new
// load balancer after about 10 s (more under load). The first look comes half a second after a
// change, the next ones half the time waited so far apart (never sooner than half a second):
// a child is seen ACTIVE about when Octavia is done with it; a long wait is looked at every 4 s
// at most. Measured on the three-listener create of TestAccLoadBalancer_measure (Zed, one run
// each): 1 s as the first look, 1.65 s a child step and 81 requests for the apply; half a
// second, 1.16 s a step and 84 requests. Every load balancer of the tenant that is waited for at
// the same time is polled by the same round: one listing.
const (
	roundInterval    = 500 * time.Millisecond
	roundMaxInterval = 4 * time.Second
)

// poll polls load balancer id by the tenant's rounds (by Poll on a read of it without a cloud
// behind the tenant, tests on fakes: spec's intervals then pace the reads).
func (s *Service) poll(ctx context.Context, spec cloud.PollSpec, id string) (*loadbalancers.LoadBalancer, error) {
	rounds := cloud.Rounds[loadbalancers.LoadBalancer]{
		Kind: loadBalancerKind, Interval: roundInterval, MaxInterval: roundMaxInterval,
		// The rounds look load balancers up by ID (the waits know no name): one waited for is
		// listed by its ID, several by the project's listing.
		List: func(ctx context.Context, _ *cloud.Tenant, ids []string) ([]loadbalancers.LoadBalancer, error) {
			opts := loadbalancers.ListOpts{ProjectID: s.ProjectID}
			if len(ids) == 1 {
				opts.ID = ids[0]
			}

			return cloud.ListAll(ctx, loadbalancers.List(s.Octavia, opts), loadbalancers.ExtractLoadBalancers,
				"the load balancers of project "+s.ProjectID)
		},
		Name:    func(lb loadbalancers.LoadBalancer) string { return lb.ID },
		ID:      func(lb loadbalancers.LoadBalancer) string { return lb.ID },
		Confirm: func(lb loadbalancers.LoadBalancer) bool { return lb.ProvisioningStatus == StatusError },
	}

	lb, err := rounds.Poll(ctx, s.Tenant, id, id, spec,
		func(lb loadbalancers.LoadBalancer) (string, string) { return lb.ProvisioningStatus, "" },
		func(ctx context.Context) (loadbalancers.LoadBalancer, error) {
			return deref(loadbalancers.Get(ctx, s.Octavia, id).Extract())
		})
	if err != nil {
		return nil, err
	}

	return &lb, nil
}

// explain turns a failed state of Poll into a *ProvisioningError with the status tree.
func (s *Service) explain(ctx context.Context, id, while string, err error) error {
	var state *cloud.StateError
	if !errors.As(err, &state) {
		if err != nil && while != "" {
			return fmt.Errorf("%s: waiting for load balancer %s: %w", while, id, err)
		}

		return err
	}

	return s.statusError(ctx, id, "", state.State, while)
}

// statusError builds a *ProvisioningError, fetching the status tree (with a context of its own:
// the operation's may be about to end).
func (s *Service) statusError(ctx context.Context, id, object, state, while string) error {
	treeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), statusTreeTimeout)
	defer cancel()

	out := &ProvisioningError{LoadBalancerID: id, Object: object, State: state, While: while}

	tree, err := s.statusTree(treeCtx, id)
	if err != nil {
		out.Tree = fmt.Sprintf("  (the status tree could not be read: %v)", err)
	} else {
		out.Tree = RenderStatusTree(tree)
	}

	return out
}

// settle reads the status tree of t's load balancer once and records in t the provisioning
// states of the load balancer and of its children (matched by ID), after a change whose answers
// were recorded as they came (PENDING_* for the objects they made or changed).
func (s *Service) settle(ctx context.Context, t *Topology) error {
	tree, err := s.statusTree(ctx, t.ID)
	if err != nil {
		return err
	}

	if tree.Loadbalancer == nil {
		return nil
	}

	lb := tree.Loadbalancer
	t.ProvisioningStatus, t.OperatingStatus = lb.ProvisioningStatus, lb.OperatingStatus
	status := map[string]string{}

	for _, l := range lb.Listeners {
		status[l.ID] = l.ProvisioningStatus

		for _, p := range l.Pools {
			status[p.ID] = p.ProvisioningStatus
			if p.Monitor.ID != "" {
				status[p.Monitor.ID] = p.Monitor.ProvisioningStatus
			}
		}
	}

	members := map[string][]pools.Member{} // pool ID → its members, as the tree names them

	for _, l := range lb.Listeners {
		for _, p := range l.Pools {
			members[p.ID] = append(members[p.ID], p.Members...)
		}
	}

	for _, p := range lb.Pools {
		status[p.ID] = p.ProvisioningStatus
		members[p.ID] = append(members[p.ID], p.Members...)
	}

	for i := range t.Listeners {
		o := &t.Listeners[i]
		for _, c := range []struct{ id, status *string }{
			{&o.ListenerID, &o.ListenerStatus}, {&o.PoolID, &o.PoolStatus}, {&o.MonitorID, &o.MonitorStatus},
		} {
			if st, ok := status[*c.id]; ok && *c.id != "" {
				*c.status = st
			}
		}

		o.learnMemberIDs(members[o.PoolID])
	}

	return nil
}

// learnMemberIDs records the IDs of o's members from ms, the pool's members as the status tree
// names them: those a batch update made are known no other way (it answers none).
func (o *ObservedListener) learnMemberIDs(ms []pools.Member) {
	for _, m := range ms {
		key := memberKey(Member{Address: m.Address, Port: m.ProtocolPort})
		if m.ID == "" || !slices.ContainsFunc(o.Members, func(x Member) bool { return memberKey(x) == key }) {
			continue
		}

		if o.MemberIDs == nil {
			o.MemberIDs = map[string]string{}
		}

		o.MemberIDs[key] = m.ID
	}
}

// statusTree reads Octavia's status tree of load balancer id, the pools' health monitors
// included: Octavia calls a pool's monitor health_monitor in the tree, which gophercloud does
// not read (it looks for healthmonitor), so they are read apart and put in.
func (s *Service) statusTree(ctx context.Context, id string) (*loadbalancers.StatusTree, error) {
	res := loadbalancers.GetStatuses(ctx, s.Octavia, id)

	tree, err := res.Extract()
	if err != nil {
		return nil, fmt.Errorf("reading the status tree of load balancer %s: %w", id, err)
	}

	var raw statusTreeMonitors
	if err := res.ExtractInto(&raw); err != nil {
		return nil, fmt.Errorf("reading the status tree of load balancer %s: %w", id, err)
	}

	if tree == nil || tree.Loadbalancer == nil {
		return tree, nil
	}

	for i, l := range raw.Statuses.LoadBalancer.Listeners {
		for j, p := range l.Pools {
			if p.Monitor.ID == "" || i >= len(tree.Loadbalancer.Listeners) || j >= len(tree.Loadbalancer.Listeners[i].Pools) {
				continue
			}

			m := &tree.Loadbalancer.Listeners[i].Pools[j].Monitor
			m.ID, m.Name, m.ProvisioningStatus, m.OperatingStatus = p.Monitor.ID, p.Monitor.Name, p.Monitor.ProvisioningStatus,
				p.Monitor.OperatingStatus
		}
	}

	return tree, nil
}

// statusTreeMonitors is what a status tree says of the pools' health monitors.
type statusTreeMonitors struct {
	Statuses struct {
		LoadBalancer struct {
			Listeners []struct {
				Pools []struct {
					Monitor struct {
						ID                 string `json:"id"`
						Name               string `json:"name"`
						ProvisioningStatus string `json:"provisioning_status"`
						OperatingStatus    string `json:"operating_status"`
					} `json:"health_monitor"`
				} `json:"pools"`
			} `json:"listeners"`
		} `json:"loadbalancer"`
	} `json:"statuses"`
}

// RenderStatusTree renders Octavia's status tree, one object per line, indented by depth:
//
//	load balancer lb-web (id): provisioning ERROR, operating OFFLINE
//	  listener lb-web-http-listener (id): provisioning ACTIVE, operating ONLINE
//	    pool lb-web-http-pool (id): provisioning ERROR, operating ERROR
//	      member 10.0.0.5:80 (id): provisioning ACTIVE, operating NO_MONITOR
//	      health monitor lb-web-http-monitor (id): provisioning ACTIVE, operating ONLINE
func RenderStatusTree(tree *loadbalancers.StatusTree) string {
	if tree == nil || tree.Loadbalancer == nil {
		return "  (empty status tree)"
	}

	var lines []string

	line := func(depth int, kind, name, id, provisioning, operating string) {
		if name == "" {
			name = "(unnamed)"
		}

		lines = append(lines, fmt.Sprintf("%s%s %s (%s): provisioning %s, operating %s",
			strings.Repeat("  ", depth+1), kind, name, id, orNone(provisioning), orNone(operating)))
	}

	lb := tree.Loadbalancer
	line(0, "load balancer", lb.Name, lb.ID, lb.ProvisioningStatus, lb.OperatingStatus)

	for _, l := range lb.Listeners {
		line(1, "listener", l.Name, l.ID, l.ProvisioningStatus, l.OperatingStatus)

		for _, p := range l.Pools {
			line(2, "pool", p.Name, p.ID, p.ProvisioningStatus, p.OperatingStatus)

			for _, m := range p.Members {
				line(3, "member", fmt.Sprintf("%s:%d", m.Address, m.ProtocolPort), m.ID, m.ProvisioningStatus, m.OperatingStatus)
			}

			if hm := p.Monitor; hm.ID != "" {
				line(3, "health monitor", hm.Name, hm.ID, hm.ProvisioningStatus, hm.OperatingStatus)
			}
		}
	}

	for _, p := range lb.Pools { // pools without a listener
		line(1, "pool", p.Name, p.ID, p.ProvisioningStatus, p.OperatingStatus)
	}

	return strings.Join(lines, "\n")
}

// treeState folds a status tree into one provisioning state: ERROR (or any unknown state)
// if some object has it, else PENDING_UPDATE if some object is pending, else ACTIVE. detail
// names the first object that is not ACTIVE.
func treeState(tree *loadbalancers.StatusTree) (state, detail string) {
	if tree == nil || tree.Loadbalancer == nil {
		return StatusPendingUpdate, "empty status tree"
	}

	state = StatusActive

	visit := func(kind, name, s string) {
		switch {
		case s == StatusActive:
		case isPending(s):
			if state == StatusActive {
				state, detail = StatusPendingUpdate, fmt.Sprintf("%s %s is %s", kind, name, s)
			}
		default:
			if state == StatusActive || isPending(state) {
				state, detail = s, fmt.Sprintf("%s %s is %s", kind, name, orNone(s))
			}
		}
	}

	lb := tree.Loadbalancer
	visit("load balancer", lb.Name, lb.ProvisioningStatus)

	for _, l := range lb.Listeners {
		visit("listener", l.Name, l.ProvisioningStatus)

		for _, p := range l.Pools {
			visit("pool", p.Name, p.ProvisioningStatus)

			for _, m := range p.Members {
				visit("member", fmt.Sprintf("%s:%d", m.Address, m.ProtocolPort), m.ProvisioningStatus)
			}

			if p.Monitor.ID != "" {
				visit("health monitor", p.Monitor.Name, p.Monitor.ProvisioningStatus)
			}
		}
	}

	return state, detail
}

func isPending(state string) bool {
	for _, p := range pendingStates {
		if state == p {
			return true
		}
	}

	return false
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}

	return s
}
