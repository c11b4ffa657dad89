package volume

// This file is the core of unikorn_volume: a Cinder volume in a tenant's project, found again by
// its exact name (naming.Volume), made with the creation mark in its metadata and given the
// completion mark once Cinder says it is available (naming.Mark), grown in place with Cinder's
// extend, and deleted after it is detached from every server. No Terraform types.
//
// Unikorn's region service makes no volumes yet (uni-region: Volume is a storage model without
// provider code; its servers are booted from images only), so there is no Unikorn shape to meet:
// the name and the marks are this provider's, in the shape of its other kinds.

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/blockstorage/v3/volumes"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/volumeattach"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// Type is the resource type whose creates mark a volume (its creation mark).
const Type = "unikorn_volume"

// Microversion is the Cinder microversion of every volume request: 3.63 answers the volume
// type's ID (volume_type_id) beside its name, and 3.42 (included) extends a volume that is
// attached. Cinder of Wallaby or later.
const Microversion = "3.63"

// Cinder states of a volume.
const (
	StatusAvailable = "available"
	StatusInUse     = "in-use"
)

var (
	// createPending are the states of a volume on its way to available (downloading: made
	// from an image).
	createPending = []string{"creating", "downloading"}
	// extendPending are the states of a volume while it grows.
	extendPending = []string{"extending"}
	// deletePending are the states of a volume while Cinder deletes it.
	deletePending = []string{"deleting", StatusAvailable, "error"}
)

// Spec is the volume a configuration asks for.
type Spec struct {
	// Name is the user-given name; the Cinder name is naming.Volume(Name).
	Name string
	// SizeGB is the size in GiB.
	SizeGB int
	// Class is the volume type (its ID); "" is Cinder's default type.
	Class string
	// ImageID and SnapshotID are the source, at most one ("" for an empty volume).
	ImageID, SnapshotID string
	// Description is Cinder's description; nil leaves it as the volume has it.
	Description *string
}

// Attachment is a server a volume is attached to.
type Attachment struct {
	ServerID, Device, AttachmentID string
}

// Volume is what Cinder says of a volume.
type Volume struct {
	ID, Name, Description, Status string
	ProjectID                     string
	SizeGB                        int
	// ClassID and ClassName are the volume type's ID and name.
	ClassID, ClassName string
	// ImageID is the image the volume was made from; SnapshotID the snapshot.
	ImageID, SnapshotID string
	Bootable            bool
	Attachments         []Attachment
	CreatedAt           time.Time
	// Metadata is the volume's metadata without the marks; Mark is what the marks say.
	Metadata map[string]string
	Mark     naming.Mark
}

// ofCinder is the Volume of a Cinder answer: v, and typeID the volume_type_id it carried.
func ofCinder(v *volumes.Volume, typeID string) *Volume {
	out := &Volume{
		ID: v.ID, Name: v.Name, Description: v.Description, Status: v.Status, ProjectID: v.TenantID,
		SizeGB: v.Size, ClassID: typeID, ClassName: v.VolumeType, SnapshotID: v.SnapshotID,
		ImageID: v.VolumeImageMetadata["image_id"], Bootable: v.Bootable == "true", CreatedAt: v.CreatedAt,
		Metadata: map[string]string{}, Mark: naming.MarkOf(v.Metadata),
	}

	for k, val := range v.Metadata {
		if !naming.IsMarkKey(k) {
			out.Metadata[k] = val
		}
	}

	for _, a := range v.Attachments {
		out.Attachments = append(out.Attachments, Attachment{ServerID: a.ServerID, Device: a.Device, AttachmentID: a.AttachmentID})
	}

	slices.SortFunc(out.Attachments, func(a, b Attachment) int { return strings.Compare(a.ServerID, b.ServerID) })

	return out
}

// UserName is the user-given name of a Cinder name of this provider ("" and false for another).
func UserName(cinderName string) (string, bool) {
	name, ok := strings.CutPrefix(cinderName, naming.VolumePrefix)
	return name, ok && name != ""
}

// Volumes makes and keeps the volumes of one tenant.
type Volumes struct {
	cinder *gophercloud.ServiceClient
	// compute detaches a volume before it is deleted (nil: not bound, Delete refuses an
	// attached volume).
	compute *gophercloud.ServiceClient
	tenant  fmt.Stringer
	region  string
	// run is the tenant as bound: the run's listing of its volumes (volumeListing), and the
	// record of what this process writes there; nil for a core on fake endpoints (tests).
	run *cloud.Tenant
}

// volumeKind is the kind of the run's listing of volumes, for cloud.Tenant.Wrote.
const volumeKind = "volume"

// volumeListing is the run's listing of a tenant's volumes (Cinder lists the token's project),
// by ID and Cinder name: the look-ups by name of one project and region list its volumes once.
var volumeListing = cloud.Listing[*Volume]{
	Kind: volumeKind,
	List: func(ctx context.Context, t *cloud.Tenant) ([]*Volume, error) {
		sc, err := t.BlockStorage()
		if err != nil {
			return nil, err
		}

		return listVolumes(ctx, pin(sc), volumes.ListOpts{})
	},
	Keys: func(v *Volume) []string { return []string{v.ID, v.Name} },
}

// wrote records, for the run's listings, that this process writes the volumes of these keys
// (IDs, Cinder names).
func (v *Volumes) wrote(keys ...string) { v.run.Wrote(volumeKind, keys...) }

// pin is a copy of sc that sends Microversion.
func pin(sc *gophercloud.ServiceClient) *gophercloud.ServiceClient {
	c := *sc
	c.Microversion = Microversion

	return &c
}

// New binds the core to t: cloud.AsIdentity to make a volume (it is then the identity's user's,
// as servers are), cloud.Privileged to read, change and delete one.
func New(t *cloud.Tenant) (*Volumes, error) {
	cinder, err := t.BlockStorage()
	if err != nil {
		return nil, err
	}

	compute, err := t.Compute()
	if err != nil {
		return nil, err
	}

	v := newVolumes(cinder, compute, t, t.Region())
	v.run = t

	return v, nil
}

// newVolumes is the core on cinder and compute, in tenant (named in messages) and region.
func newVolumes(cinder, compute *gophercloud.ServiceClient, tenant fmt.Stringer, region string) *Volumes {
	return &Volumes{cinder: pin(cinder), compute: compute, tenant: tenant, region: region}
}

// String names the tenant for messages: "project P, region R".
func (v *Volumes) String() string { return v.tenant.String() }

// Region is the volumes' region.
func (v *Volumes) Region() string { return v.region }

// get reads volume id.
func (v *Volumes) get(ctx context.Context, id string) (*Volume, error) {
	r := volumes.Get(ctx, v.cinder, id)

	vol, err := r.Extract()
	if err != nil {
		return nil, err
	}

	var typed struct {
		TypeID string `json:"volume_type_id"`
	}

	if err := r.ExtractIntoStructPtr(&typed, "volume"); err != nil {
		return nil, err
	}

	return ofCinder(vol, typed.TypeID), nil
}

// Get reads volume id.
func (v *Volumes) Get(ctx context.Context, id string) (*Volume, error) {
	vol, err := v.get(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("reading volume %s in %s: %w", id, v, err)
	}

	return vol, nil
}

// named lists the volumes of the tenant's project named exactly name (Cinder compares names
// exactly; the list is still filtered here, like every lookup by name).
func (v *Volumes) named(ctx context.Context, name string) ([]*Volume, error) {
	all, err := listVolumes(ctx, v.cinder, volumes.ListOpts{Name: name})
	if err != nil {
		return nil, fmt.Errorf("listing the volumes named %q in %s: %w", name, v, err)
	}

	return naming.Exact(all, name, func(x *Volume) string { return x.Name }), nil
}

// Called lists the volumes of the tenant's project whose Cinder name is exactly name, from the
// run's listing of the project's volumes when it can answer (volumeListing).
func (v *Volumes) Called(ctx context.Context, name string) ([]*Volume, error) {
	if listed, ok, err := volumeListing.Find(ctx, v.run, name); err != nil || ok {
		return naming.Exact(listed, name, func(x *Volume) string { return x.Name }), err
	}

	return v.named(ctx, name)
}

// listVolumes lists, through cinder (pinned), the volumes opts selects, with their volume
// types' IDs.
func listVolumes(ctx context.Context, cinder *gophercloud.ServiceClient, opts volumes.ListOpts) ([]*Volume, error) {
	page, err := volumes.List(cinder, opts).AllPages(ctx)
	if err != nil {
		return nil, err
	}

	var typeIDs []struct {
		TypeID string `json:"volume_type_id"`
	}

	all, err := volumes.ExtractVolumes(page)
	if err == nil {
		err = volumes.ExtractVolumesInto(page, &typeIDs)
	}

	if err != nil {
		return nil, fmt.Errorf("reading Cinder's answer: %w", err)
	}

	out := make([]*Volume, 0, len(all))

	for i := range all {
		typeID := ""
		if i < len(typeIDs) {
			typeID = typeIDs[i].TypeID
		}

		out = append(out, ofCinder(&all[i], typeID))
	}

	return out, nil
}

// find is the one volume of the tenant's project named name: nil when there is none, a
// *naming.DuplicateError naming every ID when there are several.
func (v *Volumes) find(ctx context.Context, name string) (*Volume, error) {
	all, err := v.named(ctx, name)
	if err != nil {
		return nil, err
	}

	one, ok, err := naming.One("volume", name, all, func(x *Volume) string { return x.Name }, func(x *Volume) string { return x.ID })
	if !ok {
		return nil, err
	}

	return one, nil
}

// existing describes vol, met by a create, for the ownership rule.
func (v *Volumes) existing(vol *Volume) cloud.Existing {
	return cloud.Existing{
		Type: Type, Kind: "volume", Name: vol.Name, ID: vol.ID, Where: v.String(), ImportID: v.region + "/" + vol.ID, Mark: vol.Mark,
	}
}

// Make adopts or creates the volume of spec and returns it as Cinder answered (creating, as a
// rule: Wait for it). A volume of the name that already exists is adopted only when an
// interrupted create of a unikorn_volume left it (its creation mark, no completion mark), and
// then only when it is of spec's source; anything else is an error (a *cloud.ExistsError when
// the volume is not such a create's). The POST carries the creation mark, and a lost answer is
// looked for by the name (cloud.Create).
func (v *Volumes) Make(ctx context.Context, spec Spec) (vol *Volume, adopted bool, err error) {
	name := naming.Volume(spec.Name)

	found, err := v.find(ctx, name)
	if err != nil {
		return nil, false, err
	}

	if found != nil {
		if err := cloud.Adopt(v.existing(found)); err != nil {
			return nil, false, err
		}

		if found.SnapshotID != spec.SnapshotID || (spec.ImageID != "" && found.ImageID != spec.ImageID) {
			return nil, false, fmt.Errorf("volume %q (%s) in %s, left by an interrupted create, was made from image %q and "+
				"snapshot %q, not from the configured image %q and snapshot %q: delete it, or give this resource another name",
				name, found.ID, v, found.ImageID, found.SnapshotID, spec.ImageID, spec.SnapshotID)
		}

		return found, true, nil
	}

	opts := volumes.CreateOpts{
		Name: name, Size: spec.SizeGB, VolumeType: spec.Class, ImageID: spec.ImageID, SnapshotID: spec.SnapshotID,
		Metadata: naming.MadeFor(Type).Properties(),
	}
	if spec.Description != nil {
		opts.Description = *spec.Description
	}

	v.wrote(name)

	vol, err = cloud.Create(ctx, cloud.CreateSpec[*Volume]{
		Kind: "volume",
		Name: name,
		Create: func(ctx context.Context) (*Volume, error) {
			made, err := volumes.Create(ctx, v.cinder, opts, nil).Extract()
			if err != nil {
				return nil, err
			}

			v.wrote(made.ID)

			return ofCinder(made, ""), nil
		},
		Find:   func(ctx context.Context) ([]*Volume, error) { return v.named(ctx, name) },
		ID:     func(x *Volume) string { return x.ID },
		Delete: func(ctx context.Context, id string) error { return v.deleteAndWait(ctx, id) },
		Adopt:  func(x *Volume) error { return cloud.Adopt(v.existing(x)) },
	})
	if err != nil {
		return vol, false, fmt.Errorf("creating volume %q in %s: %w", name, v, cinderRefusal(err))
	}

	return vol, false, nil
}

// cinderRefusal adds what a Cinder 4xx of a create or an extend usually means.
func cinderRefusal(err error) error {
	switch {
	case gophercloud.ResponseCodeIs(err, http.StatusRequestEntityTooLarge):
		return fmt.Errorf("%w (the project's block storage quota is used up: see the identity's quotas.block_storage)", err)
	case gophercloud.ResponseCodeIs(err, http.StatusNotFound):
		return fmt.Errorf("%w (no such volume type, image or snapshot in the region)", err)
	}

	return err
}

// Wait polls volume id until Cinder says it is one of target, through pending; any other state
// fails with Cinder's status.
func (v *Volumes) wait(ctx context.Context, id string, pending, target []string) (*Volume, error) {
	vol, err := cloud.Poll(ctx, cloud.PollSpec{Pending: pending, Target: target, MinInterval: time.Second, MaxInterval: 5 * time.Second},
		func(ctx context.Context) (*Volume, string, string, error) {
			vol, err := v.get(ctx, id)
			if err != nil {
				return nil, "", "", err
			}

			return vol, vol.Status, "", nil
		})

	var state *cloud.StateError
	if errors.As(err, &state) {
		return vol, fmt.Errorf("volume %s in %s is %s (see `openstack volume show %s` and Cinder's volume service log)",
			id, v, state.State, id)
	}

	return vol, err
}

// WaitMade polls a new volume until it is available.
func (v *Volumes) WaitMade(ctx context.Context, id string) (*Volume, error) {
	vol, err := v.wait(ctx, id, createPending, []string{StatusAvailable})
	if err != nil {
		return vol, fmt.Errorf("waiting for volume %s to be available: %w", id, err)
	}

	return vol, nil
}

// Finish is the last step of a create: the completion mark in the volume's metadata (Cinder
// replaces a volume's metadata with what an update sends, so the update sends all of it).
func (v *Volumes) Finish(ctx context.Context, vol *Volume) (*Volume, error) {
	if vol.Mark.Completed {
		return vol, nil
	}

	md := maps.Clone(vol.Metadata)
	maps.Copy(md, naming.MadeFor(Type).Done().Properties())
	v.wrote(vol.ID)

	if _, err := volumes.Update(ctx, v.cinder, vol.ID, volumes.UpdateOpts{Metadata: md}).Extract(); err != nil {
		return vol, fmt.Errorf("marking volume %s in %s as made: %w", vol.ID, v, err)
	}

	return v.Get(ctx, vol.ID)
}

// Converge makes vol what spec asks for where it can change in place: its size (Cinder's
// extend; a volume is never shrunk, which the plan refuses) and its description.
func (v *Volumes) Converge(ctx context.Context, vol *Volume, spec Spec) (*Volume, error) {
	v.wrote(vol.ID)

	if spec.Description != nil && *spec.Description != vol.Description {
		if _, err := volumes.Update(ctx, v.cinder, vol.ID, volumes.UpdateOpts{Description: spec.Description}).Extract(); err != nil {
			return vol, fmt.Errorf("changing the description of volume %s in %s: %w", vol.ID, v, err)
		}

		vol.Description = *spec.Description
	}

	switch {
	case spec.SizeGB == vol.SizeGB:
		return vol, nil
	case spec.SizeGB < vol.SizeGB:
		return vol, fmt.Errorf("volume %s in %s has %d GiB, more than the %d GiB configured: Cinder cannot shrink a volume; "+
			"set size_gb to %d or more", vol.ID, v, vol.SizeGB, spec.SizeGB, vol.SizeGB)
	}

	tflog.Info(ctx, "Extending a volume", map[string]any{"volume_id": vol.ID, "from_gb": vol.SizeGB, "to_gb": spec.SizeGB})

	if err := volumes.ExtendSize(ctx, v.cinder, vol.ID, volumes.ExtendSizeOpts{NewSize: spec.SizeGB}).ExtractErr(); err != nil {
		return vol, fmt.Errorf("extending volume %s in %s from %d to %d GiB: %w", vol.ID, v, vol.SizeGB, spec.SizeGB, cinderRefusal(err))
	}

	grown, err := v.wait(ctx, vol.ID, extendPending, []string{StatusAvailable, StatusInUse})
	if err == nil && grown.SizeGB != spec.SizeGB {
		err = fmt.Errorf("volume %s has %d GiB after its extend to %d GiB (Cinder's volume service log says why)", vol.ID, grown.SizeGB, spec.SizeGB)
	}

	if err != nil {
		return vol, fmt.Errorf("extending volume %s in %s: %w", vol.ID, v, err)
	}

	return grown, nil
}

// Observation is what Observe found of a recorded volume.
type Observation struct {
	// Volume is what exists (nil: the volume is gone).
	Volume *Volume
	// RefoundFrom is the recorded ID when Volume was found again by name because that ID is gone.
	RefoundFrom string
}

// Observe reads recorded volume id; when it is gone, the volume of name is taken for it only
// when an interrupted create of a unikorn_volume left it (the ownership rule of a create).
func (v *Volumes) Observe(ctx context.Context, id, name string) (Observation, error) {
	vol, err := v.get(ctx, id)

	switch {
	case err == nil && vol.Status != "deleting":
		return Observation{Volume: vol}, nil
	case err != nil && !gophercloud.ResponseCodeIs(err, http.StatusNotFound):
		return Observation{}, fmt.Errorf("reading volume %s in %s: %w", id, v, err)
	}

	found, err := v.find(ctx, naming.Volume(name))
	if err != nil || found == nil || found.ID == id || !cloud.Owns(Type, found.Mark) {
		return Observation{}, err
	}

	return Observation{Volume: found, RefoundFrom: id}, nil
}

// Delete deletes recorded volume id (already gone is success): detached first from every server
// it is attached to, through Nova, then deleted and waited for until Cinder no longer has it. A
// volume with snapshots is refused by Cinder, and the error says so: its snapshots are not this
// resource's to delete.
func (v *Volumes) Delete(ctx context.Context, id string) error {
	vol, err := v.get(ctx, id)
	if gophercloud.ResponseCodeIs(err, http.StatusNotFound) {
		return nil
	}

	if err != nil {
		return fmt.Errorf("reading volume %s in %s: %w", id, v, err)
	}

	if err := v.detachAll(ctx, vol); err != nil {
		return err
	}

	if err := v.deleteAndWait(ctx, id); err != nil {
		return fmt.Errorf("deleting volume %s in %s: %w", id, v, err)
	}

	return nil
}

// detachAll detaches vol from every server it is attached to and waits until it is available.
func (v *Volumes) detachAll(ctx context.Context, vol *Volume) error {
	if len(vol.Attachments) == 0 {
		return nil
	}

	for _, a := range vol.Attachments {
		if err := v.Detach(ctx, a.ServerID, vol.ID); err != nil {
			return err
		}
	}

	return nil
}

// Detach detaches volume id from server serverID through Nova (one that is not attached there,
// or a server that is gone, is success) and waits until Cinder says it is no longer attached
// there.
func (v *Volumes) Detach(ctx context.Context, serverID, id string) error {
	v.wrote(id) // its status and attachments change
	tflog.Info(ctx, "Detaching a volume", map[string]any{"volume_id": id, "server_id": serverID})

	err := volumeattach.Delete(ctx, v.compute, serverID, id).ExtractErr()
	if err != nil && !gophercloud.ResponseCodeIs(err, http.StatusNotFound) {
		return fmt.Errorf("detaching volume %s from server %s in %s: %w", id, serverID, v, err)
	}

	return v.waitDetached(ctx, id, serverID)
}

// Attach attaches volume id to server serverID through Nova, once the volume is free to attach
// (waitAttachable: a volume that another server holds is waited for, then named), and waits
// until Cinder says it is attached there; one attached there already is left as it is.
func (v *Volumes) Attach(ctx context.Context, serverID, id string) error {
	v.wrote(id) // its status and attachments change

	here, err := v.waitAttachable(ctx, id, serverID)
	if err != nil {
		return err
	}

	if !here {
		if err := v.requestAttach(ctx, serverID, id); err != nil {
			return err
		}
	}

	return v.waitAttached(ctx, id, serverID)
}

// Pseudo-states of an attach request, for requestAttach.
const (
	attachSent = "sent" // Nova took the request
	attachHeld = "held" // Nova still maps the volume to a server
)

// requestAttach asks Nova to attach volume id to server serverID, once Cinder says the volume is
// free. Nova may still refuse it for up to attachWaitBudget (heldByNova): its compute service
// drops a detached volume's block device mapping only after Cinder says the volume is available,
// and Nova's API refuses to attach a volume it still maps to a server ("volume ... is already
// attached to instances: <the server it left>", Nova's _check_volume_already_attached in Zed and
// 2025.1 alike; seen in CI on 2025.1). A refusal makes nothing, so the request is sent again
// until Nova takes it.
func (v *Volumes) requestAttach(ctx context.Context, serverID, id string) error {
	wctx, cancel := context.WithTimeout(ctx, attachWaitBudget)
	defer cancel()

	var refusal error

	_, err := cloud.Poll(wctx, cloud.PollSpec{Pending: []string{attachHeld}, Target: []string{attachSent}, MinInterval: time.Second, MaxInterval: 5 * time.Second},
		func(ctx context.Context) (struct{}, string, string, error) {
			tflog.Info(ctx, "Attaching a volume", map[string]any{"volume_id": id, "server_id": serverID})

			_, err := volumeattach.Create(ctx, v.compute, serverID, volumeattach.CreateOpts{VolumeID: id}).Extract()
			if heldByNova(err) {
				tflog.Debug(ctx, "Nova still maps the volume to a server", map[string]any{"volume_id": id, "refusal": err.Error()})
				refusal = err

				return struct{}{}, attachHeld, "", nil
			}

			if err != nil {
				return struct{}{}, "", "", err
			}

			return struct{}{}, attachSent, "", nil
		})
	var timeout *cloud.WaitTimeoutError
	if errors.As(err, &timeout) && refusal != nil && ctx.Err() == nil {
		err = fmt.Errorf("still mapped to a server by Nova after %s: %w", attachWaitBudget, refusal)
	}

	if err != nil {
		return fmt.Errorf("attaching volume %s to server %s in %s: %w", id, serverID, v, err)
	}

	return nil
}

// heldByNova says whether err is Nova's refusal to attach a volume that it still maps to a server
// (this one or another): a 400 "Invalid volume: volume <id> already attached" or "... is already
// attached to instances: <servers>" (Nova's _check_volume_already_attached).
func heldByNova(err error) bool {
	var unexpected gophercloud.ErrUnexpectedResponseCode

	return errors.As(err, &unexpected) && unexpected.Actual == http.StatusBadRequest &&
		strings.Contains(string(unexpected.Body), "already attached")
}

// deleteAndWait deletes volume id and waits until Cinder no longer has it.
func (v *Volumes) deleteAndWait(ctx context.Context, id string) error {
	v.wrote(id)

	err := volumes.Delete(ctx, v.cinder, id, nil).ExtractErr()

	switch {
	case gophercloud.ResponseCodeIs(err, http.StatusNotFound):
		return nil
	case gophercloud.ResponseCodeIs(err, http.StatusBadRequest):
		return fmt.Errorf("%w (Cinder refuses to delete a volume that is attached, being changed, or has snapshots: "+
			"see `openstack volume snapshot list --volume %s`)", err, id)
	case err != nil:
		return err
	}

	return v.WaitGone(ctx, id)
}

// WaitGone waits until Cinder no longer has volume id (deleted by this provider, or by Nova with
// the server it booted: a root volume deleted on termination).
func (v *Volumes) WaitGone(ctx context.Context, id string) error {
	_, err := cloud.Poll(ctx, cloud.PollSpec{Pending: deletePending, NotFoundIsTarget: true, MinInterval: time.Second, MaxInterval: 5 * time.Second},
		func(ctx context.Context) (*Volume, string, string, error) {
			vol, err := v.get(ctx, id)
			if err != nil {
				return nil, "", "", err
			}

			return vol, vol.Status, "", nil
		})
	if err != nil {
		return fmt.Errorf("waiting for volume %s in %s to be deleted: %w", id, v, err)
	}

	return nil
}

// Pseudo-states of a volume as seen by one server, for the attachment waits.
const (
	seenFree      = "free"      // available: attachable
	seenHere      = "here"      // attached to the server
	seenElsewhere = "elsewhere" // attached to another server, or on its way somewhere
	seenBusy      = "busy"      // attaching, detaching, extending, ...
)

// seenBy is the state of vol for the server serverID.
func seenBy(vol *Volume, serverID string) string {
	for _, a := range vol.Attachments {
		if a.ServerID == serverID {
			if vol.Status == StatusInUse {
				return seenHere
			}

			return seenBusy
		}
	}

	switch vol.Status {
	case StatusAvailable:
		return seenFree
	case StatusInUse:
		return seenElsewhere
	case "attaching", "detaching", "reserved", "extending", "creating", "downloading", "retyping", "maintenance":
		return seenBusy
	}

	return vol.Status
}

// attachWaitBudget is how long an attach waits for a volume that another server still holds:
// moving a volume between two servers in one apply detaches it from the first while the second
// waits for it.
const attachWaitBudget = 5 * time.Minute

// waitSeen polls volume id until the server serverID sees it in one of target, through pending.
func (v *Volumes) waitSeen(ctx context.Context, id, serverID string, pending, target []string) (*Volume, error) {
	return cloud.Poll(ctx, cloud.PollSpec{Pending: pending, Target: target, MinInterval: time.Second, MaxInterval: 5 * time.Second},
		func(ctx context.Context) (*Volume, string, string, error) {
			vol, err := v.get(ctx, id)
			if err != nil {
				return nil, "", "", err
			}

			return vol, seenBy(vol, serverID), "", nil
		})
}

// waitAttachable waits, up to attachWaitBudget, until volume id can be attached to server
// serverID: available, or attached to it already (here true). A volume that another server
// keeps is an error that names the server.
func (v *Volumes) waitAttachable(ctx context.Context, id, serverID string) (here bool, err error) {
	wctx, cancel := context.WithTimeout(ctx, attachWaitBudget)
	defer cancel()

	vol, err := v.waitSeen(wctx, id, serverID, []string{seenElsewhere, seenBusy}, []string{seenFree, seenHere})

	switch {
	case gophercloud.ResponseCodeIs(err, http.StatusNotFound):
		return false, fmt.Errorf("volume %s is not in %s", id, v)
	case err != nil && vol != nil && len(vol.Attachments) > 0 && ctx.Err() == nil:
		return false, fmt.Errorf("volume %s in %s is still attached to server %s after %s: a volume is attached to one server "+
			"at a time; remove it from that server's volumes (or detach it) first", id, v, vol.Attachments[0].ServerID, attachWaitBudget)
	case err != nil:
		return false, fmt.Errorf("waiting for volume %s in %s to be free to attach: %w", id, v, err)
	}

	return seenBy(vol, serverID) == seenHere, nil
}

// waitAttached waits until volume id is attached to server serverID (in-use there).
func (v *Volumes) waitAttached(ctx context.Context, id, serverID string) error {
	if _, err := v.waitSeen(ctx, id, serverID, []string{seenFree, seenBusy}, []string{seenHere}); err != nil {
		return fmt.Errorf("waiting for volume %s in %s to be attached to server %s: %w", id, v, serverID, err)
	}

	return nil
}

// waitDetached waits until volume id is no longer attached to server serverID (a 404: gone, so
// detached too).
func (v *Volumes) waitDetached(ctx context.Context, id, serverID string) error {
	_, err := cloud.Poll(ctx, cloud.PollSpec{
		Pending: []string{seenHere, seenBusy}, Target: []string{seenFree, seenElsewhere}, NotFoundIsTarget: true,
		MinInterval: time.Second, MaxInterval: 5 * time.Second,
	}, func(ctx context.Context) (*Volume, string, string, error) {
		vol, err := v.get(ctx, id)
		if err != nil {
			return nil, "", "", err
		}

		return vol, seenBy(vol, serverID), "", nil
	})
	if err != nil {
		return fmt.Errorf("waiting for volume %s in %s to be detached from server %s: %w", id, v, serverID, err)
	}

	return nil
}
