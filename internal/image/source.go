package image

import (
	"net/url"
	"regexp"
	"strings"
)

// A source URL (unikorn_image.source_url) is often pre-signed: its query string (and any user
// info) is a credential. Nothing logged or put in an error carries more of it than its scheme,
// host and path (SafeURL), and a text from Glance that may quote it is scrubbed (Scrub).

// redacted replaces a secret part of a source URL in a text.
const redacted = "<redacted>"

// SafeURL is what of the source raw may be logged and shown: its scheme, host and path, without
// user info, query string or fragment ("<redacted>" when it cannot be read as a URL).
func SafeURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return redacted
	}

	return (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}).String()
}

// Scrub is text without the secret parts of the source raw: the URL itself, as written or as
// JSON escapes it (as SafeURL), its query string and each of its values, its user info, its
// fragment; and whatever follows its host and path up to the next space or quote when it begins
// a query string.
func Scrub(text, raw string) string {
	if raw == "" || text == "" {
		return text
	}

	u, err := url.Parse(raw)
	if err != nil {
		return strings.ReplaceAll(text, raw, redacted)
	}

	safe := SafeURL(raw)

	for _, form := range []string{raw, jsonEscaped.Replace(raw), slashEscaped.Replace(jsonEscaped.Replace(raw))} {
		text = strings.ReplaceAll(text, form, safe)
	}

	secrets := []string{u.RawQuery, u.Fragment, u.User.String()}

	if p, ok := u.User.Password(); ok {
		secrets = append(secrets, p, url.QueryEscape(p))
	}

	for _, values := range u.Query() {
		for _, v := range values {
			secrets = append(secrets, v, url.QueryEscape(v))
		}
	}

	for _, s := range secrets {
		// Too short a value (a flag such as "1") is no secret, and would scrub ordinary words.
		if len(s) >= 4 {
			text = strings.ReplaceAll(text, s, redacted)
		}
	}

	// What is left of a query string or user info that the text spelt in its own way.
	hostPath := regexp.QuoteMeta(u.Host + u.EscapedPath())
	text = regexp.MustCompile(`[^\s"'/@]*@(`+regexp.QuoteMeta(u.Host)+`)`).ReplaceAllString(text, "$1")

	return regexp.MustCompile(`(`+hostPath+`)(\?|\\u003f|%3[Ff])[^\s"'<>]*`).ReplaceAllString(text, "$1")
}

// jsonEscaped and slashEscaped spell a URL as encoders of JSON may (Go's escapes &, < and >;
// some escape / too).
var (
	jsonEscaped  = strings.NewReplacer("&", `\u0026`, "<", `\u003c`, ">", `\u003e`)
	slashEscaped = strings.NewReplacer("/", `\/`)
)

// scrubbed is err with the secret parts of the source url scrubbed from its text; it unwraps to
// err, so that its status code is still read.
type scrubbed struct {
	err error
	url string
}

func (s scrubbed) Error() string { return Scrub(s.err.Error(), s.url) }

func (s scrubbed) Unwrap() error { return s.err }
