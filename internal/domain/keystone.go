package domain

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/gophercloud/gophercloud/v2"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// This file is what the region-preparation cores that talk to Keystone as cloud admin share
// (unikorn_domain here, unikorn_role, which builds on domains): the admin Keystone client, the
// clear error of a refused admin call, and the exact-name lookup.

// Admin is the service user's Keystone client in its own (configured) project scope, which
// holds the cloud-admin grant: region preparation is no tenant's business.
type Admin struct {
	// Keystone is the identity v3 client of the scope.
	Keystone *gophercloud.ServiceClient
	// ProjectID is the scope's project, UserID the service user: for the refusal's message.
	ProjectID, UserID string
}

// NewAdmin is the cloud-admin Keystone client of c.
func NewAdmin(c *cloud.Client) (*Admin, error) {
	if c == nil {
		return nil, errors.New("the provider is not configured")
	}

	sc, err := c.Base().Keystone()
	if err != nil {
		return nil, err
	}

	return &Admin{Keystone: sc, ProjectID: c.Base().ProjectID(), UserID: c.ServiceUserID()}, nil
}

// AdminError is a Keystone call refused by policy (403 "not authorized"): preparing a region
// needs cloud admin.
type AdminError struct {
	Call, ProjectID, UserID string
	Err                     error
}

func (e *AdminError) Error() string {
	return fmt.Sprintf("Keystone refused %s: %s. Preparing a region (domains, roles) needs cloud admin: the service "+
		"user %s must hold the admin role on its own project %s (openstack role add --user %s --project %s admin)",
		e.Call, keystoneMessage(e.Err), e.UserID, e.ProjectID, e.UserID, e.ProjectID)
}

func (e *AdminError) Unwrap() error { return e.Err }

// Refused wraps the error of call: a policy refusal (403 "not authorized") becomes an
// *AdminError, any other 403 (Keystone refusing the request itself, such as an implied role
// that may not be implied) says Keystone's reason; anything else is returned as it is.
func (a *Admin) Refused(call string, err error) error {
	if err == nil {
		return nil
	}

	if !gophercloud.ResponseCodeIs(err, http.StatusForbidden) {
		return err
	}

	msg := keystoneMessage(err)
	if strings.Contains(strings.ToLower(msg), "not authorized") {
		return &AdminError{Call: call, ProjectID: a.ProjectID, UserID: a.UserID, Err: err}
	}

	return fmt.Errorf("keystone refused %s: %s: %w", call, msg, err)
}

// Found reads the error of a Keystone GET (call names it: "reading domain D"): false, and no
// error, when the object does not exist (404); a refusal otherwise (Refused).
func (a *Admin) Found(call string, err error) (bool, error) {
	if NotFound(err) {
		return false, nil
	}

	return err == nil, a.Refused(call, err)
}

// keystoneMessage is the message of Keystone's error body, else the error's text.
func keystoneMessage(err error) string {
	var code gophercloud.ErrUnexpectedResponseCode
	if errors.As(err, &code) {
		var body struct {
			Error struct {
				Message string `json:"message"`
			} `json:"error"`
		}

		if json.Unmarshal(code.Body, &body) == nil && body.Error.Message != "" {
			return body.Error.Message
		}
	}

	return err.Error()
}

// NotFound tells whether err is a 404 answer.
func NotFound(err error) bool {
	return err != nil && gophercloud.ResponseCodeIs(err, http.StatusNotFound)
}

// Conflict tells whether err is a 409 answer.
func Conflict(err error) bool {
	return err != nil && gophercloud.ResponseCodeIs(err, http.StatusConflict)
}

// Taken is the refusal of a create that Keystone answered with a conflict although the look
// before it found nothing of the name (another create made it in between): what cloud.Adopt says
// of the object found now, and an unfinished create of the same type too (that other create's,
// not this one's: taking it would make two configurations manage one object).
func Taken(ex cloud.Existing) error {
	if err := cloud.Adopt(ex); err != nil {
		return err
	}

	return &cloud.ExistsError{Existing: ex, Claim: cloud.ClaimUnfinished}
}

// Completion is the extra attribute that the last step of a create of resource type kind
// PATCHes onto its object, whose marks are have: nil when have is not an unfinished create of
// kind (an imported object is never marked, a finished one is marked already).
func Completion(kind string, have naming.Mark) map[string]any {
	if have.Kind != kind || have.Completed {
		return nil
	}

	return map[string]any{naming.MarkCompletedKey: naming.MarkCompletedValue}
}

// Fields are the name, description and enabled flag that Keystone's domains, projects and
// roles share (a role has no enabled flag: Enabled is nil).
type Fields struct {
	Name, Description string
	Enabled           *bool
}

// Update is what an update request sends of Fields: only what differs (an empty Name and nil
// pointers leave a field as it is).
type Update struct {
	Name        string
	Description *string
	Enabled     *bool
}

// Changes is the Update that brings cur to want; changed is false when nothing differs.
func Changes(cur, want Fields) (u Update, changed bool) {
	if cur.Name != want.Name {
		u.Name, changed = want.Name, true
	}

	if cur.Description != want.Description {
		u.Description, changed = &want.Description, true
	}

	if cur.Enabled != nil && want.Enabled != nil && *cur.Enabled != *want.Enabled {
		u.Enabled, changed = want.Enabled, true
	}

	return u, changed
}

// Locator finds an object O of one Keystone kind to import by its import ID: by ID, else by
// exact name, which for a kind whose names are unique per domain (Scoped) is looked up in the
// domain that `DOMAIN_ID/name` gives, or for a bare name in DefaultDomain.
type Locator[O any] struct {
	// Get reads the object by ID; nil when there is none.
	Get func(ctx context.Context, id string) (*O, error)
	// Find finds the object named exactly name in domainID ("" for an unscoped kind, or the
	// global objects); nil when there is none.
	Find func(ctx context.Context, domainID, name string) (*O, error)
	// Scoped says that names are unique per domain, so that an import ID can be DOMAIN_ID/name.
	Scoped bool
	// DefaultDomain is the domain of a bare name, which is then never global; nil: a bare name
	// is a global object's.
	DefaultDomain func(ctx context.Context) (string, error)
	// Located names what was found.
	Located func(*O) cloud.Located
	// Missing is the error when nothing has the import ID.
	Missing func(importID, domainID, name string) error
}

// Locate finds the object that importID names.
func (l Locator[O]) Locate(ctx context.Context, importID string) (cloud.Located, error) {
	if !l.Scoped || !strings.Contains(importID, "/") {
		if o, err := l.Get(ctx, importID); err != nil || o != nil {
			if o == nil {
				return cloud.Located{}, err
			}

			return l.Located(o), nil
		}
	}

	domainID, name := "", importID

	if l.Scoped {
		if d, n, scoped := strings.Cut(importID, "/"); scoped {
			domainID, name = d, n
		} else if l.DefaultDomain != nil {
			var err error
			if domainID, err = l.DefaultDomain(ctx); err != nil {
				return cloud.Located{}, err
			}
		}

		if name == "" || strings.Contains(name, "/") || (domainID == "" && l.DefaultDomain != nil) {
			return cloud.Located{}, fmt.Errorf("import ID %q is not of the form ID, name or DOMAIN_ID/name", importID)
		}
	}

	o, err := l.Find(ctx, domainID, name)

	switch {
	case err != nil:
		return cloud.Located{}, err
	case o == nil:
		return cloud.Located{}, l.Missing(importID, domainID, name)
	}

	return l.Located(o), nil
}
