package cloud

import "strings"

// Listed keeps, of the objects all of project projectID, those named <prefix><name> (the
// provider's deterministic names; prefix "" keeps them all) and returns them as Located, with
// Name the <name>: what a list resource shows of a tenant kind.
func Listed[T any](all []T, projectID, prefix string, nameOf, idOf func(T) string) []Located {
	var out []Located

	for _, o := range all {
		if name, ok := strings.CutPrefix(nameOf(o), prefix); ok && name != "" {
			out = append(out, Located{ID: idOf(o), ProjectID: projectID, Name: name})
		}
	}

	return out
}
