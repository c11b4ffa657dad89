package server

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
)

// summaryConsole is the summary of every failure of unikorn_server_console.
const summaryConsole = "Error reading the server console"

// NewConsoleDataSource is the constructor the provider lists: unikorn_server_console.
func NewConsoleDataSource() datasource.DataSource {
	return adapter.NewDataSource(adapter.Kind{TypeName: "server_console", Noun: "server console"},
		adapter.DataSourceSchema("The console log of a server (Nova's console output), read as the identity's own user "+
			"(through its Keystone trust): what the server printed while booting, for example cloud-init's messages. "+
			"One Nova request.",
			refDataSourceAttributes(),
			map[string]schema.Attribute{
				"lines": schema.Int64Attribute{
					Optional:            true,
					MarkdownDescription: "Only the last `lines` lines of the log. Unset: all of it.",
					Validators:          []validator.Int64{int64validator.AtLeast(1)},
				},
				"output": schema.StringAttribute{
					Computed: true, Sensitive: true,
					MarkdownDescription: "The console log (its last `lines` lines). Sensitive: what a server prints while " +
						"booting can hold secrets (cloud-init prints generated passwords and keys to the console), so Terraform " +
						"does not show it; `nonsensitive()` shows it on purpose.",
				},
			}),
		readConsole)
}

// consoleModel is unikorn_server_console.
type consoleModel struct {
	serverRef

	Lines  types.Int64  `tfsdk:"lines"`
	Output types.String `tfsdk:"output"`
}

// readConsole reads the console output as the identity.
func readConsole(ctx context.Context, m meta, data *consoleModel, diags *diag.Diagnostics) {
	svc, ok := data.service(ctx, m.Cloud(), cloud.AsIdentity, summaryConsole, diags)
	if !ok {
		return
	}

	id := data.ServerID.ValueString()

	out, err := svc.ConsoleOutput(ctx, id, int(data.Lines.ValueInt64()))
	if err != nil {
		diags.AddError(summaryConsole, err.Error())
		return
	}

	tflog.Debug(ctx, "Read the server's console output", map[string]any{"server_id": id, "bytes": len(out)})

	data.Output = types.StringValue(out)
}
