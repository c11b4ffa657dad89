package loadbalancer

import (
	"fmt"
	"net/http"
	"strings"
)

// floatingIPs is Neutron's /floatingips[/id].
func (f *fakeCloud) floatingIPs(w http.ResponseWriter, r *http.Request, id string, body map[string]any) {
	q := r.URL.Query()

	switch {
	case id == "" && r.Method == http.MethodGet:
		out := []any{}

		for _, fip := range f.fips {
			if p := q.Get("port_id"); p != "" && fip["port_id"] != p {
				continue
			}

			if d := q.Get("description"); d != "" && !strings.HasPrefix(fmt.Sprint(fip["description"]), d) {
				continue
			}

			out = append(out, fip)
		}

		reply(w, http.StatusOK, map[string]any{"floatingips": out})

	case id == "" && r.Method == http.MethodPost:
		in := object(body["floatingip"])
		if in["floating_network_id"] != f.externalID {
			reply(w, http.StatusBadRequest, map[string]any{"NeutronError": map[string]any{"message": "wrong external network"}})
			return
		}

		fid := f.id("fip")
		fip := map[string]any{"id": fid, "floating_ip_address": fmt.Sprintf("203.0.113.%d", f.seq), "port_id": in["port_id"],
			"description": in["description"], "floating_network_id": in["floating_network_id"]}
		f.fips[fid] = fip
		f.mutations = append(f.mutations, "POST floatingips")

		reply(w, http.StatusCreated, map[string]any{"floatingip": fip})

	case f.fips[id] == nil:
		reply(w, http.StatusNotFound, nil)

	case r.Method == http.MethodPut:
		for k, v := range object(body["floatingip"]) {
			f.fips[id][k] = v
		}

		f.mutations = append(f.mutations, "PUT floatingips")

		reply(w, http.StatusOK, map[string]any{"floatingip": f.fips[id]})

	case r.Method == http.MethodDelete:
		delete(f.fips, id)
		f.mutations = append(f.mutations, "DELETE floatingips")

		reply(w, http.StatusNoContent, nil)

	default:
		reply(w, http.StatusMethodNotAllowed, nil)
	}
}
