package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const trial = "tf-acc-chaos-0001"

// converged is the inventory of a converged reference stack named trial, in RegionOne.
func converged() []Object {
	var inv []Object

	for i, k := range Expected(trial) {
		kind, name := splitKey(k)
		inv = append(inv, Object{Region: "RegionOne", Kind: kind, Name: name, ID: "id-" + string(rune('a'+i)), Project: "p1"})
	}

	inv[0].Region, inv[0].ID = "", "p1" // the project
	inv[1].Region, inv[1].User = "", "u1"
	inv[1].ID = "u1"

	return inv
}

// splitKey splits an Expected key at the kind (the kinds have at most two words).
func splitKey(k string) (string, string) {
	for _, kind := range []string{"application credential", "security group", "floating IP", "load balancer"} {
		if name, ok := strings.CutPrefix(k, kind+" "); ok {
			return kind, name
		}
	}

	kind, name, _ := strings.Cut(k, " ")

	return kind, name
}

func TestTwinsConverged(t *testing.T) {
	v := Twins(trial, converged())
	if len(v.Twins) != 0 || len(v.Missing) != 0 {
		t.Fatalf("converged stack: twins %v, missing %v", v.Twins, v.Missing)
	}

	if len(v.Projects) != 1 || v.Projects[0] != "p1" || len(v.Users) != 1 || v.Users[0] != "u1" {
		t.Errorf("recorded projects %v users %v, want [p1] [u1]", v.Projects, v.Users)
	}
}

func TestTwinsFound(t *testing.T) {
	inv := append(converged(),
		Object{Region: "RegionTwo", Kind: "network", Name: "network-" + trial, ID: "net-2"},
		// The default security group of the project is not a deterministic name: never a twin.
		Object{Region: "RegionOne", Kind: "security group", Name: "default", ID: "d1", Project: "p1"},
		Object{Region: "RegionOne", Kind: "security group", Name: "default", ID: "d2", Project: "p1"},
	)

	v := Twins(trial, inv)
	if len(v.Twins) != 1 || !strings.Contains(v.Twins[0], "network network-"+trial) || !strings.Contains(v.Twins[0], "net-2") {
		t.Fatalf("twins = %v, want the network in both regions", v.Twins)
	}
}

func TestTwinsMissing(t *testing.T) {
	var inv []Object

	for _, o := range converged() {
		if o.Kind != "load balancer" {
			inv = append(inv, o)
		}
	}

	v := Twins(trial, inv)
	if len(v.Missing) != 1 || v.Missing[0] != "load balancer lb-"+trial {
		t.Fatalf("missing = %v, want the load balancer", v.Missing)
	}
}

func TestScope(t *testing.T) {
	s := Scope{Name: trial, Projects: []string{"p1"}, Users: []string{"u1"}}

	for _, c := range []struct {
		o    Object
		want bool
	}{
		{Object{Name: "network-" + trial}, true},
		{Object{Name: "unikorn_server server-" + trial}, true},
		{Object{Name: "default", Project: "p1"}, true},
		{Object{Name: "", User: "u1"}, true},
		{Object{Name: "network-tf-acc-chaos-0002", Project: "p2"}, false},
		{Object{Name: "default"}, false},
	} {
		if got := s.keep(c.o); got != c.want {
			t.Errorf("keep(%v) = %v, want %v", c.o, got, c.want)
		}
	}
}

func TestProxiedCloudsYAML(t *testing.T) {
	in := `clouds:
  admin:
    auth:
      auth_url: http://127.0.0.1:5000/v3
      password: "x"
  unikorn:
    auth:
      auth_url: "http://127.0.0.1:5000/v3"
`

	out, upstream, err := ProxiedCloudsYAML([]byte(in), "127.0.0.1:4242")
	if err != nil {
		t.Fatal(err)
	}

	if upstream != "127.0.0.1:5000" {
		t.Errorf("upstream = %q", upstream)
	}

	if strings.Contains(string(out), ":5000") || strings.Count(string(out), "auth_url: http://127.0.0.1:4242/v3\n") != 2 {
		t.Errorf("rewritten:\n%s", out)
	}

	if !strings.Contains(string(out), `password: "x"`) {
		t.Errorf("the rest of the file changed:\n%s", out)
	}

	if _, _, err := ProxiedCloudsYAML([]byte(in+"      auth_url: http://127.0.0.1:6000/v3\n"), "127.0.0.1:1"); err == nil {
		t.Error("two Keystones accepted")
	}

	if _, _, err := ProxiedCloudsYAML([]byte("clouds: {}\n"), "127.0.0.1:1"); err == nil {
		t.Error("no auth_url accepted")
	}
}

func TestFirstError(t *testing.T) {
	out := `unikorn_identity.trial: Creating...
╷
│ Error: Error creating network
│ 
│   with unikorn_network.trial,
│   on main.tf line 39, in resource "unikorn_network" "trial":
│   39: resource "unikorn_network" "trial" {
│ 
│ network network-x in RegionOne: Post "http://127.0.0.1:1/_/127.0.0.1:9696/v2.0/networks": EOF
╵
╷
│ Error: second
╵
`

	want := `Error: Error creating network network network-x in RegionOne: Post "http://127.0.0.1:1/_/127.0.0.1:9696/v2.0/networks": EOF`
	if got := firstError([]byte(out)); got != want {
		t.Errorf("firstError =\n%s\nwant\n%s", got, want)
	}
}

func TestKillMoment(t *testing.T) {
	lo, hi := time.Second, 90*time.Second
	seen := map[time.Duration]bool{}

	for i := 1; i <= 20; i++ {
		m := KillMoment(7, i, lo, hi)
		if m < lo || m > hi {
			t.Errorf("trial %d: moment %s outside [%s, %s]", i, m, lo, hi)
		}

		if m != KillMoment(7, i, lo, hi) {
			t.Errorf("trial %d: seed 7 drew two moments", i)
		}

		seen[m] = true
	}

	if len(seen) < 18 {
		t.Errorf("20 trials drew %d distinct moments", len(seen))
	}

	if KillMoment(7, 1, lo, hi) == KillMoment(8, 1, lo, hi) {
		t.Error("seeds 7 and 8 drew the same first moment")
	}
}

func TestProxyStats(t *testing.T) {
	before := ProxyStats{Requests: map[string]int{"GET": 10}, Faulted: map[string]map[string]int{"drop": {"POST": 1}}}
	after := ProxyStats{
		Requests: map[string]int{"GET": 15, "POST": 4},
		Faulted:  map[string]map[string]int{"drop": {"POST": 3}, "reset": {"GET": 1}},
	}

	d := after.Minus(before)
	if d.Requests["GET"] != 5 || d.Requests["POST"] != 4 || d.Total() != 3 {
		t.Errorf("difference = %+v", d)
	}

	if got, want := d.FaultedText(), "reset 1 (GET 1), drop 2 (POST 2)"; got != want {
		t.Errorf("FaultedText = %q, want %q", got, want)
	}
}

// script writes an executable shell script standing in for the CLI.
func script(t *testing.T, body string) string {
	t.Helper()

	path := filepath.Join(t.TempDir(), "cli")
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body+"\n"), 0o700); err != nil {
		t.Fatal(err)
	}

	return path
}

// TestKillReachesTheGroup: the kill takes the CLI and every process it started (the provider
// stands in as two sleeping children), and nothing survives.
func TestKillReachesTheGroup(t *testing.T) {
	ws := &Workspace{Dir: t.TempDir(), Name: trial, CLI: script(t, "echo started; sleep 300 & sleep 300 & wait"), Env: os.Environ()}

	p, err := ws.Start("apply")
	if err != nil {
		t.Fatal(err)
	}

	pgid := p.cmd.Process.Pid

	// Wait (bounded) until both children run.
	for i := 0; i < 200 && len(descendants(pgid)) < 2; i++ {
		time.Sleep(20 * time.Millisecond)
	}

	kids := descendants(pgid)
	if len(kids) < 2 {
		t.Fatalf("the stand-in CLI has %d children, want 2", len(kids))
	}

	res := p.Kill(false)
	if !res.Killed || res.TimedOut || res.Exit != -1 || len(res.Survivors) != 0 {
		t.Fatalf("kill result %+v", res)
	}

	for _, pid := range kids {
		if alive(pid) {
			t.Errorf("child %d survived the kill", pid)
		}
	}

	if m := groupMembers(pgid); len(m) != 0 {
		t.Errorf("process group %d still has live members %v", pgid, m)
	}

	if lastLine(res.Log) != "started" {
		t.Errorf("last line %q, want started", lastLine(res.Log))
	}
}

func TestRunExitAndErrors(t *testing.T) {
	ws := &Workspace{Dir: t.TempDir(), Name: trial, CLI: script(t, `echo "Error: boom"; echo "  why it failed"; exit 1`), Env: os.Environ()}

	res, err := ws.Run(time.Minute, "apply")
	if err != nil {
		t.Fatal(err)
	}

	if res.OK() || res.Exit != 1 || res.Errors() != "Error: boom why it failed" {
		t.Errorf("result %+v, errors %q", res, res.Errors())
	}

	ok := &Workspace{Dir: t.TempDir(), Name: trial, CLI: script(t, `exit 0`), Env: os.Environ()}

	applies, converged, errs, err := ok.Converge(t.Context(), 3, time.Minute)
	if err != nil || !converged || applies != 1 || len(errs) != 0 {
		t.Errorf("Converge with a CLI that always succeeds: %d %v %v %v", applies, converged, errs, err)
	}

	// A plan that always has changes never converges; Converge stops at its limit.
	changes := &Workspace{Dir: t.TempDir(), Name: trial, CLI: script(t, `[ "$1" = plan ] && exit 2; exit 0`), Env: os.Environ()}

	applies, converged, errs, err = changes.Converge(t.Context(), 2, time.Minute)
	if err != nil || converged || applies != 2 || len(errs) != 2 {
		t.Errorf("Converge with changes left: %d %v %v %v", applies, converged, errs, err)
	}
}
