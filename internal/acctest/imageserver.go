package acctest

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// The ports the local Glance's web-download may fetch from (tools/openstack-lite,
// import_filtering_opts allowed_ports), in the order the image server tries them.
var glancePorts = []int{80, 443, 3000, 5000, 8000, 8080, 8081, 8088, 8443, 8888, 9000, 9090, 9999}

var (
	serverOnce sync.Once
	serverBase string
	serverErr  error
)

// ImageServer is the base URL ("http://127.0.0.1:PORT") of the HTTP server that a test
// binary's tests share and Glance's web-download fetches from: it listens on loopback on the first free
// port that Glance allows, and lives as long as the test binary. GET /<n>mib/<anything>
// answers n MiB of bytes derived from the path (so that two paths give two checksums); every
// other path answers 404.
//
// Only the local cloud's Glance, on this machine, can reach a loopback server: on another
// cloud the test skips here (call it before the test makes anything).
func ImageServer(t *testing.T) string {
	t.Helper()
	LocalBedOnly(t, "its Glance fetches images (web-download) from a server on this machine's loopback")

	serverOnce.Do(func() {
		for _, port := range glancePorts {
			l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
			if err != nil {
				continue
			}

			go func() { _ = http.Serve(l, http.HandlerFunc(serveImage)) }() //nolint:gosec // test server on loopback

			serverBase = fmt.Sprintf("http://127.0.0.1:%d", port)

			return
		}

		serverErr = errors.New("no free port among those the local Glance's web-download allows")
	})

	if serverErr != nil {
		t.Fatal(serverErr)
	}

	return serverBase
}

func serveImage(w http.ResponseWriter, r *http.Request) {
	size, _, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")

	mib, err := strconv.Atoi(strings.TrimSuffix(size, "mib"))
	if err != nil || !strings.HasSuffix(size, "mib") || mib < 1 || mib > 64 {
		http.NotFound(w, r)
		return
	}

	seed := sha256.Sum256([]byte(r.URL.Path))
	block := bytes.Repeat(seed[:], (1<<20)/len(seed))

	w.Header().Set("Content-Length", strconv.Itoa(mib<<20))

	for range mib {
		if _, err := w.Write(block); err != nil {
			return
		}
	}
}
