package acctest

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// List resources (Terraform 1.14 and later, `terraform query`) cannot be run by the CLIs these
// tests have, so they are driven at the protocol level like actions: a configured provider
// server answers the ListResource RPC against the real local cloud.

// ListedResult is one result of ListResource, decoded.
type ListedResult struct {
	DisplayName string
	// Identity is the result's resource identity, by attribute.
	Identity map[string]string
	// Resource is the full resource's attributes; nil when it was not asked for.
	Resource map[string]tftypes.Value
}

// ListResources lists typeName (e.g. "unikorn_network") with config (the list block's
// attributes; the rest are null), and the full resources when includeResource is set. It fails
// the test on any error diagnostic.
func ListResources(t *testing.T, typeName string, config map[string]tftypes.Value, includeResource bool) []ListedResult {
	t.Helper()

	ctx := context.Background()
	server, schemas := ConfiguredServer(t)

	listSchema, resourceSchema := schemas.ListResourceSchemas[typeName], schemas.ResourceSchemas[typeName]
	if listSchema == nil || resourceSchema == nil {
		t.Fatalf("the provider serves no list resource %s", typeName)
	}

	identities, err := server.GetResourceIdentitySchemas(ctx, &tfprotov6.GetResourceIdentitySchemasRequest{})
	if err != nil {
		t.Fatal(err)
	}

	identityType := identities.IdentitySchemas[typeName].ValueType()

	lister, ok := server.(tfprotov6.ListResourceServer)
	if !ok {
		t.Fatalf("the provider server %T serves no list resources", server)
	}

	stream, err := lister.ListResource(ctx, &tfprotov6.ListResourceRequest{
		TypeName: typeName, Config: dynamicValue(t, listSchema, config), IncludeResource: includeResource,
	})
	if err != nil {
		t.Fatal(err)
	}

	var out []ListedResult

	for result := range stream.Results {
		if err := diagnosticsErr("ListResource", result.Diagnostics); err != nil {
			t.Fatal(err)
		}

		listed := ListedResult{DisplayName: result.DisplayName, Identity: map[string]string{}}

		if result.Identity == nil || result.Identity.IdentityData == nil {
			t.Fatalf("list result %q has no identity", result.DisplayName)
		}

		for name, v := range objectAttributes(t, result.Identity.IdentityData, identityType) {
			var s string
			if err := v.As(&s); err != nil {
				t.Fatalf("identity attribute %s: %v", name, err)
			}

			listed.Identity[name] = s
		}

		if result.Resource != nil {
			listed.Resource = objectAttributes(t, result.Resource, resourceSchema.ValueType())
		}

		out = append(out, listed)
	}

	return out
}

// objectAttributes decodes the object dv of type typ into its attributes.
func objectAttributes(t *testing.T, dv *tfprotov6.DynamicValue, typ tftypes.Type) map[string]tftypes.Value {
	t.Helper()

	v, err := dv.Unmarshal(typ)
	if err != nil {
		t.Fatal(err)
	}

	var attrs map[string]tftypes.Value
	if err := v.As(&attrs); err != nil {
		t.Fatal(err)
	}

	return attrs
}
