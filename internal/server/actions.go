package server

import (
	"context"
	"maps"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/action/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/image"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// The actions on a server (Terraform 1.14 and later): unikorn_server_reboot and
// unikorn_server_snapshot_now. Each is a serverAction: it runs as the identity's own user,
// tells Terraform its progress, and takes at most actionTimeout.

var (
	_ action.ActionWithConfigure = (*serverAction[rebootModel])(nil)
	_ action.ActionWithConfigure = (*serverAction[snapshotNowModel])(nil)
)

// actionTimeout bounds one invocation of a server action (actions have no timeouts argument).
const actionTimeout = 30 * time.Minute

// actionsNote is what every action's description ends with.
const actionsNote = " Actions need Terraform 1.14 or later; they are invoked by an `action_trigger` of a resource's " +
	"`lifecycle` or by `terraform apply -invoke`, and take at most 30 minutes."

// serverAction is an action on one existing server whose configuration is the model M (which
// embeds serverRef): its schema is the server reference's attributes plus its own, its
// description ends with actionsNote, and an invocation binds the server's tenant as the
// identity's own user, then runs invoke, each failure reported under one summary and naming
// the server.
type serverAction[M interface{ reference() serverRef }] struct {
	adapter.ActionBase[meta]

	summary, description string
	attributes           map[string]schema.Attribute
	invoke               func(ctx context.Context, c *cloud.Client, t *cloud.Tenant, m M, progress Progress) error
}

// newServerAction is the action unikorn_<typeName> on a server.
func newServerAction[M interface{ reference() serverRef }](typeName, summary, description string,
	attributes map[string]schema.Attribute, invoke func(ctx context.Context, c *cloud.Client, t *cloud.Tenant, m M, progress Progress) error,
) action.Action {
	return &serverAction[M]{
		ActionBase: adapter.NewActionBase[meta](adapter.Kind{TypeName: typeName, Noun: "server"}, actionTimeout),
		summary:    summary, description: description, attributes: attributes, invoke: invoke,
	}
}

// reference is the server the operation is on.
func (ref serverRef) reference() serverRef { return ref }

func (a *serverAction[M]) Schema(_ context.Context, _ action.SchemaRequest, resp *action.SchemaResponse) {
	attributes := refActionAttributes()
	maps.Copy(attributes, a.attributes)

	resp.Schema = schema.Schema{MarkdownDescription: a.description + actionsNote, Attributes: attributes}
}

// Invoke binds the server's tenant and runs the action on it.
func (a *serverAction[M]) Invoke(ctx context.Context, req action.InvokeRequest, resp *action.InvokeResponse) {
	adapter.Run(ctx, &a.ActionBase, a.summary, req, resp, func(ctx context.Context, inv *adapter.Invocation, m M) {
		ref := m.reference()

		t, ok := ref.tenant(ctx, a.Cloud(), cloud.AsIdentity, a.summary, &resp.Diagnostics)
		if !ok {
			return
		}

		if err := a.invoke(ctx, a.Cloud(), t, m, progressOf(ctx, inv)); err != nil {
			inv.Fail(ref.subject(t), err)
		}
	})
}

// progressOf hands a core's progress to the invocation.
func progressOf(ctx context.Context, inv *adapter.Invocation) Progress {
	return func(message string) { inv.Progress(ctx, message) }
}

// rebootModel is unikorn_server_reboot's configuration.
type rebootModel struct {
	serverRef

	Hard types.Bool `tfsdk:"hard"`
}

// NewRebootAction is the constructor the provider lists: unikorn_server_reboot.
func NewRebootAction() action.Action {
	return newServerAction("server_reboot", "Error rebooting server",
		"Reboots a server, soft (the guest is asked to restart) or hard (a power cycle), as the "+
			"identity's own user: it waits for the server to be idle, asks Nova to reboot it and waits until the server is "+
			"`ACTIVE` again, reporting each step.",
		map[string]schema.Attribute{
			"hard": schema.BoolAttribute{
				Optional: true,
				MarkdownDescription: "Power-cycle the server (which also starts a stopped one) instead of asking its operating " +
					"system to restart. Default `false`.",
			},
		},
		func(ctx context.Context, _ *cloud.Client, t *cloud.Tenant, m rebootModel, progress Progress) error {
			svc, err := NewService(t)
			if err != nil {
				return err
			}

			return svc.Reboot(ctx, m.ServerID.ValueString(), m.Hard.ValueBool(), progress)
		})
}

// snapshotNowModel is unikorn_server_snapshot_now's configuration.
type snapshotNowModel struct {
	serverRef

	Name           types.String `tfsdk:"name"`
	OrganizationID types.String `tfsdk:"organization_id"`
	Visibility     types.String `tfsdk:"visibility"`
}

// NewSnapshotNowAction is the constructor the provider lists: unikorn_server_snapshot_now.
func NewSnapshotNowAction() action.Action {
	return newServerAction("server_snapshot_now", "Error snapshotting server",
		"Takes a snapshot of a server now and publishes it as an organization image, like "+
			"`unikorn_server_snapshot` but without keeping it in the state: nothing deletes the image afterwards. Nova "+
			"makes the image as the identity's own user, the action waits until Glance says it is `active` (reporting each "+
			"status), then publishes it with `unikorn:organization:id` and `"+PropertyIdentityID+"` (the identity's ID as "+
			"Unikorn names it), private unless `visibility` says `public` (Unikorn's shape, which Unikorn lists).",
		map[string]schema.Attribute{
			"name": schema.StringAttribute{
				Required: true,
				MarkdownDescription: "Glance name of the snapshot image. It must not be in use in the identity's project: give " +
					"each snapshot a name of its own (for example with `formatdate` and `timestamp()`).",
				Validators: []validator.String{adapter.Name(naming.KindSnapshot)},
			},
			"organization_id": schema.StringAttribute{
				Required: true,
				MarkdownDescription: "The organization the image is published for (its `" + image.PropertyOrganizationID +
					"`): the image data sources return it for this `organization_id`.",
				Validators: []validator.String{stringvalidator.LengthBetween(1, 255)},
			},
			"visibility": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "Glance visibility of the image: `" + VisibilityPrivate + "` (the default) or `" +
					VisibilityPublic + "`, Unikorn's shape, which Unikorn lists for the organization but which every project " +
					"of the cloud then sees (see `unikorn_server_snapshot`'s `visibility`); making it public takes the " +
					"provider's admin scope.",
				Validators: []validator.String{stringvalidator.OneOf(Visibilities...)},
			},
		},
		func(ctx context.Context, c *cloud.Client, t *cloud.Tenant, m snapshotNowModel, progress Progress) error {
			snaps, err := NewSnapshots(t)
			if err != nil {
				return err
			}

			spec := SnapshotSpec{
				Name: m.Name.ValueString(), ServerID: m.ServerID.ValueString(), OrganizationID: m.OrganizationID.ValueString(),
				Visibility: m.Visibility.ValueString(),
			}

			if spec.visibility() == VisibilityPublic {
				admin, err := c.Tenant(ctx, t.ProjectID(), t.Region(), cloud.Admin)
				if err != nil {
					return err
				}

				if err := snaps.Publisher(admin); err != nil {
					return err
				}
			}

			_, err = snaps.Snap(ctx, spec, progress)

			return err
		})
}
