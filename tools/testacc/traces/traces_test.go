package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const prefix = "2026-12-04T14:01:28.150Z [DEBUG] unikorn.openstack: OpenStack API request: "

func TestParseRequest(t *testing.T) {
	tokens := Shape{"POST", "identity", "", "/v3/auth/tokens", "201"}
	for _, tc := range []struct {
		name string
		line string
		want Shape
		ok   bool
	}{
		{"as logged", prefix + `service=identity region="" path=/v3/auth/tokens status=201 duration_ms=19 attempt=1 method=POST`, tokens, true},
		{"other order", prefix + `status=201 duration_ms=71 attempt=1 method=POST service=identity region="" path=/v3/auth/tokens`, tokens, true},
		{"line end", prefix + `service=identity region="" status=201 method=POST path=/v3/auth/tokens` + "\r\n", tokens, true},
		{
			"Cinder's alias", prefix + `method=GET service=volumev3 region=RegionOne path=/v3/abc1/os-quota-sets/abc1 status=200`,
			Shape{"GET", "block-storage", "RegionOne", "/v3/{}/os-quota-sets/{}", "200"}, true,
		},
		{"Keystone's region left out", prefix + `service=identity region=RegionTwo status=201 method=POST path=/v3/auth/tokens`, tokens, true},
		{
			"quoted with escapes", prefix + `method=GET service="block storage" region="Region \"One\"\t" path="/v3/abc1/volumes/1" status=200`,
			Shape{"GET", "block storage", "Region \"One\"\t", "/v3/{}/volumes/{}", "200"}, true,
		},
		{
			"no answer", prefix + `method=GET service=compute region=RegionOne path=/v2.1/flavors/1 status=0 error="connection refused"`,
			Shape{"GET", "compute", "RegionOne", "/v2.1/flavors/{}", "0"}, true,
		},
		{"other message", `2026-12-04T14:01:28.153Z [DEBUG] unikorn.openstack: Authenticated the service user: user_id=0b50 method=GET path=/v3`, Shape{}, false},
		{"provider lines", `2026-12-04T14:01:28.130Z [DEBUG] unikorn: Configuring the Unikorn provider: regions=["RegionOne", "RegionTwo"]`, Shape{}, false},
		{"no method", prefix + `service=identity path=/v3/auth/tokens status=201`, Shape{}, false},
		{"empty", "", Shape{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := ParseRequest(tc.line)
			if ok != tc.ok || got != tc.want {
				t.Errorf("got %+v %v, want %+v %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}

func TestParseFieldsSkipsWordsWithoutValue(t *testing.T) {
	// an unquoted list, as hclog writes a slice, leaves pieces without "="
	f := parseFields(` regions=["RegionOne", "RegionTwo"] method=GET  path=/v3`)
	if f["method"] != "GET" || f["path"] != "/v3" || f["regions"] != `["RegionOne",` {
		t.Errorf("%q", f)
	}
}

func TestPathTemplate(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"/v3/auth/tokens", "/v3/auth/tokens"},
		{"/v2.1/servers/3f2a9c1e-0b1d-4c6e-9a77-5d2f8e1b0c44/os-volume_attachments", "/v2.1/servers/{}/os-volume_attachments"},
		{"/v3/projects/abc123/users/def/roles/0a1b", "/v3/projects/{}/users/def/roles/{}"},
		{"/v3/domains/082b7ce5ed494b9887bce96a6df557a2", "/v3/domains/{}"},
		{"/v2.1/flavors/1", "/v2.1/flavors/{}"},
		{"/v2.0/networks/tf-acc-abc123", "/v2.0/networks/{}"},
		{"/v3/domains/tf-acc-letters", "/v3/domains/{}"},
		{"/v2.0/security-groups/tf_acc_sg", "/v2.0/security-groups/{}"},
		{"/v2/lbaas/loadbalancers", "/v2/lbaas/loadbalancers"},
		{"/v2.0/ports.json", "/v2.0/ports.json"},
		{"/v3/OS-INHERIT/domains", "/v3/OS-INHERIT/domains"},
		{"/v3/users/" + strings.Repeat("a", 31), "/v3/users/{}"},
		{"/v3/users/" + strings.Repeat("a", 30), "/v3/users/" + strings.Repeat("a", 30)},
		{"/v10/x", "/v10/x"},
		{"/v2.1.3/x", "/{}/x"},
		{"/v2a/x", "/{}/x"},
		{"/v2.0/networks/", "/v2.0/networks/"},
		{"/v2.0/ports?device_id=abc123", "/v2.0/ports"},
		{"/", "/"},
	} {
		if got := PathTemplate(tc.in); got != tc.want {
			t.Errorf("PathTemplate(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestParseDurations(t *testing.T) {
	f, err := os.Open("testdata/testacc-2025.1.log")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, err := ParseDurations(f)
	if err != nil {
		t.Fatal(err)
	}
	// subtests left out; the "[2025.1] " prefix and indentation read through
	want := map[string]float64{"TestAccA_differs": 30, "TestAccB_slow": 100, "TestAccC_fast": 10, "TestAccD_names": 20}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %v, want %v", k, got[k], v)
		}
	}
	twice, _ := ParseDurations(strings.NewReader("--- PASS: TestX (1.50s)\n--- PASS: TestX (2.00s)\n"))
	if twice["TestX"] != 3.5 {
		t.Errorf("a test run twice: %v, want the sum", twice)
	}
	parallel, _ := ParseDurations(strings.NewReader("--- PASS: TestP (0.03s)\n    --- PASS: TestP/a (40.00s)\n" +
		"    --- PASS: TestP/b (2.00s)\n        --- PASS: TestP/b/c (1.00s)\n--- PASS: TestS (9.00s)\n    --- PASS: TestS/a (1.00s)\n"))
	if parallel["TestP"] != 42 || parallel["TestS"] != 9 {
		t.Errorf("tests with subtests: %v, want TestP the sum of its subtests (42) and TestS its own time (9)", parallel)
	}
}

func set(shapes ...Shape) Set {
	s := Set{}
	for _, sh := range shapes {
		s[sh] = true
	}
	return s
}

func TestVerdicts(t *testing.T) {
	a := Shape{"GET", "compute", "RegionOne", "/v2.1/servers/{}", "200"}
	b := Shape{"GET", "compute", "RegionOne", "/v2.1/servers/{}", "404"}
	c := Shape{"POST", "identity", "", "/v3/auth/tokens", "201"}
	an := Analyse("zed", "2025.1",
		map[string]Set{"TestSame": set(a, c), "TestDiffers": set(a, c), "TestEmpty": set(), "TestZedOnly": set(a)},
		map[string]Set{"TestSame": set(c, a), "TestDiffers": set(b, c), "TestEmpty": set(), "TestNewOnly": set(b)},
		nil)
	want := map[string]Verdict{"TestSame": Same, "TestDiffers": Differs, "TestEmpty": Same, "TestZedOnly": BaseOnly, "TestNewOnly": OtherOnly}
	var names []string
	for _, tc := range an.Tests {
		names = append(names, tc.Name)
		if v := tc.Verdict(); v != want[tc.Name] {
			t.Errorf("%s: verdict %v, want %v", tc.Name, v, want[tc.Name])
		}
	}
	if !slices.IsSorted(names) || len(names) != len(want) {
		t.Errorf("tests %v: want each once, by name", names)
	}
	d := an.Tests[slices.Index(names, "TestDiffers")]
	if !slices.Equal(d.OnlyOther, []Shape{b}) || !slices.Equal(d.OnlyBase, []Shape{a}) {
		t.Errorf("differs: +%v -%v", d.OnlyOther, d.OnlyBase)
	}
	zedOnly := an.Tests[slices.Index(names, "TestZedOnly")]
	if zedOnly.Kept || zedOnly.RunsOnBaseOnly() {
		t.Error("a test without a trace on 2025.1 is decided")
	}
	if !an.Tests[slices.Index(names, "TestNewOnly")].Kept || !d.Kept {
		t.Error("a test that differs or ran only on 2025.1 is not kept")
	}
}

func TestCover(t *testing.T) {
	s := func(i int) Shape { return Shape{"GET", "x", "", "/" + string(rune('a'+i)), "200"} }
	for _, tc := range []struct {
		name       string
		candidates map[string]Set
		seconds    map[string]float64
		want       []Pick
	}{
		{
			"most shapes per second", map[string]Set{"Big": set(s(0), s(1), s(2)), "Small": set(s(0)), "Rest": set(s(1), s(2))},
			map[string]float64{"Big": 100, "Small": 10, "Rest": 10}, []Pick{{"Rest", 2}, {"Small", 1}},
		},
		{
			"untimed tests cost the same", map[string]Set{"Big": set(s(0), s(1), s(2)), "Small": set(s(0)), "Rest": set(s(1), s(2))},
			nil, []Pick{{"Big", 3}},
		},
		{
			"ties by name", map[string]Set{"B": set(s(0), s(1), s(2)), "A": set(s(0), s(1), s(2))},
			map[string]float64{"A": 5, "B": 5}, []Pick{{"A", 3}},
		},
		{
			"0 s counts as 1 s", map[string]Set{"Zero": set(s(0)), "One": set(s(0), s(1), s(2))},
			map[string]float64{"Zero": 0, "One": 2}, []Pick{{"One", 3}},
		},
		{
			"stops when nothing is left to gain", map[string]Set{"A": set(s(0))},
			nil, []Pick{{"A", 1}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			uncovered := set(s(0), s(1), s(2))
			got := Cover(uncovered, tc.candidates, tc.seconds)
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
			if len(uncovered) != 3 {
				t.Error("Cover changed its argument")
			}
		})
	}
}

func analyseFixture(t *testing.T, seconds map[string]float64) *Analysis {
	t.Helper()
	zed, err := ReadRelease("testdata/runs/zed")
	if err != nil {
		t.Fatal(err)
	}
	next, err := ReadRelease("testdata/runs/2025.1")
	if err != nil {
		t.Fatal(err)
	}
	return Analyse("zed", "2025.1", zed, next, seconds)
}

func names(tests []*Test) []string {
	var out []string
	for _, t := range tests {
		out = append(out, t.Name)
	}
	return out
}

// The fixture: TestAccA_differs makes a 404 on 2025.1 (in its subtest's log) and a zone list
// on zed only; of the others, the same on both releases, TestAccB_slow (100 s) makes what
// TestAccC_fast (10 s) and TestAccD_names (20 s) make between them, but for a shape of C's.
func TestFixtureCover(t *testing.T) {
	for _, tc := range []struct {
		name    string
		seconds map[string]float64
		kept    []string
		covers  map[string]int
	}{
		// C (3 new shapes / 10 s), then D (2 / 20 s) beats B (2 / 100 s)
		{"timed", map[string]float64{"TestAccA_differs": 30, "TestAccB_slow": 100, "TestAccC_fast": 10, "TestAccD_names": 20},
			[]string{"TestAccA_differs", "TestAccC_fast", "TestAccD_names"}, map[string]int{"TestAccC_fast": 3, "TestAccD_names": 2}},
		// 60 s each: B (4 new shapes), then C for the one left
		{"untimed", nil,
			[]string{"TestAccA_differs", "TestAccB_slow", "TestAccC_fast"}, map[string]int{"TestAccB_slow": 4, "TestAccC_fast": 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := analyseFixture(t, tc.seconds)
			if got := names(a.Kept()); !slices.Equal(got, tc.kept) {
				t.Errorf("kept %v, want %v", got, tc.kept)
			}
			for _, k := range a.Kept() {
				if k.Covers != tc.covers[k.Name] {
					t.Errorf("%s covers %d, want %d", k.Name, k.Covers, tc.covers[k.Name])
				}
			}
			if len(a.Covered) != len(a.OtherShapes) || len(a.OtherShapes.Minus(a.Covered)) != 0 {
				t.Errorf("the kept tests make %d of %d shapes", len(a.Covered), len(a.OtherShapes))
			}
			// the IDs and generated names differ between the releases; the shapes do not
			for _, test := range a.Tests {
				want := Same
				if test.Name == "TestAccA_differs" {
					want = Differs
				}
				if test.Verdict() != want {
					t.Errorf("%s: %v, want %v: +%v -%v", test.Name, test.Verdict(), want, test.OnlyOther, test.OnlyBase)
				}
			}
		})
	}
}

func TestFixtureShapes(t *testing.T) {
	a := analyseFixture(t, nil)
	if len(a.BaseShapes) != 8 || len(a.OtherShapes) != 8 {
		t.Errorf("%d shapes on zed, %d on 2025.1, want 8 each", len(a.BaseShapes), len(a.OtherShapes))
	}
	d := a.Tests[0]
	wantOther := []Shape{{"GET", "compute", "RegionOne", "/v2.1/servers/{}", "404"}}
	wantBase := []Shape{{"GET", "compute", "RegionOne", "/v2.1/os-availability-zone", "200"}}
	if d.Name != "TestAccA_differs" || !slices.Equal(d.OnlyOther, wantOther) || !slices.Equal(d.OnlyBase, wantBase) {
		t.Errorf("%s: +%v -%v", d.Name, d.OnlyOther, d.OnlyBase)
	}
	if len(d.Other) != 3 {
		t.Errorf("the subtest's log is not the test's: %v", d.Other.Sorted())
	}
}

func runCmd(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	rc := run(args, &out, &errOut)
	return out.String(), errOut.String(), rc
}

func TestRunReport(t *testing.T) {
	out, errOut, rc := runCmd(t, "-dir", "testdata/runs", "-log", "2025.1=testdata/testacc-2025.1.log", "-v")
	t.Log("\n" + out)
	if rc != 0 || errOut != "" {
		t.Fatalf("exit %d: %s", rc, errOut)
	}
	for _, want := range []string{
		"tests: 4 (3 same, 1 different, 0 only on 2025.1, 0 only on zed)",
		"distinct shapes: 8 on zed, 8 on 2025.1",
		"kept on 2025.1: 3 tests (1 different, 0 only there, 2 to cover the rest); 1 run on zed only",
		"shapes of the full 2025.1 run made by the kept tests: 8 of 8 (100%)",
		"time on 2025.1: the kept tests 60 s of 160 s for all (37%)",
		"TestAccA_differs  differs +1 -1          3       3      30.0  kept: differs",
		"TestAccB_slow     same                   5       5     100.0  zed only",
		"TestAccC_fast     same                   4       4      10.0  kept: covers 3 shapes",
		"  + GET compute RegionOne /v2.1/servers/{} 404",
		"  - GET compute RegionOne /v2.1/os-availability-zone 200",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	quiet, _, _ := runCmd(t, "-dir", "testdata/runs")
	if strings.Contains(quiet, "+ GET") {
		t.Error("shapes listed without -v")
	}
	if !strings.Contains(quiet, "time on 2025.1: unknown") {
		t.Error("no word on the unknown times")
	}
}

func TestRunListAndMarkdown(t *testing.T) {
	log := "-log=" + filepath.Join("testdata", "testacc-2025.1.log") // a FILE alone is -other's
	out, _, rc := runCmd(t, "-dir", "testdata/runs", log, "-list")
	if rc != 0 || out != "TestAccB_slow\n" {
		t.Errorf("-list: exit %d, %q", rc, out)
	}
	out, _, rc = runCmd(t, "-dir", "testdata/runs", log, "-markdown")
	t.Log("\n" + out)
	for _, want := range []string{
		"the tests kept on 2025.1 make every one of them",
		"| test | request shapes | its shapes are also made, on 2025.1, by |",
		"| `TestAccB_slow` | 5 | `TestAccC_fast` (3 of 5), `TestAccD_names` (3 of 5), `TestAccA_differs` (1 of 5) |",
	} {
		if rc != 0 || !strings.Contains(out, want) {
			t.Errorf("-markdown: exit %d, lacks %q", rc, want)
		}
	}
}

func TestRunErrors(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "zed"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"no -dir", nil},
		{"an argument", []string{"-dir", "testdata/runs", "extra"}},
		{"one release twice", []string{"-dir", "testdata/runs", "-other", "zed"}},
		{"list and markdown", []string{"-dir", "testdata/runs", "-list", "-markdown"}},
		{"unknown flag", []string{"-dir", "testdata/runs", "-bogus"}},
		{"no such dir", []string{"-dir", filepath.Join(dir, "none")}},
		{"a release not traced", []string{"-dir", dir}},
		{"no such log", []string{"-dir", "testdata/runs", "-log", "2025.1=" + filepath.Join(dir, "none.log")}},
		{"a log of a third release", []string{"-dir", "testdata/runs", "-log", "2024.1=testdata/testacc-2025.1.log"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, rc := runCmd(t, tc.args...)
			if rc != 2 || out != "" || errOut == "" {
				t.Errorf("exit %d, stdout %q, stderr %q; want 2 and a message", rc, out, errOut)
			}
		})
	}
}
