package server_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/acctest"
)

// An ID that no image of the local cloud has.
const noSuchID = "00000000-0000-4000-8000-00000000dead"

// rejected is a server configuration the checks must refuse, with the error they say.
type rejected struct {
	server srv
	err    string
	// more is HCL beside the server.
	more string
}

// says is a pattern of an error that says the phrases in turn, whatever the lines and the
// diagnostic box the CLI wraps them in.
func says(phrases ...string) string {
	loose := make([]string, len(phrases))
	for i, p := range phrases {
		loose[i] = strings.Join(strings.Fields(regexp.QuoteMeta(p)), `[\s│]+`)
	}

	return "(?s)" + strings.Join(loose, ".*")
}

// refusals are the steps of rejected configurations (with the HCL of more around them): each
// must fail, at plan time (planOnly) or during the apply.
func (f fixture) refusals(planOnly bool, more string, cases ...rejected) []resource.TestStep {
	steps := make([]resource.TestStep, 0, len(cases))

	for _, c := range cases {
		steps = append(steps, resource.TestStep{
			Config:      f.config(c.server) + more + c.more,
			PlanOnly:    planOnly,
			ExpectError: regexp.MustCompile(c.err),
		})
	}

	return steps
}

// TestAccServer_planChecks: tags that do not translate, a flavor or image the cloud does not
// have, an image that is not active, flavors that cannot boot the image, a flavor without a disk
// for a server that does not boot from a volume, a root volume too small for the image and a
// volume class the region does not offer fail the plan, pointing at the attribute (these need
// no identity: nothing is applied at all).
func TestAccServer_planChecks(t *testing.T) {
	acctest.PreCheck(t)

	f := newFixture(t, acctest.FirstRegion())
	small := acctest.CreateFlavor(t, acctest.FlavorSpec{Region: f.region, VCPUs: 1, RAMMiB: 256, DiskGB: 1})
	noDisk := acctest.CreateFlavor(t, acctest.FlavorSpec{Region: f.region, VCPUs: 1, RAMMiB: 512, DiskGB: 0})
	big := acctest.CreateImage(t, acctest.ImageSpec{Region: f.region, MinDiskGiB: 5})
	arm := acctest.CreateImage(t, acctest.ImageSpec{Region: f.region, Properties: map[string]string{"architecture": "aarch64"}})
	queued := acctest.CreateImage(t, acctest.ImageSpec{Region: f.region, NoData: true})
	hungry := acctest.CreateImage(t, acctest.ImageSpec{Region: f.region})
	acctest.SetImageMinRAM(t, f.region, hungry.ID, 1024)

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: f.refusals(true, "",
			rejected{server: srv{extra: `  tags = { "team" = "x" }`}, err: `(?s)Invalid tag key.*invalid tag key "team": no "/"`},
			rejected{server: srv{flavor: small, image: big.ID}, err: `Flavor disk too small`},
			rejected{server: srv{image: arm.ID}, err: `architectures differ`},
			rejected{server: srv{flavor: "tf-acc-no-such-flavor"}, err: says("Unknown flavor", "Nova has no flavor tf-acc-no-such-flavor in region "+f.region)},
			rejected{server: srv{image: noSuchID}, err: says("Unknown image", "Glance has no image "+noSuchID)},
			rejected{server: srv{image: queued.ID}, err: says("Image not active", "is queued in Glance")},
			rejected{server: srv{flavor: small, image: hungry.ID}, err: says("Flavor memory too small", "256 MiB of RAM", "needs at least 1024 MiB")},
			rejected{server: srv{flavor: noDisk}, err: says("Flavor has no disk: boot from a volume", "compute:servers:create:zero_disk_flavor", "Set root_volume")},
			rejected{server: srv{flavor: noDisk, image: big.ID, extra: "  root_volume = { size_gb = 1 }"}, err: says("Root volume too small", "needs 5 GiB")},
			rejected{server: srv{flavor: noDisk, extra: "  root_volume = { size_gb = 1, volume_class = \"" + noSuchID + "\" }"},
				err: says("Unknown volume class", "offers no volume class "+noSuchID)},
		),
	})
}

// TestAccServer_tenantChecks: with an identity that has no server group and no keypair, a
// second identity, and a network of the first identity in the other region, the plan refuses
// server_group, ssh_key, another identity's network and security group, and another region's
// network. When a value is known only during the apply (it comes from a terraform_data made
// by that apply), the same checks stop the apply before anything is made. Nothing of the
// server exists afterwards.
func TestAccServer_tenantChecks(t *testing.T) {
	acctest.PreCheck(t)

	regions := twoRegions(t)
	f := newFixture(t, regions[0])
	f.bare = true
	other := acctest.IdentityName()

	around := identityHCL("other", other, other, "") +
		acctest.NetworkHCL("other", "other", other, "10.43.0.0/24", acctest.RegionLine(f.region)) +
		groupHCL("other", "other", acctest.RegionLine(f.region), other, 22) +
		acctest.NetworkHCL("far", "test", f.name+"-far", "10.44.0.0/24", acctest.RegionLine(regions[1]))

	// late is a terraform_data made by the step's apply, whose output the plan cannot know.
	late := func(name, input string) string {
		return fmt.Sprintf("\nresource \"terraform_data\" %q {\n  input = %s\n}\n", name, input)
	}

	steps := []resource.TestStep{{Config: f.config() + around}}

	steps = append(steps, f.refusals(true, around,
		rejected{server: srv{extra: "  server_group = true"}, err: says("Identity has no server group", "set server_group on its unikorn_identity")},
		rejected{server: srv{extra: "  ssh_key = true"}, err: says("Identity has no keypair", "set ssh_public_key on its unikorn_identity")},
		rejected{server: srv{extra: "  security_group_ids = [unikorn_security_group.other.id]"}, err: says("Security group of another identity", "belongs to project")},
		rejected{server: srv{extra: "  security_group_ids = [unikorn_security_group.a.id, unikorn_security_group.other.id]"}, err: says("Security group of another identity")},
		rejected{server: srv{network: "unikorn_network.other.id"}, err: says("Network of another identity", "belongs to project")},
		rejected{server: srv{network: "unikorn_network.far.id"}, err: says("Network not found", "is not in region "+f.region)},
	)...)

	steps = append(steps, f.refusals(false, around,
		rejected{
			server: srv{flavorExpr: "terraform_data.late_flavor.output"},
			more:   late("late_flavor", `"tf-acc-no-such-flavor"`),
			err:    says("Unknown flavor", "Nova has no flavor tf-acc-no-such-flavor"),
		},
		rejected{
			server: srv{network: "terraform_data.late_network.output"},
			more:   late("late_network", "unikorn_network.other.id"),
			err:    says("Network of another identity", "belongs to project"),
		},
	)...)

	steps = append(steps, resource.TestStep{
		Config: f.config() + around,
		Check: acctest.CheckAttributes("unikorn_identity.test", func(a map[string]string) error {
			return acctest.ServerLeftovers(t, f.region, a["id"], f.name)
		}),
	})

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             checkDestroy(t),
		Steps:                    steps,
	})
}
