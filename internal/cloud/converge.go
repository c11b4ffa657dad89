package cloud

import "slices"

// SameSet tells whether a and b hold the same elements, in any order and however often each:
// whether a converge must rewrite a list that OpenStack keeps as a set (tags, host routes,
// allocation pools).
func SameSet[T comparable](a, b []T) bool {
	missing := func(from []T) func(T) bool { return func(x T) bool { return !slices.Contains(from, x) } }

	return !slices.ContainsFunc(a, missing(b)) && !slices.ContainsFunc(b, missing(a))
}
