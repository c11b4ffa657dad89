package cloud

import (
	"bytes"
	"cmp"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/config/clouds"
)

// Config is the merged provider configuration; an empty string means "not set".
//
// The provider package merges each argument with its environment variable; New then fills
// what is still empty from the clouds.yaml entry named by Cloud, so an explicit value always
// wins over the file.
type Config struct {
	Cloud, CloudsYAML string // clouds.yaml entry name (OS_CLOUD) and path (OS_CLIENT_CONFIG_FILE)

	AuthURL string

	UserName, UserID, Password   string
	UserDomainName, UserDomainID string

	ProjectName, ProjectID             string
	ProjectDomainName, ProjectDomainID string

	CACertFile string
	Insecure   *bool

	EndpointType string   // public (default) | internal | admin
	Region       string   // default region
	Regions      []string // all served regions; empty = [Region]

	Domain string // the managed Keystone domain, name or ID (may be empty: Manager() then errors)

	// MaxRetries is how often an idempotent request is retried; nil = the default 5, 0 = never.
	MaxRetries *int
	UserAgent  string // e.g. "terraform-provider-unikorn/1.2.3"
}

// String describes the configuration without its password.
func (c Config) String() string {
	insecure := "unset"
	if c.Insecure != nil {
		insecure = fmt.Sprint(*c.Insecure)
	}

	retries := "default"
	if c.MaxRetries != nil {
		retries = fmt.Sprint(*c.MaxRetries)
	}

	return fmt.Sprintf("cloud.Config{Cloud:%q CloudsYAML:%q AuthURL:%q UserName:%q UserID:%q Password:%s "+
		"UserDomainName:%q UserDomainID:%q ProjectName:%q ProjectID:%q ProjectDomainName:%q ProjectDomainID:%q "+
		"CACertFile:%q Insecure:%s EndpointType:%q Region:%q Regions:%q Domain:%q MaxRetries:%s UserAgent:%q}",
		c.Cloud, c.CloudsYAML, c.AuthURL, c.UserName, c.UserID, redactedMarker(c.Password),
		c.UserDomainName, c.UserDomainID, c.ProjectName, c.ProjectID, c.ProjectDomainName, c.ProjectDomainID,
		c.CACertFile, insecure, c.EndpointType, c.Region, c.Regions, c.Domain, retries, c.UserAgent)
}

// GoString keeps %#v from printing the password.
func (c Config) GoString() string {
	return c.String()
}

// redactedMarker shows whether a secret is set without showing it.
func redactedMarker(secret string) string {
	if secret == "" {
		return `""`
	}

	return "<redacted>"
}

const (
	defaultMaxRetries = 5
)

// settings is the resolved configuration New works with. It holds the password: it never
// leaves the Client and its String method hides it.
type settings struct {
	cloud string // clouds.yaml entry the values came from, for messages

	authURL  string
	userName string
	userID   string
	password string

	userDomainName, userDomainID string

	projectName, projectID             string
	projectDomainName, projectDomainID string

	// domainScopeName and domainScopeID come from a clouds.yaml entry without any project
	// (domain-scoped base token).
	domainScopeName, domainScopeID string

	// appCredential is set when the clouds.yaml entry authenticates with an application
	// credential, to explain why a password is still required.
	appCredential bool

	availability gophercloud.Availability
	region       string
	regions      []string
	domain       string
	maxRetries   int
	userAgent    string
	tlsConfig    *tls.Config

	// tokens shelves the password tokens for the process's other configurations (nil: none).
	tokens *tokenShelf
}

// String hides the password.
func (s *settings) String() string {
	return fmt.Sprintf("settings{cloud:%q auth_url:%q user:%q password:%s region:%q regions:%q}",
		s.cloud, s.authURL, s.userDisplay(), redactedMarker(s.password), s.region, s.regions)
}

// GoString hides the password.
func (s *settings) GoString() string {
	return s.String()
}

// resolveSettings merges cfg over the clouds.yaml entry cfg.Cloud names (if any) and checks
// that enough is set to authenticate.
func resolveSettings(cfg Config) (*settings, error) {
	s := &settings{cloud: cfg.Cloud}

	if cfg.Cloud != "" {
		if err := s.readCloudsYAML(cfg); err != nil {
			return nil, err
		}
	}

	s.overlay(cfg)

	if s.tlsConfig == nil {
		tlsConfig, err := buildTLSConfig(cfg.CACertFile, cfg.Insecure)
		if err != nil {
			return nil, err
		}

		s.tlsConfig = tlsConfig
	}

	if err := s.validate(); err != nil {
		return nil, err
	}

	return s, nil
}

// readCloudsYAML fills s from the clouds.yaml entry cfg.Cloud with gophercloud's parser. The
// explicit values that have a parser option are handed to it (TLS, region, interface) so
// that the file's cacert / verify / region_name / interface are overridden at the source.
func (s *settings) readCloudsYAML(cfg Config) error {
	opts := []clouds.ParseOption{clouds.WithCloudName(cfg.Cloud)}
	if cfg.CloudsYAML != "" {
		opts = append(opts, clouds.WithLocations(cfg.CloudsYAML))
	}

	if cfg.CACertFile != "" {
		opts = append(opts, clouds.WithCACertPath(cfg.CACertFile))
	}

	if cfg.Insecure != nil {
		opts = append(opts, clouds.WithInsecure(*cfg.Insecure))
	}

	if cfg.Region != "" {
		opts = append(opts, clouds.WithRegion(cfg.Region))
	}

	if cfg.EndpointType != "" {
		opts = append(opts, clouds.WithEndpointType(cfg.EndpointType))
	}

	ao, eo, tlsConfig, err := clouds.Parse(opts...)
	if err != nil {
		where := "clouds.yaml"
		if cfg.CloudsYAML != "" {
			where = cfg.CloudsYAML
		}

		return fmt.Errorf("reading cloud %q from %s (cloud / OS_CLOUD, clouds_yaml / OS_CLIENT_CONFIG_FILE): %w",
			cfg.Cloud, where, err)
	}

	s.authURL = ao.IdentityEndpoint
	s.userName = ao.Username
	s.userID = ao.UserID
	s.password = ao.Password
	s.userDomainID = ao.DomainID
	s.userDomainName = ao.DomainName
	s.appCredential = ao.ApplicationCredentialID != "" || ao.ApplicationCredentialName != ""

	if sc := ao.Scope; sc != nil {
		switch {
		case sc.ProjectID != "":
			s.projectID = sc.ProjectID
		case sc.ProjectName != "":
			s.projectName = sc.ProjectName
			s.projectDomainID = sc.DomainID
			s.projectDomainName = sc.DomainName
		case sc.DomainID != "":
			s.domainScopeID = sc.DomainID
		case sc.DomainName != "":
			s.domainScopeName = sc.DomainName
		}
	}

	s.region = eo.Region
	s.availability = eo.Availability
	s.tlsConfig = tlsConfig

	return nil
}

// overlay applies every explicitly set field of cfg over what the file gave. Related fields
// move together: an explicit user ID drops the file's user name, an explicit project ID the
// file's project name, an explicit domain ID the file's domain name.
func (s *settings) overlay(cfg Config) {
	setIf(&s.authURL, cfg.AuthURL)
	setIf(&s.password, cfg.Password)

	if cfg.UserID != "" || cfg.UserName != "" {
		s.userID, s.userName = cfg.UserID, cfg.UserName
	}

	if cfg.UserDomainID != "" || cfg.UserDomainName != "" {
		s.userDomainID, s.userDomainName = cfg.UserDomainID, cfg.UserDomainName
	}

	if cfg.ProjectID != "" || cfg.ProjectName != "" {
		s.projectID, s.projectName = cfg.ProjectID, cfg.ProjectName
	}

	if cfg.ProjectDomainID != "" || cfg.ProjectDomainName != "" {
		s.projectDomainID, s.projectDomainName = cfg.ProjectDomainID, cfg.ProjectDomainName
	}

	setIf(&s.region, cfg.Region)

	if cfg.EndpointType != "" || s.availability == "" {
		// validate() reports an unknown value.
		s.availability = gophercloud.Availability(cfg.EndpointType)
	}

	s.regions = uniqueStrings(cfg.Regions)
	s.domain = cfg.Domain
	s.userAgent = cfg.UserAgent

	s.maxRetries = defaultMaxRetries
	if cfg.MaxRetries != nil {
		s.maxRetries = max(*cfg.MaxRetries, 0)
	}
}

// ConfigError lists what is missing or wrong in the provider configuration. Each entry
// names the provider argument and its environment variable.
type ConfigError struct {
	Cloud    string   // the clouds.yaml entry that was read, if any
	Problems []string // e.g. `password (OS_PASSWORD) is not set`
}

func (e *ConfigError) Error() string {
	where := ""
	if e.Cloud != "" {
		where = fmt.Sprintf(" (neither set explicitly nor in clouds.yaml entry %q)", e.Cloud)
	}

	return "incomplete OpenStack configuration" + where + ": " + strings.Join(e.Problems, "; ")
}

// validate checks that the service user can authenticate with a password.
func (s *settings) validate() error {
	var problems []string

	if s.authURL == "" {
		problems = append(problems, "auth_url (OS_AUTH_URL) is not set")
	} else if u, err := url.Parse(s.authURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		problems = append(problems, fmt.Sprintf("auth_url (OS_AUTH_URL) %q is not an http(s) URL", s.authURL))
	}

	switch {
	case s.userID == "" && s.userName == "":
		problems = append(problems, "no user: set user_name (OS_USERNAME) with user_domain_name (OS_USER_DOMAIN_NAME) "+
			"or user_domain_id (OS_USER_DOMAIN_ID), or set user_id (OS_USER_ID)")
	case s.userID == "" && s.userDomainID == "" && s.userDomainName == "":
		problems = append(problems, fmt.Sprintf("user_name %q needs its domain: set user_domain_name (OS_USER_DOMAIN_NAME) "+
			"or user_domain_id (OS_USER_DOMAIN_ID)", s.userName))
	}

	if s.password == "" {
		p := "password (OS_PASSWORD) is not set: the service user authenticates with a password"
		if s.appCredential {
			p += " (the clouds.yaml entry uses an application credential, which cannot consume Keystone trusts)"
		}

		problems = append(problems, p)
	}

	if s.projectName != "" && s.projectID == "" && s.projectDomainID == "" && s.projectDomainName == "" &&
		s.userDomainID == "" && s.userDomainName == "" {
		problems = append(problems, fmt.Sprintf("project_name %q needs its domain: set project_domain_name "+
			"(OS_PROJECT_DOMAIN_NAME) or project_domain_id (OS_PROJECT_DOMAIN_ID)", s.projectName))
	}

	availability, ok := parseAvailability(string(s.availability))
	if !ok {
		problems = append(problems, fmt.Sprintf("endpoint_type (OS_INTERFACE) %q must be public, internal or admin", s.availability))
	}

	s.availability = availability

	if len(problems) > 0 {
		return &ConfigError{Cloud: s.cloud, Problems: problems}
	}

	return nil
}

// parseAvailability maps an OS_INTERFACE value onto a catalog interface.
func parseAvailability(v string) (gophercloud.Availability, bool) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "", "public", "publicurl":
		return gophercloud.AvailabilityPublic, true
	case "internal", "internalurl":
		return gophercloud.AvailabilityInternal, true
	case "admin", "adminurl":
		return gophercloud.AvailabilityAdmin, true
	}

	return gophercloud.AvailabilityPublic, false
}

// userDisplay names the service user in messages: its ID, or name@domain.
func (s *settings) userDisplay() string {
	if s.userID != "" {
		return s.userID
	}

	return s.userName + "@" + cmp.Or(s.userDomainName, s.userDomainID)
}

// authOptions are the password credentials of the service user with the given scope.
// AllowReauth lets gophercloud re-authenticate once when a request gets a 401.
func (s *settings) authOptions(scope *gophercloud.AuthScope) gophercloud.AuthOptions {
	ao := gophercloud.AuthOptions{
		IdentityEndpoint: s.authURL,
		Password:         s.password,
		AllowReauth:      true,
		Scope:            scope,
	}

	if s.userID != "" {
		ao.UserID = s.userID
	} else {
		ao.Username = s.userName
		if s.userDomainID != "" {
			ao.DomainID = s.userDomainID
		} else {
			ao.DomainName = s.userDomainName
		}
	}

	return ao
}

// baseScope is the scope the configuration asks for: usually the service user's own project.
// A project given by name without a project domain is looked up in the user's domain.
func (s *settings) baseScope() *gophercloud.AuthScope {
	switch {
	case s.projectID != "":
		return &gophercloud.AuthScope{ProjectID: s.projectID}
	case s.projectName != "":
		sc := &gophercloud.AuthScope{ProjectName: s.projectName}

		switch {
		case s.projectDomainID != "":
			sc.DomainID = s.projectDomainID
		case s.projectDomainName != "":
			sc.DomainName = s.projectDomainName
		case s.userDomainID != "":
			sc.DomainID = s.userDomainID
		default:
			sc.DomainName = s.userDomainName
		}

		return sc
	case s.domainScopeID != "":
		return &gophercloud.AuthScope{DomainID: s.domainScopeID}
	case s.domainScopeName != "":
		return &gophercloud.AuthScope{DomainName: s.domainScopeName}
	}

	return &gophercloud.AuthScope{}
}

// buildTLSConfig applies a CA bundle and the insecure switch when no clouds.yaml was read.
func buildTLSConfig(caCertFile string, insecure *bool) (*tls.Config, error) {
	tlsConfig := &tls.Config{MinVersion: tls.VersionTLS12}

	if caCertFile != "" {
		path := caCertFile
		if rest, ok := strings.CutPrefix(path, "~/"); ok {
			if home, err := os.UserHomeDir(); err == nil {
				path = filepath.Join(home, rest)
			}
		}

		pem, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("reading cacert_file (OS_CACERT): %w", err)
		}

		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(bytes.TrimSpace(pem)) {
			return nil, fmt.Errorf("cacert_file (OS_CACERT) %q holds no PEM certificate", caCertFile)
		}

		tlsConfig.RootCAs = pool
	}

	if insecure != nil {
		tlsConfig.InsecureSkipVerify = *insecure //nolint:gosec // the operator asked for it (insecure / OS_INSECURE)
	}

	return tlsConfig, nil
}

func setIf(dst *string, v string) {
	if v != "" {
		*dst = v
	}
}

// uniqueStrings drops empty and repeated entries, keeping the first occurrence's order.
func uniqueStrings(in []string) []string {
	var out []string

	seen := map[string]bool{}

	for _, v := range in {
		v = strings.TrimSpace(v)
		if v == "" || seen[v] {
			continue
		}

		seen[v] = true
		out = append(out, v)
	}

	return out
}
