package loadbalancer

import (
	"net/http"
)

// members1 handles /pools/{id}/members: the list and the batch update, and (member, the rest
// of the path) /pools/{id}/members/{member}: its read and its update.
func (f *fakeCloud) members1(w http.ResponseWriter, r *http.Request, poolID string, member []string, body map[string]any) {
	pool := f.pools[poolID]
	if pool == nil {
		reply(w, http.StatusNotFound, nil)
		return
	}

	if len(member) > 0 {
		f.member1(w, r, pool, member[0], body)
		return
	}

	switch r.Method {
	case http.MethodGet:
		out := []any{}
		for _, m := range f.members[poolID] {
			out = append(out, m)
		}

		reply(w, http.StatusOK, map[string]any{"members": out})
	case http.MethodPut:
		if !f.lock(w, f.lbOf(pool), "PUT members") {
			return
		}

		var next []map[string]any

		for _, raw := range items(body["members"]) {
			next = append(next, f.newMember(poolID, object(raw)))
		}

		f.members[poolID] = next

		reply(w, http.StatusAccepted, nil)
	default:
		reply(w, http.StatusMethodNotAllowed, nil)
	}
}

// member1 handles /pools/{id}/members/{member}: its read, and its update (the weight).
func (f *fakeCloud) member1(w http.ResponseWriter, r *http.Request, pool map[string]any, memberID string, body map[string]any) {
	var m map[string]any

	for _, have := range f.members[str(pool["id"])] {
		if str(have["id"]) == memberID {
			m = have
		}
	}

	switch {
	case m == nil:
		reply(w, http.StatusNotFound, nil)
	case r.Method == http.MethodGet:
		reply(w, http.StatusOK, map[string]any{"member": m})
	case r.Method == http.MethodPut:
		if !f.lock(w, f.lbOf(pool), "PUT member") {
			return
		}

		if weight, ok := object(body["member"])["weight"]; ok {
			m["weight"] = weight
		}

		reply(w, http.StatusOK, map[string]any{"member": m})
	default:
		reply(w, http.StatusMethodNotAllowed, nil)
	}
}

func (f *fakeCloud) newMember(poolID string, in map[string]any) map[string]any {
	weight, ok := in["weight"]
	if !ok {
		weight = float64(DefaultMemberWeight)
	}

	tags, ok := in["tags"]
	if !ok {
		tags = []any{}
	}

	return map[string]any{
		"id": f.id("member"), "pool_id": poolID, "address": in["address"], "protocol_port": in["protocol_port"],
		"subnet_id": in["subnet_id"], "weight": weight, "provisioning_status": StatusActive, "tags": tags,
	}
}
