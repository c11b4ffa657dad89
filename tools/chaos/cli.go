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
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Workspace is one trial's Terraform working directory: the reference stack, its state and
// the logs of every CLI run in it.
type Workspace struct {
	Dir  string
	Name string // the trial's name prefix, passed as var.name
	CLI  string // the Terraform-compatible CLI
	Env  []string
	// Label starts the names of this workspace's logs (two Workspaces may share one Dir).
	Label string
	runs  int
}

// Result is how one CLI run ended.
type Result struct {
	Args     string
	Log      string
	Duration time.Duration
	Exit     int  // -1 when killed or timed out
	Killed   bool // killed by the trial (kill -9)
	TimedOut bool // killed because it outlived its timeout
	// Survivors are processes of the run still alive after the kill (they are killed too).
	Survivors []int
}

// OK tells a run that exited 0.
func (r Result) OK() bool { return r.Exit == 0 }

// Errors is the first error the CLI printed (summary and detail), on one line.
func (r Result) Errors() string {
	b, err := os.ReadFile(r.Log)
	if err != nil {
		return err.Error()
	}

	return firstError(b)
}

// sourceLine is a line of configuration quoted in an error ("53: resource ...").
var sourceLine = regexp.MustCompile(`^[0-9]+: `)

// firstError finds the first "Error: ..." block of a CLI output and joins its lines.
func firstError(out []byte) string {
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)

	var parts []string

	for sc.Scan() {
		line := strings.TrimSpace(strings.TrimLeft(sc.Text(), "│╷╵ "))
		if len(parts) == 0 {
			if strings.HasPrefix(line, "Error: ") {
				parts = append(parts, line)
			}

			continue
		}

		if strings.HasPrefix(line, "Error: ") || strings.HasPrefix(line, "Warning: ") || len(parts) >= 8 {
			break
		}

		if line != "" && !strings.HasPrefix(line, "with ") && !strings.HasPrefix(line, "on ") && !sourceLine.MatchString(line) {
			parts = append(parts, line)
		}
	}

	return strings.Join(parts, " ")
}

// Proc is a CLI run in progress, in a process group of its own.
type Proc struct {
	cmd   *exec.Cmd
	res   Result
	start time.Time
	done  chan struct{}
	log   *os.File
}

// Start runs the CLI with args in the workspace, in a new process group (so that the kill
// reaches the provider it starts, and nothing else), output to a numbered log.
func (w *Workspace) Start(args ...string) (*Proc, error) {
	w.runs++
	logPath := filepath.Join(w.Dir, fmt.Sprintf("%s%02d-%s.log", w.Label, w.runs, args[0]))

	f, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}

	cmd := exec.Command(w.CLI, append(args, "-input=false", "-no-color", "-var", "name="+w.Name)...)
	cmd.Dir = w.Dir
	cmd.Env = w.Env
	cmd.Stdout, cmd.Stderr = f, f
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}

	p := &Proc{cmd: cmd, log: f, res: Result{Args: strings.Join(args, " "), Log: logPath, Exit: -1}, done: make(chan struct{})}

	p.start = time.Now()
	if err := cmd.Start(); err != nil {
		f.Close()

		return nil, err
	}

	go func() {
		err := cmd.Wait()

		p.res.Duration = time.Since(p.start)
		if err == nil {
			p.res.Exit = 0
		} else if ee := (*exec.ExitError)(nil); errors.As(err, &ee) && ee.Exited() {
			p.res.Exit = ee.ExitCode()
		}

		f.Close()
		close(p.done)
	}()

	return p, nil
}

// descendants lists the PIDs below pid (its children, theirs, ...), from /proc.
func descendants(pid int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}

	parent := map[int][]int{}

	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}

		if ppid, _, ok := procStat(child); ok {
			parent[ppid] = append(parent[ppid], child)
		}
	}

	var out []int

	queue := []int{pid}
	for len(queue) > 0 && len(out) < 1000 {
		next := queue[0]
		queue = queue[1:]

		for _, c := range parent[next] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}

	return out
}

// groupMembers lists the live (not zombie) processes of process group pgid, from /proc.
func groupMembers(pgid int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}

	var out []int

	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}

		if _, g, ok := procStat(pid); ok && g == pgid && alive(pid) {
			out = append(out, pid)
		}
	}

	return out
}

// procStat reads the parent PID and process group of pid.
func procStat(pid int) (ppid, pgid int, ok bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0, false
	}

	// pid (comm) state ppid pgrp ...; comm may hold spaces: cut after the last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, false
	}

	f := strings.Fields(string(b[i+1:]))
	if len(f) < 3 {
		return 0, 0, false
	}

	ppid, err1 := strconv.Atoi(f[1])
	pgid, err2 := strconv.Atoi(f[2])

	return ppid, pgid, err1 == nil && err2 == nil
}

func alive(pid int) bool {
	_, _, ok := procStat(pid)
	if !ok {
		return false
	}

	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	i := bytes.LastIndexByte(b, ')')

	return i < 0 || !strings.HasPrefix(strings.TrimSpace(string(b[i+1:])), "Z")
}

// Kill sends SIGKILL to the run's process group (the CLI and the provider it started: PIDs
// this harness started, nothing else), waits for the CLI, and reports any process of the run
// that survived (which is then killed by its PID).
func (p *Proc) Kill(timedOut bool) Result {
	pgid := p.cmd.Process.Pid
	below := descendants(pgid)

	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	<-p.done

	var survivors []int

	for i := 0; i < 50; i++ {
		survivors = survivors[:0]

		for _, pid := range below {
			if alive(pid) {
				survivors = append(survivors, pid)
			}
		}

		for _, pid := range groupMembers(pgid) {
			if !slices.Contains(survivors, pid) {
				survivors = append(survivors, pid)
			}
		}

		if len(survivors) == 0 {
			break
		}

		time.Sleep(100 * time.Millisecond)
	}

	for _, pid := range survivors {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}

	p.res.Killed, p.res.TimedOut, p.res.Exit = !timedOut, timedOut, -1
	p.res.Survivors = survivors

	return p.res
}

// Wait waits for the run to end, killing it when it outlives timeout.
func (p *Proc) Wait(timeout time.Duration) Result {
	t := time.NewTimer(timeout)
	defer t.Stop()

	select {
	case <-p.done:
		return p.res
	case <-t.C:
		return p.Kill(true)
	}
}

// Done tells whether the run has ended.
func (p *Proc) Done() <-chan struct{} { return p.done }

// Run runs the CLI to its end (or timeout).
func (w *Workspace) Run(timeout time.Duration, args ...string) (Result, error) {
	p, err := w.Start(args...)
	if err != nil {
		return Result{}, err
	}

	return p.Wait(timeout), nil
}

// Converge applies until an apply succeeds and the next plan is empty, at most max applies.
// It returns the number of applies made, whether it converged, and the first error of each
// failed run.
func (w *Workspace) Converge(ctx context.Context, maxApplies int, timeout time.Duration) (int, bool, []string, error) {
	var errs []string

	for applies := 1; applies <= maxApplies; applies++ {
		if ctx.Err() != nil {
			return applies - 1, false, errs, ctx.Err()
		}

		res, err := w.Run(timeout, "apply", "-auto-approve")
		if err != nil {
			return applies, false, errs, err
		}

		if !res.OK() {
			errs = append(errs, fmt.Sprintf("apply %d: %s", applies, describe(res)))
			continue
		}

		// An empty plan proves convergence; a plan that fails (a fault on a read) is asked
		// again, a few times, before another apply.
		for plans := 1; plans <= 3; plans++ {
			res, err = w.Run(timeout, "plan", "-detailed-exitcode")
			if err != nil {
				return applies, false, errs, err
			}

			if res.Exit != 1 {
				break
			}

			errs = append(errs, fmt.Sprintf("plan after apply %d: %s", applies, describe(res)))
		}

		switch res.Exit {
		case 0:
			return applies, true, errs, nil
		case 2:
			errs = append(errs, fmt.Sprintf("plan after apply %d: changes left", applies))
		}
	}

	return maxApplies, false, errs, nil
}

// Destroy destroys until a destroy succeeds, at most max attempts; it returns the attempts
// made, whether one succeeded, whether one hung (outlived timeout), and the errors.
func (w *Workspace) Destroy(maxAttempts int, timeout time.Duration) (int, bool, bool, []string, error) {
	var (
		errs []string
		hung bool
	)

	for attempt := 1; attempt <= maxAttempts; attempt++ {
		res, err := w.Run(timeout, "destroy", "-auto-approve")
		if err != nil {
			return attempt, false, hung, errs, err
		}

		if res.OK() {
			return attempt, true, hung, errs, nil
		}

		hung = hung || res.TimedOut
		errs = append(errs, fmt.Sprintf("destroy %d: %s", attempt, describe(res)))
	}

	return maxAttempts, false, hung, errs, nil
}

func describe(r Result) string {
	switch {
	case r.TimedOut:
		return fmt.Sprintf("timed out after %s (%s)", r.Duration.Round(time.Second), r.Log)
	case r.Exit != 0:
		if e := r.Errors(); e != "" {
			return e
		}

		return fmt.Sprintf("exit %d (%s)", r.Exit, r.Log)
	}

	return "ok"
}
