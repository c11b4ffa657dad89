package cloud

import (
	"crypto/tls"
	"crypto/x509"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
)

// shelvedClient is a client of f that takes its password tokens from shelf and shelves them
// there, as every configuration of the provider process does with processTokens.
func shelvedClient(t *testing.T, f *fakeCloud, shelf *tokenShelf) *Client {
	t.Helper()

	s, err := resolveSettings(f.config())
	if err != nil {
		t.Fatal(err)
	}

	s.tokens = shelf

	c, err := newClient(t.Context(), s, fastRetryTuning(s.maxRetries, nil))
	if err != nil {
		t.Fatal(err)
	}

	return c
}

func TestShelvedTokensServeTheProcessesOtherConfigurations(t *testing.T) {
	t.Parallel()

	f := newFakeCloud(t, map[string][]string{"RegionOne": allServices})
	shelf := newTokenShelf()

	first := shelvedClient(t, f, shelf)
	if _, err := first.Privileged(t.Context(), "p1"); err != nil {
		t.Fatal(err)
	}

	if _, err := first.Manager(t.Context()); err != nil {
		t.Fatal(err)
	}

	// A second configuration (the next command of a process serving many) asks for no token.
	second := shelvedClient(t, f, shelf)

	s, err := second.Privileged(t.Context(), "p1")
	if err != nil {
		t.Fatal(err)
	}

	if _, err := second.Manager(t.Context()); err != nil {
		t.Fatal(err)
	}

	for _, scope := range []string{"project:" + fakeBaseProject, "project:p1", "domain:dom-managed-id"} {
		if got := f.posts(scope); got != 1 {
			t.Errorf("%d token requests for %s, want 1", got, scope)
		}
	}

	if second.ServiceUserID() != fakeUserID || second.DefaultRegion() != "RegionOne" {
		t.Errorf("the second client read %q / %q from the shelved token", second.ServiceUserID(), second.DefaultRegion())
	}

	// The shelved token works, endpoints included.
	compute := mustService(t, s.Compute, "")
	if _, err := compute.Get(t.Context(), compute.ServiceURL("servers"), nil, nil); err != nil {
		t.Fatal(err)
	}

	// A client without a shelf (every unit test's) asks for its own.
	mustClient(t, f, nil)

	if got := f.posts("project:" + fakeBaseProject); got != 2 {
		t.Errorf("%d token requests for the base scope, want 2", got)
	}
}

func TestShelvedTokenRevokedAuthenticatesAgainAndShelvesTheNewOne(t *testing.T) {
	t.Parallel()

	f := newFakeCloud(t, map[string][]string{"RegionOne": allServices})
	shelf := newTokenShelf()

	if _, err := shelvedClient(t, f, shelf).Privileged(t.Context(), "p1"); err != nil {
		t.Fatal(err)
	}

	f.revokeAll()

	s, err := shelvedClient(t, f, shelf).Privileged(t.Context(), "p1")
	if err != nil {
		t.Fatal(err)
	}

	compute := mustService(t, s.Compute, "")
	if _, err := compute.Get(t.Context(), compute.ServiceURL("servers"), nil, nil); err != nil {
		t.Fatalf("after the 401 on the shelved token: %v", err)
	}

	if got := f.posts("project:p1"); got != 2 {
		t.Errorf("%d token requests for p1, want 2 (the first, then one after the 401)", got)
	}

	// The next configuration takes the new token.
	s, err = shelvedClient(t, f, shelf).Privileged(t.Context(), "p1")
	if err != nil {
		t.Fatal(err)
	}

	compute = mustService(t, s.Compute, "")
	if _, err := compute.Get(t.Context(), compute.ServiceURL("servers"), nil, nil); err != nil {
		t.Fatal(err)
	}

	if got := f.posts("project:p1"); got != 2 {
		t.Errorf("%d token requests for p1, want still 2", got)
	}
}

func TestForgetProjectTakesItsTokensOffTheShelf(t *testing.T) {
	t.Parallel()

	f := newFakeCloud(t, map[string][]string{"RegionOne": allServices})
	shelf := newTokenShelf()

	c := shelvedClient(t, f, shelf)
	for _, p := range []string{"p1", "p2"} {
		if _, err := c.Privileged(t.Context(), p); err != nil {
			t.Fatal(err)
		}
	}

	// A token keeps the roles it was issued with: after the project's grants changed, every
	// configuration authenticates there again; other projects keep theirs.
	c.ForgetProject("p1")

	other := shelvedClient(t, f, shelf)
	for _, p := range []string{"p1", "p2"} {
		if _, err := other.Privileged(t.Context(), p); err != nil {
			t.Fatal(err)
		}
	}

	if got := f.posts("project:p1"); got != 2 {
		t.Errorf("%d token requests for p1, want 2", got)
	}

	if got := f.posts("project:p2"); got != 1 {
		t.Errorf("%d token requests for p2, want 1", got)
	}
}

func TestTrustTokensAreNeverShelved(t *testing.T) {
	t.Parallel()

	f := newFakeCloud(t, map[string][]string{"RegionOne": allServices})
	f.setTrusts(fakeTrust("trust-1", "p1"))

	shelf := newTokenShelf()

	for range 2 {
		if _, err := shelvedClient(t, f, shelf).Identity(t.Context(), "p1"); err != nil {
			t.Fatal(err)
		}
	}

	// Authenticating through the trust is each run's proof that the trust is still live.
	if got := f.posts("trust:trust-1"); got != 2 {
		t.Errorf("%d token requests through the trust, want 2", got)
	}
}

func TestShelfKeepsNoTokenNearItsEnd(t *testing.T) {
	t.Parallel()

	f := newFakeCloud(t, map[string][]string{"RegionOne": allServices})
	shelf := newTokenShelf()

	now := time.Now()
	shelf.now = func() time.Time { return now }

	shelvedClient(t, f, shelf)

	// The fake's tokens live an hour: taken until shelfMinLife before their end, not after.
	now = now.Add(time.Hour - shelfMinLife - time.Minute)
	shelvedClient(t, f, shelf)

	now = now.Add(2 * time.Minute)
	shelvedClient(t, f, shelf)

	if got := f.posts("project:" + fakeBaseProject); got != 2 {
		t.Errorf("%d token requests for the base scope, want 2", got)
	}
}

func TestShelfKeyNamesCredentialsAndScope(t *testing.T) {
	t.Parallel()

	s := &settings{authURL: "https://keystone/v3", userName: "svc", userDomainName: "Default", password: "a"}
	project := &gophercloud.AuthScope{ProjectID: "p1"}

	key, ok := shelfKey(s, project)
	if !ok {
		t.Fatal("a project scope is shelvable")
	}

	other := *s
	other.password = "b"

	if k, _ := shelfKey(&other, project); k == key {
		t.Error("another password makes the same key")
	}

	if k, _ := shelfKey(s, &gophercloud.AuthScope{ProjectID: "p2"}); k == key {
		t.Error("another project makes the same key")
	}

	for _, scope := range []*gophercloud.AuthScope{nil, {}, {TrustID: "t1"}} {
		if _, ok := shelfKey(s, scope); ok {
			t.Errorf("scope %+v is shelvable", scope)
		}
	}

	// How the cloud's certificate is trusted is part of the key: a configuration that trusts a
	// CA bundle of its own, or skips verification, never takes another one's token.
	system := *s
	system.tlsConfig = &tls.Config{MinVersion: tls.VersionTLS12}

	if k, _ := shelfKey(&system, project); k != key {
		t.Error("the system's roots make another key than no TLS settings")
	}

	insecure := system
	insecure.tlsConfig = &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: true} //nolint:gosec // a key only

	ownCA := system
	ownCA.tlsConfig = &tls.Config{MinVersion: tls.VersionTLS12, RootCAs: x509.NewCertPool()}

	otherCA := system
	otherCA.tlsConfig = &tls.Config{MinVersion: tls.VersionTLS12, RootCAs: x509.NewCertPool()}

	seen := map[string]bool{key: true}

	for _, c := range []*settings{&insecure, &ownCA, &otherCA} {
		k, _ := shelfKey(c, project)
		if seen[k] {
			t.Errorf("TLS settings %+v share a key", c.tlsConfig)
		}

		seen[k] = true
	}
}
