package server

import (
	"maps"
	"slices"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// Linkage is what a server's system metadata says about where it belongs (DESIGN.md §5): the
// Unikorn organization and project of its identity (from the Keystone project's tags) and the
// region it runs in.
type Linkage struct {
	OrganizationID string
	ProjectID      string // the Unikorn project of the identity's project=<id> tag
	Region         string
}

// DesiredMetadata is the metadata a server this provider made must carry, exactly: its tags
// translated into metadata keys, and the system metadata of linkage (serverID, Nova's ID of the
// server, too once the server exists), system keys winning collisions. shadowed lists the translated tag keys that a system key overrode.
func DesiredMetadata(serverID string, linkage Linkage, tags map[string]string) (md map[string]string, shadowed []string, err error) {
	user, err := naming.TagsToMetadata(tags)
	if err != nil {
		return nil, nil, err
	}

	system := naming.SystemMetadata(naming.SystemIDs{
		ServerID:       serverID,
		OrganizationID: linkage.OrganizationID,
		ProjectID:      linkage.ProjectID,
		RegionID:       linkage.Region,
	})

	md, shadowed = naming.MergeMetadata(user, system)

	return md, shadowed, nil
}

// LinkageFromMetadata reads the organization and Unikorn project back from a server's system
// metadata. ok is false when a legacy key and its namespaced twin disagree or only one of them
// is there: the metadata then needs converging whatever the identity's tags say.
func LinkageFromMetadata(md map[string]string) (organizationID, projectID string, ok bool) {
	organizationID, okOrg := metadataPair(md, naming.MetadataLegacyOrganizationID, naming.MetadataOrganizationID)
	projectID, okProject := metadataPair(md, naming.MetadataLegacyProjectID, naming.MetadataProjectID)

	return organizationID, projectID, okOrg && okProject
}

// metadataPair is the value of a system key of md; ok is false when the legacy key and its
// namespaced twin disagree or only one of them is there.
func metadataPair(md map[string]string, legacy, namespaced string) (value string, ok bool) {
	a, hasA := md[legacy]
	b, hasB := md[namespaced]

	return a, hasA == hasB && a == b
}

// KeptMetadata is the metadata a server this provider did not make must carry: what it has,
// with only the keys of its tags changed. The keys of tags are set to their values, and the keys
// of prior (the tags the last apply wrote) that tags no longer has are removed; every other key
// is kept as it is: the system keys with whatever values they have (a server that Unikorn's
// region service made carries Unikorn's own server and region IDs there, and before Unikorn
// v1.16 only the legacy keys), and any key of someone else's (identityID of a server made before
// Unikorn v1.10, the keys of Unikorn's own tags, ...). A tag that translates to a system key is
// not written, and listed in shadowed. Nothing is added that the configuration does not ask for.
func KeptMetadata(have, tags, prior map[string]string) (md map[string]string, shadowed []string, err error) {
	user, err := naming.TagsToMetadata(tags)
	if err != nil {
		return nil, nil, err
	}

	md = maps.Clone(have)
	if md == nil {
		md = map[string]string{}
	}

	// The prior tags passed the rule of the apply that wrote them; one this rule refuses now
	// translates to nothing to remove.
	for tag := range prior {
		key, err := naming.MetadataKeyForTag(tag)
		if _, still := user[key]; err == nil && !still && !naming.IsSystemMetadataKey(key) {
			delete(md, key)
		}
	}

	for _, key := range slices.Sorted(maps.Keys(user)) {
		if naming.IsSystemMetadataKey(key) {
			shadowed = append(shadowed, key)

			continue
		}

		md[key] = user[key]
	}

	return md, shadowed, nil
}

// MetadataConverged tells, without asking the cloud, whether md (a server's metadata as last
// read, without the ownership marks) is what it should carry for tags, prior being the tags the
// last apply wrote. A server this provider made (made) carries exactly its system metadata (the
// organization and project taken from md itself: they are only known to Keystone) and its tags;
// any other server keeps its metadata but for the keys of its tags (KeptMetadata). A false answer
// means the next apply rewrites the metadata.
func MetadataConverged(md map[string]string, serverID, region string, tags, prior map[string]string, made bool) bool {
	if !made {
		want, _, err := KeptMetadata(md, tags, prior)

		return err == nil && maps.Equal(md, want)
	}

	organizationID, projectID, ok := LinkageFromMetadata(md)
	if !ok {
		return false
	}

	want, _, err := DesiredMetadata(serverID, Linkage{OrganizationID: organizationID, ProjectID: projectID, Region: region}, tags)
	if err != nil {
		return false
	}

	return maps.Equal(md, want)
}
