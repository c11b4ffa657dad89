package acctest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/keypairs"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/servergroups"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/servers"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/applicationcredentials"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/tokens"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/trusts"
	"github.com/gophercloud/gophercloud/v2/openstack/loadbalancer/v2/loadbalancers"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/layer3/floatingips"
)

// Untouched checks, in the cloud, that nothing Unikorn relies on in the identity was changed:
// the user's password still logs in (scoped to the project), its application credential still
// authenticates (ID and secret, into the project) and is its only one, the user is the trustor
// of no trust, and the keypair unikorn-openstack-provider (same public key) and the server group
// (same ID, name and policy) are there in every served region, as the user sees them.
func (u UnikornIdentity) Untouched(t *testing.T) error {
	t.Helper()

	ctx := context.Background()

	sess, err := u.userSession(t)
	if err != nil {
		return err
	}

	usc, err := sess.Keystone()
	if err != nil {
		return err
	}

	acs, err := AllPages(ctx, applicationcredentials.List(usc, u.UserID, nil), applicationcredentials.ExtractApplicationCredentials)
	if err != nil {
		return fmt.Errorf("listing the Unikorn user's application credentials: %w", err)
	}

	ids := make([]string, len(acs))
	for i, ac := range acs {
		ids[i] = ac.ID
	}

	if !slices.Equal(ids, []string{u.CredentialID}) {
		return fmt.Errorf("the Unikorn user's application credentials are %v, want only %s", ids, u.CredentialID)
	}

	if err := u.credentialAuthenticates(ctx, t); err != nil {
		return err
	}

	// The user lists its own trusts (Keystone lets a trustor do that whatever its roles).
	trs, err := AllPages(ctx, trusts.List(usc, trusts.ListOpts{TrustorUserID: u.UserID}), trusts.ExtractTrusts)
	if err != nil {
		return fmt.Errorf("listing the Unikorn user's trusts: %w", err)
	}

	if len(trs) != 0 {
		return fmt.Errorf("the Unikorn user is the trustor of %d trusts (to %s first), want none", len(trs), trs[0].TrusteeUserID)
	}

	for _, region := range Regions() {
		if err := u.computeUntouched(ctx, t, sess.Compute, region); err != nil {
			return err
		}
	}

	return nil
}

// credentialAuthenticates authenticates with the application credential's ID and secret and
// checks that the token is scoped to the identity's project.
func (u UnikornIdentity) credentialAuthenticates(ctx context.Context, t *testing.T) error {
	t.Helper()

	pc, err := openstack.AuthenticatedClient(ctx, gophercloud.AuthOptions{
		IdentityEndpoint:            Client(t).AuthURL(),
		ApplicationCredentialID:     u.CredentialID,
		ApplicationCredentialSecret: u.CredentialSecret,
	})
	if err != nil {
		return fmt.Errorf("authenticating with the Unikorn application credential %s: %w", u.CredentialID, err)
	}

	res, ok := pc.GetAuthResult().(tokens.CreateResult)
	if !ok {
		return fmt.Errorf("the Unikorn application credential's token: an answer of type %T", pc.GetAuthResult())
	}

	p, err := res.ExtractProject()
	if err != nil || p == nil || p.ID != u.ProjectID {
		return fmt.Errorf("the Unikorn application credential's token is scoped to %+v (%v), want project %s", p, err, u.ProjectID)
	}

	return nil
}

// computeUntouched checks the keypair and the server group of region as the user sees them.
func (u UnikornIdentity) computeUntouched(ctx context.Context, t *testing.T, client func(string) (*gophercloud.ServiceClient, error), region string) error {
	t.Helper()

	compute, err := client(region)
	if err != nil {
		return err
	}

	compute.Microversion = unikornComputeMicroversion

	kp, err := keypairs.Get(ctx, compute, unikornKeypair, nil).Extract()
	if err != nil {
		return fmt.Errorf("the Unikorn keypair %s in %s: %w", unikornKeypair, region, err)
	}

	if strings.TrimSpace(kp.PublicKey) != strings.TrimSpace(u.KeypairPublicKey) || kp.Type != "ssh" {
		return fmt.Errorf("the Unikorn keypair in %s is %s %q, want ssh %q", region, kp.Type, kp.PublicKey, u.KeypairPublicKey)
	}

	g, err := servergroups.Get(ctx, compute, u.ServerGroupIDs[region]).Extract()
	if err != nil {
		return fmt.Errorf("the Unikorn server group %s in %s: %w", u.ServerGroupIDs[region], region, err)
	}

	if policy := derefOr(g.Policy, ""); g.Name != unikornIdentityPrefix+u.ID || policy != u.ServerGroupPolicy {
		return fmt.Errorf("the Unikorn server group in %s is %s (%s), want %s (%s)", region, g.Name, policy, unikornIdentityPrefix+u.ID, u.ServerGroupPolicy)
	}

	return nil
}

// derefOr is *p, or def when p is nil.
func derefOr[T any](p *T, def T) T {
	if p == nil {
		return def
	}

	return *p
}

// purgeProject deletes, as an admin, the load balancers, servers, floating IPs and Neutron
// objects of projectID in region: what a test may have left in a Unikorn identity's project.
func purgeProject(ctx context.Context, t *testing.T, region, projectID string) error {
	t.Helper()

	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()

	var errs []error

	octavia, neutron := LoadBalancerClients(t, region)

	lbs, err := AllPages(ctx, loadbalancers.List(octavia, loadbalancers.ListOpts{ProjectID: projectID}), loadbalancers.ExtractLoadBalancers)
	errs = append(errs, err)

	for _, lb := range lbs {
		if lb.ProjectID == projectID {
			DeleteLoadBalancerOutOfBand(t, region, lb.ID)
		}
	}

	compute := AdminCompute(t, region)

	srvs, err := AllPages(ctx, servers.List(compute, servers.ListOpts{AllTenants: true, TenantID: projectID}), servers.ExtractServers)
	errs = append(errs, err)

	for _, s := range srvs {
		if err := deleteServer(ctx, compute, s.ID); err != nil && !gophercloud.ResponseCodeIs(err, 404) {
			errs = append(errs, err)
		}
	}

	fips, err := AllPages(ctx, floatingips.List(neutron, floatingips.ListOpts{ProjectID: projectID}), floatingips.ExtractFloatingIPs)
	errs = append(errs, err)

	for _, f := range fips {
		if err := floatingips.Delete(ctx, neutron, f.ID).ExtractErr(); err != nil && !gophercloud.ResponseCodeIs(err, 404) {
			errs = append(errs, err)
		}
	}

	errs = append(errs, purgeNeutron(ctx, neutron, projectID))

	return errors.Join(errs...)
}
