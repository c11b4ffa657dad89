package adapter

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
)

// Kind describes a resource or data source type to the kit.
type Kind struct {
	// TypeName is the type's name without the provider's prefix: "network" for unikorn_network.
	TypeName string
	// Noun names one object in messages: "network", "security group", "load balancer".
	Noun string
	// Timeouts are the defaults of the operations (resources only).
	Timeouts Timeouts
}

// Deadline bounds what has no timeouts attribute of its own: a data source's read, an
// ephemeral resource's open, a list query and an import. A stalled cloud then fails them with a
// clear error instead of hanging a plan.
const Deadline = 5 * time.Minute

// Timeouts are a resource's default operation timeouts.
type Timeouts struct {
	Create, Read, Update, Delete time.Duration
}

// base is what ResourceBase and DataSourceBase share: the kind, and the concept's view T of the
// provider's client bundle once the provider is configured.
type base[T Meta] struct {
	Meta T

	kind       Kind
	configured bool
}

// Kind is the resource's or data source's kind.
func (b *base[T]) Kind() Kind { return b.kind }

// Configured tells whether the provider has handed out its client bundle.
func (b *base[T]) Configured() bool { return b.configured }

// Cloud is the provider's OpenStack client; nil before the provider is configured.
func (b *base[T]) Cloud() *cloud.Client {
	if !b.configured {
		return nil
	}

	return b.Meta.Cloud()
}

// typeName is unikorn_<TypeName>.
func (b *base[T]) typeName(providerTypeName string) string {
	return providerTypeName + "_" + b.kind.TypeName
}

// getConfigured reads src (an action's or an ephemeral resource's configuration) into the
// model M once the provider is configured; false when it is not (reported under summary) or
// the configuration does not read.
func getConfigured[T Meta, M any](ctx context.Context, b *base[T], summary string, src Source, diags *diag.Diagnostics) (M, bool) {
	if !b.Configured() {
		diags.AddError(summary, "The provider is not configured.")

		var zero M

		return zero, false
	}

	return Get[M](ctx, src, diags)
}

// configure takes the concept's view of the client bundle out of the provider data.
func (b *base[T]) configure(providerData any, diags *diag.Diagnostics) {
	if m, ok := ProviderData[T](providerData, diags); ok {
		b.Meta, b.configured = m, true
	}
}

// ResourceBase is embedded by every resource: it answers Metadata and Configure, and holds
// the concept's view T of the provider's client bundle once the provider is configured.
type ResourceBase[T Meta] struct {
	base[T]
}

// NewResourceBase is the base of a resource of kind k.
func NewResourceBase[T Meta](k Kind) ResourceBase[T] {
	return ResourceBase[T]{base[T]{kind: k}}
}

// Metadata names the resource unikorn_<TypeName>.
func (b *ResourceBase[T]) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = b.typeName(req.ProviderTypeName)
}

// Configure takes the concept's view of the client bundle out of the provider data.
func (b *ResourceBase[T]) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	b.configure(req.ProviderData, &resp.Diagnostics)
}

// DataSourceBase is embedded by every data source, like ResourceBase.
type DataSourceBase[T Meta] struct {
	base[T]
}

// NewDataSourceBase is the base of a data source of kind k.
func NewDataSourceBase[T Meta](k Kind) DataSourceBase[T] {
	return DataSourceBase[T]{base[T]{kind: k}}
}

// Metadata names the data source unikorn_<TypeName>.
func (b *DataSourceBase[T]) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = b.typeName(req.ProviderTypeName)
}

// Configure takes the concept's view of the client bundle out of the provider data.
func (b *DataSourceBase[T]) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	b.configure(req.ProviderData, &resp.Diagnostics)
}
