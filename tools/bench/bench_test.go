package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// A provider log as Terraform 1.11 writes it with TF_LOG_PROVIDER=DEBUG (hclog's text format),
// with lines of other messages around the requests.
const sampleLog = `2026-12-01T21:29:03.700Z [DEBUG] provider: starting plugin: path=/x/terraform-provider-unikorn args=["/x/terraform-provider-unikorn"]
2026-12-01T21:29:03.719Z [DEBUG] provider.terraform-provider-unikorn: OpenStack API request: @caller=github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud/transport.go:415 @module=unikorn.openstack service=identity region="" status=201 attempt=1 duration_ms=43 method=POST path=/v3/auth/tokens timestamp=2026-12-01T21:29:03.719Z
2026-12-01T21:29:03.756Z [DEBUG] provider.terraform-provider-unikorn: OpenStack API request: region=RegionOne service=compute @module=unikorn.openstack attempt=1 duration_ms=25 path=/v2.1/servers/0b6b3c1e-8d3a-4d7e-9f7a-2a1b3c4d5e6f method=GET status=404 timestamp=2026-12-01T21:29:03.756Z
2026-12-01T21:29:03.760Z [DEBUG] provider.terraform-provider-unikorn: Read the server: server="a b"
2026-12-01T21:29:03.819Z [DEBUG] provider.terraform-provider-unikorn: OpenStack API request: status=0 error="connection reset by peer" method=GET path=/v2.0/ports region=RegionOne service=network attempt=1 timestamp=2026-12-01T21:29:03.818Z
2026-12-01T21:29:03.900Z [DEBUG] provider.terraform-provider-unikorn: OpenStack API request: status=200 method=GET path=/v2.0/ports region=RegionOne service=network attempt=2 timestamp=2026-12-01T21:29:03.818Z
2026-12-01T21:29:04.000Z [DEBUG] provider: starting plugin: path=/x/terraform-provider-unikorn args=["/x/terraform-provider-unikorn"]
2026-12-01T21:29:04.100Z [DEBUG] provider.terraform-provider-unikorn: OpenStack API request: service=identity status=201 method=POST path=/v3/auth/tokens
2026-12-01T21:29:04.200Z [DEBUG] provider.terraform-provider-unikorn: OpenStack API request: service=identity status=201 method=POST path=/v3/auth/tokens/
`

func TestParseRequestLog(t *testing.T) {
	reqs, err := ParseRequestLog(strings.NewReader(sampleLog))
	if err != nil {
		t.Fatal(err)
	}

	if len(reqs) != 6 {
		t.Fatalf("%d requests, want 6: %+v", len(reqs), reqs)
	}

	want := Request{Method: "GET", Service: "compute", Path: "/v2.1/servers/0b6b3c1e-8d3a-4d7e-9f7a-2a1b3c4d5e6f", Status: 404, Process: 1}
	if reqs[1] != want || reqs[5].Process != 2 {
		t.Errorf("second request %+v, want %+v; the last of process %d, want 2", reqs[1], want, reqs[5].Process)
	}

	c := Count(reqs)
	if c.Requests != 6 || c.Tokens != 3 || c.RunTokens != 2 || c.ByStatus[404] != 1 || c.ByStatus[0] != 1 || len(c.ByStatus) != 2 {
		t.Errorf("counts %+v", c)
	}

	if n := c.ByCall["GET    compute       /v2.1/servers/{id}"]; n != 1 {
		t.Errorf("calls %v", c.ByCall)
	}

	if !strings.Contains(c.Breakdown(), "     2  GET    network       /v2.0/ports\n") {
		t.Errorf("breakdown:\n%s", c.Breakdown())
	}
}

func TestParseRequestLogRefusesALineWithoutPath(t *testing.T) {
	_, err := ParseRequestLog(strings.NewReader("x OpenStack API request: method=GET status=200\n"))
	if err == nil {
		t.Fatal("a line without path was accepted")
	}
}

func TestParseFieldsQuoted(t *testing.T) {
	f := parseFields(` a=1 b="x \"y\" z" c= d=last`)

	if f["a"] != "1" || f["b"] != `x "y" z` || f["c"] != "" || f["d"] != "last" {
		t.Errorf("fields %q", f)
	}
}

func TestSpreadOf(t *testing.T) {
	for _, tc := range []struct {
		in   []float64
		want Spread
	}{
		{nil, Spread{}},
		{[]float64{5}, Spread{5, 5, 5}},
		{[]float64{9, 1, 5}, Spread{1, 5, 9}},
		{[]float64{4, 1, 3, 2}, Spread{1, 2.5, 4}},
	} {
		if got := SpreadOf(tc.in); got != tc.want {
			t.Errorf("SpreadOf(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestTable(t *testing.T) {
	run := func(wall time.Duration, requests int, status map[int]int) Run {
		return Run{Wall: wall, Counts: Counts{Requests: requests, Tokens: 3, ByStatus: status}, PeakRSS: 40 * 1024}
	}

	rows := []Row{
		{Scenario: "servers-10", Phase: "apply", Servers: 10, Runs: []Run{
			run(20*time.Second, 100, map[int]int{}), run(30*time.Second, 120, map[int]int{404: 2}), run(25*time.Second, 110, map[int]int{}),
		}},
		{Scenario: "servers-10", Phase: "plan -refresh-only", Servers: 10, Memory: true, Runs: []Run{run(time.Second, 12, nil)}},
		{Scenario: "reference", Phase: "destroy", Failed: 3},
	}

	var b bytes.Buffer
	PrintTable(&b, rows, 3)
	out := b.String()

	for _, want := range []string{
		"20.0/25.0/30.0", "100/110/120", "10.0/11.0/12.0", "404: 0/0/2", // the apply's spreads
		"1/3", "1.2/1.2/1.2", "40/40/40 MiB", // the refresh: one of three, per server, memory
		"(failed in every repetition)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the table lacks %q:\n%s", want, out)
		}
	}

	if m, _ := rows[0].MedianRun(); m.Counts.Requests != 110 {
		t.Errorf("median run %+v", m)
	}
}

func TestScenarios(t *testing.T) {
	for _, name := range append(scenarioNames, "servers-3") {
		s, err := NewScenario(name)
		if err != nil {
			t.Fatal(err)
		}

		last := s.Phases[len(s.Phases)-1]
		if last.Args[0] != "destroy" {
			t.Errorf("%s ends with %v, not a destroy", name, last.Args)
		}

		if s.Phases[0].Config == "" || !strings.Contains(s.Phases[0].Config, `name = var.name`) {
			t.Errorf("%s: the first phase writes no configuration named by var.name", name)
		}
	}

	if _, err := NewScenario("servers-x"); err == nil {
		t.Error("servers-x accepted")
	}

	if s, _ := NewScenario("servers-200"); !strings.Contains(s.Phases[0].Config, "count       = 200") {
		t.Error("servers-200 does not make 200 servers")
	}
}
