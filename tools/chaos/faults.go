package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"time"
)

// ProxyStats is the part of tools/faultproxy's stats the report uses.
type ProxyStats struct {
	Requests          map[string]int            `json:"requests"`
	RequestsByService map[string]int            `json:"requests_by_service"`
	Faulted           map[string]map[string]int `json:"faulted"`
}

// Minus is s minus an earlier snapshot: what happened in between.
func (s ProxyStats) Minus(before ProxyStats) ProxyStats {
	out := ProxyStats{Requests: map[string]int{}, RequestsByService: map[string]int{}, Faulted: map[string]map[string]int{}}

	for m, n := range s.Requests {
		out.Requests[m] = n - before.Requests[m]
	}

	for m, n := range s.RequestsByService {
		out.RequestsByService[m] = n - before.RequestsByService[m]
	}

	for k, byMethod := range s.Faulted {
		out.Faulted[k] = map[string]int{}
		for m, n := range byMethod {
			out.Faulted[k][m] = n - before.Faulted[k][m]
		}
	}

	return out
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}

	return n
}

func byMethod(m map[string]int) string {
	keys := make([]string, 0, len(m))

	for k, v := range m {
		if v != 0 {
			keys = append(keys, k)
		}
	}

	sort.Strings(keys)

	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}

	return strings.Join(parts, ", ")
}

// Faulted formats the faulted counts by kind and method.
func (s ProxyStats) FaultedText() string {
	var parts []string

	for _, k := range []string{"fail", "reset", "drop"} {
		if n := sum(s.Faulted[k]); n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d (%s)", k, n, byMethod(s.Faulted[k])))
		}
	}

	if len(parts) == 0 {
		return "none"
	}

	return strings.Join(parts, ", ")
}

// Total is the number of faulted requests.
func (s ProxyStats) Total() int {
	n := 0
	for _, m := range s.Faulted {
		n += sum(m)
	}

	return n
}

// faultFlags are the proxy's fault settings, passed through.
type faultFlags struct {
	fail, reset, drop                      float64
	failMethods, resetMethods, dropMethods string
	faultTokens                            bool
}

func (f faultFlags) args(seed uint64) []string {
	return []string{
		"-seed", fmt.Sprint(seed),
		"-fail", fmt.Sprint(f.fail), "-fail-methods", f.failMethods,
		"-reset", fmt.Sprint(f.reset), "-reset-methods", f.resetMethods,
		"-drop-after", fmt.Sprint(f.drop), "-drop-methods", f.dropMethods,
		fmt.Sprintf("-fault-tokens=%v", f.faultTokens),
	}
}

func (f faultFlags) String() string {
	var parts []string

	add := func(what string, rate float64, methods string) {
		if rate <= 0 {
			return
		}

		if methods == "" {
			methods = "all methods"
		}

		parts = append(parts, fmt.Sprintf("%s %.1f%% of %s", what, 100*rate, methods))
	}

	add("502/503", f.fail, f.failMethods)
	add("reset before", f.reset, f.resetMethods)
	add("answer dropped after", f.drop, f.dropMethods)

	if len(parts) == 0 {
		return "no faults"
	}

	s := strings.Join(parts, ", ")
	if f.faultTokens {
		s += " (token requests too)"
	}

	return fmt.Sprintf("%s; %.1f%% in all", s, 100*(f.fail+f.reset+f.drop))
}

// FaultRow is one fault run.
type FaultRow struct {
	Run       int
	Seed      uint64
	Name      string
	Applies   int
	Converged bool
	Twins     []string
	Missing   []string
	After     Aftermath
	Apply     ProxyStats // faults during the applies and plans
	Destroy   ProxyStats // faults during the destroys
	Errors    []string
	Err       error
}

// Pass tells a run that met the targets: converged in wantApplies, destroyed in wantDestroys,
// no twin, no orphan.
func (r FaultRow) Pass(wantApplies, wantDestroys int) bool {
	return r.Err == nil && r.Converged && r.Applies <= wantApplies && r.After.Destroyed &&
		r.After.Destroys <= wantDestroys && len(r.Twins) == 0 && len(r.Missing) == 0 && len(r.After.Orphans) == 0
}

func runFaults(ctx context.Context, args []string) error {
	var (
		c common
		f faultFlags
	)

	fs := flag.NewFlagSet("chaos faults", flag.ContinueOnError)
	c.register(fs)
	fs.Float64Var(&f.fail, "fail", 0, "rate of requests answered 502/503 by the proxy")
	fs.StringVar(&f.failMethods, "fail-methods", "", "methods -fail applies to (empty: all)")
	fs.Float64Var(&f.reset, "reset", 0, "rate of connections reset before the request reaches the service")
	fs.StringVar(&f.resetMethods, "reset-methods", "", "methods -reset applies to (empty: all)")
	fs.Float64Var(&f.drop, "drop-after", 0, "rate of answers dropped after the service processed the request")
	fs.StringVar(&f.dropMethods, "drop-methods", "", "methods -drop-after applies to (empty: all)")
	fs.BoolVar(&f.faultTokens, "fault-tokens", false, "let faults hit /v3/auth/tokens too")
	runs := fs.Int("runs", 1, "runs, with seeds seed, seed+1, ...")
	wantApplies := fs.Int("want-applies", 1, "target: converged in at most this many applies")
	wantDestroys := fs.Int("want-destroys", 1, "target: destroyed in at most this many attempts")

	cl, err := c.parse(ctx, fs, args)
	if err != nil {
		return err
	}

	fmt.Printf("fault runs: %d, faults: %s; up to %d applies and %d destroys each\n", *runs, f, c.maxApplies, c.maxDestroys)

	var rows []FaultRow

	for i := 1; i <= *runs && ctx.Err() == nil; i++ {
		row := FaultRow{Run: i, Seed: c.seed + uint64(i-1), Name: trialName()}

		err := c.locked(func() error { return c.faultRun(ctx, cl, &row, f, c.faultproxy) })
		if err != nil {
			row.Err = err
		}

		rows = append(rows, row)
		printFaultRow(row)
	}

	pass := 0

	fmt.Printf("\n%-4s %-5s %-21s %-9s %-9s %-9s %-5s %-7s %-9s %s\n", "run", "seed", "name", "requests", "faulted", "applies", "twins", "orphans", "destroys", "faulted by kind")

	for _, r := range rows {
		total := ProxyStats{Requests: map[string]int{}, Faulted: map[string]map[string]int{}}
		for m, n := range r.Apply.Requests {
			total.Requests[m] += n
		}

		for m, n := range r.Destroy.Requests {
			total.Requests[m] += n
		}

		for _, s := range []ProxyStats{r.Apply, r.Destroy} {
			for k, bm := range s.Faulted {
				if total.Faulted[k] == nil {
					total.Faulted[k] = map[string]int{}
				}

				for m, n := range bm {
					total.Faulted[k][m] += n
				}
			}
		}

		applies := fmt.Sprint(r.Applies)
		if !r.Converged {
			applies = fmt.Sprintf(">%d", r.Applies)
		}

		destroys := fmt.Sprint(r.After.Destroys)
		if !r.After.Destroyed {
			destroys = fmt.Sprintf(">%d", r.After.Destroys)
		}

		fmt.Printf("%-4d %-5d %-21s %-9d %-9d %-9s %-5d %-7d %-9s %s\n", r.Run, r.Seed, r.Name, sum(total.Requests), total.Total(),
			applies, len(r.Twins), len(r.After.Orphans), destroys, total.FaultedText())

		if r.Pass(*wantApplies, *wantDestroys) {
			pass++
		}
	}

	fmt.Printf("summary: %d/%d runs met the targets (converged in <= %d apply, destroyed in <= %d attempt, 0 twins, 0 orphans)\n",
		pass, len(rows), *wantApplies, *wantDestroys)

	if pass != *runs {
		return errTargetsMissed
	}

	return nil
}

var authURL = regexp.MustCompile(`(?m)^(\s*auth_url:\s*)"?http://(127\.0\.0\.1:[0-9]+)([^"\s]*)"?[ \t]*$`)

// ProxiedCloudsYAML points every auth_url of a clouds.yaml at the proxy (keeping the path) and
// returns the Keystone they pointed at (they must agree).
func ProxiedCloudsYAML(in []byte, proxy string) ([]byte, string, error) {
	upstream := ""

	for _, m := range authURL.FindAllSubmatch(in, -1) {
		if upstream != "" && upstream != string(m[2]) {
			return nil, "", fmt.Errorf("clouds.yaml names two Keystones, %s and %s", upstream, m[2])
		}

		upstream = string(m[2])
	}

	if upstream == "" {
		return nil, "", fmt.Errorf("no auth_url http://127.0.0.1:PORT... in clouds.yaml")
	}

	return authURL.ReplaceAll(in, []byte("${1}http://"+proxy+"${3}")), upstream, nil
}

// startProxy runs the fault proxy in front of upstream (a process group of its own, stopped
// by its PID) and returns its address.
func startProxy(ctx context.Context, bin, dir, upstream string, f faultFlags, seed uint64) (*exec.Cmd, string, error) {
	addrFile := filepath.Join(dir, "faultproxy.addr")
	_ = os.Remove(addrFile)

	logf, err := os.Create(filepath.Join(dir, "faultproxy.log"))
	if err != nil {
		return nil, "", err
	}

	args := append(f.args(seed), "-upstream", upstream, "-addr-file", addrFile,
		"-stats", filepath.Join(dir, "faultproxy-stats.json"), "-lifetime", "3h")

	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}

	if err := cmd.Start(); err != nil {
		logf.Close()

		return nil, "", err
	}

	go func() { _ = cmd.Wait(); logf.Close() }()

	for i := 0; i < 100 && ctx.Err() == nil; i++ {
		if b, err := os.ReadFile(addrFile); err == nil && len(b) > 0 {
			return cmd, strings.TrimSpace(string(b)), nil
		}

		time.Sleep(100 * time.Millisecond)
	}

	_ = cmd.Process.Kill()

	return nil, "", fmt.Errorf("the fault proxy did not start (see %s)", logf.Name())
}

func proxyStats(ctx context.Context, addr string) (ProxyStats, error) {
	var s ProxyStats

	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()

	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/_faultproxy/stats", nil)
	if err != nil {
		return s, err
	}

	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return s, err
	}
	defer resp.Body.Close()

	return s, json.NewDecoder(resp.Body).Decode(&s)
}

// faultRun applies the stack through the proxy until converged, checks twins, destroys
// through the proxy, checks orphans.
func (c *common) faultRun(ctx context.Context, cl *Cloud, row *FaultRow, f faultFlags, bin string) error {
	direct, err := c.workspace(row.Name, c.cloudsYAML)
	if err != nil {
		return err
	}

	direct.Label = "cleanup-"

	in, err := os.ReadFile(c.cloudsYAML)
	if err != nil {
		return err
	}

	_, upstream, err := ProxiedCloudsYAML(in, "127.0.0.1:1")
	if err != nil {
		return err
	}

	proxy, addr, err := startProxy(ctx, bin, direct.Dir, upstream, f, row.Seed)
	if err != nil {
		return err
	}

	defer func() { _ = proxy.Process.Signal(syscall.SIGTERM) }()

	out, _, err := ProxiedCloudsYAML(in, addr)
	if err != nil {
		return err
	}

	proxied := filepath.Join(direct.Dir, "clouds.yaml")
	if err := os.WriteFile(proxied, out, 0o600); err != nil {
		return err
	}

	ws, err := c.workspace(row.Name, proxied)
	if err != nil {
		return err
	}

	row.Applies, row.Converged, row.Errors, err = ws.Converge(ctx, c.maxApplies, c.applyTimeout)
	if err != nil {
		return err
	}

	afterApply, err := proxyStats(ctx, addr)
	if err != nil {
		return fmt.Errorf("proxy stats: %w", err)
	}

	row.Apply = afterApply.Minus(ProxyStats{})

	inv, err := cl.Inventory(ctx, Scope{Name: row.Name})
	if err != nil {
		return fmt.Errorf("twin check: %w", err)
	}

	v := Twins(row.Name, inv)
	row.Twins, row.Missing = v.Twins, v.Missing

	row.After, err = c.destroyAndCheck(ctx, cl, ws, direct, c.maxDestroys, v)
	row.Errors = append(row.Errors, row.After.Errors...)

	if end, serr := proxyStats(ctx, addr); serr == nil {
		row.Destroy = end.Minus(afterApply)
	}

	return err
}

func printFaultRow(r FaultRow) {
	fmt.Printf("\nrun %d (seed %d, %s):\n", r.Run, r.Seed, r.Name)

	if r.Err != nil {
		fmt.Printf("  trial error: %v\n", r.Err)
	}

	fmt.Printf("  requests: apply phase %d (%s), destroy phase %d (%s)\n",
		sum(r.Apply.Requests), byMethod(r.Apply.Requests), sum(r.Destroy.Requests), byMethod(r.Destroy.Requests))
	fmt.Printf("  requests by service (apply phase): %s\n", byMethod(r.Apply.RequestsByService))
	fmt.Printf("  faulted: apply phase %d: %s; destroy phase %d: %s\n",
		r.Apply.Total(), r.Apply.FaultedText(), r.Destroy.Total(), r.Destroy.FaultedText())

	if r.Converged {
		fmt.Printf("  applies needed: %d\n", r.Applies)
	} else {
		fmt.Printf("  applies needed: not converged in %d\n", r.Applies)
	}

	fmt.Printf("  twins: %d %s\n", len(r.Twins), strings.Join(r.Twins, " | "))

	if len(r.Missing) > 0 {
		fmt.Printf("  missing after apply: %s\n", strings.Join(r.Missing, ", "))
	}

	state := "ok"
	if !r.After.Destroyed {
		state = "never succeeded"
	}

	fmt.Printf("  destroy attempts: %d (%s)\n", r.After.Destroys, state)
	fmt.Printf("  orphans: %d %s\n", len(r.After.Orphans), names(r.After.Orphans))

	if len(r.After.Leftovers) > 0 {
		fmt.Printf("  left after clean-up destroys: %s\n", names(r.After.Leftovers))
	}

	for _, e := range r.Errors {
		fmt.Printf("  error: %s\n", e)
	}
}
