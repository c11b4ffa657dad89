package federation

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

func TestRenderAndParse(t *testing.T) {
	t.Parallel()

	rules := []Rule{
		{
			UserAttribute: "OIDC-preferred_username",
			Match:         []Condition{{Attribute: "OIDC-groups", AnyOneOf: []string{"staff", "admins"}}},
			Groups:        []string{"members", "staff"}, GroupDomainID: "d-1",
		},
		{UserAttribute: "OIDC-email", Match: []Condition{{Attribute: "OIDC-email", NotAnyOf: []string{".*@evil"}, Regex: true}}},
	}

	raw, err := Render(rules)
	if err != nil {
		t.Fatal(err)
	}

	want := `[{"local":[{"user":{"name":"{0}"}},{"group":{"domain":{"id":"d-1"},"name":"members"}},{"group":{"domain":{"id":"d-1"},"name":"staff"}}],` +
		`"remote":[{"type":"OIDC-preferred_username"},{"any_one_of":["staff","admins"],"type":"OIDC-groups"}]},` +
		`{"local":[{"user":{"name":"{0}"}}],"remote":[{"type":"OIDC-email"},{"not_any_of":[".*@evil"],"regex":true,"type":"OIDC-email"}]}]`
	if raw != want {
		t.Fatalf("rendered\n  %s\nwant\n  %s", raw, want)
	}

	if problems := CheckRulesJSON(raw); len(problems) != 0 {
		t.Fatalf("the rendered rules break Keystone's schema: %v", problems)
	}

	back, ok := Parse(strings.ReplaceAll(raw, ",", ", ")) // any spelling of the same JSON
	if !ok {
		t.Fatal("the rendered rules do not parse back")
	}

	if diff := cmp.Diff(rules, back); diff != "" {
		t.Fatalf("parsed back (-want +got):\n%s", diff)
	}

	for _, other := range []string{
		`[{"local":[{"user":{"name":"{0}","type":"local"}}],"remote":[{"type":"a"}]}]`,                 // a user type
		`[{"local":[{"groups":"{1}","domain":{"id":"d"}}],"remote":[{"type":"a"},{"type":"b"}]}]`,      // groups from the assertion
		`[{"local":[{"user":{"name":"{0}"}}],"remote":[{"type":"a"},{"type":"b","whitelist":["x"]}]}]`, // a whitelist
		`[{"local":[{"user":{"name":"{0}"}},{"group":{"name":"g","domain":{"id":"d1"}}},{"group":{"name":"h","domain":{"id":"d2"}}}],"remote":[{"type":"a"}]}]`,
		`[]`,
		`{}`,
	} {
		if _, ok := Parse(other); ok {
			t.Errorf("%s parsed as the common form", other)
		}
	}
}

func TestCheckRules(t *testing.T) {
	t.Parallel()

	tests := []struct {
		rules string
		want  []string // problems, "" for none
	}{
		{`[{"local":[{"user":{"name":"{0}"}},{"group":{"id":"g"}}],"remote":[{"type":"a"}]}]`, nil},
		{`[{"local":[{"projects":[{"name":"p","roles":[{"name":"member"}]}]}],"remote":[{"type":"a","whitelist":["x"],"regex":true}]}]`, nil},
		{`[]`, []string{"must hold at least one rule"}},
		{`{"rules":[]}`, []string{`give the rule list itself, not an object with "rules"`}},
		{`[{"local":[]}]`, []string{`[0]: "remote" is required`}},
		{`[{"local":[],"remote":[],"extra":1}]`, []string{
			`[0]: "extra" is not allowed here (allowed: local, remote)`, "[0].remote: must hold at least 1 element(s)",
		}},
		{`[{"local":[{"user":{"name":"{1}"}}],"remote":[{"type":"a"},{"type":"b","any_one_of":["x"]}]}]`, []string{
			"[0].local[0].user.name: {1} refers to remote rule value 1, but the rule has 1 remote rule(s) that pass a value on",
		}},
		{`[{"local":[{"group":{"name":"g"}}],"remote":[{"type":"a","any_one_of":["x"],"not_any_of":["y"]}]}]`, []string{
			`[0].local[0].group: "domain" is required`, "[0].remote[0]: has any_one_of and not_any_of: at most one of",
		}},
		{`[{"local":[{"group":{"id":"g","name":"n"}}],"remote":[{"type":"a","regex":true}]}]`, []string{
			`[0].local[0].group: "name" is not allowed here (allowed: id)`, `[0].remote[0]: "regex" needs one of`,
		}},
		{`[{"local":[{"user":{"type":"admin"}}],"remote":[{"type":1}]}]`, []string{
			`[0].local[0].user.type: must be "ephemeral" or "local"`, "[0].remote[0].type: must be a string",
		}},
		{`[{"local":[{"projects":[{"name":"p"}]}],"remote":[{"type":"a"}]}]`, []string{`[0].local[0].projects[0]: "roles" is required`}},
		{`not json`, []string{"not valid JSON"}},
	}

	for _, tt := range tests {
		got := CheckRulesJSON(tt.rules)

		if len(got) != len(tt.want) {
			t.Errorf("%s: problems %v, want %d: %v", tt.rules, got, len(tt.want), tt.want)
			continue
		}

		for i, p := range got {
			if !strings.HasPrefix(p.String(), tt.want[i]) {
				t.Errorf("%s: problem %d is %q, want it to start with %q", tt.rules, i, p, tt.want[i])
			}
		}
	}
}

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
