package project_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/acctest"
)

// TestAccProject_badInput: each mistake is a plan-time error at its attribute, before anything
// is made: a network or security group with both or neither of identity_id and project_id, a
// role binding of a role Keystone does not have (checked against its roles), a binding of
// nobody, a role bound twice, and a project in Keystone's Default domain.
func TestAccProject_badInput(t *testing.T) {
	acctest.PreCheck(t)

	name := acctest.RandomName()

	steps := []struct {
		config string
		want   string
	}{
		{`
resource "unikorn_network" "test" {
  name = "` + name + `"
  cidr = "10.1.0.0/24"
}`, `(?s)Invalid Attribute Combination.*No attribute specified when one \(and only one\) of\s+\[identity_id,project_id\]`},
		{`
resource "unikorn_security_group" "test" {
  name        = "` + name + `"
  identity_id = "0123456789abcdef0123456789abcdef"
  project_id  = "0123456789abcdef0123456789abcdef"
}`, `(?s)Invalid Attribute Combination.*2 attributes specified when one \(and only one\) of\s+\[identity_id,project_id\]`},
		{`
resource "unikorn_project" "test" {
  name          = "` + name + `"
  role_bindings = [{ role = "member", users = ["alice"] }, { role = "` + name + `", groups = ["g"] }]
}`, `(?s)Unknown role.*role_bindings\[1\]\.role: Keystone has no global role named\s+"` + name + `"`},
		{`
resource "unikorn_project" "test" {
  name          = "` + name + `"
  role_bindings = [{ role = "member" }]
}`, `(?s)Invalid role binding.*role_bindings\[0\] grants its role to nobody`},
		{`
resource "unikorn_project" "test" {
  name          = "` + name + `"
  role_bindings = [{ role = "member", users = ["a"] }, { role = "member", groups = ["g"] }]
}`, `(?s)Invalid role binding.*role_bindings\[1\]: role "member" is bound already by role_bindings\[0\]`},
		{`
resource "unikorn_project" "test" {
  name      = "` + name + `"
  domain_id = "default"
}`, `(?s)Project in the Default domain.*domain_id`},
	}

	ts := make([]resource.TestStep, len(steps))
	for i, s := range steps {
		// The CLI wraps messages: any space of the pattern matches any white space.
		want := regexp.MustCompile(strings.ReplaceAll(s.want, " ", `\s+`))
		ts[i] = resource.TestStep{Config: s.config, PlanOnly: true, ExpectError: want}
	}

	resource.ParallelTest(t, resource.TestCase{ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories, Steps: ts})
}
