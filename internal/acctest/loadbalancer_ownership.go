package acctest

import (
	"context"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/loadbalancer/v2/loadbalancers"
)

// CreateTaggedLoadBalancer creates, in the identity project projectID, a bare load balancer
// (no listeners) called octaviaName with its VIP on subnetID and the Octavia tags tags, as the
// identity's user (what an interrupted create of the provider leaves, when tags is its creation
// mark), waits until it is ACTIVE and returns its ID. A cleanup deletes it when the test ends,
// if it is still there.
func CreateTaggedLoadBalancer(t *testing.T, projectID, region, subnetID, octaviaName string, tags []string) string {
	t.Helper()

	ctx, cancel := context.WithTimeout(context.Background(), lbWaitTimeout)
	defer cancel()

	octavia := identityOctavia(t, projectID, region)

	lb, err := loadbalancers.Create(ctx, octavia, loadbalancers.CreateOpts{Name: octaviaName, VipSubnetID: subnetID, Tags: tags}).Extract()
	if err != nil {
		t.Fatalf("creating load balancer %s: %v", octaviaName, err)
	}

	t.Cleanup(func() { DeleteLoadBalancerOutOfBand(t, region, lb.ID) })

	if err := waitLoadBalancer(ctx, octavia, lb.ID, false); err != nil {
		t.Fatalf("waiting for load balancer %s: %v", lb.ID, err)
	}

	return lb.ID
}
