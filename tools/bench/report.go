package main

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// Row is one phase of one scenario over its repetitions.
type Row struct {
	Scenario, Phase string
	Servers         int
	Memory          bool
	// Timeline asks for the timeline of the median repetition.
	Timeline bool
	Runs     []Run
	// Failed counts the repetitions in which this phase failed (not in Runs).
	Failed int
}

// Spread is the minimum, median and maximum of some numbers.
type Spread struct{ Min, Median, Max float64 }

// SpreadOf is the spread of xs (zero for none). The median of an even count is the mean of
// the two middle values.
func SpreadOf(xs []float64) Spread {
	if len(xs) == 0 {
		return Spread{}
	}

	s := slices.Clone(xs)
	slices.Sort(s)

	mid := len(s) / 2
	median := s[mid]

	if len(s)%2 == 0 {
		median = (s[mid-1] + s[mid]) / 2
	}

	return Spread{Min: s[0], Median: median, Max: s[len(s)-1]}
}

// Format is "min/median/max" with format f for each.
func (s Spread) Format(f string) string {
	return fmt.Sprintf(f+"/"+f+"/"+f, s.Min, s.Median, s.Max)
}

func (r Row) spread(f func(Run) float64) Spread {
	xs := make([]float64, len(r.Runs))
	for i, run := range r.Runs {
		xs[i] = f(run)
	}

	return SpreadOf(xs)
}

// Wall, Requests and Tokens are the row's spreads.
func (r Row) Wall() Spread { return r.spread(func(x Run) float64 { return x.Wall.Seconds() }) }

func (r Row) Requests() Spread {
	return r.spread(func(x Run) float64 { return float64(x.Counts.Requests) })
}

func (r Row) Tokens() Spread {
	return r.spread(func(x Run) float64 { return float64(x.Counts.Tokens) })
}

// Errors is the answers 4xx/5xx (and attempts without an answer, "none") by status, each as
// min/median/max over the repetitions; "-" when there were none.
func (r Row) Errors() string {
	var statuses []int

	for _, run := range r.Runs {
		for st := range run.Counts.ByStatus {
			if !slices.Contains(statuses, st) {
				statuses = append(statuses, st)
			}
		}
	}

	if len(statuses) == 0 {
		return "-"
	}

	slices.Sort(statuses)

	var parts []string

	for _, st := range statuses {
		s := r.spread(func(x Run) float64 { return float64(x.Counts.ByStatus[st]) })

		name := fmt.Sprint(st)
		if st == 0 {
			name = "none"
		}

		parts = append(parts, name+": "+s.Format("%.0f"))
	}

	return strings.Join(parts, ", ")
}

// MedianRun is the repetition whose request count is the median one (for the breakdown).
func (r Row) MedianRun() (Run, bool) {
	if len(r.Runs) == 0 {
		return Run{}, false
	}

	s := slices.Clone(r.Runs)
	slices.SortFunc(s, func(a, b Run) int { return a.Counts.Requests - b.Counts.Requests })

	return s[(len(s)-1)/2], true
}

// MedianWallRun is the repetition whose wall time is the median one (the lower of the two
// middle ones of an even count): the one whose timeline is shown.
func (r Row) MedianWallRun() (Run, bool) {
	if len(r.Runs) == 0 {
		return Run{}, false
	}

	s := slices.Clone(r.Runs)
	slices.SortFunc(s, func(a, b Run) int { return cmp.Compare(a.Wall, b.Wall) })

	return s[(len(s)-1)/2], true
}

// PrintTable writes the table of rows: wall time, requests, tokens and errors as
// min/median/max over the repetitions, the requests per server, and peak memory where asked.
func PrintTable(w io.Writer, rows []Row, reps int) {
	fmt.Fprintf(w, "\n%-15s %-19s %-4s %-22s %-17s %-11s %-15s %-11s %s\n", "scenario", "phase", "runs",
		"wall s (min/med/max)", "requests", "tokens", "per server", "peak RSS", "4xx/5xx by status")

	for _, r := range rows {
		perServer, memory := "", ""

		if r.Servers > 0 && len(r.Runs) > 0 {
			req := r.Requests()
			perServer = fmt.Sprintf("%.1f/%.1f/%.1f", req.Min/float64(r.Servers), req.Median/float64(r.Servers), req.Max/float64(r.Servers))
		}

		if r.Memory && len(r.Runs) > 0 {
			memory = r.spread(func(x Run) float64 { return float64(x.PeakRSS) / 1024 }).Format("%.0f") + " MiB"
		}

		runs := fmt.Sprintf("%d/%d", len(r.Runs), reps)
		if len(r.Runs) == 0 {
			fmt.Fprintf(w, "%-15s %-19s %-4s (failed in every repetition)\n", r.Scenario, r.Phase, runs)
			continue
		}

		fmt.Fprintf(w, "%-15s %-19s %-4s %-22s %-17s %-11s %-15s %-11s %s\n", r.Scenario, r.Phase, runs,
			r.Wall().Format("%.1f"), r.Requests().Format("%.0f"), r.Tokens().Format("%.0f"), perServer, memory, r.Errors())
	}
}

// round is d for a message.
func round(d time.Duration) string { return d.Round(100 * time.Millisecond).String() }

// compact is a spread as "min/median/max" with format f, or one value when all three are equal.
func (s Spread) compact(f string) string {
	if s.Min == s.Max {
		return fmt.Sprintf(f, s.Min)
	}

	return s.Format(f)
}

// PrintChildren writes, under the table, one line per phase that created a load balancer: the
// children phase of its first load balancer (from ACTIVE after the create to its last change
// settled) as min/median/max over the repetitions: listeners created, steps, seconds and seconds
// per step.
func PrintChildren(w io.Writer, rows []Row) {
	for _, r := range rows {
		var listeners, steps, secs, perStep []float64

		for _, run := range r.Runs {
			if len(run.Children) == 0 {
				continue
			}

			c := run.Children[0]
			listeners = append(listeners, float64(run.Listeners))
			steps = append(steps, float64(c.Steps))
			secs = append(secs, c.Duration().Seconds())

			if c.Steps > 0 {
				perStep = append(perStep, c.PerStep())
			}
		}

		if len(steps) == 0 {
			continue
		}

		per := "no step"
		if len(perStep) > 0 {
			per = SpreadOf(perStep).compact("%.2f") + " s/step"
		}

		fmt.Fprintf(w, "%-15s %-19s lb children: %s listeners, %s steps, %s s, %s (%d of %d repetitions)\n", r.Scenario, r.Phase,
			SpreadOf(listeners).compact("%.0f"), SpreadOf(steps).compact("%.0f"), SpreadOf(secs).compact("%.1f"), per,
			len(steps), len(r.Runs))
	}
}

// Ratio is a scenario's first phase's wall time over its baseline's.
type Ratio struct {
	Scenario, Baseline, Phase string
	// Ratios are the paired repetitions' ratios (empty when not paired).
	Ratios []float64
	// OfMedians is the ratio of the two medians.
	OfMedians float64
}

// Ratios is, per scenario with a baseline (both in rows), the ratio of their first phases' wall
// times: of the repetitions of the same number when paired (both succeeded), and of the medians.
func Ratios(scenarios []Scenario, rows []Row, paired map[string]bool) []Ratio {
	find := func(scenario, phase string) (Row, bool) {
		for _, r := range rows {
			if r.Scenario == scenario && r.Phase == phase {
				return r, true
			}
		}

		return Row{}, false
	}

	var out []Ratio

	for _, s := range scenarios {
		if s.Baseline == "" || len(s.Phases) == 0 {
			continue
		}

		phase := s.Phases[0].Label

		r, ok1 := find(s.Name, phase)
		base, ok2 := find(s.Baseline, phase)

		if !ok1 || !ok2 || len(r.Runs) == 0 || len(base.Runs) == 0 {
			continue
		}

		ratio := Ratio{Scenario: s.Name, Baseline: s.Baseline, Phase: phase, OfMedians: r.Wall().Median / base.Wall().Median}

		if paired[s.Name] {
			for _, run := range r.Runs {
				for _, b := range base.Runs {
					if b.Rep == run.Rep {
						ratio.Ratios = append(ratio.Ratios, run.Wall.Seconds()/b.Wall.Seconds())
					}
				}
			}
		}

		out = append(out, ratio)
	}

	return out
}

// PrintRatios writes the ratios, last in the report.
func PrintRatios(w io.Writer, scenarios []Scenario, rows []Row, paired map[string]bool) {
	for _, r := range Ratios(scenarios, rows, paired) {
		fmt.Fprintf(w, "\n%s %s / %s %s = ", r.Scenario, r.Phase, r.Baseline, r.Phase)

		if len(r.Ratios) > 0 {
			fmt.Fprintf(w, "%s (min/median/max of %d paired repetitions; ratio of the medians %.2f)\n",
				SpreadOf(r.Ratios).Format("%.2f"), len(r.Ratios), r.OfMedians)
		} else {
			fmt.Fprintf(w, "%.2f (ratio of the medians; the repetitions were not paired)\n", r.OfMedians)
		}
	}
}
