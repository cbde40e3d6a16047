package suites

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/onsi/ginkgo/v2/formatter"
	gtypes "github.com/onsi/ginkgo/v2/types"
	"github.com/onsi/gomega/format"

	"github.com/v4cert/v4cert/proxy"
	"github.com/v4cert/v4cert/reports"
	"github.com/v4cert/v4cert/suites/workerhost"
)

// WorkerCommand is the hidden command under which `v4cert certify` runs
// itself as a worker: `v4cert __certify-worker`, configured by workerEnv.
const WorkerCommand = "__certify-worker"

// workerEnv carries a worker's configuration (JSON, the token included): the
// environment, not argv, so other users of the machine cannot read it in ps.
const workerEnv = "V4CERT_CERTIFY_WORKER"

// workerConfig is what one worker process needs to run its share of the specs.
type workerConfig struct {
	Proc        int           `json:"proc"`
	Total       int           `json:"total"`
	Host        string        `json:"host"`
	Target      string        `json:"target"`
	Token       string        `json:"token"`
	LabelFilter string        `json:"label_filter"`
	Profile     string        `json:"profile,omitempty"`
	Seed        int64         `json:"seed"`
	Timeout     time.Duration `json:"timeout"`
	FailFast    bool          `json:"fail_fast"`
	ViaProxy    bool          `json:"via_proxy"`
	Shard       reports.Shard `json:"shard"`
	RateLimit   int           `json:"rate_limit,omitempty"`
	Retry429    int           `json:"retry_429,omitempty"`
}

// worker is this process's state when it is a certify worker; nil otherwise
// (under go test and the ginkgo CLI the nodes below do nothing).
var worker atomic.Pointer[workerState]

type workerState struct {
	cfg      workerConfig
	proxy    *proxy.Proxy
	proxyURL *url.URL
	proxySet sync.Once
	gate     http.Client
	drained  atomic.Bool // the host said so once: it never undrains
}

// gateHold bounds how long a spec waits at the gate: longer than certify's
// probe of the target can take (probeAttempts × probeTimeout and the gaps),
// so a paused run resumes or drains first; past it the spec runs, as it
// would without the gate.
const gateHold = 2 * time.Minute

// passGate asks the host, before the spec starts, whether certify paused the
// run (it is probing a target that stopped answering) or drained it (the
// target is down). The counter holds back the groups not yet handed out;
// this holds the specs left in a group already handed out (an Ordered
// container), which would otherwise each error at once on a dead target.
// Any trouble reaching the host opens the gate: it only ever saves errors,
// it must never keep a spec from running. An interruption (SIGTERM cancels
// ctx) ends the wait at once.
//
// A spec it holds carries EntryHeld: certify drains the host and then
// signals the workers, and the signal may interrupt the spec before its Skip
// lands; the report counts such a spec as not run all the same.
func (w *workerState) passGate(ctx SpecContext) (start bool) {
	held := func() bool {
		AddReportEntry(reports.EntryHeld, ReportEntryVisibilityNever, true)
		return false
	}
	if w.drained.Load() {
		return held()
	}
	wait, cancel := context.WithTimeout(ctx, gateHold)
	defer cancel()
	req, err := http.NewRequestWithContext(wait, http.MethodGet, w.cfg.Host+workerhost.GatePath, nil)
	if err != nil {
		return true
	}
	res, err := w.gate.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return held() // interrupted while it waited
		}
		return true
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if res.StatusCode == workerhost.GateDrained {
		w.drained.Store(true)
		return held()
	}
	return true
}

// RunWorker runs this process's share of a certify run and returns its exit
// status. The parent (Certify) reads the results from the parallel host, not
// from the exit status, which only says whether the worker itself got going.
func RunWorker() int {
	var cfg workerConfig
	if err := json.Unmarshal([]byte(os.Getenv(workerEnv)), &cfg); err != nil {
		fmt.Fprintf(os.Stderr, "v4cert %s: %s: %v (this command is run by v4cert certify)\n", WorkerCommand, workerEnv, err)
		return 2
	}
	os.Unsetenv(workerEnv)
	// The gate is the host's, on loopback: never through a proxy.
	w := &workerState{cfg: cfg, gate: http.Client{Transport: &http.Transport{}}}
	if cfg.ViaProxy {
		if err := w.startProxy(cfg.Target); err != nil {
			fmt.Fprintln(os.Stderr, "v4cert certify:", err)
			return 2
		}
	}
	worker.Store(w)

	// The suites read their target from the environment (see TargetFromEnv);
	// traceability is reported rule by rule (not covered) instead of failing the run.
	os.Setenv("V4CERT_TARGET", cfg.Target)
	os.Setenv("V4CERT_TOKEN", cfg.Token)
	os.Setenv("V4CERT_NO_TRACE", "1")
	os.Setenv(profileEnv, cfg.Profile)
	if cfg.RateLimit > 0 {
		os.Setenv("V4CERT_RATE_LIMIT", strconv.Itoa(cfg.RateLimit))
	}
	RateLimitRetries.Store(int32(cfg.Retry429))
	os.Setenv("GINKGO_PARALLEL_PROTOCOL", workerhost.Protocol)

	suiteConfig, reporterConfig := GinkgoConfiguration()
	suiteConfig.RandomSeed = cfg.Seed
	suiteConfig.RandomizeAllSpecs = true
	suiteConfig.LabelFilter = cfg.LabelFilter
	suiteConfig.Timeout = cfg.Timeout
	suiteConfig.FailFast = cfg.FailFast
	suiteConfig.ParallelProcess, suiteConfig.ParallelTotal, suiteConfig.ParallelHost = cfg.Proc, cfg.Total, cfg.Host
	// Specs write through GinkgoWriter; the parent prints progress from the
	// reports, so nothing needs the process's own output captured.
	suiteConfig.OutputInterceptorMode = "none"
	reporterConfig.NoColor = true
	NoColor() // what a worker formats ends in the reports
	formatter.ColorableStdOut = io.Discard
	RegisterFailHandler(Fail)
	RunSpecs(certifyT{}, "v4cert certify", suiteConfig, reporterConfig)

	if w.proxy != nil {
		w.proxy.Close()
	}
	return 0
}

// certifyT stands in for *testing.T: Ginkgo only tells it the suite failed,
// which the report already says rule by rule.
type certifyT struct{}

func (certifyT) Fail() {}

// Each spec's report shows its own traffic alone; a worker runs only its
// shard's specs.
var _ = BeforeEach(func(ctx SpecContext) {
	// The previous spec's DeferCleanup traffic comes after its AfterEach
	// drained the log; it is no part of this spec's story.
	exchanges.drain()
	w := worker.Load()
	if w == nil {
		return
	}
	if w.cfg.Shard.Total > 1 {
		if k := w.cfg.Shard.Of(CurrentSpecReport().FullText()); k != w.cfg.Shard.Index {
			Skip(fmt.Sprintf("%s %d/%d", reports.ShardSkipPrefix, k, w.cfg.Shard.Total))
		}
	}
	if !w.passGate(ctx) {
		Skip(reports.TargetDownSkip)
	}
	endpointsSeen.reset() // the suite's setup traffic is no spec's
	if w.proxyURL != nil {
		// Forward mode: the suites keep the target's own base URL (so its
		// Host header and the links it builds stay right) and every client
		// shares api's transport. Set before the first spec sends anything.
		w.proxySet.Do(func() { api.HTTP.Transport.(*http.Transport).Proxy = http.ProxyURL(w.proxyURL) })
		w.proxy.Drain()
	}
})

// The spec's own traffic travels to the parent with its report: which
// endpoints it reached with which statuses, and what the proxy found in it.
// ReportAfterEach runs after the spec's cleanups, so those are counted too;
// so are the detached teardowns that ended meanwhile (the spec that ran while
// they did carries them, one that ran never a shard's skipped one: the
// report counts only the specs of its shard).
var _ = ReportAfterEach(func(r SpecReport) {
	w := worker.Load()
	if w == nil {
		return
	}
	cov := endpointsSeen.snapshot()
	if !r.State.Is(gtypes.SpecStateSkipped) {
		addCounts(cov, detached.seen.snapshot())
	}
	if len(cov) > 0 {
		AddReportEntry(reports.EntryCoverage, ReportEntryVisibilityNever, cov)
	}
	if w.proxy != nil {
		var out []reports.Violation
		for _, v := range w.proxy.Drain() {
			out = append(out, reportViolation(v))
		}
		if len(out) > 0 {
			AddReportEntry(reports.EntryViolations, ReportEntryVisibilityNever, out)
		}
	}
})

// Gomega formats an actual value only to build a failure message, so a
// Response it formats is one a failing assertion names: the report shows
// that exchange open.
var _ = format.RegisterCustomFormatter(func(v any) (string, bool) {
	r, ok := v.(*Response)
	if !ok || r == nil {
		return "", false
	}
	exchanges.name(r)
	return r.String(), true
})

// startProxy puts the validating proxy (package proxy) between this worker
// and the target, in forward mode: requests travel exactly as they would
// without it. HTTPS would be tunnelled unchecked in forward mode, and in
// reverse mode the target's absolute links would point past the proxy, so
// only http targets are proxied.
func (w *workerState) startProxy(target string) error {
	if !strings.HasPrefix(target, "http://") {
		return errors.New("--via-proxy needs an http:// target: HTTPS would pass the forward proxy as an unchecked tunnel")
	}
	p, err := proxy.New(proxy.Options{Mode: proxy.ModeValidate, Upstream: target})
	if err != nil {
		return fmt.Errorf("--via-proxy: %w", err)
	}
	base, err := p.Start("127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("--via-proxy: %w", err)
	}
	u, err := url.Parse(base)
	if err != nil {
		p.Close()
		return fmt.Errorf("--via-proxy: %w", err)
	}
	w.proxy, w.proxyURL = p, u
	return nil
}

func reportViolation(v proxy.Violation) reports.Violation {
	return reports.Violation{Index: v.Index, Severity: string(v.Severity), Endpoint: v.Endpoint, Rule: v.Rule,
		Schema: v.Schema, Pointer: v.Pointer, Expected: v.Expected, Seen: v.Seen, Method: v.Method, URL: v.URL,
		Status: v.Status, Divergence: v.Divergence}
}

// maxExchangeBody bounds each body kept for a report.
const maxExchangeBody = 4000

// Exchange is the request and answer as a report shows them (redaction is
// the report's job: it knows every secret of the run).
func (r *Response) Exchange() reports.Exchange {
	return reports.Exchange{Method: r.Method, URL: r.URL, Status: r.Status,
		RequestBody: reports.ClipText(r.ReqBody, maxExchangeBody), ResponseBody: reports.ClipText(string(r.Body), maxExchangeBody),
		RequestHeaders: flatten(r.ReqHeader), ResponseHeaders: flatten(r.Header), Failed: r.named}
}

func flatten(h http.Header) map[string]string {
	if len(h) == 0 {
		return nil
	}
	out := make(map[string]string, len(h))
	for k, v := range h {
		out[k] = strings.Join(v, ", ")
	}
	return out
}

// coverageLog counts, per rulebook endpoint, the statuses the current spec's
// answers had: the report's endpoint coverage. Requests under /api/v4 that
// match no endpoint count under "".
type coverageLog struct {
	mu sync.Mutex
	m  map[string]map[int]int
}

var endpointsSeen = &coverageLog{m: map[string]map[int]int{}}

func (c *coverageLog) add(r *Response) {
	id := ""
	if r.Endpoint != nil {
		id = r.Endpoint.ID
	} else if !strings.Contains(r.URL, "/api/v4/") {
		return // outside the API on purpose (the "!" paths of Client.Do)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m[id] == nil {
		c.m[id] = map[int]int{}
	}
	c.m[id][r.Status]++
}

func (c *coverageLog) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m = map[string]map[int]int{}
}

// addCounts adds the counts of from to to.
func addCounts(to, from map[string]map[int]int) {
	for id, statuses := range from {
		if to[id] == nil {
			to[id] = map[int]int{}
		}
		for st, n := range statuses {
			to[id][st] += n
		}
	}
}

// endTeardowns waits for the worker's last teardown when its specs are done;
// in a certify worker the endpoints it reached join the run's coverage in
// this suite node's report (the last spec's report was sent before they did).
func endTeardowns() {
	awaitTeardown()
	if worker.Load() == nil {
		return
	}
	if cov := detached.seen.snapshot(); len(cov) > 0 {
		AddReportEntry(reports.EntryCoverage, ReportEntryVisibilityNever, cov)
	}
}

// snapshot returns the counts since the last reset and starts afresh.
func (c *coverageLog) snapshot() map[string]map[int]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.m
	c.m = map[string]map[int]int{}
	return out
}
