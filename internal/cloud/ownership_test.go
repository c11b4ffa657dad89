package cloud

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

func TestAdoptOnlyAnUnfinishedCreateOfTheSameType(t *testing.T) {
	t.Parallel()

	const typ = "unikorn_network"

	cases := []struct {
		mark  naming.Mark
		claim Claim
		says  string
	}{
		{naming.Mark{}, ClaimForeign, "did not make it"},
		{naming.MadeFor("unikorn_project"), ClaimOtherKind, "for a unikorn_project, not for a unikorn_network"},
		{naming.MadeFor(typ).Done(), ClaimFinished, "another configuration"},
		{naming.MadeFor(typ), ClaimUnfinished, ""},
	}

	for _, c := range cases {
		ex := Existing{Type: typ, Kind: "network", Name: "network-web", ID: "n-1", Where: "in project p, region RegionOne",
			ImportID: "RegionOne/n-1", Mark: c.mark}

		if got := ClaimOf(typ, c.mark); got != c.claim {
			t.Errorf("ClaimOf(%+v) = %v, want %v", c.mark, got, c.claim)
		}

		err := Adopt(ex)
		if c.claim == ClaimUnfinished {
			if err != nil || !Owns(typ, c.mark) {
				t.Errorf("%+v: Adopt = %v, Owns = %v; want it adopted", c.mark, err, Owns(typ, c.mark))
			}

			continue
		}

		var exists *ExistsError
		if !errors.As(err, &exists) || exists.Claim != c.claim || Owns(typ, c.mark) {
			t.Fatalf("%+v: Adopt = %v; want an ExistsError of claim %v", c.mark, err, c.claim)
		}

		for _, want := range []string{c.says, "network-web", "n-1", "RegionOne", "terraform import unikorn_network.<address> RegionOne/n-1"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%+v: %q does not say %q", c.mark, err, want)
			}
		}
	}
}

func TestExistsErrorOfAPartNamesTheResource(t *testing.T) {
	t.Parallel()

	err := Adopt(Existing{Type: "unikorn_server", Kind: "port", Name: "server-web", ID: "p-1", Part: `unikorn_server "web"`})
	if err == nil || !strings.Contains(err.Error(), `part of unikorn_server "web"`) || strings.Contains(err.Error(), "terraform import") {
		t.Fatalf("err %v; want the part named and no import command", err)
	}
}

// A create whose answer was lost recovers only an object that carries its own creation mark:
// an object of the key made by someone else is never taken for it, and nothing is posted again.
func TestCreateLostAnswerNeverRecoversAForeignObject(t *testing.T) {
	f := &fakeObjects{fail: []error{io.ErrUnexpectedEOF}, acted: []bool{false}}
	f.objects = []fakeObject{{id: "theirs", name: "unikorn-net"}} // made before, by someone else

	spec := f.spec()
	spec.Adopt = func(o fakeObject) error {
		if o.id == "theirs" {
			return Adopt(Existing{Type: "unikorn_network", Kind: "network", Name: o.name, ID: o.id})
		}

		return nil
	}

	var pauses []time.Duration

	got, err := Create(noSleep(&pauses), spec)

	var exists *ExistsError
	if !errors.As(err, &exists) || exists.ID != "theirs" || got.id != "" {
		t.Fatalf("got %+v, err %v; want the foreign object refused, not recovered", got, err)
	}

	if f.posts != 1 {
		t.Fatalf("posts %d; want no second POST once the key is known to be taken", f.posts)
	}
}

func TestCreateLostAnswerRecoversItsOwnBesideAForeignOne(t *testing.T) {
	f := &fakeObjects{fail: []error{io.ErrUnexpectedEOF}, acted: []bool{true}}
	f.objects = []fakeObject{{id: "theirs", name: "unikorn-net"}}

	spec := f.spec()
	spec.Adopt = func(o fakeObject) error {
		if o.id == "theirs" {
			return errors.New("not ours")
		}

		return nil
	}

	got, err := Create(WithSleeper(context.Background(), func(context.Context, time.Duration) error { return nil }), spec)
	if err != nil || got.id != "id-1" {
		t.Fatalf("got %+v, err %v; want the create's own object id-1", got, err)
	}
}
