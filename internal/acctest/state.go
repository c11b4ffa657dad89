package acctest

import (
	"context"
	"fmt"
	"net/http"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
)

// Primary is the primary instance of the resource at address in the state, or an error
// naming the address when the state has none.
func Primary(s *terraform.State, address string) (*terraform.InstanceState, error) {
	rs, ok := s.RootModule().Resources[address]
	if !ok || rs.Primary == nil {
		return nil, fmt.Errorf("%s is not in the state", address)
	}

	return rs.Primary, nil
}

// CaptureID records the ID of the resource at address into *id, for a later step that acts
// on it out of band.
func CaptureID(address string, id *string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		p, err := Primary(s, address)
		if err != nil {
			return err
		}

		*id = p.ID

		return nil
	}
}

// EachOf runs check on every resource of the state of type typeName, given its attributes
// (its ID as "id"), and answers the first error.
func EachOf(s *terraform.State, typeName string, check func(a map[string]string) error) error {
	for _, rs := range s.RootModule().Resources {
		if rs.Type != typeName || rs.Primary == nil {
			continue
		}

		if err := check(rs.Primary.Attributes); err != nil {
			return err
		}
	}

	return nil
}

// CheckEach is a check of the state (a CheckDestroy, mostly) that runs check on every
// resource of type typeName, as EachOf.
func CheckEach(typeName string, check func(a map[string]string) error) func(*terraform.State) error {
	return func(s *terraform.State) error { return EachOf(s, typeName, check) }
}

// Getter asks the cloud for the object of one resource of the state (its attributes, ID
// included as "id"): a nil error means it still exists, a 404 that it is gone.
type Getter func(ctx context.Context, a map[string]string) error

// CheckGone is a CheckDestroy that asks the cloud, for every resource of the state whose type
// has a getter, that its object is gone (a 404 answer).
func CheckGone(getters map[string]Getter) func(*terraform.State) error {
	return func(s *terraform.State) error {
		for typeName, get := range getters {
			err := EachOf(s, typeName, func(a map[string]string) error {
				switch err := get(context.Background(), a); {
				case err == nil:
					return fmt.Errorf("%s %s (%s) still exists", typeName, a["name"], a["id"])
				case !gophercloud.ResponseCodeIs(err, http.StatusNotFound):
					return err
				}

				return nil
			})
			if err != nil {
				return err
			}
		}

		return nil
	}
}

// DriftSteps apply config and then change the cloud out of band with drift, which gets the ID
// of the object at address (the next plan is not empty); then apply config again: the plan
// takes action on address, and check asks the cloud that all is restored.
func DriftSteps(config, address string, drift func(id string), action plancheck.ResourceActionType,
	check resource.TestCheckFunc,
) []resource.TestStep {
	return []resource.TestStep{
		{
			Config:             config,
			Check:              resource.TestCheckResourceAttrWith(address, "id", func(id string) error { drift(id); return nil }),
			ExpectNonEmptyPlan: true,
		},
		{
			Config:           config,
			ConfigPlanChecks: Expect(address, action),
			Check:            check,
		},
	}
}

// Expect is a step's plan check that the plan takes action on the resource at address.
func Expect(address string, action plancheck.ResourceActionType) resource.ConfigPlanChecks {
	return resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(address, action)}}
}

// Attributes are the attributes in the state of the resource at address (its ID as "id"), or
// an error naming the address when the state has none.
func Attributes(s *terraform.State, address string) (map[string]string, error) {
	p, err := Primary(s, address)
	if err != nil {
		return nil, err
	}

	return p.Attributes, nil
}

// CheckAttributes is a check of the resource at address, given its attributes in the state
// (its ID as "id").
func CheckAttributes(address string, check func(a map[string]string) error) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		a, err := Attributes(s, address)
		if err != nil {
			return err
		}

		return check(a)
	}
}
