package loadbalancer

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/loadbalancer/v2/loadbalancers"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// This file holds the load balancer's part of the ownership rule (naming.Mark, cloud.Adopt):
//
//   - the load balancer, its listeners, pools and health monitors are posted with the creation
//     mark as Octavia tags (API 2.5 and later), so each carries it from its first moment;
//   - the completion mark is added to the load balancer's tags as the last step of a create,
//     once every listener, pool, member batch, monitor and the floating IP exist (complete);
//   - a create that meets lb-<name> adopts it only when it carries the creation mark of a
//     unikorn_loadbalancer and no completion mark (an interrupted create), and refuses anything
//     else before any write; the listeners, pools and monitors it finds inside an adopted load
//     balancer must carry the creation mark too (checkParts);
//   - an update of the recorded load balancer never adds a mark (an imported one stays
//     unmarked, and so do its children: they are not checked).
//
// The floating IP on the VIP is keyed by its description (lb-<name>), which only this
// provider writes: it serves as its creation mark.

// Type is the resource type of the load balancer's marks.
const Type = "unikorn_loadbalancer"

// created is the creation mark of every Octavia object this provider makes for a load balancer.
var created = naming.MadeFor(Type)

// markOf reads the marks of lb.
func markOf(lb loadbalancers.LoadBalancer) naming.Mark { return naming.MarkOfTags(lb.Tags) }

// where says where the service's objects are, for messages.
func (s *Service) where() string {
	return fmt.Sprintf("in project %s, region %s", orNone(s.ProjectID), orNone(s.Region))
}

// existing describes lb, which a create met, for cloud.Adopt.
func (s *Service) existing(lb loadbalancers.LoadBalancer) cloud.Existing {
	importID := lb.ID
	if s.Region != "" {
		importID = s.Region + "/" + lb.ID
	}

	return cloud.Existing{
		Type: Type, Kind: "load balancer", Name: lb.Name, ID: lb.ID, Where: s.where(), ImportID: importID, Mark: markOf(lb),
	}
}

// adopt is the ownership rule of a create that met lb: nil when it is an interrupted create of a
// load balancer (it is adopted), else the *cloud.ExistsError that refuses it.
func (s *Service) adopt(lb loadbalancers.LoadBalancer) error { return cloud.Adopt(s.existing(lb)) }

// part is the ownership rule of a child (kind "listener", "pool", "health monitor") of the load
// balancer of user-given name that a create meets inside a load balancer it adopts, or after a
// lost answer: nil when it carries the creation mark of a load balancer (m), else the
// *cloud.ExistsError that refuses it as a part of the resource.
func (s *Service) part(name, kind, childName, id string, m naming.Mark) error {
	return cloud.Adopt(cloud.Existing{Type: Type, Kind: kind, Name: childName, ID: id, Where: s.where(), Part: Type + " " + name, Mark: m})
}

// checkParts refuses a load balancer adopted by a create whose listeners, pools or health
// monitors named after the contract were not made by this provider for a load balancer (an
// unmarked child, someone else's): nil when every one carries the creation mark. Listeners
// with other names are not the resource's (Topology.Foreign) and are left alone.
func (s *Service) checkParts(name string, t *Topology) error {
	for _, o := range t.Listeners {
		monitorName := cmp.Or(o.MonitorName, naming.Monitor(name, o.Name))

		for _, c := range []struct {
			kind, name, id string
			mark           naming.Mark
		}{
			{"listener", naming.Listener(name, o.Name), o.ListenerID, o.ListenerMark},
			{"pool", naming.Pool(name, o.Name), o.PoolID, o.PoolMark},
			{"health monitor", monitorName, o.MonitorID, o.MonitorMark},
		} {
			if c.id == "" {
				continue
			}

			if err := s.part(name, c.kind, c.name, c.id, c.mark); err != nil {
				return err
			}
		}
	}

	return nil
}

// complete writes the completion mark on the load balancer of t, made or adopted by this
// create, as the create's last step, and returns as soon as Octavia has taken it (change.final):
// it does not wait for the PENDING_UPDATE of the tag change to end, since a kill in that wait
// would leave a finished load balancer without a state (chaos kill, issue 28's CI run). t then
// holds the new tags and no updated_at, so that no memo vouches for children that Octavia's
// tag change dates anew: the next read lists them once. t keeps the provisioning status it
// had (ACTIVE: every child is settled; the tag change alters nothing Octavia serves). When the
// answer was lost the stepper waits and looks as for any change, and t follows what it saw.
// Nothing is written when t does not carry the creation mark of a load balancer, or carries
// the completion mark already.
func (s *Service) complete(ctx context.Context, t *Topology) error {
	if have := naming.MarkOfTags(t.Tags); have.Kind != Type || have.Completed {
		return nil
	}

	tags := slices.Clone(t.Tags)
	for _, tag := range created.Done().Tags() {
		if !slices.Contains(tags, tag) {
			tags = append(tags, tag)
		}
	}

	opts := loadbalancers.UpdateOpts{Tags: &tags}
	st := &stepper{s: s, id: t.ID, ready: t.ProvisioningStatus == StatusActive}

	err := st.do(ctx, change{
		what: "marking load balancer " + t.Name + " as finished",
		mutate: func(ctx context.Context) error {
			return loadbalancers.Update(ctx, s.Octavia, t.ID, opts).Err
		},
		landed: func(ctx context.Context) (bool, error) {
			lb, err := s.get(ctx, t.ID)
			if err != nil || lb == nil {
				return false, err
			}

			return markOf(*lb).Completed, nil
		},
		final: true,
	})
	if err != nil {
		return err
	}

	if lb := st.last; lb != nil {
		t.Tags, t.UpdatedAt, t.ProvisioningStatus = lb.Tags, lb.UpdatedAt, lb.ProvisioningStatus
		t.ListenerIDs, t.PoolIDs = childIDs(lb)
	} else {
		t.Tags, t.UpdatedAt = tags, time.Time{}
	}

	tflog.Debug(ctx, "Marked the load balancer as finished", map[string]any{"loadbalancer_id": t.ID})

	return nil
}

// refind finds the load balancer by id, then (when id is empty or gone) by name, as Read and
// Delete do: one found by name is taken only when it is an interrupted create of a load balancer
// (cloud.Owns); a finished one (another configuration's) or one made by someone else is not this
// resource's, and is treated as no load balancer at all.
func (s *Service) refind(ctx context.Context, id, name string) (*loadbalancers.LoadBalancer, error) {
	lb, err := s.locate(ctx, id, name)
	if err != nil || lb == nil || (id != "" && lb.ID == id) {
		return lb, err
	}

	if m := markOf(*lb); !cloud.Owns(Type, m) {
		tflog.Debug(ctx, "A load balancer of the name is not this resource's", map[string]any{
			"loadbalancer_id": lb.ID, "recorded_id": id, "marks": m.String(),
		})

		return nil, nil
	}

	return lb, nil
}
