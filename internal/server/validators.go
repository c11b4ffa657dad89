package server

import (
	"context"
	"encoding/base64"
	"fmt"
	"maps"
	"net"
	"net/netip"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// maxUserData is Nova's limit on user data: 65535 bytes once base64-encoded.
const maxUserData = 65535

// nameValidator checks a server name with naming.ValidateName.
type nameValidator struct{}

func (nameValidator) Description(context.Context) string {
	return fmt.Sprintf("a server name of 1 to %d characters, without control characters or surrounding white space",
		naming.MaxNameLength(naming.KindServer))
}

func (v nameValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (nameValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}

	if err := naming.ValidateName(naming.KindServer, req.ConfigValue.ValueString()); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid name", err.Error())
	}
}

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

// addressValidator checks an allowed address pair's IP address: an address or a CIDR.
type addressValidator struct{}

func (addressValidator) Description(context.Context) string {
	return "an IPv4 or IPv6 address, or a CIDR"
}

func (v addressValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (addressValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}

	s := req.ConfigValue.ValueString()
	if _, err := netip.ParseAddr(s); err == nil {
		return
	}

	if _, err := netip.ParsePrefix(s); err == nil {
		return
	}

	resp.Diagnostics.AddAttributeError(req.Path, "Invalid IP address", fmt.Sprintf("%q is neither an IP address nor a CIDR.", s))
}

// macValidator checks a MAC address.
type macValidator struct{}

func (macValidator) Description(context.Context) string {
	return "a MAC address such as fa:16:3e:00:00:01"
}

func (v macValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (macValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}

	if hw, err := net.ParseMAC(req.ConfigValue.ValueString()); err != nil || len(hw) != 6 {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid MAC address",
			fmt.Sprintf("%q is not a MAC address such as fa:16:3e:00:00:01.", req.ConfigValue.ValueString()))
	}
}

// userDataValidator checks that user data fits Nova's limit. It never repeats the value.
type userDataValidator struct{}

func (userDataValidator) Description(context.Context) string {
	return fmt.Sprintf("at most %d bytes once base64-encoded", maxUserData)
}

func (v userDataValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (userDataValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}

	if n := base64.StdEncoding.EncodedLen(len(req.ConfigValue.ValueString())); n > maxUserData {
		resp.Diagnostics.AddAttributeError(req.Path, "User data too large",
			fmt.Sprintf("The user data is %d bytes once base64-encoded; Nova accepts at most %d.", n, maxUserData))
	}
}
