package adapter

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

// The shared schema fragments. Each takes the attribute's description, so that the docs say
// what the ID or name is of; the plan rules and validators are the same everywhere.

// IDAttribute is a computed `id` that stays as it is across updates.
func IDAttribute(description string) schema.StringAttribute {
	return StableString(description)
}

// StableString is a computed string that the cloud sets once and that stays as it is across
// updates (its state value is planned): a creation time, a checksum, a status.
func StableString(description string) schema.StringAttribute {
	return schema.StringAttribute{
		Computed:            true,
		MarkdownDescription: description,
		PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
	}
}

// IdentityIDAttribute is the required `identity_id` of a tenant object: the ID of the
// unikorn_identity (its Keystone project) it belongs to. Changing it replaces the object.
func IdentityIDAttribute(noun string) schema.StringAttribute {
	return schema.StringAttribute{
		Required: true,
		MarkdownDescription: "ID of the `unikorn_identity` (its Keystone project) the " + noun + " belongs to. " +
			"Changing it replaces the " + noun + ".",
		PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
		Validators:    []validator.String{stringvalidator.LengthAtLeast(1)},
	}
}

// OwnerAttributes are the `identity_id` and `project_id` of a tenant object that lives either
// in a unikorn_identity's project or in a unikorn_project's: exactly one of the two is set
// (checked at plan time, the error at `identity_id`), and changing either replaces the object.
func OwnerAttributes(noun string) (identityID, projectID schema.StringAttribute) {
	identityID = schema.StringAttribute{
		Optional: true,
		MarkdownDescription: "ID of the `unikorn_identity` (its Keystone project) the " + noun + " belongs to. Exactly one of " +
			"`identity_id` and `project_id`. Changing it replaces the " + noun + ".",
		PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
		Validators: []validator.String{
			stringvalidator.LengthAtLeast(1),
			stringvalidator.ExactlyOneOf(path.MatchRoot("identity_id"), path.MatchRoot("project_id")),
		},
	}

	projectID = schema.StringAttribute{
		Optional: true,
		MarkdownDescription: "ID of the `unikorn_project` (its Keystone project) the " + noun + " belongs to, instead of an " +
			"identity: the " + noun + " is then made in that project, in the privileged scope. Exactly one of `identity_id` " +
			"and `project_id`. Changing it replaces the " + noun + ".",
		PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
		Validators:    []validator.String{stringvalidator.LengthAtLeast(1)},
	}

	return identityID, projectID
}

// NameAttribute is the required user-given `name` of kind (a naming kind), from which the
// deterministic cloud names are made. Changing it replaces the object.
func NameAttribute(kind, description string) schema.StringAttribute {
	return schema.StringAttribute{
		Required:            true,
		MarkdownDescription: description + " Changing it replaces the " + kind + ".",
		PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
		Validators:          []validator.String{Name(kind)},
	}
}

// RegionAttribute is the optional `region` of a regional resource, with the one region rule
// (PlanRegion): unset means the provider's default region at creation, kept after that;
// setting or changing it replaces the object.
func RegionAttribute(noun string) schema.StringAttribute {
	return schema.StringAttribute{
		Optional: true,
		Computed: true,
		MarkdownDescription: "Region of the " + noun + ". Default: the provider's `region` when the " + noun +
			" is created; a later change of the provider's default moves nothing. Setting or changing it replaces the " +
			noun + ".",
		PlanModifiers: []planmodifier.String{
			stringplanmodifier.UseStateForUnknown(),
			stringplanmodifier.RequiresReplaceIfConfigured(),
		},
		Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
	}
}

// TimeoutsAttribute is the `timeouts` attribute with all four operations, described.
func TimeoutsAttribute(ctx context.Context) schema.Attribute {
	a := timeouts.Attributes(ctx, timeouts.Opts{Create: true, Read: true, Update: true, Delete: true})

	if n, ok := a.(schema.SingleNestedAttribute); ok {
		n.MarkdownDescription = "How long each operation may take, as a duration such as `\"30m\"` or `\"1h\"`. " +
			"Unset: the resource's defaults."

		return n
	}

	return a
}
