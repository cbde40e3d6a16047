package suites

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/onsi/ginkgo/v2/formatter"
	gtypes "github.com/onsi/ginkgo/v2/types"

	"v4cert/proxy"
	"v4cert/reports"
)

// CertifyConfig says which implementation to certify and how.
type CertifyConfig struct {
	Target      string        // base URL of the implementation, with or without /api/v4
	Token       string        // personal access token of an administrator
	LabelFilter string        // Ginkgo label filter selecting the specs (e.g. "area:users && !paid")
	Seed        int64         // seed of the spec order, recorded in the report
	Timeout     time.Duration // for the whole run; 0 means 30 minutes
	ViaProxy    bool          // route the suites' traffic through the validating proxy
	RerunOf     string        // the report.json whose failed rules this run repeats
	Version     string        // v4cert's version, recorded in the report
	Progress    io.Writer     // a line per finished spec; nil for none
	Verbose     bool          // also Ginkgo's own reporter, to Progress
}

// DefaultSeed orders the specs when no seed is given, so that two runs of
// the same binary against the same target send the same requests.
const DefaultSeed = 1

var certified atomic.Bool

// certifyRun is the state of the one Certify call of this process, read by
// the report nodes below (they are part of the tree, and no-ops under go test).
type certifyRun struct {
	mu       sync.Mutex
	progress io.Writer
	total    int
	done     int
	report   *Report

	proxy      *proxy.Proxy
	proxyURL   *url.URL
	proxySet   sync.Once
	violations []reports.Violation
}

var running atomic.Pointer[certifyRun]

// Certify runs the suites compiled into this binary against cfg.Target and
// judges every rule of the rulebook. It drives Ginkgo's RunSpecs, which runs
// once per process, so Certify does too. The error is for a run that could
// not start; a run that found failures returns a report saying so.
func Certify(cfg CertifyConfig) (reports.Report, error) {
	if err := checkConfig(&cfg); err != nil {
		return reports.Report{}, err
	}
	if !certified.CompareAndSwap(false, true) {
		return reports.Report{}, errors.New("certify runs once per process (Ginkgo's RunSpecs can run only once)")
	}
	run := &certifyRun{progress: cfg.Progress}
	if cfg.ViaProxy {
		if err := run.startProxy(cfg.Target); err != nil {
			return reports.Report{}, err
		}
	}
	// The suites read their target from the environment (see TargetFromEnv);
	// traceability is reported rule by rule (not covered) instead of failing the run.
	os.Setenv("V4CERT_TARGET", cfg.Target)
	os.Setenv("V4CERT_TOKEN", cfg.Token)
	os.Setenv("V4CERT_NO_TRACE", "1")

	suiteConfig, reporterConfig := GinkgoConfiguration()
	suiteConfig.RandomSeed = cfg.Seed
	suiteConfig.RandomizeAllSpecs = true
	suiteConfig.LabelFilter = cfg.LabelFilter
	suiteConfig.Timeout = cfg.Timeout
	suiteConfig.ParallelProcess, suiteConfig.ParallelTotal = 1, 1
	reporterConfig.NoColor = true
	reporterConfig.Succinct = true
	reporterConfig.SilenceSkips = true
	// Ginkgo's reporter writes to stdout; certify's own progress replaces it
	// unless asked for, and stdout stays free for the caller.
	formatter.ColorableStdOut = io.Discard
	if cfg.Verbose && cfg.Progress != nil {
		formatter.ColorableStdOut = cfg.Progress
		reporterConfig.Succinct = false
	}
	RegisterFailHandler(Fail)

	// No PreviewSpecs first: cloning the suite for a preview drops the
	// top-level AfterEach and ReportAfterEach nodes from the real run (Ginkgo
	// 2.34). The total for the progress lines comes from ReportBeforeSuite.
	running.Store(run)
	defer running.Store(nil)
	endpointsSeen.reset()

	started := time.Now()
	RunSpecs(certifyT{}, "v4cert certify", suiteConfig, reporterConfig)
	duration := time.Since(started)

	var gr Report
	if run.report != nil {
		gr = *run.report
	}
	var proxied *reports.ProxyRun
	if run.proxy != nil {
		proxied = run.stopProxy()
	}
	if gr.PreRunStats.SpecsThatWillRun == 0 && cfg.LabelFilter != "" {
		return reports.Report{}, fmt.Errorf("the label filter %q selects no spec", cfg.LabelFilter)
	}
	in := reports.Run{
		Target: cfg.Target, Version: cfg.Version, Seed: cfg.Seed, LabelFilter: cfg.LabelFilter, ViaProxy: cfg.ViaProxy,
		RerunOf: cfg.RerunOf, Started: started, Duration: duration, Secrets: []string{cfg.Token},
		Coverage: endpointsSeen.snapshot(),
	}
	in.Proxy = proxied
	return reports.Build(book, gr, in), nil
}

func checkConfig(cfg *CertifyConfig) error {
	u, err := url.Parse(cfg.Target)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("target %q: want an http(s) base URL such as https://platform.example.com", cfg.Target)
	}
	if cfg.Token == "" {
		return errors.New("an administrator's personal access token is needed (--token or V4CERT_TOKEN)")
	}
	if cfg.LabelFilter != "" {
		if _, err := gtypes.ParseLabelFilter(cfg.LabelFilter); err != nil {
			return fmt.Errorf("label filter %q: %v", cfg.LabelFilter, err)
		}
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 30 * time.Minute
	}
	return nil
}

// certifyT stands in for *testing.T: Ginkgo only tells it the suite failed,
// which the report already says rule by rule.
type certifyT struct{}

func (certifyT) Fail() {}

// One line per finished spec on the progress writer, so a long run against
// a remote target shows it is alive and where it fails.
var _ = ReportAfterEach(func(r SpecReport) {
	run := running.Load()
	if run == nil || (r.State == gtypes.SpecStateSkipped && r.Failure.Message == "") {
		return // filtered out or never run: not progress
	}
	run.mu.Lock()
	defer run.mu.Unlock()
	run.attributeViolations(r.FullText())
	if run.progress == nil {
		return
	}
	run.done++
	status, kind := reports.SpecStatus(r)
	var rules []string
	for _, l := range r.Labels() {
		if id, ok := strings.CutPrefix(l, "rule:"); ok {
			rules = append(rules, id)
		}
	}
	width := len(fmt.Sprint(run.total))
	fmt.Fprintf(run.progress, "[%*d/%d] %-7s %s  %s (%s)\n", width, run.done, run.total, status.Label(),
		strings.Join(rules, ","), r.FullText(), r.RunTime.Round(time.Millisecond))
	if status != reports.StatusPass {
		msg := strings.TrimSpace(r.Failure.Message)
		if i := strings.IndexByte(msg, '\n'); i >= 0 {
			msg = msg[:i]
		}
		if msg != "" {
			if kind != "" {
				msg = kind + ": " + msg
			}
			fmt.Fprintf(run.progress, "%*s↳ %s\n", 2*width+4, "", reports.NewRedactor(target.Token).Text(msg))
		}
	}
})

// The previous spec's DeferCleanup traffic comes after its AfterEach drained
// the log; it is no part of this spec's story.
var _ = BeforeEach(func() {
	exchanges.drain()
	if run := running.Load(); run != nil && run.proxyURL != nil {
		// Forward mode: the suites keep the target's own base URL (so its
		// Host header and the links it builds stay right) and every client
		// shares api's transport. Set before the first spec sends anything.
		run.proxySet.Do(func() { api.HTTP.Transport.(*http.Transport).Proxy = http.ProxyURL(run.proxyURL) })
	}
})

var _ = ReportBeforeSuite(func(r Report) {
	if run := running.Load(); run != nil {
		run.total = r.PreRunStats.SpecsThatWillRun
	}
})

var _ = ReportAfterSuite("certify", func(r Report) {
	if run := running.Load(); run != nil && !r.SuiteConfig.DryRun {
		run.report = &r
	}
})

// maxExchangeBody bounds each body kept for a report.
const maxExchangeBody = 4000

// Exchange is the request and answer as a report shows them (redaction is
// the report's job: it knows every secret of the run).
func (r *Response) Exchange() reports.Exchange {
	x := reports.Exchange{Method: r.Method, URL: r.URL, Status: r.Status,
		RequestBody: clip(r.ReqBody), ResponseBody: clip(string(r.Body)),
		RequestHeaders: flatten(r.ReqHeader), ResponseHeaders: flatten(r.Header)}
	return x
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

func clip(s string) string {
	if len(s) <= maxExchangeBody {
		return s
	}
	cut := maxExchangeBody
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("… (%d bytes in all)", len(s))
}

// coverageLog counts, per rulebook endpoint, the statuses the run's answers
// had: the report's endpoint coverage. Requests under /api/v4 that match no
// endpoint count under "".
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

func (c *coverageLog) snapshot() map[string]map[int]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]map[int]int, len(c.m))
	ids := make([]string, 0, len(c.m))
	for id := range c.m {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		out[id] = map[int]int{}
		for s, n := range c.m[id] {
			out[id][s] = n
		}
	}
	return out
}

// startProxy puts the validating proxy (package proxy) between the suites
// and the target, in forward mode: requests travel exactly as they would
// without it. HTTPS would be tunnelled unchecked in forward mode, and in
// reverse mode the target's absolute links would point past the proxy, so
// only http targets are proxied.
func (run *certifyRun) startProxy(target string) error {
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
	run.proxy, run.proxyURL = p, u
	return nil
}

// attributeViolations takes what the proxy found in the traffic since the
// last call and names the spec that sent it (specs run one at a time).
func (run *certifyRun) attributeViolations(spec string) {
	if run.proxy == nil {
		return
	}
	for _, v := range run.proxy.Drain() {
		run.violations = append(run.violations, reportViolation(v, spec))
	}
}

func (run *certifyRun) stopProxy() *reports.ProxyRun {
	run.attributeViolations("")
	sum, _, err := run.proxy.Close()
	if err != nil && run.progress != nil {
		fmt.Fprintln(run.progress, "proxy:", err)
	}
	out := &reports.ProxyRun{Violations: run.violations, Summary: &reports.ProxySummary{
		Exchanges: sum.Exchanges, Errors: sum.Errors, Warnings: sum.Warnings, Unknown: sum.Unknown,
		Endpoints: sum.Endpoints, CoveredEPs: sum.CoveredEPs, Coverage: map[string]map[string]int{},
	}}
	for id, statuses := range sum.Coverage {
		out.Summary.Coverage[id] = map[string]int{}
		for st, n := range statuses {
			out.Summary.Coverage[id][fmt.Sprint(st)] = n
		}
	}
	if out.Violations == nil {
		out.Violations = []reports.Violation{}
	}
	return out
}

func reportViolation(v proxy.Violation, spec string) reports.Violation {
	return reports.Violation{Index: v.Index, Severity: string(v.Severity), Endpoint: v.Endpoint, Rule: v.Rule,
		Schema: v.Schema, Pointer: v.Pointer, Expected: v.Expected, Seen: v.Seen, Method: v.Method, URL: v.URL,
		Status: v.Status, Spec: spec}
}
