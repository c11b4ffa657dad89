package cloud

import (
	"context"
	"errors"
	"fmt"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack"
	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// UserSession authenticates the user userID with password, scoped to projectID, through the
// Client's transport (so its requests are logged, retried and counted like every other).
//
// It exists for the few things Keystone lets only a user do for itself: creating its own
// application credentials and the trusts it is the trustor of. The session is not cached and
// keeps no password: once its token expires it cannot re-authenticate, so use it for the
// calls at hand and drop it. Errors never hold the password.
func (c *Client) UserSession(ctx context.Context, userID, password, projectID string) (*Session, error) {
	if userID == "" || password == "" || projectID == "" {
		return nil, errors.New("user session: user ID, password and project ID are required")
	}

	pc, err := c.newProviderClient()
	if err != nil {
		return nil, err
	}

	opts := gophercloud.AuthOptions{
		IdentityEndpoint: c.settings.authURL,
		UserID:           userID,
		Password:         password,
		AllowReauth:      false, // gophercloud would keep the password for it
		Scope:            &gophercloud.AuthScope{ProjectID: projectID},
	}

	if err := openstack.AuthenticateV3(ctx, pc, &opts, gophercloud.EndpointOpts{}); err != nil {
		return nil, &AuthError{
			Method:  "password",
			AuthURL: c.settings.authURL,
			User:    userID,
			Scope:   fmt.Sprintf("project %q", projectID),
			Err:     scrubError(err, password),
		}
	}

	tflog.SubsystemDebug(logContext(ctx), LogSubsystem, "Authenticated a user session", map[string]any{
		"user_id":    userID,
		"project_id": projectID,
	})

	return &Session{client: c, kind: scopeUser, projectID: projectID, provider: pc}, nil
}

// AuthURL is the Keystone endpoint the provider authenticates against, for clients the
// provider hands out (such as an identity's clouds.yaml).
func (c *Client) AuthURL() string {
	return c.settings.authURL
}

// EndpointInterface is the catalog interface the provider uses: public, internal or admin.
func (c *Client) EndpointInterface() string {
	return string(c.settings.availability)
}
