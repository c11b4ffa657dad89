package provider_test

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"text/tabwriter"

	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	unikorn "github.com/unikorn-cloud/terraform-provider-unikorn/internal/provider"
)

// TestSchemas is the one schema check over the whole provider: the provider's own schema and
// that of every resource, ephemeral resource, data source and action it lists pass the framework's
// ValidateImplementation, every attribute and block, however deeply nested, has a
// description (actions included), and every type takes the provider's client bundle in
// Configure. It needs no CLI and no cloud.
func TestSchemas(t *testing.T) {
	t.Parallel()

	p := unikorn.New("test")()

	if problems := schemaProblems(context.Background(), p); len(problems) > 0 {
		t.Errorf("%d schema problems:\n%s", len(problems), table(problems))
	}

	// The check must have seen the whole provider, not an empty list.
	ctx := context.Background()
	if len(p.Resources(ctx)) == 0 || len(p.DataSources(ctx)) == 0 {
		t.Errorf("the provider lists %d resources and %d data sources", len(p.Resources(ctx)), len(p.DataSources(ctx)))
	}
}

// problem is one failure of the schema check.
type problem struct {
	// typeName is the schema's owner: unikorn_network, data.unikorn_flavors, provider.
	typeName string
	// path is the attribute or block, e.g. listeners[*].pool.members; empty for the schema.
	path string
	what string
}

// table lists the problems one a line, aligned.
func table(problems []problem) string {
	var b strings.Builder

	w := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	_, _ = fmt.Fprintln(w, "TYPE\tATTRIBUTE\tPROBLEM")

	for _, p := range problems {
		_, _ = fmt.Fprintf(w, "%s\t%s\t%s\n", p.typeName, p.path, p.what)
	}

	_ = w.Flush()

	return b.String()
}

// schemaProblems checks every schema p serves, sorted by type and path.
func schemaProblems(ctx context.Context, p provider.Provider) []problem {
	var problems []problem

	meta := &provider.MetadataResponse{}
	p.Metadata(ctx, provider.MetadataRequest{}, meta)

	ps := &provider.SchemaResponse{}
	p.Schema(ctx, provider.SchemaRequest{}, ps)
	problems = append(problems, errorsOf("provider", ps.Diagnostics, ps.Schema.ValidateImplementation(ctx))...)

	// Every type also takes the provider's client bundle in Configure: each concept asserts the
	// small interface it needs of Meta at run time, so a method Meta lacks would otherwise only
	// show as "Unexpected provider data" on a real apply.
	bundle := &unikorn.Meta{}

	problems = append(problems, checkKind[resource.ResourceWithConfigure](ctx, p.Resources(ctx), "", meta.TypeName, bundle)...)
	problems = append(problems, checkKind[datasource.DataSourceWithConfigure](ctx, p.DataSources(ctx), "data.", meta.TypeName, bundle)...)

	if pe, ok := p.(provider.ProviderWithEphemeralResources); ok {
		problems = append(problems, checkKind[ephemeral.EphemeralResourceWithConfigure](ctx, pe.EphemeralResources(ctx), "ephemeral.", meta.TypeName, bundle)...)
	}

	if pa, ok := p.(provider.ProviderWithActions); ok {
		problems = append(problems, checkKind[action.ActionWithConfigure](ctx, pa.Actions(ctx), "action.", meta.TypeName, bundle)...)
	}

	problems = append(problems, undescribed(ctx, p)...)

	slices.SortFunc(problems, func(a, b problem) int {
		return strings.Compare(a.typeName+" "+a.path+" "+a.what, b.typeName+" "+b.path+" "+b.what)
	})

	return problems
}

// checkKind checks every type of one kind (resources, data sources, ...) that constructors
// make, its problems named prefix + its type name: the diagnostics of its schema, of the
// framework's ValidateImplementation and of its Configure with the provider's client bundle,
// and a missing Configure (the type does not implement C, the kind's WithConfigure).
//
// The four kinds' Metadata, Schema and Configure methods differ only by the package of their
// request and response types (resource.SchemaRequest, datasource.SchemaRequest, ...), whose
// fields have the same names; call builds each request of the type the method takes, so one
// check serves every kind.
func checkKind[C, T any](ctx context.Context, constructors []func() T, prefix, providerTypeName string, bundle any) []problem {
	var out []problem

	for _, newType := range constructors {
		t := newType()

		name := prefix + call(ctx, t, "Metadata", map[string]any{"ProviderTypeName": providerTypeName}).FieldByName("TypeName").String()

		s := call(ctx, t, "Schema", nil)
		validate := s.FieldByName("Schema").MethodByName("ValidateImplementation").Call([]reflect.Value{reflect.ValueOf(ctx)})
		out = append(out, errorsOf(name, diagnostics(s.FieldByName("Diagnostics")), diagnostics(validate[0]))...)

		if _, ok := any(t).(C); !ok {
			out = append(out, problem{typeName: name, what: "no Configure: it cannot take the provider's client bundle"})
			continue
		}

		out = append(out, errorsOf(name, diagnostics(call(ctx, t, "Configure", map[string]any{"ProviderData": bundle}).FieldByName("Diagnostics")))...)
	}

	return out
}

// call calls t's method (one of the framework's Metadata, Schema or Configure) with a request
// of the type the method takes, fields set in it, and answers the response the method filled.
func call(ctx context.Context, t any, method string, fields map[string]any) reflect.Value {
	m := reflect.ValueOf(t).MethodByName(method)

	req := reflect.New(m.Type().In(1)).Elem()
	for field, v := range fields {
		req.FieldByName(field).Set(reflect.ValueOf(v))
	}

	resp := reflect.New(m.Type().In(2).Elem())
	m.Call([]reflect.Value{reflect.ValueOf(ctx), req, resp})

	return resp.Elem()
}

// diagnostics is v, the Diagnostics field of a framework response or what
// ValidateImplementation answered, as diagnostics.
func diagnostics(v reflect.Value) diag.Diagnostics {
	d, ok := v.Interface().(diag.Diagnostics)
	if !ok {
		return diag.Diagnostics{diag.NewErrorDiagnostic("not diagnostics", v.Type().String())}
	}

	return d
}

// errorsOf are the error diagnostics of a schema, at their attribute paths.
func errorsOf(typeName string, diagnostics ...diag.Diagnostics) []problem {
	var out []problem

	for _, diags := range diagnostics {
		for _, d := range diags.Errors() {
			p := problem{typeName: typeName, what: d.Summary() + ": " + d.Detail()}
			if wp, ok := d.(diag.DiagnosticWithPath); ok {
				p.path = wp.Path().String()
			}

			out = append(out, p)
		}
	}

	return out
}

// undescribed finds, in the schemas as Terraform receives them (every attribute, nested
// attribute and block the framework serves, whatever its kind), the ones without a
// Description or MarkdownDescription.
func undescribed(ctx context.Context, p provider.Provider) []problem {
	resp, err := providerserver.NewProtocol6(p)().GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		return []problem{{typeName: "provider server", what: err.Error()}}
	}

	var out []problem

	for _, d := range resp.Diagnostics {
		if d.Severity == tfprotov6.DiagnosticSeverityError {
			out = append(out, problem{typeName: "provider server", what: d.Summary + ": " + d.Detail})
		}
	}

	w := walker{problems: &out}

	w.schema("provider", resp.Provider)

	for prefix, schemas := range map[string]map[string]*tfprotov6.Schema{
		"":           resp.ResourceSchemas,
		"data.":      resp.DataSourceSchemas,
		"ephemeral.": resp.EphemeralResourceSchemas,
		"list.":      resp.ListResourceSchemas,
	} {
		for name, s := range schemas {
			w.schema(prefix+name, s)
		}
	}

	for name, s := range resp.ActionSchemas {
		if s == nil {
			w.schema("action."+name, nil)
			continue
		}

		w.schema("action."+name, s.Schema)
	}

	return out
}

type walker struct {
	problems *[]problem
}

func (w walker) schema(typeName string, s *tfprotov6.Schema) {
	if s == nil {
		*w.problems = append(*w.problems, problem{typeName: typeName, what: "no schema"})
		return
	}

	w.block(typeName, "", s.Block)
}

func (w walker) block(typeName, prefix string, b *tfprotov6.SchemaBlock) {
	if b == nil {
		return
	}

	w.attributes(typeName, prefix, b.Attributes)

	for _, nb := range b.BlockTypes {
		p := prefix + nb.TypeName
		if nb.Block == nil || nb.Block.Description == "" {
			*w.problems = append(*w.problems, problem{typeName: typeName, path: p, what: "block without a description"})
		}

		if nb.Nesting != tfprotov6.SchemaNestedBlockNestingModeSingle && nb.Nesting != tfprotov6.SchemaNestedBlockNestingModeGroup {
			p += "[*]"
		}

		w.block(typeName, p+".", nb.Block)
	}
}

func (w walker) attributes(typeName, prefix string, attributes []*tfprotov6.SchemaAttribute) {
	for _, a := range attributes {
		p := prefix + a.Name
		if a.Description == "" {
			*w.problems = append(*w.problems, problem{typeName: typeName, path: p, what: "no Description or MarkdownDescription"})
		}

		if a.NestedType == nil {
			continue
		}

		if a.NestedType.Nesting != tfprotov6.SchemaObjectNestingModeSingle {
			p += "[*]"
		}

		w.attributes(typeName, p+".", a.NestedType.Attributes)
	}
}
