package main

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Phase is one measured step of a run: a start record paired with its end record.
type Phase struct {
	Name       string
	Start, End float64 // unix seconds; End is the report's time when !Finished
	Finished   bool
	Status     string // "ok", "exit N" or "unfinished"
	Background bool   // started with UNIKORN_TIMING_BG=1 (beside the foreground steps)
	// The machine's CPU seconds since boot at the start and the end (busy, and busy + idle),
	// when both records carry them (HasCPU): what the whole machine spent during the phase.
	BusyStart, BusyEnd, AllStart, AllEnd float64
	HasCPU                               bool
}

// CPU is the machine's busy CPU seconds during the phase, and that as a share of the CPU
// time the machine had (1 = every core busy throughout); ok is false without the records.
func (p Phase) CPU() (seconds, share float64, ok bool) {
	if !p.HasCPU || p.AllEnd <= p.AllStart {
		return 0, 0, false
	}
	busy := p.BusyEnd - p.BusyStart
	// the records are rounded to hundredths: a share a hair above 1 is every core busy
	return busy, math.Min(1, busy/(p.AllEnd-p.AllStart)), true
}

// cpuFields reads the busy and all CPU seconds of a record (its 6th and 7th fields).
func cpuFields(f []string) (busy, all float64, ok bool) {
	if len(f) < 7 {
		return 0, 0, false
	}
	b, err1 := strconv.ParseFloat(f[5], 64)
	a, err2 := strconv.ParseFloat(f[6], 64)
	return b, a, err1 == nil && err2 == nil
}

// Seconds is the phase's wall time (up to the report's time when it never ended).
func (p Phase) Seconds() float64 { return p.End - p.Start }

// ParsePhases reads the records that tools/timing/phase appended (name, start|end, unix time,
// bg|fg or exit status, recording process, and the machine's busy and all CPU seconds) and pairs each end with the latest open start of
// the same name recorded by the same process (else of the same name). Starts never ended get
// End = now and Status "unfinished". Phases come back in start order.
func ParsePhases(r io.Reader, now float64) ([]Phase, error) {
	type open struct {
		idx int
		pid string
	}
	var phases []Phase
	opens := map[string][]open{} // by name, in start order
	sc := bufio.NewScanner(r)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimRight(sc.Text(), "\r")
		if text == "" {
			continue
		}
		f := strings.Split(text, "\t")
		if len(f) < 4 {
			return nil, fmt.Errorf("phases line %d: %d fields, want at least 4: %q", line, len(f), text)
		}
		name, event, extra := f[0], f[1], f[3]
		pid := ""
		if len(f) >= 5 {
			pid = f[4]
		}
		t, err := strconv.ParseFloat(f[2], 64)
		if err != nil {
			return nil, fmt.Errorf("phases line %d: time %q: %w", line, f[2], err)
		}
		switch event {
		case "start":
			p := Phase{Name: name, Start: t, Background: extra == "bg"}
			p.BusyStart, p.AllStart, p.HasCPU = cpuFields(f)
			phases = append(phases, p)
			opens[name] = append(opens[name], open{len(phases) - 1, pid})
		case "end":
			stack := opens[name]
			pick := -1
			for i := len(stack) - 1; i >= 0; i-- {
				if stack[i].pid == pid {
					pick = i
					break
				}
			}
			if pick < 0 && len(stack) > 0 {
				pick = len(stack) - 1
			}
			if pick < 0 {
				continue // an end without a start (the record was reset in between): ignored
			}
			p := &phases[stack[pick].idx]
			opens[name] = append(stack[:pick:pick], stack[pick+1:]...)
			p.End, p.Finished = t, true
			busy, all, ok := cpuFields(f)
			p.BusyEnd, p.AllEnd, p.HasCPU = busy, all, p.HasCPU && ok
			p.Status = "ok"
			if extra != "0" && extra != "" {
				p.Status = "exit " + extra
			}
		default:
			return nil, fmt.Errorf("phases line %d: event %q, want start or end", line, event)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	for i := range phases {
		if !phases[i].Finished {
			phases[i].End = math.Max(now, phases[i].Start)
			phases[i].Status = "unfinished"
			phases[i].HasCPU = false
		}
	}
	sort.SliceStable(phases, func(i, j int) bool { return phases[i].Start < phases[j].Start })
	return phases, nil
}

// TestResult is one top-level test's result line of `go test -v` (`--- PASS: TestX (1.23s)`).
type TestResult struct {
	Name    string
	Package string // from the package's ok/FAIL line that follows its tests ("" if none did)
	Result  string // PASS, FAIL or SKIP
	Seconds float64
}

// PackageResult is one package line of `go test` (`ok  <pkg> 12.3s`, `FAIL <pkg> 12.3s`).
type PackageResult struct {
	Package string
	Result  string // ok or FAIL
	Seconds float64
}

var (
	// tools/testacc/run prefixes FAIL, ok and panic lines with "[<release>] ".
	releasePrefix = regexp.MustCompile(`^\[[^\]]+\] `)
	testLine      = regexp.MustCompile(`^--- (PASS|FAIL|SKIP): (\S+) \(([0-9.]+)s\)`)
	packageLine   = regexp.MustCompile(`^(ok|FAIL)\s+(\S+)\s+([0-9.]+)s`)
	// a direct subtest's result (indented once): TestX/sub
	subtestLine = regexp.MustCompile(`^    --- (?:PASS|FAIL|SKIP): ([^/\s]+)/\S+ \(([0-9.]+)s\)`)
)

// ParseGoTest reads the output of `go test -v` over several packages (each package's output is
// printed whole, then its ok/FAIL line): the top-level tests (subtests, indented, are left out)
// and the package lines. Several runs in one log (tools/testacc/run makes two) simply follow
// each other.
func ParseGoTest(r io.Reader) ([]TestResult, []PackageResult, error) {
	var tests []TestResult
	var pkgs []PackageResult
	pending := 0 // tests of the package whose ok/FAIL line has not come yet
	// the longest direct subtest of each test of that package: a test whose subtests run in
	// parallel reports only its own function's time (they run after it returns), so its
	// time is its longest subtest's when that is longer
	longestSub := map[string]float64{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1024*1024), 16*1024*1024)
	for sc.Scan() {
		text := releasePrefix.ReplaceAllString(strings.TrimRight(sc.Text(), "\r"), "")
		if m := testLine.FindStringSubmatch(text); m != nil {
			s, _ := strconv.ParseFloat(m[3], 64)
			tests = append(tests, TestResult{Name: m[2], Result: m[1], Seconds: s})
			pending++
			continue
		}
		if m := subtestLine.FindStringSubmatch(text); m != nil {
			s, _ := strconv.ParseFloat(m[2], 64)
			longestSub[m[1]] = math.Max(longestSub[m[1]], s)
			continue
		}
		if m := packageLine.FindStringSubmatch(text); m != nil {
			s, _ := strconv.ParseFloat(m[3], 64)
			pkgs = append(pkgs, PackageResult{Package: m[2], Result: m[1], Seconds: s})
			for i := len(tests) - pending; i < len(tests); i++ {
				tests[i].Package = m[2]
				tests[i].Seconds = math.Max(tests[i].Seconds, longestSub[tests[i].Name])
			}
			pending = 0
			clear(longestSub)
		}
	}
	return tests, pkgs, sc.Err()
}

// Release is one release's acceptance log, parsed.
type Release struct {
	Name     string
	Log      string
	Tests    []TestResult
	Packages []PackageResult
	Err      error // the log could not be read
}

// Report is what Render prints.
type Report struct {
	Phases   []Phase
	Releases []Release
	Now      float64 // the report's time (unix seconds)
	Top      int     // slowest tests listed per release
}

// total is the run's own phase ("total"), else the span of all phases.
func (r Report) total() (Phase, bool) {
	for _, p := range r.Phases {
		if p.Name == "total" {
			return p, true
		}
	}
	if len(r.Phases) == 0 {
		return Phase{}, false
	}
	span := Phase{Name: "total", Start: r.Phases[0].Start, End: r.Phases[0].End, Finished: true, Status: "ok"}
	for _, p := range r.Phases {
		span.End = math.Max(span.End, p.End)
		if !p.Finished {
			span.Finished, span.Status = false, "unfinished"
		}
	}
	return span, true
}

// secs prints a duration in whole seconds, with a tenth below 10 s.
func secs(s float64) string {
	if s < 10 {
		return fmt.Sprintf("%.1f s", s)
	}
	return fmt.Sprintf("%.0f s", s)
}

func overlap(a, b Phase) float64 {
	return math.Max(0, math.Min(a.End, b.End)-math.Max(a.Start, b.Start))
}

// shortPkg drops the module path: github.com/x/y/internal/network -> internal/network.
func shortPkg(p string) string {
	if i := strings.Index(p, "/internal/"); i >= 0 {
		return p[i+1:]
	}
	if i := strings.Index(p, "/tools/"); i >= 0 {
		return p[i+1:]
	}
	return p
}

// Render writes the report: the phases in start order (start and end relative to the run's
// start), what each background phase overlapped, then per release the slowest tests and the
// packages by wall time.
func Render(w io.Writer, r Report) {
	total, ok := r.total()
	if !ok {
		fmt.Fprintln(w, "time report: no phases were recorded")
	} else {
		state := "finished"
		if !total.Finished {
			state = "did not finish (failed or interrupted): times up to the report"
		} else if total.Status != "ok" {
			state = "failed (" + total.Status + ")"
		}
		fmt.Fprintf(w, "time report: %.0f s (%.1f min) in all, %s\n\n", total.Seconds(), total.Seconds()/60, state)
		// the machine's CPU during each phase: on a machine kept busy, wall time is about the
		// CPU that everything running at once costs, divided by the cores
		fmt.Fprintf(w, "%-36s %9s %9s %9s %9s %5s  %s\n", "phase", "start", "end", "seconds", "CPU s", "busy", "status")
		for _, p := range r.Phases {
			name := p.Name
			if p.Background {
				name += " (bg)"
			}
			cpu, busy := "-", "-"
			if c, share, ok := p.CPU(); ok {
				cpu, busy = fmt.Sprintf("%.0f", c), fmt.Sprintf("%.0f%%", 100*share)
			}
			fmt.Fprintf(w, "%-36s %+9.1f %+9.1f %9.1f %9s %5s  %s\n", name, p.Start-total.Start, p.End-total.Start, p.Seconds(), cpu, busy, p.Status)
		}
		var bg []string
		for _, p := range r.Phases {
			if !p.Background {
				continue
			}
			var with []string
			for _, q := range r.Phases {
				// the foreground steps of the run (top-level names), not the run itself
				if q.Background || q.Name == "total" || strings.Contains(q.Name, "/") {
					continue
				}
				if o := overlap(p, q); o >= 0.05 {
					with = append(with, q.Name+" "+secs(o))
				}
			}
			s := fmt.Sprintf("  %s: %s of wall time", p.Name, secs(p.Seconds()))
			if len(with) > 0 {
				s += ", beside " + strings.Join(with, ", ")
			} else {
				s += ", beside no foreground step"
			}
			bg = append(bg, s)
		}
		if len(bg) > 0 {
			fmt.Fprintln(w, "\nbackground phases (their time overlapped these foreground steps):")
			for _, s := range bg {
				fmt.Fprintln(w, s)
			}
		}
	}
	for _, rel := range r.Releases {
		fmt.Fprintf(w, "\nacceptance tests on %s (%s)", rel.Name, rel.Log)
		if rel.Err != nil {
			fmt.Fprintf(w, ": %v\n", rel.Err)
			continue
		}
		counts := map[string]int{}
		for _, t := range rel.Tests {
			counts[t.Result]++
		}
		fmt.Fprintf(w, ": %d passed, %d failed, %d skipped\n", counts["PASS"], counts["FAIL"], counts["SKIP"])
		ran := make([]TestResult, 0, len(rel.Tests))
		for _, t := range rel.Tests {
			if t.Result != "SKIP" {
				ran = append(ran, t)
			}
		}
		sort.SliceStable(ran, func(i, j int) bool { return ran[i].Seconds > ran[j].Seconds })
		n := min(r.Top, len(ran))
		if n > 0 {
			fmt.Fprintf(w, "  the %d slowest tests:\n", n)
			for _, t := range ran[:n] {
				fmt.Fprintf(w, "  %9.1f s  %-4s  %s (%s)\n", t.Seconds, t.Result, t.Name, shortPkg(t.Package))
			}
		}
		// per package: go test's wall time (both runs of the log added up), the tests' own
		// times added up, and their ratio (how many tests ran at once, on average)
		type agg struct {
			wall, tests float64
			n           int
			failed      bool
		}
		byPkg := map[string]*agg{}
		var order []string
		for _, p := range rel.Packages {
			a := byPkg[p.Package]
			if a == nil {
				a = &agg{}
				byPkg[p.Package] = a
				order = append(order, p.Package)
			}
			a.wall += p.Seconds
			a.failed = a.failed || p.Result == "FAIL"
		}
		for _, t := range rel.Tests {
			if a := byPkg[t.Package]; a != nil && t.Result != "SKIP" {
				a.tests += t.Seconds
				a.n++
			}
		}
		sort.SliceStable(order, func(i, j int) bool { return byPkg[order[i]].wall > byPkg[order[j]].wall })
		if len(order) > 0 {
			fmt.Fprintf(w, "  packages by wall time (tests' own times added up; their ratio = tests running at once):\n")
			for _, name := range order {
				a := byPkg[name]
				if a.n == 0 && a.wall < 1 {
					continue
				}
				ratio := "-"
				if a.wall > 0 {
					ratio = fmt.Sprintf("%.1f", a.tests/a.wall)
				}
				mark := ""
				if a.failed {
					mark = "  FAIL"
				}
				fmt.Fprintf(w, "  %9.1f s  %-28s %3d tests %9.1f s  x%s%s\n", a.wall, shortPkg(name), a.n, a.tests, ratio, mark)
			}
		}
	}
}
