package main

import (
	"bytes"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Lines of an apply's -json output as Terraform 1.11 writes them (shortened: the resource
// objects keep addr and a few more fields), with lines of other types around the changes.
const sampleUI = `{"@level":"info","@message":"Terraform 1.11.4","@module":"terraform.ui","@timestamp":"2026-12-05T16:00:00.500000Z","terraform":"1.11.4","type":"version","ui":"1.2"}
{"@level":"info","@message":"unikorn_identity.this: Plan to create","@module":"terraform.ui","@timestamp":"2026-12-05T16:00:02.000000Z","change":{"resource":{"addr":"unikorn_identity.this","resource_type":"unikorn_identity"},"action":"create"},"type":"planned_change"}
{"@level":"info","@message":"Plan: 2 to add, 0 to change, 0 to destroy.","@module":"terraform.ui","@timestamp":"2026-12-05T16:00:02.100000Z","changes":{"add":2,"change":0,"import":0,"remove":0,"operation":"plan"},"type":"change_summary"}
{"@level":"info","@message":"unikorn_identity.this: Creating...","@module":"terraform.ui","@timestamp":"2026-12-05T16:00:03.100000Z","hook":{"resource":{"addr":"unikorn_identity.this","module":"","resource":"unikorn_identity.this","implied_provider":"unikorn","resource_type":"unikorn_identity","resource_name":"this","resource_key":null},"action":"create"},"type":"apply_start"}
{"@level":"info","@message":"unikorn_identity.this: Creation complete after 2s [id=abc]","@module":"terraform.ui","@timestamp":"2026-12-05T16:00:05.000000Z","hook":{"resource":{"addr":"unikorn_identity.this","resource_key":null},"action":"create","id_key":"id","id_value":"abc","elapsed_seconds":2},"type":"apply_complete"}
{"@level":"info","@message":"unikorn_server.this[1]: Creating...","@module":"terraform.ui","@timestamp":"2026-12-05T16:00:07.200000Z","hook":{"resource":{"addr":"unikorn_server.this[1]","resource_key":1},"action":"create"},"type":"apply_start"}
{"@level":"info","@message":"unikorn_server.this[0]: Creating...","@module":"terraform.ui","@timestamp":"2026-12-05T16:00:07.100000Z","hook":{"resource":{"addr":"unikorn_server.this[0]","resource_key":0},"action":"create"},"type":"apply_start"}
{"@level":"info","@message":"unikorn_server.this[0]: Still creating... [10s elapsed]","@module":"terraform.ui","@timestamp":"2026-12-05T16:00:17.100000Z","hook":{"resource":{"addr":"unikorn_server.this[0]","resource_key":0},"action":"create","elapsed_seconds":10},"type":"apply_progress"}
not a JSON line
{"@level":"info","@message":"unikorn_server.this[0]: Creation complete after 16s [id=def]","@module":"terraform.ui","@timestamp":"2026-12-05T16:00:23.400000Z","hook":{"resource":{"addr":"unikorn_server.this[0]","resource_key":0},"action":"create","id_key":"id","id_value":"def","elapsed_seconds":16},"type":"apply_complete"}
{"@level":"error","@message":"unikorn_server.this[1]: Creation errored after 20s","@module":"terraform.ui","@timestamp":"2026-12-05T16:00:27.200000Z","hook":{"resource":{"addr":"unikorn_server.this[1]","resource_key":1},"action":"create","elapsed_seconds":20},"type":"apply_errored"}
{"@level":"info","@message":"unikorn_loadbalancer.this: Creating...","@module":"terraform.ui","@timestamp":"2026-12-05T16:00:05.500000+00:00","hook":{"resource":{"addr":"unikorn_loadbalancer.this","resource_key":null},"action":"create"},"type":"apply_start"}
{"@level":"error","@message":"Error: creating the server","@module":"terraform.ui","@timestamp":"2026-12-05T16:00:27.300000Z","diagnostic":{"severity":"error","summary":"creating the server","detail":"no valid host"},"type":"diagnostic"}
{"@level":"info","@message":"Apply complete! Resources: 2 added, 0 changed, 0 destroyed.","@module":"terraform.ui","@timestamp":"2026-12-05T16:00:28.000000Z","changes":{"add":2,"change":0,"import":0,"remove":0,"operation":"apply"},"type":"change_summary"}
`

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}

	return t
}

func TestParseTimeline(t *testing.T) {
	spans, err := ParseTimeline(strings.NewReader(sampleUI))
	if err != nil {
		t.Fatal(err)
	}

	want := []Span{
		{Addr: planAddr, Start: at("2026-12-05T16:00:00.5Z"), End: at("2026-12-05T16:00:02.1Z")},
		{Addr: "unikorn_identity.this", Action: "create", Start: at("2026-12-05T16:00:03.1Z"), End: at("2026-12-05T16:00:05Z")},
		{Addr: "unikorn_loadbalancer.this", Action: "create", Start: at("2026-12-05T16:00:05.5Z")},
		{Addr: "unikorn_server.this[0]", Action: "create", Start: at("2026-12-05T16:00:07.1Z"), End: at("2026-12-05T16:00:23.4Z")},
		{Addr: "unikorn_server.this[1]", Action: "create", Start: at("2026-12-05T16:00:07.2Z"), End: at("2026-12-05T16:00:27.2Z"), Errored: true},
	}

	if len(spans) != len(want) {
		t.Fatalf("%d spans, want %d: %+v", len(spans), len(want), spans)
	}

	for i := range want {
		if spans[i].Addr != want[i].Addr || spans[i].Action != want[i].Action || !spans[i].Start.Equal(want[i].Start) ||
			!spans[i].End.Equal(want[i].End) || spans[i].Errored != want[i].Errored {
			t.Errorf("span %d: %+v, want %+v", i, spans[i], want[i])
		}
	}
}

func TestParseTimelineRefusesACompleteWithoutStart(t *testing.T) {
	line := `{"@timestamp":"2026-12-05T16:00:05Z","hook":{"resource":{"addr":"a.b"},"action":"create"},"type":"apply_complete"}`
	if _, err := ParseTimeline(strings.NewReader(line)); err == nil {
		t.Fatal("an apply_complete without apply_start was accepted")
	}
}

func TestFirstErrorOfJSON(t *testing.T) {
	path := filepath.Join(t.TempDir(), "apply.log")
	if err := os.WriteFile(path, []byte(sampleUI), 0o600); err != nil {
		t.Fatal(err)
	}

	if got := firstError(path); got != "Error: creating the server" {
		t.Errorf("firstError = %q", got)
	}
}

// A provider log of an apply with the load balancer's messages (internal/loadbalancer) as the
// CLI writes them with TF_LOG_PROVIDER=DEBUG: the create's changes in its request, a member
// batch of a unikorn_loadbalancer_members resource in another, a change before the ACTIVE, and
// a second load balancer without tf_req_id.
const sampleLBLog = `2026-12-05T16:00:05.600Z [DEBUG] provider: starting plugin: path=/x/terraform-provider-unikorn
2026-12-05T16:00:06.000Z [DEBUG] provider.terraform-provider-unikorn: Load balancer change settled: @module=unikorn change="updating listener x-https (timeout_client_data)" loadbalancer_id=lb-1 step=1 tf_req_id=r0 timestamp=2026-12-05T16:00:06.000Z
2026-12-05T16:00:17.010Z [DEBUG] provider.terraform-provider-unikorn: Load balancer ACTIVE after create: @caller=github.com/unikorn-cloud/terraform-provider-unikorn/internal/loadbalancer/converge.go:184 @module=unikorn loadbalancer=x loadbalancer_id=lb-1 tf_provider_addr=registry.terraform.io/unikorn-cloud/unikorn tf_req_id=r1 tf_resource_type=unikorn_loadbalancer tf_rpc=ApplyResourceChange timestamp=2026-12-05T16:00:17.000Z
2026-12-05T16:00:18.300Z [DEBUG] provider.terraform-provider-unikorn: OpenStack API request: method=POST path=/v2/lbaas/listeners service=load-balancer status=201
2026-12-05T16:00:19.210Z [DEBUG] provider.terraform-provider-unikorn: Load balancer change settled: @module=unikorn change="creating listener x-https" loadbalancer_id=lb-1 step=1 tf_req_id=r1 tf_rpc=ApplyResourceChange timestamp=2026-12-05T16:00:19.200Z
2026-12-05T16:00:21.410Z [DEBUG] provider.terraform-provider-unikorn: Load balancer change settled: @module=unikorn change="creating pool x-https-pool" loadbalancer_id=lb-1 step=2 tf_req_id=r1 tf_rpc=ApplyResourceChange timestamp=2026-12-05T16:00:21.400Z
2026-12-05T16:00:29.000Z [DEBUG] provider.terraform-provider-unikorn: Load balancer change settled: @module=unikorn change="setting the 3 members of pool x-https-pool" loadbalancer_id=lb-1 step=1 tf_req_id=r9 tf_rpc=ApplyResourceChange timestamp=2026-12-05T16:00:29.000Z
2026-12-05T16:00:23.010Z [DEBUG] provider.terraform-provider-unikorn: Load balancer change settled: @module=unikorn change="marking load balancer x as finished" loadbalancer_id=lb-1 step=3 tf_req_id=r1 tf_rpc=ApplyResourceChange timestamp=2026-12-05T16:00:23.000Z
2026-12-05T16:00:30.000Z [DEBUG] provider.terraform-provider-unikorn: Load balancer ACTIVE after create: loadbalancer_id=lb-2
2026-12-05T16:00:31.500Z [DEBUG] provider.terraform-provider-unikorn: Load balancer change settled: change="creating listener y-ssh" loadbalancer_id=lb-2 step=1
2026-12-05T16:00:32.000Z [DEBUG] provider.terraform-provider-unikorn: Load balancer ACTIVE after creates: loadbalancer_id=lb-3
`

func TestParseChildrenPhases(t *testing.T) {
	phases, err := ParseChildrenPhases(strings.NewReader(sampleLBLog))
	if err != nil {
		t.Fatal(err)
	}

	if len(phases) != 2 {
		t.Fatalf("%d phases, want 2: %+v", len(phases), phases)
	}

	// lb-1: from 17.000 (the provider's timestamp field) to 23.000, 3 steps of its own request.
	p := phases[0]
	if p.LoadBalancerID != "lb-1" || p.Steps != 3 || p.Duration() != 6*time.Second || math.Abs(p.PerStep()-2) > 1e-9 {
		t.Errorf("lb-1: %+v, %s, %.3f s/step", p, p.Duration(), p.PerStep())
	}

	// lb-2: no tf_req_id and no timestamp field: the line's time.
	p = phases[1]
	if p.LoadBalancerID != "lb-2" || p.Steps != 1 || p.Duration() != 1500*time.Millisecond {
		t.Errorf("lb-2: %+v, %s", p, p.Duration())
	}

	if _, err := ParseChildrenPhases(strings.NewReader("x Load balancer ACTIVE after create: step=1\n")); err == nil {
		t.Error("a line without loadbalancer_id was accepted")
	}
}

func TestParseChildrenPhasesWithoutSteps(t *testing.T) {
	phases, err := ParseChildrenPhases(strings.NewReader("2026-12-05T16:00:30.000+0100 [DEBUG] p: Load balancer ACTIVE after create: loadbalancer_id=lb\n"))
	if err != nil || len(phases) != 1 {
		t.Fatalf("%+v, %v", phases, err)
	}

	if p := phases[0]; p.Steps != 0 || p.Duration() != 0 || !math.IsNaN(p.PerStep()) || !p.Active.Equal(at("2026-12-05T15:00:30Z")) {
		t.Errorf("%+v", p)
	}
}

func TestWriteTimeline(t *testing.T) {
	spans, err := ParseTimeline(strings.NewReader(sampleUI))
	if err != nil {
		t.Fatal(err)
	}

	children, err := ParseChildrenPhases(strings.NewReader(sampleLBLog))
	if err != nil {
		t.Fatal(err)
	}

	var b bytes.Buffer
	WriteTimeline(&b, "reference / apply", at("2026-12-05T16:00:00Z"), 40*time.Second, spans, children[:1])
	out := b.String()

	for _, want := range []string{
		"reference / apply: seconds from the command's start, wall 40.0 s\n",
		"  (plan)                       0.5 →    2.1  | #                                      |\n" +
			"  unikorn_identity.this        3.1 →    5.0  |   ##                                   |\n",
		"  unikorn_loadbalancer.this    5.5 →   40.0  |      ##################################|  unfinished\n" +
			"    children phase            17.0 →   23.0  |                 ######                 |  3 steps, 2.00 s/step\n" +
			"  unikorn_server.this[0]       7.1 →   23.4  |       ################                 |\n" +
			"  unikorn_server.this[1]       7.2 →   27.2  |       ####################             |  FAILED\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the timeline lacks %q:\n%s", want, out)
		}
	}
}

func TestPrintChildren(t *testing.T) {
	run := func(steps int, secs float64) Run {
		active := at("2026-12-05T16:00:00Z")
		return Run{Listeners: 3, Children: []ChildrenPhase{{
			LoadBalancerID: "lb", Active: active, Last: active.Add(time.Duration(secs * float64(time.Second))), Steps: steps,
		}}}
	}

	rows := []Row{
		{Scenario: "reference", Phase: "apply", Runs: []Run{run(9, 12.3), run(9, 11.7), run(9, 14.4)}},
		{Scenario: "reference", Phase: "destroy", Runs: []Run{{}, {}}},
	}

	var b bytes.Buffer
	PrintChildren(&b, rows)

	want := "reference       apply               lb children: 3 listeners, 9 steps, 11.7/12.3/14.4 s, 1.30/1.37/1.60 s/step (3 of 3 repetitions)\n"
	if b.String() != want {
		t.Errorf("got\n%q\nwant\n%q", b.String(), want)
	}
}

func TestGroupsAndRatios(t *testing.T) {
	var scenarios []Scenario

	for _, name := range []string{"reference", "reference-split", "servers-10", "reference-split"} {
		s, err := NewScenario(name)
		if err != nil {
			t.Fatal(err)
		}

		scenarios = append(scenarios, s)
	}

	g := groups(scenarios)
	if len(g) != 3 || len(g[0]) != 2 || g[0][1].Name != "reference-split" || len(g[1]) != 1 || len(g[2]) != 1 {
		t.Fatalf("groups %v", g)
	}

	run := func(rep int, secs float64) Run {
		return Run{Rep: rep, Wall: time.Duration(secs * float64(time.Second))}
	}

	rows := []Row{
		{Scenario: "reference", Phase: "apply", Runs: []Run{run(1, 50), run(2, 60), run(3, 55)}},
		// repetition 2 failed
		{Scenario: "reference-split", Phase: "apply", Runs: []Run{run(1, 30), run(3, 33)}},
	}

	ratios := Ratios(scenarios[:2], rows, map[string]bool{"reference-split": true})
	if len(ratios) != 1 || len(ratios[0].Ratios) != 2 || ratios[0].Ratios[0] != 0.6 || ratios[0].Ratios[1] != 0.6 ||
		math.Abs(ratios[0].OfMedians-31.5/55) > 1e-9 {
		t.Fatalf("ratios %+v", ratios)
	}

	var b bytes.Buffer
	PrintRatios(&b, scenarios[:2], rows, map[string]bool{"reference-split": true})

	if want := "\nreference-split apply / reference apply = 0.60/0.60/0.60 (min/median/max of 2 paired repetitions; ratio of the medians 0.57)\n"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}

	b.Reset()
	PrintRatios(&b, scenarios[:2], rows, nil)

	if want := "\nreference-split apply / reference apply = 0.57 (ratio of the medians; the repetitions were not paired)\n"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}

func TestReferenceSplitStack(t *testing.T) {
	ref, split := referenceStack(), referenceSplitStack()

	lb := func(stack string) string {
		i := strings.Index(stack, `resource "unikorn_loadbalancer" "this"`)
		j := strings.Index(stack[i:], "\n}\n")

		return stack[i : i+j]
	}

	if n := strings.Count(lb(ref), "members "); n != 3 {
		t.Errorf("the reference's load balancer has %d inline members, want 3:\n%s", n, lb(ref))
	}

	if strings.Contains(ref, "unikorn_loadbalancer_members") {
		t.Error("the reference has a members resource")
	}

	if strings.Contains(lb(split), "members") || strings.Contains(lb(split), "unikorn_server") {
		t.Errorf("the split load balancer has members or depends on the servers:\n%s", lb(split))
	}

	if n := strings.Count(split, `resource "unikorn_loadbalancer_members" `); n != 3 {
		t.Errorf("%d members resources, want 3", n)
	}

	// The same members as the reference's, listener by listener.
	m := referenceMembers()
	for _, l := range []struct{ name, list string }{{"https", m.https}, {"ssh", m.ssh}, {"udp", m.udp}} {
		if want := "listener        = \"" + l.name + "\"\n  members         = " + l.list + "\n"; !strings.Contains(split, want) {
			t.Errorf("the split stack lacks %q", want)
		}

		if want := "members              = " + l.list + "\n"; !strings.Contains(lb(ref), want) {
			t.Errorf("the reference lacks %q", want)
		}
	}

	if !strings.Contains(m.ssh, "weight = 1") || strings.Count(m.https, "private_ip") != 3 || strings.Count(m.udp, "port = 53") != 3 {
		t.Errorf("members %+v", m)
	}

	// Everything else is the reference's.
	if rest := split[:strings.Index(split, `resource "unikorn_loadbalancer" "this"`)]; !strings.HasPrefix(ref, rest) {
		t.Error("the split stack's identity, network, security group and servers differ from the reference's")
	}
}

// TestStacksParse has the CLI parse every scenario's configurations (`fmt -`), when it is there.
func TestStacksParse(t *testing.T) {
	cli := os.Getenv("UNIKORN_CLI_PATH")
	if cli == "" {
		var err error
		if cli, err = exec.LookPath("terraform"); err != nil {
			t.Skip("no CLI")
		}
	}

	for _, name := range scenarioNames {
		s, err := NewScenario(name)
		if err != nil {
			t.Fatal(err)
		}

		for _, p := range s.Phases {
			if p.Config == "" {
				continue
			}

			cmd := exec.Command(cli, "fmt", "-")
			cmd.Stdin = strings.NewReader(p.Config)
			cmd.Env = append(os.Environ(), "TF_CLI_CONFIG_FILE=/dev/null", "CHECKPOINT_DISABLE=1")

			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("%s / %s: %v: %s", name, p.Label, err, out)
			}
		}
	}
}

// TestWorkspaceRunReadsTimelineAndChildren runs a stand-in CLI that prints sampleUI and writes
// sampleLBLog as the provider log: a -json run gets its spans, every run its children phases.
func TestWorkspaceRunReadsTimelineAndChildren(t *testing.T) {
	dir := t.TempDir()

	for name, content := range map[string]string{"ui.json": sampleUI, "provider.log": sampleLBLog} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}

	cli := filepath.Join(dir, "cli")
	script := "#!/bin/sh\ncat " + filepath.Join(dir, "provider.log") + " > \"$TF_LOG_PATH\"\n" +
		"case \" $* \" in *\" -json \"*) cat " + filepath.Join(dir, "ui.json") + " ;; *) echo done ;; esac\n"

	if err := os.WriteFile(cli, []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}

	ws, err := NewWorkspace(filepath.Join(dir, "ws"), cli, dir, "registry.terraform.io", map[string]string{"name": "x"})
	if err != nil {
		t.Fatal(err)
	}

	run, err := ws.Run(t.Context(), time.Minute, "apply", "-auto-approve", "-json")
	if err != nil {
		t.Fatal(err)
	}

	if len(run.Spans) != 5 || run.Spans[1].Addr != "unikorn_identity.this" || len(run.Children) != 2 || run.Children[0].Steps != 3 ||
		run.Listeners != 1 || run.Counts.Requests != 1 || run.Start.IsZero() {
		t.Errorf("run %+v", run)
	}

	run, err = ws.Run(t.Context(), time.Minute, "plan")
	if err != nil {
		t.Fatal(err)
	}

	if len(run.Spans) != 0 || len(run.Children) != 2 {
		t.Errorf("plan run: %d spans, %d children phases", len(run.Spans), len(run.Children))
	}
}
