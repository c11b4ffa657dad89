package identity

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// The data source unikorn_identity: the look-up of one identity (adapter.Lookup) by its Keystone
// project ID or its name, read as the resource's Read reads an imported identity (Observe, then
// observed), so that it shows what the resource would show.
//
// An identity's name needs no scope: its project is unikorn-identity-<name> in the managed
// domain, and Keystone keeps project names unique in a domain, so that two identities of one
// name cannot exist (a name finds one identity or none).

// NewIdentityLookup is the constructor the provider lists.
func NewIdentityLookup() datasource.DataSource {
	return adapter.NewLookup(adapter.Lookup[meta, identityModel]{
		Kind: adapter.Kind{TypeName: "identity", Noun: "identity"},
		Description: "Looks up one Unikorn identity, by `id` (its Keystone project ID) or by `name` (the project " +
			"`unikorn-identity-<name>` in the provider's managed domain), and shows what the resource `unikorn_identity` " +
			"shows of it: the project and user IDs, the organization and project tags (`organization_id`, " +
			"`unikorn_project_id`), the user's roles, the application credential's ID (never its secret: neither " +
			"`application_credential_secret` nor `clouds_yaml` is exposed), the trust, the quotas, the server group " +
			"IDs of every served region and the keypair. It finds identities made by any configuration, by Unikorn's " +
			"region service or by hand (`made_by_provider = false`). Keystone is read in the manager scope (the " +
			"service user, domain-scoped to the managed domain), the quotas and the server group and keypair in every " +
			"served region as the resource's refresh reads them.\n\n" +
			"It manages nothing: it only reads. In an identity this provider did not make, reading its server group " +
			"needs the service user's own member roles on its project, which the provider grants itself when it lacks " +
			"them (as it does for any refresh of such an identity); nothing of the identity's, its user's or its " +
			"maker's is changed.",
		Resource: NewResource,
		Nouns:    "identities",
		Omit:     []string{"force_destroy"},
		ByID:     lookupByID,
		ByName:   lookupByName,
	})
}

// lookupByID reads the identity whose Keystone project is id.
func lookupByID(ctx context.Context, m meta, _, id string) (identityModel, error) {
	out, err := NewService(m.Cloud(), m.IdentityConfig()).Observe(ctx, Ref{ProjectID: id, CheckNova: true}, nil)

	switch {
	case err != nil:
		return identityModel{}, err
	case out == nil:
		return identityModel{}, fmt.Errorf("%w: no identity has the Keystone project ID %q in the managed domain", cloud.ErrNotLocated, id)
	}

	return lookedUp(ctx, m, out)
}

// lookupByName reads the identity called name: none or one (Keystone's names are unique in the
// managed domain).
func lookupByName(ctx context.Context, m meta, _ string, _ adapter.Scoped, name string) ([]identityModel, error) {
	out, err := NewService(m.Cloud(), m.IdentityConfig()).Observe(ctx, Ref{Name: name, CheckNova: true}, nil)
	if err != nil || out == nil {
		return nil, err
	}

	found, err := lookedUp(ctx, m, out)
	if err != nil {
		return nil, err
	}

	return []identityModel{found}, nil
}

// lookedUp is the resource's model of out as its Read records an imported identity: the state
// an import leaves (id and name), refreshed by observed.
func lookedUp(ctx context.Context, m meta, out *Identity) (identityModel, error) {
	for _, n := range out.Notices {
		tflog.Info(ctx, n.Summary, map[string]any{"detail": n.Detail})
	}

	r, ok := NewResource().(*identityResource)
	if !ok {
		return identityModel{}, errors.New("unikorn_identity is not this package's resource")
	}

	var diags diag.Diagnostics

	cr := &resource.ConfigureResponse{}
	r.Configure(ctx, resource.ConfigureRequest{ProviderData: m}, cr)
	diags.Append(cr.Diagnostics...)

	// The state an import leaves (id and name), refreshed as Read refreshes it.
	s, err := adapter.NullModel[identityModel](ctx, r)
	if err != nil {
		return identityModel{}, err
	}

	s.ID, s.Name = types.StringValue(out.ProjectID), types.StringValue(out.Name)
	r.observed(ctx, &s, out, &diags)

	return s, diagnosticsError(diags, naming.IdentityProject(out.Name))
}

// diagnosticsError is the errors of diags as one error about subject; nil without any.
func diagnosticsError(diags diag.Diagnostics, subject string) error {
	var errs []error

	for _, d := range diags.Errors() {
		errs = append(errs, fmt.Errorf("%s: %s: %s", subject, d.Summary(), d.Detail()))
	}

	return errors.Join(errs...)
}
