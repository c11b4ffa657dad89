package server

import (
	"context"
	"encoding/base64"
	"fmt"
	"maps"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// maxUserData is Nova's limit on user data: 65535 bytes once base64-encoded.
const maxUserData = 65535

// tagsValidator checks, at plan time, that every tag translates into server metadata: each
// bad key is reported at its own path; collisions between tags at the map. A tag that
// translates to a system key is a warning (the system value wins).
type tagsValidator struct{}

func (tagsValidator) Description(context.Context) string {
	return "tag keys of the form " + naming.TagForm + ", values of at most 255 characters"
}

func (v tagsValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (tagsValidator) ValidateMap(_ context.Context, req validator.MapRequest, resp *validator.MapResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}

	elems := req.ConfigValue.Elements()
	known := map[string]string{}

	for _, key := range slices.Sorted(maps.Keys(elems)) {
		if _, err := naming.MetadataKeyForTag(key); err != nil {
			resp.Diagnostics.AddAttributeError(req.Path.AtMapKey(key), "Invalid tag key", err.Error())
			continue
		}

		v, ok := elems[key].(types.String)
		if !ok || v.IsUnknown() || v.IsNull() {
			continue
		}

		known[key] = v.ValueString()
	}

	if resp.Diagnostics.HasError() {
		return
	}

	md, err := naming.TagsToMetadata(known)
	if err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid tags", err.Error())
		return
	}

	for _, key := range slices.Sorted(maps.Keys(md)) {
		if naming.IsSystemMetadataKey(key) {
			resp.Diagnostics.AddAttributeWarning(req.Path, "Tag shadowed by system metadata",
				fmt.Sprintf("A tag translates to the server metadata key %q, which the provider sets itself: "+
					"the provider's value is kept.", key))
		}
	}
}

// userDataValidator checks that user data fits Nova's limit. It never repeats the value.
func userDataValidator() validator.String {
	return adapter.StringCheck("user data", fmt.Sprintf("at most %d bytes once base64-encoded", maxUserData), func(s string) error {
		if n := base64.StdEncoding.EncodedLen(len(s)); n > maxUserData {
			return fmt.Errorf("the user data is %d bytes once base64-encoded; Nova accepts at most %d", n, maxUserData)
		}

		return nil
	})
}
