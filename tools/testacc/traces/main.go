// Command traces decides, by measurement, which acceptance tests need to run on the second
// OpenStack release and which can run on the first only. It reads the request logs of a
// traced run (TESTTRACE=DIR tools/testacc/run: DIR/<release>/<Test>.log) and compares each
// test's request shapes (method, service, region, path with its IDs as {}, status) on the two
// releases. A test that makes different shapes runs on both; of the others, the fewest seconds
// of tests that still make every shape of the full run on the second release are kept there
// (a greedy cover weighted by each test's time in the go test -v log), and the rest run on the
// first release only: the second one would see no request that the kept tests do not make.
//
// Usage:
//
//	go run -C tools/testacc/traces . -dir DIR [-base zed] [-other 2025.1] [-log 2025.1=.cache/testacc-2025.1.log] [-v]
//	go run -C tools/testacc/traces . -dir DIR -list       (the tests to run on the base release only)
//	go run -C tools/testacc/traces . -dir DIR -markdown   (a table of them, for a README)
//
// Exit status: 0, or 2 for a usage error or input that cannot be read.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

type logFlags []string

func (l *logFlags) String() string { return strings.Join(*l, ",") }

func (l *logFlags) Set(v string) error {
	*l = append(*l, v)
	return nil
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is the command, returning its exit status.
func run(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("traces", flag.ContinueOnError)
	fl.SetOutput(stderr)
	dir := fl.String("dir", "", "the traced run: DIR/<release>/<Test>.log (required)")
	base := fl.String("base", "zed", "the release every test runs on")
	other := fl.String("other", "2025.1", "the release to run fewer tests on")
	verbose := fl.Bool("v", false, "list the shapes of the tests that differ")
	list := fl.Bool("list", false, "print only the tests that run on -base only, one a line")
	markdown := fl.Bool("markdown", false, "print a Markdown table of the tests that run on -base only")
	var logs logFlags
	fl.Var(&logs, "log", "[RELEASE=]FILE: a go test -v log of the release (default -other), for the tests' times (repeatable)")
	if err := fl.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	usage := func(msg string) int {
		fmt.Fprintln(stderr, "traces:", msg)
		fl.Usage()
		return 2
	}
	switch {
	case fl.NArg() > 0:
		return usage("unexpected arguments: " + strings.Join(fl.Args(), " "))
	case *dir == "":
		return usage("-dir is required")
	case *base == *other:
		return usage("-base and -other are the same release")
	case *list && *markdown:
		return usage("-list and -markdown go one at a time")
	}

	fail := func(err error) int {
		fmt.Fprintln(stderr, "traces:", err)
		return 2
	}
	seconds, err := readLogs(logs, *base, *other)
	if err != nil {
		return fail(err)
	}
	baseTests, err := readRelease(*dir, *base)
	if err != nil {
		return fail(err)
	}
	otherTests, err := readRelease(*dir, *other)
	if err != nil {
		return fail(err)
	}
	a := Analyse(*base, *other, baseTests, otherTests, seconds[*other])
	a.BaseSeconds = seconds[*base]
	switch {
	case *list:
		RenderList(stdout, a)
	case *markdown:
		RenderMarkdown(stdout, a)
	default:
		Render(stdout, a, *verbose)
	}
	return 0
}

// readRelease reads DIR/<release>; a release that was not traced at all is an error, not a
// release without tests (which would keep or drop every test for nothing).
func readRelease(dir, release string) (map[string]Set, error) {
	path := filepath.Join(dir, release)
	if fi, err := os.Stat(path); err != nil {
		return nil, err
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("%s is not a directory", path)
	}
	return ReadRelease(path)
}

// readLogs reads each -log into its release's test times. A FILE without RELEASE= is the
// other release's: only its times weigh in the cover.
func readLogs(logs []string, base, other string) (map[string]map[string]float64, error) {
	out := map[string]map[string]float64{}
	for _, l := range logs {
		release, path := other, l
		if r, p, ok := strings.Cut(l, "="); ok && !strings.ContainsRune(r, filepath.Separator) {
			release, path = r, p
		}
		if release != base && release != other {
			return nil, fmt.Errorf("-log %s: release %q is neither -base %q nor -other %q", l, release, base, other)
		}
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		secs, err := ParseDurations(f)
		_ = f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if out[release] == nil {
			out[release] = map[string]float64{}
		}
		for name, s := range secs {
			out[release][name] += s
		}
	}
	return out, nil
}
