package cloud

import (
	"crypto/sha256"
	"crypto/tls"
	"encoding/hex"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/tokens"
)

// tokenShelf keeps the service user's password tokens for the other configurations of the same
// process. Terraform starts a provider process per command, so in a user's run a shelf holds
// nothing another Client could take; a process that serves many commands (the acceptance tests
// serve the provider in-process, and every plan, apply and refresh configures it again) would
// otherwise ask Keystone for the same tokens on every command, and every service would validate
// each new token again.
//
// Only password tokens of the base, manager and privileged scopes are shelved, never a trust's:
// authenticating through a recorded trust is how a run proves that the trust is still live
// (Identity). A shelved token is used while it has more than shelfMinLife left; a 401 on it
// authenticates again (and shelves the new token). Whatever makes a run authenticate again on
// purpose because a token's roles changed (ForgetProject, the service user's role grants) takes
// the project's tokens off the shelf too.
type tokenShelf struct {
	mu      sync.Mutex
	entries map[string]shelvedToken
	now     func() time.Time
}

type shelvedToken struct {
	result    tokens.CreateResult
	projectID string // the project the scope names by ID ("" for others)
	expires   time.Time
}

// shelfMinLife is how long a shelved token must still live to be taken: more than
// tokenRefreshMargin, so that a taken token is not renewed at once.
const shelfMinLife = tokenRefreshMargin + 5*time.Minute

// processTokens is the shelf of the provider process (New); tests make their own.
var processTokens = newTokenShelf()

func newTokenShelf() *tokenShelf {
	return &tokenShelf{entries: map[string]shelvedToken{}, now: time.Now}
}

// shelfKey identifies what a token was asked for: the Keystone and how it is trusted, the user
// and its password, and the scope. ok is false for the scopes that are never shelved (a
// trust's, an unscoped token).
func shelfKey(s *settings, scope *gophercloud.AuthScope) (key string, ok bool) {
	if scope == nil || scope.TrustID != "" || *scope == (gophercloud.AuthScope{}) {
		return "", false
	}

	h := sha256.New()
	for _, part := range []string{
		s.authURL, tlsTrust(s.tlsConfig), s.userID, s.userName, s.userDomainID, s.userDomainName, s.password,
		scope.ProjectID, scope.ProjectName, scope.DomainID, scope.DomainName, strconv.FormatBool(scope.System),
	} {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}

	return hex.EncodeToString(h.Sum(nil)), true
}

// tlsTrust names how a configuration trusts the cloud's certificates, so that a token is only
// taken by a configuration that would have been able to get it: the system's roots (shared),
// or a CA bundle of the configuration's own (named by its pool, so never shared with another
// configuration), each with the insecure switch.
func tlsTrust(c *tls.Config) string {
	if c == nil || c.RootCAs == nil {
		return "system insecure=" + strconv.FormatBool(c != nil && c.InsecureSkipVerify)
	}

	return fmt.Sprintf("own %p insecure=%t", c.RootCAs, c.InsecureSkipVerify)
}

// take returns the token shelved under key while it has enough life left.
func (s *tokenShelf) take(key string) (tokens.CreateResult, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()

	e, ok := s.entries[key]
	if !ok {
		return tokens.CreateResult{}, false
	}

	if e.expires.Sub(s.now()) <= shelfMinLife {
		delete(s.entries, key)

		return tokens.CreateResult{}, false
	}

	return e.result, true
}

// put shelves a token under key (a token without an expiry is not shelved).
func (s *tokenShelf) put(key string, scope *gophercloud.AuthScope, result tokens.CreateResult) {
	token, err := result.ExtractToken()
	if err != nil || token == nil || token.ExpiresAt.IsZero() {
		return
	}

	s.mu.Lock()
	defer s.mu.Unlock()

	s.entries[key] = shelvedToken{result: result, projectID: scope.ProjectID, expires: token.ExpiresAt}
}

// drop takes key's token off the shelf.
func (s *tokenShelf) drop(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()

	delete(s.entries, key)
}

// dropProject takes every token scoped to projectID off the shelf.
func (s *tokenShelf) dropProject(projectID string) {
	s.mu.Lock()
	defer s.mu.Unlock()

	for k, e := range s.entries {
		if e.projectID == projectID {
			delete(s.entries, k)
		}
	}
}

// forgetProjectTokens takes the tokens scoped to projectID off the process's shelf, so that the
// next configuration authenticates there again too.
func (c *Client) forgetProjectTokens(projectID string) {
	if c.settings.tokens != nil {
		c.settings.tokens.dropProject(projectID)
	}
}
