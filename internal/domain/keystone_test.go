package domain

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
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

func TestLocator(t *testing.T) {
	type object struct{ id, domainID, name string }

	objects := []object{{"id-1", "", "global"}, {"id-2", "d-1", "scoped"}, {"id-3", "managed", "bare"}}

	locator := func(scoped bool, defaultDomain string) Locator[object] {
		l := Locator[object]{
			Get: func(_ context.Context, id string) (*object, error) {
				for _, o := range objects {
					if o.id == id {
						return &o, nil
					}
				}

				return nil, nil
			},
			Find: func(_ context.Context, domainID, name string) (*object, error) {
				for _, o := range objects {
					if o.name == name && (o.domainID == domainID || !scoped) {
						return &o, nil
					}
				}

				return nil, nil
			},
			Scoped:  scoped,
			Located: func(o *object) cloud.Located { return cloud.Located{ID: o.id, Name: o.name} },
			Missing: func(importID, domainID, name string) error { return errors.New("missing " + domainID + "|" + name) },
		}

		if defaultDomain != "" {
			l.DefaultDomain = func(context.Context) (string, error) { return defaultDomain, nil }
		}

		return l
	}

	for _, c := range []struct {
		name          string
		scoped        bool
		defaultDomain string
		importID      string
		want, failure string
	}{
		{"unscoped by ID", false, "", "id-2", "id-2", ""},
		{"unscoped by name", false, "", "scoped", "id-2", ""},
		{"unscoped missing", false, "", "nothing", "", "missing |nothing"},
		{"global by ID", true, "", "id-1", "id-1", ""},
		{"global by name", true, "", "global", "id-1", ""},
		{"global, explicitly", true, "", "/global", "id-1", ""},
		{"of a domain", true, "", "d-1/scoped", "id-2", ""},
		{"not global", true, "", "scoped", "", "missing |scoped"},
		{"no name", true, "", "d-1/", "", "not of the form"},
		{"two slashes", true, "", "d-1/a/b", "", "not of the form"},
		{"default domain", true, "managed", "bare", "id-3", ""},
		{"default domain, by ID", true, "managed", "id-1", "id-1", ""},
		{"never global with a default domain", true, "managed", "/global", "", "not of the form"},
	} {
		got, err := locator(c.scoped, c.defaultDomain).Locate(context.Background(), c.importID)
		if got.ID != c.want || (err == nil) != (c.failure == "") || (err != nil && !strings.Contains(err.Error(), c.failure)) {
			t.Errorf("%s: Locate(%q) = %+v, %v", c.name, c.importID, got, err)
		}
	}
}
