package naming

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Exact keeps the items whose name is exactly want: byte for byte, case
// and white space included. OpenStack's name filters are fuzzy (Nova's is
// an unanchored regular expression, so name=lb-a also returns lb-ab; other
// services and releases match prefixes or ignore case), so every list
// filtered by name must pass through Exact before it is trusted.
//
// The result keeps the order of items and is nil when nothing matches.
func Exact[T any](items []T, want string, name func(T) string) []T {
	var out []T

	for _, item := range items {
		if name(item) == want {
			out = append(out, item)
		}
	}

	return out
}

// DuplicateError is the consistency error of two or more cloud objects of
// one kind that carry the same deterministic name. The provider never picks
// one of them: an operator has to remove the extra objects.
type DuplicateError struct {
	// Kind is what the objects are, singular ("security group").
	Kind string
	// Name is the name they share.
	Name string
	// IDs are the IDs of all of them, sorted.
	IDs []string
}

func (e *DuplicateError) Error() string {
	return fmt.Sprintf("consistency error: %d %s named %q: %s",
		len(e.IDs), plural(e.Kind), e.Name, strings.Join(e.IDs, ", "))
}

// plural is the English plural of a kind such as "security group",
// "address", "policy" or "key".
func plural(kind string) string {
	switch {
	case kind == "":
		return "objects"
	case strings.HasSuffix(kind, "s"), strings.HasSuffix(kind, "x"),
		strings.HasSuffix(kind, "ch"), strings.HasSuffix(kind, "sh"):
		return kind + "es"
	case strings.HasSuffix(kind, "y") && len(kind) > 1 && !strings.ContainsRune("aeiou", rune(kind[len(kind)-2])):
		return kind[:len(kind)-1] + "ies"
	default:
		return kind + "s"
	}
}

// errEmptyName is returned by One when asked for the empty name: it is
// always a programming error, and a fuzzy filter with an empty name would
// match every object.
var errEmptyName = errors.New("naming: lookup by empty name")

// One picks the only item of kind whose name is exactly want (see [Exact]).
// It returns (item, true, nil) for one exact match, (zero, false, nil) for
// none, and (zero, false, *[DuplicateError]) naming every ID for two or
// more. Asking for the empty name is an error.
func One[T any](kind, want string, items []T, name, id func(T) string) (T, bool, error) {
	var zero T

	if want == "" {
		return zero, false, fmt.Errorf("%w (%s)", errEmptyName, kind)
	}

	matches := Exact(items, want, name)

	switch len(matches) {
	case 0:
		return zero, false, nil
	case 1:
		return matches[0], true, nil
	}

	ids := make([]string, len(matches))
	for i, m := range matches {
		ids[i] = id(m)
	}

	slices.Sort(ids)

	return zero, false, &DuplicateError{Kind: kind, Name: want, IDs: ids}
}
