package image

import (
	"context"
	"crypto/elliptic"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
)

// TestForgedOrganizationImageIsLeftOut: a tenant sets unikorn:organization:id of another
// organization on an unsigned community image of its own project, newer than the
// organization's images. It is not taken for the organization's (which would exempt it from
// the signature check and make it the newest match): it is left out with a reason. The
// organization's public images, those of the service project and those of its own projects
// (tagged organization=<id>, listed once) count (issue 26, item 3).
func TestForgedOrganizationImageIsLeftOut(t *testing.T) {
	t.Parallel()

	key, keyPEM := newKey(t, elliptic.P256())

	pub, err := ParseSigningKey(keyPEM)
	if err != nil {
		t.Fatal(err)
	}

	org := `, "unikorn:organization:id": "org-1"`
	newer := `, "created_at": "2026-06-01T12:00:00Z"`

	imageClient, _ := fakeGlance(t, map[string][]string{"all": {
		glanceImage("signed", "public", "active", fmt.Sprintf(`, "unikorn:digest": %q`, sign(t, key, "signed"))),
		glanceImage("org-public", "public", "active", org+`, "owner": "admin"`),
		glanceImage("org-service", "private", "active", org+`, "owner": "svc"`),
		glanceImage("org-identity", "private", "active", org+`, "owner": "p-org1"`),
		glanceImage("forged", "community", "active", org+`, "owner": "p-tenant"`+newer),
		glanceImage("forged-shared", "shared", "active", org+`, "owner": "p-tenant"`+newer),
		glanceImage("other-org", "private", "active", `, "unikorn:organization:id": "org-2", "owner": "svc"`),
	}}, 0)

	var asked atomic.Int32

	scope := Organization{ID: "org-1", ServiceProjectID: "svc", Projects: func(_ context.Context, id string) ([]string, error) {
		asked.Add(1)

		if id != "org-1" {
			return nil, fmt.Errorf("asked for %s", id)
		}

		return []string{"p-org1"}, nil
	}}

	cache := NewCache(pub)

	listing, err := cache.Images(t.Context(), "RegionOne", scope, imageClient)
	if err != nil {
		t.Fatal(err)
	}

	ids := idsOf(listing.Images)
	slices.Sort(ids)

	if want := []string{"org-identity", "org-public", "org-service", "signed"}; !slices.Equal(ids, want) {
		t.Errorf("accepted %v, want %v", ids, want)
	}

	if newest := MostRecent(listing.Images); strings.HasPrefix(newest.ID, "forged") {
		t.Errorf("the newest match is the forged %s", newest.ID)
	}

	var rejected []string

	for _, r := range listing.Rejected {
		rejected = append(rejected, r.ID)

		if !strings.HasPrefix(r.Reason, "organization: ") || !strings.Contains(r.Reason, "p-tenant") {
			t.Errorf("%s left out because %q", r.ID, r.Reason)
		}
	}

	if !slices.Equal(rejected, []string{"forged", "forged-shared"}) {
		t.Errorf("rejected %v, want the two forged images", rejected)
	}

	// Another region of the same organization: its projects are not listed again.
	if _, err := cache.Images(t.Context(), "RegionTwo", scope, imageClient); err != nil || asked.Load() != 1 {
		t.Errorf("the organization's projects were listed %d times (%v), want once", asked.Load(), err)
	}

	// The projects cannot be listed: only what a tenant cannot have planted counts.
	scope.Projects = func(context.Context, string) ([]string, error) { return nil, errors.New("403 Forbidden") }

	listing, err = NewCache(pub).Images(t.Context(), "RegionOne", scope, imageClient)
	if ids := idsOf(listing.Images); err != nil || slices.Contains(ids, "org-identity") || slices.ContainsFunc(ids, func(id string) bool {
		return strings.HasPrefix(id, "forged")
	}) {
		t.Errorf("without the organization's projects: accepted %v (%v)", ids, err)
	}
}
