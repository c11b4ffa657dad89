package server

import (
	"context"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
)

var _ ephemeral.EphemeralResourceWithConfigure = (*consoleSession)(nil)

// summarySession is the summary of every failure of unikorn_server_console_session.
const summarySession = "Error opening a console session"

// NewConsoleSession is the constructor the provider lists: unikorn_server_console_session.
func NewConsoleSession() ephemeral.EphemeralResource {
	return &consoleSession{EphemeralResourceBase: adapter.NewEphemeralResourceBase[meta](
		adapter.Kind{TypeName: "server_console_session", Noun: "console session"})}
}

// consoleSession is unikorn_server_console_session: a remote console URL, which carries a
// short-lived token to the server's screen, so it is ephemeral and never enters the state.
type consoleSession struct {
	adapter.EphemeralResourceBase[meta]
}

// consoleSessionModel is the ephemeral resource's configuration and result.
type consoleSessionModel struct {
	serverRef

	Protocol types.String `tfsdk:"protocol"`
	Type     types.String `tfsdk:"type"`
	URL      types.String `tfsdk:"url"`
}

func (e *consoleSession) Schema(_ context.Context, _ ephemeral.SchemaRequest, resp *ephemeral.SchemaResponse) {
	attributes := refEphemeralAttributes()
	attributes["protocol"] = schema.StringAttribute{
		Computed: true, MarkdownDescription: "Protocol of the console: `vnc`, `spice`, `rdp`, `serial` or `mks`.",
	}
	attributes["type"] = schema.StringAttribute{
		Optional: true, Computed: true,
		MarkdownDescription: "Type of console to open: `" + strings.Join(ConsoleTypes(), "`, `") + "`. Default `" +
			DefaultConsoleType + "`. The compute hosts must enable it (Nova refuses a type they do not offer).",
		Validators: []validator.String{stringvalidator.OneOf(ConsoleTypes()...)},
	}
	attributes["url"] = schema.StringAttribute{
		Computed: true, Sensitive: true,
		MarkdownDescription: "URL of the console (for noVNC, the page to open in a browser). It carries a token that " +
			"grants access to the server's console until the cloud expires it (Nova's `[consoleauth] token_ttl`, 10 minutes " +
			"by default).",
	}

	resp.Schema = schema.Schema{
		MarkdownDescription: "A remote console session on a server (noVNC, SPICE, serial, ... as the cloud offers), opened " +
			"as the identity's own user (through its Keystone trust) with one Nova request. Its `url` is a short-lived " +
			"credential: this is an ephemeral resource, so it is never written to the plan or the state (Terraform 1.10 " +
			"or later). Use it in a provider block or a write-only argument, or show it with an ephemeral output.",
		Attributes: attributes,
	}
}

// Open opens the console as the identity.
func (e *consoleSession) Open(ctx context.Context, req ephemeral.OpenRequest, resp *ephemeral.OpenResponse) {
	adapter.OpenResult(ctx, &e.EphemeralResourceBase, summarySession, req, resp,
		func(ctx context.Context, m *consoleSessionModel) {
			svc, ok := m.service(ctx, e.Cloud(), cloud.AsIdentity, summarySession, &resp.Diagnostics)
			if !ok {
				return
			}

			consoleType := m.Type.ValueString()
			if m.Type.IsNull() || m.Type.IsUnknown() {
				consoleType = DefaultConsoleType
			}

			c, err := svc.OpenConsole(ctx, m.ServerID.ValueString(), consoleType)
			if err != nil {
				resp.Diagnostics.AddError(summarySession, err.Error())
				return
			}

			// The URL is a credential: it is never logged.
			tflog.Debug(ctx, "Opened a console session", map[string]any{"server_id": m.ServerID.ValueString(), "type": c.Type})

			m.Protocol, m.Type, m.URL = types.StringValue(c.Protocol), types.StringValue(c.Type), types.StringValue(c.URL)
		})
}
