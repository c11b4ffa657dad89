package identity

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
	QuotaCompute      = "compute"
	QuotaNetwork      = "network"
	QuotaBlockStorage = "block_storage"
	QuotaLoadBalancer = "load_balancer"
)

// Unlimited is the quota value that means no limit, and the default of every quota.
const Unlimited int64 = -1

// Quotas maps a quota group onto its quotas, keyed by the services' own API names.
type Quotas map[string]map[string]int64

// QuotaField is one quota of a service.
type QuotaField struct {
	Key         string // the service's API name, also the attribute name
	Description string
}

// QuotaGroup is the quota API of one service.
type QuotaGroup struct {
	Name        string // the attribute name
	Service     string // for humans
	Description string
	Fields      []QuotaField

	client   func(t *cloud.Tenant) (*gophercloud.ServiceClient, error)
	path     []string // URL parts before the project ID
	envelope string   // JSON key around the quotas
}

// QuotaGroups are the quotas an identity sets in every served region, in schema order.
var QuotaGroups = []QuotaGroup{
	{
		Name: QuotaBlockStorage, Service: "Cinder", Description: "Cinder (block storage) quotas.",
		Fields: []QuotaField{
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
		Name: QuotaCompute, Service: "Nova", Description: "Nova (compute) quotas.",
		Fields: []QuotaField{
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
		Name: QuotaLoadBalancer, Service: "Octavia", Description: "Octavia (load balancer) quotas.",
		Fields: []QuotaField{
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
		Name: QuotaNetwork, Service: "Neutron", Description: "Neutron (network) quotas.",
		Fields: []QuotaField{
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

// UnlimitedQuotas is every quota at -1.
func UnlimitedQuotas() Quotas {
	q := Quotas{}

	for _, g := range QuotaGroups {
		q[g.Name] = map[string]int64{}
		for _, f := range g.Fields {
			q[g.Name][f.Key] = Unlimited
		}
	}

	return q
}

// Clone is a deep copy.
func (q Quotas) Clone() Quotas {
	if q == nil {
		return nil
	}

	out := make(Quotas, len(q))
	for g, fields := range q {
		out[g] = maps.Clone(fields)
	}

	return out
}

// Equal compares every quota of both.
func (q Quotas) Equal(other Quotas) bool {
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
func (g QuotaGroup) body(q Quotas) map[string]any {
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
func (g QuotaGroup) parse(raw []byte) (map[string]int64, error) {
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

func (g QuotaGroup) url(sc *gophercloud.ServiceClient, projectID string) string {
	return sc.ServiceURL(append(slices.Clone(g.path), projectID)...)
}

// putQuotas sets one group's quotas of projectID through sc and returns what the service
// answers it now holds.
func putQuotas(ctx context.Context, sc *gophercloud.ServiceClient, g QuotaGroup, projectID string, q Quotas) (map[string]int64, error) {
	var raw json.RawMessage

	_, err := sc.Put(ctx, g.url(sc, projectID), g.body(q), &raw, &gophercloud.RequestOpts{OkCodes: []int{200, 202}})
	if err != nil {
		return nil, fmt.Errorf("setting %s quotas of project %s: %w", g.Service, projectID, err)
	}

	return g.parse(raw)
}

// getQuotas reads one group's quotas of projectID through sc.
func getQuotas(ctx context.Context, sc *gophercloud.ServiceClient, g QuotaGroup, projectID string) (map[string]int64, error) {
	var raw json.RawMessage

	_, err := sc.Get(ctx, g.url(sc, projectID), &raw, &gophercloud.RequestOpts{OkCodes: []int{200}})
	if err != nil {
		return nil, fmt.Errorf("reading %s quotas of project %s: %w", g.Service, projectID, err)
	}

	return g.parse(raw)
}

// deleteQuotas resets one group's quotas of projectID to the defaults, which removes the
// service's record of the project.
func deleteQuotas(ctx context.Context, sc *gophercloud.ServiceClient, g QuotaGroup, projectID string) error {
	_, err := sc.Delete(ctx, g.url(sc, projectID), &gophercloud.RequestOpts{OkCodes: []int{200, 202, 204}})

	return gone(err, "resetting %s quotas of project %s", g.Service, projectID)
}

// applyQuotas sets q in every served region, in the admin scope, and returns the quotas
// the services answered with, merged over the regions as by mergeQuotas. When setting them
// fails somewhere, it returns with the error what the regions hold then, read back (some
// groups and regions may have been set, the failed one too): never the values it meant to set.
// Those are nil when they cannot be read either.
func (s *Service) applyQuotas(ctx context.Context, projectID string, q Quotas) (Quotas, error) {
	perRegion, err := s.eachQuotaGroup(ctx, projectID, func(ctx context.Context, sc *gophercloud.ServiceClient, g QuotaGroup) (map[string]int64, error) {
		return putQuotas(ctx, sc, g, projectID, q)
	})
	if err != nil {
		held, rerr := s.readQuotas(ctx, projectID, q)
		if rerr != nil {
			tflog.Warn(ctx, "Cannot read the quotas back after failing to set them", map[string]any{"error": rerr.Error()})

			return nil, err
		}

		return held, err
	}

	tflog.Debug(ctx, "Set the identity's quotas", map[string]any{"regions": s.cloud.Regions()})

	return mergeQuotas(perRegion, q), nil
}

// readQuotas reads the quotas of every served region and merges them (see mergeQuotas).
func (s *Service) readQuotas(ctx context.Context, projectID string, want Quotas) (Quotas, error) {
	perRegion, err := s.regionQuotas(ctx, projectID)
	if err != nil {
		return nil, err
	}

	return mergeQuotas(perRegion, want), nil
}

// regionQuotas reads the quotas of every served region, in the order served.
func (s *Service) regionQuotas(ctx context.Context, projectID string) ([]Quotas, error) {
	return s.eachQuotaGroup(ctx, projectID, func(ctx context.Context, sc *gophercloud.ServiceClient, g QuotaGroup) (map[string]int64, error) {
		return getQuotas(ctx, sc, g, projectID)
	})
}

// resetQuotas removes the project's quota records in every served region, so that no service
// keeps a row for a project that is about to disappear.
func (s *Service) resetQuotas(ctx context.Context, projectID string) error {
	_, err := s.eachQuotaGroup(ctx, projectID, func(ctx context.Context, sc *gophercloud.ServiceClient, g QuotaGroup) (map[string]int64, error) {
		return nil, deleteQuotas(ctx, sc, g, projectID)
	})

	return err
}

// eachQuotaGroup calls do with the client of every quota group in every served region, in the
// admin scope (cloud.Admin), and collects what it returns: one Quotas per region, in the order served.
func (s *Service) eachQuotaGroup(ctx context.Context, projectID string,
	do func(ctx context.Context, sc *gophercloud.ServiceClient, g QuotaGroup) (map[string]int64, error),
) ([]Quotas, error) {
	// Stock policy reserves quota updates for admin (and lets admin read and set any project's).
	ts, err := s.tenants(ctx, projectID, cloud.Admin)
	if err != nil {
		return nil, err
	}

	perRegion := make([]Quotas, 0, len(ts))

	for _, t := range ts {
		q := Quotas{}

		for _, g := range QuotaGroups {
			sc, err := g.client(t)
			if err != nil {
				return nil, err
			}

			if q[g.Name], err = do(ctx, sc, g); err != nil {
				return nil, fmt.Errorf("region %s: %w", t.Region(),
					s.cloud.AdminRefusal(g.Service, "the quotas of project "+projectID, err))
			}
		}

		perRegion = append(perRegion, q)
	}

	return perRegion, nil
}

// mergeQuotas folds the quotas of several regions into one: for each quota, the value of the
// first region that differs from want, or else the (common) value. With want nil, the first
// region's value. Drift in any region thus shows against want.
func mergeQuotas(perRegion []Quotas, want Quotas) Quotas {
	if len(perRegion) == 0 {
		return nil
	}

	out := Quotas{}

	for _, g := range QuotaGroups {
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
