// Package quota is the one implementation of the quotas a Keystone project gets in every
// served region, shared by unikorn_identity and unikorn_project: the quota groups of Nova,
// Neutron, Cinder and Octavia (unlimited where left out, as in Unikorn), setting, reading,
// merging over regions and resetting them. This file is the core (gophercloud only); schema.go
// is the `quotas` attribute both resources serve.
package quota

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
)

// Quota groups: one per service, named as in the `quotas` attribute.
const (
	Compute      = "compute"
	Network      = "network"
	BlockStorage = "block_storage"
	LoadBalancer = "load_balancer"
)

// Unlimited is the quota value that means no limit, and the default of every quota.
const Unlimited int64 = -1

// Set maps a quota group onto its quotas, keyed by the services' own API names.
type Set map[string]map[string]int64

// Field is one quota of a service.
type Field struct {
	Key         string // the service's API name, also the attribute name
	Description string
}

// Group is the quota API of one service.
type Group struct {
	Name        string // the attribute name
	Service     string // for humans
	Description string
	Fields      []Field

	client   func(t *cloud.Tenant) (*gophercloud.ServiceClient, error)
	path     []string // URL parts before the project ID
	envelope string   // JSON key around the quotas
}

// Groups are the quotas a project gets in every served region, in schema order.
var Groups = []Group{
	{
		Name: BlockStorage, Service: "Cinder", Description: "Cinder (block storage) quotas.",
		Fields: []Field{
			{"backup_gigabytes", "Total size of backups, in GiB."},
			{"backups", "Number of volume backups."},
			{"gigabytes", "Total size of volumes and snapshots, in GiB."},
			{"groups", "Number of volume groups."},
			{"per_volume_gigabytes", "Largest size of one volume, in GiB."},
			{"snapshots", "Number of volume snapshots."},
			{"volumes", "Number of volumes."},
		},
		client:   (*cloud.Tenant).BlockStorage,
		path:     []string{"os-quota-sets"},
		envelope: "quota_set",
	},
	{
		Name: Compute, Service: "Nova", Description: "Nova (compute) quotas.",
		Fields: []Field{
			{"cores", "Number of vCPUs of all servers."},
			{"instances", "Number of servers."},
			{"key_pairs", "Number of keypairs per user."},
			{"metadata_items", "Number of metadata items per server."},
			{"ram", "Memory of all servers, in MiB."},
			{"server_group_members", "Number of servers per server group."},
			{"server_groups", "Number of server groups."},
		},
		client:   (*cloud.Tenant).Compute,
		path:     []string{"os-quota-sets"},
		envelope: "quota_set",
	},
	{
		Name: LoadBalancer, Service: "Octavia", Description: "Octavia (load balancer) quotas.",
		Fields: []Field{
			{"health_monitor", "Number of health monitors."},
			{"listener", "Number of listeners."},
			{"load_balancer", "Number of load balancers."},
			{"member", "Number of pool members."},
			{"pool", "Number of pools."},
		},
		client:   (*cloud.Tenant).LoadBalancer,
		path:     []string{"lbaas", "quotas"},
		envelope: "quota",
	},
	{
		Name: Network, Service: "Neutron", Description: "Neutron (network) quotas.",
		Fields: []Field{
			{"floatingip", "Number of floating IPs."},
			{"network", "Number of networks."},
			{"port", "Number of ports."},
			{"rbac_policy", "Number of RBAC policies."},
			{"router", "Number of routers."},
			{"security_group", "Number of security groups."},
			{"security_group_rule", "Number of security group rules."},
			{"subnet", "Number of subnets."},
			{"subnetpool", "Number of subnet pools."},
		},
		client:   (*cloud.Tenant).Network,
		path:     []string{"quotas"},
		envelope: "quota",
	},
}

// AllUnlimited is every quota at -1.
func AllUnlimited() Set {
	q := Set{}

	for _, g := range Groups {
		q[g.Name] = map[string]int64{}
		for _, f := range g.Fields {
			q[g.Name][f.Key] = Unlimited
		}
	}

	return q
}

// Clone is a deep copy.
func (q Set) Clone() Set {
	if q == nil {
		return nil
	}

	out := make(Set, len(q))
	for g, fields := range q {
		out[g] = maps.Clone(fields)
	}

	return out
}

// Equal compares every quota of both.
func (q Set) Equal(other Set) bool {
	if len(q) != len(other) {
		return false
	}

	for g, fields := range q {
		if !maps.Equal(fields, other[g]) {
			return false
		}
	}

	return true
}

// body is the request body of a group's PUT.
func (g Group) body(q Set) map[string]any {
	fields := map[string]any{}

	for _, f := range g.Fields {
		if v, ok := q[g.Name][f.Key]; ok {
			fields[f.Key] = v
		}
	}

	return map[string]any{g.envelope: fields}
}

// parse reads a group's GET answer. A quota the service leaves out or answers null with is
// reported as unlimited (Octavia answers null for "no limit set").
func (g Group) parse(raw []byte) (map[string]int64, error) {
	var doc map[string]map[string]json.RawMessage

	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("%s quotas: %w", g.Service, err)
	}

	if _, ok := doc[g.envelope]; !ok {
		return nil, fmt.Errorf("%s quotas: no %q in the answer", g.Service, g.envelope)
	}

	out := map[string]int64{}

	for _, f := range g.Fields {
		v := doc[g.envelope][f.Key]
		if len(v) == 0 || string(v) == "null" {
			out[f.Key] = Unlimited
			continue
		}

		var n json.Number
		if err := json.Unmarshal(v, &n); err != nil {
			return nil, fmt.Errorf("%s quota %s: %s is not a number", g.Service, f.Key, v)
		}

		i, err := n.Int64()
		if err != nil {
			fl, ferr := n.Float64()
			if ferr != nil || fl != math.Trunc(fl) {
				return nil, fmt.Errorf("%s quota %s: %s is not an integer", g.Service, f.Key, n)
			}

			i = int64(fl)
		}

		out[f.Key] = i
	}

	return out, nil
}

func (g Group) url(sc *gophercloud.ServiceClient, projectID string) string {
	return sc.ServiceURL(append(slices.Clone(g.path), projectID)...)
}

// put sets one group's quotas of projectID through sc and returns what the service answers
// it now holds.
func put(ctx context.Context, sc *gophercloud.ServiceClient, g Group, projectID string, q Set) (map[string]int64, error) {
	var raw json.RawMessage

	_, err := sc.Put(ctx, g.url(sc, projectID), g.body(q), &raw, &gophercloud.RequestOpts{OkCodes: []int{200, 202}})
	if err != nil {
		return nil, fmt.Errorf("setting %s quotas of project %s: %w", g.Service, projectID, err)
	}

	return g.parse(raw)
}

// get reads one group's quotas of projectID through sc.
func get(ctx context.Context, sc *gophercloud.ServiceClient, g Group, projectID string) (map[string]int64, error) {
	var raw json.RawMessage

	_, err := sc.Get(ctx, g.url(sc, projectID), &raw, &gophercloud.RequestOpts{OkCodes: []int{200}})
	if err != nil {
		return nil, fmt.Errorf("reading %s quotas of project %s: %w", g.Service, projectID, err)
	}

	return g.parse(raw)
}

// remove resets one group's quotas of projectID to the defaults, which removes the service's
// record of the project.
func remove(ctx context.Context, sc *gophercloud.ServiceClient, g Group, projectID string) error {
	_, err := sc.Delete(ctx, g.url(sc, projectID), &gophercloud.RequestOpts{OkCodes: []int{200, 202, 204}})
	if err == nil || gophercloud.ResponseCodeIs(err, 404) {
		return nil
	}

	return fmt.Errorf("resetting %s quotas of project %s: %w", g.Service, projectID, err)
}

// Apply sets q in every region of admin (one project bound in the admin scope, cloud.Admin,
// per served region: stock policy reserves quota updates for admin), and returns the quotas the
// services answered with, merged over the regions as by Merge. When setting them fails
// somewhere, it returns with the error what the regions hold then, read back (some groups and
// regions may have been set, the failed one too): never the values it meant to set. Those are
// nil when they cannot be read either.
func Apply(ctx context.Context, admin []*cloud.Tenant, q Set) (Set, error) {
	perRegion, err := eachGroup(ctx, admin, func(ctx context.Context, sc *gophercloud.ServiceClient, g Group, projectID string) (map[string]int64, error) {
		return put(ctx, sc, g, projectID, q)
	})
	if err != nil {
		held, rerr := Read(ctx, admin, q)
		if rerr != nil {
			tflog.Warn(ctx, "Cannot read the quotas back after failing to set them", map[string]any{"error": rerr.Error()})

			return nil, err
		}

		return held, err
	}

	tflog.Debug(ctx, "Set the project's quotas", map[string]any{"regions": len(admin)})

	return Merge(perRegion, q), nil
}

// Read reads the quotas of every region of admin and merges them (see Merge).
func Read(ctx context.Context, admin []*cloud.Tenant, want Set) (Set, error) {
	perRegion, err := PerRegion(ctx, admin)
	if err != nil {
		return nil, err
	}

	return Merge(perRegion, want), nil
}

// PerRegion reads the quotas of every region of admin, in its order.
func PerRegion(ctx context.Context, admin []*cloud.Tenant) ([]Set, error) {
	return eachGroup(ctx, admin, func(ctx context.Context, sc *gophercloud.ServiceClient, g Group, projectID string) (map[string]int64, error) {
		return get(ctx, sc, g, projectID)
	})
}

// Reset removes the project's quota records in every region of admin, so that no service keeps
// a row for a project that is about to disappear.
func Reset(ctx context.Context, admin []*cloud.Tenant) error {
	_, err := eachGroup(ctx, admin, func(ctx context.Context, sc *gophercloud.ServiceClient, g Group, projectID string) (map[string]int64, error) {
		return nil, remove(ctx, sc, g, projectID)
	})

	return err
}

// eachGroup calls do with the client of every quota group in every region of admin, and
// collects what it returns: one Set per region, in admin's order.
func eachGroup(ctx context.Context, admin []*cloud.Tenant,
	do func(ctx context.Context, sc *gophercloud.ServiceClient, g Group, projectID string) (map[string]int64, error),
) ([]Set, error) {
	perRegion := make([]Set, 0, len(admin))

	for _, t := range admin {
		q := Set{}

		for _, g := range Groups {
			sc, err := g.client(t)
			if err != nil {
				return nil, err
			}

			if q[g.Name], err = do(ctx, sc, g, t.ProjectID()); err != nil {
				return nil, fmt.Errorf("region %s: %w", t.Region(),
					t.AdminRefusal(g.Service, "the quotas of project "+t.ProjectID(), err))
			}
		}

		perRegion = append(perRegion, q)
	}

	return perRegion, nil
}

// Merge folds the quotas of several regions into one: for each quota, the value of the first
// region that differs from want, or else the (common) value. With want nil, the first region's
// value. Drift in any region thus shows against want.
func Merge(perRegion []Set, want Set) Set {
	if len(perRegion) == 0 {
		return nil
	}

	out := Set{}

	for _, g := range Groups {
		out[g.Name] = map[string]int64{}

		for _, f := range g.Fields {
			v := perRegion[0][g.Name][f.Key]

			if w, ok := want[g.Name][f.Key]; ok {
				v = w

				for _, q := range perRegion {
					if got := q[g.Name][f.Key]; got != w {
						v = got
						break
					}
				}
			}

			out[g.Name][f.Key] = v
		}
	}

	return out
}
