package cloud

import (
	"fmt"
	"strings"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// This file is the one ownership rule of every create (DESIGN.md §5): a create that meets an
// object of its deterministic name adopts it only when that object is what an interrupted create
// of the same resource type left unfinished — it carries this provider's creation mark for that
// type and no completion mark (naming.Mark). Anything else is refused, before any write, with an
// *ExistsError that names the object, who holds it and the way out.

// Claim is who an existing object's marks say holds it.
type Claim int

// Claims, from the marks of an object a create meets.
const (
	// ClaimForeign: no creation mark. Unikorn, a person or another tool made it.
	ClaimForeign Claim = iota
	// ClaimOtherKind: this provider made it for another resource type.
	ClaimOtherKind
	// ClaimFinished: this provider made it for this resource type and the create finished: a
	// configuration holds it (another workspace, or one whose state lost it).
	ClaimFinished
	// ClaimUnfinished: a create of this resource type began it and never finished: adoptable.
	ClaimUnfinished
	// ClaimUnknown: the kind carries no marks (Nova flavors, Keystone identity providers), so
	// who made it cannot be told: never adopted.
	ClaimUnknown
)

// ClaimOf judges an object's marks for a create of resource type kind.
func ClaimOf(kind string, m naming.Mark) Claim {
	switch {
	case !m.Marked():
		return ClaimForeign
	case m.Kind != kind:
		return ClaimOtherKind
	case m.Completed:
		return ClaimFinished
	default:
		return ClaimUnfinished
	}
}

// Existing describes an object that a create met, for [Adopt] and [ExistsError].
type Existing struct {
	// Type is the resource type of the create ("unikorn_network").
	Type string
	// Kind names the object in messages ("network"), Name is its cloud name, ID its ID.
	Kind, Name, ID string
	// Where says where it is ("in project P, region R"); "" for a global object.
	Where string
	// ImportID is what `terraform import` takes for it ("RegionOne/ID"); "" when the object is
	// only a part of a resource and cannot be imported on its own (Part then names the resource).
	ImportID string
	// Part, when set, is the resource the object would be a part of ("unikorn_network web"), for
	// an object such as a subnet or a port that is not imported by itself.
	Part string
	// Mark is what the object carries.
	Mark naming.Mark
}

// Adopt is the ownership rule: nil when the create of ex.Type may adopt ex (an unfinished create
// of that type), else an *ExistsError that refuses it.
func Adopt(ex Existing) error {
	claim := ClaimOf(ex.Type, ex.Mark)
	if claim == ClaimUnfinished {
		return nil
	}

	return &ExistsError{Existing: ex, Claim: claim}
}

// Owns tells whether a create of resource type kind may take an object with mark m as its own
// (the same rule as [Adopt], without the message): for the look after a lost answer.
func Owns(kind string, m naming.Mark) bool { return ClaimOf(kind, m) == ClaimUnfinished }

// ExistsError refuses a create that met an object of its name which it may not adopt.
type ExistsError struct {
	Existing

	Claim Claim
}

func (e *ExistsError) Error() string {
	var b strings.Builder

	fmt.Fprintf(&b, "%s %s named %q already exists (%s", article(e.Kind), e.Kind, e.Name, e.ID)

	if e.Where != "" {
		fmt.Fprintf(&b, ", %s", e.Where)
	}

	b.WriteString(") and ")

	switch e.Claim {
	case ClaimForeign:
		b.WriteString("this provider did not make it (Unikorn, a person or another tool did): it is not taken over")
	case ClaimOtherKind:
		fmt.Fprintf(&b, "this provider made it for a %s, not for a %s: it is not taken over", e.Mark.Kind, e.Type)
	case ClaimFinished:
		fmt.Fprintf(&b, "it is a finished %s of another configuration (another workspace, or a state that lost it): "+
			"it is not taken over", e.Type)
	case ClaimUnfinished:
		fmt.Fprintf(&b, "another create of a %s began it (one running now, or killed) that this create cannot tell for its own: "+
			"it is not taken over", e.Type)
	case ClaimUnknown:
		fmt.Fprintf(&b, "a %s carries no mark of who made it (another configuration, a person or a tool): it is not taken over",
			e.Kind)
	}

	b.WriteString(". ")
	b.WriteString(e.WayOut())

	return b.String()
}

// article is "a" or "an" for word.
func article(word string) string {
	if word != "" && strings.ContainsRune("aeiouAEIOU", rune(word[0])) {
		return "an"
	}

	return "a"
}

// WayOut says what the user can do.
func (e *ExistsError) WayOut() string {
	switch {
	case e.Part != "":
		return fmt.Sprintf("It would be a part of %s: give the resource another name, or remove the %s %s from the cloud "+
			"if nothing uses it", e.Part, e.Kind, e.ID)
	case e.ImportID != "":
		return fmt.Sprintf("To manage it with this configuration, import it (terraform import %s.<address> %s, or an "+
			"import block with id = %q); otherwise give this resource another name", e.Type, e.ImportID, e.ImportID)
	default:
		return "Give this resource another name"
	}
}
