package domain

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2"
)

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

func TestFound(t *testing.T) {
	a := &Admin{ProjectID: "p", UserID: "u"}

	for _, c := range []struct {
		name    string
		err     error
		found   bool
		failure string
	}{
		{"found", nil, true, ""},
		{"not found", gophercloud.ErrUnexpectedResponseCode{Actual: http.StatusNotFound}, false, ""},
		{"refused", gophercloud.ErrUnexpectedResponseCode{Actual: http.StatusForbidden, Body: []byte(`{"error":{"message":"You are not authorized"}}`)},
			false, "needs cloud admin"},
		{"failed", errors.New("connection reset"), false, "connection reset"},
	} {
		found, err := a.Found("reading domain d", c.err)
		if found != c.found || (err == nil) != (c.failure == "") || (err != nil && !strings.Contains(err.Error(), c.failure)) {
			t.Errorf("%s: Found = %t, %v", c.name, found, err)
		}
	}
}
