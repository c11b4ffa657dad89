package server

import (
	"maps"

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

// DesiredMetadata is the metadata a server must carry: its tags translated into metadata
// keys, and the system metadata of linkage (serverID too once the server exists), system keys
// winning collisions. shadowed lists the translated tag keys that a system key overrode.
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

// LinkageIDs are the server and region IDs the linkage metadata md carries when both are there
// under agreeing legacy and namespaced keys, else serverID and region. A server that Unikorn's
// region service made carries Unikorn's own IDs there (its server's and its region's, not
// Nova's server ID and the OpenStack region's name): they are what Unikorn and the guest link
// the server by, so an imported server keeps them; the provider writes its own only on a server
// that has none.
func LinkageIDs(md map[string]string, serverID, region string) (string, string) {
	id, okID := metadataPair(md, naming.MetadataLegacyServerID, naming.MetadataServerID)
	r, okRegion := metadataPair(md, naming.MetadataLegacyRegionID, naming.MetadataRegionID)

	if !okID || !okRegion || id == "" || r == "" {
		return serverID, region
	}

	return id, r
}

// MetadataConverged tells, without asking the cloud, whether md (a server's metadata as last
// read) is what a server with serverID in region should carry for tags, taking the
// organization and project from md itself (they are only known to Keystone), and the server
// and region IDs too when it has them (LinkageIDs). A false answer means the next apply
// rewrites the metadata.
func MetadataConverged(md map[string]string, serverID, region string, tags map[string]string) bool {
	organizationID, projectID, ok := LinkageFromMetadata(md)
	if !ok {
		return false
	}

	serverID, region = LinkageIDs(md, serverID, region)

	want, _, err := DesiredMetadata(serverID, Linkage{OrganizationID: organizationID, ProjectID: projectID, Region: region}, tags)
	if err != nil {
		return false
	}

	return maps.Equal(md, want)
}
