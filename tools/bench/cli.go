package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// providerBinary is the name of the provider under test's executable.
const providerBinary = "terraform-provider-unikorn"

// Workspace is one scenario repetition's Terraform working directory: its configuration, its
// state and the logs of every CLI run in it. The CLI finds the provider under test through a
// dev_overrides configuration: no registry, no `init`.
type Workspace struct {
	Dir  string
	CLI  string
	Env  []string
	Vars []string // -var arguments of every run
	runs int
}

// NewWorkspace makes dir with a CLI configuration pointing at the provider in providerDir.
func NewWorkspace(dir, cli, providerDir, registryHost string, vars map[string]string) (*Workspace, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}

	tfrc := filepath.Join(dir, "dev.tfrc")
	conf := fmt.Sprintf("provider_installation {\n  dev_overrides {\n    %q = %q\n  }\n  direct {}\n}\n",
		registryHost+"/unikorn-cloud/unikorn", providerDir)

	if err := os.WriteFile(tfrc, []byte(conf), 0o600); err != nil {
		return nil, err
	}

	var env []string

	for _, kv := range os.Environ() {
		switch k, _, _ := strings.Cut(kv, "="); k {
		case "TF_CLI_CONFIG_FILE", "TF_LOG", "TF_LOG_PATH", "TF_LOG_PROVIDER", "TF_LOG_CORE", "TF_INPUT",
			"TF_LOG_PROVIDER_UNIKORN", "TF_LOG_PROVIDER_UNIKORN_OPENSTACK":
			continue
		}

		env = append(env, kv)
	}

	env = append(env, "TF_CLI_CONFIG_FILE="+tfrc, "TF_IN_AUTOMATION=1", "CHECKPOINT_DISABLE=1")

	var args []string
	for k, v := range vars {
		args = append(args, "-var", k+"="+v)
	}

	return &Workspace{Dir: dir, CLI: cli, Env: env, Vars: args}, nil
}

// WriteConfig replaces the workspace's configuration.
func (w *Workspace) WriteConfig(hcl string) error {
	return os.WriteFile(filepath.Join(w.Dir, "main.tf"), []byte(hcl), 0o600)
}

// Run is one CLI command as the bench measured it.
type Run struct {
	Args     string
	Log      string // the CLI's output
	Rep      int    // the repetition (from 1)
	Start    time.Time
	Wall     time.Duration
	Counts   Counts
	PeakRSS  int64 // the provider processes' largest peak resident set (VmHWM), in KiB
	ExitCode int
	// Spans are the resources' changes, when the command ran with -json.
	Spans []Span
	// Children are the children phases of the load balancers the command created, and
	// Listeners the listeners it created (POSTs answered 2xx).
	Children  []ChildrenPhase
	Listeners int
}

// Run runs the CLI with args, the provider's request log going to a file of its own, and
// samples the provider processes' memory while it runs.
func (w *Workspace) Run(ctx context.Context, timeout time.Duration, args ...string) (Run, error) {
	w.runs++
	base := filepath.Join(w.Dir, fmt.Sprintf("%02d-%s", w.runs, args[0]))
	requestLog := base + ".requests.log"
	_ = os.Remove(requestLog)

	out, err := os.Create(base + ".log")
	if err != nil {
		return Run{}, err
	}
	defer out.Close()

	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	all := append(append(append([]string{}, args...), "-input=false", "-no-color"), w.Vars...)
	cmd := exec.CommandContext(ctx, w.CLI, all...)
	cmd.Dir = w.Dir
	// Only the provider logs (at DEBUG: its request log); Terraform's own log stays off.
	cmd.Env = append(append([]string{}, w.Env...), "TF_LOG_PROVIDER=DEBUG", "TF_LOG_PATH="+requestLog)
	cmd.Stdout, cmd.Stderr = out, out
	// A process group of its own, so that the memory sampler finds the providers it starts and
	// a timeout stops all of them.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }

	run := Run{Args: strings.Join(args, " "), Log: out.Name()}
	start := time.Now()
	run.Start = start

	if err := cmd.Start(); err != nil {
		return run, err
	}

	sampler := sampleProviders(cmd.Process.Pid)
	err = cmd.Wait()
	run.Wall = time.Since(start)
	run.PeakRSS = sampler.stop()

	var exit *exec.ExitError
	if errors.As(err, &exit) {
		run.ExitCode = exit.ExitCode()
	} else if err != nil {
		return run, err
	}

	if run.ExitCode != 0 && (args[0] != "plan" || run.ExitCode != 2 || !detailed(args)) {
		return run, fmt.Errorf("%s exited %d: %s (%s)", run.Args, run.ExitCode, firstError(run.Log), run.Log)
	}

	f, err := os.Open(requestLog)
	if err != nil {
		return run, fmt.Errorf("the provider's request log of %q: %w", run.Args, err)
	}
	defer f.Close()

	reqs, err := ParseRequestLog(f)
	if err != nil {
		return run, err
	}

	run.Counts = Count(reqs)

	for _, r := range reqs {
		if r.Method == "POST" && r.Status >= 200 && r.Status < 300 && strings.HasSuffix(strings.TrimSuffix(r.Path, "/"), "/lbaas/listeners") {
			run.Listeners++
		}
	}

	if _, err := f.Seek(0, 0); err != nil {
		return run, err
	}

	if run.Children, err = ParseChildrenPhases(f); err != nil {
		return run, fmt.Errorf("the provider's log of %q: %w", run.Args, err)
	}

	if slices.Contains(args, "-json") {
		if run.Spans, err = parseTimelineFile(run.Log); err != nil {
			return run, fmt.Errorf("the -json output of %q: %w", run.Args, err)
		}
	}

	return run, nil
}

func parseTimelineFile(path string) ([]Span, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()

	return ParseTimeline(f)
}

func detailed(args []string) bool { return slices.Contains(args, "-detailed-exitcode") }

// firstError is the first "Error: ..." line of a CLI output (of its human or its -json form).
func firstError(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}

	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 1<<20), 16<<20)

	for sc.Scan() {
		if e := jsonError(sc.Text()); e != "" {
			return e
		}

		line := strings.TrimSpace(strings.TrimLeft(sc.Text(), "│╷╵ "))
		if strings.HasPrefix(line, "Error: ") {
			return line
		}
	}

	return "no error line"
}

// sampler polls the provider processes of a process group for their peak resident set.
type sampler struct {
	done chan struct{}
	wg   sync.WaitGroup
	mu   sync.Mutex
	peak int64
}

// sampleInterval is how often the sampler looks. VmHWM is the kernel's own high-water mark of a
// process, so the sampler misses nothing but the growth of a provider's last moments.
const sampleInterval = 50 * time.Millisecond

func sampleProviders(pgid int) *sampler {
	s := &sampler{done: make(chan struct{})}
	s.wg.Add(1)

	go func() {
		defer s.wg.Done()

		t := time.NewTicker(sampleInterval)
		defer t.Stop()

		for {
			s.look(pgid)

			select {
			case <-s.done:
				return
			case <-t.C:
			}
		}
	}()

	return s
}

func (s *sampler) look(pgid int) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return
	}

	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || processGroup(pid) != pgid {
			continue
		}

		exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
		if err != nil || filepath.Base(exe) != providerBinary {
			continue
		}

		if hwm := peakRSS(pid); hwm > 0 {
			s.mu.Lock()
			s.peak = max(s.peak, hwm)
			s.mu.Unlock()
		}
	}
}

func (s *sampler) stop() int64 {
	close(s.done)
	s.wg.Wait()

	return s.peak
}

// processGroup is the process group of pid (-1 when it cannot be read).
func processGroup(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return -1
	}

	// pid (comm) state ppid pgrp ...; comm may hold spaces: cut after the last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return -1
	}

	f := strings.Fields(string(b[i+1:]))
	if len(f) < 3 {
		return -1
	}

	g, err := strconv.Atoi(f[2])
	if err != nil {
		return -1
	}

	return g
}

// peakRSS is the VmHWM of pid in KiB (0 when it cannot be read).
func peakRSS(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}

	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kib, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)

			return kib
		}
	}

	return 0
}
