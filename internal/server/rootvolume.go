package server

// This file is a server that boots from a volume (unikorn_server.root_volume): Nova makes the
// volume from the server's image when it makes the server (block_device_mapping_v2: source
// image, destination volume, boot index 0), and the server's disk lives in Cinder. Flavors
// without a local disk (disk 0, the region-preparation seed's "boot from volume") can boot a
// server only so: Nova refuses an image boot on them to anyone but an admin
// (compute:servers:create:zero_disk_flavor).

import (
	"context"
	"fmt"
	"slices"

	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/servers"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/volumeattach"
)

// RootVolume is the volume a server boots from.
type RootVolume struct {
	SizeGB int
	// Class is the volume class (Cinder volume type ID); "" when made: the region's default.
	Class string
	// DeleteOnTermination deletes the volume with the server.
	DeleteOnTermination bool
}

// bootsFromVolume tells whether srv boots from a volume: Nova names no image for such a server,
// and lists the volume on it.
func bootsFromVolume(srv *servers.Server) bool {
	id, _ := srv.Image["id"].(string)

	return id == "" && len(srv.AttachedVolumes) > 0
}

// bootDevice is the boot of spec's server from a root volume made from its image, when spec
// asks for one: the create then names no image of its own.
func bootDevice(spec Spec) []servers.BlockDevice {
	rv := spec.RootVolume
	if rv == nil {
		return nil
	}

	return []servers.BlockDevice{{
		SourceType:          servers.SourceImage,
		UUID:                spec.ImageID,
		DestinationType:     servers.DestinationVolume,
		VolumeSize:          rv.SizeGB,
		BootIndex:           0,
		DeleteOnTermination: rv.DeleteOnTermination,
		VolumeType:          rv.Class,
	}}
}

// bootVolume is the volume a server boots from, as found: its ID ("" when the server boots from
// its image), and, when it was read (not the recorded one), what Cinder and Nova say of it and
// the image it was made from.
type bootVolume struct {
	id      string
	volume  *RootVolume
	imageID string
}

// rootOf finds the volume srv boots from: the recorded one (known.RootVolumeID) while Nova
// still lists it; otherwise (a server just made, imported, or adopted) the one on its first
// device, as Nova's attachments name them (the boot device, vda or sda, is named before any
// volume attached later), read with its size, class and image from Cinder and its
// delete_on_termination from Nova. Nothing is read for the recorded volume: what the
// configuration says of it stands.
func (s *Service) rootOf(ctx context.Context, srv *servers.Server, known Known) (bootVolume, error) {
	if !bootsFromVolume(srv) {
		return bootVolume{}, nil
	}

	if known.RootVolumeID != "" && slices.Contains(attachedVolumes(srv), known.RootVolumeID) {
		return bootVolume{id: known.RootVolumeID}, nil
	}

	pages, err := volumeattach.List(s.compute, srv.ID).AllPages(ctx)
	if err != nil {
		return bootVolume{}, fmt.Errorf("listing the volumes of server %s: %w", srv.ID, err)
	}

	atts, err := volumeattach.ExtractVolumeAttachments(pages)
	if err != nil {
		return bootVolume{}, fmt.Errorf("reading the volumes of server %s: %w", srv.ID, err)
	}

	if len(atts) == 0 {
		return bootVolume{}, nil // detached meanwhile: not a boot volume
	}

	boot := slices.MinFunc(atts, func(a, b volumeattach.VolumeAttachment) int { return compareDevices(a.Device, b.Device) })

	vols, err := s.volumes()
	if err != nil {
		return bootVolume{}, err
	}

	vol, err := vols.Get(ctx, boot.VolumeID)
	if err != nil {
		return bootVolume{}, err
	}

	root := &RootVolume{SizeGB: vol.SizeGB, Class: vol.ClassID}
	if boot.DeleteOnTermination != nil {
		root.DeleteOnTermination = *boot.DeleteOnTermination
	}

	return bootVolume{id: boot.VolumeID, volume: root, imageID: vol.ImageID}, nil
}

// compareDevices orders device names shortest first, then by name: /dev/vda before /dev/vdb,
// and /dev/vdz before /dev/vdaa.
func compareDevices(a, b string) int {
	if len(a) != len(b) {
		return len(a) - len(b)
	}

	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}

	return 0
}

// withoutRoot is ids without rootID.
func withoutRoot(ids []string, rootID string) []string {
	if rootID == "" {
		return ids
	}

	return slices.DeleteFunc(slices.Clone(ids), func(id string) bool { return id == rootID })
}

// setRoot records on out the volume it boots from (what was read of it, and the image it was
// made from, which Nova does not name for the server), and its volumes without it.
func (out *Server) setRoot(root bootVolume) {
	out.RootVolumeID, out.RootVolume = root.id, root.volume
	out.VolumeIDs = withoutRoot(out.VolumeIDs, root.id)

	if out.ImageID == "" {
		out.ImageID = root.imageID
	}
}

// waitRootGone waits, after its server was deleted, until Cinder no longer has the root volume
// that Nova deletes with it (delete_on_termination): a destroy then leaves nothing behind, and
// the identity's destroy that may follow finds no volume being deleted.
func (s *Service) waitRootGone(ctx context.Context, id string) error {
	vols, err := s.volumes()
	if err != nil {
		return err
	}

	return vols.WaitGone(ctx, id)
}
