package cloud

import "testing"

func TestSameSet(t *testing.T) {
	t.Parallel()

	for _, tt := range []struct {
		a, b []string
		want bool
	}{
		{nil, nil, true},
		{nil, []string{}, true},
		{[]string{"a", "b"}, []string{"b", "a"}, true},
		{[]string{"a", "a", "b"}, []string{"b", "a"}, true},
		{[]string{"a"}, []string{"a", "b"}, false},
		{[]string{"a", "b"}, []string{"a"}, false},
		{[]string{"a"}, nil, false},
	} {
		if got := SameSet(tt.a, tt.b); got != tt.want {
			t.Errorf("SameSet(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}
