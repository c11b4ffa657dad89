package federation

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// This file checks a mapping's rules against Keystone's mapping schema (the JSON schema of
// keystone.federation.utils, version 1.0, which every release here accepts), so that a rule
// Keystone would refuse, or one that could never map anybody, is a plan-time error naming
// where in the rules it is. It also checks what the schema cannot: that every "{N}" of a local
// rule refers to a remote rule that passes a value on (one without any_one_of / not_any_of),
// which Keystone would only find out at login.

// Problem is one place where rules break the schema: Path is a JSON path into the rule list
// ("[0].remote[1]"), empty for the list itself.
type Problem struct {
	Path, Message string
}

func (p Problem) String() string {
	if p.Path == "" {
		return p.Message
	}

	return p.Path + ": " + p.Message
}

// CheckRulesJSON parses raw as Keystone's rule list and checks it (see CheckRules).
func CheckRulesJSON(raw string) []Problem {
	var rules any

	if err := json.Unmarshal([]byte(raw), &rules); err != nil {
		return []Problem{{Message: "not valid JSON: " + err.Error()}}
	}

	if obj, ok := rules.(map[string]any); ok {
		if _, wrapped := obj["rules"]; wrapped {
			return []Problem{{Message: `give the rule list itself, not an object with "rules"`}}
		}
	}

	return CheckRules(rules)
}

// CheckRules checks a decoded rule list against Keystone's mapping schema; the problems are
// sorted by their path.
func CheckRules(rules any) []Problem {
	c := &checker{}

	list, ok := rules.([]any)

	switch {
	case !ok:
		c.add("", "must be a list of rules")
	case len(list) == 0:
		c.add("", "must hold at least one rule")
	}

	for i, r := range list {
		c.rule(fmt.Sprintf("[%d]", i), r)
	}

	// In the order of the document's text for a reader (local comes before remote).
	slices.SortStableFunc(c.problems, func(a, b Problem) int {
		if n := ruleIndex(a.Path) - ruleIndex(b.Path); n != 0 {
			return n
		}

		return strings.Compare(a.Path, b.Path)
	})

	return c.problems
}

// ruleIndex is the index of the rule a path is in ("[3].local" is in rule 3); -1 for none.
func ruleIndex(path string) int {
	rest, ok := strings.CutPrefix(path, "[")
	if end := strings.Index(rest, "]"); ok && end > 0 {
		if n, err := strconv.Atoi(rest[:end]); err == nil {
			return n
		}
	}

	return -1
}

type checker struct {
	problems []Problem
}

func (c *checker) add(path, format string, args ...any) {
	c.problems = append(c.problems, Problem{Path: path, Message: fmt.Sprintf(format, args...)})
}

// object checks that v is an object of only the allowed keys, each of which is then its
// checker's (nil: any value), with the required ones present.
func (c *checker) object(path string, v any, required []string, allowed map[string]func(path string, v any)) (map[string]any, bool) {
	obj, ok := v.(map[string]any)
	if !ok {
		c.add(path, "must be an object")
		return nil, false
	}

	for _, k := range required {
		if _, ok := obj[k]; !ok {
			c.add(path, "%q is required", k)
		}
	}

	for _, k := range slices.Sorted(maps.Keys(obj)) {
		check, known := allowed[k]

		switch {
		case !known:
			c.add(path, "%q is not allowed here (allowed: %s)", k, strings.Join(slices.Sorted(maps.Keys(allowed)), ", "))
		case check != nil:
			check(path+"."+k, obj[k])
		}
	}

	return obj, true
}

func (c *checker) str(path string, v any) {
	if _, ok := v.(string); !ok {
		c.add(path, "must be a string")
	}
}

func (c *checker) boolean(path string, v any) {
	if _, ok := v.(bool); !ok {
		c.add(path, "must be true or false")
	}
}

func (c *checker) array(path string, v any) {
	if _, ok := v.([]any); !ok {
		c.add(path, "must be a list")
	}
}

// each checks that v is a list, at least min long, and every element with check.
func (c *checker) each(path string, v any, minLen int, check func(path string, v any)) {
	list, ok := v.([]any)

	switch {
	case !ok:
		c.add(path, "must be a list")
	case len(list) < minLen:
		c.add(path, "must hold at least %d element(s)", minLen)
	}

	for i, e := range list {
		check(fmt.Sprintf("%s[%d]", path, i), e)
	}
}

func (c *checker) domain(path string, v any) {
	c.object(path, v, nil, map[string]func(string, any){"id": c.str, "name": c.str})
}

// condition keys of a remote rule: at most one of them, with an optional regex.
var conditions = []string{"any_one_of", "not_any_of", "blacklist", "whitelist"}

func (c *checker) rule(path string, v any) {
	obj, ok := c.object(path, v, []string{"local", "remote"}, map[string]func(string, any){"local": nil, "remote": nil})
	if !ok {
		return
	}

	passing := 0 // remote rules that pass their values on: the {N} of the local rules

	if remote, ok := obj["remote"]; ok {
		c.each(path+".remote", remote, 1, func(p string, r any) {
			if c.remote(p, r) {
				passing++
			}
		})
	}

	if local, ok := obj["local"]; ok {
		c.each(path+".local", local, 0, func(p string, l any) { c.local(p, l, passing) })
	}
}

// remote checks a remote rule; true when it passes its values on to the local rules.
func (c *checker) remote(path string, v any) bool {
	allowed := map[string]func(string, any){"type": c.str, "regex": c.boolean}
	for _, k := range conditions {
		allowed[k] = c.array
	}

	obj, ok := c.object(path, v, []string{"type"}, allowed)
	if !ok {
		return false
	}

	var given []string

	for _, k := range conditions {
		if _, ok := obj[k]; ok {
			given = append(given, k)
		}
	}

	switch {
	case len(given) > 1:
		c.add(path, "has %s: at most one of %s", strings.Join(given, " and "), strings.Join(conditions, ", "))
	case len(given) == 0 && obj["regex"] != nil:
		c.add(path, `"regex" needs one of %s`, strings.Join(conditions, ", "))
	}

	return len(given) == 0 || given[0] == "blacklist" || given[0] == "whitelist"
}

func (c *checker) local(path string, v any, passing int) {
	c.object(path, v, nil, map[string]func(string, any){
		"user": func(p string, u any) {
			c.object(p, u, nil, map[string]func(string, any){
				"id": c.placeholders(passing), "name": c.placeholders(passing), "email": c.placeholders(passing),
				"domain": c.domain,
				"type": func(p string, t any) {
					if s, ok := t.(string); !ok || (s != "ephemeral" && s != "local") {
						c.add(p, `must be "ephemeral" or "local"`)
					}
				},
			})
		},
		"group": func(p string, g any) {
			obj, ok := g.(map[string]any)
			if _, byID := obj["id"]; ok && byID {
				c.object(p, g, []string{"id"}, map[string]func(string, any){"id": c.placeholders(passing)})
				return
			}

			c.object(p, g, []string{"name", "domain"}, map[string]func(string, any){"name": c.placeholders(passing), "domain": c.domain})
		},
		"groups":    c.placeholders(passing),
		"group_ids": c.placeholders(passing),
		"domain":    c.domain,
		"projects": func(p string, ps any) {
			c.each(p, ps, 0, func(p string, pr any) {
				c.object(p, pr, []string{"name", "roles"}, map[string]func(string, any){
					"name": c.placeholders(passing),
					"roles": func(p string, rs any) {
						c.each(p, rs, 0, func(p string, r any) {
							c.object(p, r, []string{"name"}, map[string]func(string, any){"name": c.str})
						})
					},
				})
			})
		},
	})
}

// placeholderPattern is a "{N}" of a local rule: the values of the Nth passing remote rule.
var placeholderPattern = regexp.MustCompile(`\{(\d+)\}`)

// placeholders checks a string whose "{N}" must refer to one of passing remote rules.
func (c *checker) placeholders(passing int) func(path string, v any) {
	return func(path string, v any) {
		s, ok := v.(string)
		if !ok {
			c.add(path, "must be a string")
			return
		}

		for _, m := range placeholderPattern.FindAllStringSubmatch(s, -1) {
			if n, err := strconv.Atoi(m[1]); err != nil || n >= passing {
				c.add(path, "%s refers to remote rule value %s, but the rule has %d remote rule(s) that pass a value on "+
					"(those without any_one_of or not_any_of), counted from 0", m[0], m[1], passing)
			}
		}
	}
}
