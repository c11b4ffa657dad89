package network

import (
	"context"
	"fmt"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// The ownership rule of this package's resources (DESIGN.md §5, "adopt only your own unfinished
// create"; the marks in naming.Mark, their Neutron form in marks.go):
//
//   - every Neutron object a unikorn_network makes (network, subnet, router) is posted with the
//     creation mark of unikorn_network as its description, tagged with it, and only then given
//     its own description; so is the group of a unikorn_security_group;
//   - the primary object (the Neutron network; the security group) is tagged with the completion
//     mark as the last step of a create, once every part exists (a group's rules included);
//   - a create that finds an object of its name takes it only when it is an unfinished create of
//     the same type (cloud.Adopt); anything else is refused with a *cloud.ExistsError before any
//     write, and so is a part (subnet, router) found by name that lacks the type's creation mark;
//   - Read takes an object found again by name (its recorded ID gone) only under the same rule:
//     anything else is treated as gone.
//
// Objects made before the marks existed, and imported ones, carry none: they are read, updated
// and deleted by their recorded IDs as before, and never marked.

// The resource types whose creation marks this package writes.
const (
	TypeNetwork       = "unikorn_network"
	TypeSecurityGroup = "unikorn_security_group"
)

// userDescription is the description a user sees of a Neutron object: "" while the object still
// carries its creation mark there (a create interrupted before it was tagged).
func userDescription(description string) string {
	if naming.MarkOfNeutron(nil, description).Marked() {
		return ""
	}

	return description
}

// describeTo is the description to write on a Neutron object whose description is have, for
// the wanted description want (nil: not managed): want when it differs from have; when none is
// wanted, "" in place of a creation mark left there by an interrupted create (the object is
// tagged by then: markPosted), and nothing otherwise, so that an object this configuration does
// not describe keeps its description. nil: nothing to write.
func describeTo(have string, want *string) *string {
	switch {
	case want != nil && *want != have:
		return want
	case want == nil && have != "" && userDescription(have) == "":
		none := ""
		return &none
	}

	return nil
}

// descriptionOf is the description a create writes for the wanted description want: "" when
// none is wanted.
func descriptionOf(want *string) string {
	if want == nil {
		return ""
	}

	return *want
}

// owning is l with the ownership rule of a create of resource type typ (cloud.Adopt) for the
// objects it finds by name. part names the resource an object is a part of (`unikorn_network
// "web"`, networkPart): "" for the resource's primary object, which the refusal then says how to import.
func (l lookup[T]) owning(t *cloud.Tenant, typ, part string) lookup[T] {
	l.adopt = func(obj T) error {
		ex := cloud.Existing{
			Type: typ, Kind: l.kind, Name: l.name(obj), ID: l.id(obj), Where: "in " + t.String(), Part: part,
			Mark: l.mark(obj),
		}
		if part == "" {
			ex.ImportID = t.Region() + "/" + ex.ID
		}

		return cloud.Adopt(ex)
	}

	return l
}

// networkPart names, in refusals, the unikorn_network of user-given name that a subnet or
// router would be a part of.
func networkPart(name string) string { return fmt.Sprintf("%s %q", TypeNetwork, name) }

// markPosted tags obj (of Neutron collection resourceType, written through sc) with the
// creation mark it carries only as its description (posted, not yet tagged: a create whose
// answer was lost, or that was interrupted there), so that its own description can be written.
// An object already tagged, or carrying no mark, is left as it is.
func (l lookup[T]) markPosted(ctx context.Context, sc *gophercloud.ServiceClient, resourceType string, obj T) error {
	tags, m := l.tags(obj), l.mark(obj)
	if !m.Marked() || naming.MarkOfTags(tags).Marked() {
		return nil
	}

	tflog.Debug(ctx, "Tagging an object that carries its creation mark as its description", map[string]any{
		"kind": l.kind, "id": l.id(obj), "mark": m.Kind,
	})

	l.wrote(l.id(obj))

	return Tag(ctx, sc, resourceType, l.id(obj), m)
}

// createMarked makes the object called name for a resource of type typ through post (one POST,
// through create: a lost answer recovers only an object this create may own), posted with the
// creation mark as its description, then tags it with the mark (resourceType is its Neutron
// collection, sc the client it is written through) and gives it its own description (describe).
// A failure after the post returns the object with the error, so that the caller records it.
func (l lookup[T]) createMarked(ctx context.Context, sc *gophercloud.ServiceClient, resourceType, typ, name string,
	post func(ctx context.Context, description string) (T, error), describe func(ctx context.Context, obj T) (T, error),
) (T, error) {
	mark := naming.MadeFor(typ)

	made, err := l.create(ctx, name, func(ctx context.Context) (T, error) { return post(ctx, mark.Description()) })
	if err != nil {
		return made, err
	}

	l.wrote(l.id(made))

	if err := Tag(ctx, sc, resourceType, l.id(made), mark); err != nil {
		return made, err
	}

	described, err := describe(ctx, made)
	if err != nil {
		return made, fmt.Errorf("writing the description of %s %s (%s): %w", l.kind, name, l.id(made), err)
	}

	return described, nil
}

// complete writes the completion mark on the object id, the primary object of a create of type
// typ whose marks were m: the create's last step. Nothing is written when m is not an unfinished
// create of typ (an object made before the marks, an imported one, or one complete already).
func (l lookup[T]) complete(ctx context.Context, sc *gophercloud.ServiceClient, resourceType, typ, id string, m naming.Mark) error {
	if !cloud.Owns(typ, m) {
		return nil
	}

	l.wrote(id)

	return Complete(ctx, sc, resourceType, id, typ, m)
}
