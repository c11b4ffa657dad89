package loadbalancer

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/loadbalancer/v2/loadbalancers"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/network"
)

// This file holds the life of one load balancer around Ensure: a create that adopts what a
// lost answer left, an update, and the delete.

// salvageTimeout bounds each read that records what a failed create or update left, and the
// wait for the load balancer of a create whose answer was lost.
const salvageTimeout = time.Minute

// Create makes load balancer spec.Name (Ensure on no known ID) and returns its ID, the
// topology last known and the error. onID is called with the ID as soon as Octavia returns it.
//
// When the create fails, the returned ID and topology say what it left, so that the state
// tracks it (a tainted resource, never an untracked one): the topology is read again with a
// context of its own. When the POST itself failed, the load balancer may exist all the same
// (Octavia commits it once its VIP port exists, which may be after an answer lost to a
// deadline or a dropped connection): it is looked up by name and, when Octavia gave no answer
// at all, waited for (AdoptLost), so that the next apply never twins it. The ID is "" only
// when no load balancer exists.
func (s *Service) Create(ctx context.Context, spec Spec, onID func(id string)) (string, *Topology, error) {
	if onID == nil {
		onID = func(string) {}
	}

	var id string

	top, err := s.Ensure(ctx, spec, "", func(got string) {
		id = got
		onID(got)
	})
	if err == nil {
		return id, top, nil
	}

	var lost *CreateError
	if id == "" && errors.As(err, &lost) {
		if found := s.AdoptLost(ctx, spec.Name, err); found != nil {
			id, top = found.ID, found
		}
	}

	if id == "" {
		return "", nil, err
	}

	return id, s.salvage(ctx, id, spec.Name, top), err
}

// AdoptLost finds the load balancer named lb-<name> of a create that failed with err: at once,
// and, when err carries no answer from Octavia (the outcome is unknown), by waiting up to
// salvageTimeout for Octavia to commit it. nil when there is none.
func (s *Service) AdoptLost(ctx context.Context, name string, err error) *Topology {
	if found := s.salvage(ctx, "", name, nil); found != nil {
		return found
	}

	var answered gophercloud.ErrUnexpectedResponseCode
	if errors.As(err, &answered) {
		return nil // Octavia refused the create: there is nothing to wait for
	}

	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), salvageTimeout)
	defer cancel()

	found, err := cloud.Poll(ctx, cloud.PollSpec{Pending: []string{"absent"}, Target: []string{"present"}, MinInterval: s.lostInterval()},
		func(ctx context.Context) (*Topology, string, string, error) {
			top, err := s.Observe(ctx, "", name)
			if err != nil || top == nil {
				return nil, "absent", "", err
			}

			return top, "present", "", nil
		})
	if err != nil {
		tflog.Warn(ctx, "The load balancer of a lost create did not appear", map[string]any{"name": name, "error": err.Error()})
		return nil
	}

	return found
}

// lostInterval is the first interval of the wait for a lost create's load balancer.
func (s *Service) lostInterval() time.Duration {
	if s.PollMin > 0 {
		return s.PollMin
	}

	return time.Second
}

// Update converges load balancer id (from the state) to spec and returns its ID (another one
// when the recorded load balancer was gone and Ensure made or adopted one), the topology and
// the error; after a failure, the topology is read again so that the state shows what was done.
func (s *Service) Update(ctx context.Context, spec Spec, id string) (string, *Topology, error) {
	top, err := s.Ensure(ctx, spec, id, func(got string) { id = got })
	if err != nil {
		top = s.salvage(ctx, id, spec.Name, top)
	}

	return id, top, err
}

// salvage reads what a failed create or update left, with a context of its own (the
// operation's may have ended), so that the state shows it; top when that fails too.
func (s *Service) salvage(ctx context.Context, id, name string, top *Topology) *Topology {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), salvageTimeout)
	defer cancel()

	if observed, err := s.Observe(ctx, id, name); err == nil && observed != nil {
		return observed
	}

	return top
}

// floatingIPJob runs convergeFloatingIP next to the Octavia work.
type floatingIPJob struct {
	started bool
	done    chan error
	err     error
}

// start converges the floating IP of t (a copy is used) in the background.
func (j *floatingIPJob) start(ctx context.Context, s *Service, spec Spec, t *Topology) {
	cp := *t
	j.started = true
	j.done = make(chan error, 1)

	go func() { j.done <- s.convergeFloatingIP(ctx, spec, &cp) }()
}

// wait returns the job's error once it has ended; nil when it never started.
func (j *floatingIPJob) wait() error {
	if j.done != nil {
		j.err = <-j.done
		j.done = nil
	}

	return j.err
}

// Delete removes the load balancer: first the floating IP on its VIP port (the cascade
// removes the port that anchors it), then the load balancer with everything under it in one
// cascade call, then waits until Octavia answers 404. A load balancer already gone is fine;
// floating IPs left over for it are removed too.
func (s *Service) Delete(ctx context.Context, id, name string) error {
	lb, err := s.locate(ctx, id, name)
	if err != nil {
		return err
	}

	if lb == nil {
		if name == "" {
			return nil
		}

		return network.RemoveFloatingIPs(ctx, s.Neutron, s.publicAddress("", name))
	}

	if name == "" {
		name, _ = NameOf(lb.Name)
	}

	if name != "" {
		if err := network.RemoveFloatingIPs(ctx, s.Neutron, s.publicAddress(lb.VipPortID, name)); err != nil {
			return err
		}
	}

	if lb.ProvisioningStatus == StatusPendingCreate || lb.ProvisioningStatus == StatusPendingUpdate {
		if lb, err = s.waitSettled(ctx, lb.ID, "waiting to delete "+lb.Name); err != nil {
			return err
		}
	}

	if lb.ProvisioningStatus != StatusPendingDelete {
		err := loadbalancers.Delete(ctx, s.Octavia, lb.ID, loadbalancers.DeleteOpts{Cascade: true}).ExtractErr()

		switch {
		case isNotFound(err):
			return nil
		case isConflict(err):
			return &ConflictError{What: "deleting load balancer " + lb.Name, Err: err}
		case err != nil:
			return fmt.Errorf("deleting load balancer %s (%s): %w", lb.Name, lb.ID, err)
		}
	}

	return s.waitGone(ctx, lb.ID, "deleting "+lb.Name)
}

func ignoreNotFound(err error) error {
	if isNotFound(err) {
		return nil
	}

	return err
}
