package server

// This file is the Placement preflight of a pinned server (unikorn_server's host or
// hypervisor_hostname): before anything is made, the host must be a compute host Nova knows, or
// the hypervisor a resource provider Placement knows (by name or UUID, as Unikorn's own preflight
// finds the provider of an infrastructureRef), whose inventory, less what is allocated, has room
// for the flavor. All of it is read in the admin scope (Nova's hypervisors and Placement are
// admin-only under stock policy).

import (
	"context"
	"fmt"
	"maps"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/flavors"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/servers"
	"github.com/gophercloud/gophercloud/v2/openstack/placement/v1/resourceproviders"
	"github.com/gophercloud/gophercloud/v2/pagination"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
)

// The standard resource classes a flavor asks of Placement.
const (
	classVCPU     = "VCPU"
	classMemoryMB = "MEMORY_MB"
	classDiskGB   = "DISK_GB"
)

// Demand is what one server of a flavor asks of Placement: resource class → amount.
type Demand map[string]int

// DemandOf is the demand of flavor f as Nova computes it: its VCPUs, its RAM, and its root and
// ephemeral disks plus its swap in whole GB; an extra spec resources:CLASS=N sets a class
// (0 drops it; a custom class adds one), as it does for Nova.
func DemandOf(f *flavors.Flavor) Demand {
	d := Demand{
		classVCPU:     f.VCPUs,
		classMemoryMB: f.RAM,
		classDiskGB:   f.Disk + f.Ephemeral + int(math.Ceil(float64(f.Swap)/1024)),
	}

	for key, value := range f.ExtraSpecs {
		class, ok := strings.CutPrefix(key, "resources:")
		if !ok {
			continue
		}

		if n, err := strconv.Atoi(value); err == nil {
			d[class] = n
		}
	}

	for class, n := range d {
		if n <= 0 {
			delete(d, class)
		}
	}

	return d
}

// Shortfall is one resource class a host cannot give.
type Shortfall struct {
	Class string
	// Need is the flavor's demand; Free what the host has left (capacity less allocations);
	// MaxUnit the most one allocation may take. Missing: the host has no inventory of it.
	Need, Free, MaxUnit int
	Missing             bool
}

func (s Shortfall) String() string {
	switch {
	case s.Missing:
		return fmt.Sprintf("%s: the flavor needs %d, the host has none", s.Class, s.Need)
	case s.MaxUnit > 0 && s.Need > s.MaxUnit:
		return fmt.Sprintf("%s: the flavor needs %d, one server may take at most %d there", s.Class, s.Need, s.MaxUnit)
	}

	return fmt.Sprintf("%s: the flavor needs %d, %d free", s.Class, s.Need, s.Free)
}

// HostError is a host (or a hypervisor) that cannot take a server of the flavor: Nova knows no
// compute host of that name, or Placement no resource provider of that hypervisor's name or UUID
// (Known lists those they know), Placement has no resource provider for the host's node, or the
// provider is short of resources.
type HostError struct {
	Host, Region, Flavor string
	// Hypervisor says that Host is a hypervisor (hypervisor_hostname), not a compute host.
	Hypervisor bool
	Known      []string
	NoProvider string // the node whose resource provider Placement does not have
	Short      []Shortfall
}

func (e *HostError) Error() string {
	what := "host"
	if e.Hypervisor {
		what = "hypervisor"
	}

	switch {
	case e.NoProvider != "":
		return fmt.Sprintf("host %s in region %s: Placement has no resource provider for its node %s", e.Host, e.Region, e.NoProvider)
	case len(e.Short) == 0 && e.Hypervisor:
		return fmt.Sprintf("Placement has no resource provider named %s, or with that UUID, in region %s (Nova's hypervisors: %s)",
			e.Host, e.Region, strings.Join(e.Known, ", "))
	case len(e.Short) == 0:
		return fmt.Sprintf("Nova has no compute host %s in region %s (its compute hosts: %s)",
			e.Host, e.Region, strings.Join(e.Known, ", "))
	}

	parts := make([]string, len(e.Short))
	for i, s := range e.Short {
		parts[i] = s.String()
	}

	return fmt.Sprintf("%s %s in region %s has no room for flavor %s: %s", what, e.Host, e.Region, e.Flavor, strings.Join(parts, "; "))
}

// HostCheck reads, in the admin scope, what the Placement preflight needs.
type HostCheck struct {
	Compute, Placement *gophercloud.ServiceClient
	Region             string
}

// NewHostCheck binds the preflight to t, a tenant bound with cloud.Admin.
func NewHostCheck(t *cloud.Tenant) (HostCheck, error) {
	compute, err := t.Compute()
	if err != nil {
		return HostCheck{}, err
	}

	placement, err := t.Placement()
	if err != nil {
		return HostCheck{}, err
	}

	return HostCheck{Compute: compute, Placement: placement, Region: t.Region()}, nil
}

// Check tells whether host can take a server of flavor flavorID: nil when it can, a
// *HostError when it cannot, another error when the cloud could not say. Four requests: the
// flavor, Nova's hypervisors, the node's Placement inventory and usages.
func (h HostCheck) Check(ctx context.Context, host, flavorID string) error {
	f, err := flavors.Get(ctx, h.Compute, flavorID).Extract()
	if err != nil {
		return fmt.Errorf("reading flavor %s: %w", flavorID, err)
	}

	nodes, known, err := h.nodes(ctx, host)
	if err != nil {
		return err
	}

	if len(nodes) == 0 {
		return &HostError{Host: host, Region: h.Region, Known: known}
	}

	demand := DemandOf(f)

	var last *HostError

	for _, node := range nodes {
		short, err := h.shortfall(ctx, node.ID, demand)

		switch {
		case gophercloud.ResponseCodeIs(err, http.StatusNotFound):
			last = &HostError{Host: host, Region: h.Region, NoProvider: node.HypervisorHostname}
		case err != nil:
			return fmt.Errorf("reading the Placement resources of host %s (node %s): %w", host, node.HypervisorHostname, err)
		case len(short) == 0:
			return nil
		default:
			last = &HostError{Host: host, Region: h.Region, Flavor: f.Name, Short: short}
		}
	}

	return last
}

// CheckHypervisor tells whether hypervisor (a hypervisor_hostname: one compute node, one Ironic
// node on a baremetal cloud) can take a server of flavor flavorID: nil when it can, a *HostError
// when it cannot, another error when the cloud could not say. The node is Placement's resource
// provider named hypervisor, else the one whose UUID it is (as Unikorn's preflight finds it); its
// inventory less its usages must hold the flavor's demand. Four requests (five when found by
// UUID): the flavor, the provider, its inventory and usages; Nova's hypervisors only to name them
// when there is no such provider.
func (h HostCheck) CheckHypervisor(ctx context.Context, hypervisor, flavorID string) error {
	f, err := flavors.Get(ctx, h.Compute, flavorID).Extract()
	if err != nil {
		return fmt.Errorf("reading flavor %s: %w", flavorID, err)
	}

	rp, err := h.provider(ctx, hypervisor)
	if err != nil {
		return err
	}

	if rp == "" {
		all, err := h.allNodes(ctx)
		if err != nil {
			return err
		}

		known := make([]string, 0, len(all))
		for _, n := range all {
			known = append(known, n.HypervisorHostname)
		}

		slices.Sort(known)

		return &HostError{Host: hypervisor, Region: h.Region, Hypervisor: true, Known: slices.Compact(known)}
	}

	short, err := h.shortfall(ctx, rp, DemandOf(f))
	if err != nil {
		return fmt.Errorf("reading the Placement resources of hypervisor %s (resource provider %s): %w", hypervisor, rp, err)
	}

	if len(short) > 0 {
		return &HostError{Host: hypervisor, Region: h.Region, Hypervisor: true, Flavor: f.Name, Short: short}
	}

	return nil
}

// provider is the UUID of Placement's one resource provider named name, else (name being a UUID)
// of the one with that UUID; "" when there is none.
func (h HostCheck) provider(ctx context.Context, name string) (string, error) {
	queries := []resourceproviders.ListOpts{{Name: name}}
	if cloud.LooksLikeID(name) {
		queries = append(queries, resourceproviders.ListOpts{UUID: name})
	}

	for _, q := range queries {
		all, err := cloud.ListAll(ctx, resourceproviders.List(h.Placement, q), resourceproviders.ExtractResourceProviders,
			"Placement's resource providers")
		if err != nil {
			return "", err
		}

		all = slices.DeleteFunc(all, func(rp resourceproviders.ResourceProvider) bool {
			return rp.Name != name && rp.UUID != name
		})

		if len(all) > 0 {
			return all[0].UUID, nil // Placement keeps names and UUIDs unique
		}
	}

	return "", nil
}

// node is one of Nova's compute nodes, with only what the preflight reads (gophercloud's
// Hypervisor insists on fields that some drivers leave null).
type node struct {
	// ID is, with microversion 2.53 and later, the node's resource provider UUID.
	ID                 string `json:"id"`
	HypervisorHostname string `json:"hypervisor_hostname"`
	Service            struct {
		Host string `json:"host"`
	} `json:"service"`
}

// nodePage is a page of Nova's hypervisor listing (GET /os-hypervisors/detail, paginated by
// its hypervisors_links), read as nodes.
type nodePage struct {
	pagination.LinkedPageBase
}

func (p nodePage) IsEmpty() (bool, error) {
	nodes, err := extractNodes(p)
	return len(nodes) == 0, err
}

func (p nodePage) NextPageURL() (string, error) {
	var body struct {
		Links []gophercloud.Link `json:"hypervisors_links"`
	}

	if err := p.ExtractInto(&body); err != nil {
		return "", err
	}

	return gophercloud.ExtractNextURL(body.Links)
}

// extractNodes reads the nodes of a page of the listing.
func extractNodes(page pagination.Page) ([]node, error) {
	var body struct {
		Hypervisors []node `json:"hypervisors"`
	}

	p, ok := page.(nodePage)
	if !ok {
		return nil, fmt.Errorf("unexpected page type %T", page)
	}

	err := p.ExtractInto(&body)

	return body.Hypervisors, err
}

// allNodes are Nova's compute nodes.
func (h HostCheck) allNodes(ctx context.Context) ([]node, error) {
	pager := pagination.NewPager(h.Compute, h.Compute.ServiceURL("os-hypervisors", "detail"),
		func(r pagination.PageResult) pagination.Page {
			return nodePage{pagination.LinkedPageBase{PageResult: r}}
		})

	return cloud.ListAll(ctx, pager, extractNodes, "Nova's compute hosts")
}

// nodes are Nova's compute nodes of host (one, but for drivers such as Ironic), and the hosts
// Nova knows.
func (h HostCheck) nodes(ctx context.Context, host string) ([]node, []string, error) {
	all, err := h.allNodes(ctx)
	if err != nil {
		return nil, nil, err
	}

	var (
		nodes []node
		known []string
	)

	for _, hv := range all {
		if hv.Service.Host == host {
			nodes = append(nodes, hv)
		}

		if !slices.Contains(known, hv.Service.Host) {
			known = append(known, hv.Service.Host)
		}
	}

	slices.Sort(known)

	return nodes, known, nil
}

// shortfall reads the inventory and usages of resource provider rp and returns what it cannot
// give of demand, by class name.
func (h HostCheck) shortfall(ctx context.Context, rp string, demand Demand) ([]Shortfall, error) {
	inv, err := resourceproviders.GetInventories(ctx, h.Placement, rp).Extract()
	if err != nil {
		return nil, err
	}

	used, err := resourceproviders.GetUsages(ctx, h.Placement, rp).Extract()
	if err != nil {
		return nil, err
	}

	return Shortfalls(demand, inv.Inventories, used.Usages), nil
}

// Shortfalls compares demand with a provider's inventories and usages: a class is short when
// the provider has no inventory of it, when the demand exceeds its max_unit, or when it exceeds
// what is free, (total - reserved) × allocation_ratio - used. Sorted by class.
func Shortfalls(demand Demand, inventories map[string]resourceproviders.Inventory, usages map[string]int) []Shortfall {
	var out []Shortfall

	for _, class := range slices.Sorted(maps.Keys(demand)) {
		need := demand[class]

		inv, ok := inventories[class]
		if !ok {
			out = append(out, Shortfall{Class: class, Need: need, Missing: true})
			continue
		}

		capacity := int(math.Floor(float64(inv.Total-inv.Reserved) * float64(inv.AllocationRatio)))
		free := capacity - usages[class]

		if need > free || (inv.MaxUnit > 0 && need > inv.MaxUnit) {
			out = append(out, Shortfall{Class: class, Need: need, Free: max(free, 0), MaxUnit: inv.MaxUnit})
		}
	}

	return out
}

// hostOf is the compute host and the hypervisor of server id as the admin scope's compute
// client sees them ("" when Nova does not say, as to a caller that is not admin).
func hostOf(ctx context.Context, adminCompute *gophercloud.ServiceClient, id string) (host, hypervisor string, err error) {
	srv, err := servers.Get(ctx, adminCompute, id).Extract()
	if err != nil {
		return "", "", fmt.Errorf("reading server %s: %w", id, err)
	}

	return srv.Host, srv.HypervisorHostname, nil
}
