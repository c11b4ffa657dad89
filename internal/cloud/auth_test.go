package cloud

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloudtest"
)

func TestAuthFailureNeverShowsThePassword(t *testing.T) {
	t.Parallel()

	f := newFakeCloud(t, map[string][]string{"RegionOne": allServices})

	tests := []struct {
		name     string
		password string
		mutate   func(*Config)
		wantUser string
	}{
		{"wrong password by user name", "wrong-" + fakePassword, nil, "svc@Default"},
		{"wrong password by user ID", fakePassword + "-wrong", func(c *Config) {
			c.UserName, c.UserDomainName, c.UserID, c.ProjectDomainID = "", "", "someone", "default"
		}, "someone"},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			_, err := newTestClient(t, f, func(c *Config) {
				c.Password = tt.password
				if tt.mutate != nil {
					tt.mutate(c)
				}
			})

			var authErr *AuthError
			if !errors.As(err, &authErr) {
				t.Fatalf("want *AuthError, got %T %v", err, err)
			}

			if authErr.Method != "password" || authErr.AuthURL != f.authURL() || authErr.User != tt.wantUser {
				t.Errorf("auth error fields: %+v", authErr)
			}

			msg := err.Error()
			for _, want := range []string{"password authentication against " + f.authURL(), "for user " + tt.wantUser, "invalid credentials", "401"} {
				if !strings.Contains(msg, want) {
					t.Errorf("message %q lacks %q", msg, want)
				}
			}

			// The fake echoes the request body into its 401: nothing printable may keep it.
			printed := []string{msg, fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", authErr.Err), authErr.Err.Error()}
			for e := errors.Unwrap(err); e != nil; e = errors.Unwrap(e) {
				printed = append(printed, e.Error())
			}

			var code gophercloud.ErrUnexpectedResponseCode
			if errors.As(err, &code) {
				printed = append(printed, string(code.Body))
			}

			for _, text := range printed {
				if strings.Contains(text, tt.password) {
					t.Fatalf("the password leaked: %s", text)
				}
			}
		})
	}
}

func TestAuthFailureUnreachable(t *testing.T) {
	t.Parallel()

	s, err := resolveSettings(Config{AuthURL: "http://127.0.0.1:1/v3", UserID: "u", Password: fakePassword, Region: "R"})
	if err != nil {
		t.Fatal(err)
	}

	_, err = newClient(t.Context(), s, fastRetryTuning(0, nil))

	var authErr *AuthError
	if !errors.As(err, &authErr) || !strings.Contains(err.Error(), "127.0.0.1:1") || strings.Contains(err.Error(), fakePassword) {
		t.Fatalf("want an AuthError naming the URL, got %v", err)
	}
}

func TestScopedAuthFailure(t *testing.T) {
	t.Parallel()

	f := newFakeCloud(t, map[string][]string{"RegionOne": allServices})
	f.denied = map[string]bool{"project:no-role": true}

	c := mustClient(t, f, nil)

	_, err := c.Privileged(t.Context(), "no-role")

	var authErr *AuthError
	if !errors.As(err, &authErr) {
		t.Fatalf("want *AuthError, got %v", err)
	}

	want := `password authentication against ` + f.authURL() + ` for user svc@Default scoped to project "no-role" failed: ` +
		`invalid credentials, or the user has no role on that scope (HTTP 401): The request you have made requires authentication.`
	if err.Error() != want {
		t.Errorf("message\n got  %s\n want %s", err, want)
	}

	// A failure is not cached: once the role is granted, the scope works.
	f.mu.Lock()
	f.denied = nil
	f.mu.Unlock()

	if _, err := c.Privileged(t.Context(), "no-role"); err != nil {
		t.Errorf("after the grant: %v", err)
	}
}

func TestReauthenticatesOnceOn401(t *testing.T) {
	t.Parallel()

	f := newFakeCloud(t, map[string][]string{"RegionOne": allServices})
	compute := mustCompute(t, f, "p1")

	// The token expires behind our back: one re-authentication, then the request succeeds.
	f.revokeAll()

	if _, err := compute.Get(t.Context(), compute.ServiceURL("servers"), nil, nil); err != nil {
		t.Fatalf("after reauth: %v", err)
	}

	if got := f.posts("project:p1"); got != 2 {
		t.Errorf("%d token requests for p1, want 2 (initial + one reauth)", got)
	}

	// A service that keeps answering 401 gets exactly one more re-authentication, then an error.
	f.setService(func(w http.ResponseWriter, _ *http.Request) {
		cloudtest.WriteJSON(w, http.StatusUnauthorized, map[string]any{"error": map[string]any{"code": 401}})
	})

	if _, err := compute.Get(t.Context(), compute.ServiceURL("servers"), nil, nil); err == nil {
		t.Fatal("want an error")
	}

	if got := f.posts("project:p1"); got != 3 {
		t.Errorf("%d token requests for p1, want 3", got)
	}
}

func TestConcurrentScopesAuthenticateOnce(t *testing.T) {
	t.Parallel()

	f := newFakeCloud(t, map[string][]string{"RegionOne": allServices})
	f.authDelay = 20 * time.Millisecond

	c := mustClient(t, f, nil)

	const n = 20

	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		sessions = map[*Session]bool{}
		errs     []error
	)

	for i := range n {
		wg.Add(1)

		go func() {
			defer wg.Done()

			project := "p1"
			if i%2 == 1 {
				project = "p2"
			}

			s, err := c.Privileged(t.Context(), project)

			mu.Lock()
			defer mu.Unlock()

			if err != nil {
				errs = append(errs, err)

				return
			}

			sessions[s] = true
		}()
	}

	wg.Wait()

	if len(errs) > 0 {
		t.Fatal(errs)
	}

	if len(sessions) != 2 {
		t.Errorf("want 2 distinct sessions, got %d", len(sessions))
	}

	for _, scope := range []string{"project:p1", "project:p2"} {
		if got := f.posts(scope); got != 1 {
			t.Errorf("%d token requests for %s, want 1", got, scope)
		}
	}

	// The configured project is reused, not re-authenticated.
	s, err := c.Privileged(t.Context(), fakeBaseProject)
	if err != nil || s.ProjectID() != fakeBaseProject || f.posts("project:"+fakeBaseProject) != 1 {
		t.Errorf("base project session: %v %v, %d token requests", s, err, f.posts("project:"+fakeBaseProject))
	}

	if _, err := c.Privileged(t.Context(), ""); err == nil {
		t.Error("empty project ID accepted")
	}
}
