package acctest

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
)

// Sweep deletes, in every served region, the leftovers of one kind of cloud object whose
// name carries the acceptance tests' prefix. It is what every package's sweeper is made of.
type Sweep[T any] struct {
	// What names the kind in errors ("server", "floating IP").
	What string
	// List lists the candidates of a region (the kit keeps those whose Name has Prefix).
	List func(ctx context.Context, c *cloud.Client, region string) ([]T, error)
	// Name is the name tested against Prefix; ID is what Delete takes.
	Name, ID func(T) string
	// Prefix is the leftovers' name prefix; empty means the cloud name NamePrefix itself.
	Prefix string
	// Delete deletes one object; a 404 answer counts as done.
	Delete func(ctx context.Context, c *cloud.Client, region, id string) error
}

// Run sweeps every served region of c.
func (s Sweep[T]) Run(ctx context.Context, c *cloud.Client) error {
	prefix := s.Prefix
	if prefix == "" {
		prefix = NamePrefix
	}

	var errs []error

	for _, region := range c.Regions() {
		all, err := s.List(ctx, c, region)
		if err != nil {
			errs = append(errs, fmt.Errorf("listing %ss in %s: %w", s.What, region, err))
			continue
		}

		for _, obj := range all {
			if !strings.HasPrefix(s.Name(obj), prefix) {
				continue
			}

			err := s.Delete(ctx, c, region, s.ID(obj))
			if err != nil && !gophercloud.ResponseCodeIs(err, http.StatusNotFound) {
				errs = append(errs, fmt.Errorf("%s %s (%s) in %s: %w", s.What, s.Name(obj), s.ID(obj), region, err))
			}
		}
	}

	return errors.Join(errs...)
}

// SweepFunc is one step of a sweeper.
type SweepFunc func(ctx context.Context, c *cloud.Client) error

// AddSweeper registers the sweeper name (run with `go test ./internal/<pkg>/ -sweep=all`
// and the environment of the local cloud): its steps run in order with one fresh client,
// after the sweepers named in dependencies.
func AddSweeper(name string, dependencies []string, steps ...SweepFunc) {
	resource.AddTestSweepers(name, &resource.Sweeper{
		Name:         name,
		Dependencies: dependencies,
		F: func(string) error {
			ctx := context.Background()

			c, err := NewClient(ctx, "terraform-provider-unikorn-sweeper")
			if err != nil {
				return err
			}

			var errs []error
			for _, step := range steps {
				errs = append(errs, step(ctx, c))
			}

			return errors.Join(errs...)
		},
	})
}

// ImportID is the import ID "REGION/<attribute>" of the resource at address in the state:
// attribute "id" imports by ID, "name" by name.
func ImportID(address, attribute string) resource.ImportStateIdFunc {
	return func(s *terraform.State) (string, error) {
		a, err := Attributes(s, address)
		if err != nil {
			return "", err
		}

		return url.PathEscape(a["region"]) + "/" + a[attribute], nil
	}
}

// ImportedAs is the import ID id, known when the test is written (a name, DOMAIN_ID/name).
func ImportedAs(id string) resource.ImportStateIdFunc {
	return func(*terraform.State) (string, error) { return id, nil }
}

// ImportStep imports the resource at address by the import ID that importID answers (by its
// ID in the state when nil) and verifies the import against the state; ignore lists the
// attributes an import cannot know besides timeouts (write-only input).
func ImportStep(address string, importID resource.ImportStateIdFunc, ignore ...string) resource.TestStep {
	return resource.TestStep{
		ResourceName:            address,
		ImportState:             true,
		ImportStateVerify:       true,
		ImportStateIdFunc:       importID,
		ImportStateVerifyIgnore: append([]string{"timeouts"}, ignore...),
	}
}

// ImportSteps are the two import steps of a regional resource at address: by `REGION/ID`
// and by `REGION/name`, each verified against the state; ignore as for ImportStep.
func ImportSteps(address string, ignore ...string) []resource.TestStep {
	return []resource.TestStep{
		ImportStep(address, ImportID(address, "id"), ignore...),
		ImportStep(address, ImportID(address, "name"), ignore...),
	}
}

// ProviderRegion is a provider block whose default region is region (the other arguments
// come from the environment, as in every test): for the region-rule tests, which apply with
// one default and plan with another.
func ProviderRegion(region string) string {
	return fmt.Sprintf("provider \"unikorn\" {\n  region = %q\n}\n", region)
}

// Wrapped matches an error that holds the phrases in this order, each as the CLI prints it:
// wrapped into lines at any space (for ExpectError).
func Wrapped(phrases ...string) *regexp.Regexp {
	parts := make([]string, len(phrases))

	for i, p := range phrases {
		words := strings.Fields(p)
		for j, w := range words {
			words[j] = regexp.QuoteMeta(w)
		}

		parts[i] = strings.Join(words, `\s+`)
	}

	return regexp.MustCompile(`(?s)` + strings.Join(parts, `.*`))
}
