package cloud

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/gophercloud/gophercloud/v2"
)

// AuthError is a failed Keystone authentication. Its message says which method failed against
// which URL, for which user and scope, and why. It never holds the password: the cause is
// scrubbed before the error is built.
type AuthError struct {
	Method  string // "password"
	AuthURL string
	User    string // name@domain, or the user ID
	Scope   string // the scope asked for, e.g. `project "1234"`; "" when unscoped
	Err     error  // the scrubbed cause
}

func (e *AuthError) Error() string {
	scope := ""
	if e.Scope != "" {
		scope = " scoped to " + e.Scope
	}

	return fmt.Sprintf("%s authentication against %s for user %s%s failed: %s",
		e.Method, e.AuthURL, e.User, scope, describeAuthCause(e.Err, e.Scope != ""))
}

func (e *AuthError) Unwrap() error {
	return e.Err
}

// describeAuthCause turns a Keystone answer into a reason a human can act on.
func describeAuthCause(err error, scoped bool) string {
	var code gophercloud.ErrUnexpectedResponseCode
	if !errors.As(err, &code) {
		if err == nil {
			return "unknown error"
		}

		return err.Error()
	}

	detail := keystoneMessage(code.Body)
	if detail != "" {
		detail = ": " + detail
	}

	switch code.Actual {
	case http.StatusUnauthorized:
		if scoped {
			return "invalid credentials, or the user has no role on that scope (HTTP 401)" + detail
		}

		return "invalid credentials (HTTP 401)" + detail
	case http.StatusForbidden:
		return "forbidden (HTTP 403)" + detail
	case http.StatusNotFound:
		return "not found (HTTP 404): check auth_url (OS_AUTH_URL) and the scope" + detail
	}

	return fmt.Sprintf("HTTP %d%s", code.Actual, detail)
}

// keystoneMessage extracts {"error": {"message": ...}} from a Keystone error body.
func keystoneMessage(body []byte) string {
	var doc struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}

	if json.Unmarshal(body, &doc) != nil {
		return ""
	}

	return strings.TrimSpace(doc.Error.Message)
}

// scrubError returns err with every occurrence of secret removed from what it can print. An
// HTTP error keeps its type (so gophercloud.ResponseCodeIs still works) with a scrubbed body
// and without response headers; any other error whose text contains the secret is replaced
// by a plain error with the scrubbed text.
func scrubError(err error, secret string) error {
	if err == nil || secret == "" {
		return err
	}

	var code gophercloud.ErrUnexpectedResponseCode
	if errors.As(err, &code) {
		code.Body = []byte(strings.ReplaceAll(string(code.Body), secret, "<redacted>"))
		code.URL = strings.ReplaceAll(code.URL, secret, "<redacted>")
		code.ResponseHeader = nil
		code.Info = strings.ReplaceAll(code.Info, secret, "<redacted>")

		return code
	}

	if strings.Contains(err.Error(), secret) {
		return errors.New(strings.ReplaceAll(err.Error(), secret, "<redacted>"))
	}

	return err
}

// RegionError says why a region cannot be served: it is not in the Keystone catalog (Known
// lists the catalog's regions), or it lacks services the provider needs (MissingServices).
type RegionError struct {
	Region          string
	Known           []string // catalog regions, set when Region is not among them
	MissingServices []string // required service types without an endpoint in Region
	Interface       string   // the endpoint interface looked for (public, internal, admin)
}

func (e *RegionError) Error() string {
	if len(e.MissingServices) > 0 {
		return fmt.Sprintf("region %q has no %s endpoint in the Keystone catalog for: %s",
			e.Region, cmp.Or(e.Interface, "public"), strings.Join(e.MissingServices, ", "))
	}

	known := "none: is the token scoped to a project (project_name / project_id)?"
	if len(e.Known) > 0 {
		known = strings.Join(e.Known, ", ")
	}

	return fmt.Sprintf("region %q is not in the Keystone catalog (regions in the catalog: %s)", e.Region, known)
}

// Gone is the outcome of a delete: nil when it succeeded or the object was gone already (404),
// else err wrapped as what (a format with args) says: "deleting network n-1: ...".
func Gone(err error, what string, args ...any) error {
	if err == nil || gophercloud.ResponseCodeIs(err, http.StatusNotFound) {
		return nil
	}

	return fmt.Errorf("%s: %w", fmt.Sprintf(what, args...), err)
}
