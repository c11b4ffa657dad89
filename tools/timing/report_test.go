package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func mustPhases(t *testing.T, tsv string, now float64) []Phase {
	t.Helper()
	p, err := ParsePhases(strings.NewReader(tsv), now)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func find(t *testing.T, phases []Phase, name string, start float64) Phase {
	t.Helper()
	for _, p := range phases {
		if p.Name == name && p.Start == start {
			return p
		}
	}
	t.Fatalf("no phase %s starting at %v in %+v", name, start, phases)
	return Phase{}
}

func TestParsePhasesPairsByProcess(t *testing.T) {
	// two processes run a phase of the same name at once: each end closes its own start,
	// whatever the order of the records
	phases := mustPhases(t, strings.Join([]string{
		"bed-zed/boot\tstart\t10\tbg\t1",
		"bed-zed/boot\tstart\t11\tfg\t2",
		"bed-zed/boot\tend\t15\t0\t1",
		"bed-zed/boot\tend\t30\t3\t2",
	}, "\n"), 100)
	a := find(t, phases, "bed-zed/boot", 10)
	b := find(t, phases, "bed-zed/boot", 11)
	if a.Seconds() != 5 || a.Status != "ok" || !a.Background {
		t.Errorf("first: %+v", a)
	}
	if b.Seconds() != 19 || b.Status != "exit 3" || b.Background {
		t.Errorf("second: %+v", b)
	}
}

func TestParsePhasesUnfinishedAndOrder(t *testing.T) {
	phases := mustPhases(t, strings.Join([]string{
		"total\tstart\t100.5\tfg\t1",
		"unit\tstart\t101\tfg\t2",
		"unit\tend\t161.25\t0\t2",
		"lint\tstart\t162\tfg\t3",
		"stray\tend\t170\t0\t9", // its start was before a reset: ignored
		"",
		"early\tstart\t50\tfg\t4\textra-field-ignored",
	}, "\n"), 200)
	if len(phases) != 4 {
		t.Fatalf("%d phases: %+v", len(phases), phases)
	}
	if phases[0].Name != "early" || phases[1].Name != "total" {
		t.Errorf("not in start order: %+v", phases)
	}
	lint := find(t, phases, "lint", 162)
	if lint.Finished || lint.Status != "unfinished" || lint.End != 200 {
		t.Errorf("lint: %+v", lint)
	}
	if u := find(t, phases, "unit", 101); u.Seconds() != 60.25 || u.Status != "ok" {
		t.Errorf("unit: %+v", u)
	}
	// an end without the process column (older records) still pairs by name
	p := mustPhases(t, "x\tstart\t1\tfg\nx\tend\t4\t0", 9)
	if p[0].Seconds() != 3 || !p[0].Finished {
		t.Errorf("no pid: %+v", p[0])
	}
}

func TestParsePhasesCPU(t *testing.T) {
	phases := mustPhases(t, strings.Join([]string{
		"a\tstart\t10\tfg\t1\t100.5\t200",
		"a\tend\t20\t0\t1\t115.5\t220",
		"b\tstart\t10\tfg\t2\t100\t200",
		"b\tend\t20\t0\t2",              // an end without the CPU fields: no CPU for the phase
		"c\tstart\t10\tfg\t3\t100\t200", // never ended: no CPU either
	}, "\n"), 30)
	if c, share, ok := find(t, phases, "a", 10).CPU(); !ok || c != 15 || share != 0.75 {
		t.Errorf("a: %v s, share %v, %v; want 15 s, 0.75", c, share, ok)
	}
	for _, name := range []string{"b", "c"} {
		if _, _, ok := find(t, phases, name, 10).CPU(); ok {
			t.Errorf("%s: CPU without both records", name)
		}
	}
}

func TestParsePhasesErrors(t *testing.T) {
	for _, bad := range []string{"x\tstart\t1", "x\tstart\tnot-a-time\tfg\t1", "x\tbegin\t1\tfg\t1"} {
		if _, err := ParsePhases(strings.NewReader(bad), 0); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestParseGoTest(t *testing.T) {
	f, err := os.Open("testdata/testacc-zed.log")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tests, pkgs, err := ParseGoTest(f)
	if err != nil {
		t.Fatal(err)
	}
	want := []TestResult{
		{"TestAccDomain_basic", "github.com/unikorn-cloud/terraform-provider-unikorn/internal/domain", "PASS", 12.5},
		{"TestAccSecurityGroup_500Rules", "github.com/unikorn-cloud/terraform-provider-unikorn/internal/network", "PASS", 484.12},
		{"TestAccNetwork_basic", "github.com/unikorn-cloud/terraform-provider-unikorn/internal/network", "PASS", 30},
		{"TestAccNetwork_drift", "github.com/unikorn-cloud/terraform-provider-unikorn/internal/network", "FAIL", 45.25},
		{"TestAccNetwork_vlanOnly", "github.com/unikorn-cloud/terraform-provider-unikorn/internal/network", "SKIP", 0},
		{"TestAccLoadBalancer_drift", "github.com/unikorn-cloud/terraform-provider-unikorn/internal/loadbalancer", "PASS", 440},
		{"TestAccLoadBalancer_names", "github.com/unikorn-cloud/terraform-provider-unikorn/internal/loadbalancer", "PASS", 401},
		{"TestAccIdentityImport_network", "github.com/unikorn-cloud/terraform-provider-unikorn/internal/network", "PASS", 20},
	}
	if len(tests) != len(want) {
		t.Fatalf("%d tests, want %d (subtests left out): %+v", len(tests), len(want), tests)
	}
	for i := range want {
		if tests[i] != want[i] {
			t.Errorf("test %d: %+v, want %+v", i, tests[i], want[i])
		}
	}
	if len(pkgs) != 5 {
		t.Fatalf("%d package lines, want 5: %+v", len(pkgs), pkgs)
	}
	if p := pkgs[1]; p.Result != "FAIL" || p.Seconds != 500.432 || !strings.HasSuffix(p.Package, "/internal/network") {
		t.Errorf("failed package: %+v", p)
	}
	// parallel subtests run after their test's function returns: the test takes its longest
	// subtest's time (a sequential subtest's time is already in its test's, as above)
	tests, _, _ = ParseGoTest(strings.NewReader(strings.Join([]string{
		"--- PASS: TestAccFixtures (0.13s)",
		"    --- PASS: TestAccFixtures/v1.10 (366.54s)",
		"    --- PASS: TestAccFixtures/v1.16 (518.11s)",
		"        --- PASS: TestAccFixtures/v1.16/deeper (600.00s)",
		"--- PASS: TestAccOther (2.00s)",
		"ok  \texample.com/m/p\t520s",
		"--- PASS: TestAccFixtures (1.00s)", // the same name in another package: its own time
		"ok  \texample.com/m/q\t1s",
	}, "\n")))
	if len(tests) != 3 || tests[0].Seconds != 518.11 || tests[1].Seconds != 2 || tests[2].Seconds != 1 {
		t.Errorf("parallel subtests: %+v", tests)
	}
	// without the release prefix, as go test prints it
	tests, pkgs, _ = ParseGoTest(strings.NewReader("--- PASS: TestA (1.00s)\nok  \texample.com/m/p\t1.5s\n"))
	if len(tests) != 1 || tests[0].Package != "example.com/m/p" || len(pkgs) != 1 || pkgs[0].Seconds != 1.5 {
		t.Errorf("plain go test output: %+v %+v", tests, pkgs)
	}
}

func render(t *testing.T, r Report) string {
	t.Helper()
	var b bytes.Buffer
	Render(&b, r)
	return b.String()
}

func TestRender(t *testing.T) {
	f, err := os.Open("testdata/phases.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	phases, err := ParsePhases(f, 1800)
	if err != nil {
		t.Fatal(err)
	}
	lf, err := os.Open("testdata/testacc-zed.log")
	if err != nil {
		t.Fatal(err)
	}
	defer lf.Close()
	tests, pkgs, err := ParseGoTest(lf)
	if err != nil {
		t.Fatal(err)
	}
	out := render(t, Report{
		Phases: phases, Now: 1800, Top: 3,
		Releases: []Release{
			{Name: "zed", Log: ".cache/testacc-zed.log", Tests: tests, Packages: pkgs},
			{Name: "2025.1", Log: ".cache/testacc-2025.1.log", Err: os.ErrNotExist},
		},
	})
	t.Log("\n" + out)
	for _, want := range []string{
		// the run never ended (chaos-small was running): the totals go up to the report
		"time report: 800 s (13.3 min) in all, did not finish",
		"chaos-small                             +700.6    +800.0      99.4         -     -  unfinished",
		"acc-zed/tests                           +141.0    +641.0     500.0         -     -  exit 1",
		"bed-zed/install (bg)                      +0.2     +10.2      10.0         -     -  ok",
		// the machine's CPU during a phase whose records carry it: 1.5 of the 2 s it had
		"hygiene                                   +0.1      +1.1       1.0         2   75%  ok",
		// background phases: what they overlapped among the top-level foreground steps
		"opentofu-build: 300 s of wall time, beside testacc 300 s, acc-zed 300 s",
		"bed-zed/boot: 90 s of wall time, beside unit 51 s, lint 39 s",
		"bed-zed/install: 10 s of wall time, beside hygiene 0.9 s, unit 9.0 s",
		"acceptance tests on zed (.cache/testacc-zed.log): 6 passed, 1 failed, 1 skipped",
		"the 3 slowest tests:",
		"      484.1 s  PASS  TestAccSecurityGroup_500Rules (internal/network)",
		"      440.0 s  PASS  TestAccLoadBalancer_drift (internal/loadbalancer)",
		"      401.0 s  PASS  TestAccLoadBalancer_names (internal/loadbalancer)",
		// network: two runs, 500.432 + 21 s of wall time; 484.12+30+45.25+20 s of tests
		"      521.4 s  internal/network               4 tests     579.4 s  x1.1  FAIL",
		"      460.1 s  internal/loadbalancer          2 tests     841.0 s  x1.8",
		"acceptance tests on 2025.1 (.cache/testacc-2025.1.log): file does not exist",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if strings.Contains(out, "TestAccNetwork_basic") {
		t.Error("more than the 3 slowest tests listed")
	}
	if strings.Contains(out, "internal/naming") {
		t.Error("a package without tests listed")
	}
}

func TestRenderFinishedAndEmpty(t *testing.T) {
	out := render(t, Report{Now: 50, Top: 15, Phases: mustPhases(t, "total\tstart\t10\tfg\t1\ntotal\tend\t40\t2\t1", 50)})
	if !strings.Contains(out, "time report: 30 s (0.5 min) in all, failed (exit 2)") {
		t.Errorf("failed run:\n%s", out)
	}
	if out := render(t, Report{Now: 50, Top: 15}); !strings.Contains(out, "no phases were recorded") {
		t.Errorf("empty:\n%s", out)
	}
}

// The phase script writes what ParsePhases reads: run records both ends with the command's
// exit status, start and end pair up per calling process, nothing is written without
// UNIKORN_TIMING, and UNIKORN_TIMING_BG marks background phases.
func TestPhaseScript(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	dir := t.TempDir()
	tsv := filepath.Join(dir, "timing", "phases.tsv")
	run := func(env []string, args ...string) int {
		t.Helper()
		cmd := exec.Command("./phase", args...)
		cmd.Env = append(os.Environ(), env...)
		err := cmd.Run()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return 0
	}
	on := []string{"UNIKORN_TIMING=" + tsv, "UNIKORN_TIMING_BG="}
	if rc := run([]string{"UNIKORN_TIMING="}, "run", "x", "true"); rc != 0 {
		t.Fatalf("run without a record file: exit %d", rc)
	}
	if _, err := os.Stat(tsv); !os.IsNotExist(err) {
		t.Fatalf("a record was written without UNIKORN_TIMING: %v", err)
	}
	if rc := run(on, "reset"); rc != 0 {
		t.Fatal("reset", rc)
	}
	if rc := run(on, "run", "ok-step", "sleep", "0.2"); rc != 0 {
		t.Fatal("run", rc)
	}
	if rc := run(on, "run", "bad-step", "sh", "-c", "exit 7"); rc != 7 {
		t.Fatalf("run of a failing command: exit %d, want 7", rc)
	}
	if rc := run(append(on, "UNIKORN_TIMING_BG=1"), "run", "bg-step", "true"); rc != 0 {
		t.Fatal("bg run", rc)
	}
	// start and end from one shell (as the scripts call them)
	sh := exec.Command("bash", "-c", "./phase start pair && ./phase end pair 0 && ./phase start open")
	sh.Env = append(os.Environ(), on...)
	if err := sh.Run(); err != nil {
		t.Fatal(err)
	}
	if rc := run(on, "bogus"); rc != 2 {
		t.Errorf("unknown subcommand: exit %d, want 2", rc)
	}
	b, err := os.ReadFile(tsv)
	if err != nil {
		t.Fatal(err)
	}
	phases := mustPhases(t, string(b), 1e12)
	got := map[string]Phase{}
	for _, p := range phases {
		got[p.Name] = p
	}
	if p := got["ok-step"]; p.Status != "ok" || p.Seconds() <= 0 || p.Background {
		t.Errorf("ok-step: %+v", p)
	}
	// where the machine has /proc/stat, every record carries its CPU seconds
	if _, err := os.Stat("/proc/stat"); err == nil {
		if c, share, ok := got["ok-step"].CPU(); !ok || c < 0 || share < 0 || share > 1 {
			t.Errorf("ok-step's CPU: %v s, share %v, %v", c, share, ok)
		}
	}
	if p := got["bad-step"]; p.Status != "exit 7" {
		t.Errorf("bad-step: %+v", p)
	}
	if p := got["bg-step"]; !p.Background || p.Status != "ok" {
		t.Errorf("bg-step: %+v", p)
	}
	if p := got["pair"]; p.Status != "ok" {
		t.Errorf("pair: %+v", p)
	}
	if p := got["open"]; p.Status != "unfinished" {
		t.Errorf("open: %+v", p)
	}
	if len(phases) != 5 {
		t.Errorf("%d phases, want 5:\n%s", len(phases), b)
	}
	if rc := run(on, "reset"); rc != 0 {
		t.Fatal("reset", rc)
	}
	if b, _ := os.ReadFile(tsv); len(b) != 0 {
		t.Errorf("reset left %q", b)
	}
}
