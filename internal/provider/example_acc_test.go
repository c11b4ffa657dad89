package provider_test

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/acctest"
)

// This file holds what the tests of the examples (TestAccExample_*) share: each applies an
// example as a user would, records the IDs of what it made, checks them in the cloud and,
// after the destroy, asks for each of them again.

// applyExample applies examples/<name>/main.tf with vars and checks the apply with check,
// plans again (the framework fails a step whose plan after the apply is not empty), destroys
// it and checks with gone that the cloud has none of its objects left.
func applyExample(t *testing.T, name string, vars config.Variables, check, gone resource.TestCheckFunc) {
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             gone,
		Steps: []resource.TestStep{{
			Config:          exampleConfig(t, "../../examples/"+name+"/main.tf"),
			ConfigVariables: vars,
			Check:           check,
		}},
	})
}

// exampleConfig is the example's main.tf without its terraform block: the test serves the
// provider itself (under the address the testing framework expects).
func exampleConfig(t *testing.T, file string) string {
	t.Helper()

	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}

	text := string(raw)

	start := strings.Index(text, "terraform {")
	if start < 0 {
		t.Fatalf("%s has no terraform block", file)
	}

	depth := 0

	for i := start; i < len(text); i++ {
		switch text[i] {
		case '{':
			depth++
		case '}':
			if depth--; depth == 0 {
				return text[:start] + text[i+1:]
			}
		}
	}

	t.Fatalf("%s: the terraform block does not end", file)

	return ""
}

// recordIDs copies the IDs of the resources (key → address) out of the state.
func recordIDs(ids, addresses map[string]string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		for key, address := range addresses {
			p, err := acctest.Primary(s, address)
			if err != nil {
				return err
			}

			ids[key] = p.ID
		}

		return nil
	}
}

// regionClients are the admin clients of the provider's default region.
type regionClients struct {
	keystone, nova, glance, neutron *gophercloud.ServiceClient
}

func clientsOfDefaultRegion(t *testing.T) regionClients {
	t.Helper()

	c := acctest.Client(t)
	region := c.DefaultRegion()
	base := c.Base()

	var (
		out  regionClients
		errs [4]error
	)

	out.keystone, errs[0] = base.Keystone()
	out.nova, errs[1] = base.Compute(region)
	out.glance, errs[2] = base.Image(region)
	out.neutron, errs[3] = base.Network(region)

	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}

	return out
}

// goneAfterDestroy asks for each object again after the destroy (key → its GET of the ID
// recorded as ids[key]): every one must answer 404. Every key but those named unrecorded (an
// object found by another's ID) must have a recorded ID.
func goneAfterDestroy(ids map[string]string, gets map[string]func() error, unrecorded ...string) error {
	var left []string

	for key, get := range gets {
		if ids[key] == "" && !slices.Contains(unrecorded, key) {
			return fmt.Errorf("no %s ID was recorded", key)
		}

		if err := get(); !gophercloud.ResponseCodeIs(err, 404) {
			left = append(left, fmt.Sprintf("%s %s (%v)", key, ids[key], err))
		}
	}

	if len(left) > 0 {
		slices.Sort(left)
		return fmt.Errorf("left after destroy: %s", strings.Join(left, "; "))
	}

	return nil
}
