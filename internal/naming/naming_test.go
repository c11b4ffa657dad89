package naming

import (
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func TestNames(t *testing.T) {
	t.Parallel()

	// The linkage contract is frozen: these spellings are what existing
	// clouds hold.
	for _, tt := range []struct{ got, want string }{
		{IdentityProject("a"), "unikorn-identity-a"},
		{IdentityUser("a"), "unikorn-identity-a"},
		{IdentityApplicationCredential("a"), "unikorn-identity-a"},
		{IdentityServerGroup("a"), "unikorn-identity-a"},
		{KeypairName, "unikorn-openstack-provider"},
		{KeystoneCreatedAt, "unikorn_created_at"},
		{IdentityApplicationCredential("a") + NextCredentialSuffix, "unikorn-identity-a-next"},
		{Network("a"), "network-a"},
		{Subnet("a"), "network-a"},
		{Router("a"), "network-a"},
		{SecurityGroup("a"), "securitygroup-a"},
		{ServerPort("a"), "server-a"},
		{Server("a"), "a"},
		{LoadBalancer("a"), "lb-a"},
		{Listener("a", "https"), "lb-a-https-listener"},
		{Pool("a", "https"), "lb-a-https-pool"},
		{Monitor("a", "https"), "lb-a-https-monitor"},
	} {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}

func TestLoadBalancerChild(t *testing.T) {
	t.Parallel()

	tests := []struct {
		lb, child string
		listener  string
		kind      ChildKind
	}{
		{"web", "lb-web-https-listener", "https", ChildListener},
		{"web", "lb-web-https-pool", "https", ChildPool},
		{"web", "lb-web-https-monitor", "https", ChildMonitor},
		{"web", "lb-web-a-b-listener", "a-b", ChildListener},
		// A listener named like a suffix still round-trips.
		{"web", "lb-web-x-pool-listener", "x-pool", ChildListener},
		{"web", "lb-web-listener-pool", "listener", ChildPool},
		{"web", "lb-web-pool-monitor", "pool", ChildMonitor},
		// The documented ambiguity: "lb-a-b-x-pool" parses for "a" and "a-b".
		{"a", "lb-a-b-x-pool", "b-x", ChildPool},
		{"a-b", "lb-a-b-x-pool", "x", ChildPool},
	}

	for _, tt := range tests {
		listener, kind, ok := LoadBalancerChild(tt.lb, tt.child)
		if listener != tt.listener || kind != tt.kind || !ok {
			t.Errorf("LoadBalancerChild(%q, %q) = %q, %q, %v, want %q, %q, true",
				tt.lb, tt.child, listener, kind, ok, tt.listener, tt.kind)
		}
	}

	// Not children of "web": another load balancer, another case, a part missing or
	// empty, a stray space.
	for _, child := range []string{
		"lb-webx-https-listener", "lb-we-https-listener", "LB-web-https-listener", "lb-WEB-https-listener",
		"lb-web", "lb-web-", "lb-web-https", "lb-web-https-listener ", "lb-web-https-Pool",
		"lb-web--listener", "lb-web-listener", "lb-web-pool", "",
	} {
		if listener, kind, ok := LoadBalancerChild("web", child); listener != "" || kind != "" || ok {
			t.Errorf("LoadBalancerChild(%q, %q) = %q, %q, %v, want no child", "web", child, listener, kind, ok)
		}
	}
}
func TestLoadBalancerChildRoundTrip(t *testing.T) {
	t.Parallel()

	for _, lb := range []string{"a", "a-b", "web", "x-listener", "-"} {
		for _, listener := range []string{"h", "https", "a-b", "x-pool", "listener", "-monitor", "a b"} {
			for kind, child := range map[ChildKind]string{
				ChildListener: Listener(lb, listener),
				ChildPool:     Pool(lb, listener),
				ChildMonitor:  Monitor(lb, listener),
			} {
				gotListener, gotKind, ok := LoadBalancerChild(lb, child)
				if !ok || gotListener != listener || gotKind != kind {
					t.Errorf("LoadBalancerChild(%q, %q) = %q, %q, %v, want %q, %q, true",
						lb, child, gotListener, gotKind, ok, listener, kind)
				}
			}
		}
	}
}

func TestSystemMetadata(t *testing.T) {
	t.Parallel()

	got := SystemMetadata(SystemIDs{ServerID: "s", OrganizationID: "o", ProjectID: "p", RegionID: "r"})
	want := map[string]string{
		"serverID":                 "s",
		"organizationID":           "o",
		"projectID":                "p",
		"regionID":                 "r",
		"region:server_id":         "s",
		"identity:organization_id": "o",
		"identity:project_id":      "p",
		"region:region_id":         "r",
	}

	if !maps.Equal(got, want) {
		t.Errorf("SystemMetadata() = %v, want %v", got, want)
	}

	for key := range want {
		if !IsSystemMetadataKey(key) {
			t.Errorf("IsSystemMetadataKey(%q) = false", key)
		}
	}

	for _, key := range []string{"", "serverid", "region:zone", "monitoring:team_name"} {
		if IsSystemMetadataKey(key) {
			t.Errorf("IsSystemMetadataKey(%q) = true", key)
		}
	}

	partial := SystemMetadata(SystemIDs{ProjectID: "p"})
	if want := map[string]string{"projectID": "p", "identity:project_id": "p"}; !maps.Equal(partial, want) {
		t.Errorf("SystemMetadata(project only) = %v, want %v", partial, want)
	}
}

// unikornTagKey is Unikorn's rule as unikorn-facts.md §4 states it (uni-region
// pkg/providers/internal/openstack/provider.go: tagKeyRegex, metadataKey @v1.16.7, v1.19.0),
// written here on its own so that the test compares the provider with the fact, not with itself.
var unikornTagKey = regexp.MustCompile(`^([a-z0-9][a-z0-9-]*)\.[^/]+/([a-z0-9][a-z0-9-]*)$`)

func unikornMetadataKey(tag string) (string, bool) {
	m := unikornTagKey.FindStringSubmatch(tag)
	if m == nil {
		return "", false
	}

	return m[1] + ":" + strings.ReplaceAll(m[2], "-", "_"), true
}

func TestMetadataKeyForTag(t *testing.T) {
	t.Parallel()

	// The facts' examples first, then what the provider's earlier rule got wrong: it refused
	// upper case after the service and "-" at the end of a label or local name, and accepted "."
	// "_" and upper case in the local name.
	valid := []struct {
		tag, want string
	}{
		{tag: "compute.unikorn-cloud.org/cluster-id", want: "compute:cluster_id"},
		{tag: "my-svc.example.com/node-pool-name", want: "my-svc:node_pool_name"},
		{tag: "region.unikorn-cloud.org/server-id", want: "region:server_id"},
		{tag: "monitoring.example.com/team-name", want: "monitoring:team_name"},
		{tag: "backup.acme.io/schedule", want: "backup:schedule"},
		{tag: "a.b/x", want: "a:x"},
		{tag: "0.b/9", want: "0:9"},
		{tag: "monitoring.Example.COM/team-name", want: "monitoring:team_name"},
		{tag: "a-.b/x-", want: "a-:x_"},
		{tag: "a..b/x", want: "a:x"},
		{tag: "a.b./x", want: "a:x"},
		{tag: "a.b_c d/x", want: "a:x"},
		{tag: "a.b/" + strings.Repeat("x", 64), want: "a:" + strings.Repeat("x", 64)},
		{tag: strings.Repeat("s", 64) + ".b/x", want: strings.Repeat("s", 64) + ":x"},
	}

	for _, tt := range valid {
		got, err := MetadataKeyForTag(tt.tag)
		if err != nil || got != tt.want {
			t.Errorf("MetadataKeyForTag(%q) = %q, %v, want %q", tt.tag, got, err, tt.want)
		}

		if fact, ok := unikornMetadataKey(tt.tag); !ok || fact != got {
			t.Errorf("MetadataKeyForTag(%q) = %q, Unikorn's rule gives %q, %v", tt.tag, got, fact, ok)
		}
	}

	// The reason given (a substring of TagError.Reason) → the tags refused for it: everything
	// Unikorn drops.
	invalid := map[string][]string{
		`no "/"`:            {"env", "team-name", ""},
		"has no dot":        {"foo/bar", "example/x", "/x"},
		`more than one "/"`: {"a.b/c/d"},
		"after its first":   {"a./x"},
		"service":           {"Foo.example.com/x", "-a.b/x", ".a.b/x", "a_b.com/x", " a.b/x", "é.b/x"},
		"local name":        {"a.b/", "a.b/-x", "a.b/Team", "a.b/x_y", "a.b/a.b-c", "a.b/x y", "a.b/x:y", "a.b/é", "a.b/x "},
		"Nova allows":       {"a.b/" + strings.Repeat("x", 254)},
	}

	for reason, tags := range invalid {
		for _, tag := range tags {
			got, err := MetadataKeyForTag(tag)

			var tagErr *TagError
			if !errors.As(err, &tagErr) {
				t.Errorf("MetadataKeyForTag(%q) = %q, %v, want a *TagError", tag, got, err)

				continue
			}

			if tagErr.Key != tag || !strings.Contains(tagErr.Reason, reason) {
				t.Errorf("MetadataKeyForTag(%q) error %+v, want reason containing %q", tag, tagErr, reason)
			}

			if !strings.Contains(err.Error(), "service.domain/local-name") {
				t.Errorf("MetadataKeyForTag(%q) error %q does not state the expected form", tag, err)
			}

			if _, ok := unikornMetadataKey(tag); ok && reason != "Nova allows" {
				t.Errorf("MetadataKeyForTag(%q) refused a tag Unikorn's rule accepts", tag)
			}
		}
	}
}

// TestMetadataKeyForTagAgreesWithUnikorn: over every tag made of a few pieces, the provider
// accepts exactly what Unikorn's rule accepts, and translates it to the same key.
func TestMetadataKeyForTagAgreesWithUnikorn(t *testing.T) {
	t.Parallel()

	pieces := []string{"", "a", "Z", "0", "-", "_", ".", "/", "x-y", "é", " ", "b.c"}
	n := 0

	var build func(prefix string, depth int)
	build = func(prefix string, depth int) {
		n++

		got, err := MetadataKeyForTag(prefix)
		fact, ok := unikornMetadataKey(prefix)

		if ok != (err == nil) || got != fact {
			t.Errorf("MetadataKeyForTag(%q) = %q, %v; Unikorn's rule: %q, %v", prefix, got, err, fact, ok)
		}

		if depth == 0 {
			return
		}

		for _, p := range pieces {
			build(prefix+p, depth-1)
		}
	}

	build("", 5)

	if n < 100000 {
		t.Fatalf("compared %d tags", n)
	}
}

func TestTagsToMetadata(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name   string
		tags   map[string]string
		want   map[string]string
		errors []string // substrings, all expected in the joined error
	}{
		{
			name: "nil",
			tags: nil,
			want: map[string]string{},
		},
		{
			name: "translated",
			tags: map[string]string{"monitoring.example.com/team-name": "db", "backup.acme.io/schedule": ""},
			want: map[string]string{"monitoring:team_name": "db", "backup:schedule": ""},
		},
		{
			name:   "domains of one service collide",
			tags:   map[string]string{"a.example.com/x-y": "1", "a.example.org/x-y": "2"},
			errors: []string{`tags "a.example.com/x-y" and "a.example.org/x-y" both translate to server metadata key "a:x_y"`},
		},
		{
			name:   "a domain of another case collides",
			tags:   map[string]string{"a.example.com/x": "1", "a.Example.com/x": "2"},
			errors: []string{`"a:x"`},
		},
		{
			name:   "every problem is reported",
			tags:   map[string]string{"bad": "1", "Bad.com/x": "2", "a.b/v": strings.Repeat("v", 256), "a.b/ok": "fine"},
			errors: []string{`"bad"`, `"Bad.com/x"`, "256 characters"},
		},
		{
			name: "value of 255 characters is fine",
			tags: map[string]string{"a.b/v": strings.Repeat("é", 255)},
			want: map[string]string{"a:v": strings.Repeat("é", 255)},
		},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			got, err := TagsToMetadata(tt.tags)

			if tt.errors == nil {
				if err != nil || !maps.Equal(got, tt.want) {
					t.Errorf("TagsToMetadata() = %v, %v, want %v", got, err, tt.want)
				}

				return
			}

			if err == nil {
				t.Fatalf("TagsToMetadata() = %v, want an error", got)
			}

			for _, want := range tt.errors {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not contain %q", err, want)
				}
			}
		})
	}
}

func TestMergeMetadata(t *testing.T) {
	t.Parallel()

	user := map[string]string{"monitoring:team_name": "db", "region:server_id": "spoofed", "serverID": "spoofed"}
	system := SystemMetadata(SystemIDs{ServerID: "s"})

	merged, shadowed := MergeMetadata(user, system)

	want := map[string]string{"monitoring:team_name": "db", "region:server_id": "s", "serverID": "s"}
	if !maps.Equal(merged, want) {
		t.Errorf("merged = %v, want %v", merged, want)
	}

	if wantShadowed := []string{"region:server_id", "serverID"}; !slices.Equal(shadowed, wantShadowed) {
		t.Errorf("shadowed = %q, want %q", shadowed, wantShadowed)
	}

	if user["serverID"] != "spoofed" {
		t.Error("MergeMetadata modified its input")
	}

	if merged, shadowed := MergeMetadata(nil, nil); len(merged) != 0 || merged == nil || shadowed != nil {
		t.Errorf("MergeMetadata(nil, nil) = %v, %v", merged, shadowed)
	}
}

func TestProjectTags(t *testing.T) {
	t.Parallel()

	tags, err := ProjectTags("org1", "proj1")
	if err != nil || !slices.Equal(tags, []string{"organization=org1", "project=proj1"}) {
		t.Errorf("ProjectTags() = %q, %v", tags, err)
	}

	if tags, err := ProjectTags("", "proj1"); err != nil || !slices.Equal(tags, []string{"project=proj1"}) {
		t.Errorf("ProjectTags(project only) = %q, %v", tags, err)
	}

	if tags, err := ProjectTags("", ""); err != nil || tags != nil {
		t.Errorf("ProjectTags(none) = %q, %v", tags, err)
	}

	if OrganizationTag("o") != "organization=o" || ProjectTag("p") != "project=p" {
		t.Error("tag builders changed")
	}

	for _, bad := range []string{"a/b", "a,b", strings.Repeat("x", 256-len("organization="))} {
		if _, err := ProjectTags(bad, ""); err == nil {
			t.Errorf("ProjectTags(%q) accepted", bad)
		}
	}

	if _, err := ProjectTags(strings.Repeat("x", 255-len("organization=")), ""); err != nil {
		t.Errorf("ProjectTags(max length) = %v", err)
	}
}

func TestParseProjectTags(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name      string
		tags      []string
		org, proj string
		err       string
	}{
		{name: "none"},
		{name: "both", tags: []string{"x", "organization=o", "other=1", "project=p"}, org: "o", proj: "p"},
		{name: "round trip", tags: []string{OrganizationTag("o-1"), ProjectTag("p=1")}, org: "o-1", proj: "p=1"},
		{name: "repeated, equal", tags: []string{"project=p", "project=p"}, proj: "p"},
		{name: "case-sensitive keys", tags: []string{"Organization=o", "PROJECT=p"}},
		{name: "conflict", tags: []string{"project=p", "project=q"}, err: `"project=p" and "project=q"`},
		{name: "empty ID", tags: []string{"organization="}, err: "empty ID"},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			org, proj, err := ParseProjectTags(tt.tags)

			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Errorf("ParseProjectTags() error = %v, want %q", err, tt.err)
				}

				return
			}

			if err != nil || org != tt.org || proj != tt.proj {
				t.Errorf("ParseProjectTags() = %q, %q, %v, want %q, %q", org, proj, err, tt.org, tt.proj)
			}
		})
	}
}

// nameCase is a name of a kind and the reason it is refused ("" = valid).
type nameCase struct {
	kind, name string
	reason     string // substring of the error
}

func TestValidateName(t *testing.T) {
	t.Parallel()

	tests := []nameCase{
		{KindIdentity, "team-a", ""},
		{KindIdentity, "Team A (prod) ü", ""},
		{KindIdentity, strings.Repeat("é", 47), ""},
		{KindIdentity, strings.Repeat("x", 48), "48 characters, at most 47 allowed: unikorn-identity-<name> (Keystone) names are limited to 64"},
		{KindListener, "https", ""},
		{KindNetwork, "a b", ""},
		{KindNetwork, "", "must not be empty"},
		{KindNetwork, "a\nb", "control characters (found U+000A at byte 1)"},
		{KindNetwork, "a\x00b", "control characters"},
		{KindNetwork, "a\xffb", "UTF-8"},
	}

	for _, name := range []string{" a", "a ", "a\u00a0", "\ta"} {
		tests = append(tests, nameCase{KindNetwork, name, "white space"})
	}

	// The longest name of each kind, and one character more.
	for kind, longest := range map[string]int{KindIdentity: 47, KindNetwork: 247, KindSecurityGroup: 241, KindServer: 248, KindLoadBalancer: 241} {
		tests = append(tests,
			nameCase{kind, strings.Repeat("x", longest), ""},
			nameCase{kind, strings.Repeat("x", longest+1), fmt.Sprintf("%d characters, at most %d allowed", longest+1, longest)})
	}

	for _, tt := range tests {
		err := ValidateName(tt.kind, tt.name)

		if tt.reason == "" {
			if err != nil {
				t.Errorf("ValidateName(%q, %q) = %v", tt.kind, tt.name, err)
			}

			continue
		}

		var nameErr *NameError
		if !errors.As(err, &nameErr) {
			t.Errorf("ValidateName(%q, %q) = %v, want a *NameError", tt.kind, tt.name, err)

			continue
		}

		if nameErr.Kind != tt.kind || nameErr.Name != tt.name || !strings.Contains(err.Error(), tt.reason) {
			t.Errorf("ValidateName(%q, %q) = %q, want it to contain %q", tt.kind, tt.name, err, tt.reason)
		}

		if !strings.HasPrefix(err.Error(), "invalid "+tt.kind+" name ") {
			t.Errorf("ValidateName(%q, %q) = %q does not name the kind", tt.kind, tt.name, err)
		}
	}

	if err := ValidateName("backup", "a"); err == nil {
		t.Error("ValidateName accepted an unknown kind")
	}
}
func TestMaxNameLength(t *testing.T) {
	t.Parallel()

	// Every derived name of a maximal user name fits its service.
	for kind, derive := range map[string]func(string) []string{
		KindIdentity: func(n string) []string {
			return []string{IdentityProject(n), IdentityUser(n), IdentityApplicationCredential(n), IdentityServerGroup(n)}
		},
		KindNetwork:       func(n string) []string { return []string{Network(n), Subnet(n), Router(n)} },
		KindSecurityGroup: func(n string) []string { return []string{SecurityGroup(n)} },
		KindServer:        func(n string) []string { return []string{ServerPort(n), Server(n)} },
		KindLoadBalancer: func(n string) []string {
			return []string{LoadBalancer(n), Listener(n, "l"), Pool(n, "l"), Monitor(n, "l")}
		},
		KindListener: func(n string) []string { return []string{Listener("l", n), Pool("l", n), Monitor("l", n)} },
		KindVolume:   func(n string) []string { return []string{Volume(n)} },
	} {
		limit := 255
		if kind == KindIdentity {
			limit = 64
		}

		n := MaxNameLength(kind)
		longest := 0

		for _, derived := range derive(strings.Repeat("x", n)) {
			longest = max(longest, len(derived))
		}

		if longest != limit {
			t.Errorf("%s: longest derived name of a %d-character name is %d, want exactly %d", kind, n, longest, limit)
		}
	}

	if MaxNameLength("backup") != 0 {
		t.Error("MaxNameLength of an unknown kind is not 0")
	}
}

func TestValidateListenerName(t *testing.T) {
	t.Parallel()

	if err := ValidateListenerName("web", "https"); err != nil {
		t.Errorf("ValidateListenerName() = %v", err)
	}

	// lb-<120>-<122>-listener = 3 + 120 + 1 + 122 + 9 = 255.
	if err := ValidateListenerName(strings.Repeat("a", 120), strings.Repeat("b", 122)); err != nil {
		t.Errorf("ValidateListenerName(255 total) = %v", err)
	}

	err := ValidateListenerName(strings.Repeat("a", 120), strings.Repeat("b", 123))

	var nameErr *NameError
	if !errors.As(err, &nameErr) || nameErr.Kind != KindListener || !strings.Contains(err.Error(), "256 characters, at most 255") {
		t.Errorf("ValidateListenerName(256 total) = %v", err)
	}

	if err := ValidateListenerName("", "https"); err == nil || !strings.Contains(err.Error(), "load balancer") {
		t.Errorf("ValidateListenerName(empty LB) = %v", err)
	}

	if err := ValidateListenerName("web", " https"); err == nil || !strings.Contains(err.Error(), "listener") {
		t.Errorf("ValidateListenerName(bad listener) = %v", err)
	}
}
