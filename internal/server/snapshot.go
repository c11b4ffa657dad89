package server

// This file is the core of a server's snapshots (unikorn_server_snapshot and the
// unikorn_server_snapshot_now action): Nova's create-image of the server's disk, polled until
// Glance says the image is active, then published as an organization image. The image lives
// in the identity's project and is found again there by its exact name; the server's Unikorn
// image properties come with it (Nova copies the properties of the server's image into every
// snapshot), so that the image data sources accept it for the organization.
//
// Like Unikorn's own snapshots (uni-region provider.go:CreateSnapshot, v1.13.0 and later), the
// image carries unikorn:identity_id, the identity's ID as Unikorn names identities: its Keystone
// project's name without unikorn-identity- (Unikorn's Identity resource name; the name of a
// unikorn_identity). Unikorn lists only public images, so it shows a snapshot only when it is
// published public (VisibilityPublic, Unikorn's shape: public with unikorn:organization:id);
// the default is private (VisibilityPrivate).

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"strings"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/servers"
	"github.com/gophercloud/gophercloud/v2/openstack/image/v2/images"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/image"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// Glance properties Nova writes on every snapshot image.
const (
	propertyImageType    = "image_type"
	propertyInstanceUUID = "instance_uuid"
	imageTypeSnapshot    = "snapshot"

	unikornPropertyPrefix = "unikorn:"

	// PropertyIdentityID is the Glance property of a snapshot that names its identity as Unikorn
	// does (uni-region provider.go: identityIDLabel), which Unikorn's DeleteImage reads to delete
	// the snapshot as that identity's user.
	PropertyIdentityID = "unikorn:identity_id"
)

// Glance visibilities a snapshot is published with (visibility).
const (
	// VisibilityPrivate keeps the image to the identity's project (and admins): Unikorn, which
	// lists only public images, does not show it.
	VisibilityPrivate = "private"
	// VisibilityPublic is Unikorn's shape of a snapshot: public in Glance, so that Unikorn lists it
	// for its organization (unikorn:organization:id); every project of the cloud sees it too.
	VisibilityPublic = "public"
)

// Visibilities are the values of visibility.
var Visibilities = []string{VisibilityPrivate, VisibilityPublic}

// SnapshotSpec is the snapshot a configuration asks for.
type SnapshotSpec struct {
	// Name is the Glance name of the image (naming.SnapshotImage), unique in the identity's project.
	Name string
	// ServerID is the server whose disk is taken.
	ServerID string
	// OrganizationID makes it an image of this organization (unikorn:organization:id).
	OrganizationID string
	// Visibility is VisibilityPrivate ("" too) or VisibilityPublic.
	Visibility string
}

// visibility is the Glance visibility of spec.
func (spec SnapshotSpec) visibility() string {
	if spec.Visibility == "" {
		return VisibilityPrivate
	}

	return spec.Visibility
}

// Snapshots makes and keeps the snapshot images of one tenant.
type Snapshots struct {
	compute *gophercloud.ServiceClient
	images  *image.Manager
	tenant  string
	// bound records, for the run's listings, that a snapshot is a write of its server.
	bound *cloud.Tenant
	// identityID is the identity's ID as Unikorn names it ("": read from the identity's project
	// when first asked, unikornIdentityID).
	identityID string
	// publisher is the admin scope's manager of the images, which makes an image public (Glance's
	// publicize_image is admin-only under stock policy); nil when not bound (Publisher).
	publisher *image.Manager
}

// Publisher lets the snapshots be published public, through t, the same identity bound with
// cloud.Admin: Glance reserves making an image public for admin under stock policy (Unikorn makes
// its snapshots public with its privileged scope, under its own policy packages).
func (s *Snapshots) Publisher(t *cloud.Tenant) error {
	glance, err := t.Image()
	if err != nil {
		return err
	}

	s.publisher = image.NewManager(glance, t.ProjectID(), t.Region(), t.AdminRefusal)

	return nil
}

// unikornIdentityID is the identity's ID as Unikorn names identities: its Keystone project's name
// without the prefix unikorn-identity- (the name of its unikorn_identity, or the ID of a Unikorn
// Identity resource).
func (s *Snapshots) unikornIdentityID(ctx context.Context) (string, error) {
	if s.identityID != "" {
		return s.identityID, nil
	}

	p, ok, err := s.bound.IdentityProject(ctx)

	switch {
	case err != nil:
		return "", fmt.Errorf("reading the identity's project: %w", err)
	case !ok:
		return "", errors.New("the identity's project cannot be read: no cloud behind the tenant")
	}

	s.identityID = strings.TrimPrefix(p.Name, naming.IdentityPrefix)

	return s.identityID, nil
}

// NewSnapshots binds the core to t: cloud.AsIdentity to take a snapshot (Nova asks Glance for
// the image as the identity's user, in its project), cloud.Privileged to read and delete one.
func NewSnapshots(t *cloud.Tenant) (*Snapshots, error) {
	compute, err := t.Compute()
	if err != nil {
		return nil, err
	}

	glance, err := t.Image()
	if err != nil {
		return nil, err
	}

	return &Snapshots{compute: compute, images: image.NewManager(glance, t.ProjectID(), t.Region(), nil).Of(SnapshotType), tenant: t.String(), bound: t}, nil
}

// String names the tenant for messages: "project P, region R".
func (s *Snapshots) String() string { return s.tenant }

// Region is the snapshots' region.
func (s *Snapshots) Region() string { return s.images.Region() }

// The resource types whose creates mark a snapshot image: the resource, and the action (whose
// images nothing manages afterwards, marked so that no create takes them for its own).
const (
	SnapshotType    = "unikorn_server_snapshot"
	SnapshotNowType = "unikorn_server_snapshot_now"
)

// snapshotMarks are the Glance properties a snapshot of kind is asked for with (Nova's
// create-image metadata): its creation mark, and the completion mark explicitly unset, because
// Nova copies the properties of the server's image into the snapshot, and an image made by this
// provider carries a completion mark of its own.
func snapshotMarks(kind string) map[string]string {
	props := naming.MadeFor(kind).Properties()
	props[naming.MarkCompletedKey] = "false"

	return props
}

// existing describes the image img of name, met by a create of kind, for the ownership rule.
func (s *Snapshots) existing(kind, name string, img *images.Image) cloud.Existing {
	ex := cloud.Existing{Type: kind, Kind: "snapshot image", Name: name, ID: img.ID, Where: s.String(), Mark: naming.MarkOf(img.Properties)}
	if kind == SnapshotType {
		ex.ImportID = s.Region() + "/" + img.ID
	}

	return ex
}

// Take asks Nova for a snapshot of spec's server in the image spec.Name, through cloud.Create (a
// lost answer is looked for by the name, and only an image this kind of create began is taken),
// and returns the new image (queued: Nova is still uploading the disk). The image carries the
// creation mark from its first moment: a unikorn_server_snapshot's when adopt is set, else the
// action's. With adopt, an image of the name that already exists in the identity's project is
// adopted when an interrupted create of a unikorn_server_snapshot began it, of the same server;
// anything else is an error (a *cloud.ExistsError when it is not such a create's). Without
// adopt (the action), any image of the name is an error.
func (s *Snapshots) Take(ctx context.Context, spec SnapshotSpec, adopt bool) (img *images.Image, adopted bool, err error) {
	name := naming.SnapshotImage(spec.Name)

	kind := SnapshotNowType
	if adopt {
		kind = SnapshotType
	}

	found, err := s.images.Find(ctx, name)
	if err != nil {
		return nil, false, err
	}

	if found != nil {
		from, _ := found.Properties[propertyInstanceUUID].(string)

		if !adopt {
			return nil, false, fmt.Errorf("a snapshot image %q (%s) already exists in %s: choose another name "+
				"(for example with a timestamp) or delete it", spec.Name, found.ID, s)
		}

		if err := cloud.Adopt(s.existing(kind, name, found)); err != nil {
			return nil, false, err
		}

		if from != spec.ServerID {
			return nil, false, fmt.Errorf("image %q (%s) already exists in %s and is not a snapshot of server %s "+
				"(its instance_uuid is %q): choose another name or delete it", spec.Name, found.ID, s, spec.ServerID, from)
		}

		return found, true, nil
	}

	identityID, err := s.unikornIdentityID(ctx)
	if err != nil {
		return nil, false, err
	}

	md := snapshotMarks(kind)
	md[image.PropertyOrganizationID] = spec.OrganizationID
	md[PropertyIdentityID] = identityID
	opts := servers.CreateImageOpts{Name: name, Metadata: md}

	s.bound.Wrote(serverKind, spec.ServerID) // Nova's task state of the server changes

	img, err = cloud.Create(ctx, cloud.CreateSpec[*images.Image]{
		Kind: "snapshot image",
		Name: name,
		Create: func(ctx context.Context) (*images.Image, error) {
			id, err := servers.CreateImage(ctx, s.compute, spec.ServerID, opts).ExtractImageID()
			if err != nil {
				return nil, err
			}

			return &images.Image{ID: id, Name: name, Status: images.ImageStatusQueued}, nil
		},
		Find:   func(ctx context.Context) ([]*images.Image, error) { return s.images.Named(ctx, name) },
		ID:     func(i *images.Image) string { return i.ID },
		Delete: func(ctx context.Context, id string) error { return s.images.Delete(ctx, id, name, false) },
		Adopt:  func(i *images.Image) error { return cloud.Adopt(s.existing(kind, name, i)) },
	})

	switch {
	case gophercloud.ResponseCodeIs(err, http.StatusNotFound):
		return img, false, fmt.Errorf("snapshotting server %s: no such server in %s (%w)", spec.ServerID, s, err)
	case gophercloud.ResponseCodeIs(err, http.StatusConflict):
		return img, false, fmt.Errorf("snapshotting server %s: Nova refused while the server is busy or in a state that "+
			"cannot be snapshotted (%w)", spec.ServerID, err)
	case err != nil:
		return img, false, fmt.Errorf("snapshotting server %s: %w", spec.ServerID, err)
	}

	return img, false, nil
}

// Glance states of an image on its way to active.
var snapshotPending = []string{
	string(images.ImageStatusQueued), string(images.ImageStatusSaving),
	string(images.ImageStatusUploading), string(images.ImageStatusImporting),
}

// Wait polls image id until Glance says it is active, telling progress each new status. A
// killed or deleted image, and one that Nova removed again (a failed snapshot), fail.
func (s *Snapshots) Wait(ctx context.Context, id, serverID string, progress Progress) (*images.Image, error) {
	last := ""

	img, err := cloud.Poll(ctx, cloud.PollSpec{Pending: snapshotPending, Target: []string{string(images.ImageStatusActive)}},
		func(ctx context.Context) (*images.Image, string, string, error) {
			img, err := s.images.Get(ctx, id)
			if err != nil {
				return nil, "", "", err
			}

			if status := string(img.Status); status != last {
				last = status
				progress.say(ctx, fmt.Sprintf("Snapshot image %s of server %s is %s", id, serverID, status))
			}

			return img, string(img.Status), "", nil
		})

	var state *cloud.StateError

	switch {
	case gophercloud.ResponseCodeIs(err, http.StatusNotFound):
		return nil, fmt.Errorf("the snapshot image %s of server %s is gone: Nova's snapshot failed and removed it "+
			"(see `openstack server event list %s`)", id, serverID, serverID)
	case errors.As(err, &state):
		return img, fmt.Errorf("the snapshot image %s of server %s is %s in Glance: Nova's snapshot failed "+
			"(see `openstack server event list %s`)", id, serverID, state.State, serverID)
	case err != nil:
		return img, fmt.Errorf("waiting for the snapshot image %s of server %s to be active: %w", id, serverID, err)
	}

	return img, nil
}

// Publish makes img an image of spec's organization, with spec's visibility: with
// unikorn:organization:id, and without the unikorn:digest Nova copied from the server's image
// (the signature of that image's ID, which does not hold for this one; organization images are
// not signature-checked); then private, or public (Unikorn's shape) through the admin scope
// (Publisher). A Glance patch of the properties when any differ and one of the visibility when it
// differs, none otherwise; the marks are kept, and so is an image's unikorn:identity_id.
func (s *Snapshots) Publish(ctx context.Context, img *images.Image, spec SnapshotSpec) (*images.Image, error) {
	return s.publish(ctx, img, spec, "")
}

// Finish is the last step of a create of kind (SnapshotType or SnapshotNowType): Publish, and
// in the same patch the completion mark, when a create of kind began img (an imported image is
// never marked).
func (s *Snapshots) Finish(ctx context.Context, img *images.Image, spec SnapshotSpec, kind string) (*images.Image, error) {
	return s.publish(ctx, img, spec, kind)
}

// publish is Publish, with the completion mark of completes ("": none).
func (s *Snapshots) publish(ctx context.Context, img *images.Image, spec SnapshotSpec, completes string) (*images.Image, error) {
	want := image.UserProperties(img)
	want[image.PropertyOrganizationID] = spec.OrganizationID
	delete(want, image.PropertyDigest)

	if have := naming.MarkOf(img.Properties); completes != "" && have.Kind == completes && !have.Completed {
		maps.Copy(want, have.Done().Properties())
	}

	fail := func(err error) (*images.Image, error) {
		return img, fmt.Errorf("publishing the snapshot image %s for organization %s (%s): %w", img.ID, spec.OrganizationID, spec.visibility(), err)
	}

	// The properties first, at the visibility the image has: an image made public already says
	// which organization it is for.
	keep := string(img.Visibility)
	if keep == "" {
		keep = VisibilityPrivate
	}

	out, err := s.images.Converge(ctx, img, image.Spec{
		Visibility: keep, Protected: img.Protected, Tags: img.Tags,
		MinDiskGB: img.MinDiskGigabytes, MinRAMMiB: img.MinRAMMegabytes, Properties: want,
	})
	if err != nil {
		return fail(err)
	}

	to := spec.visibility()
	if string(out.Visibility) == to {
		return out, nil
	}

	// Only making an image public is admin's; its owner makes it private again.
	publisher := s.images
	if to == VisibilityPublic {
		if publisher = s.publisher; publisher == nil {
			return fail(errors.New("making the image public takes the admin scope, which is not bound"))
		}
	}

	next, err := publisher.Converge(ctx, out, image.Spec{
		Visibility: to, Protected: out.Protected, Tags: out.Tags,
		MinDiskGB: out.MinDiskGigabytes, MinRAMMiB: out.MinRAMMegabytes, Properties: image.UserProperties(out),
	})
	if err != nil {
		return out, fmt.Errorf("publishing the snapshot image %s for organization %s (%s): %w", img.ID, spec.OrganizationID, to, err)
	}

	return next, nil
}

// Snap takes a snapshot that nothing manages afterwards (the unikorn_server_snapshot_now
// action): Take (a name in use is an error), Wait, Publish. It returns the image as published.
func (s *Snapshots) Snap(ctx context.Context, spec SnapshotSpec, progress Progress) (*images.Image, error) {
	progress.say(ctx, fmt.Sprintf("Asking Nova for a snapshot of server %s named %q", spec.ServerID, spec.Name))

	img, _, err := s.Take(ctx, spec, false)
	if err != nil {
		return nil, err
	}

	if img, err = s.Wait(ctx, img.ID, spec.ServerID, progress); err != nil {
		return img, err
	}

	if img, err = s.Finish(ctx, img, spec, SnapshotNowType); err != nil {
		return img, err
	}

	progress.say(ctx, fmt.Sprintf("Snapshot image %s (%s) is active, published %s for organization %s", img.ID, img.Name,
		spec.visibility(), spec.OrganizationID))

	return img, nil
}

// Get reads image id.
func (s *Snapshots) Get(ctx context.Context, id string) (*images.Image, error) {
	img, err := s.images.Get(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("reading the snapshot image %s: %w", id, err)
	}

	return img, nil
}

// Observe reads image id, or, when it is gone, the identity's image named name: only one that
// an unfinished create of a unikorn_server_snapshot began (the rule of a create); another image
// of the name is not this resource's, which is then gone.
func (s *Snapshots) Observe(ctx context.Context, id, name string) (image.Observed, error) {
	obs, err := s.images.Observe(ctx, id, name)
	if err != nil || obs.RefoundFrom == "" || cloud.Owns(SnapshotType, naming.MarkOf(obs.Image.Properties)) {
		return obs, err
	}

	tflog.Warn(ctx, "The recorded snapshot image is gone; an image of its name is not this configuration's, so it is not taken",
		map[string]any{"recorded_id": id, "found_id": obs.Image.ID, "marks": naming.MarkOf(obs.Image.Properties).String()})

	return image.Observed{}, nil
}

// Delete deletes image id (named name): already gone is success; Glance's 409 while the image
// is in use (a server boots from it) is an *image.InUseError.
func (s *Snapshots) Delete(ctx context.Context, id, name string) error {
	return s.images.Delete(ctx, id, name, false)
}

// Snapshot is a snapshot image as unikorn_server_snapshot shows it.
type Snapshot struct {
	*image.Glance

	// ServerID is the server it was taken of (Nova's instance_uuid property).
	ServerID string
	// OrganizationID is its unikorn:organization:id.
	OrganizationID string
	// Visibility is its Glance visibility.
	Visibility string
	// Unaccepted says why the image data sources would leave it out ("" when they accept it):
	// the server's image did not carry valid Unikorn properties.
	Unaccepted string
}

// SnapshotOf is img as unikorn_server_snapshot shows it.
func SnapshotOf(img *images.Image) *Snapshot {
	out := &Snapshot{Glance: image.ViewOf(img, "")}
	out.ServerID, _ = img.Properties[propertyInstanceUUID].(string)
	out.OrganizationID, _ = img.Properties[image.PropertyOrganizationID].(string)
	out.Visibility = string(img.Visibility)

	if kind, _ := img.Properties[propertyImageType].(string); kind != imageTypeSnapshot {
		out.Unaccepted = "it is not a Nova snapshot (image_type " + kind + ")"
	} else if err := image.Validate(img.Properties); err != nil {
		out.Unaccepted = err.Error()
	}

	return out
}

// UnikornProperties are the Unikorn image properties of props: its unikorn: keys.
func UnikornProperties(props map[string]string) map[string]string {
	out := map[string]string{}

	for k, v := range props {
		if strings.HasPrefix(k, unikornPropertyPrefix) {
			out[k] = v
		}
	}

	return out
}

// LocateSnapshot finds, for an import, the snapshot image given by ID or by exact name in
// region, in whatever identity's project it is, through the provider's configured scope (which
// must see every project's images, as an admin's does).
func LocateSnapshot(ctx context.Context, c *cloud.Client, region, idOrName string) (cloud.Located, error) {
	glance, err := c.Base().Image(region)
	if err != nil {
		return cloud.Located{}, err
	}

	img, err := image.NewManager(glance, "", region, nil).Locate(ctx, idOrName)
	if err != nil {
		return cloud.Located{}, err
	}

	if kind, _ := img.Properties[propertyImageType].(string); kind != imageTypeSnapshot {
		return cloud.Located{}, fmt.Errorf("image %q (%s) in region %s is not a server snapshot (its image_type is %q)",
			img.Name, img.ID, region, kind)
	}

	return cloud.Located{ID: img.ID, Name: img.Name, ProjectID: img.Owner}, nil
}
