package acctest

import (
	"context"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/trusts"
)

// DeleteTrustsOutOfBand deletes, as the service user's admin may, every Keystone trust from the
// identity user userID to the service user, as a broken or revoked trust would leave the
// identity, and makes the shared client forget the project's sessions (a token keeps the
// trust it was issued with). It fails the test when there was no trust to delete.
func DeleteTrustsOutOfBand(t *testing.T, userID string) {
	t.Helper()

	sc := AdminKeystone(t)

	all := UserTrusts(t, userID)
	if len(all) == 0 {
		t.Fatalf("identity user %s has no trust to the service user to delete", userID)
	}

	for _, tr := range all {
		if err := trusts.Delete(context.Background(), sc, tr.ID).ExtractErr(); err != nil {
			t.Fatalf("deleting trust %s of user %s: %v", tr.ID, userID, err)
		}

		Client(t).ForgetProject(tr.ProjectID)
	}

	if left := UserTrusts(t, userID); len(left) != 0 {
		t.Fatalf("identity user %s still has %d trusts to the service user", userID, len(left))
	}
}
