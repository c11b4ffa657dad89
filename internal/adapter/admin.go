package adapter

import (
	"context"
	"errors"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
)

// AdminOpening is what the opening of a region-preparation resource needs of its model.
type AdminOpening struct {
	// Name is the object's name, logged under the kind's type name.
	Name types.String
	// Describe names the object in messages when the name alone does not ("member of domain
	// D"); "" means the name.
	Describe string
	// ID is the recorded ID (null before the create).
	ID types.String
	// Regional says that the object lives in Region ("" = the provider's default region);
	// false for a global object (a domain, a role).
	Regional bool
	Region   types.String
	Timeouts timeouts.Value
}

// AdminModel is a region-preparation resource's model.
type AdminModel interface {
	Opening() AdminOpening
}

// InRegion is where a region's own object is, for messages: "region RegionOne".
type InRegion string

func (r InRegion) String() string { return "region " + string(r) }

// OpenAdmin is the opening of every operation of the region-preparation resources (domains,
// roles, flavors, images, provider networks: objects of the service user's own, cloud-admin
// scope, never of an identity). It reads the model M out of src, opens the operation, logs
// the object's name (and region), resolves a regional object's region once, binds the core
// with bind (the resolved region, "" for a global object) and runs do; subject names the
// object, its ID and its region in failures. A core that cannot be bound fails the operation.
func OpenAdmin[T Meta, M any, PM interface {
	*M
	AdminModel
}, C any](ctx context.Context, b *ResourceBase[T], opKind Op, src Source, diags *diag.Diagnostics,
	bind func(c *cloud.Client, region string) (C, error),
	do func(ctx context.Context, op *Operation, core C, m *M, subject func(id string) string),
) {
	m, ok := Get[M](ctx, src, diags)
	if !ok {
		return
	}

	o := PM(&m).Opening()

	ctx, op, ok := b.Begin(ctx, opKind, o.Timeouts, diags)
	defer op.End(ctx)

	if !ok {
		return
	}

	describe := o.Describe
	if describe == "" {
		describe = o.Name.ValueString()
	}

	ctx = tflog.SetField(ctx, b.Kind().TypeName, o.Name.ValueString())

	var where InRegion

	subject := func(id string) string { return Subject(describe, id, where) }

	c := b.Cloud()
	region, err := "", error(nil)

	switch {
	case c == nil:
		err = errors.New("the provider is not configured")
	case o.Regional:
		region, err = c.ResolveRegion(o.Region.ValueString())
		where = InRegion(region)
		ctx = tflog.SetField(ctx, "region", region)
	}

	var core C
	if err == nil {
		core, err = bind(c, region)
	}

	if err != nil {
		op.Fail(subject(o.ID.ValueString()), err)
		return
	}

	do(ctx, op, core, &m, subject)
}

// OpenGlobal is OpenAdmin for a global object (a domain, a role, a project, a federation): the
// core is bound without a region, and subject names the object by its recorded ID.
func OpenGlobal[T Meta, M any, PM interface {
	*M
	AdminModel
}, C any](ctx context.Context, b *ResourceBase[T], opKind Op, src Source, diags *diag.Diagnostics,
	bind func(c *cloud.Client) (C, error),
	do func(ctx context.Context, op *Operation, core C, m *M, subject string),
) {
	OpenAdmin[T, M, PM, C](ctx, b, opKind, src, diags,
		func(c *cloud.Client, _ string) (C, error) { return bind(c) },
		func(ctx context.Context, op *Operation, core C, m *M, subject func(string) string) {
			do(ctx, op, core, m, subject(PM(m).Opening().ID.ValueString()))
		})
}
