package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"time"
)

// KillRow is one kill -9 trial.
type KillRow struct {
	Trial     int
	Name      string
	KillAt    time.Duration
	Killed    bool   // false: the apply ended before the moment came
	During    string // the CLI's last line before the kill
	Survivors []int
	ReapplyOK bool // the first apply after the kill succeeded and the plan after it was empty
	Applies   int
	Converged bool
	Twins     []string
	Missing   []string
	After     Aftermath
	Destroy   time.Duration
	Errors    []string
	Err       error // the trial itself could not run
}

// Pass tells a trial that met every target.
func (r KillRow) Pass() bool {
	return r.Err == nil && r.ReapplyOK && len(r.Twins) == 0 && len(r.Missing) == 0 &&
		len(r.After.Orphans) == 0 && !r.After.Hung && r.After.Destroyed && len(r.Survivors) == 0
}

// KillMoment draws the moment of trial i's kill, uniform in [lo, hi], from the seed alone: the
// same seed kills at the same moments.
func KillMoment(seed uint64, trial int, lo, hi time.Duration) time.Duration {
	r := rand.New(rand.NewPCG(seed, uint64(trial)))

	return lo + time.Duration(r.Float64()*float64(hi-lo))
}

func runKill(ctx context.Context, args []string) error {
	var c common

	fs := flag.NewFlagSet("chaos kill", flag.ContinueOnError)
	c.register(fs)
	trials := fs.Int("trials", 20, "number of kill -9 trials")
	window := fs.Duration("window", 0, "kill window: kills fall in [1s, window] after the apply starts (0: measure one apply first and use its duration)")
	reapplies := fs.Int("reapplies", 3, "applies tried after the kill (the first must succeed for the trial to pass)")

	cl, err := c.parse(ctx, fs, args)
	if err != nil {
		return err
	}

	if *window == 0 {
		*window, err = c.calibrate(ctx, cl)
		if err != nil {
			return err
		}
	}

	lo := time.Second
	if *window <= lo {
		return fmt.Errorf("-window %s: want more than %s", *window, lo)
	}

	fmt.Printf("kill -9 trials: %d, seed %d, kill window [%s, %s], regions %s\n", *trials, c.seed, lo, *window, c.regions)
	fmt.Printf("%-5s %-21s %-7s %-44s %-9s %-7s %-5s %-7s %-9s %s\n",
		"trial", "name", "kill@", "killed during", "reapply", "applies", "twins", "orphans", "destroy", "errors")

	var rows []KillRow

	for i := 1; i <= *trials && ctx.Err() == nil; i++ {
		row := KillRow{Trial: i, Name: trialName(), KillAt: KillMoment(c.seed, i, lo, *window)}

		err := c.locked(func() error { return c.killTrial(ctx, cl, &row, *reapplies) })
		if err != nil {
			row.Err = err
		}

		rows = append(rows, row)
		printKillRow(row)
	}

	return killSummary(rows, *trials)
}

// calibrate applies the stack once, uninterrupted, to measure how long an apply takes, then
// destroys it. The kill window is that duration.
func (c *common) calibrate(ctx context.Context, cl *Cloud) (time.Duration, error) {
	name := trialName()

	var took time.Duration

	err := c.locked(func() error {
		ws, err := c.workspace(name, c.cloudsYAML)
		if err != nil {
			return err
		}

		res, err := ws.Run(c.applyTimeout, "apply", "-auto-approve")
		if err != nil {
			return err
		}

		took = res.Duration

		after, err := c.destroyAndCheck(ctx, cl, ws, ws, c.maxDestroys, Verdict{})
		if err != nil {
			return err
		}

		if !res.OK() || !after.Destroyed || len(after.Leftovers) > 0 {
			return fmt.Errorf("calibration apply of %s: %s; destroy: %v %s; left: %s",
				name, describe(res), after.Destroyed, strings.Join(after.Errors, " | "), names(after.Leftovers))
		}

		return nil
	})
	if err != nil {
		return 0, err
	}

	fmt.Printf("calibration: one uninterrupted apply of the reference stack took %s\n", took.Round(100*time.Millisecond))

	return took, nil
}

// killTrial runs one trial: apply, kill -9 at row.KillAt, re-apply, twins, destroy, orphans.
func (c *common) killTrial(ctx context.Context, cl *Cloud, row *KillRow, reapplies int) error {
	ws, err := c.workspace(row.Name, c.cloudsYAML)
	if err != nil {
		return err
	}

	p, err := ws.Start("apply", "-auto-approve")
	if err != nil {
		return err
	}

	timer := time.NewTimer(row.KillAt)

	var res Result

	select {
	case <-p.Done():
		timer.Stop()

		res = p.res
	case <-timer.C:
		select {
		case <-p.Done(): // ended just now
			res = p.res
		default:
			res = p.Kill(false)
			row.Killed = true
		}
	}

	row.Survivors = res.Survivors
	row.During = lastLine(res.Log)

	row.Applies, row.Converged, row.Errors, err = ws.Converge(ctx, reapplies, c.applyTimeout)
	if err != nil {
		return err
	}

	row.ReapplyOK = row.Converged && row.Applies == 1

	inv, err := cl.Inventory(ctx, Scope{Name: row.Name})
	if err != nil {
		return fmt.Errorf("twin check: %w", err)
	}

	v := Twins(row.Name, inv)
	row.Twins, row.Missing = v.Twins, v.Missing

	start := time.Now()
	row.After, err = c.destroyAndCheck(ctx, cl, ws, ws, 1, v)
	row.Destroy = time.Since(start)
	row.Errors = append(row.Errors, row.After.Errors...)

	return err
}

// lastLine is the last non-empty line of a log, shortened.
func lastLine(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}

	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	last := strings.TrimSpace(lines[len(lines)-1])

	if len(last) > 44 {
		last = last[:41] + "..."
	}

	return last
}

func printKillRow(r KillRow) {
	reapply := "ok"
	if !r.ReapplyOK {
		reapply = "FAILED"
	}

	killAt := r.KillAt.Round(100 * time.Millisecond).String()
	if !r.Killed {
		killAt += "*"
	}

	destroy := r.Destroy.Round(time.Second).String()
	switch {
	case r.After.Hung:
		destroy = "HUNG"
	case !r.After.Destroyed:
		destroy = "FAILED"
	}

	var notes []string
	if r.Err != nil {
		notes = append(notes, "trial error: "+r.Err.Error())
	}

	if len(r.Survivors) > 0 {
		notes = append(notes, fmt.Sprintf("survived the kill: %v", r.Survivors))
	}

	notes = append(notes, r.Twins...)
	for _, m := range r.Missing {
		notes = append(notes, "missing "+m)
	}

	if len(r.After.Orphans) > 0 {
		notes = append(notes, "orphans: "+names(r.After.Orphans))
	}

	if len(r.After.Leftovers) > 0 {
		notes = append(notes, "left after clean-up: "+names(r.After.Leftovers))
	}

	notes = append(notes, r.Errors...)

	fmt.Printf("%-5d %-21s %-7s %-44s %-9s %-7d %-5d %-7d %-9s %s\n",
		r.Trial, r.Name, killAt, r.During, reapply, r.Applies, len(r.Twins), len(r.After.Orphans), destroy, strings.Join(notes, " | "))
}

func killSummary(rows []KillRow, trials int) error {
	var reapplied, twins, orphans, hung, failedDestroys, pass, notKilled int

	for _, r := range rows {
		if r.ReapplyOK {
			reapplied++
		}

		if !r.Killed {
			notKilled++
		}

		twins += len(r.Twins)
		orphans += len(r.After.Orphans)

		if r.After.Hung {
			hung++
		} else if !r.After.Destroyed {
			failedDestroys++
		}

		if r.Pass() {
			pass++
		}
	}

	fmt.Printf("\nsummary: %d/%d re-applies succeeded first time, %d twins, %d orphans, %d hung destroys, %d failed destroys; %d/%d trials passed",
		reapplied, trials, twins, orphans, hung, failedDestroys, pass, trials)

	if notKilled > 0 {
		fmt.Printf(" (%d applies ended before their kill moment: marked *)", notKilled)
	}

	fmt.Println()

	if pass != trials {
		return errTargetsMissed
	}

	return nil
}
