package image

// This file is the Terraform-free core of unikorn_image: a region's Glance image made by the
// service user in its own project, found again by exact name, filled by Glance's web-download
// import and converged in place with Glance's JSON patch.

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/image/v2/imageimport"
	"github.com/gophercloud/gophercloud/v2/openstack/image/v2/images"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// Spec is the image a configuration asks for.
type Spec struct {
	Name            string
	SourceURL       string
	DiskFormat      string
	ContainerFormat string
	Visibility      string
	Protected       bool
	Tags            []string
	// Properties are the user's properties, unikorn:organization:id included for an
	// organization image.
	Properties map[string]string
	MinDiskGB  int
	MinRAMMiB  int
}

// Manager makes and converges the images of one region in the service user's own project.
type Manager struct {
	client *gophercloud.ServiceClient
	// owner is the project the images are made in and found again in ("": any).
	owner  string
	region string
	// refusal turns a 403 into the error that names the missing grant (nil: as it is).
	refusal func(service, call string, err error) error
	// pollMin is the first wait between polls of an import (0: cloud.Poll's default).
	pollMin time.Duration
	// kind is the resource type whose unfinished creates Observe may find again by name ("":
	// unikorn_image).
	kind string
}

// Of is m for the images of resource type kind (a unikorn_server_snapshot's): Observe then finds
// again by name only an unfinished create of that type.
func (m *Manager) Of(kind string) *Manager {
	c := *m
	c.kind = kind

	return &c
}

// NewManager is the manager of the images of region (a resolved name) owned by owner.
func NewManager(client *gophercloud.ServiceClient, owner, region string, refusal func(service, call string, err error) error) *Manager {
	return &Manager{client: client, owner: owner, region: region, refusal: refusal}
}

// Region is the region of the manager's images.
func (m *Manager) Region() string { return m.region }

func (m *Manager) refused(call string, err error) error {
	if m.refusal == nil || err == nil {
		return err
	}

	return m.refusal("Glance", call, err)
}

// TypeName is the resource type of an image's ownership marks (Glance properties).
const TypeName = "unikorn_image"

// glanceManaged tells whether a property is not the user's: Glance's own (the import's
// bookkeeping, the hashes, the stores) and the ownership marks. Those are neither shown nor
// converged.
func glanceManaged(key string) bool {
	switch key {
	case "stores", "locations", "direct_url", "properties":
		return true
	}

	return strings.HasPrefix(key, "os_glance_") || strings.HasPrefix(key, "os_hash_") || naming.IsMarkKey(key)
}

// UserProperties are the properties of img that are the user's: every additional property
// except Glance's own and the ownership marks, as strings (a non-string value in its JSON form).
func UserProperties(img *images.Image) map[string]string {
	out := map[string]string{}

	for k, v := range img.Properties {
		if glanceManaged(k) {
			continue
		}

		if s, ok := v.(string); ok {
			out[k] = s
		} else {
			out[k] = fmt.Sprint(v)
		}
	}

	return out
}

// Find is the image of the owner named exactly name; nil when there is none, a
// *naming.DuplicateError when there are several.
func (m *Manager) Find(ctx context.Context, name string) (*images.Image, error) {
	all, err := m.named(ctx, name)
	if err != nil {
		return nil, err
	}

	img, ok, err := naming.One("image", name, all, func(i images.Image) string { return i.Name }, func(i images.Image) string { return i.ID })
	if !ok {
		return nil, err
	}

	return &img, nil
}

// Named lists the owner's images named exactly name, whatever their visibility: the lookup of a
// create that goes through cloud.Create.
func (m *Manager) Named(ctx context.Context, name string) ([]*images.Image, error) {
	all, err := m.named(ctx, name)

	out := make([]*images.Image, len(all))
	for i := range all {
		out[i] = &all[i]
	}

	return out, err
}

// named lists the owner's images named exactly name, whatever their visibility.
func (m *Manager) named(ctx context.Context, name string) ([]images.Image, error) {
	all, err := cloud.ListAll(ctx, images.List(m.client, images.ListOpts{Name: name, Owner: m.owner, Visibility: visibilityAll, Limit: pageLimit}),
		images.ExtractImages, fmt.Sprintf("the images named %q", name))
	if err != nil {
		return nil, err
	}

	return naming.Exact(all, name, func(i images.Image) string { return i.Name }), nil
}

// Get is image id; gophercloud's 404 when it is gone.
func (m *Manager) Get(ctx context.Context, id string) (*images.Image, error) {
	return images.Get(ctx, m.client, id).Extract()
}

// Created is the image a create made or adopted.
type Created struct {
	Image *images.Image
	// Adopted says that the image was what an interrupted create of a unikorn_image left
	// unfinished, and was taken over.
	Adopted bool
}

// Existing describes img, an image of the owner, for the ownership rule (cloud.Adopt) of a
// create of unikorn_image.
func (m *Manager) Existing(img *images.Image) cloud.Existing {
	return cloud.Existing{Type: TypeName, Kind: "image", Name: img.Name, ID: img.ID,
		Where: fmt.Sprintf("in project %s, region %s", img.Owner, m.region), ImportID: m.region + "/" + img.ID,
		Mark: naming.MarkOf(img.Properties)}
}

// Create makes the owner's image named spec.Name (unprotected: protection is set once the
// import is done, so that a failed import leaves an image that can be deleted), carrying the
// creation mark of unikorn_image among its properties, through cloud.Create. Nothing is
// imported yet. The image of the name is looked for first: what an interrupted create of a
// unikorn_image left (creation mark, no completion) is adopted; any other is a
// *cloud.ExistsError, and nothing is written. The look after a lost answer takes only an image
// this create may own.
func (m *Manager) Create(ctx context.Context, spec Spec) (Created, error) {
	found, err := m.Find(ctx, spec.Name)
	if err != nil {
		return Created{}, err
	}

	if found != nil {
		if err := cloud.Adopt(m.Existing(found)); err != nil {
			return Created{}, err
		}

		tflog.Warn(ctx, "Adopting the image an interrupted create left unfinished", map[string]any{
			"image_id": found.ID, "status": string(found.Status),
		})

		return Created{Image: found, Adopted: true}, nil
	}

	props := maps.Clone(spec.Properties)
	if props == nil {
		props = map[string]string{}
	}

	maps.Copy(props, naming.MadeFor(TypeName).Properties())

	visibility := images.ImageVisibility(spec.Visibility)
	opts := images.CreateOpts{
		Name: spec.Name, Visibility: &visibility, Tags: spec.Tags, DiskFormat: spec.DiskFormat,
		ContainerFormat: spec.ContainerFormat, MinDisk: spec.MinDiskGB, MinRAM: spec.MinRAMMiB, Properties: props,
	}

	img, err := cloud.Create(ctx, cloud.CreateSpec[*images.Image]{
		Kind: "image",
		Name: spec.Name,
		Create: func(ctx context.Context) (*images.Image, error) {
			return images.Create(ctx, m.client, opts).Extract()
		},
		Find:   func(ctx context.Context) ([]*images.Image, error) { return m.Named(ctx, spec.Name) },
		ID:     func(i *images.Image) string { return i.ID },
		Delete: func(ctx context.Context, id string) error { return images.Delete(ctx, m.client, id).ExtractErr() },
		Adopt:  func(i *images.Image) error { return cloud.Adopt(m.Existing(i)) },
	})
	if err != nil {
		return Created{Image: img}, m.refused("creating an image of visibility "+spec.Visibility, err)
	}

	return Created{Image: img}, nil
}

// Complete writes the completion mark on img, the last step of a create, when img is an
// unfinished create of a unikorn_image (an imported image is never marked); one request.
func (m *Manager) Complete(ctx context.Context, img *images.Image) (*images.Image, error) {
	if have := naming.MarkOf(img.Properties); have.Kind != TypeName || have.Completed {
		return img, nil
	}

	out, err := images.Update(cloud.Repeatable(ctx), m.client, img.ID, images.UpdateOpts{images.UpdateImageProperty{
		Op: images.AddOp, Name: naming.MarkCompletedKey, Value: naming.MarkCompletedValue,
	}}).Extract()
	if err != nil {
		return img, m.refused("marking an image as created", fmt.Errorf("marking image %s as created: %w", img.ID, err))
	}

	return out, nil
}

// ImportError is an import that Glance gave up on, with Glance's reason.
type ImportError struct {
	// URL is the source as it may be shown (SafeURL: no query string, no user info).
	Image, URL, Status, Reason string
}

func (e *ImportError) Error() string {
	return fmt.Sprintf("Glance's web-download import of %s into image %s failed (image status %q): %s", e.URL, e.Image, e.Status, e.Reason)
}

// importTask is one of Glance's import tasks of an image (GET /v2/images/{id}/tasks).
type importTask struct {
	ID        string `json:"id"`
	Type      string `json:"type"`
	Status    string `json:"status"`
	Message   string `json:"message"`
	CreatedAt string `json:"created_at"`
	Input     struct {
		ImportRequest struct {
			Method struct {
				Name string `json:"name"`
				URI  string `json:"uri"`
			} `json:"method"`
		} `json:"import_req"`
	} `json:"input"`
}

// tasks are the import tasks of image id, newest first; none where Glance has no task API.
func (m *Manager) tasks(ctx context.Context, id string) ([]importTask, error) {
	var body struct {
		Tasks []importTask `json:"tasks"`
	}

	_, err := m.client.Get(ctx, m.client.ServiceURL("images", id, "tasks"), &body, nil)
	if gophercloud.ResponseCodeIs(err, http.StatusNotFound) {
		return nil, nil
	}

	if err != nil {
		return nil, fmt.Errorf("reading the import tasks of image %s: %w", id, err)
	}

	out := slices.DeleteFunc(body.Tasks, func(t importTask) bool { return t.Type != "api_image_import" })
	slices.SortStableFunc(out, func(a, b importTask) int { return strings.Compare(b.CreatedAt, a.CreatedAt) })

	return out, nil
}

// SourceURL is the URL of the newest web-download import of image id, "" when Glance no
// longer keeps its task (tasks expire) or the image was not made by web-download.
func (m *Manager) SourceURL(ctx context.Context, id string) (string, error) {
	all, err := m.tasks(ctx, id)
	if err != nil {
		return "", err
	}

	for _, t := range all {
		if t.Input.ImportRequest.Method.Name == string(imageimport.WebDownloadMethod) {
			return t.Input.ImportRequest.Method.URI, nil
		}
	}

	return "", nil
}

// Glance states of an image on its way to active.
var importPending = []string{
	string(images.ImageStatusQueued), string(images.ImageStatusImporting),
	string(images.ImageStatusSaving), string(images.ImageStatusUploading),
}

const importFailed = "failed"

// Import fills img (status queued: nothing imported yet) from url with Glance's web-download
// import, or waits for the import already running, until the image is active; an image
// already active is returned as it is. Progress is logged on every poll; the wait ends with
// ctx (the create timeout). A killed image or a failed import task is an *ImportError with
// Glance's reason.
func (m *Manager) Import(ctx context.Context, img *images.Image, url string) (*images.Image, error) {
	if img.Status == images.ImageStatusActive {
		return img, nil
	}

	// Tasks of an earlier import (an adopted image) do not speak for this one.
	earlier := map[string]bool{}

	if img.Status == images.ImageStatusQueued {
		if err := m.earlierTasks(ctx, img, earlier); err != nil {
			return img, err
		}

		err := imageimport.Create(ctx, m.client, img.ID, imageimport.CreateOpts{Name: imageimport.WebDownloadMethod, URI: url}).ExtractErr()
		if err != nil {
			return img, m.refused("importing an image by web-download",
				fmt.Errorf("starting the web-download import of %s: %w", SafeURL(url), scrubbed{err: err, url: url}))
		}

		tflog.Info(ctx, "Started Glance's web-download import", map[string]any{"image_id": img.ID, "source_url": SafeURL(url)})
	}

	start := time.Now()
	last := img

	out, err := cloud.Poll(ctx, cloud.PollSpec{Pending: importPending, Target: []string{string(images.ImageStatusActive)}, MinInterval: m.pollMin},
		func(ctx context.Context) (*images.Image, string, string, error) {
			got, err := m.Get(ctx, img.ID)
			if err != nil {
				return nil, "", "", err
			}

			last = got
			state, detail, err := m.importState(ctx, got, earlier)
			detail = Scrub(detail, url) // Glance's messages may quote the source

			tflog.Info(ctx, "Waiting for Glance's web-download import", map[string]any{
				"image_id": img.ID, "status": string(got.Status), "progress": detail,
				"elapsed_s": time.Since(start).Round(100 * time.Millisecond).Seconds(),
			})

			return got, state, detail, err
		})

	var stateErr *cloud.StateError
	if errors.As(err, &stateErr) {
		return last, &ImportError{Image: img.ID, URL: SafeURL(url), Status: string(last.Status), Reason: Scrub(stateErr.Detail, url)}
	}

	if err != nil {
		return last, scrubbed{err: err, url: url}
	}

	tflog.Info(ctx, "Glance's web-download import is done", map[string]any{
		"image_id": img.ID, "size_bytes": out.SizeBytes, "elapsed_s": time.Since(start).Round(100 * time.Millisecond).Seconds(),
	})

	return out, nil
}

// earlierTasks records in earlier the import tasks img already has: Glance marks an image whose
// import was ever started with os_glance_* properties, so a fresh image costs no request.
func (m *Manager) earlierTasks(ctx context.Context, img *images.Image, earlier map[string]bool) error {
	if !slices.ContainsFunc(slices.Collect(maps.Keys(img.Properties)), func(k string) bool { return strings.HasPrefix(k, "os_glance_") }) {
		return nil
	}

	prior, err := m.tasks(ctx, img.ID)
	for _, t := range prior {
		earlier[t.ID] = true
	}

	return err
}

// importState is the poll state of img: its Glance status, or "failed" (with Glance's reason)
// for a killed image, a failed store (os_glance_failed_import) or a failed import task; the
// detail of a pending state is the running task's progress message.
func (m *Manager) importState(ctx context.Context, img *images.Image, earlier map[string]bool) (string, string, error) {
	status := string(img.Status)

	if failed, _ := img.Properties["os_glance_failed_import"].(string); failed != "" {
		return importFailed, "the import failed for the store(s) " + failed, nil
	}

	if status == string(images.ImageStatusActive) {
		return status, "", nil
	}

	all, err := m.tasks(ctx, img.ID)
	if err != nil {
		return "", "", err
	}

	var task *importTask

	for i := range all {
		if !earlier[all[i].ID] {
			task = &all[i]
			break
		}
	}

	switch {
	case task != nil && task.Status == "failure":
		return importFailed, fmt.Sprintf("%s (import task %s)", task.Message, task.ID), nil
	case !slices.Contains(importPending, status):
		reason := "Glance gave no reason"
		if task != nil && task.Message != "" {
			reason = fmt.Sprintf("%s (import task %s)", task.Message, task.ID)
		}

		return importFailed, reason, nil
	case task != nil:
		return status, task.Message, nil
	}

	return status, "", nil
}

// Converge patches img (Glance's JSON patch) to what spec says of the attributes that change
// in place: visibility, protection, tags, minimums and the user's properties (Glance's own are
// left alone). No request when nothing differs.
func (m *Manager) Converge(ctx context.Context, img *images.Image, spec Spec) (*images.Image, error) {
	var ops images.UpdateOpts

	if string(img.Visibility) != spec.Visibility {
		ops = append(ops, images.UpdateVisibility{Visibility: images.ImageVisibility(spec.Visibility)})
	}

	if img.MinDiskGigabytes != spec.MinDiskGB {
		ops = append(ops, images.ReplaceImageMinDisk{NewMinDisk: spec.MinDiskGB})
	}

	if img.MinRAMMegabytes != spec.MinRAMMiB {
		ops = append(ops, images.ReplaceImageMinRam{NewMinRam: spec.MinRAMMiB})
	}

	if !cloud.SameSet(img.Tags, spec.Tags) {
		ops = append(ops, images.ReplaceImageTags{NewTags: append([]string{}, spec.Tags...)})
	}

	ops = append(ops, propertyPatch(UserProperties(img), spec.Properties)...)

	if img.Protected != spec.Protected {
		ops = append(ops, images.ReplaceImageProtected{NewProtected: spec.Protected})
	}

	if len(ops) == 0 {
		return img, nil
	}

	tflog.Debug(ctx, "Patching the image", map[string]any{"image_id": img.ID, "operations": len(ops)})

	out, err := images.Update(ctx, m.client, img.ID, ops).Extract()
	if err != nil {
		return img, m.refused("updating an image (visibility "+spec.Visibility+")", err)
	}

	return out, nil
}

// propertyPatch are the patch operations that turn have into want, in key order.
func propertyPatch(have, want map[string]string) []images.Patch {
	var ops []images.Patch

	for _, k := range slices.Sorted(maps.Keys(want)) {
		old, ok := have[k]

		switch {
		case !ok:
			ops = append(ops, images.UpdateImageProperty{Op: images.AddOp, Name: k, Value: want[k]})
		case old != want[k]:
			ops = append(ops, images.UpdateImageProperty{Op: images.ReplaceOp, Name: k, Value: want[k]})
		}
	}

	for _, k := range slices.Sorted(maps.Keys(have)) {
		if _, ok := want[k]; !ok {
			ops = append(ops, images.UpdateImageProperty{Op: images.RemoveOp, Name: k})
		}
	}

	return ops
}

// InUseError is Glance's refusal (409) to delete an image that is in use.
type InUseError struct {
	Name, ID string
	Err      error
}

func (e *InUseError) Error() string {
	return fmt.Sprintf("Glance refuses to delete image %q (%s) because it is in use (by a volume, a snapshot or a server "+
		"whose disk is backed by it): remove what uses it first (%v)", e.Name, e.ID, e.Err)
}

func (e *InUseError) Unwrap() error { return e.Err }

// Delete deletes image id (named name, for messages): an image recorded as protected is
// unprotected first (the plan allows that only when the configuration turns protection off);
// already gone is success; in use is an *InUseError.
func (m *Manager) Delete(ctx context.Context, id, name string, unprotect bool) error {
	if unprotect {
		_, err := images.Update(ctx, m.client, id, images.UpdateOpts{images.ReplaceImageProtected{NewProtected: false}}).Extract()

		switch {
		case gophercloud.ResponseCodeIs(err, http.StatusNotFound):
			return nil
		case err != nil:
			return m.refused("unprotecting an image", fmt.Errorf("turning protection off: %w", err))
		}
	}

	err := images.Delete(ctx, m.client, id).ExtractErr()

	switch {
	case err == nil, gophercloud.ResponseCodeIs(err, http.StatusNotFound):
		return nil
	case gophercloud.ResponseCodeIs(err, http.StatusConflict):
		return &InUseError{Name: name, ID: id, Err: err}
	case gophercloud.ResponseCodeIs(err, http.StatusForbidden):
		return m.refused("deleting an image (is it protected?)", err)
	}

	return err
}

// Observed is what Read finds of the image of the state.
type Observed struct {
	Image *images.Image
	// RefoundFrom is the recorded ID when the image was found again by name ("" otherwise).
	RefoundFrom string
}

// Observe reads image id, or, when it is gone, the owner's image named name (found again) if a
// create of unikorn_image may take it (an interrupted create: cloud.Owns; a finished or foreign
// image is not this resource's); a nil Image when neither exists.
func (m *Manager) Observe(ctx context.Context, id, name string) (Observed, error) {
	img, err := m.Get(ctx, id)

	switch {
	case err == nil && img.Status != images.ImageStatusDeleted:
		return Observed{Image: img}, nil
	case err != nil && !gophercloud.ResponseCodeIs(err, http.StatusNotFound):
		return Observed{}, err
	}

	found, err := m.Find(ctx, name)
	if err != nil || found == nil || !cloud.Owns(cmp.Or(m.kind, TypeName), naming.MarkOf(found.Properties)) {
		return Observed{}, err
	}

	return Observed{Image: found, RefoundFrom: id}, nil
}

// Locate finds an image to import by ID or by exact name.
func (m *Manager) Locate(ctx context.Context, idOrName string) (*images.Image, error) {
	img, err := m.Get(ctx, idOrName)
	if err == nil {
		return img, nil
	}

	if !gophercloud.ResponseCodeIs(err, http.StatusNotFound) && !gophercloud.ResponseCodeIs(err, http.StatusBadRequest) {
		return nil, err
	}

	found, err := m.Find(ctx, idOrName)
	if err == nil && found == nil {
		err = cloud.NotLocated("image", idOrName, m.region)
	}

	return found, err
}

// Glance is an image as unikorn_image shows it.
type Glance struct {
	ID, Name, Status, Checksum, DiskFormat, ContainerFormat, Visibility string

	Protected            bool
	SizeBytes            int64
	MinDiskGB, MinRAMMiB int
	CreatedAt            time.Time
	Tags                 []string
	// Properties are the user's (UserProperties), unikorn:organization:id included.
	Properties map[string]string
	// SourceURL is the URL of the web-download import when it is known ("" otherwise).
	SourceURL string
}

// ViewOf is img as unikorn_image shows it; sourceURL as known.
func ViewOf(img *images.Image, sourceURL string) *Glance {
	return &Glance{
		ID: img.ID, Name: img.Name, Status: string(img.Status), Checksum: img.Checksum, DiskFormat: img.DiskFormat,
		ContainerFormat: img.ContainerFormat, Visibility: string(img.Visibility), Protected: img.Protected,
		SizeBytes: img.SizeBytes, MinDiskGB: img.MinDiskGigabytes, MinRAMMiB: img.MinRAMMegabytes, CreatedAt: img.CreatedAt,
		Tags: img.Tags, Properties: UserProperties(img), SourceURL: sourceURL,
	}
}
