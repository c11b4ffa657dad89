package network_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/acctest"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/network"
)

// TestAccMeasure_requestCounts measures, against the real cloud and from a cold client, the
// HTTP requests and wall time that the core spends to create, refresh and destroy a network
// and a 500-rule security group: the same calls the resources' Create, Read and Delete make.
// The numbers are printed as "MEASURE" lines (run with -v); a count over its budget fails. A
// refresh reads the run's listings of the project's networks, subnets, routers and ports (one
// request each, whatever the number of networks; issue 17).
func TestAccMeasure_requestCounts(t *testing.T) {
	project := tenant(t)
	acctest.RaiseSecurityGroupRuleQuota(t, project, 1000)

	def := defaultRegion(t)
	ctx := context.Background()

	c, err := acctest.NewClient(ctx, "terraform-provider-unikorn-acctest-measure")
	if err != nil {
		t.Fatal(err)
	}

	measure := func(what string, budget int64, f func() error) {
		t.Helper()

		total, methods, start := c.RequestCount(), c.RequestCountByMethod(), time.Now()

		if err := f(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}

		elapsed := time.Since(start)
		after := c.RequestCountByMethod()

		var parts []string
		for _, m := range slices.Sorted(maps.Keys(after)) {
			if n := after[m] - methods[m]; n > 0 {
				parts = append(parts, fmt.Sprintf("%s %d", m, n))
			}
		}

		requests := c.RequestCount() - total
		t.Logf("MEASURE %-40s %3d requests (%s) in %s, budget %d", what+":", requests, strings.Join(parts, ", "),
			elapsed.Round(time.Millisecond), budget)

		if requests > budget {
			t.Errorf("%s took %d requests, budget %d", what, requests, budget)
		}
	}

	var svc *network.Service

	// The tenant is a project made out of band (no creation mark), as an identity made by
	// Unikorn is: binding it also lists the service user's roles there and the role IDs
	// (cloud.ensureServiceUserRoles, issue 27), two GETs on top of the check and its token.
	measure("privileged scope: the identity check and its token", 6, func() error {
		tenant, err := c.Tenant(ctx, project, def, cloud.Privileged)
		if err == nil {
			svc, err = network.NewService(tenant, network.NewConfig(network.ExternalNetworkSelector{}, nil))
		}

		return err
	})

	name := acctest.RandomName()
	a, _ := network.PlanAddressing(mustPrefix("10.50.0.0/24"), nil)
	spec := network.Spec{Name: name, Addressing: a, DNSNameservers: []string{"192.0.2.53"}}

	var net *network.Network

	// The ownership marks (issue 26) cost 7 of them: a tag and a description per object made, and
	// the completion mark.
	measure("network create", 21, func() error {
		net, err = svc.EnsureNetwork(ctx, spec, network.Ref{})
		return err
	})

	measure("network refresh", 4, func() error {
		got, err := svc.ObserveNetwork(ctx, name, net.Ref())
		if err == nil && !got.Complete() {
			err = fmt.Errorf("incomplete network %+v", got)
		}

		return err
	})

	measure("network destroy", 8, func() error { return svc.DeleteNetwork(ctx, name, net.Ref()) })

	var rules []network.Rule
	for p := 20000; p < 20500; p++ {
		rules = append(rules, network.Rule{Direction: network.DirectionIngress, Protocol: network.ProtocolTCP, PortMin: p, PortMax: p,
			RemoteIPPrefix: "10.0.0.0/8"})
	}

	group := network.SecurityGroupSpec{Name: acctest.RandomName(), Rules: rules}

	var sg *network.SecurityGroup

	// 3 for the marks: the creation tag, the description, the completion tag.
	measure("500-rule security group create", 7, func() error {
		sg, err = svc.EnsureSecurityGroup(ctx, group, "")
		if err == nil && len(sg.Rules) != 502 {
			err = fmt.Errorf("%d rules, want 502", len(sg.Rules))
		}

		return err
	})

	measure("500-rule security group refresh", 1, func() error {
		got, err := svc.ObserveSecurityGroup(ctx, group.Name, sg.ID)
		if err == nil && len(got.Rules) != 502 {
			err = fmt.Errorf("%d rules, want 502", len(got.Rules))
		}

		return err
	})

	group.Rules = group.Rules[1:]
	group.Rules = append(group.Rules, network.Rule{Direction: network.DirectionIngress, Protocol: network.ProtocolUDP,
		PortMin: 53, PortMax: 53, RemoteIPPrefix: "10.0.0.0/8"})

	measure("500-rule security group: 1 rule changed", 4, func() error {
		_, err := svc.EnsureSecurityGroup(ctx, group, sg.ID)
		return err
	})

	measure("500-rule security group destroy", 2, func() error { return svc.DeleteSecurityGroup(ctx, group.Name, sg.ID) })
}
