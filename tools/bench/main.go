// Command bench measures what the provider costs on the local cloud (issue 17): a real CLI
// applies, plans and destroys a few stacks — the reference stack, with its members inline and
// given outside the load balancer; 10, 50 and 200 servers in one identity; the three-listener
// load balancer alone — several times, and one table gives, per phase, the wall time, the
// requests, the tokens and the answers 4xx/5xx by status as min/median/max over the
// repetitions, the requests per server, and the provider's peak memory of the server refreshes.
// Requests are counted from the provider's own request log (the "openstack" subsystem at DEBUG,
// written by the CLI to TF_LOG_PATH), never from the outside. Under the table: the load
// balancer's children phase, the timeline of each reference apply (from the CLI's -json output)
// and the ratio of the two reference stacks' applies.
//
// It measures and never judges: no figure makes it fail, only a command that fails (or a plan
// that should be empty and is not). Every repetition works under a fresh name with the
// acceptance tests' sweepable prefix (tf-acc-bench-XXXXXXXX) and destroys what it made, also
// after a failure (`make sweep` removes what a destroy could not).
//
// -nova-direct N also boots N servers straight through Nova, in parallel, and reports the
// time until all are ACTIVE: the cloud's own floor under any provider's apply.
//
// Run it through `make bench` (see README.md), which builds the provider under test.
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// NamePrefix starts every repetition's name: the acceptance tests' sweepable prefix
// (acctest.NamePrefix, "tf-acc-") followed by "bench-".
const NamePrefix = "tf-acc-bench-"

type options struct {
	work, providerDir, cli, registryHost string
	cloudsYAML, cloud, region            string
	flavor, image                        string
	scenarios                            string
	reps, parallelism, novaDirect        int
	timeout                              time.Duration
	breakdown                            bool
}

func main() {
	var o options

	fs := flag.NewFlagSet("bench", flag.ExitOnError)
	fs.StringVar(&o.work, "work", ".cache/bench", "directory of the workspaces, logs and breakdowns")
	fs.StringVar(&o.providerDir, "provider-dir", ".cache/bench/bin", "directory holding the terraform-provider-unikorn binary under test")
	fs.StringVar(&o.cli, "cli", os.Getenv("UNIKORN_CLI_PATH"), "Terraform-compatible CLI (tools/cli/cli-env sets UNIKORN_CLI_PATH)")
	fs.StringVar(&o.registryHost, "registry-host", envOr("UNIKORN_REGISTRY_HOST", "registry.terraform.io"), "registry host of the dev_overrides entry")
	fs.StringVar(&o.cloudsYAML, "clouds-yaml", os.Getenv("OS_CLIENT_CONFIG_FILE"), "clouds.yaml of the local cloud")
	fs.StringVar(&o.cloud, "cloud", os.Getenv("OS_CLOUD"), "cloud of clouds.yaml")
	fs.StringVar(&o.region, "region", envOr("OS_REGION_NAME", "RegionOne"), "region of the stacks")
	fs.StringVar(&o.flavor, "flavor", "m1.tiny", "name of the servers' flavor")
	fs.StringVar(&o.image, "image", "cirros-tiny", "name of the servers' image")
	fs.StringVar(&o.scenarios, "scenarios", strings.Join(scenarioNames, ","), "scenarios to run (reference, reference-split, servers-N, loadbalancer), in order")
	fs.IntVar(&o.reps, "reps", 3, "repetitions of every scenario")
	fs.IntVar(&o.parallelism, "parallelism", 10, "the CLI's -parallelism")
	fs.IntVar(&o.novaDirect, "nova-direct", 0, "also boot this many servers straight through Nova in parallel (0: not)")
	fs.DurationVar(&o.timeout, "timeout", 45*time.Minute, "timeout of one CLI command")
	fs.BoolVar(&o.breakdown, "breakdown", false, "print each phase's requests per call (of its median repetition)")
	_ = fs.Parse(os.Args[1:])

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	if err := run(ctx, o); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}

	return def
}

func run(ctx context.Context, o options) error {
	for _, f := range []struct{ name, v string }{{"-cli", o.cli}, {"-clouds-yaml", o.cloudsYAML}, {"-cloud", o.cloud}} {
		if f.v == "" {
			return fmt.Errorf("%s is empty: source .cache/openstack-lite/env && eval \"$(tools/cli/cli-env)\"", f.name)
		}
	}

	providerDir, err := filepath.Abs(o.providerDir)
	if err != nil {
		return err
	}

	if o.work, err = filepath.Abs(o.work); err != nil {
		return err
	}

	if _, err := os.Stat(filepath.Join(providerDir, providerBinary)); err != nil {
		return fmt.Errorf("no provider binary in -provider-dir: %w", err)
	}

	var scenarios []Scenario

	for _, name := range strings.Split(o.scenarios, ",") {
		if name = strings.TrimSpace(name); name == "" {
			continue
		}

		s, err := NewScenario(name)
		if err != nil {
			return err
		}

		scenarios = append(scenarios, s)
	}

	cl, err := Connect(ctx, o.cloudsYAML, o.cloud, o.region)
	if err != nil {
		return err
	}

	flavorID, imageID, err := cl.BootIDs(ctx, o.flavor, o.image)
	if err != nil {
		return err
	}

	fmt.Printf("bench: CLI %s, provider %s, region %s, flavor %s (%s), image %s (%s), parallelism %d, %d repetitions\n",
		o.cli, providerDir, o.region, o.flavor, flavorID, o.image, imageID, o.parallelism, o.reps)
	fmt.Println("bench: wall times are of a machine shared with other work: read them as min/median/max, never one run")

	vars := map[string]string{"region": o.region, "flavor_id": flavorID, "image_id": imageID}

	var (
		rows   []Row
		paired = map[string]bool{}
	)

	for _, group := range groups(scenarios) {
		runs := make([]*scenarioRun, len(group))
		for i, s := range group {
			runs[i] = newScenarioRun(s)
		}

		if len(group) > 1 {
			paired[group[1].Name] = true
		}

		for rep := 1; rep <= o.reps && ctx.Err() == nil; rep++ {
			order := slices.Clone(runs)
			if rep%2 == 0 {
				slices.Reverse(order) // paired repetitions alternate which goes first
			}

			for _, sr := range order {
				if ctx.Err() == nil {
					sr.repetition(ctx, o, rep, providerDir, vars)
				}
			}
		}

		for _, sr := range runs {
			rows = append(rows, sr.tabled()...)
		}

		if ctx.Err() != nil {
			break
		}
	}

	PrintTable(os.Stdout, rows, o.reps)
	PrintChildren(os.Stdout, rows)

	if err := writeBreakdowns(o, rows); err != nil {
		return err
	}

	if err := writeTimelines(o, rows); err != nil {
		return err
	}

	var novaErr error
	if o.novaDirect > 0 && ctx.Err() == nil {
		novaErr = novaDirect(ctx, cl, o, flavorID, imageID)
	}

	// Last in the report, after the Nova boots too.
	PrintRatios(os.Stdout, scenarios, rows, paired)

	if novaErr != nil {
		return novaErr
	}

	return ctx.Err()
}

// groups is the scenarios in the order they run: one by one, except that a scenario whose
// baseline runs right before it is grouped with it, so that their repetitions alternate.
func groups(scenarios []Scenario) [][]Scenario {
	var out [][]Scenario

	for i := 0; i < len(scenarios); i++ {
		if i+1 < len(scenarios) && scenarios[i+1].Baseline != "" && scenarios[i+1].Baseline == scenarios[i].Name {
			out = append(out, scenarios[i:i+2])
			i++

			continue
		}

		out = append(out, scenarios[i:i+1])
	}

	return out
}

// scenarioRun is a scenario's rows as its repetitions fill them.
type scenarioRun struct {
	s    Scenario
	rows []Row
}

func newScenarioRun(s Scenario) *scenarioRun {
	rows := make([]Row, len(s.Phases))
	for i, p := range s.Phases {
		rows[i] = Row{Scenario: s.Name, Phase: p.Label, Servers: p.Servers, Memory: p.Memory, Timeline: p.Timeline}
	}

	return &scenarioRun{s: s, rows: rows}
}

// repetition runs the scenario's repetition rep under a fresh name and adds its runs to the rows.
func (sr *scenarioRun) repetition(ctx context.Context, o options, rep int, providerDir string, vars map[string]string) {
	s := sr.s
	name := repName()
	fmt.Printf("bench: %s, repetition %d/%d: %s\n", s.Name, rep, o.reps, name)

	ws, err := NewWorkspace(filepath.Join(o.work, name), o.cli, providerDir, o.registryHost, varsOf(vars, name))
	if err != nil {
		fmt.Printf("bench:   %v\n", err)
		return
	}

	destroyed := false

	for i, p := range s.Phases {
		run, err := runPhase(ctx, o, ws, p)
		if err != nil {
			fmt.Printf("bench:   %-20s FAILED after %s: %v\n", p.Label, round(run.Wall), err)
			sr.rows[i].Failed++

			break
		}

		run.Rep = rep
		fmt.Printf("bench:   %-20s %7s %5d requests %3d tokens\n", p.Label, round(run.Wall), run.Counts.Requests, run.Counts.Tokens)
		sr.rows[i].Runs = append(sr.rows[i].Runs, run)
		destroyed = i == len(s.Phases)-1
	}

	if !destroyed {
		cleanUp(ctx, o, ws, name)
	}
}

// tabled is the scenario's rows, setup phases left out.
func (sr *scenarioRun) tabled() []Row {
	var out []Row

	for i, p := range sr.s.Phases {
		if !p.Setup {
			out = append(out, sr.rows[i])
		}
	}

	return out
}

// varsOf is the scenario's variables with name set.
func varsOf(common map[string]string, name string) map[string]string {
	out := map[string]string{"name": name}
	for k, v := range common {
		out[k] = v
	}

	return out
}

func runPhase(ctx context.Context, o options, ws *Workspace, p Phase) (Run, error) {
	if p.Config != "" {
		if err := ws.WriteConfig(p.Config); err != nil {
			return Run{}, err
		}
	}

	args := append(append([]string{}, p.Args...), "-parallelism="+strconv.Itoa(o.parallelism))
	if p.Timeline {
		args = append(args, "-json")
	}

	run, err := ws.Run(ctx, o.timeout, args...)
	if err == nil && p.Empty && run.ExitCode != 0 {
		err = fmt.Errorf("the plan is not empty (%s)", run.Log)
	}

	return run, err
}

// cleanUp destroys what a failed repetition left (twice at most) and says what to do when that
// fails too.
func cleanUp(ctx context.Context, o options, ws *Workspace, name string) {
	for attempt := 1; attempt <= 2; attempt++ {
		if _, err := ws.Run(context.WithoutCancel(ctx), o.timeout, "destroy", "-auto-approve"); err == nil {
			fmt.Printf("bench:   destroyed %s after the failure\n", name)
			return
		} else {
			fmt.Printf("bench:   destroying %s after the failure (attempt %d): %v\n", name, attempt, err)
		}
	}

	fmt.Printf("bench:   %s may have left objects: make sweep removes them\n", name)
}

// repName is a fresh name with the sweepable prefix.
func repName() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)

	return NamePrefix + hex.EncodeToString(b)
}

// writeBreakdowns writes, per row, the requests per call of its median repetition into the work
// directory (and prints them with -breakdown).
func writeBreakdowns(o options, rows []Row) error {
	var b strings.Builder

	for _, r := range rows {
		run, ok := r.MedianRun()
		if !ok {
			continue
		}

		fmt.Fprintf(&b, "== %s / %s: %d requests, %d tokens (median repetition, %s)\n%s\n",
			r.Scenario, r.Phase, run.Counts.Requests, run.Counts.Tokens, run.Log, run.Counts.Breakdown())
	}

	path := filepath.Join(o.work, "breakdown.txt")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		return err
	}

	if o.breakdown {
		fmt.Print("\n" + b.String())
	}

	fmt.Printf("\nbench: requests per call of every phase: %s\n", path)

	return nil
}

// writeTimelines writes the timeline of the median repetition (by wall time) of every phase
// that has one into the work directory, and prints them.
func writeTimelines(o options, rows []Row) error {
	var b strings.Builder

	for _, r := range rows {
		run, ok := r.MedianWallRun()
		if !r.Timeline || !ok || len(run.Spans) == 0 {
			continue
		}

		if b.Len() > 0 {
			b.WriteString("\n")
		}

		title := fmt.Sprintf("%s / %s, repetition %d (the median of %d by wall time)", r.Scenario, r.Phase, run.Rep, len(r.Runs))
		WriteTimeline(&b, title, run.Start, run.Wall, run.Spans, run.Children)
	}

	if b.Len() == 0 {
		return nil
	}

	path := filepath.Join(o.work, "timeline.txt")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		return err
	}

	fmt.Printf("\n%s\nbench: the timelines: %s\n", b.String(), path)

	return nil
}
