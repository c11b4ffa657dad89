package identity

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloudtest"
)

// The tests of issue 26, item 9: acting as an identity's user resets its password, which
// revokes its tokens; two of them at once must not break each other.

// userKeystone is a Keystone of the identity user u-1 that keeps its password: a reset (PATCH)
// changes it and revokes the user's tokens, an authentication with another password is a 401,
// and so is an application credential made with a revoked token.
type userKeystone struct {
	mu       sync.Mutex
	password string
	epoch    int            // bumped by each reset
	tokens   map[string]int // user token → the epoch it was issued in
	resets   int
	made     int

	// meet, when set, holds each reset until another one has arrived (or a while has passed),
	// as two unserialized resets do.
	meet    bool
	pending int
	met     chan struct{}
	// othersReset resets the password on behalf of another process: before the first
	// authentication ("auth"), or before the first credential is made ("credential").
	othersReset string
}

func (k *userKeystone) serve(f *cloudtest.API) {
	k.tokens = map[string]int{}
	k.met = make(chan struct{})

	f.On("PATCH", "/v3/users/u-1", func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			User struct {
				Password string `json:"password"`
			} `json:"user"`
		}

		_ = json.NewDecoder(r.Body).Decode(&body)

		if k.meet {
			k.mu.Lock()
			if k.pending++; k.pending == 2 {
				close(k.met)
			}
			k.mu.Unlock()

			select {
			case <-time.After(500 * time.Millisecond):
			case <-k.met:
			}
		}

		k.mu.Lock()
		k.resets++
		k.password = body.User.Password
		k.epoch++

		if k.othersReset == "auth" && k.resets == 1 {
			k.password = "set by another process"
		}
		k.mu.Unlock()

		cloudtest.WriteJSON(w, 200, map[string]any{"user": map[string]any{"id": "u-1"}})
	})
	f.On("POST", "/v3/users/u-1/application_credentials", func(w http.ResponseWriter, r *http.Request) {
		k.mu.Lock()
		defer k.mu.Unlock()

		if k.othersReset == "credential" && k.made == 0 && k.resets == 1 {
			k.epoch++ // another process reset the password: this token is revoked
		}

		if epoch, ok := k.tokens[r.Header.Get("X-Auth-Token")]; !ok || epoch != k.epoch {
			cloudtest.WriteJSON(w, http.StatusUnauthorized, map[string]any{"error": map[string]any{"code": 401, "message": "revoked"}})
			return
		}

		k.made++
		id := "ac-" + strconv.Itoa(k.made)
		cloudtest.WriteJSON(w, 201, map[string]any{"application_credential": map[string]any{
			"id": id, "name": "unikorn-identity-foo", "secret": "secret-" + id, "project_id": "p-1",
		}})
	})
}

// auth answers an authentication of the user: a token when the password is the current one.
func (k *userKeystone) auth(w http.ResponseWriter, userID, password string) {
	k.mu.Lock()
	defer k.mu.Unlock()

	if userID != "u-1" || password != k.password {
		cloudtest.WriteJSON(w, http.StatusUnauthorized, map[string]any{"error": map[string]any{"code": 401, "message": "The request you have made requires authentication."}})
		return
	}

	token := "user-tok-" + strconv.Itoa(len(k.tokens))
	k.tokens[token] = k.epoch

	w.Header().Set("X-Subject-Token", token)
	cloudtest.WriteJSON(w, http.StatusCreated, map[string]any{"token": map[string]any{
		"methods": []string{"password"}, "expires_at": time.Now().Add(time.Hour).UTC().Format(time.RFC3339),
		"user":    map[string]any{"id": "u-1", "name": "unikorn-identity-foo", "domain": map[string]any{"id": fakeDomainID}},
		"project": map[string]any{"id": "p-1", "name": "unikorn-identity-foo", "domain": map[string]any{"id": fakeDomainID}},
		"catalog": []any{},
	}})
}

// credentialCloud is a fake cloud with identity foo (project p-1, user u-1 holding member there)
// whose user is k's.
func credentialCloud(t *testing.T, k *userKeystone) (*cloudtest.API, *cloud.Client) {
	t.Helper()

	f := cloudtest.New(t)
	c := fakeCloudWith(t, f, fakeOptions{userAuth: k.auth})
	identityProjectInFake(f)
	f.Reply("GET", "/v3/users", 200, map[string]any{"users": []any{identityUser(interrupted)}})
	f.Reply("GET", "/v3/role_assignments", 200, map[string]any{"role_assignments": []any{map[string]any{
		"role":  map[string]any{"id": "r-member", "name": RoleMember},
		"scope": map[string]any{"project": map[string]any{"id": "p-1"}},
		"user":  map[string]any{"id": "u-1", "name": "unikorn-identity-foo", "domain": map[string]any{"id": fakeDomainID}},
	}}})
	k.serve(f)

	return f, c
}

// Two opens of unikorn_identity_credential in parallel (one provider process) both get their
// credential: the user's lock keeps one's reset out of the other's reset-to-credential, so
// neither needs a second reset. Without the lock, the second reset revokes the first one's
// password and its authentication is refused.
func TestIssueCredentialsInParallel(t *testing.T) {
	t.Parallel()

	k := &userKeystone{meet: true}
	_, c := credentialCloud(t, k)
	svc := NewService(c, nil)
	ctx := cloud.WithSleeper(t.Context(), cloudtest.Instant)

	var (
		wg   sync.WaitGroup
		errs = make([]error, 2)
	)

	for i := range errs {
		wg.Add(1)

		go func() {
			defer wg.Done()

			_, errs[i] = svc.IssueCredential(ctx, "p-1", time.Hour, time.Now())
		}()
	}

	wg.Wait()

	for i, err := range errs {
		if err != nil {
			t.Errorf("open %d: %v", i, err)
		}
	}

	if k.resets != 2 || k.made != 2 {
		t.Fatalf("%d password resets and %d credentials, want one reset per open and both credentials", k.resets, k.made)
	}
}

// An apply of the identity and an open of its credential in one process take the same lock.
func TestEnsureAndAnOpenShareTheUsersLock(t *testing.T) {
	t.Parallel()

	k := &userKeystone{meet: true}
	f, c := credentialCloud(t, k)
	adoptableIdentity(f)
	k.serve(f) // over adoptableIdentity's routes

	svc := NewService(c, nil)
	ctx := cloud.WithSleeper(t.Context(), cloudtest.Instant)

	var (
		wg              sync.WaitGroup
		ensure, opening error
	)

	wg.Add(2)

	go func() {
		defer wg.Done()

		_, ensure = svc.Ensure(ctx, Spec{Name: "foo", Roles: DefaultRoles, Quotas: UnlimitedQuotas()}, Prior{})
	}()
	go func() {
		defer wg.Done()

		_, opening = svc.IssueCredential(ctx, "p-1", time.Hour, time.Now())
	}()

	wg.Wait()

	if ensure != nil || opening != nil {
		t.Fatalf("apply: %v; open: %v", ensure, opening)
	}

	if k.resets != 2 {
		t.Fatalf("%d password resets, want one by each", k.resets)
	}
}

// Another process resets the password right after ours (its authentication refused), or once
// we hold a token (the credential refused): a 401 after our reset is met by one more reset.
func TestIssueCredentialResetsAgainAfterA401(t *testing.T) {
	t.Parallel()

	for _, when := range []string{"auth", "credential"} {
		t.Run(when, func(t *testing.T) {
			t.Parallel()

			k := &userKeystone{othersReset: when}
			_, c := credentialCloud(t, k)

			cred, err := NewService(c, nil).IssueCredential(cloud.WithSleeper(t.Context(), cloudtest.Instant), "p-1", time.Hour, time.Now())
			if err != nil {
				t.Fatal(err)
			}

			if cred.ID != "ac-1" || k.resets != 2 {
				t.Fatalf("credential %+v after %d resets, want ac-1 after 2", cred, k.resets)
			}
		})
	}
}

// The retries are bounded: a password that something else keeps resetting is an error that
// says so.
func TestIssueCredentialGivesUpOnAPasswordResetByOthers(t *testing.T) {
	t.Parallel()

	k := &userKeystone{}
	f, c := credentialCloud(t, k)
	f.On("POST", "/v3/users/u-1/application_credentials", func(w http.ResponseWriter, _ *http.Request) {
		cloudtest.WriteJSON(w, http.StatusUnauthorized, map[string]any{"error": map[string]any{"code": 401}})
	})

	_, err := NewService(c, nil).IssueCredential(cloud.WithSleeper(context.Background(), cloudtest.Instant), "p-1", time.Hour, time.Now())
	if err == nil || k.resets != 1+userResets {
		t.Fatalf("IssueCredential: %v after %d resets; want an error after %d", err, k.resets, 1+userResets)
	}
}
