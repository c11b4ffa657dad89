package cloud

import (
	"context"
	"sync"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// An identity's trust is acted through only when its trustor is the identity's own user
// (DESIGN.md §4). Finding that user costs a lookup by name in the manager scope (a token and a
// request), and reading the project to check it is an identity costs the same token: in an
// apply that only changes a load balancer, more than a third of its requests. A resource that
// acted as an identity keeps the trustor it found (in its private state: adapter.KeepTrustor and
// RecallTrustor), and gives it to the next run: that run then acts through the live trust from
// that user, which the run's trust listing names, and takes the project's check from the trust's
// own token (identityByToken). A trustor
// recorded wrongly finds no trust (the old user's trusts went with it) and the run looks the
// user up as before; no other user's trust is ever authenticated with.

// trustorMemory is what a run knows of the trustors of identity trusts, by project ID: those
// given by resources (recorded by an earlier run) and those found by this run.
type trustorMemory struct {
	mu     sync.Mutex
	given  map[string]string
	proven map[string]string
}

// RecordedTrustor tells the run that userID was the trustor of the identity trust of projectID
// when a resource last acted as that identity (its private state). It is a hint, never trusted
// alone: it is used only while the run's trust listing holds a live trust from userID on the
// project to the service user.
func (c *Client) RecordedTrustor(projectID, userID string) {
	if projectID == "" || userID == "" {
		return
	}

	c.trustors.mu.Lock()
	defer c.trustors.mu.Unlock()

	if c.trustors.given == nil {
		c.trustors.given = map[string]string{}
	}

	c.trustors.given[projectID] = userID
}

// Trustor is the trustor of the identity trust of projectID that this run acted through ("" when
// it did not act as that identity through a trust): for the resource to record.
func (c *Client) Trustor(projectID string) string {
	c.trustors.mu.Lock()
	defer c.trustors.mu.Unlock()

	return c.trustors.proven[projectID]
}

// trustorProven records that the run acts through a trust of projectID from userID.
func (c *Client) trustorProven(projectID, userID string) {
	c.trustors.mu.Lock()
	defer c.trustors.mu.Unlock()

	if c.trustors.proven == nil {
		c.trustors.proven = map[string]string{}
	}

	c.trustors.proven[projectID] = userID
}

// recordedTrust is the one live trust on projectID from the trustor a resource recorded for it,
// and that trustor; "" when there is no recorded trustor, or the listing holds no such trust or
// several.
func (c *Client) recordedTrust(ctx context.Context, projectID string) (trustID, trustor string) {
	c.trustors.mu.Lock()
	trustor = c.trustors.given[projectID]
	c.trustors.mu.Unlock()

	if trustor == "" {
		return "", ""
	}

	ids, err := c.trustsFrom(ctx, projectID, trustor, false)
	if err != nil || len(ids) != 1 {
		return "", ""
	}

	return ids[0], trustor
}

// trustSession authenticates through trust trustID as the identity scope of projectID, and keeps
// the name and domain of the project the token names (identityByToken).
func (c *Client) trustSession(ctx context.Context, projectID, trustID string) (*Session, error) {
	pc, res, err := c.authenticate(ctx, &gophercloud.AuthScope{TrustID: trustID})
	if err != nil {
		return nil, err
	}

	sess := &Session{client: c, kind: scopeIdentity, projectID: projectID, provider: pc}
	if p, err := res.ExtractProject(); err == nil && p != nil && p.ID == projectID {
		sess.projectName, sess.domainID, sess.domainName = p.Name, p.Domain.ID, p.Domain.Name
	}

	tflog.SubsystemDebug(logContext(ctx), LogSubsystem, "Authenticated a credential scope", map[string]any{
		"scope": scopeIdentity.String(), "project_id": projectID,
	})

	return sess, nil
}
