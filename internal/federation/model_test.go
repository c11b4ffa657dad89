package federation

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"
)

// TestFlattenRules: rules_json keeps the configuration's spelling while it means what Keystone
// holds, and takes Keystone's otherwise; rules are read back where the configuration uses them
// (and on import), and are null when Keystone's rules do not have their form.
func TestFlattenRules(t *testing.T) {
	t.Parallel()

	ctx := context.Background()
	keystone, err := Render([]Rule{{UserAttribute: "OIDC-email"}})
	if err != nil {
		t.Fatal(err)
	}

	spelled := `[ { "remote": [ {"type": "OIDC-email"} ], "local": [ {"user": {"name": "{0}"}} ] } ]`

	f := &Federation{IDPID: "idp", DomainID: "d", Protocol: "openid", MappingID: "idp-mapping", Rules: keystone}

	json := federationModel{Protocol: types.StringValue("openid"), RulesJSON: types.StringValue(spelled),
		Rules: types.ListNull(types.ObjectType{AttrTypes: ruleAttrTypes})}
	json.flatten(ctx, f)

	if json.RulesJSON.ValueString() != spelled || !json.Rules.IsNull() {
		t.Fatalf("JSON form: rules_json %s, rules %s; want the configuration's spelling and no rules", json.RulesJSON, json.Rules)
	}

	imported := federationModel{ID: types.StringValue("idp")}
	imported.flatten(ctx, f)

	if imported.RulesJSON.ValueString() != keystone || len(imported.Rules.Elements()) != 1 || imported.IDPID.ValueString() != "idp" {
		t.Fatalf("import: rules_json %s, rules %s, idp_id %s", imported.RulesJSON, imported.Rules, imported.IDPID)
	}

	// Changed out of band into something the common form cannot say.
	f.Rules = `[{"local":[{"user":{"name":"{0}","type":"local"}}],"remote":[{"type":"OIDC-email"}]}]`

	imported.flatten(ctx, f)

	if imported.RulesJSON.ValueString() != f.Rules || !imported.Rules.IsNull() {
		t.Fatalf("drift: rules_json %s, rules %s; want Keystone's rules and no common form", imported.RulesJSON, imported.Rules)
	}

	// The mapping is gone.
	f.Rules, f.Protocol, f.MappingID = "", "", ""

	imported.flatten(ctx, f)

	if !imported.RulesJSON.IsNull() || !imported.Protocol.IsNull() || !imported.MappingID.IsNull() {
		t.Fatalf("gone: %+v", imported)
	}
}
