package cloud

import (
	"cmp"
	"slices"
)

// SameSet tells whether a and b hold the same elements, in any order and however often each:
// whether a converge must rewrite a list that OpenStack keeps as a set (tags, host routes,
// allocation pools).
func SameSet[T comparable](a, b []T) bool {
	missing := func(from []T) func(T) bool { return func(x T) bool { return !slices.Contains(from, x) } }

	return !slices.ContainsFunc(a, missing(b)) && !slices.ContainsFunc(b, missing(a))
}

// SortedSet is in sorted, without repeats: a list OpenStack keeps as a set, in one order.
func SortedSet[T cmp.Ordered](in []T) []T {
	out := slices.Clone(in)
	slices.Sort(out)

	return slices.Compact(out)
}
