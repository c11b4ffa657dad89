package project

import (
	"cmp"
	"slices"
)

// The role bindings are converged as a set of role assignments on the project: an assignment
// that a wanted binding names is kept (or made), one that a recorded binding named and no
// wanted one does is removed, the service user's own are the provider's, and every other is
// someone else's: left alone, and said in a warning.

// owner is who the bindings' names are resolved against: the domain of the users and of the
// groups given by name, and the project's own group, which is always known by its name.
type owner struct {
	userDomainID       string
	groupID, groupName string
	serviceUserID      string
}

// names tells whether assignment a is the binding of role to the user or group ref.
func (o owner) names(a Assignment, role, ref string, group bool) bool {
	switch {
	case a.RoleName != role:
		return false
	case !group:
		return a.UserID != "" && a.Name == ref && a.DomainID == o.userDomainID
	case a.GroupID == "":
		return false
	}

	return a.GroupID == ref || (a.Name == ref && a.DomainID == o.userDomainID) || (ref == o.groupName && a.GroupID == o.groupID)
}

// entry is one user or group of a binding.
type entry struct {
	role, ref string
	group     bool
}

func entries(bindings []Binding) []entry {
	var out []entry

	for _, b := range bindings {
		for _, u := range b.Users {
			out = append(out, entry{role: b.Role, ref: u})
		}

		for _, g := range b.Groups {
			out = append(out, entry{role: b.Role, ref: g, group: true})
		}
	}

	return out
}

// convergence is what bindings need done, given the assignments on the project.
type convergence struct {
	// held is want with only the users and groups whose assignment exists.
	held []Binding
	// missing are the entries of want without their assignment.
	missing []entry
	// extra are the assignments that prior's bindings named and want's do not.
	extra []Assignment
	// foreign are the assignments nobody here named, other than the service user's.
	foreign []Assignment
}

// converge compares the assignments current on the project with the bindings wanted now (of
// o) and the bindings recorded before (of prior, whose user domain may differ).
func converge(current []Assignment, want []Binding, o owner, prior []Binding, priorOwner owner) convergence {
	var c convergence

	wanted := make([]bool, len(current))

	for _, b := range want {
		h := Binding{Role: b.Role}

		for _, e := range entries([]Binding{b}) {
			found := false

			for i, a := range current {
				if o.names(a, e.role, e.ref, e.group) {
					wanted[i], found = true, true
				}
			}

			switch {
			case !found:
				c.missing = append(c.missing, e)
			case e.group:
				h.Groups = append(h.Groups, e.ref)
			default:
				h.Users = append(h.Users, e.ref)
			}
		}

		c.held = append(c.held, h)
	}

	for i, a := range current {
		switch {
		case wanted[i]:
		case named(a, prior, priorOwner):
			c.extra = append(c.extra, a)
		case a.UserID != "" && a.UserID == o.serviceUserID:
		default:
			c.foreign = append(c.foreign, a)
		}
	}

	return c
}

// named tells whether one of bindings names assignment a.
func named(a Assignment, bindings []Binding, o owner) bool {
	for _, e := range entries(bindings) {
		if o.names(a, e.role, e.ref, e.group) {
			return true
		}
	}

	return false
}

// adopt turns the assignments on a project of which nothing is recorded (an import) into
// bindings, one per role in role order: users by name when they are of o's user domain (one
// of another domain cannot be named, and is returned as foreign), groups by name when they are
// of that domain or the project's own, else by ID. The service user's are left out.
func adopt(current []Assignment, o owner) ([]Binding, []Assignment) {
	byRole := map[string]*Binding{}

	var (
		out     []Binding
		foreign []Assignment
	)

	for _, a := range current {
		if a.UserID != "" && (a.UserID == o.serviceUserID || a.DomainID != o.userDomainID) {
			if a.UserID != o.serviceUserID {
				foreign = append(foreign, a)
			}

			continue
		}

		b := byRole[a.RoleName]
		if b == nil {
			b = &Binding{Role: a.RoleName}
			byRole[a.RoleName] = b
		}

		switch {
		case a.UserID != "":
			b.Users = append(b.Users, a.Name)
		case a.DomainID == o.userDomainID || a.GroupID == o.groupID:
			b.Groups = append(b.Groups, a.Name)
		default:
			b.Groups = append(b.Groups, a.GroupID)
		}
	}

	for _, b := range byRole {
		slices.Sort(b.Users)
		slices.Sort(b.Groups)
		out = append(out, *b)
	}

	slices.SortFunc(out, func(a, b Binding) int { return cmp.Compare(a.Role, b.Role) })

	return out, foreign
}
