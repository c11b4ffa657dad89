package domain

import "testing"

func TestChanges(t *testing.T) {
	on, off := true, false

	for _, c := range []struct {
		name      string
		cur, want Fields
		changed   bool
		check     func(Update) bool
	}{
		{"same", Fields{Name: "a", Description: "d", Enabled: &on}, Fields{Name: "a", Description: "d", Enabled: &on}, false,
			func(u Update) bool { return u == Update{} }},
		{"name", Fields{Name: "a"}, Fields{Name: "b"}, true,
			func(u Update) bool { return u.Name == "b" && u.Description == nil && u.Enabled == nil }},
		{"description cleared", Fields{Name: "a", Description: "d"}, Fields{Name: "a"}, true,
			func(u Update) bool { return u.Name == "" && u.Description != nil && *u.Description == "" }},
		{"disabled", Fields{Name: "a", Enabled: &on}, Fields{Name: "a", Enabled: &off}, true,
			func(u Update) bool { return u.Enabled != nil && !*u.Enabled && u.Description == nil }},
		{"no enabled flag", Fields{Name: "a"}, Fields{Name: "a", Enabled: &off}, false,
			func(u Update) bool { return u.Enabled == nil }},
	} {
		u, changed := Changes(c.cur, c.want)
		if changed != c.changed || !c.check(u) {
			t.Errorf("%s: Changes = %+v, %t", c.name, u, changed)
		}
	}
}
