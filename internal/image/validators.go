package image

import (
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
)

// SigningKey validates, at plan time, that a string is an ECDSA public key
// that ParseSigningKey accepts.
func SigningKey() validator.String {
	return adapter.StringCheck("image signing key", "value must be a PEM-encoded PKIX ECDSA public key", func(s string) error {
		_, err := ParseSigningKey(s)
		return err
	})
}

// PackageConstraint validates, at plan time, a package filter such as
// "kubernetes >= 1.30" (see ParsePackageConstraint).
func PackageConstraint() validator.String {
	return adapter.StringCheck("package constraint",
		"value must be a package name, optionally followed by a semantic version constraint such as `>= 1.30`",
		func(s string) error {
			_, _, err := ParsePackageConstraint(s)
			return err
		})
}
