package naming

import (
	"fmt"
	"strings"
)

// Ownership marks: how a cloud object shows that this provider began it and whether that create
// finished (DESIGN.md §5, "adopt only your own unfinished create").
//
//   - The creation mark is sent in the create request itself, so an object carries it from its
//     first moment: it names the resource type the object was made for ("unikorn_network"). Every
//     object the provider makes for a resource carries it (the network, subnet and router of a
//     unikorn_network; the port, server and floating IP of a unikorn_server; ...).
//   - The completion mark is written on a resource's primary object (the one whose name the
//     resource is found by: an identity's project, a network's Neutron network, a server, a load
//     balancer, ...) as the last step of its create.
//
// A create that meets an object of its name adopts it only when it carries the creation mark of
// the same type and no completion mark: a create of this kind was interrupted there. Anything
// else is refused (cloud.Adopt): no creation mark means Unikorn, a person or another tool made
// it; a completion mark means a configuration holds it.
//
// Octavia and Keystone's domains carry the marks as tags (Keystone 2025.1 refuses a domain
// with extra attributes: the POST makes the domain and answers 400); services with key/value
// properties (Keystone's extra attributes of projects, users, groups and roles, Nova server
// metadata, Glance image properties, Cinder metadata) as two keys (in Keystone's spelling:
// Keystone turns "-" and ":" of an extra attribute's name into "_").
// Neutron takes tags only after a create (the tag-creation extension is missing from Zed and
// other releases), so a Neutron object is posted with the creation mark as its description and
// tagged with it right after; its own description is written once it is tagged:
//
//	form          creation mark                          completion mark
//	tags          "unikorn-terraform:<type>"             "unikorn-terraform:created"
//	properties    "unikorn_terraform_kind" = "<type>"    "unikorn_terraform_created" = "true"
//	description   "unikorn-terraform:<type>" (until the object is tagged)
//
// These strings are part of the linkage contract: changing them makes every object made so far
// look like someone else's.
const (
	// MarkPrefix begins every mark tag and key.
	MarkPrefix = "unikorn-terraform:"
	// MarkCompletedTag is the completion mark as a tag.
	MarkCompletedTag = MarkPrefix + "created"
	// MarkKindKey is the property that holds the creation mark (the resource type).
	MarkKindKey = "unikorn_terraform_kind"
	// MarkCompletedKey is the property of the completion mark; its value is MarkCompletedValue.
	MarkCompletedKey = "unikorn_terraform_created"
	// MarkCompletedValue is the value of MarkCompletedKey.
	MarkCompletedValue = "true"
)

// Mark is what an object's marks say: the resource type it was made for ("" when it carries no
// creation mark: this provider did not make it) and whether that create finished.
type Mark struct {
	Kind      string
	Completed bool
}

// MadeFor is the creation mark of an object made for resource type kind.
func MadeFor(kind string) Mark { return Mark{Kind: kind} }

// Marked tells whether the object carries a creation mark.
func (m Mark) Marked() bool { return m.Kind != "" }

// Done is m with the completion mark.
func (m Mark) Done() Mark { return Mark{Kind: m.Kind, Completed: true} }

// String says what the marks mean, for messages.
func (m Mark) String() string {
	switch {
	case !m.Marked():
		return "not made by this provider"
	case m.Completed:
		return fmt.Sprintf("made by this provider for a %s, finished", m.Kind)
	default:
		return fmt.Sprintf("made by this provider for a %s, unfinished", m.Kind)
	}
}

// Tags are the tags of m (none for an unmarked object).
func (m Mark) Tags() []string {
	if !m.Marked() {
		return nil
	}

	tags := []string{MarkPrefix + m.Kind}
	if m.Completed {
		tags = append(tags, MarkCompletedTag)
	}

	return tags
}

// Properties are the key/value pairs of m (none for an unmarked object).
func (m Mark) Properties() map[string]string {
	if !m.Marked() {
		return nil
	}

	props := map[string]string{MarkKindKey: m.Kind}
	if m.Completed {
		props[MarkCompletedKey] = MarkCompletedValue
	}

	return props
}

// Extra is Properties as Keystone's extra attributes (gophercloud's Extra maps).
func (m Mark) Extra() map[string]any {
	out := map[string]any{}
	for k, v := range m.Properties() {
		out[k] = v
	}

	return out
}

// MarkOfTags reads the marks of an object's tags. A completion mark without a creation mark is
// no mark at all (someone copied a tag).
func MarkOfTags(tags []string) Mark {
	var m Mark

	completed := false

	for _, t := range tags {
		rest, ok := strings.CutPrefix(t, MarkPrefix)

		switch {
		case !ok:
		case t == MarkCompletedTag:
			completed = true
		case rest != "" && m.Kind == "":
			m.Kind = rest
		}
	}

	m.Completed = completed && m.Marked()

	return m
}

// MarkOf reads the marks of an object's key/value properties (Keystone extra attributes, Nova
// metadata, Glance properties: values of any type, only strings count).
func MarkOf[V any](props map[string]V) Mark {
	kind, _ := any(props[MarkKindKey]).(string)
	done, _ := any(props[MarkCompletedKey]).(string)

	return Mark{Kind: kind, Completed: kind != "" && done == MarkCompletedValue}
}

// Description is the creation mark as a Neutron description: what a Neutron object is posted
// with, until it is tagged (none for an unmarked object).
func (m Mark) Description() string {
	if !m.Marked() {
		return ""
	}

	return MarkPrefix + m.Kind
}

// MarkOfNeutron reads the marks of a Neutron object: its tags, else the creation mark it was
// posted with as its description (a create interrupted before the tags were written).
func MarkOfNeutron(tags []string, description string) Mark {
	if m := MarkOfTags(tags); m.Marked() {
		return m
	}

	if kind, ok := strings.CutPrefix(description, MarkPrefix); ok && kind != "" && !strings.ContainsAny(kind, " :") {
		return Mark{Kind: kind}
	}

	return Mark{}
}

// IsMarkTag tells whether tag is an ownership mark (never a user's tag).
func IsMarkTag(tag string) bool { return strings.HasPrefix(tag, MarkPrefix) }

// IsMarkKey tells whether key is the key of an ownership mark (never a user's property).
func IsMarkKey(key string) bool { return key == MarkKindKey || key == MarkCompletedKey }

// RegionsKey is the Keystone extra attribute (of an identity's or a unikorn_project's project)
// that lists every region the provider applied the project in. Part of the linkage contract.
const RegionsKey = "unikorn_terraform_regions"

// Who holds a load balancer pool's members, as Octavia tags on the pool (issue 32). Each
// resource writes only its own tag; neither begins with MarkPrefix, so neither is read as an
// ownership mark (MarkOfTags), and Unikorn writes no Octavia tags at all:
//
//	tag                                                  written by, while
//	"unikorn-terraform-members:external"                 unikorn_loadbalancer, while the pool's listener leaves `members` unset
//	"unikorn-terraform-members:unikorn_loadbalancer_members"  unikorn_loadbalancer_members, while it exists
//
// A pool without the first holds its members inline (a unikorn_loadbalancer's `members`, or
// Unikorn's). Part of the linkage contract, like the marks.
const (
	// MembersTagPrefix begins both tags.
	MembersTagPrefix = "unikorn-terraform-members:"
	// MembersExternalTag says that the load balancer resource leaves the pool's members alone.
	MembersExternalTag = MembersTagPrefix + "external"
	// MembersHeldTag says that a unikorn_loadbalancer_members holds the pool's members.
	MembersHeldTag = MembersTagPrefix + "unikorn_loadbalancer_members"
)
