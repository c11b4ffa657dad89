package adapter

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// ActionBase is embedded by every action (Terraform 1.14 and later), like ResourceBase: it
// answers Metadata and Configure, holds the concept's view T of the provider's client bundle,
// and opens Invoke (Run).
type ActionBase[T Meta] struct {
	base[T]

	// timeout bounds one invocation (actions have no timeouts argument).
	timeout time.Duration
}

// NewActionBase is the base of an action of kind k whose invocations take at most timeout.
func NewActionBase[T Meta](k Kind, timeout time.Duration) ActionBase[T] {
	return ActionBase[T]{base: base[T]{kind: k}, timeout: timeout}
}

// Metadata names the action unikorn_<TypeName>.
func (b *ActionBase[T]) Metadata(_ context.Context, req action.MetadataRequest, resp *action.MetadataResponse) {
	resp.TypeName = b.typeName(req.ProviderTypeName)
}

// Configure takes the concept's view of the client bundle out of the provider data.
func (b *ActionBase[T]) Configure(_ context.Context, req action.ConfigureRequest, resp *action.ConfigureResponse) {
	b.configure(req.ProviderData, &resp.Diagnostics)
}

// Invocation is one run of an action, opened by Run: its configuration read into the model,
// its deadline, its progress messages and its one summary of failure ("Error rebooting server").
type Invocation struct {
	summary  string
	diags    *diag.Diagnostics
	progress func(action.InvokeProgressEvent)
}

// Progress sends message to Terraform as a progress event of the invocation (and logs it).
func (i *Invocation) Progress(ctx context.Context, message string) {
	tflog.Info(ctx, message)

	if i.progress != nil {
		i.progress(action.InvokeProgressEvent{Message: message})
	}
}

// Fail reports that the invocation on subject failed with err, under the action's summary.
func (i *Invocation) Fail(subject string, err error) {
	i.diags.AddError(i.summary, subject+": "+err.Error())
}

// Run opens an invocation of the action: the provider-data guard, the configuration read into
// the model M, the deadline, the log field; then do runs it. summary names the failure:
// "Error rebooting server".
func Run[T Meta, M any](ctx context.Context, b *ActionBase[T], summary string, req action.InvokeRequest, resp *action.InvokeResponse,
	do func(ctx context.Context, inv *Invocation, m M),
) {
	m, ok := getConfigured[T, M](ctx, &b.base, summary, req.Config, &resp.Diagnostics)
	if !ok {
		return
	}

	ctx = tflog.SetField(ctx, "action", "unikorn_"+b.kind.TypeName)

	if b.timeout > 0 {
		var cancel context.CancelFunc

		ctx, cancel = context.WithTimeout(ctx, b.timeout)
		defer cancel()
	}

	do(ctx, &Invocation{summary: summary, diags: &resp.Diagnostics, progress: resp.SendProgress}, m)
}
