package server

import (
	"context"
	"maps"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/flavor"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/image"
)

func TestSchemaIsValid(t *testing.T) {
	t.Parallel()

	ctx := context.Background()

	var resp resource.SchemaResponse

	NewResource().Schema(ctx, resource.SchemaRequest{}, &resp)

	if resp.Diagnostics.HasError() {
		t.Fatalf("schema: %v", resp.Diagnostics)
	}

	if diags := resp.Schema.ValidateImplementation(ctx); diags.HasError() {
		t.Fatalf("schema implementation: %v", diags)
	}

	if !resp.Schema.Attributes["user_data"].IsWriteOnly() {
		t.Fatal("user_data must be write-only")
	}
}

func TestDesiredMetadata(t *testing.T) {
	t.Parallel()

	linkage := Linkage{OrganizationID: "org-1", ProjectID: "proj-1", Region: "RegionOne"}

	md, shadowed, err := DesiredMetadata("srv-1", linkage, map[string]string{
		"monitoring.example.com/team-name": "blue",
		"region.example.com/server-id":     "spoofed", // translates to the system key region:server_id
	})
	if err != nil {
		t.Fatal(err)
	}

	want := map[string]string{
		"serverID": "srv-1", "region:server_id": "srv-1",
		"organizationID": "org-1", "identity:organization_id": "org-1",
		"projectID": "proj-1", "identity:project_id": "proj-1",
		"regionID": "RegionOne", "region:region_id": "RegionOne",
		"monitoring:team_name": "blue",
	}

	if !maps.Equal(md, want) {
		t.Fatalf("metadata = %v\nwant       %v", md, want)
	}

	if len(shadowed) != 1 || shadowed[0] != "region:server_id" {
		t.Fatalf("shadowed = %v", shadowed)
	}

	if _, _, err := DesiredMetadata("srv-1", linkage, map[string]string{"team": "x"}); err == nil {
		t.Fatal("a tag without a domain was accepted")
	}

	// Without organization and project tags on the identity, their keys are absent.
	md, _, _ = DesiredMetadata("srv-1", Linkage{Region: "RegionOne"}, nil)
	if _, ok := md["organizationID"]; ok || len(md) != 4 {
		t.Fatalf("metadata without linkage tags = %v", md)
	}
}

func TestMetadataConverged(t *testing.T) {
	t.Parallel()

	tags := map[string]string{"monitoring.example.com/team-name": "blue"}
	good, _, _ := DesiredMetadata("srv-1", Linkage{OrganizationID: "org-1", ProjectID: "proj-1", Region: "RegionOne"}, tags)

	with := func(md map[string]string, change func(map[string]string)) map[string]string {
		md = maps.Clone(md)
		change(md)

		return md
	}

	// A server Unikorn made before v1.16: the legacy keys only, with Unikorn's server and region
	// IDs, and a key of before v1.10.
	legacy := map[string]string{"serverID": "u-srv", "organizationID": "org-1", "projectID": "proj-1", "regionID": "u-region", "identityID": "u-id"}
	// One of v1.16 and later: both forms, and a tag of its own (compute.unikorn-cloud.org/cluster-id).
	namespaced := with(legacy, func(m map[string]string) {
		delete(m, "identityID")
		m["region:server_id"], m["identity:organization_id"], m["identity:project_id"], m["region:region_id"] = "u-srv", "org-1", "proj-1", "u-region"
		m["compute:cluster_id"] = "c-1"
	})

	tests := []struct {
		name        string
		md          map[string]string
		tags, prior map[string]string
		made        bool
		want        bool
	}{
		{"as written", good, tags, tags, true, true},
		{"a tag changed", good, map[string]string{"monitoring.example.com/team-name": "red"}, tags, true, false},
		{"a tag removed", good, nil, tags, true, false},
		{"a key added out of band", with(good, func(m map[string]string) { m["extra"] = "x" }), tags, tags, true, false},
		{"a system key removed", with(good, func(m map[string]string) { delete(m, "serverID") }), tags, tags, true, false},
		{"legacy and namespaced disagree", with(good, func(m map[string]string) { m["organizationID"] = "org-2" }), tags, tags, true, false},
		{"the server ID without its twin", with(good, func(m map[string]string) { m["serverID"] = "x" }), tags, tags, true, false},
		{"another server ID on a server made here", with(good, func(m map[string]string) {
			m["serverID"], m["region:server_id"] = "u-srv", "u-srv"
		}), tags, tags, true, false},

		// A server this provider did not make keeps every key but those of its tags.
		{"Unikorn's before v1.16, no tags", legacy, nil, nil, false, true},
		{"Unikorn's of v1.16, no tags configured", namespaced, nil, nil, false, true},
		{"Unikorn's of v1.16, its tag mirrored", namespaced, map[string]string{"compute.unikorn-cloud.org/cluster-id": "c-1"}, nil, false, true},
		{"Unikorn's of v1.16, its tag changed", namespaced, map[string]string{"compute.unikorn-cloud.org/cluster-id": "c-2"}, nil, false, false},
		{"a tag added", legacy, tags, nil, false, false},
		{"a tag that names a system key", legacy, map[string]string{"region.example.com/server-id": "x"}, nil, false, true},
		{"a tag configured before, removed", with(legacy, func(m map[string]string) { m["monitoring:team_name"] = "blue" }), nil, tags, false, false},
		{"a tag configured before, removed, already gone", legacy, nil, tags, false, true},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			if got := MetadataConverged(tt.md, "srv-1", "RegionOne", tt.tags, tt.prior, tt.made); got != tt.want {
				t.Fatalf("MetadataConverged = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestKeptMetadata: a server this provider did not make keeps its metadata; only the keys of its
// tags change (set, or removed when a configured tag is removed), never a system key.
func TestKeptMetadata(t *testing.T) {
	t.Parallel()

	have := map[string]string{
		"serverID": "u-srv", "organizationID": "org-1", "projectID": "proj-1", "regionID": "u-region",
		"identityID": "u-id", "monitoring:team_name": "blue", "backup:schedule": "daily", "compute:cluster_id": "c-1",
	}

	md, shadowed, err := KeptMetadata(have, map[string]string{
		"monitoring.example.com/team-name": "red",
		"region.example.com/server-id":     "spoofed",
		"new.example.com/key":              "v",
	}, map[string]string{"monitoring.example.com/team-name": "blue", "backup.acme.io/schedule": "daily", "old.example.com/gone": "x"})
	if err != nil {
		t.Fatal(err)
	}

	want := map[string]string{
		"serverID": "u-srv", "organizationID": "org-1", "projectID": "proj-1", "regionID": "u-region",
		"identityID": "u-id", "monitoring:team_name": "red", "compute:cluster_id": "c-1", "new:key": "v",
	}

	if !maps.Equal(md, want) {
		t.Fatalf("metadata = %v\nwant       %v", md, want)
	}

	if len(shadowed) != 1 || shadowed[0] != "region:server_id" {
		t.Fatalf("shadowed = %v", shadowed)
	}

	if have["monitoring:team_name"] != "blue" {
		t.Fatal("KeptMetadata changed its input")
	}

	if _, _, err := KeptMetadata(have, map[string]string{"team": "x"}, nil); err == nil {
		t.Fatal("a tag without a domain was accepted")
	}
}

func TestCompatibility(t *testing.T) {
	t.Parallel()

	vm := flavor.Facts{Flavor: flavor.Flavor{ID: "f1", Name: "m1.small", Architecture: "x86_64", DiskGB: 10}, RAMMiB: 2048}
	metal := flavor.Facts{Flavor: flavor.Flavor{ID: "f2", Name: "bm.large", Architecture: "x86_64", DiskGB: 100, Baremetal: true}, RAMMiB: 65536}
	arm := flavor.Facts{Flavor: flavor.Flavor{ID: "f3", Name: "a1.small", Architecture: "aarch64", DiskGB: 10}, RAMMiB: 2048}
	bootFromVolume := flavor.Facts{Flavor: flavor.Flavor{ID: "f4", Name: "v1", Architecture: "x86_64", DiskGB: 0}, RAMMiB: 2048}

	img := func(arch, virt string, size int) image.Facts {
		return image.Facts{
			Image:        image.Image{ID: "i", Name: "ubuntu", Architecture: arch, Virtualization: virt, SizeGiB: size},
			GlanceStatus: "active",
		}
	}
	with := func(f image.Facts, change func(*image.Facts)) image.Facts {
		change(&f)
		return f
	}

	volume := func(sizeGB int) RootDisk { return RootDisk{FromVolume: true, SizeGB: sizeGB} }

	tests := []struct {
		name   string
		flavor flavor.Facts
		image  image.Facts
		root   RootDisk
		want   []string // attributes with a problem
	}{
		{"fits", vm, img("x86_64", "any", 5), RootDisk{}, nil},
		{"amd64 is x86_64", vm, img("amd64", "", 5), RootDisk{}, nil},
		{"architectures differ", arm, img("x86_64", "any", 5), RootDisk{}, []string{"image_id"}},
		{"disk too small", vm, img("x86_64", "any", 20), RootDisk{}, []string{"flavor_id"}},
		{"disk too small, but a root volume", vm, img("x86_64", "any", 20), volume(20), nil},
		{"no disk: a root volume is needed", bootFromVolume, img("x86_64", "any", 5), RootDisk{}, []string{"root_volume"}},
		{"no disk, a root volume of the image's size", bootFromVolume, img("x86_64", "any", 20), volume(20), nil},
		{"no disk, a root volume of unknown size", bootFromVolume, img("x86_64", "any", 20), volume(0), nil},
		{"root volume too small", bootFromVolume, img("x86_64", "any", 20), volume(10), []string{"root_volume"}},
		{"RAM of the image's min_ram", vm, with(img("x86_64", "any", 5), func(f *image.Facts) { f.MinRAMMiB = 2048 }), RootDisk{}, nil},
		{"RAM below the image's min_ram", vm, with(img("x86_64", "any", 5), func(f *image.Facts) { f.MinRAMMiB = 4096 }), RootDisk{}, []string{"flavor_id"}},
		{"image not active", vm, with(img("x86_64", "any", 5), func(f *image.Facts) { f.GlanceStatus = "queued" }), RootDisk{}, []string{"image_id"}},
		{"baremetal image on a VM flavor", vm, img("x86_64", "baremetal", 5), RootDisk{}, []string{"flavor_id"}},
		{"baremetal image on a baremetal flavor", metal, img("x86_64", "baremetal", 5), RootDisk{}, nil},
		{"virtualized image on a baremetal flavor", metal, img("x86_64", "virtualized", 5), RootDisk{}, []string{"flavor_id"}},
		{"everything wrong", arm, with(img("x86_64", "baremetal", 50), func(f *image.Facts) { f.MinRAMMiB, f.GlanceStatus = 4096, "saving" }),
			RootDisk{}, []string{"image_id", "flavor_id", "image_id", "flavor_id", "flavor_id"}},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			var got []string
			for _, p := range Compatibility(tt.flavor, tt.image, tt.root) {
				got = append(got, p.Attribute)

				if p.Summary == "" || !strings.Contains(p.Detail, tt.image.Name) {
					t.Errorf("problem %+v does not name the image", p)
				}
			}

			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Fatalf("problems at %v, want %v", got, tt.want)
			}
		})
	}
}

func TestTagsValidator(t *testing.T) {
	t.Parallel()

	run := func(tags map[string]string) *validator.MapResponse {
		elems := map[string]attr.Value{}
		for k, v := range tags {
			elems[k] = types.StringValue(v)
		}

		resp := &validator.MapResponse{}
		tagsValidator{}.ValidateMap(context.Background(), validator.MapRequest{
			Path: path.Root("tags"), ConfigValue: types.MapValueMust(types.StringType, elems),
		}, resp)

		return resp
	}

	if resp := run(map[string]string{"monitoring.example.com/team-name": "blue"}); resp.Diagnostics.HasError() || resp.Diagnostics.WarningsCount() != 0 {
		t.Fatalf("a good tag: %v", resp.Diagnostics)
	}

	resp := run(map[string]string{"team": "x", "Example.com/y": "z", "ok.example.com/a": "b"})
	if resp.Diagnostics.ErrorsCount() != 2 {
		t.Fatalf("two bad keys: %v", resp.Diagnostics)
	}

	for _, d := range resp.Diagnostics.Errors() {
		p, ok := d.(interface{ Path() path.Path })
		if !ok || !strings.HasPrefix(p.Path().String(), `tags["`) {
			t.Errorf("diagnostic %q is not at the tag's own path", d.Summary())
		}
	}

	if resp := run(map[string]string{"a.example.com/x-y": "1", "a.example.org/x-y": "2"}); resp.Diagnostics.ErrorsCount() != 1 {
		t.Fatalf("colliding tags: %v", resp.Diagnostics)
	}

	if resp := run(map[string]string{"identity.example.com/project-id": "x"}); resp.Diagnostics.HasError() || resp.Diagnostics.WarningsCount() != 1 {
		t.Fatalf("a tag on a system key: %v", resp.Diagnostics)
	}
}

func TestUserDataValidator(t *testing.T) {
	t.Parallel()

	run := func(size int) bool {
		resp := &validator.StringResponse{}
		userDataValidator().ValidateString(context.Background(), validator.StringRequest{
			Path: path.Root("user_data"), ConfigValue: types.StringValue(strings.Repeat("x", size)),
		}, resp)

		for _, d := range resp.Diagnostics {
			if strings.Contains(d.Detail(), "xxxx") {
				t.Fatal("the diagnostic repeats the user data")
			}
		}

		return !resp.Diagnostics.HasError()
	}

	if !run(49149) || run(49150) {
		t.Fatal("the limit is 65535 bytes once base64-encoded (49149 raw bytes)")
	}
}

func TestUserDataHash(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name string
		in   types.String
		want types.String
	}{
		{"nothing", types.StringNull(), types.StringNull()},
		{"empty", types.StringValue(""), types.StringNull()},
		{"unknown", types.StringUnknown(), types.StringUnknown()},
		{"sha256 of hello", types.StringValue("hello"), types.StringValue("2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824")},
	}

	for _, tt := range tests {
		if got := userDataHash(tt.in); !got.Equal(tt.want) {
			t.Errorf("%s: hash = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestFlattenPairs(t *testing.T) {
	t.Parallel()

	const portMAC = "fa:16:3e:00:00:01"

	pair := func(ip string, mac *string) attr.Value {
		m := types.StringNull()
		if mac != nil {
			m = types.StringValue(*mac)
		}

		return types.ObjectValueMust(pairAttrTypes, map[string]attr.Value{"ip_address": types.StringValue(ip), "mac_address": m})
	}
	set := func(elems ...attr.Value) types.Set {
		return types.SetValueMust(types.ObjectType{AttrTypes: pairAttrTypes}, elems)
	}
	str := func(s string) *string { return &s }
	null := types.SetNull(types.ObjectType{AttrTypes: pairAttrTypes})

	tests := []struct {
		name  string
		pairs []AddressPair
		prior types.Set
		want  types.Set
	}{
		{"none, never configured", nil, null, null},
		{"none, configured empty", nil, set(), set()},
		{"the port's MAC reads back unset", []AddressPair{{"10.0.0.9", portMAC}}, set(pair("10.0.0.9", nil)), set(pair("10.0.0.9", nil))},
		{"the port's MAC spelled out stays", []AddressPair{{"10.0.0.9", portMAC}}, set(pair("10.0.0.9", str("FA:16:3E:00:00:01"))),
			set(pair("10.0.0.9", str("FA:16:3E:00:00:01")))},
		{"another MAC", []AddressPair{{"10.0.0.9", "fa:16:3e:00:00:99"}}, null, set(pair("10.0.0.9", str("fa:16:3e:00:00:99")))},
		{"the configured spelling of an address", []AddressPair{{"10.0.0.9/32", portMAC}}, set(pair("10.0.0.9", nil)), set(pair("10.0.0.9", nil))},
		{"added out of band", []AddressPair{{"10.0.0.7", portMAC}}, null, set(pair("10.0.0.7", nil))},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			if got := flattenPairs(tt.pairs, portMAC, tt.prior); !got.Equal(tt.want) {
				t.Fatalf("flattenPairs = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestSamePairs(t *testing.T) {
	t.Parallel()

	const portMAC = "fa:16:3e:00:00:01"

	tests := []struct {
		name       string
		have, want []AddressPair
		same       bool
	}{
		{"a pair without MAC is the port's MAC", []AddressPair{{"10.0.0.9", portMAC}}, []AddressPair{{"10.0.0.9", ""}}, true},
		{"MACs compare without case", []AddressPair{{"10.0.0.9", portMAC}}, []AddressPair{{"10.0.0.9", "FA:16:3E:00:00:01"}}, true},
		{"different MACs are different pairs", []AddressPair{{"10.0.0.9", portMAC}}, []AddressPair{{"10.0.0.9", "fa:16:3e:00:00:02"}}, false},
		{"another address", []AddressPair{{"10.0.0.9", portMAC}}, []AddressPair{{"10.0.0.8", ""}}, false},
		{"none is none", nil, []AddressPair{}, true},
	}

	for _, tt := range tests {
		if got := samePairs(tt.have, tt.want, portMAC); got != tt.same {
			t.Errorf("%s: samePairs = %v, want %v", tt.name, got, tt.same)
		}
	}
}

func TestNameFilter(t *testing.T) {
	t.Parallel()

	if got := nameFilter("web.1(a)"); got != `^web\.1\(a\)$` {
		t.Fatalf("nameFilter = %q", got)
	}
}
