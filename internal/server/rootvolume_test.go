package server

import (
	"slices"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/servers"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
)

// TestBootDevice: a server with a root volume is created from a volume that Nova makes from the
// image (boot index 0, the size, class and delete_on_termination asked for), naming no image of
// its own; without one, from the image.
func TestBootDevice(t *testing.T) {
	t.Parallel()

	if got := bootDevice(Spec{ImageID: "img-1"}); got != nil {
		t.Fatalf("an image boot has block devices %+v", got)
	}

	got := bootDevice(Spec{ImageID: "img-1", RootVolume: &RootVolume{SizeGB: 20, Class: "type-1", DeleteOnTermination: true}})
	want := []servers.BlockDevice{{
		SourceType: servers.SourceImage, UUID: "img-1", DestinationType: servers.DestinationVolume,
		VolumeSize: 20, BootIndex: 0, DeleteOnTermination: true, VolumeType: "type-1",
	}}

	if !slices.Equal(got, want) {
		t.Fatalf("block devices %+v, want %+v", got, want)
	}
}

// TestRootDevices: the boot device is named first (shortest, then in order), whatever order
// Nova lists the attachments in.
func TestRootDevices(t *testing.T) {
	t.Parallel()

	devices := []string{"/dev/vdaa", "/dev/vdc", "/dev/vda", "/dev/vdb"}
	slices.SortFunc(devices, compareDevices)

	if want := []string{"/dev/vda", "/dev/vdb", "/dev/vdc", "/dev/vdaa"}; !slices.Equal(devices, want) {
		t.Fatalf("devices in order %v, want %v", devices, want)
	}
}

// TestBootsFromVolume: Nova names no image for a server that boots from a volume, and lists
// that volume on it; a server it names an image for, or that has no volume, boots from its image.
func TestBootsFromVolume(t *testing.T) {
	t.Parallel()

	vol := []servers.AttachedVolume{{ID: "vol-1"}}

	for _, tt := range []struct {
		name string
		srv  servers.Server
		want bool
	}{
		{"image", servers.Server{Image: map[string]any{"id": "img-1"}, AttachedVolumes: vol}, false},
		{"no image, a volume", servers.Server{AttachedVolumes: vol}, true},
		{"no image, no volume", servers.Server{}, false},
	} {
		if got := bootsFromVolume(&tt.srv); got != tt.want {
			t.Errorf("%s: boots from a volume %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestSetRoot: the root volume is not one of the server's volumes, and the image it was made
// from is the server's when Nova names none.
func TestSetRoot(t *testing.T) {
	t.Parallel()

	out := &Server{VolumeIDs: []string{"data-1", "root-1"}}
	out.setRoot(bootVolume{id: "root-1", volume: &RootVolume{SizeGB: 1}, imageID: "img-1"})

	if !slices.Equal(out.VolumeIDs, []string{"data-1"}) || out.RootVolumeID != "root-1" || out.ImageID != "img-1" || out.RootVolume.SizeGB != 1 {
		t.Fatalf("server %+v after its root volume was set", out)
	}

	m := serverModel{RootVolume: types.ObjectNull(rootVolumeAttrTypes)}
	flatten(&m, "RegionOne", out, m)

	var rv rootVolumeModel
	if diags := m.RootVolume.As(t.Context(), &rv, basetypes.ObjectAsOptions{}); diags.HasError() {
		t.Fatal(diags)
	}

	if m.RootVolumeID.ValueString() != "root-1" || rv.SizeGB.ValueInt64() != 1 || !rv.VolumeClass.IsNull() || rv.DeleteOnTermination.ValueBool() {
		t.Fatalf("root_volume %v (%s) after a flatten", m.RootVolume, m.RootVolumeID)
	}

	// An image boot: no root volume.
	flatten(&m, "RegionOne", &Server{ImageID: "img-1"}, m)

	if !m.RootVolume.IsNull() || !m.RootVolumeID.IsNull() {
		t.Fatalf("an image boot has root_volume %v (%s)", m.RootVolume, m.RootVolumeID)
	}
}
