package loadbalancer

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloudtest"
)

// fakeCloud is an Octavia (under /octavia/v2/) and a Neutron (under /neutron/v2.0/) on
// cloudtest's recorder: the VIP's network, subnet and router are fixed routes; Octavia and the
// floating IPs keep state (the recorder's fallback) and behave like the real ones where it
// matters here:
//
//   - every change to a load balancer or its children puts the load balancer into a PENDING
//     state for `settle` polls of the load balancer, after which it (and every pending child)
//     is ACTIVE — or ERROR, when failOn names the change;
//   - while the load balancer is PENDING_*, every change answers 409 (the immutability lock),
//     and the fake counts them;
//   - every change of the load balancer's provisioning status sets its updated_at, and the
//     load balancer names its listeners' and pools' IDs, as in Octavia;
//   - name filters match prefixes (fuzzy, like some releases), so callers must post-filter;
//   - every object keeps the tags it was posted with ([] for none), and a PUT with tags replaces
//     them (the load balancer's too, which locks it like any change);
//   - a single-call create with listeners inside works (the children go ACTIVE with the load
//     balancer) when graphWorks is set, and leaves them PENDING_CREATE forever otherwise.
type fakeCloud struct {
	t   *testing.T
	api *cloudtest.API

	mu         sync.Mutex
	settle     int
	failOn     string // a "METHOD /path-kind" whose change ends in ERROR, e.g. "POST pools"
	graphWorks bool
	conflicts  int
	mutations  []string // the calls that changed something, "METHOD kind"
	seq        int
	ticks      int // the clock of updated_at: one second per change of a load balancer's status

	lbs       map[string]*fakeLB
	listeners map[string]map[string]any
	pools     map[string]map[string]any
	members   map[string][]map[string]any // by pool ID
	monitors  map[string]map[string]any
	fips      map[string]map[string]any

	networkID, subnetID, routerID, externalID string
}

type fakeLB struct {
	obj     map[string]any
	pending int // polls left before the pending state settles
	fail    bool
	gone    bool // PENDING_DELETE that ends in removal
}

func newFakeCloud(t *testing.T) *fakeCloud {
	t.Helper()

	f := &fakeCloud{
		t:          t,
		api:        cloudtest.New(t),
		settle:     2,
		lbs:        map[string]*fakeLB{},
		listeners:  map[string]map[string]any{},
		pools:      map[string]map[string]any{},
		members:    map[string][]map[string]any{},
		monitors:   map[string]map[string]any{},
		fips:       map[string]map[string]any{},
		networkID:  "net-1",
		subnetID:   "subnet-1",
		routerID:   "router-1",
		externalID: "ext-1",
	}

	// The network of the VIP, its subnet and its router: fixed.
	f.api.Reply(http.MethodGet, "/neutron/v2.0/networks/"+f.networkID, http.StatusOK, map[string]any{"network": map[string]any{
		"id": f.networkID, "name": "network-test", "project_id": "project-1", "subnets": []any{f.subnetID},
	}})
	f.api.Reply(http.MethodGet, "/neutron/v2.0/subnets/"+f.subnetID, http.StatusOK, map[string]any{"subnet": map[string]any{
		"id": f.subnetID, "name": "network-test", "network_id": f.networkID, "cidr": "10.0.0.0/24", "ip_version": 4,
	}})
	f.api.Reply(http.MethodGet, "/neutron/v2.0/ports", http.StatusOK, map[string]any{"ports": []any{map[string]any{
		"id": "rport-1", "network_id": f.networkID, "device_id": f.routerID, "device_owner": "network:router_interface",
		"fixed_ips": []any{map[string]any{"subnet_id": f.subnetID, "ip_address": "10.0.0.1"}},
	}}})
	f.api.Reply(http.MethodGet, "/neutron/v2.0/routers/"+f.routerID, http.StatusOK, map[string]any{"router": map[string]any{
		"id": f.routerID, "name": "network-test", "external_gateway_info": map[string]any{"network_id": f.externalID},
	}})
	// Octavia and the floating IPs keep state.
	f.api.Fallback(http.HandlerFunc(f.serve))

	return f
}

// service is a Service of project-1 on the fake with tiny poll intervals.
func (f *fakeCloud) service() *Service {
	return &Service{
		Octavia:   f.api.ServiceClient("/octavia/", "/octavia/v2/"),
		Neutron:   f.api.ServiceClient("/neutron/", "/neutron/v2.0/"),
		ProjectID: "project-1",
		Region:    "RegionOne",
		PollMin:   time.Millisecond,
		PollMax:   2 * time.Millisecond,
	}
}

// createdAt is Octavia's created_at of an object made now: a fixed day, a minute per object.
func (f *fakeCloud) createdAt() string {
	return time.Date(2024, 5, 1, 10, f.seq, 0, 0, time.UTC).Format("2006-01-02T15:04:05")
}

func (f *fakeCloud) id(kind string) string {
	f.seq++
	return fmt.Sprintf("%s-%d", kind, f.seq)
}

// counters returns the number of 409s and the mutations so far.
func (f *fakeCloud) counters() (conflicts int, mutations []string) {
	f.mu.Lock()
	defer f.mu.Unlock()

	return f.conflicts, slices.Clone(f.mutations)
}

func (f *fakeCloud) resetCounters() {
	f.mu.Lock()
	defer f.mu.Unlock()

	f.conflicts, f.mutations = 0, nil
	f.api.Reset()
}

func (f *fakeCloud) requestCount() int { return len(f.api.Requests()) }

func reply(w http.ResponseWriter, status int, body any) { cloudtest.WriteJSON(w, status, body) }

func (f *fakeCloud) serve(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)

	var body map[string]any
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &body); err != nil {
			reply(w, http.StatusBadRequest, map[string]any{"faultstring": err.Error()})
			return
		}
	}

	f.mu.Lock()
	defer f.mu.Unlock()

	if rest, ok := strings.CutPrefix(r.URL.Path, "/octavia/v2/lbaas/"); ok {
		f.octavia(w, r, strings.Split(rest, "/"), body)
		return
	}

	if rest, ok := strings.CutPrefix(r.URL.Path, "/neutron/v2.0/floatingips"); ok {
		f.floatingIPs(w, r, strings.TrimPrefix(rest, "/"), body)
		return
	}

	reply(w, http.StatusNotFound, nil)
}

// lbOf returns the load balancer a child belongs to.
func (f *fakeCloud) lbOf(obj map[string]any) *fakeLB {
	if lbs, ok := obj["loadbalancers"].([]any); ok && len(lbs) > 0 {
		return f.lbs[str(object(lbs[0])["id"])]
	}

	return nil
}

// lock answers 409 when lb is pending; otherwise it starts a pending phase for change.
func (f *fakeCloud) lock(w http.ResponseWriter, lb *fakeLB, change string) bool {
	if lb == nil {
		reply(w, http.StatusNotFound, map[string]any{"faultstring": "load balancer not found"})
		return false
	}

	if strings.HasPrefix(str(lb.obj["provisioning_status"]), "PENDING_") {
		f.conflicts++
		reply(w, http.StatusConflict, map[string]any{"faultstring": "Load Balancer " + str(lb.obj["id"]) + " is immutable and cannot be updated."})

		return false
	}

	f.mutations = append(f.mutations, change)
	f.setStatus(lb, StatusPendingUpdate)
	lb.pending = f.settle
	lb.fail = change == f.failOn

	if lb.fail {
		f.failOn = "" // one failure only
	}

	return true
}

// poll advances a pending load balancer by one poll.
func (f *fakeCloud) poll(lb *fakeLB) {
	status := str(lb.obj["provisioning_status"])
	if !strings.HasPrefix(status, "PENDING_") {
		return
	}

	if lb.pending > 0 {
		lb.pending--
		return
	}

	id := str(lb.obj["id"])

	if lb.gone {
		for lid, l := range f.listeners {
			if f.lbOf(l) == lb {
				delete(f.listeners, lid)
			}
		}

		for pid, p := range f.pools {
			if f.lbOf(p) == lb {
				f.dropPool(pid)
			}
		}

		delete(f.lbs, id)

		return
	}

	final := StatusActive
	if lb.fail {
		final = StatusError
	}

	// The load balancer itself goes ERROR only when its own creation failed; a failed child
	// goes ERROR and the load balancer back to ACTIVE, as in Octavia.
	lbFinal := StatusActive
	if lb.fail && status == StatusPendingCreate {
		lbFinal = StatusError
	}

	settleChild := func(obj map[string]any) {
		if s, _ := obj["provisioning_status"].(string); strings.HasPrefix(s, "PENDING_") && f.lbOf(obj) == lb {
			if s == StatusPendingCreate && obj["_graph"] == true && !f.graphWorks {
				return // the broken single-call create: children stay PENDING_CREATE
			}

			obj["provisioning_status"] = final
		}
	}

	for _, l := range f.listeners {
		settleChild(l)
	}

	for _, p := range f.pools {
		settleChild(p)
	}

	for _, m := range f.monitors {
		settleChild(m)
	}

	f.setStatus(lb, lbFinal)
	lb.fail = false
}

// setStatus sets lb's provisioning status and, as Octavia's database does, its updated_at.
func (f *fakeCloud) setStatus(lb *fakeLB, status string) {
	f.ticks++
	lb.obj["provisioning_status"] = status
	lb.obj["updated_at"] = time.Date(2024, 5, 2, 10, 0, f.ticks, 0, time.UTC).Format("2006-01-02T15:04:05")
}

// served is lb as Octavia answers with it: naming its listeners and pools.
func (f *fakeCloud) served(lb *fakeLB) map[string]any {
	out := maps.Clone(lb.obj)
	ls, ps := []any{}, []any{}

	for _, id := range slices.Sorted(maps.Keys(f.listeners)) {
		if f.lbOf(f.listeners[id]) == lb {
			ls = append(ls, map[string]any{"id": id})
		}
	}

	for _, id := range slices.Sorted(maps.Keys(f.pools)) {
		if f.lbOf(f.pools[id]) == lb {
			ps = append(ps, map[string]any{"id": id})
		}
	}

	out["listeners"], out["pools"] = ls, ps

	return out
}

func (f *fakeCloud) octavia(w http.ResponseWriter, r *http.Request, parts []string, body map[string]any) {
	q := r.URL.Query()
	kind := parts[0]
	id := ""

	if len(parts) > 1 {
		id = parts[1]
	}

	switch {
	case kind == "loadbalancers" && id == "" && r.Method == http.MethodGet:
		var out []any

		for _, lb := range f.lbs {
			if strings.HasPrefix(str(lb.obj["name"]), q.Get("name")) {
				out = append(out, f.served(lb))
			}
		}

		reply(w, http.StatusOK, map[string]any{"loadbalancers": out})

	case kind == "loadbalancers" && id == "" && r.Method == http.MethodPost:
		f.createLB(w, object(body["loadbalancer"]))

	case kind == "loadbalancers" && f.lbs[id] == nil:
		reply(w, http.StatusNotFound, map[string]any{"faultstring": "Load Balancer " + id + " not found."})

	case kind == "loadbalancers" && len(parts) == 3 && parts[2] == "status":
		reply(w, http.StatusOK, map[string]any{"statuses": map[string]any{"loadbalancer": f.tree(f.lbs[id])}})

	case kind == "loadbalancers" && r.Method == http.MethodGet:
		lb := f.lbs[id]
		f.poll(lb)

		if f.lbs[id] == nil {
			reply(w, http.StatusNotFound, map[string]any{"faultstring": "Load Balancer " + id + " not found."})
			return
		}

		reply(w, http.StatusOK, map[string]any{"loadbalancer": f.served(lb)})

	case kind == "loadbalancers" && r.Method == http.MethodPut:
		lb := f.lbs[id]
		if !f.lock(w, lb, "PUT loadbalancers") {
			return
		}

		for k, v := range object(body["loadbalancer"]) {
			lb.obj[k] = v
		}

		reply(w, http.StatusOK, map[string]any{"loadbalancer": f.served(lb)})

	case kind == "loadbalancers" && r.Method == http.MethodDelete:
		lb := f.lbs[id]
		if !f.lock(w, lb, "DELETE loadbalancers") {
			return
		}

		if q.Get("cascade") != "true" {
			f.t.Errorf("delete of load balancer %s without cascade", id)
		}

		lb.obj["provisioning_status"] = StatusPendingDelete
		lb.gone = true

		reply(w, http.StatusNoContent, nil)

	case kind == "listeners" || kind == "pools" || kind == "healthmonitors":
		f.child(w, r, parts, body)

	default:
		reply(w, http.StatusNotFound, nil)
	}
}

func (f *fakeCloud) createLB(w http.ResponseWriter, in map[string]any) {
	id := f.id("lb")
	port := f.id("vip-port")
	addr := "10.0.0.10"

	if a, ok := in["vip_address"].(string); ok && a != "" {
		addr = a
	}

	obj := map[string]any{
		"id": id, "name": in["name"], "project_id": "project-1", "vip_address": addr, "vip_port_id": port,
		"vip_subnet_id": in["vip_subnet_id"], "vip_network_id": f.networkID, "provisioning_status": StatusPendingCreate,
		"operating_status": "OFFLINE", "created_at": f.createdAt(), "tags": tagsOf(in),
	}

	lb := &fakeLB{obj: obj, pending: f.settle, fail: f.failOn == "POST loadbalancers"}
	if lb.fail {
		f.failOn = ""
	}

	f.lbs[id] = lb
	f.mutations = append(f.mutations, "POST loadbalancers")

	ref := []any{map[string]any{"id": id}}

	ls, _ := in["listeners"].([]any)
	for _, raw := range ls {
		l := object(raw)
		lid := f.id("listener")
		listener := f.newListener(lid, ref, l)
		listener["_graph"] = true
		listener["provisioning_status"] = StatusPendingCreate

		if p, ok := l["default_pool"].(map[string]any); ok {
			pid := f.id("pool")
			pool := f.newPool(pid, ref, lid, p)
			pool["_graph"] = true
			listener["default_pool_id"] = pid

			ms, _ := p["members"].([]any)
			for _, m := range ms {
				f.members[pid] = append(f.members[pid], f.newMember(pid, object(m)))
			}

			if hm, ok := p["healthmonitor"].(map[string]any); ok {
				mid := f.id("monitor")
				mon := f.newMonitor(mid, ref, pid, hm)
				mon["_graph"] = true
				pool["healthmonitor_id"] = mid
			}
		}
	}

	reply(w, http.StatusCreated, map[string]any{"loadbalancer": obj})
}

func (f *fakeCloud) newListener(id string, ref []any, in map[string]any) map[string]any {
	l := map[string]any{
		"id":                  id,
		"name":                in["name"],
		"protocol":            in["protocol"],
		"protocol_port":       in["protocol_port"],
		"loadbalancers":       ref,
		"default_pool_id":     in["default_pool_id"],
		"allowed_cidrs":       in["allowed_cidrs"],
		"timeout_client_data": 50000.0,
		"timeout_member_data": 50000.0,
		"provisioning_status": StatusPendingCreate,
		"tags":                tagsOf(in),
	}

	for _, k := range []string{"timeout_client_data", "timeout_member_data"} {
		if v, ok := in[k]; ok && v != nil {
			l[k] = v
		}
	}

	f.listeners[id] = l

	return l
}

func (f *fakeCloud) newPool(id string, ref []any, listenerID string, in map[string]any) map[string]any {
	p := map[string]any{
		"id":                  id,
		"name":                in["name"],
		"protocol":            in["protocol"],
		"lb_algorithm":        in["lb_algorithm"],
		"loadbalancers":       ref,
		"listeners":           []any{map[string]any{"id": listenerID}},
		"provisioning_status": StatusPendingCreate,
		"tags":                tagsOf(in),
	}
	f.pools[id] = p

	return p
}

func (f *fakeCloud) newMonitor(id string, ref []any, poolID string, in map[string]any) map[string]any {
	m := map[string]any{
		"loadbalancers": ref,
		"id":            id, "name": in["name"], "type": in["type"], "delay": in["delay"], "timeout": in["timeout"],
		"max_retries": in["max_retries"], "max_retries_down": in["max_retries_down"],
		"pools": []any{map[string]any{"id": poolID}}, "provisioning_status": StatusPendingCreate, "tags": tagsOf(in),
	}
	if m["max_retries_down"] == nil {
		m["max_retries_down"] = 3.0
	}

	f.monitors[id] = m

	return m
}

// child handles listeners, pools (with members) and health monitors.
func (f *fakeCloud) child(w http.ResponseWriter, r *http.Request, parts []string, body map[string]any) {
	kind := parts[0]
	store := map[string]map[string]map[string]any{"listeners": f.listeners, "pools": f.pools, "healthmonitors": f.monitors}[kind]
	one := map[string]string{"listeners": "listener", "pools": "pool", "healthmonitors": "healthmonitor"}[kind]
	q := r.URL.Query()

	var id string
	if len(parts) > 1 {
		id = parts[1]
	}

	switch {
	case id == "" && r.Method == http.MethodGet:
		var out []any

		for _, obj := range store {
			if lbID := q.Get("loadbalancer_id"); lbID != "" && f.lbOf(obj) != f.lbs[lbID] {
				continue
			}

			out = append(out, public(obj))
		}

		// Oldest first, like sort_key=created_at.
		slices.SortFunc(out, func(a, b any) int { return seqOf(a) - seqOf(b) })

		reply(w, http.StatusOK, map[string]any{kind: out})

	case id == "" && r.Method == http.MethodPost:
		in := object(body[one])

		var lb *fakeLB

		switch kind {
		case "listeners":
			lb = f.lbs[str(in["loadbalancer_id"])]
		case "pools":
			lb = f.lbOf(f.listeners[str(in["listener_id"])])
		case "healthmonitors":
			lb = f.lbOf(f.pools[str(in["pool_id"])])
		}

		if !f.lock(w, lb, "POST "+kind) {
			return
		}

		ref := []any{map[string]any{"id": lb.obj["id"]}}

		var obj map[string]any

		switch kind {
		case "listeners":
			for _, l := range f.listeners {
				if f.lbOf(l) == lb && l["protocol_port"] == in["protocol_port"] && l["protocol"] == in["protocol"] {
					reply(w, http.StatusConflict, map[string]any{"faultstring": "Another Listener on this Load Balancer is already using protocol_port"})
					return
				}
			}

			obj = f.newListener(f.id("listener"), ref, in)
		case "pools":
			lid := str(in["listener_id"])
			obj = f.newPool(f.id("pool"), ref, lid, in)
			f.listeners[lid]["default_pool_id"] = obj["id"]
		case "healthmonitors":
			obj = f.newMonitor(f.id("monitor"), ref, str(in["pool_id"]), in)
			f.pools[str(in["pool_id"])]["healthmonitor_id"] = obj["id"]
		}

		obj["loadbalancers"] = ref

		reply(w, http.StatusCreated, map[string]any{one: public(obj)})

	case kind == "pools" && len(parts) >= 3 && parts[2] == "members":
		f.members1(w, r, id, parts[3:], body)

	case store[id] == nil:
		reply(w, http.StatusNotFound, nil)

	case r.Method == http.MethodGet:
		reply(w, http.StatusOK, map[string]any{one: public(store[id])})

	case r.Method == http.MethodPut:
		obj := store[id]
		if !f.lock(w, f.lbOfChild(kind, obj), "PUT "+kind) {
			return
		}

		for k, v := range object(body[one]) {
			if v == nil && strings.HasPrefix(k, "timeout_") {
				v = 50000.0
			}

			obj[k] = v
		}

		obj["provisioning_status"] = StatusPendingUpdate

		reply(w, http.StatusOK, map[string]any{one: public(obj)})

	case r.Method == http.MethodDelete:
		if !f.lock(w, f.lbOfChild(kind, store[id]), "DELETE "+kind) {
			return
		}

		delete(store, id)

		switch kind {
		case "pools":
			f.dropPool(id)
		case "healthmonitors":
			for _, p := range f.pools {
				if p["healthmonitor_id"] == id {
					p["healthmonitor_id"] = nil
				}
			}
		}

		reply(w, http.StatusNoContent, nil)

	default:
		reply(w, http.StatusNotFound, nil)
	}
}

// dropPool removes pool id with its members and monitor, and unlinks it from its listener.
func (f *fakeCloud) dropPool(id string) {
	delete(f.pools, id)
	delete(f.members, id)

	for mid, m := range f.monitors {
		if object(items(m["pools"])[0])["id"] == id {
			delete(f.monitors, mid)
		}
	}

	for _, l := range f.listeners {
		if l["default_pool_id"] == id {
			l["default_pool_id"] = nil
		}
	}
}

func (f *fakeCloud) lbOfChild(kind string, obj map[string]any) *fakeLB {
	if kind == "healthmonitors" {
		return f.lbOf(f.pools[str(object(items(obj["pools"])[0])["id"])])
	}

	return f.lbOf(obj)
}

// seqOf is the sequence number in a fake object's ID ("listener-12" → 12).
func seqOf(obj any) int {
	id := str(object(obj)["id"])

	var n int

	_, _ = fmt.Sscanf(id[strings.LastIndex(id, "-")+1:], "%d", &n)

	return n
}

// public drops the fake's own keys (those starting with "_").
func public(obj map[string]any) map[string]any {
	out := make(map[string]any, len(obj))

	for k, v := range obj {
		if !strings.HasPrefix(k, "_") {
			out[k] = v
		}
	}

	return out
}

// tree is the status tree of lb.
func (f *fakeCloud) tree(lb *fakeLB) map[string]any {
	var ls []any

	for _, l := range f.listeners {
		if f.lbOf(l) != lb {
			continue
		}

		var ps []any

		if p := f.pools[fmt.Sprint(l["default_pool_id"])]; p != nil {
			pool := map[string]any{"id": p["id"], "name": p["name"], "provisioning_status": p["provisioning_status"], "operating_status": "ONLINE"}

			var ms []any
			for _, m := range f.members[fmt.Sprint(p["id"])] {
				ms = append(ms, map[string]any{"id": m["id"], "address": m["address"], "protocol_port": m["protocol_port"],
					"provisioning_status": m["provisioning_status"], "operating_status": "NO_MONITOR"})
			}

			pool["members"] = ms

			if hm := f.monitors[fmt.Sprint(p["healthmonitor_id"])]; hm != nil {
				// Octavia's key (gophercloud reads "healthmonitor": its trees show no monitor)
				pool["health_monitor"] = map[string]any{"id": hm["id"], "name": hm["name"], "type": hm["type"],
					"provisioning_status": hm["provisioning_status"], "operating_status": "ONLINE"}
			}

			ps = append(ps, pool)
		}

		ls = append(ls, map[string]any{"id": l["id"], "name": l["name"], "provisioning_status": l["provisioning_status"],
			"operating_status": "ONLINE", "pools": ps})
	}

	return map[string]any{"id": lb.obj["id"], "name": lb.obj["name"], "provisioning_status": lb.obj["provisioning_status"],
		"operating_status": lb.obj["operating_status"], "listeners": ls}
}

// addLB makes a load balancer directly in the fake (no children) with tags, as if made out of
// band, and returns its ID.
func (f *fakeCloud) addLB(name, status string, tags ...string) string {
	f.mu.Lock()
	defer f.mu.Unlock()

	id := f.id("lb")
	f.lbs[id] = &fakeLB{obj: map[string]any{
		"id": id, "name": name, "project_id": "project-1", "vip_address": "10.0.0.20", "vip_port_id": f.id("vip-port"),
		"vip_subnet_id": f.subnetID, "vip_network_id": f.networkID, "provisioning_status": status, "operating_status": "OFFLINE",
		"created_at": f.createdAt(), "tags": anyList(tags),
	}, pending: f.settle}

	return id
}

// interrupt takes the completion mark off load balancer id, as if its create had been
// interrupted before its last step.
func (f *fakeCloud) interrupt(id string) {
	f.mu.Lock()
	defer f.mu.Unlock()

	f.lbs[id].obj["tags"] = anyList(created.Tags())
}

// dropLB removes a load balancer out of band; Neutron keeps its floating IP, on no port.
func (f *fakeCloud) dropLB(id string) {
	f.mu.Lock()
	defer f.mu.Unlock()

	port := f.lbs[id].obj["vip_port_id"]
	delete(f.lbs, id)

	for _, fip := range f.fips {
		if fip["port_id"] == port {
			fip["port_id"] = nil
		}
	}
}

// tagsOf is the tags of a posted object as Octavia keeps them: [] for none.
func tagsOf(in map[string]any) []any {
	if tags := items(in["tags"]); tags != nil {
		return tags
	}

	return []any{}
}

// anyList is ss as a decoded JSON list.
func anyList(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}

	return out
}

// str, object and items read decoded JSON values; a missing or mistyped value is the zero value.
func str(v any) string { s, _ := v.(string); return s }

func object(v any) map[string]any { m, _ := v.(map[string]any); return m }

func items(v any) []any { l, _ := v.([]any); return l }

// strs are the strings of a list of v.
func strs(v any) []string {
	var out []string
	for _, s := range items(v) {
		out = append(out, str(s))
	}

	return out
}
