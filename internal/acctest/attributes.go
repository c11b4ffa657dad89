package acctest

import (
	"fmt"
	"slices"
	"strings"
)

// SetValues are the elements of the set or list attribute name in the flattened attributes a
// of a state, sorted.
func SetValues(a map[string]string, name string) []string {
	var out []string

	for k, v := range a {
		if key, ok := strings.CutPrefix(k, name+"."); ok && key != "#" {
			out = append(out, v)
		}
	}

	slices.Sort(out)

	return out
}

// MapValues is the map attribute name in the flattened attributes a of a state.
func MapValues(a map[string]string, name string) map[string]string {
	out := map[string]string{}

	for k, v := range a {
		if key, ok := strings.CutPrefix(k, name+"."); ok && key != "%" {
			out[key] = v
		}
	}

	return out
}

// Mismatches collects what a check of the cloud against the state finds different.
type Mismatches []string

// Expect records what when got and want print differently (the cloud has got, the state says
// want).
func (m *Mismatches) Expect(what string, got, want any) {
	if fmt.Sprint(got) != fmt.Sprint(want) {
		*m = append(*m, fmt.Sprintf("%s is %v, state says %v", what, got, want))
	}
}

// Err is nil when nothing differs, else one error about subject naming every difference.
func (m Mismatches) Err(subject string) error {
	if len(m) == 0 {
		return nil
	}

	return fmt.Errorf("%s: %s", subject, strings.Join(m, "; "))
}
