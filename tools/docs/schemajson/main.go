// Command schemajson prints the provider's action and list resource schemas in the format of
// `terraform providers schema -json` (action_schemas, list_resource_schemas), read from the
// provider's own protocol server in-process: the CLIs on the project's machines (Terraform
// 1.11, OpenTofu 1.12) do not describe them, and tfplugindocs renders docs/ from that format.
// tools/docs/generate merges its output into the CLI's schema.
//
//	go run -C tools/docs/schemajson . > extra.json
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/provider"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "schemajson:", err)
		os.Exit(1)
	}
}

func run() error {
	server := providerserver.NewProtocol6(provider.New("dev")())()

	resp, err := server.GetProviderSchema(context.Background(), &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		return err
	}

	for _, d := range resp.Diagnostics {
		if d.Severity == tfprotov6.DiagnosticSeverityError {
			return fmt.Errorf("%s: %s", d.Summary, d.Detail)
		}
	}

	out := map[string]any{"action_schemas": map[string]any{}, "list_resource_schemas": map[string]any{}}

	for name, a := range resp.ActionSchemas {
		b, err := block(a.Schema.Block)
		if err != nil {
			return fmt.Errorf("action %s: %w", name, err)
		}

		out["action_schemas"].(map[string]any)[name] = map[string]any{"block": b}
	}

	for name, s := range resp.ListResourceSchemas {
		b, err := block(s.Block)
		if err != nil {
			return fmt.Errorf("list resource %s: %w", name, err)
		}

		out["list_resource_schemas"].(map[string]any)[name] = map[string]any{"version": s.Version, "block": b}
	}

	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")

	return enc.Encode(out)
}

// block is a protocol schema block in the CLI's JSON form.
func block(b *tfprotov6.SchemaBlock) (map[string]any, error) {
	out := map[string]any{"description_kind": kind(b.DescriptionKind)}
	if b.Description != "" {
		out["description"] = b.Description
	}

	if b.Deprecated {
		out["deprecated"] = true
	}

	if len(b.Attributes) > 0 {
		attrs, err := attributes(b.Attributes)
		if err != nil {
			return nil, err
		}

		out["attributes"] = attrs
	}

	if len(b.BlockTypes) > 0 {
		types := map[string]any{}

		for _, nb := range b.BlockTypes {
			inner, err := block(nb.Block)
			if err != nil {
				return nil, fmt.Errorf("block %s: %w", nb.TypeName, err)
			}

			t := map[string]any{"nesting_mode": blockNesting[nb.Nesting], "block": inner}
			if nb.MinItems > 0 {
				t["min_items"] = nb.MinItems
			}

			if nb.MaxItems > 0 {
				t["max_items"] = nb.MaxItems
			}

			types[nb.TypeName] = t
		}

		out["block_types"] = types
	}

	return out, nil
}

func attributes(as []*tfprotov6.SchemaAttribute) (map[string]any, error) {
	out := map[string]any{}

	for _, a := range as {
		m := map[string]any{"description_kind": kind(a.DescriptionKind)}

		switch {
		case a.NestedType != nil:
			inner, err := attributes(a.NestedType.Attributes)
			if err != nil {
				return nil, fmt.Errorf("attribute %s: %w", a.Name, err)
			}

			m["nested_type"] = map[string]any{"attributes": inner, "nesting_mode": objectNesting[a.NestedType.Nesting]}
		case a.Type != nil:
			t, err := a.Type.MarshalJSON() //nolint:staticcheck // the cty JSON type form, as the CLI prints it
			if err != nil {
				return nil, fmt.Errorf("attribute %s: %w", a.Name, err)
			}

			m["type"] = json.RawMessage(t)
		}

		if a.Description != "" {
			m["description"] = a.Description
		}

		for k, v := range map[string]bool{
			"required": a.Required, "optional": a.Optional, "computed": a.Computed, "sensitive": a.Sensitive,
			"deprecated": a.Deprecated, "write_only": a.WriteOnly,
		} {
			if v {
				m[k] = true
			}
		}

		out[a.Name] = m
	}

	return out, nil
}

func kind(k tfprotov6.StringKind) string {
	if k == tfprotov6.StringKindMarkdown {
		return "markdown"
	}

	return "plain"
}

var blockNesting = map[tfprotov6.SchemaNestedBlockNestingMode]string{
	tfprotov6.SchemaNestedBlockNestingModeSingle: "single",
	tfprotov6.SchemaNestedBlockNestingModeList:   "list",
	tfprotov6.SchemaNestedBlockNestingModeSet:    "set",
	tfprotov6.SchemaNestedBlockNestingModeMap:    "map",
	tfprotov6.SchemaNestedBlockNestingModeGroup:  "group",
}

var objectNesting = map[tfprotov6.SchemaObjectNestingMode]string{
	tfprotov6.SchemaObjectNestingModeSingle: "single",
	tfprotov6.SchemaObjectNestingModeList:   "list",
	tfprotov6.SchemaObjectNestingModeSet:    "set",
	tfprotov6.SchemaObjectNestingModeMap:    "map",
}
