// Command chaos proves the provider crash- and fault-safe against the local cloud (issue 12):
//
//	chaos kill   -trials 20   kill -9 the CLI and the provider at a seeded random moment of
//	                          an apply of the reference stack, re-apply, check twins, destroy,
//	                          check orphans; one row per trial and a summary
//	chaos faults -drop-after 0.5 -drop-methods POST
//	                          apply and destroy the reference stack through tools/faultproxy,
//	                          re-applying until converged; check twins and orphans
//	chaos leftovers           list every object of any trial (tf-acc-chaos-*) still in the cloud
//
// The cloud is checked directly (never through the proxy) with the service user of
// OS_CLOUD / OS_CLIENT_CONFIG_FILE in every region of UNIKORN_REGIONS. Run it through
// `make chaos` / `make faults` (see README.md), which build the provider and the proxy.
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// NamePrefix starts every trial's name. It begins with the acceptance tests' sweepable prefix
// (acctest.NamePrefix, "tf-acc-"), so that `make sweep` removes what a
// failed trial leaves.
const NamePrefix = "tf-acc-chaos-"

func main() {
	if len(os.Args) < 2 {
		usage()
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	var err error

	switch os.Args[1] {
	case "kill":
		err = runKill(ctx, os.Args[2:])
	case "faults":
		err = runFaults(ctx, os.Args[2:])
	case "leftovers":
		err = runLeftovers(ctx, os.Args[2:])
	default:
		usage()
	}

	if err != nil {
		fmt.Fprintln(os.Stderr, "chaos:", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: chaos kill|faults|leftovers [flags] (-h for the flags)")
	os.Exit(2)
}

// runLeftovers lists what any trial left in the cloud: every object whose name carries
// NamePrefix, in Keystone and every region. It fails when there is any.
func runLeftovers(ctx context.Context, args []string) error {
	var c common

	fs := flag.NewFlagSet("chaos leftovers", flag.ContinueOnError)
	c.register(fs)

	if err := fs.Parse(args); err != nil {
		return err
	}

	cl, err := NewCloud(ctx, c.cloudsYAML, c.cloud, c.regionList())
	if err != nil {
		return err
	}

	inv, err := cl.Inventory(ctx, Scope{Name: NamePrefix})
	if err != nil {
		return err
	}

	for _, o := range inv {
		fmt.Println(o)
	}

	if len(inv) > 0 {
		return fmt.Errorf("%d objects of trials left (make sweep removes them)", len(inv))
	}

	return nil
}

// errTargetsMissed makes the command fail when the figures miss the targets.
var errTargetsMissed = errors.New("targets missed (see the rows above)")

// common are the flags both commands share.
type common struct {
	work, stack, providerDir, cli  string
	cloudsYAML, cloud, regions     string
	lock, faultproxy               string
	seed                           uint64
	applyTimeout, destroyTimeout   time.Duration
	maxApplies, maxDestroys, clean int
}

func (c *common) register(fs *flag.FlagSet) {
	fs.StringVar(&c.work, "work", ".cache/chaos", "directory of the trials' workspaces and logs")
	fs.StringVar(&c.stack, "stack", "examples/quickstart", "the reference stack (*.tf with a variable name)")
	fs.StringVar(&c.providerDir, "provider-dir", ".cache/chaos/bin", "directory holding the terraform-provider-unikorn binary under test")
	fs.StringVar(&c.cli, "cli", os.Getenv("UNIKORN_CLI_PATH"), "Terraform-compatible CLI (tools/cli/cli-env sets UNIKORN_CLI_PATH)")
	fs.StringVar(&c.cloudsYAML, "clouds-yaml", os.Getenv("OS_CLIENT_CONFIG_FILE"), "clouds.yaml of the local cloud")
	fs.StringVar(&c.cloud, "cloud", os.Getenv("OS_CLOUD"), "cloud of clouds.yaml the provider and the checks use")
	fs.StringVar(&c.regions, "regions", os.Getenv("UNIKORN_REGIONS"), "regions checked for twins and orphans (comma list)")
	fs.StringVar(&c.lock, "lock", os.Getenv("CHAOS_LOCK"), "file to flock around each trial (the acceptance tests' lock on a shared cloud)")
	fs.StringVar(&c.faultproxy, "faultproxy", ".cache/chaos/bin/faultproxy", "the tools/faultproxy binary (fault runs)")
	fs.Uint64Var(&c.seed, "seed", 1, "seed of the random moments and faults")
	fs.DurationVar(&c.applyTimeout, "apply-timeout", 20*time.Minute, "timeout of one apply or plan")
	fs.DurationVar(&c.destroyTimeout, "destroy-timeout", 15*time.Minute, "timeout of one destroy: a destroy still running then is hung")
	fs.IntVar(&c.maxApplies, "max-applies", 6, "applies tried before a stack counts as not converging")
	fs.IntVar(&c.maxDestroys, "max-destroys", 3, "destroys tried before a stack counts as not destroyable")
	fs.IntVar(&c.clean, "cleanup-destroys", 2, "extra destroys (without faults) to clean up after a failed trial")
}

// parse parses the command's flags, checks them and connects to the cloud for the checks.
func (c *common) parse(ctx context.Context, fs *flag.FlagSet, args []string) (*Cloud, error) {
	if err := fs.Parse(args); err != nil {
		return nil, err
	}

	if err := c.check(); err != nil {
		return nil, err
	}

	return NewCloud(ctx, c.cloudsYAML, c.cloud, c.regionList())
}

func (c *common) check() error {
	for _, f := range []struct{ name, v string }{
		{"-cli", c.cli}, {"-clouds-yaml", c.cloudsYAML}, {"-cloud", c.cloud}, {"-regions", c.regions},
	} {
		if f.v == "" {
			return fmt.Errorf("%s is empty: source .cache/openstack-lite/env && eval \"$(tools/cli/cli-env)\"", f.name)
		}
	}

	if _, err := os.Stat(filepath.Join(c.providerDir, "terraform-provider-unikorn")); err != nil {
		return fmt.Errorf("no provider binary in -provider-dir: %w", err)
	}

	return nil
}

func (c *common) regionList() []string {
	var out []string

	for _, r := range strings.Split(c.regions, ",") {
		if r = strings.TrimSpace(r); r != "" {
			out = append(out, r)
		}
	}

	return out
}

// trialName is a fresh name with the sweepable prefix (random, not seeded: a re-run with the
// same seed must not meet the leftovers of the last one).
func trialName() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)

	return NamePrefix + hex.EncodeToString(b)
}

// workspace makes the trial's directory: the stack, a CLI configuration whose dev_overrides
// point at the provider under test, and the environment of its CLI runs.
func (c *common) workspace(name string, cloudsYAML string) (*Workspace, error) {
	dir, err := filepath.Abs(filepath.Join(c.work, name))
	if err != nil {
		return nil, err
	}

	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}

	tfs, err := filepath.Glob(filepath.Join(c.stack, "*.tf"))
	if err != nil || len(tfs) == 0 {
		return nil, fmt.Errorf("no *.tf in %s", c.stack)
	}

	for _, f := range tfs {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}

		if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), b, 0o600); err != nil {
			return nil, err
		}
	}

	providerDir, err := filepath.Abs(c.providerDir)
	if err != nil {
		return nil, err
	}

	host := os.Getenv("UNIKORN_REGISTRY_HOST")
	if host == "" {
		host = "registry.terraform.io"
	}

	tfrc := filepath.Join(dir, "dev.tfrc")
	conf := fmt.Sprintf("provider_installation {\n  dev_overrides {\n    %q = %q\n  }\n  direct {}\n}\n", host+"/unikorn-cloud/unikorn", providerDir)

	if err := os.WriteFile(tfrc, []byte(conf), 0o600); err != nil {
		return nil, err
	}

	env := []string{}

	for _, kv := range os.Environ() {
		switch k, _, _ := strings.Cut(kv, "="); k {
		case "TF_CLI_CONFIG_FILE", "OS_CLIENT_CONFIG_FILE", "OS_CLOUD", "TF_LOG", "TF_INPUT":
			continue
		}

		env = append(env, kv)
	}

	env = append(env, "TF_CLI_CONFIG_FILE="+tfrc, "OS_CLIENT_CONFIG_FILE="+cloudsYAML, "OS_CLOUD="+c.cloud,
		"TF_IN_AUTOMATION=1", "CHECKPOINT_DISABLE=1")

	return &Workspace{Dir: dir, Name: name, CLI: c.cli, Env: env}, nil
}

// locked runs f holding the -lock file (when set), so that a trial never overlaps an
// acceptance-test run on the shared cloud.
func (c *common) locked(f func() error) error {
	if c.lock == "" {
		return f()
	}

	fd, err := os.OpenFile(c.lock, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return err
	}
	defer fd.Close()

	if err := syscall.Flock(int(fd.Fd()), syscall.LOCK_EX); err != nil {
		return fmt.Errorf("flock %s: %w", c.lock, err)
	}
	defer syscall.Flock(int(fd.Fd()), syscall.LOCK_UN) //nolint:errcheck // closing releases it too

	return f()
}

// Aftermath is what a trial's checks after its destroy found.
type Aftermath struct {
	Orphans   []Object
	Leftovers []Object // still there after the clean-up destroys
	Hung      bool
	Destroys  int
	Destroyed bool
	Errors    []string
}

// destroyAndCheck destroys the stack (up to max attempts in ws), checks for orphans in
// every region, and if the trial left anything runs clean-up destroys in clean (when not nil)
// and looks again.
func (c *common) destroyAndCheck(ctx context.Context, cl *Cloud, ws, clean *Workspace, maxAttempts int, v Verdict) (Aftermath, error) {
	var a Aftermath

	var err error

	a.Destroys, a.Destroyed, a.Hung, a.Errors, err = ws.Destroy(maxAttempts, c.destroyTimeout)
	if err != nil {
		return a, err
	}

	scope := Scope{Name: ws.Name, Projects: v.Projects, Users: v.Users}

	a.Orphans, err = cl.Inventory(ctx, scope)
	if err != nil {
		return a, fmt.Errorf("orphan check: %w", err)
	}

	a.Leftovers = a.Orphans

	if (len(a.Orphans) > 0 || !a.Destroyed) && clean != nil && c.clean > 0 {
		_, _, _, errs, err := clean.Destroy(c.clean, c.destroyTimeout)
		if err != nil {
			return a, err
		}

		a.Errors = append(a.Errors, prefixAll("clean-up ", errs)...)

		a.Leftovers, err = cl.Inventory(ctx, scope)
		if err != nil {
			return a, fmt.Errorf("leftover check: %w", err)
		}
	}

	return a, nil
}

func prefixAll(p string, ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = p + s
	}

	return out
}

func names(objs []Object) string {
	s := make([]string, len(objs))
	for i, o := range objs {
		s[i] = o.String()
	}

	return strings.Join(s, "; ")
}
