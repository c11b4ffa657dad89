package loadbalancer

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/loadbalancer/v2/loadbalancers"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/network"
)

// This file holds the life of one load balancer around Ensure: a create that records what a
// failed apply left, an update, and the delete.

// salvageTimeout bounds each read that records what a failed create or update left.
const salvageTimeout = time.Minute

// Create makes load balancer spec.Name (Ensure on no known ID) and returns its ID, the
// topology last known and the error. onID is called with the ID as soon as Octavia returns it.
//
// When the create fails, the returned ID and topology say what it left, so that the state
// tracks it (a tainted resource, never an untracked one): the topology is read again with a
// context of its own. A POST whose answer was lost is recovered inside Ensure (cloud.Create
// looks the load balancer up by name); when the create's context ended before it could, the
// load balancer is looked up once more here. The ID is "" only when no load balancer exists.
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

	var (
		failed *CreateError
		twin   *cloud.TwinError
	)

	if id == "" && errors.As(err, &failed) && !cloud.Definite(failed.Err) && !errors.As(err, &twin) {
		if found := s.salvage(ctx, "", spec.Name, nil); found != nil {
			id, top = found.ID, found
		}
	}

	if id == "" {
		return "", nil, err
	}

	return id, s.salvage(ctx, id, spec.Name, top), err
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
	// top is the copy of the topology the job works on: once it has ended, its FloatingIP is
	// the one on the VIP port.
	top *Topology
}

// start converges the floating IP of t (a copy is used) in the background.
func (j *floatingIPJob) start(ctx context.Context, s *Service, spec Spec, t *Topology) {
	cp := *t
	j.started, j.top = true, &cp
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

// Delete removes load balancer id (from the state; "" when none was recorded, and only then
// is it looked up by name, and taken only when an interrupted create left it: refind): first
// the floating IPs on its VIP port (the cascade removes the port that anchors them; those this
// provider made, described lb-<name>, are deleted, others only detached), then the load
// balancer with everything under it in one cascade call, then waits until Octavia answers 404.
// A load balancer already gone is fine (a newer one that carries its name is never touched);
// floating IPs left over for it are removed too.
func (s *Service) Delete(ctx context.Context, id, name string) error {
	var (
		lb  *loadbalancers.LoadBalancer
		err error
	)

	s.wroteAll("")

	if id != "" {
		lb, err = s.get(ctx, id)
	} else {
		lb, err = s.refind(ctx, "", name)
	}

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

	for attempt := 1; ; attempt++ {
		switch lb.ProvisioningStatus {
		case StatusPendingDelete:
			return s.waitGone(ctx, lb.ID, "deleting "+lb.Name)
		case StatusPendingCreate, StatusPendingUpdate:
			if lb, err = s.waitSettled(ctx, lb.ID, "waiting to delete "+lb.Name); err != nil {
				return err
			}

			continue
		}

		err := loadbalancers.Delete(ctx, s.Octavia, lb.ID, loadbalancers.DeleteOpts{Cascade: true}).ExtractErr()

		switch {
		case err == nil:
			return s.waitGone(ctx, lb.ID, "deleting "+lb.Name)
		case isNotFound(err):
			return nil
		case !unsure(err):
			return fmt.Errorf("deleting load balancer %s (%s): %w", lb.Name, lb.ID, err)
		}

		// Octavia may have taken the delete before its answer was lost (the transport's retry
		// then meets the PENDING_DELETE lock: 409): look before trying again.
		now, gerr := s.get(ctx, lb.ID)

		switch {
		case gerr != nil:
			return errors.Join(fmt.Errorf("deleting load balancer %s (%s): %w", lb.Name, lb.ID, err), gerr)
		case now == nil:
			return nil
		case now.ProvisioningStatus != StatusPendingDelete && attempt >= stepAttempts:
			if isConflict(err) {
				return &ConflictError{What: "deleting load balancer " + lb.Name, Err: err}
			}

			return fmt.Errorf("deleting load balancer %s (%s, %d attempts): %w", lb.Name, lb.ID, attempt, err)
		}

		lb = now
	}
}

func ignoreNotFound(err error) error {
	if isNotFound(err) {
		return nil
	}

	return err
}
