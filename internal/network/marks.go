package network

import (
	"context"
	"fmt"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/attributestags"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// Neutron's ownership marks (naming.Mark). Neutron takes tags only after a create on most
// releases (no tag-creation extension on Zed), so an object is posted with its creation mark as
// its description (MarkDescription), then tagged with it (Tag), and only then given its own
// description. A create killed between the post and the tag leaves an object whose description
// still says who began it.

// Neutron's resource types for its tag API (the collections' names).
const (
	TagNetworks       = "networks"
	TagSubnets        = "subnets"
	TagRouters        = "routers"
	TagSecurityGroups = "security-groups"
	TagPorts          = "ports"
	TagFloatingIPs    = "floatingips"
)

// Tag adds the tags of m to the Neutron object id of resourceType (one PUT per tag, each
// idempotent; the object's other tags are kept).
func Tag(ctx context.Context, sc *gophercloud.ServiceClient, resourceType, id string, m naming.Mark) error {
	for _, t := range m.Tags() {
		if err := attributestags.Add(ctx, sc, resourceType, id, t).ExtractErr(); err != nil {
			return fmt.Errorf("marking %s %s with the tag %q: %w", resourceType, id, t, err)
		}
	}

	return nil
}

// Complete writes the completion mark on the Neutron object id of resourceType: the last step
// of a create, on an object tagged with its creation mark already (Tag: the completion tag
// alone is no mark), so one PUT. Nothing is written when have (its marks as read) is not an
// unfinished create of kind (an imported object is never marked) or is complete already.
func Complete(ctx context.Context, sc *gophercloud.ServiceClient, resourceType, id, kind string, have naming.Mark) error {
	if have.Kind != kind || have.Completed {
		return nil
	}

	if err := attributestags.Add(ctx, sc, resourceType, id, naming.MarkCompletedTag).ExtractErr(); err != nil {
		return fmt.Errorf("marking %s %s with the tag %q: %w", resourceType, id, naming.MarkCompletedTag, err)
	}

	return nil
}
