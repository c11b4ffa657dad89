// Package loadbalancer owns the unikorn_loadbalancer resource: one Octavia load balancer
// with its listeners, pools, members and health monitors, and an optional floating IP on its
// VIP, converged in place as one desired-state object (DESIGN.md §6).
//
// The core (topology.go, observe.go, converge.go, singlecall.go, steps.go, ownership.go,
// lifecycle.go, status.go, neutron.go, check.go, import.go) is Terraform-free: it finds the
// objects again by their deterministic names (naming.LoadBalancer, naming.Listener, ...),
// creates them step by step through cloud.Create — the load balancer, then per listener:
// listener, pool, members in one batch, monitor — waiting for the load balancer to be ACTIVE
// between steps, so that no request ever meets Octavia's immutability lock, prunes the children
// the configuration no longer implies, and recovers in place every change whose answer was lost
// (steps.go). What it makes carries the ownership marks as Octavia tags, and a create adopts
// only what an interrupted create of a load balancer left (ownership.go). The framework files
// (resource.go, schema.go, plan.go, validate.go, flatten.go) map the schema onto it.
package loadbalancer

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/gophercloud/gophercloud/v2"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/network"
)

// Listener protocols a user may choose.
const (
	ProtocolTCP = "TCP"
	ProtocolUDP = "UDP"
)

// Octavia pool protocols, lb_algorithm and monitor types the provider uses.
const (
	poolProtocolTCP     = "TCP"
	poolProtocolUDP     = "UDP"
	poolProtocolPROXYV2 = "PROXYV2"
	lbMethod            = "ROUND_ROBIN"
	monitorTCP          = "TCP"
	monitorUDPConnect   = "UDP-CONNECT"
)

// Default polling of Octavia where the tenant's rounds do not serve (status.go: a tenant without
// a cloud behind it; the status tree after a single-call create), from what its steps take on
// the local cloud (tools/bench, 2 cores, under load): a listener, pool or health monitor 1.5–7 s,
// a member batch about 10 s, a new load balancer 50 s (5–15 s when quiet). Waits grow from half
// a second to 4 s, so that a step costs a few polls and a long wait one poll every 4 s.
const (
	DefaultPollMin = 500 * time.Millisecond
	DefaultPollMax = 4 * time.Second
)

// statusTreeTimeout bounds the read of the status tree that explains a failure.
const statusTreeTimeout = 30 * time.Second

// Spec is the desired state of one load balancer.
type Spec struct {
	// Name is the user-given name; Octavia objects are called lb-<name>, ...
	Name string
	// NetworkID is the network the VIP lives on; the VIP subnet is the network's subnet.
	NetworkID string
	// VIPAddress is the VIP to ask for; "" lets Octavia choose.
	VIPAddress string
	// PublicIP asks for a floating IP on the VIP port.
	PublicIP  bool
	Listeners []ListenerSpec
}

// ListenerSpec is one listener and what hangs off it: its pool, members and monitor.
type ListenerSpec struct {
	Name     string
	Protocol string // ProtocolTCP or ProtocolUDP
	Port     int
	// AllowedCIDRs restrict the sources; empty allows all. Compared as a set.
	AllowedCIDRs []string
	// IdleTimeout is the TCP idle timeout in seconds, written (× 1000) into both the client
	// and the member data timeouts; nil means Octavia's default. TCP only.
	IdleTimeout *int
	// ProxyProtocolV2 makes the pool PROXYV2 (TCP only).
	ProxyProtocolV2 bool
	// Members are the pool's members; compared as a set.
	Members []Member
	// MembersElsewhere says that the configuration leaves the members unset: the load balancer
	// resource leaves them alone (a unikorn_loadbalancer_members may hold them) and marks the
	// pool so (naming.MembersExternalTag).
	MembersElsewhere bool
	// Monitor is the health monitor; nil for none.
	Monitor *MonitorSpec
}

// Member is one pool member. Two members with one address and port are one member (its
// weight is a setting of it): memberKey.
type Member struct {
	Address string
	Port    int
	// Weight is the member's share of the pool's traffic: 0 to 256 (Octavia's range), 0 drains
	// it; the resource's default is Octavia's, 1.
	Weight int
}

// Octavia's member weights: the range and the default.
const (
	MinMemberWeight     = 0
	MaxMemberWeight     = 256
	DefaultMemberWeight = 1
)

// MonitorSpec is a health monitor.
type MonitorSpec struct {
	Interval           int // seconds between checks (Octavia's delay)
	Timeout            int // seconds a check may take; less than Interval
	HealthyThreshold   int // 1–10 (Octavia's max_retries)
	UnhealthyThreshold int // 1–10 (Octavia's max_retries_down)
}

// PoolProtocol is the Octavia pool protocol the listener needs: UDP for UDP, PROXYV2 for
// TCP with proxy protocol, else TCP.
func (l ListenerSpec) PoolProtocol() string {
	switch {
	case l.Protocol == ProtocolUDP:
		return poolProtocolUDP
	case l.ProxyProtocolV2:
		return poolProtocolPROXYV2
	}

	return poolProtocolTCP
}

// MonitorType is the Octavia health monitor type: UDP-CONNECT for UDP, TCP otherwise.
func (l ListenerSpec) MonitorType() string {
	if l.Protocol == ProtocolUDP {
		return monitorUDPConnect
	}

	return monitorTCP
}

// idleTimeoutMS is the data timeout in milliseconds, or nil.
func (l ListenerSpec) idleTimeoutMS() *int {
	if l.IdleTimeout == nil || l.Protocol == ProtocolUDP {
		return nil
	}

	ms := *l.IdleTimeout * 1000

	return &ms
}

// Topology is what Octavia and Neutron hold for one load balancer.
type Topology struct {
	ID                 string
	Name               string // the Octavia name, lb-<name>
	ProjectID          string
	VIPAddress         string
	VIPPortID          string
	VIPNetworkID       string
	VIPSubnetID        string
	ProvisioningStatus string
	OperatingStatus    string
	CreatedAt          time.Time // zero when Octavia did not say
	UpdatedAt          time.Time // as last seen: after a change, the one it left (converge); zero when Octavia did not say
	// Tags are the load balancer's Octavia tags: only the ownership marks (naming.MarkOfTags),
	// as this provider writes no other.
	Tags []string
	// Adopted says that a create found this load balancer by name and took it over instead of
	// making one: what an interrupted create of a load balancer left unfinished.
	Adopted bool

	// Listeners are the children named after the linkage contract (lb-<name>-<listener>-…),
	// grouped by listener name: those with a listener in the order Octavia created the
	// listeners, then the others by name. An entry may lack its listener (only a pool is
	// left), its pool or its monitor.
	Listeners []ObservedListener
	// ListenerIDs and PoolIDs are the IDs of the load balancer's listeners and pools as the load
	// balancer object names them (sorted), when it was last seen: what a Memo is checked
	// against.
	ListenerIDs, PoolIDs []string

	// Foreign are the listeners of the load balancer whose names do not follow the contract:
	// the provider leaves them alone, but refuses to create a listener on a port they hold.
	Foreign []ForeignListener

	// FloatingIP is the floating IP on the VIP port, nil if none.
	FloatingIP *network.FloatingIP
}

// ObservedListener is one listener's objects as Octavia has them.
type ObservedListener struct {
	Name string // the listener's short name

	ListenerID          string // "" when the listener is missing
	ListenerMark        naming.Mark
	Protocol            string
	Port                int
	AllowedCIDRs        []string // sorted
	ClientDataTimeoutMS int
	MemberDataTimeoutMS int
	DefaultPoolID       string
	ListenerStatus      string

	PoolID       string // "" when the pool is missing
	PoolMark     naming.Mark
	PoolProtocol string
	// PoolAlgorithm is the pool's lb_algorithm; "" when not known (a memo of an earlier version
	// of the provider, which did not keep it).
	PoolAlgorithm string
	PoolStatus    string
	Members       []Member // sorted
	// MemberIDs are the Octavia IDs of Members, by memberKey (those a batch update made are
	// not known until the next read).
	MemberIDs map[string]string
	// MembersExternal and MembersHeld say which of the pool's tags of who holds its members it
	// carries (naming.MembersExternalTag, naming.MembersHeldTag); MembersTagged that one of its
	// members carries naming.MembersHeldTag (a unikorn_loadbalancer_members marks the members it
	// sets, in the same batch, and the pool itself only while it holds none). held says either.
	MembersExternal bool
	MembersHeld     bool
	MembersTagged   bool

	MonitorID     string // "" when the monitor is missing
	MonitorMark   naming.Mark
	MonitorName   string
	MonitorType   string
	Monitor       *MonitorSpec
	MonitorStatus string
}

// ForeignListener is a listener of the load balancer that the provider did not name.
type ForeignListener struct {
	ID, Name, Protocol string
	Port               int
}

// ProxyProtocolV2 tells whether the pool speaks PROXY protocol v2.
func (o ObservedListener) ProxyProtocolV2() bool {
	return o.PoolProtocol == poolProtocolPROXYV2
}

// PoolRoundRobin tells whether the pool balances round robin, as the provider (and Unikorn)
// makes every pool; true when the algorithm is not known.
func (o ObservedListener) PoolRoundRobin() bool {
	return o.PoolAlgorithm == "" || o.PoolAlgorithm == lbMethod
}

// PoolLinked tells whether the pool is the listener's default pool.
func (o ObservedListener) PoolLinked() bool {
	return o.PoolID != "" && o.ListenerID != "" && o.DefaultPoolID == o.PoolID
}

// IdleTimeout is the idle timeout in seconds as Octavia has it: the client data timeout,
// unless it equals want and the member data timeout does not (so that either drifting
// shows).
func (o ObservedListener) IdleTimeout(want *int) int {
	seconds := o.ClientDataTimeoutMS / 1000
	if want != nil && o.ClientDataTimeoutMS == *want*1000 && o.MemberDataTimeoutMS != *want*1000 {
		seconds = o.MemberDataTimeoutMS / 1000
	}

	return seconds
}

// Listener returns the observed listener called name.
func (t *Topology) Listener(name string) (ObservedListener, bool) {
	if t == nil {
		return ObservedListener{}, false
	}

	for _, l := range t.Listeners {
		if l.Name == name {
			return l, true
		}
	}

	return ObservedListener{}, false
}

// Service converges load balancers with the Octavia and Neutron clients of one tenant (an
// identity's project in one region, in one credential scope).
type Service struct {
	Octavia *gophercloud.ServiceClient // pinned to cloud.LoadBalancerMicroversion
	Neutron *gophercloud.ServiceClient

	// ProjectID is the identity's project: the load balancers it finds and the network it
	// puts a VIP on must be that project's. "" (the service user's own admin scope, for
	// import) accepts every project.
	ProjectID string
	// Region names the region in messages.
	Region string

	// SingleCallCreate creates a new load balancer with Octavia's fully-populated single
	// call instead of step by step. Broken on several releases and providers (children stay
	// PENDING_CREATE forever): opt-in only.
	SingleCallCreate bool

	// PollMin and PollMax bound the backoff while waiting; zero means the defaults.
	PollMin, PollMax time.Duration

	// Networks, when set, is the run's VIP network lookups (the provider's one, which the
	// plans use too): an apply reads a VIP network the plan has read in the same run from it.
	Networks *NetworkCache

	// Tenant is the identity's project in the region as bound: reads come from the run's
	// listings (listing.go) and writes are recorded for them; nil (tests on fakes): none.
	Tenant *cloud.Tenant

	// Memo is what the resource's last read or apply found of the children (from its private
	// state), nil when none: a read takes them from it while they cannot have changed since.
	Memo *Memo
}

// NewService is the core of tenant t: its Octavia and Neutron clients. singleCallCreate is
// the provider's opt-in to Octavia's single-call create.
func NewService(t *cloud.Tenant, singleCallCreate bool) (*Service, error) {
	octavia, err := t.LoadBalancer()
	if err != nil {
		return nil, err
	}

	neutron, err := t.Network()
	if err != nil {
		return nil, err
	}

	return &Service{
		Octavia:          octavia,
		Neutron:          neutron,
		ProjectID:        t.ProjectID(),
		Region:           t.Region(),
		SingleCallCreate: singleCallCreate,
		Tenant:           t,
	}, nil
}

func (s *Service) pollMin() time.Duration { return cmp.Or(s.PollMin, DefaultPollMin) }
func (s *Service) pollMax() time.Duration { return max(cmp.Or(s.PollMax, DefaultPollMax), s.pollMin()) }

// sortMembers sorts members by address, then port, and drops duplicates.
func sortMembers(ms []Member) []Member {
	out := slices.Clone(ms)
	slices.SortFunc(out, func(a, b Member) int {
		return cmp.Or(cmp.Compare(a.Address, b.Address), cmp.Compare(a.Port, b.Port))
	})

	return slices.Compact(out)
}

// describeListener names a listener's objects in messages.
func describeListener(name, listener string) string {
	return fmt.Sprintf("listener %q (%s)", listener, naming.Listener(name, listener))
}
