package image

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

// SigningKey validates, at plan time, that a string is an ECDSA public key
// that ParseSigningKey accepts.
func SigningKey() validator.String {
	return signingKeyValidator{}
}

type signingKeyValidator struct{}

func (signingKeyValidator) Description(context.Context) string {
	return "value must be a PEM-encoded PKIX ECDSA public key"
}

func (v signingKeyValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (signingKeyValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}

	if _, err := ParseSigningKey(req.ConfigValue.ValueString()); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid image signing key", err.Error())
	}
}

// PackageConstraint validates, at plan time, a package filter such as
// "kubernetes >= 1.30" (see ParsePackageConstraint).
func PackageConstraint() validator.String {
	return packageConstraintValidator{}
}

type packageConstraintValidator struct{}

func (packageConstraintValidator) Description(context.Context) string {
	return "value must be a package name, optionally followed by a semantic version constraint such as \">= 1.30\""
}

func (packageConstraintValidator) MarkdownDescription(context.Context) string {
	return "value must be a package name, optionally followed by a semantic version constraint such as `>= 1.30`"
}

func (packageConstraintValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}

	if _, _, err := ParsePackageConstraint(req.ConfigValue.ValueString()); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid package constraint", err.Error())
	}
}
