package identity

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
)

// Acting as an identity's user: its lock, the password reset and the retries.
//
// An identity user's password is known to nobody: whatever must act as the user (an apply
// making the user's trust and credential, an open of unikorn_identity_credential) resets it to
// a random one and authenticates with it. A reset revokes the user's tokens, so two of them at
// once break each other: the first one's authentication or its next call is refused (401).
// Within the provider process they are serialized per user by userLocks (the resource and the
// ephemeral resource share the provider's Config); between processes, a 401 that follows a
// reset is met by resetting and authenticating again (ensurer.asUser).

// userLocks holds one lock per identity user. The zero value is ready to use.
type userLocks struct {
	mu    sync.Mutex
	locks map[string]chan struct{}
}

// lock waits, within ctx, until it holds userID's lock, and returns its release (to be called
// once).
func (l *userLocks) lock(ctx context.Context, userID string) (func(), error) {
	l.mu.Lock()

	if l.locks == nil {
		l.locks = map[string]chan struct{}{}
	}

	ch, ok := l.locks[userID]
	if !ok {
		ch = make(chan struct{}, 1)
		l.locks[userID] = ch
	}

	l.mu.Unlock()

	select {
	case ch <- struct{}{}:
		var once sync.Once

		return func() { once.Do(func() { <-ch }) }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// releaseUser releases the user's lock, if this run holds it.
func (e *ensurer) releaseUser() {
	if e.unlock != nil {
		e.unlock()
		e.unlock = nil
	}
}

// userSession authenticates as the identity's user, resetting its password first when this
// run does not know it (the user was adopted, or made by an earlier run).
//
// It holds the user's lock from then on (released by releaseUser): nothing else in the process
// resets the password meanwhile, which would revoke the token this run acts with.
func (e *ensurer) userSession(ctx context.Context, userID, projectID string) (*gophercloud.ServiceClient, error) {
	if e.user != nil {
		return e.user, nil
	}

	if e.unlock == nil {
		unlock, err := e.svc.config.users.lock(ctx, userID)
		if err != nil {
			return nil, fmt.Errorf("waiting for another use of user %s to end: %w", userID, err)
		}

		e.unlock = unlock
	}

	if e.password == "" {
		password, err := randomPassword()
		if err != nil {
			return nil, err
		}

		if err := resetPassword(ctx, e.manager, userID, password); err != nil {
			return nil, err
		}

		e.password = password

		// Keystone revokes the user's tokens issued up to the second of the change (at second
		// precision), which would include a token asked for right now: let that second pass
		// on Keystone's clock.
		if err := cloud.Sleep(ctx, revocationGrace); err != nil {
			return nil, err
		}

		tflog.Debug(ctx, "Reset the identity user's password to act as the user")
	}

	sess, err := e.svc.cloud.UserSession(ctx, userID, e.password, projectID)
	if err != nil {
		return nil, err
	}

	if e.user, err = sess.Keystone(); err != nil {
		return nil, err
	}

	e.userSess = sess

	return e.user, nil
}

// roleLagBudget bounds how long asUser waits for Keystone to see the user's new roles.
const roleLagBudget = time.Minute

// userResets bounds how often asUser resets the user's password again after a 401.
const userResets = 3

// asUser runs create with the user's own session.
//
// A 401 (the password refused, or the token revoked) means that something outside this process
// reset the user's password meanwhile (inside it, the user's lock keeps others out): the password
// is reset again and the user authenticates again, at most userResets times.
func (e *ensurer) asUser(ctx context.Context, userID, projectID, what string,
	create func(context.Context, *gophercloud.ServiceClient) error,
) error {
	for resets := 0; ; resets++ {
		err := e.asUserOnce(ctx, userID, projectID, what, create)
		if err == nil || !gophercloud.ResponseCodeIs(err, http.StatusUnauthorized) {
			return err
		}

		if resets == userResets {
			return fmt.Errorf("%w (the user's password was reset %d more times, and each time something else reset it "+
				"again: is another apply of this identity, or an open of its credential, running elsewhere?)", err, resets)
		}

		e.user, e.userSess, e.password = nil, nil, "" // reset it again

		tflog.Warn(ctx, "The identity user's password or token was refused after its reset: something else reset it "+
			"meanwhile; resetting it again", map[string]any{"object": what, "reset": resets + 1})
	}
}

// asUserOnce is asUser without its retries of a 401. Keystone serves a user's project roles
// from a cache that can briefly miss a grant made a moment before (seen under concurrent load):
// the new token then lacks the role and Keystone refuses to delegate it. Such a refusal is
// retried with a fresh token, with backoff, for up to roleLagBudget.
func (e *ensurer) asUserOnce(ctx context.Context, userID, projectID, what string,
	create func(context.Context, *gophercloud.ServiceClient) error,
) error {
	var last error

	start := time.Now()

	attempt := func(ctx context.Context) (struct{}, string, string, error) {
		usc, err := e.userSession(ctx, userID, projectID)
		if err != nil {
			return struct{}{}, "", "", err
		}

		err = create(ctx, usc)

		switch {
		case err == nil:
			return struct{}{}, "done", "", nil
		case isRoleLag(err) && time.Since(start) < roleLagBudget:
			last = err
			e.user = nil // the next attempt gets a new token

			tflog.Debug(ctx, "Keystone does not see the user's roles yet; retrying with a new token", map[string]any{
				"object": what, "waited_ms": time.Since(start).Milliseconds(),
			})

			return struct{}{}, "role-lag", "", nil
		}

		return struct{}{}, "", "", err
	}

	_, err := cloud.Poll(ctx, cloud.PollSpec{
		Pending:     []string{"role-lag"},
		Target:      []string{"done"},
		MinInterval: 500 * time.Millisecond,
		MaxInterval: 5 * time.Second,
	}, attempt)

	var timeout *cloud.WaitTimeoutError
	if errors.As(err, &timeout) && last != nil {
		return fmt.Errorf("%w (still refused after %s)", last, timeout.Waited.Round(time.Second))
	}

	if err == nil && last != nil {
		tflog.Info(ctx, "Keystone saw the user's roles after a delay", map[string]any{
			"object": what, "waited_ms": time.Since(start).Milliseconds(),
		})
	}

	return err
}

// isRoleLag tells whether Keystone refused to delegate a role because the user's token
// lacks it.
func isRoleLag(err error) bool {
	var code gophercloud.ErrUnexpectedResponseCode
	if !errors.As(err, &code) {
		return false
	}

	body := strings.ToLower(string(code.Body))

	switch code.Actual {
	case 400:
		return strings.Contains(body, "unassigned role")
	case 403, 404:
		return strings.Contains(body, "role")
	}

	return false
}
