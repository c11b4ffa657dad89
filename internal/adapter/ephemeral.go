package adapter

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/ephemeral"
)

// EphemeralResourceBase is embedded by every ephemeral resource, like ResourceBase: it answers
// Metadata and Configure and holds the concept's view T of the provider's client bundle once
// the provider is configured (Terraform opens ephemeral resources after Configure, also during
// a plan).
type EphemeralResourceBase[T Meta] struct {
	base[T]
}

// NewEphemeralResourceBase is the base of an ephemeral resource of kind k.
func NewEphemeralResourceBase[T Meta](k Kind) EphemeralResourceBase[T] {
	return EphemeralResourceBase[T]{base[T]{kind: k}}
}

// Metadata names the ephemeral resource unikorn_<TypeName>.
func (b *EphemeralResourceBase[T]) Metadata(_ context.Context, req ephemeral.MetadataRequest, resp *ephemeral.MetadataResponse) {
	resp.TypeName = b.typeName(req.ProviderTypeName)
}

// Configure takes the concept's view of the client bundle out of the provider data.
func (b *EphemeralResourceBase[T]) Configure(_ context.Context, req ephemeral.ConfigureRequest, resp *ephemeral.ConfigureResponse) {
	b.configure(req.ProviderData, &resp.Diagnostics)
}

// OpenResult opens an ephemeral resource: the provider-data guard and the configuration read
// into the model M (both reported under summary, e.g. "Error opening console session"); then
// open fills m, reporting its failures in resp, and m is the result unless one was reported.
func OpenResult[T Meta, M any](ctx context.Context, b *EphemeralResourceBase[T], summary string, req ephemeral.OpenRequest,
	resp *ephemeral.OpenResponse, open func(ctx context.Context, m *M),
) {
	m, ok := getConfigured[T, M](ctx, &b.base, summary, req.Config, &resp.Diagnostics)
	if !ok {
		return
	}

	ctx, cancel := context.WithTimeout(ctx, Deadline)
	defer cancel()

	open(ctx, &m)

	if !resp.Diagnostics.HasError() {
		resp.Diagnostics.Append(resp.Result.Set(ctx, &m)...)
	}
}
