package network

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloudtest"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// fakeNeutron is an in-memory Neutron v2.0 API, served and recorded by cloudtest, with the
// behaviour that matters to this package: fuzzy (prefix) name filters, filters repeated for
// "any of", VLAN segmentation IDs unique per physical network (409 VlanIdInUse), default egress
// rules on new security groups, duplicate rules (409), bulk rule creation, router interfaces as
// ports, 409 on deleting objects in use, and tags and descriptions as Zed has them: every
// object shows its tags (none at first) and its description ("" when none was given), tags are
// added one by one (PUT /<collection>/<id>/tags/<tag>), and a POST that carries tags is refused
// (Zed has no tag-creation extension).
type fakeNeutron struct {
	mu sync.Mutex

	nextID   int
	networks map[string]map[string]any
	subnets  map[string]map[string]any
	routers  map[string]map[string]any
	ports    map[string]map[string]any
	groups   map[string]map[string]any
	rules    map[string]map[string]any
	fips     map[string]map[string]any

	// hiddenVLANs are taken by "another apply" but not yet visible in lists: the race.
	hiddenVLANs map[int]bool

	// faults are the failures still to inject, in order (see fault).
	faults []fault

	api *cloudtest.API
}

const fakeProject = "project-1"

func newFakeNeutron() *fakeNeutron {
	return &fakeNeutron{
		networks:    map[string]map[string]any{},
		subnets:     map[string]map[string]any{},
		routers:     map[string]map[string]any{},
		ports:       map[string]map[string]any{},
		groups:      map[string]map[string]any{},
		rules:       map[string]map[string]any{},
		fips:        map[string]map[string]any{},
		hiddenVLANs: map[int]bool{},
	}
}

// service serves f (once per fake) and returns a Service on it. The fake's own state is
// shared by every service of it, as Neutron's is by every client.
func (f *fakeNeutron) service(t *testing.T, cfg *Config) *Service {
	t.Helper()

	if f.api == nil {
		f.api = cloudtest.New(t)
		f.api.Fallback(f)
	}

	return newService(f.api.ServiceClient("/", "/v2.0/"), cfg, cloud.NewTenant(nil, fakeProject, "RegionOne"))
}

// calls returns and forgets the requests seen so far, as "METHOD /path" below /v2.0.
func (f *fakeNeutron) calls() []string {
	out := f.api.Calls()
	f.api.Reset()

	for i, c := range out {
		out[i] = strings.Replace(c, " /v2.0/", " /", 1)
	}

	return out
}

// id is a fresh UUID-shaped ID.
func (f *fakeNeutron) id() string {
	f.nextID++
	return fmt.Sprintf("%08d-0000-4000-8000-000000000000", f.nextID)
}

// add stores an object (tests use it to pre-create what an earlier apply left).
func (f *fakeNeutron) add(store map[string]map[string]any, obj map[string]any) string {
	f.mu.Lock()
	defer f.mu.Unlock()

	if obj["id"] == nil {
		obj["id"] = f.id()
	}

	if obj["project_id"] == nil {
		obj["project_id"] = fakeProject
	}

	id := fmt.Sprint(obj["id"])
	store[id] = obj

	return id
}

// addMarked stores an object with the marks m as this provider leaves them: tagged with them,
// or, when posted, only posted with the creation mark as its description (a create whose answer
// was lost, or that was killed before it tagged the object).
func (f *fakeNeutron) addMarked(store map[string]map[string]any, obj map[string]any, m naming.Mark, posted bool) string {
	if posted {
		obj["description"] = m.Description()
	} else {
		obj["tags"] = m.Tags()
	}

	return f.add(store, obj)
}

// tagsOf are the tags of the object id of store.
func (f *fakeNeutron) tagsOf(store map[string]map[string]any, id string) []string {
	f.mu.Lock()
	defer f.mu.Unlock()

	return asStrings(store[id]["tags"])
}

// unfinish removes the completion mark from the object id of store: what a create killed just
// before its last step leaves.
func (f *fakeNeutron) unfinish(store map[string]map[string]any, id string) {
	f.mu.Lock()
	defer f.mu.Unlock()

	store[id]["tags"] = slices.DeleteFunc(asStrings(store[id]["tags"]), func(t string) bool { return t == naming.MarkCompletedTag })
}

func neutronErr(w http.ResponseWriter, status int, typ, msg string) {
	reply(w, status, map[string]any{"NeutronError": map[string]any{"type": typ, "message": msg, "detail": ""}})
}

func reply(w http.ResponseWriter, status int, body any) { cloudtest.WriteJSON(w, status, body) }

// matches applies list filters; name is a fuzzy prefix match, as some clouds do.
func matches(obj map[string]any, q url.Values) bool {
	for key, values := range q {
		if key == "fields" || len(values) == 0 {
			continue
		}

		want := values[0]

		switch key {
		case "network_id", "id":
			if !slices.Contains(values, fmt.Sprint(obj[key])) {
				return false
			}
		case "name":
			name, _ := obj["name"].(string)
			if !strings.HasPrefix(name, want) {
				return false
			}
		case "fixed_ips":
			subnet := strings.TrimPrefix(want, "subnet_id=")
			found := false

			for _, ip := range asList(obj["fixed_ips"]) {
				if m, ok := ip.(map[string]any); ok && m["subnet_id"] == subnet {
					found = true
				}
			}

			if !found {
				return false
			}
		case "security_groups":
			if !slices.Contains(asStrings(obj["security_groups"]), want) {
				return false
			}
		default:
			if fmt.Sprint(obj[key]) != want {
				return false
			}
		}
	}

	return true
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

func asStrings(v any) []string {
	var out []string

	switch l := v.(type) {
	case []string:
		out = l
	case []any:
		for _, s := range l {
			out = append(out, fmt.Sprint(s))
		}
	}

	return out
}

// A fault is one failure the fake injects into the next request whose "METHOD /path" (below
// /v2.0) contains call ("POST /networks", "/add_router_interface").
type fault struct {
	call string
	kind faultKind
}

type faultKind int

const (
	// answer503 refuses the request without acting on it.
	answer503 faultKind = iota
	// drop502 acts on the request, then answers 502 instead of its answer (a proxy that lost it).
	drop502
	// hangUp acts on the request, then closes the connection without an answer.
	hangUp
	// twin acts on the request, then makes another object of the same name (a concurrent
	// create) before it answers.
	twin
	// actTwice acts on the request, loses the answer and acts on it again, answering the
	// second time (the transport repeating a request whose answer was lost).
	actTwice
	// lostToAnother does not act on the create: someone else (a person, another tool) makes an
	// unmarked object of its name in the meantime, and the answer is a 502.
	lostToAnother
)

func (ft fault) String() string { return ft.call + ": " + ft.kind.String() }

func (k faultKind) String() string {
	return [...]string{"503 before acting", "502 after acting", "hang-up after acting", "twin", "acted twice", "lost to another"}[k]
}

// inject queues faults.
func (f *fakeNeutron) inject(faults ...fault) {
	f.mu.Lock()
	defer f.mu.Unlock()

	f.faults = append(f.faults, faults...)
}

// takeFault is the queued fault for the request, which it removes; false when there is none.
func (f *fakeNeutron) takeFault(r *http.Request) (fault, bool) {
	call := r.Method + " /" + strings.TrimPrefix(r.URL.Path, "/v2.0/")

	for i, ft := range f.faults {
		if strings.Contains(call, ft.call) {
			f.faults = slices.Delete(f.faults, i, i+1)
			return ft, true
		}
	}

	return fault{}, false
}

func (f *fakeNeutron) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()

	ft, ok := f.takeFault(r)
	if !ok {
		f.serve(w, r)
		return
	}

	switch ft.kind {
	case answer503:
		neutronErr(w, http.StatusServiceUnavailable, "ServiceUnavailable", "injected fault")
		return
	case lostToAnother:
		f.makeForeign(r)
		neutronErr(w, http.StatusBadGateway, "", "injected fault: the answer was lost")

		return
	}

	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))

	rec := httptest.NewRecorder()
	f.serve(rec, r)

	r.Body = io.NopCloser(bytes.NewReader(body))

	switch ft.kind {
	case drop502:
		neutronErr(w, http.StatusBadGateway, "", "injected fault: the answer was lost")
	case hangUp:
		conn, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			_ = conn.Close()
		}
	case twin:
		f.makeTwin(r, rec.Body.Bytes())

		for k, v := range rec.Header() {
			w.Header()[k] = v
		}

		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
	case actTwice:
		f.serve(w, r)
	}
}

// makeForeign stores an unmarked object named as the create r asks for (in the same network),
// as another client would have made it.
func (f *fakeNeutron) makeForeign(r *http.Request) {
	var body map[string]map[string]any
	_ = json.NewDecoder(r.Body).Decode(&body)

	coll := strings.Trim(strings.TrimPrefix(r.URL.Path, "/v2.0/"), "/")
	store := map[string]map[string]map[string]any{
		"networks": f.networks, "subnets": f.subnets, "routers": f.routers, "security-groups": f.groups,
	}[coll]

	for _, obj := range body {
		id := f.id()
		store[id] = map[string]any{
			"id": id, "name": obj["name"], "network_id": obj["network_id"], "cidr": obj["cidr"], "project_id": fakeProject,
		}
	}
}

// makeTwin stores a copy, with a new ID, of the object that answer (to a create) shows.
func (f *fakeNeutron) makeTwin(r *http.Request, answer []byte) {
	var body map[string]map[string]any
	_ = json.Unmarshal(answer, &body)

	coll := strings.Trim(strings.TrimPrefix(r.URL.Path, "/v2.0/"), "/")
	store := map[string]map[string]map[string]any{
		"networks": f.networks, "subnets": f.subnets, "routers": f.routers, "security-groups": f.groups,
	}[coll]

	for _, obj := range body {
		copied := maps.Clone(obj)
		copied["id"] = f.id()
		store[fmt.Sprint(copied["id"])] = copied
	}
}

func (f *fakeNeutron) serve(w http.ResponseWriter, r *http.Request) {
	parts := strings.Split(strings.Trim(strings.TrimPrefix(r.URL.Path, "/v2.0/"), "/"), "/")

	stores := map[string]struct {
		store     map[string]map[string]any
		key, one  string
		kindError string
	}{
		"networks":             {f.networks, "networks", "network", "NetworkNotFound"},
		"subnets":              {f.subnets, "subnets", "subnet", "SubnetNotFound"},
		"routers":              {f.routers, "routers", "router", "RouterNotFound"},
		"ports":                {f.ports, "ports", "port", "PortNotFound"},
		"security-groups":      {f.groups, "security_groups", "security_group", "SecurityGroupNotFound"},
		"security-group-rules": {f.rules, "security_group_rules", "security_group_rule", "SecurityGroupRuleNotFound"},
		"floatingips":          {f.fips, "floatingips", "floatingip", "FloatingIPNotFound"},
	}

	s, ok := stores[parts[0]]
	if !ok {
		neutronErr(w, http.StatusNotFound, "HTTPNotFound", "no such collection")
		return
	}

	var body map[string]any
	if r.Body != nil && r.ContentLength != 0 {
		_ = json.NewDecoder(r.Body).Decode(&body)
	}

	switch {
	case len(parts) == 1 && r.Method == http.MethodGet:
		out := []any{}

		for _, id := range slices.Sorted(maps.Keys(s.store)) {
			obj := s.store[id]
			if matches(obj, r.URL.Query()) {
				out = append(out, f.view(parts[0], obj))
			}
		}

		reply(w, http.StatusOK, map[string]any{s.key: out})

	case len(parts) == 1 && r.Method == http.MethodPost:
		if parts[0] == "security-group-rules" && body["security_group_rules"] != nil {
			f.createRules(w, asList(body["security_group_rules"]), true)
			return
		}

		obj, _ := body[s.one].(map[string]any)
		f.create(w, parts[0], s.one, obj)

	case len(parts) == 2 && r.Method == http.MethodGet:
		obj, ok := s.store[parts[1]]
		if !ok {
			neutronErr(w, http.StatusNotFound, s.kindError, parts[1]+" not found")
			return
		}

		reply(w, http.StatusOK, map[string]any{s.one: f.view(parts[0], obj)})

	case len(parts) == 2 && r.Method == http.MethodPut:
		obj, ok := s.store[parts[1]]
		if !ok {
			neutronErr(w, http.StatusNotFound, s.kindError, parts[1]+" not found")
			return
		}

		changes, _ := body[s.one].(map[string]any)
		for k, v := range changes {
			obj[k] = v
		}

		reply(w, http.StatusOK, map[string]any{s.one: f.view(parts[0], obj)})

	case len(parts) == 2 && r.Method == http.MethodDelete:
		f.delete(w, parts[0], s.store, parts[1], s.kindError)

	case len(parts) == 3 && parts[0] == "routers" && r.Method == http.MethodPut:
		f.routerInterface(w, parts[1], parts[2], body)

	case len(parts) == 4 && parts[2] == "tags" && r.Method == http.MethodPut:
		obj, ok := s.store[parts[1]]
		if !ok {
			neutronErr(w, http.StatusNotFound, s.kindError, parts[1]+" not found")
			return
		}

		if tags := asStrings(obj["tags"]); !slices.Contains(tags, parts[3]) {
			obj["tags"] = append(tags, parts[3])
		}

		w.WriteHeader(http.StatusCreated)

	default:
		neutronErr(w, http.StatusBadRequest, "HTTPBadRequest", "unsupported "+r.Method+" "+r.URL.Path)
	}
}

// view is what the API shows of an object: its tags and description always, and security
// groups carry their rules.
func (f *fakeNeutron) view(coll string, obj map[string]any) map[string]any {
	out := map[string]any{"tags": []string{}, "description": ""}
	for k, v := range obj {
		out[k] = v
	}

	if coll == "security-group-rules" {
		delete(out, "tags")
	}

	if coll == "security-groups" {
		rules := []any{}

		for _, id := range slices.Sorted(maps.Keys(f.rules)) {
			if f.rules[id]["security_group_id"] == obj["id"] {
				rules = append(rules, f.rules[id])
			}
		}

		out["security_group_rules"] = rules
	}

	return out
}

func (f *fakeNeutron) create(w http.ResponseWriter, coll, one string, obj map[string]any) {
	if obj == nil {
		neutronErr(w, http.StatusBadRequest, "HTTPBadRequest", "no body")
		return
	}

	if _, ok := obj["tags"]; ok {
		neutronErr(w, http.StatusBadRequest, "HTTPBadRequest", "Attribute 'tags' not allowed in POST")
		return
	}

	obj["id"] = f.id()
	if obj["project_id"] == nil {
		obj["project_id"] = fakeProject
	}

	obj["created_at"] = fmt.Sprintf("2026-01-02T03:04:%02dZ", f.nextID%60)

	switch coll {
	case "networks":
		// A single segment of the multi-provider extension reads back as provider:* attributes.
		if segments := asList(obj["segments"]); len(segments) == 1 {
			seg, _ := segments[0].(map[string]any)
			for k, v := range seg {
				obj[k] = v
			}

			delete(obj, "segments")
		}

		if obj["provider:network_type"] == "vlan" {
			f64, _ := obj["provider:segmentation_id"].(float64)
			seg := int(f64)

			taken := f.hiddenVLANs[seg]
			for _, n := range f.networks {
				if n["provider:physical_network"] == obj["provider:physical_network"] &&
					fmt.Sprint(n["provider:segmentation_id"]) == fmt.Sprint(obj["provider:segmentation_id"]) {
					taken = true
				}
			}

			if taken {
				neutronErr(w, http.StatusConflict, "VlanIdInUse", fmt.Sprintf("Unable to create the network. The VLAN %d on physical network %v is in use.", seg, obj["provider:physical_network"]))
				return
			}
		}

		obj["status"] = "ACTIVE"
		obj["subnets"] = []any{}
		f.networks[fmt.Sprint(obj["id"])] = obj
	case "subnets":
		net, ok := f.networks[fmt.Sprint(obj["network_id"])]
		if !ok {
			neutronErr(w, http.StatusNotFound, "NetworkNotFound", "network not found")
			return
		}

		net["subnets"] = append(asList(net["subnets"]), obj["id"])
		f.subnets[fmt.Sprint(obj["id"])] = obj
	case "routers":
		f.routers[fmt.Sprint(obj["id"])] = obj
	case "ports":
		f.ports[fmt.Sprint(obj["id"])] = obj
	case "security-groups":
		f.groups[fmt.Sprint(obj["id"])] = obj

		for _, et := range []string{"IPv4", "IPv6"} {
			id := f.id()
			f.rules[id] = map[string]any{
				"id": id, "security_group_id": obj["id"], "direction": "egress", "ethertype": et,
				"protocol": nil, "port_range_min": nil, "port_range_max": nil, "remote_ip_prefix": nil,
				"remote_group_id": nil, "description": "", "project_id": obj["project_id"],
			}
		}
	case "security-group-rules":
		f.createRules(w, []any{obj}, false)
		return
	case "floatingips":
		obj["floating_ip_address"] = fmt.Sprintf("203.0.113.%d", f.nextID%250)
		f.fips[fmt.Sprint(obj["id"])] = obj
	}

	reply(w, http.StatusCreated, map[string]any{one: f.view(coll, obj)})
}

// ruleKey is the fake's duplicate check: every field but ID and description, with
// 0.0.0.0/0 and ::/0 meaning no prefix.
func ruleKey(r map[string]any) string {
	prefix := r["remote_ip_prefix"]
	if prefix == "0.0.0.0/0" || prefix == "::/0" {
		prefix = nil
	}

	return fmt.Sprint(r["security_group_id"], r["direction"], r["ethertype"], r["protocol"], r["port_range_min"],
		r["port_range_max"], prefix, r["remote_group_id"])
}

func (f *fakeNeutron) createRules(w http.ResponseWriter, in []any, bulk bool) {
	var created []any

	seen := map[string]bool{}
	for _, r := range f.rules {
		seen[ruleKey(r)] = true
	}

	for _, item := range in {
		r, _ := item.(map[string]any)
		for _, k := range []string{"protocol", "port_range_min", "port_range_max", "remote_ip_prefix", "remote_group_id"} {
			if _, ok := r[k]; !ok {
				r[k] = nil
			}
		}

		if _, ok := f.groups[fmt.Sprint(r["security_group_id"])]; !ok {
			neutronErr(w, http.StatusNotFound, "SecurityGroupNotFound", "group not found")
			return
		}

		if seen[ruleKey(r)] {
			neutronErr(w, http.StatusConflict, "SecurityGroupRuleExists", "Security group rule already exists.")
			return
		}

		seen[ruleKey(r)] = true
		r["id"] = f.id()
		created = append(created, r)
	}

	// All or nothing, as Neutron's bulk create.
	for _, item := range created {
		r, _ := item.(map[string]any)
		f.rules[fmt.Sprint(r["id"])] = r
	}

	if !bulk {
		reply(w, http.StatusCreated, map[string]any{"security_group_rule": created[0]})
		return
	}

	reply(w, http.StatusCreated, map[string]any{"security_group_rules": created})
}

func (f *fakeNeutron) delete(w http.ResponseWriter, coll string, store map[string]map[string]any, id, notFound string) {
	obj, ok := store[id]
	if !ok {
		neutronErr(w, http.StatusNotFound, notFound, id+" not found")
		return
	}

	switch coll {
	case "networks":
		for _, p := range f.ports {
			if p["network_id"] == id {
				neutronErr(w, http.StatusConflict, "NetworkInUse", "Unable to complete operation on network "+id+". There are one or more ports still in use on the network.")
				return
			}
		}

		for sid, s := range f.subnets {
			if s["network_id"] == id {
				delete(f.subnets, sid)
			}
		}
	case "subnets":
		for _, p := range f.ports {
			for _, ip := range asList(p["fixed_ips"]) {
				if m, ok := ip.(map[string]any); ok && m["subnet_id"] == id {
					neutronErr(w, http.StatusConflict, "SubnetInUse", "Unable to complete operation on subnet "+id+": One or more ports have an IP allocation from this subnet.")
					return
				}
			}
		}
	case "routers":
		for _, p := range f.ports {
			if p["device_id"] == id && p["device_owner"] == "network:router_interface" {
				neutronErr(w, http.StatusConflict, "RouterInUse", "Router "+id+" still has ports")
				return
			}
		}
	case "security-groups":
		for _, p := range f.ports {
			if slices.Contains(asStrings(p["security_groups"]), id) {
				neutronErr(w, http.StatusConflict, "SecurityGroupInUse", "Security Group "+id+" in use.")
				return
			}
		}

		for rid, r := range f.rules {
			if r["security_group_id"] == id {
				delete(f.rules, rid)
			}
		}
	}

	_ = obj

	delete(store, id)
	w.WriteHeader(http.StatusNoContent)
}

func (f *fakeNeutron) routerInterface(w http.ResponseWriter, routerID, action string, body map[string]any) {
	if _, ok := f.routers[routerID]; !ok {
		neutronErr(w, http.StatusNotFound, "RouterNotFound", "router not found")
		return
	}

	subnetID := fmt.Sprint(body["subnet_id"])

	sub, ok := f.subnets[subnetID]
	if !ok {
		neutronErr(w, http.StatusNotFound, "SubnetNotFound", "subnet not found")
		return
	}

	switch action {
	case "add_router_interface":
		for _, p := range f.ports {
			for _, ip := range asList(p["fixed_ips"]) {
				if m, ok := ip.(map[string]any); ok && p["device_id"] == routerID && m["subnet_id"] == subnetID {
					neutronErr(w, http.StatusBadRequest, "BadRequest", "Bad router request: Router already has a port on subnet "+subnetID+".")
					return
				}
			}
		}

		id := f.id()
		f.ports[id] = map[string]any{
			"id": id, "name": "", "network_id": sub["network_id"], "device_id": routerID,
			"device_owner": "network:router_interface", "project_id": fakeProject,
			"fixed_ips": []any{map[string]any{"subnet_id": subnetID, "ip_address": sub["gateway_ip"]}},
		}

		reply(w, http.StatusOK, map[string]any{"id": routerID, "subnet_id": subnetID, "port_id": id})
	case "remove_router_interface":
		for id, p := range f.ports {
			if p["device_id"] != routerID {
				continue
			}

			for _, ip := range asList(p["fixed_ips"]) {
				if m, ok := ip.(map[string]any); ok && m["subnet_id"] == subnetID {
					delete(f.ports, id)
					reply(w, http.StatusOK, map[string]any{"id": routerID, "subnet_id": subnetID, "port_id": id})

					return
				}
			}
		}

		neutronErr(w, http.StatusNotFound, "RouterInterfaceNotFoundForSubnet", "no interface")
	default:
		neutronErr(w, http.StatusBadRequest, "HTTPBadRequest", "unknown action")
	}
}

// count is how many requests of calls contain part ("POST /networks", "/add_router_interface").
func count(calls []string, part string) int {
	n := 0

	for _, c := range calls {
		if strings.Contains(c, part) {
			n++
		}
	}

	return n
}
