package cloud

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
)

// fakeObjects is a store of named objects whose create can be made to fail in given ways.
type fakeObjects struct {
	objects []fakeObject
	next    int
	posts   int
	// fail is the error of each POST in turn (nil: succeed); acted says whether the service
	// stored the object before that failure.
	fail  []error
	acted []bool
	// twin, when set, is stored by another party right after the first successful POST.
	twin    bool
	deleted []string
	finds   int
}

type fakeObject struct{ id, name string }

func (f *fakeObjects) spec() CreateSpec[fakeObject] {
	const name = "unikorn-net"

	return CreateSpec[fakeObject]{
		Kind: "network", Name: name,
		Create: func(context.Context) (fakeObject, error) {
			i := f.posts
			f.posts++

			var err error
			if i < len(f.fail) {
				err = f.fail[i]
			}

			if err == nil || f.acted[i] {
				f.next++
				o := fakeObject{id: fmt.Sprintf("id-%d", f.next), name: name}
				f.objects = append(f.objects, o)

				if err == nil && f.twin {
					f.twin = false
					f.next++
					f.objects = append(f.objects, fakeObject{id: fmt.Sprintf("id-%d", f.next), name: name})
				}

				if err == nil {
					return o, nil
				}
			}

			return fakeObject{}, err
		},
		Find: func(context.Context) ([]fakeObject, error) {
			f.finds++

			var out []fakeObject

			for _, o := range f.objects {
				if o.name == name {
					out = append(out, o)
				}
			}

			return out, nil
		},
		ID: func(o fakeObject) string { return o.id },
		Delete: func(_ context.Context, id string) error {
			f.deleted = append(f.deleted, id)

			for i, o := range f.objects {
				if o.id == id {
					f.objects = append(f.objects[:i], f.objects[i+1:]...)

					return nil
				}
			}

			return gophercloud.ErrUnexpectedResponseCode{Actual: http.StatusNotFound}
		},
	}
}

// noSleep records the pauses asked for without waiting.
func noSleep(pauses *[]time.Duration) context.Context {
	return WithSleeper(context.Background(), func(ctx context.Context, d time.Duration) error {
		*pauses = append(*pauses, d)

		return ctx.Err()
	})
}

func status(code int) error { return gophercloud.ErrUnexpectedResponseCode{Actual: code} }

func TestCreateLostAnswerIsRecovered(t *testing.T) {
	for _, lost := range []error{io.ErrUnexpectedEOF, status(http.StatusBadGateway), status(http.StatusGatewayTimeout)} {
		f := &fakeObjects{fail: []error{lost}, acted: []bool{true}}

		var pauses []time.Duration

		got, err := Create(noSleep(&pauses), f.spec())
		if err != nil {
			t.Fatalf("%v: %v", lost, err)
		}

		if got.id != "id-1" || f.posts != 1 || len(f.objects) != 1 {
			t.Fatalf("%v: got %+v after %d POSTs, objects %v; want the one object, no second POST", lost, got, f.posts, f.objects)
		}
	}
}

func TestCreateNotActedIsPostedAgain(t *testing.T) {
	f := &fakeObjects{fail: []error{status(http.StatusServiceUnavailable)}, acted: []bool{false}}

	var pauses []time.Duration

	got, err := Create(noSleep(&pauses), f.spec())
	if err != nil {
		t.Fatal(err)
	}

	if f.posts != 2 || len(f.objects) != 1 || got.id != "id-1" {
		t.Fatalf("posts %d, objects %v, got %+v; want a second POST making the one object", f.posts, f.objects, got)
	}

	if len(pauses) != len(createSettle) {
		t.Fatalf("pauses %v; want the whole settle window %v before posting again", pauses, createSettle)
	}
}

func TestCreateDefiniteRefusalIsReturned(t *testing.T) {
	f := &fakeObjects{fail: []error{status(http.StatusConflict)}, acted: []bool{false}}

	var pauses []time.Duration

	_, err := Create(noSleep(&pauses), f.spec())
	if !gophercloud.ResponseCodeIs(err, http.StatusConflict) {
		t.Fatalf("err %v; want the 409", err)
	}

	if f.posts != 1 || f.finds != 0 {
		t.Fatalf("posts %d finds %d; want one POST and no look-up", f.posts, f.finds)
	}
}

func TestCreateGivesUpAfterBoundedAttempts(t *testing.T) {
	bad := status(http.StatusBadGateway)
	f := &fakeObjects{fail: []error{bad, bad, bad, bad}, acted: []bool{false, false, false, false}}

	var pauses []time.Duration

	_, err := Create(noSleep(&pauses), f.spec())
	if err == nil || !gophercloud.ResponseCodeIs(err, http.StatusBadGateway) {
		t.Fatalf("err %v; want the 502 after the last attempt", err)
	}

	if f.posts != createAttempts || len(f.objects) != 0 {
		t.Fatalf("posts %d objects %v; want %d POSTs, nothing made", f.posts, f.objects, createAttempts)
	}
}

func TestCreateRemovesItsTwin(t *testing.T) {
	f := &fakeObjects{twin: true}

	var pauses []time.Duration

	_, err := Create(noSleep(&pauses), f.spec())

	var twin *TwinError
	if !errors.As(err, &twin) {
		t.Fatalf("err %v; want a TwinError", err)
	}

	if twin.Removed != "id-1" || twin.Kept != "id-2" || len(f.objects) != 1 || f.objects[0].id != "id-2" {
		t.Fatalf("twin %+v, objects %v; want id-1 removed and id-2 kept", twin, f.objects)
	}

	for _, id := range []string{"id-1", "id-2"} {
		if !strings.Contains(err.Error(), id) {
			t.Fatalf("error %q does not name %s", err, id)
		}
	}
}

func TestCreateWithoutTwinIsKept(t *testing.T) {
	f := &fakeObjects{}

	var pauses []time.Duration

	got, err := Create(noSleep(&pauses), f.spec())
	if err != nil || got.id != "id-1" || f.finds != 1 || len(f.deleted) != 0 {
		t.Fatalf("got %+v err %v finds %d deleted %v; want id-1 after one re-list", got, err, f.finds, f.deleted)
	}
}

func TestDefinite(t *testing.T) {
	cases := []struct {
		err  error
		want bool
	}{
		{status(http.StatusBadRequest), true},
		{status(http.StatusConflict), true},
		{status(http.StatusForbidden), true},
		{status(http.StatusRequestTimeout), false},
		{status(http.StatusTooManyRequests), false},
		{status(http.StatusInternalServerError), false},
		{status(http.StatusBadGateway), false},
		{io.EOF, false},
		{context.DeadlineExceeded, false},
	}

	for _, c := range cases {
		if got := Definite(fmt.Errorf("wrapped: %w", c.err)); got != c.want {
			t.Errorf("Definite(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}
