package domain

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
)

// KeystoneResource is the base of a global admin resource of Keystone made as the service
// user (unikorn_domain, unikorn_role, unikorn_federation): the kit's ResourceBase with the
// default timeouts, and the opening of its operations on the core C that bind makes, with the
// model M.
type KeystoneResource[C, M any, PM interface {
	*M
	adapter.AdminModel
}] struct {
	adapter.ResourceBase[adapter.Meta]

	bind func(*cloud.Client) (C, error)
}

// NewKeystoneResource is the base of the resource unikorn_<typeName>, whose core bind makes.
func NewKeystoneResource[C, M any, PM interface {
	*M
	adapter.AdminModel
}](typeName string, bind func(*cloud.Client) (C, error)) KeystoneResource[C, M, PM] {
	return KeystoneResource[C, M, PM]{
		ResourceBase: adapter.NewResourceBase[adapter.Meta](adapter.Kind{TypeName: typeName, Noun: typeName, Timeouts: DefaultTimeouts}),
		bind:         bind,
	}
}

// Open is the kit's opening of one operation (adapter.OpenGlobal).
func (r *KeystoneResource[C, M, PM]) Open(ctx context.Context, opKind adapter.Op, src adapter.Source, diags *diag.Diagnostics,
	do func(ctx context.Context, op *adapter.Operation, core C, m *M, subject string),
) {
	adapter.OpenGlobal[adapter.Meta, M, PM](ctx, &r.ResourceBase, opKind, src, diags, r.bind, do)
}
