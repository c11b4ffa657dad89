package federation

import (
	"encoding/json"
	"fmt"
)

// Rule is the common case of a mapping rule: the value of one assertion attribute becomes the
// user's name, when every condition holds, and the user is put in groups (by name, of one
// domain). Keystone's rules can say much more; those are given as JSON (rules_json).
type Rule struct {
	// UserAttribute is the assertion attribute whose value is the user's name.
	UserAttribute string
	// Match are the conditions on other assertion attributes, all of which must hold.
	Match []Condition
	// Groups are group names of GroupDomainID.
	Groups        []string
	GroupDomainID string
}

// Condition holds when the assertion attribute Attribute has one of AnyOneOf, or none of
// NotAnyOf (exactly one of the two is set); the values are regular expressions with Regex.
type Condition struct {
	Attribute          string
	AnyOneOf, NotAnyOf []string
	Regex              bool
}

// keystone's rule objects, as the provider writes them: only these keys, in this form.
type (
	ruleJSON struct {
		Local  []localJSON  `json:"local"`
		Remote []remoteJSON `json:"remote"`
	}
	localJSON struct {
		User  *userJSON  `json:"user,omitempty"`
		Group *groupJSON `json:"group,omitempty"`
	}
	userJSON struct {
		Name string `json:"name"`
	}
	groupJSON struct {
		Name   string `json:"name"`
		Domain struct {
			ID string `json:"id"`
		} `json:"domain"`
	}
	remoteJSON struct {
		Type     string   `json:"type"`
		AnyOneOf []string `json:"any_one_of,omitempty"`
		NotAnyOf []string `json:"not_any_of,omitempty"`
		Regex    *bool    `json:"regex,omitempty"`
	}
)

// userPlaceholder is the local user's name: the value of the first remote rule.
const userPlaceholder = "{0}"

// Render is Keystone's rule list of rules, in canonical JSON (see Canonical).
func Render(rules []Rule) (string, error) {
	out := make([]ruleJSON, len(rules))

	for i, r := range rules {
		rj := ruleJSON{
			Local:  []localJSON{{User: &userJSON{Name: userPlaceholder}}},
			Remote: []remoteJSON{{Type: r.UserAttribute}},
		}

		for _, g := range r.Groups {
			gj := &groupJSON{Name: g}
			gj.Domain.ID = r.GroupDomainID
			rj.Local = append(rj.Local, localJSON{Group: gj})
		}

		for _, m := range r.Match {
			remote := remoteJSON{Type: m.Attribute, AnyOneOf: m.AnyOneOf, NotAnyOf: m.NotAnyOf}
			if m.Regex {
				remote.Regex = &m.Regex
			}

			rj.Remote = append(rj.Remote, remote)
		}

		out[i] = rj
	}

	raw, err := json.Marshal(out)
	if err != nil {
		return "", err
	}

	return Canonical(string(raw))
}

// Parse reads Keystone's rule list back into Rules; false when the rules are not all of that
// form (then only their JSON describes them).
func Parse(raw string) ([]Rule, bool) {
	var generic []any
	if json.Unmarshal([]byte(raw), &generic) != nil || len(generic) == 0 {
		return nil, false
	}

	var rules []ruleJSON
	if json.Unmarshal([]byte(raw), &rules) != nil {
		return nil, false
	}

	out := make([]Rule, len(rules))

	for i, rj := range rules {
		r, ok := parseRule(rj)
		if !ok {
			return nil, false
		}

		out[i] = r
	}

	// Nothing of the JSON may have been left out by the typed reading.
	again, err := Render(out)
	if err != nil {
		return nil, false
	}

	if canonical, err := Canonical(raw); err != nil || canonical != again {
		return nil, false
	}

	return out, true
}

func parseRule(rj ruleJSON) (Rule, bool) {
	if len(rj.Local) == 0 || len(rj.Remote) == 0 || rj.Local[0].User == nil || rj.Local[0].Group != nil ||
		rj.Local[0].User.Name != userPlaceholder {
		return Rule{}, false
	}

	first := rj.Remote[0]
	if first.AnyOneOf != nil || first.NotAnyOf != nil || first.Regex != nil {
		return Rule{}, false
	}

	r := Rule{UserAttribute: first.Type}

	for _, l := range rj.Local[1:] {
		if l.User != nil || l.Group == nil || (r.GroupDomainID != "" && l.Group.Domain.ID != r.GroupDomainID) {
			return Rule{}, false
		}

		r.GroupDomainID = l.Group.Domain.ID
		r.Groups = append(r.Groups, l.Group.Name)
	}

	for _, rm := range rj.Remote[1:] {
		if (rm.AnyOneOf == nil) == (rm.NotAnyOf == nil) {
			return Rule{}, false
		}

		r.Match = append(r.Match, Condition{Attribute: rm.Type, AnyOneOf: rm.AnyOneOf, NotAnyOf: rm.NotAnyOf, Regex: rm.Regex != nil && *rm.Regex})
	}

	return r, true
}

// Canonical is raw re-encoded with its object keys sorted and no insignificant white space:
// two rule lists mean the same when their canonical forms are equal.
func Canonical(raw string) (string, error) {
	var v any
	if err := json.Unmarshal([]byte(raw), &v); err != nil {
		return "", fmt.Errorf("rules are not valid JSON: %w", err)
	}

	out, err := json.Marshal(v)

	return string(out), err
}

// sameRules tells whether two rule lists (JSON) mean the same.
func sameRules(a, b string) bool {
	ca, errA := Canonical(a)
	cb, errB := Canonical(b)

	return errA == nil && errB == nil && ca == cb
}
