package acctest

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-log/tflogtest"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	unikorn "github.com/unikorn-cloud/terraform-provider-unikorn/internal/provider"
)

// RequestLog captures the OpenStack request log (the "openstack" tflog subsystem, where the
// cloud client logs every HTTP request with its method, service and path) of the provider
// under test, separately for each provider configuration, i.e. each provider process of a
// real run (terraform-plugin-testing configures the provider afresh for every CLI command).
// It serves the provider through ProviderFactories; the wrapper intercepts Configure and
// the data sources' Read to hand them a logger that writes into the log, and is otherwise
// transparent (it does not forward optional provider interfaces such as functions, which
// the catalog tests do not use).
//
// The subsystem must log at DEBUG: leave TF_LOG_PROVIDER_UNIKORN_OPENSTACK unset (or set it
// to DEBUG or TRACE).
type RequestLog struct {
	mu   sync.Mutex
	runs []*ProviderRun
	byPD map[any]*ProviderRun
}

// ProviderRun is the log of one provider configuration.
type ProviderRun struct {
	mu    sync.Mutex
	out   bytes.Buffer
	reads int
	// client is the run's cloud client, whose counters count every request of the run (the log
	// holds those made with a context that carries its logger).
	client *cloud.Client
}

// Request is one entry of the request log.
type Request struct {
	Method  string
	Service string
	Path    string
	Status  int
}

// String is "GET image /v2/images".
func (r Request) String() string {
	return fmt.Sprintf("%s %s %s", r.Method, r.Service, r.Path)
}

// NewRequestLog returns an empty log.
func NewRequestLog() *RequestLog {
	return &RequestLog{byPD: map[any]*ProviderRun{}}
}

// ProviderFactories serve the provider under test with its request log captured here.
func (l *RequestLog) ProviderFactories() map[string]func() (tfprotov6.ProviderServer, error) {
	return map[string]func() (tfprotov6.ProviderServer, error){
		"unikorn": providerserver.NewProtocol6WithError(&loggingProvider{Provider: unikorn.New("acctest")(), log: l}),
	}
}

// Runs are the provider configurations so far, in order.
func (l *RequestLog) Runs() []*ProviderRun {
	l.mu.Lock()
	defer l.mu.Unlock()

	return append([]*ProviderRun(nil), l.runs...)
}

// Mark is how many runs there are so far: what Since counts from.
func (l *RequestLog) Mark() int {
	return len(l.Runs())
}

// Since is what the runs after mark cost so far, from their cloud clients' counters (every
// request of the run, its resources' too): the requests, and how many of them were Keystone token
// requests (one per credential scope authenticated).
func (l *RequestLog) Since(mark int) (requests, tokens int64) {
	for _, c := range l.RunsSince(mark) {
		requests += c.Requests
		tokens += c.Tokens
	}

	return requests, tokens
}

// RunsSince are the runs after mark, in order, each with what it cost so far.
func (l *RequestLog) RunsSince(mark int) []RunCost {
	var costs []RunCost

	for _, run := range l.Runs()[mark:] {
		costs = append(costs, run.Cost())
	}

	return costs
}

// TokenBudget is the most Keystone token requests one provider run may make (issue 17: one
// per credential scope it uses: the configured one, the manager, the privileged and the
// identity scope).
const TokenBudget = 4

// TokensOverBudget names the runs after mark that asked for more than TokenBudget tokens; nil
// when none did.
func (l *RequestLog) TokensOverBudget(mark int) error {
	var over []string

	for i, c := range l.RunsSince(mark) {
		if c.Tokens > TokenBudget {
			over = append(over, fmt.Sprintf("run %d: %d tokens", mark+i+1, c.Tokens))
		}
	}

	if len(over) > 0 {
		return fmt.Errorf("provider runs over the budget of %d tokens: %s", TokenBudget, strings.Join(over, ", "))
	}

	return nil
}

// RunCost is what one provider run cost: its requests and how many of them were Keystone
// token requests.
type RunCost struct {
	Requests, Tokens int64
}

// Cost is what the run cost so far, from its cloud client's counters (zero before Configure).
func (r *ProviderRun) Cost() RunCost {
	if r.client == nil {
		return RunCost{}
	}

	return RunCost{Requests: r.client.RequestCount(), Tokens: r.client.TokenCount()}
}

// ByMethod is the run's requests so far by HTTP method (Keystone token requests among the
// POSTs), from its cloud client's counters.
func (r *ProviderRun) ByMethod() map[string]int64 {
	if r.client == nil {
		return nil
	}

	return r.client.RequestCountByMethod()
}

// DataSourceReads is how many data sources were read in this run.
func (r *ProviderRun) DataSourceReads() int {
	r.mu.Lock()
	defer r.mu.Unlock()

	return r.reads
}

// Entries are the run's log entries with the given message, each as its JSON fields.
func (r *ProviderRun) Entries(message string) ([]map[string]any, error) {
	r.mu.Lock()
	raw := bytes.Clone(r.out.Bytes())
	r.mu.Unlock()

	entries, err := tflogtest.MultilineJSONDecode(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("decoding the provider log: %w", err)
	}

	var out []map[string]any

	for _, e := range entries {
		if e["@message"] == message {
			out = append(out, e)
		}
	}

	return out, nil
}

// ByRegion counts the run's log entries with the given message by their region field: what a
// per-region listing logs ("Listed Nova flavors"), since the request log has no region.
func (r *ProviderRun) ByRegion(message string) (map[string]int, error) {
	entries, err := r.Entries(message)
	if err != nil {
		return nil, err
	}

	out := map[string]int{}

	for _, e := range entries {
		region, _ := e["region"].(string)
		out[region]++
	}

	return out, nil
}

// Requests are the OpenStack requests of the run, in order.
func (r *ProviderRun) Requests() ([]Request, error) {
	entries, err := r.Entries("OpenStack API request")
	if err != nil {
		return nil, err
	}

	var out []Request

	for _, e := range entries {

		req := Request{}
		req.Method, _ = e["method"].(string)
		req.Service, _ = e["service"].(string)
		req.Path, _ = e["path"].(string)

		if status, ok := e["status"].(float64); ok {
			req.Status = int(status)
		}

		out = append(out, req)
	}

	return out, nil
}

// Count is how many requests of the run have method and a path ending in pathSuffix.
func (r *ProviderRun) Count(method, pathSuffix string) (int, error) {
	reqs, err := r.Requests()
	if err != nil {
		return 0, err
	}

	n := 0

	for _, req := range reqs {
		if req.Method == method && strings.HasSuffix(req.Path, pathSuffix) {
			n++
		}
	}

	return n, nil
}

func (r *ProviderRun) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()

	return r.out.Write(p)
}

// context returns ctx (deadline and cancellation) with a root provider logger that writes
// into the run instead of the logger terraform-plugin-testing installed.
func (r *ProviderRun) context(ctx context.Context) context.Context {
	return loggerContext{Context: ctx, values: tflogtest.RootLogger(context.Background(), r)}
}

// loggerContext takes its deadline and cancellation from the embedded context and its
// values (the logger) from values: terraform-plugin-testing registers a logging sink in the
// context that would otherwise take precedence over any new root logger.
type loggerContext struct {
	context.Context
	values context.Context
}

func (c loggerContext) Value(key any) any {
	return c.values.Value(key)
}

type loggingProvider struct {
	provider.Provider

	log *RequestLog
}

func (p *loggingProvider) Configure(ctx context.Context, req provider.ConfigureRequest, resp *provider.ConfigureResponse) {
	run := &ProviderRun{}

	p.Provider.Configure(run.context(ctx), req, resp)

	if m, ok := resp.ResourceData.(interface{ Cloud() *cloud.Client }); ok {
		run.client = m.Cloud()
	}

	p.log.mu.Lock()
	defer p.log.mu.Unlock()

	p.log.runs = append(p.log.runs, run)

	if resp.DataSourceData != nil {
		p.log.byPD[resp.DataSourceData] = run
	}
}

func (p *loggingProvider) DataSources(ctx context.Context) []func() datasource.DataSource {
	inner := p.Provider.DataSources(ctx)
	out := make([]func() datasource.DataSource, len(inner))

	for i, newInner := range inner {
		out[i] = func() datasource.DataSource {
			return &loggingDataSource{DataSource: newInner(), log: p.log}
		}
	}

	return out
}

type loggingDataSource struct {
	datasource.DataSource

	log *RequestLog
	run *ProviderRun
}

var (
	_ datasource.DataSourceWithConfigure        = (*loggingDataSource)(nil)
	_ datasource.DataSourceWithConfigValidators = (*loggingDataSource)(nil)
	_ datasource.DataSourceWithValidateConfig   = (*loggingDataSource)(nil)
)

func (d *loggingDataSource) Configure(ctx context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	if req.ProviderData != nil {
		d.log.mu.Lock()
		d.run = d.log.byPD[req.ProviderData]
		d.log.mu.Unlock()
	}

	if c, ok := d.DataSource.(datasource.DataSourceWithConfigure); ok {
		c.Configure(ctx, req, resp)
	}
}

func (d *loggingDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	if d.run != nil {
		d.run.mu.Lock()
		d.run.reads++
		d.run.mu.Unlock()

		ctx = d.run.context(ctx)
	}

	d.DataSource.Read(ctx, req, resp)
}

func (d *loggingDataSource) ConfigValidators(ctx context.Context) []datasource.ConfigValidator {
	if v, ok := d.DataSource.(datasource.DataSourceWithConfigValidators); ok {
		return v.ConfigValidators(ctx)
	}

	return nil
}

func (d *loggingDataSource) ValidateConfig(ctx context.Context, req datasource.ValidateConfigRequest, resp *datasource.ValidateConfigResponse) {
	if v, ok := d.DataSource.(datasource.DataSourceWithValidateConfig); ok {
		v.ValidateConfig(ctx, req, resp)
	}
}

// RequestsSince are the requests per HTTP method between two snapshots of
// cloud.Client.RequestCountByMethod (methods without any left out).
func RequestsSince(before, after map[string]int64) map[string]int64 {
	out := map[string]int64{}

	for m, n := range after {
		if d := n - before[m]; d > 0 {
			out[m] = d
		}
	}

	return out
}

// RunListings counts the per-run listings of kind ("network", "security group", "server", ...)
// that the run took (cloud.Listing, from its cloud client's counters: its resources' and its
// data sources'), by "region project_id": what a look-up or a refresh of many objects of the kind
// in one tenant costs.
func (r *ProviderRun) RunListings(kind string) map[string]int {
	out := map[string]int{}

	if r.client == nil {
		return out
	}

	for key, n := range r.client.RunListings() {
		if rest, ok := strings.CutPrefix(key, kind+" "); ok {
			out[rest] = n
		}
	}

	return out
}
