package cloud

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/projects"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/tokens"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/trusts"
	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// tokenRefreshMargin makes gophercloud re-authenticate before a token runs out rather than
// after a 401.
const tokenRefreshMargin = 2 * time.Minute

// Client is the authenticated OpenStack connection of one provider configuration, shared
// by every resource of a run. It is safe for concurrent use.
type Client struct {
	settings  *settings // holds the password; never printed
	transport *retryingTransport

	defaultRegion string
	regions       []string
	catalog       []CatalogRegion

	base          *Session // the scope as configured
	serviceUserID string
	baseProjectID string
	baseRoles     []string // the service user's roles in the configured scope, as its token names them

	sessions   OnceCache[sessionKey, *Session]
	domainID   OnceCache[struct{}, string]
	trusts     OnceCache[struct{}, []trusts.Trust] // live trusts to the service user, listed once
	grantsMu   sync.Mutex
	grants     *Grants // set by CheckGrants, at Configure (or once on first need)
	grantCheck OnceCache[struct{}, GrantModel]
	// identityProjects holds the projects checked to be identities (CheckIdentityProject), as
	// read once per run (IdentityProject).
	identityProjects OnceCache[string, *projects.Project]
	// humanProjects holds the projects checked to be unikorn_project's (CheckHumanProject).
	humanProjects OnceCache[string, struct{}]
	// serviceRoles holds the identity projects made elsewhere in which the service user's roles
	// were checked (and granted): acting.go.
	serviceRoles OnceCache[string, struct{}]
	// trustors holds the trustors of identity trusts, as recorded by resources and as found.
	trustors trustorMemory
	// runs holds the per-run listings, what the process wrote, and the polling rounds.
	runs runState
	// unserved holds the regions outside the served ones that BindAnywhere bound (regions.go).
	unserved sync.Map
}

// New resolves cfg (over clouds.yaml when Cloud is set), authenticates the service user once
// with its password in the configured scope, and checks every served region against the
// token's service catalog.
func New(ctx context.Context, cfg Config) (*Client, error) {
	s, err := resolveSettings(cfg)
	if err != nil {
		return nil, err
	}

	s.tokens = processTokens

	return newClient(ctx, s, defaultRetryTuning(s.maxRetries))
}

// newClient is New with the retry tuning exposed for tests.
func newClient(ctx context.Context, s *settings, tuning retryTuning) (*Client, error) {
	base, ok := http.DefaultTransport.(*http.Transport)
	if !ok {
		return nil, errors.New("http.DefaultTransport is not an *http.Transport")
	}

	tr := base.Clone()
	if s.tlsConfig != nil {
		tr.TLSClientConfig = s.tlsConfig
	}

	c := &Client{settings: s, transport: newRetryingTransport(tr, tuning)}
	c.transport.services.Store(newServiceMatcher(s.authURL, nil))

	scope := s.baseScope()

	pc, result, err := c.authenticate(ctx, scope)
	if err != nil {
		return nil, err
	}

	catalog, err := result.ExtractServiceCatalog()
	if err != nil {
		return nil, fmt.Errorf("reading the service catalog from the token: %w", err)
	}

	user, err := result.ExtractUser()
	if err != nil || user == nil || user.ID == "" {
		return nil, fmt.Errorf("reading the service user from the token: %w", errors.Join(err, errors.New("no user in token")))
	}

	c.serviceUserID = user.ID

	if project, err := result.ExtractProject(); err == nil && project != nil {
		c.baseProjectID = project.ID
	}

	if roles, err := result.ExtractRoles(); err == nil {
		c.baseRoles = roleNames(roles)
	}

	c.transport.services.Store(newServiceMatcher(s.authURL, catalog))

	if err := c.resolveRegions(catalog); err != nil {
		return nil, err
	}

	c.catalog = buildCatalog(catalog, c.regions)

	c.base = &Session{client: c, kind: scopeBase, projectID: c.baseProjectID, provider: pc}
	if c.baseProjectID != "" {
		// The configured project is a project scope like any other: reuse its token.
		c.sessions.Put(sessionKey{kind: scopePrivileged, project: c.baseProjectID}, c.base)
	}

	tflog.SubsystemDebug(logContext(ctx), LogSubsystem, "Authenticated the service user", map[string]any{
		"user_id":        c.serviceUserID,
		"project_id":     c.baseProjectID,
		"default_region": c.defaultRegion,
		"regions":        c.regions,
	})

	return c, nil
}

// resolveRegions settles the default and served regions and checks each of them.
func (c *Client) resolveRegions(catalog *tokens.ServiceCatalog) error {
	s := c.settings
	known := catalogRegionNames(catalog)
	regions := slices.Clone(s.regions)
	def := s.region

	if def == "" && len(regions) > 0 {
		def = regions[0]
	}

	if def == "" {
		if len(known) != 1 {
			return fmt.Errorf("no region configured: set region (OS_REGION_NAME) or region_name in clouds.yaml "+
				"(regions in the catalog: %s)", strings.Join(known, ", "))
		}

		def = known[0]
	}

	if len(regions) == 0 {
		regions = []string{def}
	} else if !slices.Contains(regions, def) {
		return fmt.Errorf("the default region %q is not among the served regions (regions): %s",
			def, strings.Join(regions, ", "))
	}

	var errs []error

	for _, region := range regions {
		if err := checkRegion(catalog, region, s.availability); err != nil {
			errs = append(errs, err)
		}
	}

	if len(errs) > 0 {
		return errors.Join(errs...)
	}

	c.defaultRegion = def
	c.regions = regions

	return nil
}

// newProviderClient is an unauthenticated ProviderClient for the cloud's auth URL that sends
// through the Client's transport (so its requests are logged, retried and counted like every
// other) with the provider's user agent.
func (c *Client) newProviderClient() (*gophercloud.ProviderClient, error) {
	pc, err := openstack.NewClient(c.settings.authURL)
	if err != nil {
		return nil, fmt.Errorf("auth_url (OS_AUTH_URL) %q: %w", c.settings.authURL, err)
	}

	pc.HTTPClient = http.Client{Transport: c.transport}

	if c.settings.userAgent != "" {
		pc.UserAgent.Prepend(c.settings.userAgent)
	}

	return pc, nil
}

// authenticate gets a token for the service user with the given scope on a new
// ProviderClient that uses the Client's transport: the process's shelved token for that scope
// when there is one (tokenShelf), else a new one, shelved for the process's other
// configurations.
func (c *Client) authenticate(ctx context.Context, scope *gophercloud.AuthScope) (*gophercloud.ProviderClient, tokens.CreateResult, error) {
	shelf := c.settings.tokens

	key, shelvable := shelfKey(c.settings, scope)
	if shelf == nil || !shelvable {
		return c.authenticateNew(ctx, scope)
	}

	if result, ok := shelf.take(key); ok {
		pc, err := c.shelvedProviderClient(key, scope, result)
		if err == nil {
			tflog.SubsystemDebug(logContext(ctx), LogSubsystem, "Reused this process's token for a credential scope",
				map[string]any{"scope": describeScope(scope)})

			return pc, result, nil
		}

		shelf.drop(key)
	}

	pc, result, err := c.authenticateNew(ctx, scope)
	if err != nil {
		return nil, tokens.CreateResult{}, err
	}

	shelf.put(key, scope, result)

	// gophercloud's own re-authentication (after a 401, or near the token's end) replaces the
	// token: shelve the new one instead.
	if reauth := pc.ReauthFunc; reauth != nil {
		pc.ReauthFunc = func(ctx context.Context) error {
			shelf.drop(key)

			if err := reauth(ctx); err != nil {
				return err
			}

			if fresh, ok := pc.GetAuthResult().(tokens.CreateResult); ok {
				shelf.put(key, scope, fresh)
			}

			return nil
		}
	}

	return pc, result, nil
}

// shelvedProviderClient is a ProviderClient holding a shelved token: its endpoints come from
// the token's catalog, and a 401 (or the token's end) authenticates again with the password.
func (c *Client) shelvedProviderClient(key string, scope *gophercloud.AuthScope, result tokens.CreateResult) (*gophercloud.ProviderClient, error) {
	catalog, err := result.ExtractServiceCatalog()
	if err != nil {
		return nil, err
	}

	pc, err := c.newProviderClient()
	if err != nil {
		return nil, err
	}

	if err := pc.SetTokenAndAuthResult(result); err != nil {
		return nil, err
	}

	// As gophercloud's own authentication sets it (EndpointLocator takes no context).
	pc.EndpointLocator = func(opts gophercloud.EndpointOpts) (string, error) {
		return openstack.V3Endpoint(context.Background(), pc, catalog, opts)
	}
	pc.ReauthBeforeTokenExpiration = tokenRefreshMargin
	pc.ReauthFunc = func(ctx context.Context) error {
		c.settings.tokens.drop(key)

		fresh, result, err := c.authenticateNew(ctx, scope)
		if err != nil {
			return err
		}

		pc.CopyTokenFrom(fresh)
		c.settings.tokens.put(key, scope, result)

		return nil
	}

	return pc, nil
}

// authenticateNew asks Keystone for a new token (authenticate without the shelf).
func (c *Client) authenticateNew(ctx context.Context, scope *gophercloud.AuthScope) (*gophercloud.ProviderClient, tokens.CreateResult, error) {
	s := c.settings

	pc, err := c.newProviderClient()
	if err != nil {
		return nil, tokens.CreateResult{}, err
	}

	pc.ReauthBeforeTokenExpiration = tokenRefreshMargin

	opts := s.authOptions(scope)

	if err := openstack.AuthenticateV3(ctx, pc, &opts, gophercloud.EndpointOpts{}); err != nil {
		return nil, tokens.CreateResult{}, &AuthError{
			Method:  "password",
			AuthURL: s.authURL,
			User:    s.userDisplay(),
			Scope:   describeScope(scope),
			Err:     scrubError(err, s.password),
		}
	}

	result, ok := pc.GetAuthResult().(tokens.CreateResult)
	if !ok {
		return nil, tokens.CreateResult{}, fmt.Errorf("unexpected authentication result %T", pc.GetAuthResult())
	}

	return pc, result, nil
}

// describeScope names a scope in messages.
func describeScope(scope *gophercloud.AuthScope) string {
	if scope == nil {
		return ""
	}

	switch {
	case scope.TrustID != "":
		return fmt.Sprintf("trust %q", scope.TrustID)
	case scope.ProjectID != "":
		return fmt.Sprintf("project %q", scope.ProjectID)
	case scope.ProjectName != "":
		return fmt.Sprintf("project %q in domain %q", scope.ProjectName, cmp.Or(scope.DomainName, scope.DomainID))
	case scope.DomainID != "":
		return fmt.Sprintf("domain %q", scope.DomainID)
	case scope.DomainName != "":
		return fmt.Sprintf("domain %q", scope.DomainName)
	case scope.System:
		return "system"
	}

	return ""
}

// DefaultRegion is the region of resources that do not name one.
func (c *Client) DefaultRegion() string {
	return c.defaultRegion
}

// Regions are the served regions, in configuration order.
func (c *Client) Regions() []string {
	return slices.Clone(c.regions)
}

// Catalog is the service catalog of the served regions, services sorted by type.
func (c *Client) Catalog() []CatalogRegion {
	out := make([]CatalogRegion, len(c.catalog))

	for i, r := range c.catalog {
		out[i] = CatalogRegion{Name: r.Name, Services: make([]CatalogService, len(r.Services))}
		for j, svc := range r.Services {
			out[i].Services[j] = CatalogService{Type: svc.Type, Name: svc.Name, Endpoints: slices.Clone(svc.Endpoints)}
		}
	}

	return out
}

// ResolveRegion maps "" to the default region and rejects a region that is not served.
func (c *Client) ResolveRegion(region string) (string, error) {
	if region == "" {
		return c.defaultRegion, nil
	}

	if !slices.Contains(c.regions, region) {
		return "", fmt.Errorf("region %q is not served by this provider (served regions: %s)",
			region, strings.Join(c.regions, ", "))
	}

	return region, nil
}

// Base is the session in the scope the provider was configured with (typically the service
// user's own project): for reads that belong to no identity, such as public flavors and
// images, the catalog, or the inventory of a region.
func (c *Client) Base() *Session {
	return c.base
}

// ServiceUserID is the Keystone ID of the service user.
func (c *Client) ServiceUserID() string {
	return c.serviceUserID
}

// RequestCount is the number of HTTP requests sent so far (every attempt counts).
func (c *Client) RequestCount() int64 {
	return c.transport.counters.total.Load()
}

// TokenCount is how many of those requests asked Keystone for a token: one per credential scope
// authenticated (and per re-authentication).
func (c *Client) TokenCount() int64 {
	return c.transport.counters.tokens.Load()
}

// RequestCountByMethod is RequestCount per HTTP method (methods not seen are left out).
func (c *Client) RequestCountByMethod() map[string]int64 {
	return c.transport.counters.snapshot()
}

// RefusedCount is how many requests with the HTTP method so far were refused (answered 4xx):
// what a measurement subtracts when a core retries a refusal it expects (Keystone's role lag).
func (c *Client) RefusedCount(method string) int64 {
	if n, ok := c.transport.counters.refused[method]; ok {
		return n.Load()
	}

	return 0
}

// String describes the client without secrets.
func (c *Client) String() string {
	return fmt.Sprintf("cloud.Client{auth_url:%q user:%q default_region:%q regions:%q}",
		c.settings.authURL, c.settings.userDisplay(), c.defaultRegion, c.regions)
}

// GoString keeps %#v from printing the password.
func (c *Client) GoString() string {
	return c.String()
}
