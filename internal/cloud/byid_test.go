package cloud

import (
	"context"
	"errors"
	"maps"
	"net/http"
	"testing"
)

func TestByID(t *testing.T) {
	t.Parallel()

	ctx := context.Background()
	b := ByID[string]{Kind: "flavor"}
	reads := map[string]int{}
	read := func(id string, err error) func(context.Context) (string, error) {
		return func(context.Context) (string, error) {
			reads[id]++
			if err != nil {
				return "", err
			}

			return "flavor " + id, nil
		}
	}

	// Found, then kept: the second Get does not read.
	for range 2 {
		if v, found, err := b.Get(ctx, "R", "f-1", read("f-1", nil)); err != nil || !found || v != "flavor f-1" {
			t.Fatalf("Get(f-1) = %q, %v, %v", v, found, err)
		}
	}

	// A 404 is "no such flavor", kept too.
	for range 2 {
		if _, found, err := b.Get(ctx, "R", "gone", read("gone", status(http.StatusNotFound))); err != nil || found {
			t.Fatalf("Get(gone) = %v, %v; want not found without an error", found, err)
		}
	}

	// Another failure says what was read, and is not kept.
	boom := errors.New("boom")
	for range 2 {
		if _, found, err := b.Get(ctx, "R", "f-2", read("f-2", boom)); !errors.Is(err, boom) || found || err.Error() != "reading flavor f-2: boom" {
			t.Fatalf("Get(f-2) = %v, %v; want the wrapped failure", found, err)
		}
	}

	// Forget makes the next Get read again; the same ID in another region is another object.
	b.Forget("R", "f-1")
	_, _, _ = b.Get(ctx, "R", "f-1", read("f-1", nil))
	_, _, _ = b.Get(ctx, "S", "f-1", read("f-1", nil))

	if want := map[string]int{"f-1": 3, "gone": 1, "f-2": 2}; !maps.Equal(reads, want) {
		t.Fatalf("reads = %v, want %v", reads, want)
	}
}
