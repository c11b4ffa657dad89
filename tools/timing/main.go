// Command timing prints the time report of `make test`: the phases that tools/timing/phase
// recorded (start, end, wall time, status, the machine's CPU seconds and busy share meanwhile,
// what the background ones overlapped) and, for each
// release whose acceptance run was recorded, the slowest tests and the packages by wall time
// from its go test -v log.
//
// Usage:
//
//	go run -C tools/timing . -phases .cache/timing/phases.tsv -logs .cache -out .cache/time-report.txt
//	go run -C tools/timing . -phases FILE -log zed=FILE -log 2025.1=FILE   (logs named explicitly)
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

type logFlags []string

func (l *logFlags) String() string { return strings.Join(*l, ",") }

func (l *logFlags) Set(v string) error {
	if !strings.Contains(v, "=") {
		return fmt.Errorf("want RELEASE=FILE, got %q", v)
	}
	*l = append(*l, v)
	return nil
}

func main() {
	phasesFile := flag.String("phases", ".cache/timing/phases.tsv", "the phase records (tools/timing/phase)")
	logDir := flag.String("logs", "", "directory of testacc-<release>.log, read for every acc-<release> phase recorded")
	out := flag.String("out", "", "also write the report to this file")
	top := flag.Int("top", 15, "slowest tests listed per release")
	var logs logFlags
	flag.Var(&logs, "log", "RELEASE=FILE: a go test -v log to report on (repeatable)")
	flag.Parse()

	now := float64(time.Now().UnixNano()) / 1e9
	rep := Report{Now: now, Top: *top}
	if f, err := os.Open(*phasesFile); err == nil {
		rep.Phases, err = ParsePhases(f, now)
		_ = f.Close()
		if err != nil {
			fmt.Fprintln(os.Stderr, "timing:", err)
			os.Exit(1)
		}
	} else if !os.IsNotExist(err) {
		fmt.Fprintln(os.Stderr, "timing:", err)
		os.Exit(1)
	}

	seen := map[string]bool{}
	add := func(release, path string) {
		if seen[release] {
			return
		}
		seen[release] = true
		rel := Release{Name: release, Log: path}
		f, err := os.Open(path)
		if err != nil {
			rel.Err = err
		} else {
			rel.Tests, rel.Packages, rel.Err = ParseGoTest(f)
			_ = f.Close()
		}
		rep.Releases = append(rep.Releases, rel)
	}
	for _, l := range logs {
		release, path, _ := strings.Cut(l, "=")
		add(release, path)
	}
	if *logDir != "" {
		for _, p := range rep.Phases {
			if release, ok := strings.CutPrefix(p.Name, "acc-"); ok && !strings.Contains(release, "/") {
				add(release, filepath.Join(*logDir, "testacc-"+release+".log"))
			}
		}
	}

	var buf bytes.Buffer
	Render(&buf, rep)
	_, _ = os.Stdout.Write(buf.Bytes())
	if *out != "" {
		if err := os.WriteFile(*out, buf.Bytes(), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "timing:", err)
			os.Exit(1)
		}
	}
}
