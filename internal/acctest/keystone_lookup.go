package acctest

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
)

// KeystoneProjectListingOnce checks, in the provider runs of log that read reads data sources
// and created no Keystone project (the refreshes), that Keystone's projects were listed once:
// Keystone is global, and the look-ups of unikorn_identity and unikorn_project by name ask for
// one project by its exact name, those by ID read it by its ID (no listing). noun names the
// look-ups in the log ("identity").
func KeystoneProjectListingOnce(t *testing.T, log *RequestLog, reads int, noun string) resource.TestCheckFunc {
	t.Helper()

	return func(*terraform.State) error {
		measured := 0

		for i, run := range log.Runs() {
			created, err := run.Count("POST", "/projects")
			if err != nil || run.DataSourceReads() != reads || created > 0 {
				continue
			}

			lists, err := run.Count("GET", "/projects")
			if err != nil {
				return err
			}

			t.Logf("provider run %d: %d %s look-ups, %d Keystone project listings", i+1, reads, noun, lists)

			if lists != 1 {
				return fmt.Errorf("provider run %d listed Keystone projects %d times, want once", i+1, lists)
			}

			measured++
		}

		if measured == 0 {
			return fmt.Errorf("no provider run read all %d %s look-ups without creating a project: nothing was measured", reads, noun)
		}

		return nil
	}
}
