package main

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"sync"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/flavors"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/quotasets"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/servers"
	"github.com/gophercloud/gophercloud/v2/openstack/image/v2/images"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/networks"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/subnets"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
)

// Cloud is the local cloud as the service user of clouds.yaml sees it in its own project, in
// the bench's region: for the flavor and image IDs, and for the direct Nova boots. It is the
// provider's own client (internal/cloud), authenticated once.
type Cloud struct {
	compute, network, image *gophercloud.ServiceClient
	projectID               string // the service user's own project, where the direct boots go
}

// Connect authenticates as cloud (of the clouds.yaml file) in region.
func Connect(ctx context.Context, file, name, region string) (*Cloud, error) {
	c, err := cloud.New(ctx, cloud.Config{Cloud: name, CloudsYAML: file, Region: region, UserAgent: "terraform-provider-unikorn-bench"})
	if err != nil {
		return nil, fmt.Errorf("authenticating as cloud %s of %s: %w", name, file, err)
	}

	out := &Cloud{projectID: c.Base().ProjectID()}

	if out.compute, err = c.Base().Compute(region); err != nil {
		return nil, err
	}

	if out.network, err = c.Base().Network(region); err != nil {
		return nil, err
	}

	if out.image, err = c.Base().Image(region); err != nil {
		return nil, err
	}

	return out, nil
}

// BootIDs are the IDs of the flavor and the image named so.
func (c *Cloud) BootIDs(ctx context.Context, flavor, image string) (flavorID, imageID string, err error) {
	pages, err := flavors.ListDetail(c.compute, flavors.ListOpts{}).AllPages(ctx)
	if err != nil {
		return "", "", fmt.Errorf("listing flavors: %w", err)
	}

	fs, err := flavors.ExtractFlavors(pages)
	if err != nil {
		return "", "", err
	}

	if i := slices.IndexFunc(fs, func(f flavors.Flavor) bool { return f.Name == flavor }); i >= 0 {
		flavorID = fs[i].ID
	} else {
		return "", "", fmt.Errorf("no flavor named %q", flavor)
	}

	pages, err = images.List(c.image, images.ListOpts{Name: image}).AllPages(ctx)
	if err != nil {
		return "", "", fmt.Errorf("listing images: %w", err)
	}

	is, err := images.ExtractImages(pages)
	if err != nil {
		return "", "", err
	}

	if i := slices.IndexFunc(is, func(img images.Image) bool { return img.Name == image }); i >= 0 {
		imageID = is[i].ID
	} else {
		return "", "", fmt.Errorf("no image named %q", image)
	}

	return flavorID, imageID, nil
}

// novaDirect boots o.novaDirect servers straight through Nova, in parallel, in the service
// user's own project on a network of their own, o.reps times, and prints how long Nova took
// until all were ACTIVE (and each one's time to ACTIVE): the floor under any provider's apply
// of as many servers. Each repetition deletes its servers and network again.
func novaDirect(ctx context.Context, c *Cloud, o options, flavorID, imageID string) error {
	fmt.Printf("\nbench: Nova alone, %d servers booted in parallel (POSTs at once, one listing a second until all are ACTIVE)\n", o.novaDirect)

	var all, each []float64

	for rep := 1; rep <= o.reps && ctx.Err() == nil; rep++ {
		name := repName() + "-direct"

		total, times, err := bootDirect(ctx, c, name, o.novaDirect, flavorID, imageID)
		if err != nil {
			fmt.Printf("bench:   repetition %d (%s) failed: %v\n", rep, name, err)
			continue
		}

		s := SpreadOf(times)
		fmt.Printf("bench:   repetition %d: all ACTIVE after %.1f s; per server %s s (min/med/max)\n", rep, total, s.Format("%.1f"))

		all = append(all, total)
		each = append(each, s.Median)
	}

	if len(all) == 0 {
		return fmt.Errorf("the direct Nova boots: no repetition booted its %d servers", o.novaDirect)
	}

	fmt.Printf("bench: Nova alone, %d servers: all ACTIVE after %s s, median per server %s s (min/med/max over repetitions)\n",
		o.novaDirect, SpreadOf(all).Format("%.1f"), SpreadOf(each).Format("%.1f"))

	return nil
}

// liftComputeQuota makes room for n more servers in the service user's own project (whose Nova
// quota is the default 10 instances on a fresh cloud): instances, cores and RAM unlimited until
// the returned restore puts the quotas it found back.
func liftComputeQuota(ctx context.Context, c *Cloud) (restore func(), err error) {
	before, err := quotasets.Get(ctx, c.compute, c.projectID).Extract()
	if err != nil {
		return nil, fmt.Errorf("reading the compute quota of project %s: %w", c.projectID, err)
	}

	unlimited := -1
	if _, err := quotasets.Update(ctx, c.compute, c.projectID, quotasets.UpdateOpts{
		Instances: &unlimited, Cores: &unlimited, RAM: &unlimited,
	}).Extract(); err != nil {
		return nil, fmt.Errorf("lifting the compute quota of project %s: %w", c.projectID, err)
	}

	return func() {
		if _, err := quotasets.Update(context.WithoutCancel(ctx), c.compute, c.projectID, quotasets.UpdateOpts{
			Instances: &before.Instances, Cores: &before.Cores, RAM: &before.RAM,
		}).Extract(); err != nil {
			fmt.Printf("bench:   restoring the compute quota of project %s: %v\n", c.projectID, err)
		}
	}, nil
}

// firstOf is errs (one per server, nil for those that booted) as one error: how many failed,
// and the first failure.
func firstOf(errs []error) error {
	var failed []error

	for _, err := range errs {
		if err != nil {
			failed = append(failed, err)
		}
	}

	if len(failed) == 0 {
		return nil
	}

	return fmt.Errorf("%d of %d servers failed to boot, the first: %w", len(failed), len(errs), failed[0])
}

// bootDirect makes a network and n servers on it, waits until all are ACTIVE, and removes them
// again; it returns the seconds until all were ACTIVE and each server's seconds to ACTIVE.
func bootDirect(ctx context.Context, c *Cloud, name string, n int, flavorID, imageID string) (float64, []float64, error) {
	net, err := networks.Create(ctx, c.network, networks.CreateOpts{Name: name}).Extract()
	if err != nil {
		return 0, nil, fmt.Errorf("creating network %s: %w", name, err)
	}

	defer func() {
		if err := networks.Delete(context.WithoutCancel(ctx), c.network, net.ID).ExtractErr(); err != nil {
			fmt.Printf("bench:   deleting network %s (%s): %v\n", name, net.ID, err)
		}
	}()

	restore, err := liftComputeQuota(ctx, c)
	if err != nil {
		return 0, nil, err
	}

	defer restore()

	if _, err := subnets.Create(ctx, c.network, subnets.CreateOpts{
		Name: name, NetworkID: net.ID, IPVersion: gophercloud.IPv4, CIDR: "10.61.0.0/22",
	}).Extract(); err != nil {
		return 0, nil, fmt.Errorf("creating subnet %s: %w", name, err)
	}

	var (
		mu  sync.Mutex
		ids []string
		wg  sync.WaitGroup
	)

	defer func() { deleteDirect(context.WithoutCancel(ctx), c, ids) }()

	start := time.Now()
	posted := make(map[string]time.Time, n)
	errs := make([]error, n)

	for i := range n {
		wg.Add(1)

		go func() {
			defer wg.Done()

			t := time.Now()

			srv, err := servers.Create(ctx, c.compute, servers.CreateOpts{
				Name: fmt.Sprintf("%s-%d", name, i), FlavorRef: flavorID, ImageRef: imageID,
				Networks: []servers.Network{{UUID: net.ID}},
			}, nil).Extract()
			if err != nil {
				errs[i] = err
				return
			}

			mu.Lock()
			ids = append(ids, srv.ID)
			posted[srv.ID] = t
			mu.Unlock()
		}()
	}

	wg.Wait()

	if err := firstOf(errs); err != nil {
		return 0, nil, fmt.Errorf("booting: %w", err)
	}

	active := map[string]float64{}
	filter := "^" + regexp.QuoteMeta(name) + "-"

	for len(active) < n {
		if err := cloud.Sleep(ctx, time.Second); err != nil {
			return 0, nil, err
		}

		pages, err := servers.List(c.compute, servers.ListOpts{Name: filter}).AllPages(ctx)
		if err != nil {
			return 0, nil, err
		}

		list, err := servers.ExtractServers(pages)
		if err != nil {
			return 0, nil, err
		}

		now := time.Now()

		for _, s := range list {
			switch s.Status {
			case "ACTIVE":
				if _, seen := active[s.ID]; !seen {
					active[s.ID] = now.Sub(posted[s.ID]).Seconds()
				}
			case "ERROR":
				return 0, nil, fmt.Errorf("server %s (%s) went to ERROR", s.Name, s.ID)
			}
		}
	}

	total := time.Since(start).Seconds()

	times := make([]float64, 0, n)
	for _, t := range active {
		times = append(times, t)
	}

	return total, times, nil
}

// deleteDirect deletes the servers and waits until Nova no longer has them.
func deleteDirect(ctx context.Context, c *Cloud, ids []string) {
	for _, id := range ids {
		if err := servers.Delete(ctx, c.compute, id).ExtractErr(); err != nil && !gophercloud.ResponseCodeIs(err, http.StatusNotFound) {
			fmt.Printf("bench:   deleting server %s: %v\n", id, err)
		}
	}

	deadline := time.Now().Add(5 * time.Minute)

	for _, id := range ids {
		for time.Now().Before(deadline) {
			_, err := servers.Get(ctx, c.compute, id).Extract()
			if gophercloud.ResponseCodeIs(err, http.StatusNotFound) {
				break
			}

			_ = cloud.Sleep(ctx, time.Second)
		}
	}
}
