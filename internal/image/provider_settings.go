package image

import (
	"crypto/ecdsa"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
)

// SigningKeyArgument is the provider argument holding the image signing key.
const SigningKeyArgument = "image_signing_key"

// ProviderAttributes are the provider arguments that configure images.
func ProviderAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		SigningKeyArgument: schema.StringAttribute{
			Optional: true,
			MarkdownDescription: "PEM public key (`-----BEGIN PUBLIC KEY-----`, PKIX, ECDSA on any curve) that signs the public images. " +
				"When set, the image data sources leave out every public image that is not owned by an organization " +
				"(`unikorn:organization:id`) and does not carry, in `unikorn:digest`, the base64 ASN.1 ECDSA signature of the " +
				"SHA-256 of its image ID; each such image is reported in `rejected` with a warning. " +
				"A key that is not ECDSA or does not parse is a plan-time error.",
			Validators: []validator.String{SigningKey()},
		},
	}
}

// ExpandSigningKey parses the provider argument (nil key when unset).
func ExpandSigningKey(value types.String) (*ecdsa.PublicKey, diag.Diagnostics) {
	var diags diag.Diagnostics

	p := path.Root(SigningKeyArgument)

	if !adapter.ReadArgument(p, value, &diags) {
		return nil, diags
	}

	key, err := ParseSigningKey(value.ValueString())
	if err != nil {
		diags.AddAttributeError(p, "Invalid image signing key", err.Error())
		return nil, diags
	}

	return key, nil
}
