package main

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Shape is what a request does, without the values that change from run to run: the IDs and
// generated names in its path become {}. Two runs that exercise the same code paths of the
// provider against the same API make the same shapes, whatever they named their objects.
type Shape struct {
	Method, Service, Region, Path, Status string
}

// String is "GET compute RegionOne /v2.1/servers/{} 404" (an empty value printed as "").
func (s Shape) String() string {
	return strings.Join([]string{s.Method, show(s.Service), show(s.Region), s.Path, show(s.Status)}, " ")
}

func show(v string) string {
	if v == "" || strings.ContainsAny(v, " \t\"") {
		return strconv.Quote(v)
	}
	return v
}

// compareShapes orders shapes by service and path first, so that a test's shapes read as a
// walk through the APIs it uses.
func compareShapes(a, b Shape) int {
	return cmp.Or(
		cmp.Compare(a.Service, b.Service),
		cmp.Compare(a.Path, b.Path),
		cmp.Compare(a.Method, b.Method),
		cmp.Compare(a.Region, b.Region),
		cmp.Compare(a.Status, b.Status),
	)
}

// Set is a set of shapes.
type Set map[Shape]bool

// Sorted lists the set in compareShapes order.
func (s Set) Sorted() []Shape {
	return slices.SortedFunc(maps.Keys(s), compareShapes)
}

// Minus is the shapes of s that are not in o.
func (s Set) Minus(o Set) Set {
	out := Set{}
	for sh := range s {
		if !o[sh] {
			out[sh] = true
		}
	}
	return out
}

// Common counts the shapes in both s and o.
func (s Set) Common(o Set) int {
	n := 0
	for sh := range s {
		if o[sh] {
			n++
		}
	}
	return n
}

func (s Set) add(o Set) {
	for sh := range o {
		s[sh] = true
	}
}

// requestMessage is the message of the provider's request log: the cloud client logs every
// HTTP attempt with it (internal/cloud/transport.go, tflog subsystem "openstack", DEBUG).
const requestMessage = "OpenStack API request:"

// serviceAliases are catalog types that name one service (the OpenStack service-types
// authority's aliases): the client logs the type it found in the catalog, and the releases'
// catalogs call Cinder differently (Zed volumev3, 2025.1 block-storage) for the same API.
var serviceAliases = map[string]string{
	"volumev3": "block-storage",
	"volumev2": "block-storage",
	"volume":   "block-storage",
}

// ParseRequest reads the shape of one request log line (`... OpenStack API request:
// service=identity region="" path=/v3/auth/tokens status=201 ... method=POST`, the fields in
// any order since hclog writes a map's keys unordered). Any other line, or a request line
// without method or path, is not a request.
func ParseRequest(line string) (Shape, bool) {
	_, rest, ok := strings.Cut(line, requestMessage)
	if !ok {
		return Shape{}, false
	}
	f := parseFields(rest)
	if f["method"] == "" || f["path"] == "" {
		return Shape{}, false
	}
	service := f["service"]
	if canonical, ok := serviceAliases[service]; ok {
		service = canonical
	}
	region := f["region"]
	if service == "identity" {
		// One Keystone serves every region: the client names whichever region's catalog
		// entry it matched first for its one URL, which is no property of the request.
		region = ""
	}
	return Shape{
		Method:  f["method"],
		Service: service,
		Region:  region,
		Path:    PathTemplate(f["path"]),
		Status:  f["status"],
	}, true
}

// parseFields reads hclog's `key=value` pairs: a value is bare (up to the next space) or a
// Go-quoted string. Words without `=` (the pieces of an unquoted list) are skipped.
func parseFields(s string) map[string]string {
	out := map[string]string{}
	for {
		s = strings.TrimLeft(s, " \t\r\n")
		if s == "" {
			return out
		}
		end := strings.IndexAny(s, "= \t\r\n")
		if end < 0 || s[end] != '=' {
			_, s = cutWord(s)
			continue
		}
		key := s[:end]
		s = s[end+1:]
		var value string
		if q, err := strconv.QuotedPrefix(s); err == nil && strings.HasPrefix(s, `"`) {
			value, _ = strconv.Unquote(q)
			s = s[len(q):]
		} else {
			value, s = cutWord(s)
		}
		if _, dup := out[key]; !dup {
			out[key] = value
		}
	}
}

// cutWord splits s at its first space, tab or line end.
func cutWord(s string) (word, rest string) {
	if i := strings.IndexAny(s, " \t\r\n"); i >= 0 {
		return s[:i], s[i:]
	}
	return s, ""
}

var (
	plainWord  = regexp.MustCompile(`^[A-Za-z_.-]+$`)
	apiVersion = regexp.MustCompile(`^v\d+(\.\d+)?$`)
)

// maxWord is the longest path segment kept as written: longer letters-only segments are
// generated names (a random suffix of letters), not API words.
const maxWord = 30

// PathTemplate replaces each path segment that is not an API word with {}: an API word is
// letters, '_', '.' and '-' only (servers, os-volume_attachments, auth) or a version (v2.1).
// Everything else is an ID, a flavor number or a generated name, which change from run to run;
// so do the acceptance tests' names (tf-acc-..., tf_acc_...) even when they are letters only.
// A query string, which the provider does not log, would be dropped the same way.
func PathTemplate(p string) string {
	p, _, _ = strings.Cut(p, "?")
	segs := strings.Split(p, "/")
	for i, seg := range segs {
		if seg != "" && !apiWord(seg) {
			segs[i] = "{}"
		}
	}
	return strings.Join(segs, "/")
}

func apiWord(seg string) bool {
	if len(seg) > maxWord || strings.HasPrefix(seg, "tf-acc") || strings.HasPrefix(seg, "tf_acc") {
		return false
	}
	return plainWord.MatchString(seg) || apiVersion.MatchString(seg)
}

// ReadShapes reads the shapes of one request log.
func ReadShapes(r io.Reader) (Set, error) {
	set := Set{}
	br := bufio.NewReader(r) // no line length limit: the CLI's own log lines can be long
	for {
		line, err := br.ReadString('\n')
		if sh, ok := ParseRequest(strings.TrimRight(line, "\r\n")); ok {
			set[sh] = true
		}
		if errors.Is(err, io.EOF) {
			return set, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// ReadRelease reads one release's traces, DIR/<release>: each test's shapes, from
// <Test>.log and, for its subtests, <Test>__<sub>.log (terraform-plugin-log writes the
// subtest's slash as "__") or <Test>/<sub>.log. A test is the first path component, up to
// its first "__": the top-level test, which is what go test -skip leaves out.
func ReadRelease(dir string) (map[string]Set, error) {
	tests := map[string]Set{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(path, ".log") {
			return nil
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		first, _, _ := strings.Cut(filepath.ToSlash(rel), "/")
		name, _, _ := strings.Cut(strings.TrimSuffix(first, ".log"), "__")
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		set, err := ReadShapes(f)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if tests[name] == nil {
			tests[name] = Set{}
		}
		tests[name].add(set)
		return nil
	})
	return tests, err
}

var (
	// tools/testacc/run prefixes some lines with "[<release>] "; subtests are indented.
	releasePrefix = regexp.MustCompile(`^\s*\[[^\]]+\]\s*`)
	testLine      = regexp.MustCompile(`^\s*--- (?:PASS|FAIL|SKIP): (\S+) \(([0-9.]+)s\)`)
)

// ParseDurations reads the top-level tests' times out of a `go test -v` log: a test's own time,
// or its direct subtests' added up when that is more. A test that the log shows more than once
// (several runs in one log) costs their sum.
func ParseDurations(r io.Reader) (map[string]float64, error) {
	own, subs := map[string]float64{}, map[string]float64{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		m := testLine.FindStringSubmatch(releasePrefix.ReplaceAllString(sc.Text(), ""))
		if m == nil {
			continue
		}
		s, err := strconv.ParseFloat(m[2], 64)
		if err != nil {
			continue
		}
		if top, sub, ok := strings.Cut(m[1], "/"); ok {
			if !strings.Contains(sub, "/") {
				subs[top] += s
			}
			continue
		}
		own[m[1]] += s
	}
	// A test whose subtests run in parallel returns before them: its own time is then about
	// nothing, and what it costs is its subtests' time.
	for name, s := range subs {
		if s > own[name] {
			own[name] = s
		}
	}
	return own, sc.Err()
}

const (
	// defaultSeconds is a test's cost to the cover when the log does not time it: about a
	// typical acceptance test, so that it neither wins nor loses on time alone.
	defaultSeconds = 60
	// minSeconds keeps a test timed at 0 s (skipped, or too fast to print) from winning by
	// division by zero.
	minSeconds = 1
)

// cost is a test's seconds as the cover weighs them.
func cost(seconds map[string]float64, name string) float64 {
	if s, ok := seconds[name]; ok {
		return max(s, minSeconds)
	}
	return defaultSeconds
}

// Pick is a test that the cover added, with how many shapes it was the first to make.
type Pick struct {
	Name string
	New  int
}

// Cover picks, from candidates, tests until they make every shape of uncovered: each time the
// one that makes the most shapes not made yet per second (a greedy set cover weighted by time;
// ties go to the first name, so the result does not depend on map order). It stops early only
// when no candidate makes any shape left, which the caller reports as incomplete coverage.
func Cover(uncovered Set, candidates map[string]Set, seconds map[string]float64) []Pick {
	left := maps.Clone(uncovered)
	names := slices.Sorted(maps.Keys(candidates))
	var picks []Pick
	for len(left) > 0 {
		best, bestNew := "", 0
		for _, n := range names {
			gain := candidates[n].Common(left)
			// gain/cost > bestNew/cost(best), multiplied out to compare without rounding
			if gain > 0 && (best == "" || float64(gain)*cost(seconds, best) > float64(bestNew)*cost(seconds, n)) {
				best, bestNew = n, gain
			}
		}
		if best == "" {
			break
		}
		picks = append(picks, Pick{best, bestNew})
		for sh := range candidates[best] {
			delete(left, sh)
		}
		names = slices.DeleteFunc(names, func(n string) bool { return n == best })
	}
	return picks
}

// Test is one test's comparison and what it is kept for on the other release.
type Test struct {
	Name        string
	Base, Other Set // nil when the test left no trace on that release
	// OnlyBase and OnlyOther are the shapes that one release made and the other did not.
	OnlyBase, OnlyOther []Shape
	Seconds             float64 // on the other release
	Timed               bool    // Seconds came from its log
	Kept                bool    // runs on the other release
	Covers              int     // the shapes it was kept for, when kept by the cover
}

// Verdict is one test's comparison.
type Verdict int

const (
	Same      Verdict = iota // made the same shapes on both releases
	Differs                  // made shapes on one release that it did not on the other
	BaseOnly                 // traced on the base release only
	OtherOnly                // traced on the other release only
)

// Verdict compares the test's shapes on the two releases.
func (t *Test) Verdict() Verdict {
	switch {
	case t.Other == nil:
		return BaseOnly
	case t.Base == nil:
		return OtherOnly
	case len(t.OnlyBase)+len(t.OnlyOther) > 0:
		return Differs
	}
	return Same
}

// RunsOnBaseOnly tells a test that the other release can leave out: it made the same shapes
// on both releases, and the kept tests make them all there. A test without a trace on the
// other release is not decided here: it is neither kept nor listed.
func (t *Test) RunsOnBaseOnly() bool { return t.Verdict() == Same && !t.Kept }

// Analysis is the comparison of two releases' traces and the tests kept on the other one.
type Analysis struct {
	Base, Other string
	Tests       []*Test // by name
	// BaseShapes and OtherShapes are every shape of each release's run; Covered is the
	// shapes of OtherShapes that the kept tests make (all of them, unless a bug).
	BaseShapes, OtherShapes, Covered Set
	Timed                            bool // a log timed the other release's tests
	// BaseSeconds are the base release's test times, when its log was given: only reported.
	BaseSeconds map[string]float64
}

// Analyse compares each test's shapes on the two releases and keeps, on the other release,
// the tests that differ or ran only there, then the fastest tests that make the rest of its
// shapes. seconds are the other release's test times (nil: unknown).
func Analyse(base, other string, baseTests, otherTests map[string]Set, seconds map[string]float64) *Analysis {
	a := &Analysis{Base: base, Other: other, BaseShapes: Set{}, OtherShapes: Set{}, Covered: Set{}, Timed: seconds != nil}
	names := slices.Sorted(maps.Keys(baseTests))
	names = slices.Compact(slices.Sorted(slices.Values(append(names, slices.Collect(maps.Keys(otherTests))...))))
	candidates := map[string]Set{}
	byName := map[string]*Test{}
	for _, n := range names {
		t := &Test{Name: n, Base: baseTests[n], Other: otherTests[n]}
		t.Seconds, t.Timed = seconds[n]
		a.BaseShapes.add(t.Base)
		a.OtherShapes.add(t.Other)
		if t.Base != nil && t.Other != nil {
			t.OnlyBase = t.Base.Minus(t.Other).Sorted()
			t.OnlyOther = t.Other.Minus(t.Base).Sorted()
		}
		switch t.Verdict() {
		case Differs, OtherOnly:
			t.Kept = true
			a.Covered.add(t.Other)
		case Same:
			candidates[n] = t.Other
		}
		a.Tests = append(a.Tests, t)
		byName[n] = t
	}
	for _, p := range Cover(a.OtherShapes.Minus(a.Covered), candidates, seconds) {
		t := byName[p.Name]
		t.Kept, t.Covers = true, p.New
		a.Covered.add(t.Other)
	}
	return a
}

// Kept lists the tests kept on the other release.
func (a *Analysis) Kept() []*Test {
	return slices.DeleteFunc(slices.Clone(a.Tests), func(t *Test) bool { return !t.Kept })
}

// BaseOnly lists the tests that run on the base release only.
func (a *Analysis) BaseOnly() []*Test {
	return slices.DeleteFunc(slices.Clone(a.Tests), func(t *Test) bool { return !t.RunsOnBaseOnly() })
}

// MadeBy ranks the kept tests by how many of t's shapes (on the other release) they make,
// most first, ties by name; those that make none are left out.
func (a *Analysis) MadeBy(t *Test) []*Test {
	var by []*Test
	for _, k := range a.Kept() {
		if k.Other.Common(t.Other) > 0 {
			by = append(by, k)
		}
	}
	slices.SortStableFunc(by, func(x, y *Test) int {
		return cmp.Compare(y.Other.Common(t.Other), x.Other.Common(t.Other))
	})
	return by
}

// plural is "1 shape", "2 shapes".
func plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}

func percent(n, of float64) string {
	if of == 0 {
		return "100%"
	}
	return fmt.Sprintf("%d%%", int(100*n/of)) // rounded down: 100% means all
}

// verdict is the table's verdict column.
func (a *Analysis) verdict(t *Test) string {
	switch t.Verdict() {
	case Differs:
		return fmt.Sprintf("differs +%d -%d", len(t.OnlyOther), len(t.OnlyBase))
	case BaseOnly:
		return "only on " + a.Base
	case OtherOnly:
		return "only on " + a.Other
	}
	return "same"
}

// where is the table's last column: whether and why the test runs on the other release.
func (a *Analysis) where(t *Test) string {
	switch {
	case t.Verdict() == BaseOnly:
		return "no trace on " + a.Other + ": undecided, not listed"
	case !t.Kept:
		return a.Base + " only"
	case t.Verdict() == Differs:
		return "kept: differs"
	case t.Verdict() == OtherOnly:
		return "kept: only on " + a.Other
	}
	return "kept: covers " + plural(t.Covers, "shape")
}

func count(s Set) string {
	if s == nil {
		return "-"
	}
	return strconv.Itoa(len(s))
}

// Render writes the report: the counts, the time the kept tests take on the other release,
// every test's verdict and, verbose, the shapes that differ.
func Render(w io.Writer, a *Analysis, verbose bool) {
	n := map[Verdict]int{}
	for _, t := range a.Tests {
		n[t.Verdict()]++
	}
	kept := a.Kept()
	covering := 0
	for _, t := range kept {
		if t.Verdict() == Same {
			covering++
		}
	}
	fmt.Fprintf(w, "request shapes on %s (base) and %s (other)\n", a.Base, a.Other)
	fmt.Fprintf(w, "tests: %d (%d same, %d different, %d only on %s, %d only on %s)\n",
		len(a.Tests), n[Same], n[Differs], n[OtherOnly], a.Other, n[BaseOnly], a.Base)
	fmt.Fprintf(w, "distinct shapes: %d on %s, %d on %s\n", len(a.BaseShapes), a.Base, len(a.OtherShapes), a.Other)
	fmt.Fprintf(w, "kept on %s: %s (%d different, %d only there, %d to cover the rest); %d run on %s only\n",
		a.Other, plural(len(kept), "test"), n[Differs], n[OtherOnly], covering, len(a.BaseOnly()), a.Base)
	fmt.Fprintf(w, "shapes of the full %s run made by the kept tests: %d of %d (%s)\n",
		a.Other, len(a.Covered), len(a.OtherShapes), percent(float64(len(a.Covered)), float64(len(a.OtherShapes))))
	renderTime(w, a)

	width := len("test")
	for _, t := range a.Tests {
		width = max(width, len(t.Name))
	}
	row := "%-*s  %-16s %7s %7s %9s  %s\n"
	fmt.Fprintf(w, "\n"+row, width, "test", "verdict", a.Base, a.Other, a.Other+" s", "on "+a.Other)
	for _, t := range a.Tests {
		secs := "-"
		if t.Timed {
			secs = fmt.Sprintf("%.1f", t.Seconds)
		}
		fmt.Fprintf(w, row, width, t.Name, a.verdict(t), count(t.Base), count(t.Other), secs, a.where(t))
	}

	if verbose && n[Differs] > 0 {
		fmt.Fprintf(w, "\nshapes that differ (+ made on %s only, - made on %s only):\n", a.Other, a.Base)
		for _, t := range a.Tests {
			if t.Verdict() != Differs {
				continue
			}
			fmt.Fprintf(w, "%s\n", t.Name)
			for _, sh := range t.OnlyOther {
				fmt.Fprintf(w, "  + %s\n", sh)
			}
			for _, sh := range t.OnlyBase {
				fmt.Fprintf(w, "  - %s\n", sh)
			}
		}
	}
}

// renderTime sums the other release's test times, kept against all, over the tests its log
// timed.
func renderTime(w io.Writer, a *Analysis) {
	if a.BaseSeconds != nil {
		var all float64
		for _, t := range a.Tests {
			if t.Base != nil {
				all += a.BaseSeconds[t.Name]
			}
		}
		fmt.Fprintf(w, "time on %s: %.0f s for all its tests\n", a.Base, all)
	}
	if !a.Timed {
		fmt.Fprintf(w, "time on %s: unknown (no -log for it; the cover counted %d s a test)\n", a.Other, defaultSeconds)
		return
	}
	var all, mine float64
	untimed := 0
	for _, t := range a.Tests {
		switch {
		case t.Other == nil:
		case !t.Timed:
			untimed++
		default:
			all += t.Seconds
			if t.Kept {
				mine += t.Seconds
			}
		}
	}
	fmt.Fprintf(w, "time on %s: the kept tests %.0f s of %.0f s for all (%s)", a.Other, mine, all, percent(mine, all))
	if untimed > 0 {
		fmt.Fprintf(w, "; %s without a time in the log left out (the cover counted %d s each)", plural(untimed, "test"), defaultSeconds)
	}
	fmt.Fprintln(w)
}

// RenderList writes the names of the tests that run on the base release only, one a line,
// sorted: for a script to skip them on the other release.
func RenderList(w io.Writer, a *Analysis) {
	for _, t := range a.BaseOnly() {
		fmt.Fprintln(w, t.Name)
	}
}

// madeByShown is how many kept tests the Markdown table names for each test.
const madeByShown = 3

// RenderMarkdown writes a table of the tests that run on the base release only, each with
// the kept tests that make the most of its shapes on the other release.
func RenderMarkdown(w io.Writer, a *Analysis) {
	only := a.BaseOnly()
	if len(only) == 0 {
		fmt.Fprintf(w, "Every test runs on %s: none made only shapes that other tests make there.\n", a.Other)
		return
	}
	covered := true
	for _, t := range only {
		covered = covered && len(t.Other.Minus(a.Covered)) == 0
	}
	fmt.Fprintf(w, "Tests that run on %s only: each made the same request shapes on %s as on %s, ", a.Base, a.Other, a.Base)
	if covered {
		fmt.Fprintf(w, "and the tests kept on %s make every one of them (by construction: the kept tests make all %d shapes of the full %s run).\n\n",
			a.Other, len(a.OtherShapes), a.Other)
	} else {
		fmt.Fprintf(w, "but the tests kept on %s make only %d of the %d shapes of the full %s run.\n\n",
			a.Other, len(a.Covered), len(a.OtherShapes), a.Other)
	}
	fmt.Fprintf(w, "| test | request shapes | its shapes are also made, on %s, by |\n|---|---|---|\n", a.Other)
	for _, t := range only {
		by := a.MadeBy(t)
		names := make([]string, 0, madeByShown)
		for _, k := range by[:min(madeByShown, len(by))] {
			names = append(names, fmt.Sprintf("`%s` (%d of %d)", k.Name, k.Other.Common(t.Other), len(t.Other)))
		}
		fmt.Fprintf(w, "| `%s` | %d | %s |\n", t.Name, len(t.Other), strings.Join(names, ", "))
	}
}
