package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"
)

// Span is one resource's change in an apply, from the CLI's machine-readable output (-json):
// from its "apply_start" to its "apply_complete" (or "apply_errored").
type Span struct {
	Addr, Action string
	Start, End   time.Time
	Errored      bool
}

// uiLine is the part of a line of the CLI's -json output the bench reads.
type uiLine struct {
	Timestamp string `json:"@timestamp"`
	Type      string `json:"type"`
	Hook      struct {
		Resource struct {
			Addr string `json:"addr"`
		} `json:"resource"`
		Action string `json:"action"`
	} `json:"hook"`
	Diagnostic struct {
		Severity, Summary string
	} `json:"diagnostic"`
	Changes struct {
		Operation string `json:"operation"`
	} `json:"changes"`
}

// planAddr names the span of the plan an apply makes first: from the CLI's first line (its
// version) to the plan's change summary.
const planAddr = "(plan)"

// ParseTimeline reads the spans of the resources' changes out of the CLI's -json output (lines
// of other types, and lines that are not JSON, are skipped), in the order they started, and the
// plan's (planAddr) when the output shows it. A change that never finished keeps a zero End.
func ParseTimeline(r io.Reader) ([]Span, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)

	var (
		spans []*Span
		open  = map[string]*Span{} // by address and action
		first time.Time
	)

	for sc.Scan() {
		var l uiLine
		if !strings.HasPrefix(sc.Text(), "{") || json.Unmarshal(sc.Bytes(), &l) != nil {
			continue
		}

		if first.IsZero() {
			first, _ = time.Parse(time.RFC3339Nano, l.Timestamp)
		}

		if l.Type == "change_summary" && l.Changes.Operation == "plan" && !first.IsZero() {
			if end, err := time.Parse(time.RFC3339Nano, l.Timestamp); err == nil {
				spans = append(spans, &Span{Addr: planAddr, Start: first, End: end})
			}

			continue
		}

		if l.Type != "apply_start" && l.Type != "apply_complete" && l.Type != "apply_errored" {
			continue
		}

		at, err := time.Parse(time.RFC3339Nano, l.Timestamp)
		if err != nil {
			return nil, fmt.Errorf("a %s line without a time: %q", l.Type, sc.Text())
		}

		addr := l.Hook.Resource.Addr
		if addr == "" {
			return nil, fmt.Errorf("a %s line without a resource address: %q", l.Type, sc.Text())
		}

		key := addr + " " + l.Hook.Action

		if l.Type == "apply_start" {
			s := &Span{Addr: addr, Action: l.Hook.Action, Start: at}
			spans = append(spans, s)
			open[key] = s

			continue
		}

		s, ok := open[key]
		if !ok {
			return nil, fmt.Errorf("%s of %s (%s) without its apply_start", l.Type, addr, l.Hook.Action)
		}

		s.End, s.Errored = at, l.Type == "apply_errored"
		delete(open, key)
	}

	out := make([]Span, len(spans))
	for i, s := range spans {
		out[i] = *s
	}

	slices.SortStableFunc(out, func(a, b Span) int { return a.Start.Compare(b.Start) })

	return out, sc.Err()
}

// jsonError is the summary of the first error diagnostic of a -json output line ("" if none).
func jsonError(line string) string {
	var l uiLine
	if !strings.HasPrefix(line, "{") || json.Unmarshal([]byte(line), &l) != nil {
		return ""
	}

	if l.Type == "diagnostic" && l.Diagnostic.Severity == "error" {
		return "Error: " + l.Diagnostic.Summary
	}

	return ""
}

// The provider's messages that bound a load balancer's children phase (internal/loadbalancer,
// DEBUG, field loadbalancer_id): from the load balancer ACTIVE after its create to the last of
// its changes settled (listeners, pools, members, monitors, one after another).
const (
	activeMessage  = "Load balancer ACTIVE after create"
	settledMessage = "Load balancer change settled"
)

// ChildrenPhase is one load balancer's children phase in an apply.
type ChildrenPhase struct {
	LoadBalancerID string
	// Active is when the load balancer was ACTIVE after its create; Last when its last change
	// settled (Active when none did).
	Active, Last time.Time
	// Steps counts its changes settled after Active.
	Steps int
	// request is the tf_req_id of the create (the RPC it ran in; "" when not logged).
	request string
}

// Duration is the phase's length.
func (c ChildrenPhase) Duration() time.Duration { return c.Last.Sub(c.Active) }

// PerStep is the phase's mean time per step in seconds (NaN without steps).
func (c ChildrenPhase) PerStep() float64 {
	if c.Steps == 0 {
		return math.NaN()
	}

	return c.Duration().Seconds() / float64(c.Steps)
}

// ParseChildrenPhases reads the load balancers' children phases out of a provider log (hclog's
// text format, as ParseRequestLog), in the order the load balancers became ACTIVE. A change
// settled counts when it is of the same load balancer, after its ACTIVE, and in the same
// request (tf_req_id) as the ACTIVE when both lines carry one: the changes of the create itself,
// not those of another resource (unikorn_loadbalancer_members) or a later command.
func ParseChildrenPhases(r io.Reader) ([]ChildrenPhase, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)

	var (
		phases []*ChildrenPhase
		byID   = map[string]*ChildrenPhase{}
	)

	for sc.Scan() {
		line := sc.Text()

		active, fields := messageFields(line, activeMessage)
		settled := false

		if !active {
			if settled, fields = messageFields(line, settledMessage); !settled {
				continue
			}
		}

		id := fields["loadbalancer_id"]
		if id == "" {
			return nil, fmt.Errorf("a load balancer log line without loadbalancer_id: %q", line)
		}

		at, ok := logTime(line, fields)
		if !ok {
			return nil, fmt.Errorf("a load balancer log line without a time: %q", line)
		}

		if active {
			p := &ChildrenPhase{LoadBalancerID: id, Active: at, Last: at, request: fields["tf_req_id"]}
			phases = append(phases, p)
			byID[id] = p

			continue
		}

		p, ok := byID[id]
		if !ok || at.Before(p.Active) {
			continue
		}

		if req := fields["tf_req_id"]; p.request != "" && req != "" && req != p.request {
			continue
		}

		p.Steps++
		if at.After(p.Last) {
			p.Last = at
		}
	}

	out := make([]ChildrenPhase, len(phases))
	for i, p := range phases {
		out[i] = *p
	}

	return out, sc.Err()
}

// messageFields tells whether line is a log line of message (followed by its fields, or by
// nothing) and returns its fields.
func messageFields(line, message string) (bool, map[string]string) {
	i := strings.Index(line, message)
	if i < 0 {
		return false, nil
	}

	rest := line[i+len(message):]
	if rest != "" && rest[0] != ':' {
		return false, nil
	}

	return true, parseFields(strings.TrimPrefix(rest, ":"))
}

// logTimeLayout is hclog's time format.
const logTimeLayout = "2006-01-02T15:04:05.000Z0700"

// logTime is when a provider log line was written: its field timestamp (the provider's own
// clock, which the CLI's plugin client passes on) or else the time that starts the line.
func logTime(line string, fields map[string]string) (time.Time, bool) {
	parse := func(s string) (time.Time, bool) {
		for _, layout := range []string{logTimeLayout, time.RFC3339Nano} {
			if t, err := time.Parse(layout, s); err == nil {
				return t, true
			}
		}

		return time.Time{}, false
	}

	if t, ok := parse(fields["timestamp"]); ok {
		return t, true
	}

	first, _, _ := strings.Cut(line, " ")

	return parse(first)
}

// timelineBar is the width of a timeline's bars.
const timelineBar = 40

// WriteTimeline writes one run's timeline: a line per resource change with its start and finish
// in seconds from the command's start (start), a bar over the command's wall time, and under the
// load balancer its children phase.
func WriteTimeline(w io.Writer, title string, start time.Time, wall time.Duration, spans []Span, children []ChildrenPhase) {
	fmt.Fprintf(w, "%s: seconds from the command's start, wall %.1f s\n", title, wall.Seconds())

	sec := func(t time.Time) float64 { return t.Sub(start).Seconds() }

	width := 0
	for _, s := range spans {
		width = max(width, len(label(s)))
	}

	width = max(width, len("  children phase"))

	bar := func(from, to float64) string {
		col := func(x float64) int {
			c := int(math.Round(x / wall.Seconds() * timelineBar))
			return min(max(c, 0), timelineBar)
		}

		a, b := col(from), col(to)
		if b <= a {
			b = min(a+1, timelineBar)
			a = b - 1
		}

		return "|" + strings.Repeat(" ", a) + strings.Repeat("#", b-a) + strings.Repeat(" ", timelineBar-b) + "|"
	}

	for _, s := range spans {
		end, note := s.End, ""

		switch {
		case s.End.IsZero():
			end, note = start.Add(wall), "  unfinished"
		case s.Errored:
			note = "  FAILED"
		}

		fmt.Fprintf(w, "  %-*s %6.1f → %6.1f  %s%s\n", width, label(s), sec(s.Start), sec(end), bar(sec(s.Start), sec(end)), note)

		if !strings.HasPrefix(s.Addr, "unikorn_loadbalancer.") {
			continue
		}

		for _, c := range children {
			if c.Active.Before(s.Start) || (!s.End.IsZero() && c.Active.After(s.End)) {
				continue
			}

			fmt.Fprintf(w, "  %-*s %6.1f → %6.1f  %s  %s\n", width, "  children phase", sec(c.Active), sec(c.Last),
				bar(sec(c.Active), sec(c.Last)), childrenNote(c))
		}
	}
}

// label is a span's name in a timeline: its address, and its action when not a create.
func label(s Span) string {
	if s.Action == "" || s.Action == "create" {
		return s.Addr
	}

	return s.Addr + " (" + s.Action + ")"
}

func childrenNote(c ChildrenPhase) string {
	if c.Steps == 0 {
		return "no step"
	}

	return fmt.Sprintf("%d steps, %.2f s/step", c.Steps, c.PerStep())
}
