// Command faultproxy is a fault-injecting HTTP proxy in front of a loopback OpenStack: point a
// client's auth_url at it and every service goes through it, because it rewrites the Keystone
// catalog (and every other absolute upstream URL in answers: links, pagination, Location) to
// itself. Seeded, it injects per request 502/503 answers, connection resets before the request
// reaches the service, and answers dropped after the service acted, each at its own rate and
// optionally only for some methods. It listens on and forwards to 127.0.0.1 only.
//
//	faultproxy -upstream 127.0.0.1:5000 -seed 7 -drop-after 0.5 -drop-methods POST \
//	    -addr-file /tmp/fp.addr -stats /tmp/fp.json
//
// See README.md.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "faultproxy:", err)
		os.Exit(1)
	}
}

func methods(s string) []string {
	var out []string

	for _, m := range strings.Split(s, ",") {
		if m = strings.TrimSpace(m); m != "" {
			out = append(out, strings.ToUpper(m))
		}
	}

	return out
}

func run(args []string) error {
	fs := flag.NewFlagSet("faultproxy", flag.ContinueOnError)
	listen := fs.String("listen", "127.0.0.1:0", "address to listen on (127.0.0.1 only; port 0 picks one)")
	upstream := fs.String("upstream", "127.0.0.1:5000", "Keystone (127.0.0.1:PORT): where un-prefixed paths go")
	seed := fs.Uint64("seed", 1, "seed of the fault draws")
	fail := fs.Float64("fail", 0, "rate of requests answered 502/503 without forwarding")
	failMethods := fs.String("fail-methods", "", "methods -fail applies to (comma list; empty: all)")
	resetRate := fs.Float64("reset", 0, "rate of connections reset before the request is forwarded")
	resetMethods := fs.String("reset-methods", "", "methods -reset applies to (comma list; empty: all)")
	drop := fs.Float64("drop-after", 0, "rate of answers dropped after the service processed the request")
	dropMethods := fs.String("drop-methods", "", "methods -drop-after applies to (comma list; empty: all)")
	faultTokens := fs.Bool("fault-tokens", false, "let faults hit /v3/auth/tokens too (default: never)")
	statsFile := fs.String("stats", "", "write the counts as JSON to this file at exit")
	addrFile := fs.String("addr-file", "", "write 127.0.0.1:PORT to this file once listening")
	lifetime := fs.Duration("lifetime", 4*time.Hour, "exit after this long in any case")
	maxBody := fs.Int64("max-body", 64<<20, "largest answer body read from upstream (bytes)")

	if err := fs.Parse(args); err != nil {
		return err
	}

	if ap, err := netip.ParseAddrPort(*listen); err != nil || ap.Addr() != netip.MustParseAddr("127.0.0.1") {
		return fmt.Errorf("-listen %q: want 127.0.0.1:PORT (the proxy listens on loopback only)", *listen)
	}

	p, err := New(Config{
		Upstream: *upstream,
		Rules: map[Kind]Rule{
			KindFail:  {Rate: *fail, Methods: methods(*failMethods)},
			KindReset: {Rate: *resetRate, Methods: methods(*resetMethods)},
			KindDrop:  {Rate: *drop, Methods: methods(*dropMethods)},
		},
		FaultTokens: *faultTokens,
		Seed:        *seed,
		MaxBody:     *maxBody,
	})
	if err != nil {
		return err
	}

	ln, err := net.Listen("tcp4", *listen)
	if err != nil {
		return err
	}

	self := ln.Addr().String()
	p.SetSelf(self)

	if *addrFile != "" {
		if err := os.WriteFile(*addrFile, []byte(self+"\n"), 0o600); err != nil {
			return err
		}
	}

	fmt.Printf("faultproxy: listening on http://%s, Keystone at http://%s/v3\n", self, self)

	srv := &http.Server{Handler: p, ReadHeaderTimeout: 30 * time.Second}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	ctx, cancel := context.WithTimeout(ctx, *lifetime)
	defer cancel()

	served := make(chan error, 1)

	go func() { served <- srv.Serve(ln) }()

	select {
	case err = <-served:
	case <-ctx.Done():
		shutdown, done := context.WithTimeout(context.Background(), 5*time.Second)
		_ = srv.Shutdown(shutdown)

		done()

		err = nil
	}

	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}

	b, _ := json.MarshalIndent(p.Stats(), "", "  ")
	fmt.Println(string(b))

	if *statsFile != "" {
		return os.WriteFile(*statsFile, append(b, '\n'), 0o600)
	}

	return nil
}
