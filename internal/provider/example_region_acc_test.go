package provider_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/flavors"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/domains"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/roles"
	"github.com/gophercloud/gophercloud/v2/openstack/image/v2/images"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/external"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/provider"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/networks"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/subnets"
	"github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/acctest"
)

// exampleRegionPhysnet is the physical network of the example's flat external network: not
// physnet1, where unikorn_provider_network's own tests make flat networks at the same time
// (Neutron allows one flat network per physical network; the local cloud's ML2 allows any
// physical network name for flat ones).
const exampleRegionPhysnet = "physnet-example"

// TestAccExample_region applies examples/region as a user would (names prefixed for the test,
// the image served from 127.0.0.1), checks every object in the cloud, plans again (the
// framework fails a step whose plan after the apply is not empty), destroys it and checks that
// the cloud has none of the objects left.
func TestAccExample_region(t *testing.T) {
	acctest.LocalBedOnly(t, "Glance's web-download fetches the image from this machine's loopback (acctest.ImageServer), "+
		"and the flat network is on a physical network of its own, which only the bed's ML2 allows")

	prefix := acctest.RandomName()
	ids := map[string]string{}

	applyExample(t, "region", config.Variables{
		"prefix":           config.StringVariable(prefix),
		"image_url":        config.StringVariable(acctest.ImageServer(t) + "/1mib/" + prefix),
		"physical_network": config.StringVariable(exampleRegionPhysnet),
	}, resource.ComposeAggregateTestCheckFunc(
		recordIDs(ids, map[string]string{
			"domain": "unikorn_domain.customers", "observer": "unikorn_role.observer", "operator": "unikorn_role.operator",
			"general": "unikorn_flavor.general", "reserved": "unikorn_flavor.reserved", "image": "unikorn_image.os",
			"network": "unikorn_provider_network.external",
		}),
		checkRegionMade(t, prefix, ids),
	), checkRegionGone(t, ids))
}

// checkRegionMade asks Keystone, Nova, Glance and Neutron for what the example made.
func checkRegionMade(t *testing.T, prefix string, ids map[string]string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		ctx := context.Background()
		cl := clientsOfDefaultRegion(t)

		d, err := domains.Get(ctx, cl.keystone, ids["domain"]).Extract()
		if err != nil || d.Name != prefix+"-customers" || !d.Enabled {
			return fmt.Errorf("domain %s: %+v %v", ids["domain"], d, err)
		}

		var implied struct {
			RoleInference struct {
				Implies []struct {
					ID string `json:"id"`
				} `json:"implies"`
			} `json:"role_inference"`
		}

		if _, err := cl.keystone.Get(ctx, cl.keystone.ServiceURL("roles", ids["operator"], "implies"), &implied, nil); err != nil {
			return fmt.Errorf("the roles the operator role implies: %w", err)
		}

		if got := implied.RoleInference.Implies; len(got) != 1 || got[0].ID != ids["observer"] {
			return fmt.Errorf("operator role %s implies %+v, want only the observer role %s", ids["operator"], got, ids["observer"])
		}

		if r, err := roles.Get(ctx, cl.keystone, ids["observer"]).Extract(); err != nil || r.Name != prefix+"-observer" {
			return fmt.Errorf("observer role: %+v %v", r, err)
		}

		general, err := flavors.Get(ctx, cl.nova, ids["general"]).Extract()
		if err != nil || general.Name != prefix+".g.1c1g" || general.VCPUs != 1 || general.RAM != 1024 || !general.IsPublic {
			return fmt.Errorf("flavor general: %+v %v", general, err)
		}

		reserved, err := flavors.Get(ctx, cl.nova, ids["reserved"]).Extract()
		if err != nil || reserved.VCPUs != 2 || reserved.IsPublic {
			return fmt.Errorf("flavor reserved: %+v %v", reserved, err)
		}

		img, err := images.Get(ctx, cl.glance, ids["image"]).Extract()
		if err != nil || img.Status != images.ImageStatusActive || img.Visibility != images.ImageVisibilityPublic ||
			img.Properties["unikorn:os:distro"] != "ubuntu" || img.SizeBytes != 1<<20 {
			return fmt.Errorf("image: %+v %v", img, err)
		}

		var net struct {
			networks.Network
			external.NetworkExternalExt
			provider.NetworkProviderExt
		}

		if err := networks.Get(ctx, cl.neutron, ids["network"]).ExtractInto(&net); err != nil {
			return err
		}

		if !net.External || net.NetworkType != "flat" || net.PhysicalNetwork != exampleRegionPhysnet {
			return fmt.Errorf("external network: %+v", net)
		}

		subs, err := acctest.AllPages(ctx, subnets.List(cl.neutron, subnets.ListOpts{NetworkID: ids["network"]}), subnets.ExtractSubnets)
		if err != nil || len(subs) != 1 || subs[0].CIDR != "198.51.100.0/24" || subs[0].GatewayIP != "198.51.100.1" ||
			len(subs[0].AllocationPools) != 1 || subs[0].AllocationPools[0].Start != "198.51.100.10" {
			return fmt.Errorf("subnets of the external network: %+v %v", subs, err)
		}

		return nil
	}
}

// checkRegionGone asks each service for each object again after the destroy: every one is 404.
func checkRegionGone(t *testing.T, ids map[string]string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		ctx := context.Background()
		cl := clientsOfDefaultRegion(t)

		gets := map[string]func() error{
			"domain":   func() error { return domains.Get(ctx, cl.keystone, ids["domain"]).Err },
			"observer": func() error { return roles.Get(ctx, cl.keystone, ids["observer"]).Err },
			"operator": func() error { return roles.Get(ctx, cl.keystone, ids["operator"]).Err },
			"general":  func() error { return flavors.Get(ctx, cl.nova, ids["general"]).Err },
			"reserved": func() error { return flavors.Get(ctx, cl.nova, ids["reserved"]).Err },
			"image":    func() error { return images.Get(ctx, cl.glance, ids["image"]).Err },
			"network":  func() error { return networks.Get(ctx, cl.neutron, ids["network"]).Err },
		}

		return goneAfterDestroy(ids, gets)
	}
}
