// Package naming is the linkage contract between Terraform resources and the
// OpenStack objects they own (DESIGN.md §5).
//
// OpenStack is the source of truth: every cloud object is found again by a
// deterministic name built from the user-given `name` of its resource, so
// the names, metadata keys and tags below are frozen. Changing any of them
// orphans every object already created under the old spelling.
//
//	cloud object                                       name
//	-------------------------------------------------  -------------------------------------
//	Keystone project, user, application credential,    unikorn-identity-<name>
//	  Nova server group
//	Nova keypair (one per identity project)            unikorn-openstack-provider
//	Neutron network, subnet, router                    network-<name>
//	Neutron security group                             securitygroup-<name>
//	Neutron server port                                server-<name>
//	Nova server (display name)                         <name>
//	Glance snapshot image of a server (identity's      <name>
//	  project)
//	Cinder volume                                      volume-<name>
//	Octavia load balancer                              lb-<name>
//	Octavia listener                                   lb-<name>-<listener>-listener
//	Octavia pool                                       lb-<name>-<listener>-pool
//	Octavia health monitor                             lb-<name>-<listener>-monitor
//	Keystone group of a unikorn_project                <name>-members (unless group_name is set)
//	Keystone mapping of a unikorn_federation           <idp_id>-mapping
//
// Every server carries the system metadata of [SystemMetadata] (legacy and
// namespaced keys, see the Metadata* constants) plus the user's tags
// translated by [MetadataKeyForTag], Unikorn's own rule; system keys win
// collisions ([MergeMetadata]). Identity projects carry the Keystone tags
// "organization=<id>" and "project=<id>" ([ProjectTags]); the projects of
// unikorn_project carry the tag [HumanProjectTag].
//
// Nova, Neutron and Octavia name filters are fuzzy, so every lookup by one
// of these names must be post-filtered with [Exact] or [One].
package naming

import (
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Name prefixes and suffixes of the linkage contract.
const (
	// IdentityPrefix prefixes the Keystone project, user and application
	// credential and the Nova server group of an identity.
	IdentityPrefix = "unikorn-identity-"
	// NetworkPrefix prefixes the Neutron network, subnet and router.
	NetworkPrefix = "network-"
	// SecurityGroupPrefix prefixes a Neutron security group.
	SecurityGroupPrefix = "securitygroup-"
	// ServerPortPrefix prefixes the Neutron port of a server.
	ServerPortPrefix = "server-"
	// VolumePrefix prefixes a Cinder volume. Unikorn's region service makes no volumes yet
	// (uni-region: Volume is a storage model without provider code), so the name is this
	// provider's, in the shape of the others.
	VolumePrefix = "volume-"
	// LoadBalancerPrefix prefixes an Octavia load balancer and its children.
	LoadBalancerPrefix = "lb-"
	// ListenerSuffix ends an Octavia listener name.
	ListenerSuffix = "-listener"
	// PoolSuffix ends an Octavia pool name.
	PoolSuffix = "-pool"
	// MonitorSuffix ends an Octavia health monitor name.
	MonitorSuffix = "-monitor"

	// KeypairName is the name of the Nova keypair made from the public key
	// supplied to an identity. Keypairs belong to the identity's user, so
	// one fixed name per user is unique.
	KeypairName = "unikorn-openstack-provider"

	// KeystoneCreatedAt is the extra attribute in which the provider records, in RFC 3339
	// UTC, when it created a Keystone project or user (Keystone records no creation time),
	// so that an adoption or a re-find can say how old the object is.
	KeystoneCreatedAt = "unikorn_created_at"

	// NextCredentialSuffix ends the name of an identity's application credential while it
	// replaces the current one: Keystone keeps credential names unique per user, and the
	// new credential is issued before the old one is deleted, so the two alternate.
	NextCredentialSuffix = "-next"
	// EphemeralCredentialInfix joins an identity's credential name and the random suffix of a
	// short-lived credential (unikorn_identity_credential), which is never the identity's own.
	EphemeralCredentialInfix = "-ephemeral-"

	// HumanProjectTag is the Keystone tag of every project made by unikorn_project: the
	// mark that lets unikorn_network and unikorn_security_group act in it (project_id),
	// never in a project this provider did not make.
	HumanProjectTag = "unikorn:human-project"
	// ProjectGroupSuffix ends the name of the user group made with a project.
	ProjectGroupSuffix = "-members"
	// FederationMappingSuffix ends the ID of the Keystone mapping of a federation.
	FederationMappingSuffix = "-mapping"
)

// IdentityProject is the Keystone project name of identity name.
func IdentityProject(name string) string { return IdentityPrefix + name }

// IdentityUser is the Keystone user name of identity name.
func IdentityUser(name string) string { return IdentityPrefix + name }

// IdentityApplicationCredential is the application credential name of
// identity name.
func IdentityApplicationCredential(name string) string { return IdentityPrefix + name }

// IdentityEphemeralCredential is the name of a short-lived application credential of
// identity name, told apart from the others by suffix.
func IdentityEphemeralCredential(name, suffix string) string {
	return IdentityApplicationCredential(name) + EphemeralCredentialInfix + suffix
}

// IdentityServerGroup is the Nova server group name of identity name.
func IdentityServerGroup(name string) string { return IdentityPrefix + name }

// ProjectGroup is the default name of the Keystone group of project name.
func ProjectGroup(name string) string { return name + ProjectGroupSuffix }

// FederationMapping is the Keystone mapping ID of the federation of identity provider idpID.
func FederationMapping(idpID string) string { return idpID + FederationMappingSuffix }

// Network is the Neutron network name of network name.
func Network(name string) string { return NetworkPrefix + name }

// Subnet is the Neutron subnet name of network name.
func Subnet(name string) string { return NetworkPrefix + name }

// Router is the Neutron router name of network name.
func Router(name string) string { return NetworkPrefix + name }

// SecurityGroup is the Neutron security group name of security group name.
func SecurityGroup(name string) string { return SecurityGroupPrefix + name }

// ServerPort is the Neutron port name of server name.
func ServerPort(name string) string { return ServerPortPrefix + name }

// Server is the Nova display name of server name: the name itself.
func Server(name string) string { return name }

// SnapshotImage is the Glance name of the snapshot image name of a server: the name itself,
// unique in the identity's project (the image data sources find it by it).
func SnapshotImage(name string) string { return name }

// Volume is the Cinder name of volume name.
func Volume(name string) string { return VolumePrefix + name }

// LoadBalancer is the Octavia load balancer name of load balancer name.
func LoadBalancer(name string) string { return LoadBalancerPrefix + name }

// Listener is the Octavia listener name of listener in load balancer name.
func Listener(name, listener string) string {
	return LoadBalancerPrefix + name + "-" + listener + ListenerSuffix
}

// Pool is the Octavia pool name of listener in load balancer name.
func Pool(name, listener string) string {
	return LoadBalancerPrefix + name + "-" + listener + PoolSuffix
}

// Monitor is the Octavia health monitor name of listener in load balancer
// name.
func Monitor(name, listener string) string {
	return LoadBalancerPrefix + name + "-" + listener + MonitorSuffix
}

// ChildKind says which kind of load balancer child a name denotes.
type ChildKind string

// Kinds of load balancer children.
const (
	ChildListener ChildKind = "listener"
	ChildPool     ChildKind = "pool"
	ChildMonitor  ChildKind = "monitor"
)

// childSuffixes maps each child suffix to its kind.
var childSuffixes = []struct {
	suffix string
	kind   ChildKind
}{
	{ListenerSuffix, ChildListener},
	{PoolSuffix, ChildPool},
	{MonitorSuffix, ChildMonitor},
}

// LoadBalancerChild tells whether child is the name of a listener, pool or
// monitor of load balancer name (the user-given name, not "lb-<name>"), and
// if so which listener it implies and which kind of child it is. It is the
// inverse of [Listener], [Pool] and [Monitor]:
//
//	LoadBalancerChild("web", "lb-web-https-listener") = "https", ChildListener, true
//	LoadBalancerChild("web", "lb-web-https-pool")     = "https", ChildPool, true
//	LoadBalancerChild("web", "lb-web-a-pool-monitor") = "a-pool", ChildMonitor, true
//	LoadBalancerChild("web", "lb-webx-https-pool")    = "", "", false
//	LoadBalancerChild("web", "lb-web--pool")          = "", "", false (empty listener)
//
// Names alone cannot tell load balancers "a" and "a-b" apart:
// "lb-a-b-x-pool" is listener "b-x" of "a" as well as listener "x" of "a-b".
// Pruning must therefore first scope children to the load balancer by ID
// (Octavia's loadbalancer_id) and use this function only to decide which of
// those are implied by the configuration. The match is exact and
// case-sensitive.
func LoadBalancerChild(name, child string) (listener string, kind ChildKind, ok bool) {
	prefix := LoadBalancerPrefix + name + "-"
	rest, found := strings.CutPrefix(child, prefix)
	if !found {
		return "", "", false
	}

	for _, s := range childSuffixes {
		if l, found := strings.CutSuffix(rest, s.suffix); found && l != "" {
			return l, s.kind, true
		}
	}

	return "", "", false
}

// Server metadata keys written on every server. The legacy keys are frozen
// for the Unikorn services that already read them; the namespaced keys
// follow the "service:local_name" form of translated user tags.
const (
	MetadataLegacyServerID       = "serverID"
	MetadataLegacyOrganizationID = "organizationID"
	MetadataLegacyProjectID      = "projectID"
	MetadataLegacyRegionID       = "regionID"

	MetadataServerID       = "region:server_id"
	MetadataOrganizationID = "identity:organization_id"
	MetadataProjectID      = "identity:project_id"
	MetadataRegionID       = "region:region_id"
)

// systemMetadataKeys lists every key [SystemMetadata] may write.
var systemMetadataKeys = []string{
	MetadataLegacyServerID, MetadataLegacyOrganizationID, MetadataLegacyProjectID, MetadataLegacyRegionID,
	MetadataServerID, MetadataOrganizationID, MetadataProjectID, MetadataRegionID,
}

// SystemIDs are the values of the system metadata of a server.
type SystemIDs struct {
	ServerID       string
	OrganizationID string
	ProjectID      string
	RegionID       string
}

// SystemMetadata returns the system metadata of a server: each non-empty ID
// under both its legacy and its namespaced key. Empty IDs are left out.
func SystemMetadata(ids SystemIDs) map[string]string {
	md := make(map[string]string, len(systemMetadataKeys))

	set := func(legacy, namespaced, value string) {
		if value != "" {
			md[legacy] = value
			md[namespaced] = value
		}
	}

	set(MetadataLegacyServerID, MetadataServerID, ids.ServerID)
	set(MetadataLegacyOrganizationID, MetadataOrganizationID, ids.OrganizationID)
	set(MetadataLegacyProjectID, MetadataProjectID, ids.ProjectID)
	set(MetadataLegacyRegionID, MetadataRegionID, ids.RegionID)

	return md
}

// IsSystemMetadataKey tells whether key is one of the system metadata keys,
// legacy or namespaced. Use it to separate user metadata from system
// metadata when reading a server back.
func IsSystemMetadataKey(key string) bool {
	return slices.Contains(systemMetadataKeys, key)
}

// TagForm is the form a user tag key must have, with an example.
const TagForm = `service.domain/local-name (for example "monitoring.example.com/team-name")`

// tagKey is the rule by which Unikorn's region service turns a server's tag name into a
// metadata key (uni-region, pkg/providers/internal/openstack/provider.go: tagKeyRegex and
// metadataKey, v1.16.0 and later): a service of lower-case letters, digits and "-" that begins
// with a letter or digit, a dot, anything but "/" (the rest of the domain), one "/", and a local
// name of lower-case letters, digits and "-" that begins with a letter or digit.
var tagKey = regexp.MustCompile(`^([a-z0-9][a-z0-9-]*)\.[^/]+/([a-z0-9][a-z0-9-]*)$`)

// Limits of Nova server metadata.
const (
	metadataKeyMax   = 255
	metadataValueMax = 255
)

// TagError says why a user tag key is not of the form [TagForm].
type TagError struct {
	Key    string
	Reason string
}

func (e *TagError) Error() string {
	return fmt.Sprintf("invalid tag key %q: %s; expected the form %s", e.Key, e.Reason, TagForm)
}

// MetadataKeyForTag translates a user tag key into a server metadata key exactly as Unikorn's
// region service does (see tagKey):
//
//	^([a-z0-9][a-z0-9-]*)\.[^/]+/([a-z0-9][a-z0-9-]*)$
//
// The metadata key is group 1 (the service: everything before the first dot, "-" kept), ":",
// and group 2 (the local name) with every "-" replaced by "_". The rest of the domain is
// dropped, and may hold anything but "/" (upper case included).
//
//	"compute.unikorn-cloud.org/cluster-id"  → "compute:cluster_id"
//	"my-svc.example.com/node-pool-name"     → "my-svc:node_pool_name"
//	"monitoring.Example.COM/team-name"      → "monitoring:team_name"
//	"region.unikorn-cloud.org/server-id"    → "region:server_id" (a system key: its value wins)
//
// Unikorn silently drops a tag that does not match; this provider refuses it instead, with a
// *[TagError] saying why: "env" (no "/"), "foo/bar" (no dot before the "/"), "a.b/c/d" (two
// slashes), "Foo.example.com/x" (upper case in the service), "a.b/Team" or "a.b/x_y" (the
// local name holds only lower-case letters, digits and "-"), "a.b/-x" (it begins with "-"). A
// metadata key longer than Nova's 255 characters is refused too (Nova would refuse the server).
func MetadataKeyForTag(key string) (string, error) {
	if m := tagKey.FindStringSubmatch(key); m != nil {
		mdKey := m[1] + ":" + strings.ReplaceAll(m[2], "-", "_")
		if n := utf8.RuneCountInString(mdKey); n > metadataKeyMax {
			return "", &TagError{Key: key, Reason: fmt.Sprintf("metadata key of %d characters, Nova allows at most %d", n, metadataKeyMax)}
		}

		return mdKey, nil
	}

	return "", &TagError{Key: key, Reason: tagMismatch(key)}
}

// tagMismatch says why key does not match tagKey.
func tagMismatch(key string) string {
	domain, local, found := strings.Cut(key, "/")
	service, rest, dotted := strings.Cut(domain, ".")

	switch {
	case !found:
		return `no "/" between domain and local name`
	case strings.Contains(local, "/"):
		return `more than one "/"`
	case !dotted:
		return fmt.Sprintf("domain %q has no dot", domain)
	case rest == "":
		return fmt.Sprintf("domain %q has nothing after its first dot", domain)
	case !isTagWord(service):
		return fmt.Sprintf("service %q (the domain up to its first dot) must be lower-case letters, digits and \"-\", "+
			"beginning with a letter or digit", service)
	default:
		return fmt.Sprintf("local name %q must be lower-case letters, digits and \"-\", beginning with a letter or digit", local)
	}
}

// isTagWord tells whether s is [a-z0-9][a-z0-9-]*, a service or local name of tagKey.
func isTagWord(s string) bool {
	for i, r := range s {
		lower, digit, hyphen := r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-' && i > 0
		if !lower && !digit && !hyphen {
			return false
		}
	}

	return s != ""
}

// TagsToMetadata translates user tags into server metadata with
// [MetadataKeyForTag]. It reports, joined into one error, every invalid
// key, every value longer than Nova's 255 characters and every pair of tags
// that translate to the same metadata key ("a.example.com/x-y" and
// "a.example.org/x_y" both become "a:x_y").
func TagsToMetadata(tags map[string]string) (map[string]string, error) {
	md := make(map[string]string, len(tags))
	from := make(map[string]string, len(tags))

	var errs []error

	for _, key := range slices.Sorted(maps.Keys(tags)) {
		mdKey, err := MetadataKeyForTag(key)
		if err != nil {
			errs = append(errs, err)

			continue
		}

		value := tags[key]
		if n := utf8.RuneCountInString(value); n > metadataValueMax {
			errs = append(errs, fmt.Errorf("tag %q: value of %d characters, Nova allows at most %d", key, n, metadataValueMax))

			continue
		}

		if other, dup := from[mdKey]; dup {
			errs = append(errs, fmt.Errorf("tags %q and %q both translate to server metadata key %q", other, key, mdKey))

			continue
		}

		from[mdKey] = key
		md[mdKey] = value
	}

	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}

	return md, nil
}

// MergeMetadata merges user metadata (translated tags) with system
// metadata into a new map. System keys win collisions; shadowed lists, in
// order, the user keys that a system key overrode, so that callers can warn.
func MergeMetadata(user, system map[string]string) (merged map[string]string, shadowed []string) {
	merged = make(map[string]string, len(user)+len(system))
	maps.Copy(merged, user)

	for _, key := range slices.Sorted(maps.Keys(system)) {
		if _, ok := user[key]; ok {
			shadowed = append(shadowed, key)
		}

		merged[key] = system[key]
	}

	return merged, shadowed
}

// Keystone project tag keys: tags are "<key>=<id>".
const (
	ProjectTagOrganization = "organization"
	ProjectTagProject      = "project"
)

// keystoneTagMax is Keystone's limit on the length of a tag.
const keystoneTagMax = 255

// OrganizationTag is the Keystone project tag "organization=<id>".
func OrganizationTag(id string) string { return ProjectTagOrganization + "=" + id }

// ProjectTag is the Keystone project tag "project=<id>".
func ProjectTag(id string) string { return ProjectTagProject + "=" + id }

// ProjectTags returns the Keystone tags of an identity project:
// "organization=<id>" and "project=<id>", each only when its ID is given.
// Keystone tags may not hold "/" or "," and are at most 255 characters;
// IDs that break those rules are an error.
func ProjectTags(organizationID, projectID string) ([]string, error) {
	var tags []string

	for _, kv := range []struct{ key, id string }{
		{ProjectTagOrganization, organizationID},
		{ProjectTagProject, projectID},
	} {
		if kv.id == "" {
			continue
		}

		tag := kv.key + "=" + kv.id

		switch {
		case strings.ContainsAny(kv.id, "/,"):
			return nil, fmt.Errorf("%s ID %q: Keystone tags may not contain \"/\" or \",\"", kv.key, kv.id)
		case utf8.RuneCountInString(tag) > keystoneTagMax:
			return nil, fmt.Errorf("%s ID %q: Keystone tag %q is longer than %d characters", kv.key, kv.id, tag, keystoneTagMax)
		}

		tags = append(tags, tag)
	}

	return tags, nil
}

// ParseProjectTags reads the organization and project IDs back from a
// Keystone project's tags, ignoring every other tag. An ID that is absent
// is "". A tag with an empty ID, or two tags that give the same key
// different IDs, is an error.
func ParseProjectTags(tags []string) (organizationID, projectID string, err error) {
	ids := map[string]*string{
		ProjectTagOrganization: &organizationID,
		ProjectTagProject:      &projectID,
	}

	for _, tag := range tags {
		key, id, found := strings.Cut(tag, "=")
		if !found {
			continue
		}

		dst, ok := ids[key]
		if !ok {
			continue
		}

		switch {
		case id == "":
			return "", "", fmt.Errorf("project tag %q has an empty ID", tag)
		case *dst != "" && *dst != id:
			return "", "", fmt.Errorf("project tags disagree: %q and %q", key+"="+*dst, tag)
		}

		*dst = id
	}

	return organizationID, projectID, nil
}

// Kinds of user-given names, for [ValidateName] and [MaxNameLength].
const (
	KindIdentity      = "identity"
	KindNetwork       = "network"
	KindSecurityGroup = "security group"
	KindServer        = "server"
	KindLoadBalancer  = "load balancer"
	KindListener      = "listener"
	KindSnapshot      = "snapshot"
	KindVolume        = "volume"
)

// Length limits of names in the services, in characters.
const (
	keystoneNameMax  = 64  // Keystone project names.
	openStackNameMax = 255 // Nova, Neutron, Octavia and Cinder names.
)

// lbChildOverhead is what "lb-<name>-<listener>-listener", the longest
// child name, adds to the two user-given names.
var lbChildOverhead = len(LoadBalancerPrefix) + len("-") + max(len(ListenerSuffix), len(PoolSuffix), len(MonitorSuffix))

// nameLimits maps each kind to the pattern of its longest derived name and
// the longest user-given name that keeps it within its service's limit.
var nameLimits = map[string]struct {
	pattern string
	max     int
}{
	KindIdentity:      {IdentityProject("<name>") + " (Keystone)", keystoneNameMax - len(IdentityPrefix)},
	KindNetwork:       {Network("<name>") + " (Neutron)", openStackNameMax - len(NetworkPrefix)},
	KindSecurityGroup: {SecurityGroup("<name>") + " (Neutron)", openStackNameMax - len(SecurityGroupPrefix)},
	KindServer:        {ServerPort("<name>") + " (Neutron)", openStackNameMax - len(ServerPortPrefix)},
	// A load balancer or listener name must leave room for a one-character
	// partner in "lb-<name>-<listener>-listener"; ValidateListenerName
	// checks the actual pair.
	KindLoadBalancer: {Listener("<name>", "<listener>") + " (Octavia)", openStackNameMax - lbChildOverhead - 1},
	KindListener:     {Listener("<name>", "<listener>") + " (Octavia)", openStackNameMax - lbChildOverhead - 1},
	KindSnapshot:     {SnapshotImage("<name>") + " (Glance)", openStackNameMax},
	KindVolume:       {Volume("<name>") + " (Cinder)", openStackNameMax - len(VolumePrefix)},
}

// limitFor returns the limit of the service behind a kind.
func limitFor(kind string) int {
	if kind == KindIdentity {
		return keystoneNameMax
	}

	return openStackNameMax
}

// NameError says why a user-given name cannot be used.
type NameError struct {
	Kind   string
	Name   string
	Reason string
}

func (e *NameError) Error() string {
	return fmt.Sprintf("invalid %s name %q: %s", e.Kind, e.Name, e.Reason)
}

// MaxNameLength is the longest user-given name of kind, in characters, that
// keeps every name derived from it within its service's limit: 47 for an
// identity (Keystone allows 64 for "unikorn-identity-<name>"), 247 for a
// network, 241 for a security group, 248 for a server, 241 for a load
// balancer or listener (see [ValidateListenerName] for the pair), 248 for a
// volume. It is 0
// for an unknown kind.
func MaxNameLength(kind string) int {
	return nameLimits[kind].max
}

// ValidateName checks a user-given name of kind (one of the Kind*
// constants) before it is used to build cloud names. It is deliberately
// permissive, as the services are: any printable text is accepted except
//   - the empty name,
//   - white space at the beginning or end (Terraform would show "a" and
//     "a " as different names that humans read as one),
//   - invalid UTF-8 and control characters (newlines, tabs, ...),
//   - names longer than [MaxNameLength], which would overflow the service's
//     limit once the prefix is added.
//
// Errors are *[NameError].
func ValidateName(kind, name string) error {
	limit, ok := nameLimits[kind]
	if !ok {
		return fmt.Errorf("naming: unknown kind %q", kind)
	}

	fail := func(format string, args ...any) error {
		return &NameError{Kind: kind, Name: name, Reason: fmt.Sprintf(format, args...)}
	}

	if name == "" {
		return fail("must not be empty")
	}

	if !utf8.ValidString(name) {
		return fail("must be valid UTF-8")
	}

	first, _ := utf8.DecodeRuneInString(name)
	last, _ := utf8.DecodeLastRuneInString(name)

	if unicode.IsSpace(first) || unicode.IsSpace(last) {
		return fail("must not begin or end with white space")
	}

	if i := strings.IndexFunc(name, unicode.IsControl); i >= 0 {
		r, _ := utf8.DecodeRuneInString(name[i:])

		return fail("must not contain control characters (found %U at byte %d)", r, i)
	}

	if n := utf8.RuneCountInString(name); n > limit.max {
		return fail("%d characters, at most %d allowed: %s names are limited to %d characters",
			n, limit.max, limit.pattern, limitFor(kind))
	}

	return nil
}

// ValidateListenerName checks listener as a listener of load balancer name:
// [ValidateName] for each, and their combined length, since
// "lb-<name>-<listener>-listener" must fit Octavia's 255 characters.
func ValidateListenerName(name, listener string) error {
	if err := ValidateName(KindLoadBalancer, name); err != nil {
		return err
	}

	if err := ValidateName(KindListener, listener); err != nil {
		return err
	}

	for _, child := range []string{Listener(name, listener), Pool(name, listener), Monitor(name, listener)} {
		if n := utf8.RuneCountInString(child); n > openStackNameMax {
			return &NameError{
				Kind: KindListener,
				Name: listener,
				Reason: fmt.Sprintf("with load balancer %q the Octavia name %q has %d characters, at most %d allowed",
					name, child, n, openStackNameMax),
			}
		}
	}

	return nil
}
