package cloudtest

import (
	"net/http"
	"sync/atomic"
	"time"
)

// Slow answers with h after delay (so that concurrent callers really overlap), except the
// first failFirst requests, which it fails with HTTP 500: the fake of a list that a per-run
// cache must ask once, and ask again after a failure.
func Slow(delay time.Duration, failFirst int64, h http.HandlerFunc) http.HandlerFunc {
	var n atomic.Int64

	return func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(delay)

		if n.Add(1) <= failFirst {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}

		h(w, r)
	}
}
