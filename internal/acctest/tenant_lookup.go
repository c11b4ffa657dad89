package acctest

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
)

// ListedOnce checks that every provider run of log that read all reads data sources listed
// kind once: a GET whose path ends in pathSuffix ("/servers/detail", "/volumes/detail"), filtered
// or not. It is the cost of the look-ups of one tenant kind in one project and region, which share
// the run's listing of the kind (cloud.Listing). Give reads so that only runs that read every
// look-up count: the apply of a configuration that also makes an object of the kind reads only
// the look-ups that wait for it, and reads that object from the API (this process wrote it).
func ListedOnce(t *testing.T, log *RequestLog, reads int, kind, pathSuffix string) resource.TestCheckFunc {
	t.Helper()

	return func(*terraform.State) error {
		measured := 0

		for i, run := range log.Runs() {
			if run.DataSourceReads() != reads {
				continue
			}

			lists, err := run.Count("GET", pathSuffix)
			if err != nil {
				return err
			}

			measured++

			t.Logf("provider run %d: %d look-ups, %d listings of %s", i+1, reads, lists, kind)

			if lists != 1 {
				return fmt.Errorf("provider run %d listed %s %d times, want once", i+1, kind, lists)
			}
		}

		if measured == 0 {
			return fmt.Errorf("no provider run read all %d look-ups of %s: nothing was measured", reads, kind)
		}

		return nil
	}
}
