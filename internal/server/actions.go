package server

import (
	"context"
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
// unikorn_server_snapshot_now. Each runs as the identity's own user, tells Terraform its
// progress, and takes at most actionTimeout.

var (
	_ action.ActionWithConfigure = (*rebootAction)(nil)
	_ action.ActionWithConfigure = (*snapshotNowAction)(nil)
)

// actionTimeout bounds one invocation of a server action (actions have no timeouts argument).
const actionTimeout = 30 * time.Minute

// actionsNote is what every action's description ends with.
const actionsNote = " Actions need Terraform 1.14 or later; they are invoked by an `action_trigger` of a resource's " +
	"`lifecycle` or by `terraform apply -invoke`, and take at most 30 minutes."

// NewRebootAction is the constructor the provider lists: unikorn_server_reboot.
func NewRebootAction() action.Action {
	return &rebootAction{ActionBase: adapter.NewActionBase[meta](adapter.Kind{TypeName: "server_reboot", Noun: "server"}, actionTimeout)}
}

// rebootAction is unikorn_server_reboot.
type rebootAction struct {
	adapter.ActionBase[meta]
}

// rebootModel is unikorn_server_reboot's configuration.
type rebootModel struct {
	serverRef

	Hard types.Bool `tfsdk:"hard"`
}

func (a *rebootAction) Schema(_ context.Context, _ action.SchemaRequest, resp *action.SchemaResponse) {
	attributes := refActionAttributes()
	attributes["hard"] = schema.BoolAttribute{
		Optional: true,
		MarkdownDescription: "Power-cycle the server (which also starts a stopped one) instead of asking its operating " +
			"system to restart. Default `false`.",
	}

	resp.Schema = schema.Schema{
		MarkdownDescription: "Reboots a server, soft (the guest is asked to restart) or hard (a power cycle), as the " +
			"identity's own user: it waits for the server to be idle, asks Nova to reboot it and waits until the server is " +
			"`ACTIVE` again, reporting each step." + actionsNote,
		Attributes: attributes,
	}
}

// Invoke reboots the server.
func (a *rebootAction) Invoke(ctx context.Context, req action.InvokeRequest, resp *action.InvokeResponse) {
	adapter.Run(ctx, &a.ActionBase, "Error rebooting server", req, resp, func(ctx context.Context, inv *adapter.Invocation, m rebootModel) {
		svc, ok := m.service(ctx, a.Cloud(), cloud.AsIdentity, "Error rebooting server", &resp.Diagnostics)
		if !ok {
			return
		}

		if err := svc.Reboot(ctx, m.ServerID.ValueString(), m.Hard.ValueBool(), progressOf(ctx, inv)); err != nil {
			inv.Fail(m.subject(nil), err)
		}
	})
}

// progressOf hands a core's progress to the invocation.
func progressOf(ctx context.Context, inv *adapter.Invocation) Progress {
	return func(message string) { inv.Progress(ctx, message) }
}

// NewSnapshotNowAction is the constructor the provider lists: unikorn_server_snapshot_now.
func NewSnapshotNowAction() action.Action {
	return &snapshotNowAction{ActionBase: adapter.NewActionBase[meta](adapter.Kind{TypeName: "server_snapshot_now", Noun: "server"}, actionTimeout)}
}

// snapshotNowAction is unikorn_server_snapshot_now.
type snapshotNowAction struct {
	adapter.ActionBase[meta]
}

// snapshotNowModel is unikorn_server_snapshot_now's configuration.
type snapshotNowModel struct {
	serverRef

	Name           types.String `tfsdk:"name"`
	OrganizationID types.String `tfsdk:"organization_id"`
}

func (a *snapshotNowAction) Schema(_ context.Context, _ action.SchemaRequest, resp *action.SchemaResponse) {
	attributes := refActionAttributes()
	attributes["name"] = schema.StringAttribute{
		Required: true,
		MarkdownDescription: "Glance name of the snapshot image. It must not be in use in the identity's project: give " +
			"each snapshot a name of its own (for example with `formatdate` and `timestamp()`).",
		Validators: []validator.String{adapter.Name(naming.KindSnapshot)},
	}
	attributes["organization_id"] = schema.StringAttribute{
		Required: true,
		MarkdownDescription: "The organization the image is published for (its `" + image.PropertyOrganizationID +
			"`): the image data sources return it for this `organization_id`.",
		Validators: []validator.String{stringvalidator.LengthBetween(1, 255)},
	}

	resp.Schema = schema.Schema{
		MarkdownDescription: "Takes a snapshot of a server now and publishes it as an organization image, like " +
			"`unikorn_server_snapshot` but without keeping it in the state: nothing deletes the image afterwards. Nova " +
			"makes the image as the identity's own user, the action waits until Glance says it is `active` (reporting each " +
			"status), then makes it private with `unikorn:organization:id`." + actionsNote,
		Attributes: attributes,
	}
}

// Invoke takes the snapshot.
func (a *snapshotNowAction) Invoke(ctx context.Context, req action.InvokeRequest, resp *action.InvokeResponse) {
	const summary = "Error snapshotting server"

	adapter.Run(ctx, &a.ActionBase, summary, req, resp, func(ctx context.Context, inv *adapter.Invocation, m snapshotNowModel) {
		t, ok := m.tenant(ctx, a.Cloud(), cloud.AsIdentity, summary, &resp.Diagnostics)
		if !ok {
			return
		}

		snaps, err := NewSnapshots(t)
		if err == nil {
			_, err = snaps.Snap(ctx, SnapshotSpec{
				Name: m.Name.ValueString(), ServerID: m.ServerID.ValueString(), OrganizationID: m.OrganizationID.ValueString(),
			}, progressOf(ctx, inv))
		}

		if err != nil {
			inv.Fail(m.subject(t), err)
		}
	})
}
