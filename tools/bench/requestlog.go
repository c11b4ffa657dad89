package main

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// requestMessage is the message of the provider's request log: the cloud client logs every
// HTTP attempt with it (internal/cloud/transport.go, tflog subsystem "openstack", DEBUG), with
// the fields method, service, region, path and status (0: no answer).
const requestMessage = "OpenStack API request:"

// Request is one entry of the provider's request log.
type Request struct {
	Method, Service, Path string
	Status                int
	// Process numbers the provider process that sent it, from 1 in the order the CLI started
	// them (an apply starts one to plan and one to apply).
	Process int
}

// startMessage is the CLI's log line for each provider process it starts.
const startMessage = "provider: starting plugin:"

// IsToken tells a Keystone token request: one authentication of a credential scope.
func (r Request) IsToken() bool {
	return r.Method == "POST" && strings.HasSuffix(strings.TrimSuffix(r.Path, "/"), "/auth/tokens")
}

// ParseRequestLog reads the requests out of a CLI log written with TF_LOG_PROVIDER=DEBUG and
// TF_LOG_PATH: the lines of the provider's "openstack" subsystem, in hclog's text format
// (`... OpenStack API request: key=value key="quoted value" ...`).
func ParseRequestLog(r io.Reader) ([]Request, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)

	var (
		out     []Request
		process int
	)

	for sc.Scan() {
		line := sc.Text()

		if strings.Contains(line, startMessage) {
			process++
			continue
		}

		i := strings.Index(line, requestMessage)
		if i < 0 {
			continue
		}

		fields := parseFields(line[i+len(requestMessage):])
		req := Request{Method: fields["method"], Service: fields["service"], Path: fields["path"], Process: process}
		req.Status, _ = strconv.Atoi(fields["status"])

		if req.Method == "" || req.Path == "" {
			return nil, fmt.Errorf("a request log line without method or path: %q", line)
		}

		out = append(out, req)
	}

	return out, sc.Err()
}

// parseFields reads hclog's `key=value` pairs; a value is bare (up to the next space) or a
// Go-quoted string.
func parseFields(s string) map[string]string {
	out := map[string]string{}

	for {
		s = strings.TrimLeft(s, " ")
		if s == "" {
			return out
		}

		eq := strings.IndexByte(s, '=')
		if eq < 0 {
			return out
		}

		key := s[:eq]
		s = s[eq+1:]

		var value string

		if strings.HasPrefix(s, `"`) {
			quoted, err := strconv.QuotedPrefix(s)
			if err != nil {
				return out
			}

			value, _ = strconv.Unquote(quoted)
			s = s[len(quoted):]
		} else {
			end := strings.IndexByte(s, ' ')
			if end < 0 {
				end = len(s)
			}

			value, s = s[:end], s[end:]
		}

		out[key] = value
	}
}

// Counts is what one CLI run cost in requests.
type Counts struct {
	Requests int
	Tokens   int
	// RunTokens is the most tokens one provider process asked for.
	RunTokens int
	// ByStatus counts the answers 4xx and 5xx, and the attempts without an answer (status 0).
	ByStatus map[int]int
	// ByCall counts the requests per call (method, service and path with IDs replaced by {id}).
	ByCall map[string]int
}

// Count sums a run's requests.
func Count(reqs []Request) Counts {
	c := Counts{Requests: len(reqs), ByStatus: map[int]int{}, ByCall: map[string]int{}}
	perRun := map[int]int{}

	for _, r := range reqs {
		if r.IsToken() {
			c.Tokens++
			perRun[r.Process]++
			c.RunTokens = max(c.RunTokens, perRun[r.Process])
		}

		if r.Status >= 400 || r.Status == 0 {
			c.ByStatus[r.Status]++
		}

		c.ByCall[fmt.Sprintf("%-6s %-13s %s", r.Method, r.Service, CallPath(r.Path))]++
	}

	return c
}

var idPattern = regexp.MustCompile(`[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}`)

// CallPath is path with every ID (a UUID, dashed or not) replaced by {id}.
func CallPath(path string) string {
	return idPattern.ReplaceAllString(path, "{id}")
}

// Breakdown is the calls of c, most frequent first, one per line.
func (c Counts) Breakdown() string {
	type call struct {
		name string
		n    int
	}

	calls := make([]call, 0, len(c.ByCall))
	for name, n := range c.ByCall {
		calls = append(calls, call{name, n})
	}

	sort.Slice(calls, func(i, j int) bool {
		if calls[i].n != calls[j].n {
			return calls[i].n > calls[j].n
		}

		return calls[i].name < calls[j].name
	})

	var b strings.Builder
	for _, cl := range calls {
		fmt.Fprintf(&b, "%6d  %s\n", cl.n, cl.name)
	}

	return b.String()
}
