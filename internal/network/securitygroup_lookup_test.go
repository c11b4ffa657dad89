package network

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/adapter"
)

// The look-up's schema is the resource's, and a group read as the look-up reads it (the model
// set as byID sets it, then the resource's flatten) writes into it as the kit writes it.
func TestSecurityGroupLookup_schemaTakesTheFlattenedModel(t *testing.T) {
	t.Parallel()

	ctx := context.Background()
	ds := NewSecurityGroupLookup()

	sresp := &datasource.SchemaResponse{}
	ds.Schema(ctx, datasource.SchemaRequest{}, sresp)

	if sresp.Diagnostics.HasError() {
		t.Fatal(sresp.Diagnostics)
	}

	s := sresp.Schema
	for _, a := range []string{"id", "name", "region", "identity_id", "project_id", "description", "rules"} {
		if _, ok := s.Attributes[a]; !ok {
			t.Errorf("no attribute %q", a)
		}
	}

	if _, ok := s.Attributes["timeouts"]; ok {
		t.Error("the look-up has the resource's timeouts")
	}

	_, svc, _ := groupFake(t)
	made := mustEnsureGroup(t, svc, SecurityGroupSpec{Name: "web", Rules: []Rule{tcp(443, "")}}, "")

	g, err := svc.ObserveSecurityGroup(ctx, "web", made.ID)
	if err != nil || g == nil {
		t.Fatalf("observe: %v, %v", g, err)
	}

	var m securityGroupModel

	m.ID, m.Name, m.Region, m.IdentityID = types.StringValue(made.ID), types.StringValue("web"), types.StringValue("RegionOne"),
		types.StringValue("p1")
	flattenSecurityGroup(&m, g, false)

	lookup, _ := NewSecurityGroupLookup().(*adapter.LookupDataSource[meta, securityGroupModel])

	state, diags := lookup.StateOf(ctx, m)
	if diags.HasError() {
		t.Fatal(diags)
	}

	var rules types.Set
	if diags := state.GetAttribute(ctx, path.Root("rules"), &rules); diags.HasError() || len(rules.Elements()) != 1 {
		t.Errorf("rules %v: %v", rules, diags)
	}
}
