package suites

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"

	gtypes "github.com/onsi/ginkgo/v2/types"

	"github.com/v4cert/v4cert/reports"
	"github.com/v4cert/v4cert/suites/workerhost"
)

// CertifyConfig says which implementation to certify and how.
type CertifyConfig struct {
	Target      string // base URL of the implementation, with or without /api/v4
	Token       string // personal access token of an administrator
	LabelFilter string // Ginkgo label filter selecting the specs (e.g. "area:users && !paid")
	// Profile is what the rules are judged by: reports.ProfileSpec (the
	// default, "") or reports.ProfilePlatform (SpecOrPlatform).
	Profile  string
	Focus    []string      // rule ID patterns (* and ?): only specs of matching rules
	Skip     []string      // rule ID patterns: no spec of a matching rule
	Shard    reports.Shard // the part of the specs to run; zero for all
	Procs    int           // worker processes; 0 chooses for the target (DefaultProcs)
	Seed     int64         // seed of the spec order, recorded in the report
	Timeout  time.Duration // for the whole run; 0 means 30 minutes
	FailFast bool          // stop at the first rule that fails or errors
	ViaProxy bool          // route the suites' traffic through the validating proxy
	RerunOf  string        // the report.json whose failed rules this run repeats
	Version  string        // v4cert's version, recorded in the report
	Progress io.Writer     // a line per finished spec; nil for none
	Verbose  bool          // progress lines carry whole failure messages
	// RateLimit is the target's rate limit, requests per second per client
	// (V4CERT_RATE_LIMIT for the workers); 0 leaves the environment's.
	RateLimit int
	// Retry429 is how many times the workers send a request again that the
	// target answered 429 (RateLimitRetries).
	Retry429 int
	// Executable is the v4cert binary the workers run; "" is this one.
	Executable string
	// Stop interrupts the run: workers stop after their current spec's
	// cleanups and the report says INCOMPLETE (NOT RUN before the specs
	// started). A second value kills the workers at once.
	Stop <-chan os.Signal
}

// DefaultSeed orders the specs when no seed is given, so that two runs of
// the same binary against the same target send the same requests.
const DefaultSeed = 1

// DefaultProcs is the number of worker processes for a target when none is
// asked for. On loopback the run is bound by this machine's CPU, which the
// target shares: one worker per core (on 2 busy cores, 4 workers took 0.81
// to 1.06 of 1 worker's time, for a third more CPU). Anything else is bound
// by the round trip, not the CPU (at 50 ms a worker spends nearly all its
// time waiting): more workers overlap the waits (8 took 0.15 of 1 worker's
// time), up to what a target under test should be asked to take at once.
func DefaultProcs(target string) int {
	if isLoopback(target) {
		return min(max(runtime.NumCPU(), 2), 8)
	}
	return min(max(4*runtime.NumCPU(), 8), 16)
}

func isLoopback(target string) bool {
	u, err := url.Parse(target)
	if err != nil {
		return false
	}
	host := u.Hostname()
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Filter is the Ginkgo label filter the configuration selects specs with:
// the label filter given, and --focus/--skip as regular expressions over the
// rule: labels.
func (cfg CertifyConfig) Filter() (string, error) {
	var parts []string
	if f := strings.TrimSpace(cfg.LabelFilter); f != "" {
		if _, err := gtypes.ParseLabelFilter(f); err != nil {
			return "", fmt.Errorf("--label-filter %q: %v", f, err)
		}
		parts = append(parts, "("+f+")")
	}
	focus, err := rulePatterns("--focus", cfg.Focus)
	if err != nil {
		return "", err
	}
	if focus != "" {
		parts = append(parts, "("+focus+")")
	}
	skip, err := rulePatterns("--skip", cfg.Skip)
	if err != nil {
		return "", err
	}
	if skip != "" {
		parts = append(parts, "!("+skip+")")
	}
	f := strings.Join(parts, " && ")
	if len(parts) == 1 && strings.HasPrefix(f, "(") {
		f = f[1 : len(f)-1]
	}
	// Ginkgo exits the process on a filter it cannot parse: never hand it one.
	if _, err := gtypes.ParseLabelFilter(f); err != nil {
		return "", fmt.Errorf("label filter %q: %v", f, err)
	}
	return f, nil
}

// rulePattern is what a rule ID pattern may hold: rule IDs are lowercase
// letters, digits, dots, hyphens and underscores; * and ? are wildcards.
var rulePattern = regexp.MustCompile(`^[a-z0-9._*?-]+$`)

// rulePatterns turns rule ID patterns into label-filter terms: "users.*"
// becomes /^rule:users\..*$/, which Ginkgo matches against every label.
func rulePatterns(flag string, pats []string) (string, error) {
	var terms []string
	for _, p := range pats {
		for _, p := range strings.Split(p, ",") {
			p = strings.ToLower(strings.TrimSpace(p))
			if p == "" {
				continue
			}
			if !rulePattern.MatchString(p) {
				return "", fmt.Errorf("%s %q: a rule ID pattern holds letters, digits, '.', '-', '_' and the wildcards * and ?", flag, p)
			}
			re := regexp.QuoteMeta(p)
			re = strings.NewReplacer(`\*`, `.*`, `\?`, `.`).Replace(re)
			terms = append(terms, "/^rule:"+re+"$/")
		}
	}
	return strings.Join(terms, " || "), nil
}

// Plan is what a run would run: every spec of the suites' tree, and which of
// them the filter and the shard select.
type Plan struct {
	Filter string
	Shard  reports.Shard
	Specs  []reports.PlannedSpec
}

// Selected returns the specs the run runs, in tree order.
func (p Plan) Selected() []gtypes.SpecReport {
	var out []gtypes.SpecReport
	for _, s := range p.Specs {
		if s.Excluded == "" {
			out = append(out, s.Spec)
		}
	}
	return out
}

// Rules returns the IDs of the rules the selected specs check, in rulebook order.
func (p Plan) Rules() []string {
	sel := map[string]bool{}
	for _, s := range p.Selected() {
		for _, l := range s.Labels() {
			if id, ok := strings.CutPrefix(l, "rule:"); ok {
				sel[id] = true
			}
		}
	}
	var out []string
	for _, r := range book.Rules {
		if sel[r.ID] {
			out = append(out, r.ID)
		}
	}
	return out
}

// planMu serialises previews: Ginkgo's tree is global to the process.
var planMu sync.Mutex

// PlanRun previews the suites' tree (Ginkgo's dry run: no spec runs, nothing
// is sent) and applies the filter and the shard.
func PlanRun(cfg CertifyConfig) (Plan, error) {
	filter, err := cfg.Filter()
	if err != nil {
		return Plan{}, err
	}
	p := Plan{Filter: filter, Shard: cfg.Shard}
	sc, rc := GinkgoConfiguration()
	sc.LabelFilter = filter
	sc.RandomSeed = cfg.Seed
	sc.ParallelProcess, sc.ParallelTotal = 1, 1
	rc.NoColor = true
	planMu.Lock()
	tree := PreviewSpecs("v4cert certify", sc, rc)
	planMu.Unlock()
	for _, s := range tree.SpecReports {
		if s.LeafNodeType != gtypes.NodeTypeIt {
			continue
		}
		ps := reports.PlannedSpec{Spec: s}
		switch {
		case s.State == gtypes.SpecStateSkipped:
			ps.Excluded = reports.ExcludedByFilter
		case !cfg.Shard.Runs(s.FullText()):
			ps.Excluded = reports.ExcludedByShard
		}
		p.Specs = append(p.Specs, ps)
	}
	return p, nil
}

// Certify runs the suites compiled into this binary against cfg.Target in
// worker processes of this binary and judges every rule of the rulebook. It
// always returns a report: NOT RUN when the run could not start (the cause
// says why), INCOMPLETE when it was stopped, else a verdict on the target.
func Certify(cfg CertifyConfig) reports.Report {
	started := time.Now()
	cfg.Target = strings.TrimSuffix(strings.TrimSuffix(strings.TrimSpace(cfg.Target), "/"), "/api/v4")
	if cfg.Timeout <= 0 {
		cfg.Timeout = 30 * time.Minute
	}
	run := reports.Run{Target: cfg.Target, Version: cfg.Version, Seed: cfg.Seed, LabelFilter: cfg.LabelFilter, Profile: cfg.Profile,
		ViaProxy: cfg.ViaProxy, RerunOf: cfg.RerunOf, Started: started, Secrets: []string{cfg.Token}}
	if cfg.Shard.Total > 1 {
		sh := cfg.Shard
		run.Shard = &sh
	}
	notRun := func(cause string) reports.Report {
		run.NotRun, run.Duration = cause, time.Since(started)
		return reports.Build(book, gtypes.Report{}, run)
	}

	plan, err := PlanRun(cfg)
	if err != nil {
		return notRun(err.Error())
	}
	run.LabelFilter, run.Plan = plan.Filter, plan.Specs
	if len(plan.Selected()) == 0 {
		cause := fmt.Sprintf("no spec is selected by the label filter %q", reports.ReadableFilter(plan.Filter))
		if plan.Filter == "" {
			cause = "the suites have no spec"
		}
		if cfg.Shard.Total > 1 {
			cause += " in shard " + cfg.Shard.String()
		}
		return notRun(cause)
	}
	// A signal during the preflight (which may wait 30 s for a silent
	// target) ends the run there.
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan os.Signal, 1)
	go func() {
		select {
		case sig := <-cfg.Stop:
			stopped <- sig
			cancel()
		case <-ctx.Done():
		}
	}()
	cause := preflight(ctx, cfg)
	cancel()
	select {
	case sig := <-stopped:
		return notRun(fmt.Sprintf("interrupted by %s before the specs started", signalName(sig)))
	default:
	}
	if cause != "" {
		return notRun(cause)
	}
	procs := cfg.Procs
	if procs <= 0 {
		procs = DefaultProcs(cfg.Target)
	}
	procs = min(procs, len(plan.Selected()))

	c := newCollector(cfg, plan)
	res := c.runWorkers(cfg, procs)
	run.Duration = time.Since(started)
	run.Incomplete, run.Stopped, run.HarnessErrors, run.TargetDown = res.incomplete, res.stopped, res.harnessErrors, res.targetDown
	return reports.Build(book, c.report(), run)
}

func signalName(sig os.Signal) string {
	switch sig {
	case os.Interrupt:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return sig.String()
}

// preflight checks, before any spec runs, that the target answers as the
// API and the token is an administrator's: anything else is a run that
// cannot start, not a verdict on the target. It returns the cause, or "".
func preflight(ctx context.Context, cfg CertifyConfig) string {
	u, err := url.Parse(cfg.Target)
	if cfg.Target == "" {
		return "no target: give --target URL or set V4CERT_TARGET"
	}
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Sprintf("--target/V4CERT_TARGET %q is not an http(s) base URL such as https://platform.example.com", cfg.Target)
	}
	if cfg.Token == "" {
		return "no token: give --token or set V4CERT_TOKEN to an administrator's personal access token"
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	me := cfg.Target + "/api/v4/user"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, me, nil)
	if err != nil {
		return fmt.Sprintf("--target/V4CERT_TARGET %q: %v", cfg.Target, err)
	}
	req.Header.Set("PRIVATE-TOKEN", cfg.Token)
	client := &http.Client{Transport: &http.Transport{Proxy: http.ProxyFromEnvironment}}
	res, err := client.Do(req)
	if err != nil {
		var uerr *url.Error
		if errors.As(err, &uerr) {
			err = uerr.Err
		}
		return fmt.Sprintf("cannot reach the target %s (--target/V4CERT_TARGET): %v", cfg.Target, err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	var user struct {
		Username string `json:"username"`
		IsAdmin  *bool  `json:"is_admin"`
	}
	jsonErr := json.Unmarshal(body, &user)
	switch {
	case res.StatusCode == http.StatusUnauthorized:
		return fmt.Sprintf("the target refused the token (GET %s answered 401): --token/V4CERT_TOKEN must be a valid personal access token of an administrator", me)
	case res.StatusCode == http.StatusForbidden:
		return fmt.Sprintf("the target refused the token (GET %s answered 403): it needs the api scope and an administrator", me)
	case res.StatusCode != http.StatusOK:
		return fmt.Sprintf("GET %s answered %d, not the current user: is --target/V4CERT_TARGET the base URL of an implementation of the API?", me, res.StatusCode)
	case jsonErr != nil || user.Username == "":
		return fmt.Sprintf("GET %s did not answer a user as JSON: is --target/V4CERT_TARGET the base URL of an implementation of the API?", me)
	case user.IsAdmin == nil || !*user.IsAdmin:
		return fmt.Sprintf("the token belongs to %s, who is not an administrator: certify creates users, groups and projects and needs an administrator's token (--token/V4CERT_TOKEN)", user.Username)
	}
	return ""
}

// collector receives the workers' reports through the parallel host.
type collector struct {
	progress io.Writer
	verbose  bool
	secrets  *reports.Redactor
	selected map[string]bool // spec keys the run selected
	total    int             // selected specs that will run (not pending)

	mu     sync.Mutex
	begin  *gtypes.Report
	specs  []gtypes.SpecReport
	ended  map[int]gtypes.Report
	done   int
	failed bool   // a selected spec failed or errored
	filter string // the label filter the workers select with

	// The specs, in the order they finished, that could not reach the
	// target: after downAfter in a row, certify asks (probe) whether the
	// target still answers.
	streak      int
	streakSince time.Time // when the first of them could not reach it
	probe       chan struct{}
	// pause holds the specs not yet started (Host.Pause), called as the
	// streak reaches downAfter: before the worker that reported its last
	// spec is answered, so that it starts no other against a target that
	// may be gone. Not once the run is stopping: it would hold what an
	// interruption has to let go.
	pause    func()
	stopping bool
}

// downAfter is how many specs in a row must fail to reach the target
// before certify probes it: one transport error is a blip worth a spec's
// error, not a reason to end the run.
const downAfter = 3

func newCollector(cfg CertifyConfig, plan Plan) *collector {
	c := &collector{progress: cfg.Progress, verbose: cfg.Verbose, secrets: reports.NewRedactor(cfg.Token),
		selected: map[string]bool{}, ended: map[int]gtypes.Report{}, filter: plan.Filter, probe: make(chan struct{}, 1)}
	for _, s := range plan.Selected() {
		c.selected[reports.SpecKey(s)] = true
		if s.State != gtypes.SpecStatePending {
			c.total++
		}
	}
	return c
}

func (c *collector) SuiteWillBegin(proc int, r gtypes.Report) {
	if c.begin == nil {
		c.begin = &r
	}
}

func (c *collector) SuiteDidEnd(proc int, r gtypes.Report) {
	c.ended[proc] = r
}

// DidRun prints a line per finished spec, so a long run against a remote
// target shows it is alive and where it fails.
func (c *collector) DidRun(r gtypes.SpecReport) {
	c.specs = append(c.specs, r)
	if r.LeafNodeType != gtypes.NodeTypeIt {
		// An interrupted one was cut short by the run's stop, whose cause
		// the progress has already said.
		if r.State.Is(gtypes.SpecStateFailureStates) && r.State != gtypes.SpecStateInterrupted && c.progress != nil {
			fmt.Fprintf(c.progress, "suite error (%s, process %d): %s\n", r.LeafNodeType, r.ParallelProcess,
				c.secrets.Text(firstLine(r.Failure.Message)))
		}
		return
	}
	if !c.selected[reports.SpecKey(r)] || r.State == gtypes.SpecStatePending ||
		r.State == gtypes.SpecStateSkipped && r.Failure.Message == "" {
		return // another shard's, filtered out, or never started: not progress
	}
	c.done++
	status, kind := reports.SpecStatus(r)
	if status == reports.StatusFail || status == reports.StatusError {
		c.failed = true
	}
	c.track(r, status, kind)
	if c.progress == nil {
		return
	}
	var rules []string
	for _, l := range r.Labels() {
		if id, ok := strings.CutPrefix(l, "rule:"); ok {
			rules = append(rules, id)
		}
	}
	width := len(fmt.Sprint(c.total))
	fmt.Fprintf(c.progress, "[%*d/%d] %-7s %s  %s (%s)\n", width, c.done, c.total, status.Label(),
		strings.Join(rules, ","), r.FullText(), r.RunTime.Round(time.Millisecond))
	if status == reports.StatusPass {
		return
	}
	msg := strings.TrimSpace(r.Failure.Message)
	if !c.verbose {
		msg = firstLine(msg)
	}
	if h, _, ok := reports.HarnessEntry(r); ok && h.Cause != "" {
		msg = h.Cause + ": " + msg // the annotation names the request, the cause what happened to it
	}
	if msg != "" {
		if kind != "" {
			msg = kind + ": " + msg
		}
		pad := strings.Repeat(" ", 2*width+4)
		fmt.Fprintf(c.progress, "%s↳ %s\n", pad, strings.ReplaceAll(c.secrets.Text(msg), "\n", "\n"+pad+"  "))
	}
}

// track counts the specs in a row that could not reach the target and asks
// for a probe after downAfter of them. A spec that got any answer from the
// target ends the streak; one that was skipped, interrupted or timed out
// says nothing either way.
func (c *collector) track(r gtypes.SpecReport, status reports.Status, kind string) {
	if h, at, ok := reports.HarnessEntry(r); ok && h.Kind == reports.KindTransport {
		if c.streak == 0 {
			c.streakSince = at
		}
		c.streak++
		if c.streak >= downAfter {
			if c.pause != nil && !c.stopping {
				c.pause()
			}
			select {
			case c.probe <- struct{}{}:
			default: // a probe is already asked for
			}
		}
		return
	}
	switch {
	case status == reports.StatusPass, status == reports.StatusFail,
		status == reports.StatusError && kind != reports.KindInterrupted && kind != reports.KindAborted && kind != reports.KindTimeout:
		c.streak = 0
	}
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

// report is the run as one Ginkgo report: every spec any process reported,
// whatever happened to the processes afterwards.
func (c *collector) report() gtypes.Report {
	c.mu.Lock()
	defer c.mu.Unlock()
	var r gtypes.Report
	if c.begin != nil {
		r = *c.begin
	}
	r.SpecReports = c.specs
	for _, proc := range slices.Sorted(maps.Keys(c.ended)) {
		for _, reason := range c.ended[proc].SpecialSuiteFailureReasons {
			if !slices.Contains(r.SpecialSuiteFailureReasons, reason) {
				r.SpecialSuiteFailureReasons = append(r.SpecialSuiteFailureReasons, reason)
			}
		}
	}
	return r
}

// runResult is how the workers' run ended.
type runResult struct {
	incomplete    string
	stopped       string
	harnessErrors []reports.Failure
	targetDown    *reports.TargetDown
}

// Probing the target: probeAttempts requests, the waits between them
// growing from probeGap, each given probeTimeout. A target that refuses
// connections is found down in about 1.5 s, while the specs not yet started
// wait (Host.Pause) instead of erroring one after the other.
const (
	probeAttempts = 3
	probeGap      = 500 * time.Millisecond
	probeTimeout  = 10 * time.Second
)

// downGrace is how long workers get, once the target is down, to end the
// specs in flight: their cleanups cannot reach it either, so there is
// nothing to wait for beyond the transport errors themselves.
const downGrace = 15 * time.Second

// probeTarget asks the target for its version as the administrator, up to
// probeAttempts times: any HTTP answer means it answers (""). Otherwise it
// returns what kept the last attempt from an answer, and the URL asked.
func probeTarget(ctx context.Context, cfg CertifyConfig) (cause, u string) {
	u = cfg.Target + "/api/v4/version"
	client := &http.Client{Timeout: probeTimeout, Transport: &http.Transport{Proxy: http.ProxyFromEnvironment, DisableKeepAlives: true}}
	gap := probeGap
	for attempt := 1; ; attempt++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		if err != nil {
			return err.Error(), u
		}
		req.Header.Set("PRIVATE-TOKEN", cfg.Token)
		res, err := client.Do(req)
		if err == nil {
			res.Body.Close()
			return "", u
		}
		cause = transportCause(err)
		if attempt == probeAttempts || ctx.Err() != nil {
			return cause, u
		}
		select {
		case <-ctx.Done():
			return cause, u
		case <-time.After(gap):
		}
		gap *= 2
	}
}

// stopGrace is how long workers get, once asked to stop, to finish the
// cleanups of the specs they are running (so the target is left tidy).
const stopGrace = 60 * time.Second

// runWorkers runs procs worker processes of this binary and waits for them.
func (c *collector) runWorkers(cfg CertifyConfig, procs int) runResult {
	var res runResult
	fail := func(msg string) runResult {
		res.harnessErrors = append(res.harnessErrors, reports.Failure{Spec: "certify", Status: reports.StatusError,
			Kind: reports.KindSuite, Message: msg})
		return res
	}
	exe := cfg.Executable
	if exe == "" {
		var err error
		if exe, err = os.Executable(); err != nil {
			return fail("finding this binary to run its workers: " + err.Error())
		}
	}
	host, err := workerhost.Start(procs, lockedEvents{c})
	if err != nil {
		return fail("starting the workers' host: " + err.Error())
	}
	defer host.Close()
	c.mu.Lock()
	c.pause = host.Pause
	c.mu.Unlock()

	type exit struct {
		proc int
		err  error
	}
	exits := make(chan exit, procs)
	var cmds []*exec.Cmd
	for p := 1; p <= procs; p++ {
		wc := workerConfig{Proc: p, Total: host.Total(), Host: host.Address(), Target: cfg.Target, Token: cfg.Token,
			LabelFilter: c.filter, Profile: cfg.Profile, Seed: cfg.Seed, Timeout: cfg.Timeout, FailFast: cfg.FailFast,
			ViaProxy: cfg.ViaProxy, Shard: cfg.Shard, RateLimit: cfg.RateLimit, Retry429: cfg.Retry429}
		raw, _ := json.Marshal(wc)
		cmd := exec.Command(exe, WorkerCommand)
		cmd.Env = append(os.Environ(), workerEnv+"="+string(raw))
		// A worker says nothing unless something is badly wrong (a panic
		// outside any spec): then the person running certify should see it.
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		detach(cmd)
		if err := cmd.Start(); err != nil {
			for _, started := range cmds {
				started.Process.Kill()
			}
			return fail(fmt.Sprintf("starting worker %d (%s): %v", p, exe, err))
		}
		cmds = append(cmds, cmd)
		go func(p int, cmd *exec.Cmd) {
			err := cmd.Wait()
			host.Exited(p)
			exits <- exit{p, err}
		}(p, cmd)
	}

	signalAll := func(sig os.Signal) {
		for _, cmd := range cmds {
			cmd.Process.Signal(sig)
		}
	}
	deadline := time.NewTimer(cfg.Timeout + stopGrace)
	defer deadline.Stop()
	var grace <-chan time.Time
	stopping := false
	running := procs
	probeCtx, cancelProbe := context.WithCancel(context.Background())
	defer cancelProbe()
	type probed struct{ cause, url string }
	probes := make(chan probed, 1)
	probing := false
	// targetDown ends the run: the target no longer answers, and every spec
	// left would only error on it.
	targetDown := func(p probed) {
		c.mu.Lock()
		since, done, total := c.streakSince, c.done, c.total
		c.mu.Unlock()
		res.targetDown = &reports.TargetDown{Since: since.UTC().Truncate(time.Millisecond), Cause: p.cause, URL: p.url}
		res.incomplete = fmt.Sprintf("the target stopped answering at %s: %s at %s (after %d of %d specs)",
			since.UTC().Format("2006-01-02 15:04:05 MST"), p.cause, p.url, done, total)
	}
	for running > 0 {
		select {
		case <-c.probe:
			if probing || stopping {
				continue
			}
			probing = true
			host.Pause() // no spec starts against a target that may be gone
			go func() {
				cause, u := probeTarget(probeCtx, cfg)
				probes <- probed{cause, u}
			}()
		case p := <-probes:
			probing = false
			if stopping {
				continue
			}
			if p.cause == "" {
				c.mu.Lock()
				c.streak = 0
				c.mu.Unlock()
				host.Resume()
				continue
			}
			stopping = true
			c.mu.Lock()
			c.stopping = true
			c.mu.Unlock()
			targetDown(p)
			// Drained first: the specs held at the workers' gates are let go
			// as not run, before the signal would interrupt their wait.
			host.Drain()
			signalAll(syscall.SIGTERM)
			grace = time.After(downGrace)
			if c.progress != nil {
				fmt.Fprintf(c.progress, "v4cert certify: %s: stopping\n", res.incomplete)
			}
		case e := <-exits:
			running--
			c.mu.Lock()
			_, ended := c.ended[e.proc]
			c.mu.Unlock()
			if !ended && !stopping {
				why := "exited"
				if e.err != nil {
					why = e.err.Error()
				}
				res.harnessErrors = append(res.harnessErrors, reports.Failure{Spec: fmt.Sprintf("worker %d", e.proc),
					Status: reports.StatusError, Kind: reports.KindSuite,
					Message: fmt.Sprintf("worker process %d ended (%s) before it finished its specs", e.proc, why)})
			}
		case sig := <-cfg.Stop:
			if stopping {
				signalAll(os.Kill) // asked twice: no more waiting for cleanups
				continue
			}
			stopping = true
			c.mu.Lock()
			c.stopping = true
			res.incomplete = fmt.Sprintf("interrupted by %s after %d of %d specs", signalName(sig), c.done, c.total)
			c.mu.Unlock()
			host.Resume() // a worker waiting on a probe goes on to its interruption
			// One signal each, and no abort through the host as well: Ginkgo
			// counts both, and at the second it skips the cleanups, which would
			// leave the specs' fixtures on the target.
			signalAll(syscall.SIGTERM)
			grace = time.After(stopGrace)
			if c.progress != nil {
				fmt.Fprintf(c.progress, "v4cert certify: %s: stopping after the cleanups of the specs in flight (again to stop at once)\n", signalName(sig))
			}
		case <-grace:
			signalAll(os.Kill)
		case <-deadline.C:
			stopping = true
			res.incomplete = fmt.Sprintf("the run took longer than --run-timeout %s", cfg.Timeout)
			signalAll(os.Kill)
		}
	}
	// The run ended on specs that could not reach the target, too few or too
	// late for a probe during the run: ask now.
	c.mu.Lock()
	streak := c.streak
	c.mu.Unlock()
	if res.incomplete == "" && streak > 0 {
		if cause, u := probeTarget(probeCtx, cfg); cause != "" {
			targetDown(probed{cause, u})
		}
	}
	r := c.report()
	if res.incomplete == "" && slices.Contains(r.SpecialSuiteFailureReasons, "Suite Timeout Elapsed") {
		res.incomplete = fmt.Sprintf("the run took longer than --run-timeout %s", cfg.Timeout)
	}
	if res.incomplete == "" && cfg.FailFast && c.failed {
		res.stopped = "--fail-fast stopped the run at the first rule that failed or errored"
	}
	return res
}

// lockedEvents serialises the collector's state against report().
type lockedEvents struct{ c *collector }

func (l lockedEvents) SuiteWillBegin(proc int, r gtypes.Report) {
	l.c.mu.Lock()
	defer l.c.mu.Unlock()
	l.c.SuiteWillBegin(proc, r)
}

func (l lockedEvents) DidRun(r gtypes.SpecReport) {
	l.c.mu.Lock()
	defer l.c.mu.Unlock()
	l.c.DidRun(r)
}

func (l lockedEvents) SuiteDidEnd(proc int, r gtypes.Report) {
	l.c.mu.Lock()
	defer l.c.mu.Unlock()
	l.c.SuiteDidEnd(proc, r)
}
