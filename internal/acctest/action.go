package acctest

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	unikorn "github.com/unikorn-cloud/terraform-provider-unikorn/internal/provider"
)

// Actions (Terraform 1.14 and later) cannot be run by the CLIs these tests have, so they are
// driven at the protocol level: the provider is served through its tfprotov6 provider server,
// configured from the environment (an all-null provider block, as the tests' CLI runs give it)
// with ConfigureProvider, and the action is planned and invoked with the PlanAction and
// InvokeAction RPCs, against the real local cloud.

// Invoked is what one InvokeAction returned: its progress messages in order and the
// diagnostics of its completion.
type Invoked struct {
	Progress    []string
	Diagnostics []*tfprotov6.Diagnostic
}

// Err is the completion's error diagnostics as one error (nil when there are none).
func (i Invoked) Err() error {
	return diagnosticsErr("InvokeAction", i.Diagnostics)
}

// InvokeAction configures a fresh provider server from the environment and runs the action
// actionType (e.g. "unikorn_server_reboot") with config (its attributes; the rest are null):
// PlanAction, then InvokeAction. It fails the test when the provider cannot be configured or the
// plan fails; the invocation's own outcome is returned.
func InvokeAction(t *testing.T, actionType string, config map[string]tftypes.Value) Invoked {
	t.Helper()

	ctx := context.Background()

	served, err := providerserver.NewProtocol6WithError(unikorn.New("acctest")())()
	if err != nil {
		t.Fatal(err)
	}

	server, ok := served.(actionServer)
	if !ok {
		t.Fatalf("the provider server %T serves no actions", served)
	}

	schemas, err := server.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}

	providerConfig := dynamicValue(t, schemas.Provider, nil)

	configured, err := server.ConfigureProvider(ctx, &tfprotov6.ConfigureProviderRequest{TerraformVersion: "1.14.0", Config: providerConfig})
	if err == nil {
		err = diagnosticsErr("ConfigureProvider", configured.Diagnostics)
	}

	if err != nil {
		t.Fatal(err)
	}

	actionSchema := schemas.ActionSchemas[actionType]
	if actionSchema == nil {
		t.Fatalf("the provider serves no action %s", actionType)
	}

	value := dynamicValue(t, actionSchema.Schema, config)

	planned, err := server.PlanAction(ctx, &tfprotov6.PlanActionRequest{ActionType: actionType, Config: value})
	if err == nil {
		err = diagnosticsErr("PlanAction", planned.Diagnostics)
	}

	if err != nil {
		t.Fatal(err)
	}

	stream, err := server.InvokeAction(ctx, &tfprotov6.InvokeActionRequest{ActionType: actionType, Config: value})
	if err != nil {
		t.Fatal(err)
	}

	var out Invoked

	for event := range stream.Events {
		switch e := event.Type.(type) {
		case tfprotov6.ProgressInvokeActionEventType:
			out.Progress = append(out.Progress, e.Message)
		case tfprotov6.CompletedInvokeActionEventType:
			out.Diagnostics = append(out.Diagnostics, e.Diagnostics...)
		}
	}

	return out
}

// actionServer is the part of a provider server that runs actions.
type actionServer interface {
	tfprotov6.ProviderServer
	PlanAction(ctx context.Context, req *tfprotov6.PlanActionRequest) (*tfprotov6.PlanActionResponse, error)
	InvokeAction(ctx context.Context, req *tfprotov6.InvokeActionRequest) (*tfprotov6.InvokeActionServerStream, error)
}

// dynamicValue is the object of schema s with the attributes of set (the others null), as a
// tfprotov6 value.
func dynamicValue(t *testing.T, s *tfprotov6.Schema, set map[string]tftypes.Value) *tfprotov6.DynamicValue {
	t.Helper()

	objectType, ok := s.ValueType().(tftypes.Object)
	if !ok {
		t.Fatalf("schema type %T is not an object", s.ValueType())
	}

	attributes := make(map[string]tftypes.Value, len(objectType.AttributeTypes))

	for name, typ := range objectType.AttributeTypes {
		attributes[name] = tftypes.NewValue(typ, nil)
	}

	for name, v := range set {
		if _, ok := attributes[name]; !ok {
			t.Fatalf("the schema has no attribute %q", name)
		}

		attributes[name] = v
	}

	dv, err := tfprotov6.NewDynamicValue(objectType, tftypes.NewValue(objectType, attributes))
	if err != nil {
		t.Fatal(err)
	}

	return &dv
}

// diagnosticsErr joins the error diagnostics of rpc into one error (nil when there are none).
func diagnosticsErr(rpc string, diags []*tfprotov6.Diagnostic) error {
	var msgs []string

	for _, d := range diags {
		if d != nil && d.Severity == tfprotov6.DiagnosticSeverityError {
			msgs = append(msgs, d.Summary+": "+d.Detail)
		}
	}

	if len(msgs) == 0 {
		return nil
	}

	return fmt.Errorf("%s: %s", rpc, strings.Join(msgs, "; "))
}
