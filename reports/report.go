// Package reports turns a conformance run (Ginkgo's report, the endpoints the
// suites touched, the proxy's violations) into a verdict rule by rule, and
// renders it as JUnit XML, JSON, Markdown and a single-file HTML page.
package reports

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"
	"time"
	"unicode/utf8"
)

// Format names the shape of report.json (docs/report-json.md); it changes
// only when a field changes meaning or disappears.
const Format = "v4cert-report/1"

// Profiles a run is judged by (certify --profile). Under ProfileSpec every
// rule holds the target to the spec's text. Under ProfilePlatform a rule
// the rulebook marks as a known platform divergence (class 3) also passes
// when the target does what the platform does, where its spec declares that
// behaviour (suites.SpecOrPlatform); the report says which way it passed.
const (
	ProfileSpec     = "spec"
	ProfilePlatform = "platform"
)

// Status is the one outcome a rule ends in.
type Status string

// The statuses of a rule, from best to worst for a reader scanning a table.
const (
	StatusPass       Status = "pass"
	StatusFail       Status = "fail"        // the target broke the rule
	StatusError      Status = "error"       // the harness broke: fixture, panic, timeout, interruption, suite setup
	StatusSkipped    Status = "skipped"     // filtered out, or Skip() with a reason
	StatusNotCovered Status = "not_covered" // no spec checks the rule; never counted as passed
)

// Statuses lists every status in the order reports print them.
var Statuses = []Status{StatusPass, StatusFail, StatusError, StatusSkipped, StatusNotCovered}

// Label is how a status is written for people.
func (s Status) Label() string {
	if s == StatusNotCovered {
		return "not covered"
	}
	return string(s)
}

// Verdicts. Only a run that completed judges the target; the other two say
// why there is no judgement (Report.Cause).
const (
	VerdictConformant    = "CONFORMANT"
	VerdictNotConformant = "NOT CONFORMANT"
	VerdictNotRun        = "NOT RUN"    // nothing was judged: the run could not start (target unreachable, token refused, setup failed), or every rule it selected was skipped (AllSkipped)
	VerdictIncomplete    = "INCOMPLETE" // the run stopped before the end: interrupted, timed out, the target stopped answering
)

// Report is one certification run; report.json is this value.
type Report struct {
	Format  string `json:"format"`
	Verdict string `json:"verdict"`
	// Profile is what the rules were judged by: ProfileSpec or ProfilePlatform.
	Profile string `json:"profile"`
	Cause   string `json:"cause,omitempty"` // why NOT RUN or INCOMPLETE, in one line
	// AllSkipped: the run completed and every rule it selected was skipped
	// (the verdict is NOT RUN: nothing was judged; Cause gives the reasons).
	AllSkipped bool `json:"all_skipped,omitempty"`
	// TargetDown: the run ended INCOMPLETE because the target stopped
	// answering; when, where and how.
	TargetDown *TargetDown `json:"target_down,omitempty"`
	Conformant bool        `json:"conformant"`
	Complete   bool        `json:"complete"` // every rule was checked: none skipped, none not covered
	Target     string      `json:"target"`
	Version    string      `json:"version"`
	Rulebook   Rulebook    `json:"rulebook"`
	Seed       int64       `json:"seed"`
	// LabelFilter is the Ginkgo label filter that selected the specs: the
	// one given, with --focus, --skip and --rerun-failed folded in.
	LabelFilter string `json:"label_filter"`
	// Shard is the part of the specs this run ran (--shard K/N); absent for
	// a whole run.
	Shard *Shard `json:"shard,omitempty"`
	// MergedShards is the number of shard reports merged into this one.
	MergedShards int       `json:"merged_shards,omitempty"`
	ViaProxy     bool      `json:"via_proxy"`
	RerunOf      string    `json:"rerun_of,omitempty"` // the report.json whose failed rules this run repeated
	Started      time.Time `json:"started"`
	DurationSec  float64   `json:"duration_seconds"`
	Counts       Counts    `json:"counts"`
	Areas        []Area    `json:"areas"`
	Rules        []Rule    `json:"rules"`
	// SuiteErrors are harness failures not tied to one rule: the suite's
	// setup, a report node, an interruption.
	SuiteErrors []Failure `json:"suite_errors"`
	// UnknownRules are rule IDs that specs name and the rulebook does not
	// (a defect of the kit, not of the target).
	UnknownRules []string  `json:"unknown_rules"`
	Coverage     Coverage  `json:"coverage"`
	Proxy        *ProxyRun `json:"proxy,omitempty"`
}

// Rulebook identifies the rules a run was judged by.
type Rulebook struct {
	Digest    string `json:"digest"`
	Rules     int    `json:"rules"`
	Endpoints int    `json:"endpoints"`
}

// Counts are the number of rules in each status.
type Counts struct {
	Total      int `json:"total"`
	Pass       int `json:"pass"`
	Fail       int `json:"fail"`
	Error      int `json:"error"`
	Skipped    int `json:"skipped"`
	NotCovered int `json:"not_covered"`
	// Filtered counts the skipped rules the run did not select (label
	// filter, --focus, --skip, another shard); they are part of Skipped.
	Filtered int `json:"filtered"`
	// Divergent counts the failed rules that are known platform divergences
	// (class 3); they are part of Fail.
	Divergent int `json:"divergent,omitempty"`
	// AsPlatform counts the rules that passed as the platform does, not as
	// the spec says (profile platform); they are part of Pass.
	AsPlatform int `json:"as_platform,omitempty"`
}

// Judged is the number of rules the run gave a verdict on: passed or
// failed. An errored rule was not judged (the harness could not tell), nor
// was a skipped one.
func (c Counts) Judged() int { return c.Pass + c.Fail }

// add counts one rule.
func (c *Counts) add(r Rule) {
	c.Add(r.Status)
	if r.Filtered {
		c.Filtered++
	}
	if r.Divergence != nil {
		switch {
		case r.Status == StatusFail:
			c.Divergent++
		case r.Status == StatusPass && r.Divergence.AsPlatform:
			c.AsPlatform++
		}
	}
}

// Add counts one rule of status s.
func (c *Counts) Add(s Status) {
	c.Total++
	switch s {
	case StatusPass:
		c.Pass++
	case StatusFail:
		c.Fail++
	case StatusError:
		c.Error++
	case StatusSkipped:
		c.Skipped++
	case StatusNotCovered:
		c.NotCovered++
	}
}

// Of returns the count of one status.
func (c Counts) Of(s Status) int {
	switch s {
	case StatusPass:
		return c.Pass
	case StatusFail:
		return c.Fail
	case StatusError:
		return c.Error
	case StatusSkipped:
		return c.Skipped
	case StatusNotCovered:
		return c.NotCovered
	}
	return 0
}

// String is the one-line tally used under the verdict.
func (c Counts) String() string {
	s := fmt.Sprintf("%d rules: %d pass, %d fail, %d error, %d skipped, %d not covered",
		c.Total, c.Pass, c.Fail, c.Error, c.Skipped-c.Filtered, c.NotCovered)
	if c.Filtered > 0 {
		s += fmt.Sprintf(", %d not selected", c.Filtered)
	}
	if c.AsPlatform > 0 {
		s += fmt.Sprintf("; %d passed as the platform does", c.AsPlatform)
	}
	if c.Divergent > 0 {
		s += fmt.Sprintf("; %d of the failures known platform divergences", c.Divergent)
	}
	return s
}

// ruleTerm is how certify writes a --focus/--skip pattern into the label
// filter: /^rule:users\.list\..*$/ for users.list.*.
var ruleTerm = regexp.MustCompile(`/\^rule:([a-z0-9_\\.*-]+)\$/`)

// ReadableFilter is the label filter as a person wrote it: the rule ID
// patterns of --focus and --skip as patterns (rule:users.list.*), not as
// the regular expressions Ginkgo is given.
func ReadableFilter(f string) string {
	return ruleTerm.ReplaceAllStringFunc(f, func(term string) string {
		re := ruleTerm.FindStringSubmatch(term)[1]
		var b strings.Builder
		for i := 0; i < len(re); i++ {
			switch {
			case re[i] == '\\' && i+1 < len(re):
				i++
				b.WriteByte(re[i])
			case re[i] == '.' && i+1 < len(re) && re[i+1] == '*':
				i++
				b.WriteByte('*')
			case re[i] == '.':
				b.WriteByte('?')
			default:
				b.WriteByte(re[i])
			}
		}
		return "rule:" + b.String()
	})
}

// Headline is the verdict as the first line of every rendering says it:
// "CONFORMANT (profile spec)", "CONFORMANT on 22 of 489 rules (profile
// spec)" when fewer rules were judged (passed or failed) than the rulebook
// has, "NOT RUN: <cause>". A verdict names the profile it was reached by:
// the same target may be CONFORMANT by one and not by the other.
func (r Report) Headline() string {
	switch r.Verdict {
	case VerdictNotRun, VerdictIncomplete:
		if r.Cause != "" {
			return r.Verdict + ": " + r.Cause
		}
		return r.Verdict
	}
	h := r.Verdict
	if n := r.Counts.Judged(); n < r.Counts.Total {
		h = fmt.Sprintf("%s on %d of %d rules", r.Verdict, n, r.Counts.Total)
	}
	if r.Profile != "" {
		h += " (profile " + r.Profile + ")"
	}
	return h
}

// TargetDown is when the target stopped answering during a run, and how.
type TargetDown struct {
	// Since is when the first of the transport errors that ended the run
	// happened (UTC).
	Since time.Time `json:"since"`
	// Cause is what the last probe of the target got, e.g. "connection refused".
	Cause string `json:"cause"`
	// URL is what the probe asked (GET, the administrator's token).
	URL string `json:"url"`
}

// Area is one area of the spec with its tally.
type Area struct {
	Name   string `json:"name"`
	Counts Counts `json:"counts"`
}

// Rule is the outcome of one rule of the rulebook.
type Rule struct {
	ID       string `json:"id"`
	Area     string `json:"area"`
	Endpoint string `json:"endpoint,omitempty"`
	Says     string `json:"says"`
	Source   string `json:"source"`
	Paid     bool   `json:"paid,omitempty"`
	Status   Status `json:"status"`
	// Divergence is present on a rule the rulebook marks as a known platform
	// divergence (class 3): what the platform does instead of what the rule
	// says, and whether the target was seen doing it.
	Divergence *Divergence `json:"divergence,omitempty"`
	// Filtered: skipped because the run did not select the rule's specs.
	Filtered bool      `json:"filtered,omitempty"`
	Reason   string    `json:"reason,omitempty"` // why skipped or errored; which specs failed
	Specs    []Spec    `json:"specs"`
	Failures []Failure `json:"failures"`
}

// Divergence is a class-3 rule's known platform divergence, as the
// rulebook records it (specs.Platform).
type Divergence struct {
	Does   string `json:"does"`
	Source string `json:"source"`
	// Label is how every rendering writes it beside a failure:
	// "known platform divergence: the platform does this: <does> (<source>)".
	Label string `json:"label"`
	// AsPlatform: on a passed rule, a spec passed because the target did
	// what the platform does (profile platform); on a failed rule, every
	// failing spec saw the target do what the platform does, so the failure
	// is the divergence and nothing else. Absent when the suites declare no
	// platform behaviour for the rule, or the target did not show it.
	AsPlatform bool `json:"as_platform,omitempty"`
}

// Note is what the renderings write beside a class-3 rule's status: on a
// failure, the divergence label (and whether the target was seen doing
// what the platform does); on a pass the platform's behaviour earned,
// which way it passed. "" for every other rule.
func (r Rule) Note() string {
	d := r.Divergence
	if d == nil {
		return ""
	}
	switch r.Status {
	case StatusFail:
		if d.AsPlatform {
			return d.Label + "; the target answered as the platform does"
		}
		return d.Label
	case StatusPass:
		if d.AsPlatform {
			return "passed as the platform does, not as the spec says: " + d.Does + " (" + d.Source + ")"
		}
	}
	return ""
}

// judgeDivergence sets the rule's Divergence from the rulebook's record
// and its specs, once its status is known.
func (r *Rule) judgeDivergence(d *Divergence) {
	if d == nil {
		r.Divergence = nil
		return
	}
	dd := Divergence{Does: d.Does, Source: d.Source, Label: d.Label}
	switch r.Status {
	case StatusPass:
		for _, s := range r.Specs {
			dd.AsPlatform = dd.AsPlatform || s.Status == StatusPass && s.AsPlatform
		}
	case StatusFail:
		dd.AsPlatform = true
		for _, s := range r.Specs {
			if s.Status == StatusFail && !s.AsPlatform {
				dd.AsPlatform = false
			}
		}
	}
	r.Divergence = &dd
	if r.Status == StatusPass && dd.AsPlatform {
		r.Reason = "passed as the platform does"
	}
}

// Spec is one Ginkgo spec that checks a rule.
type Spec struct {
	Text   string `json:"text"`
	Status Status `json:"status"`
	// AsPlatform: the target did what the platform does where the rule's
	// spec says otherwise (a report entry EntryPlatform of the spec): the
	// spec passed by it under profile platform, or failed under profile
	// spec with the platform's behaviour seen.
	AsPlatform  bool    `json:"as_platform,omitempty"`
	Reason      string  `json:"reason,omitempty"`
	DurationSec float64 `json:"duration_seconds"`
}

// Failure is why a spec failed or errored, with the traffic that showed it.
type Failure struct {
	Spec   string `json:"spec"`
	Status Status `json:"status"` // fail or error
	Kind   string `json:"kind"`   // see Kind* constants
	// Cause is, for a harness error, what kept the harness from judging, in
	// words that do not depend on the spec ("connection refused"): failures
	// with one cause are grouped under it. Empty when the suites did not say.
	Cause     string     `json:"cause,omitempty"`
	Message   string     `json:"message"`
	Location  string     `json:"location,omitempty"`
	Exchanges []Exchange `json:"exchanges"`
	// Curl repeats the shown exchange's request against the target, the
	// token taken from $V4CERT_TOKEN (Exchange.Curl).
	Curl string `json:"curl,omitempty"`
}

// Kinds of failure: the first means the target broke a rule, the others that
// the harness could not finish checking it.
const (
	KindAssertion   = "assertion"    // an expectation about the target's answer failed
	KindFixture     = "fixture"      // building the spec's world failed (suites/fixtures.go)
	KindSetup       = "setup"        // a Before* node failed
	KindCleanup     = "cleanup"      // an After* node or DeferCleanup failed
	KindTransport   = "transport"    // the target could not be reached or closed the connection
	KindRateLimited = "rate_limited" // the target answered 429 to a request whose spec did not test the rate limit
	KindPanic       = "panic"        // the spec panicked
	KindTimeout     = "timeout"      // a node ran past its deadline
	KindInterrupted = "interrupted"  // the run was interrupted (signal, suite timeout)
	KindAborted     = "aborted"      // the run was aborted
	KindSuite       = "suite"        // BeforeSuite or another suite-level node failed; the spec never ran
	KindProxy       = "proxy"        // the validating proxy saw the target break the rulebook
)

// Exchange is one request and its answer, as the suites attach them to a
// failed spec (report entry "exchange"); secrets are redacted in reports.
type Exchange struct {
	Method          string            `json:"method"`
	URL             string            `json:"url"`
	RequestHeaders  map[string]string `json:"request_headers,omitempty"`
	RequestBody     string            `json:"request_body,omitempty"`
	Status          int               `json:"status"`
	ResponseHeaders map[string]string `json:"response_headers,omitempty"`
	ResponseBody    string            `json:"response_body,omitempty"`
	// Failed: the failing assertion named this exchange (its message
	// printed it); reports show it open.
	Failed bool `json:"failed,omitempty"`
}

// Report entries the suites attach to a spec (Ginkgo's AddReportEntry), by
// name. They travel with the spec's report from a worker process to certify.
const (
	EntryExchange   = "exchange"          // an Exchange: a request and its answer, on failed specs
	EntryCoverage   = "v4cert.coverage"   // map[endpoint ID]map[status]count of the spec's own requests
	EntryViolations = "v4cert.violations" // []Violation the proxy found in the spec's traffic
	EntryHarness    = "v4cert.harness"    // a Harness: the failure is the harness's, not the target's
	EntryPlatform   = "v4cert.platform"   // a PlatformEntry: the target did what the platform does under a class-3 rule
	EntryHeld       = "v4cert.held"       // true: the spec never started, held by its worker until the run stopped
)

// PlatformEntry marks a spec in which the target did what the platform does
// under a class-3 rule, where the spec's text says otherwise: the suites
// attach it (EntryPlatform) when the platform's behaviour the spec declares
// held and the spec's own did not.
type PlatformEntry struct {
	Rule string `json:"rule"`
}

// Harness marks a spec's failure as the harness's own: the suites attach it
// (EntryHarness) when an expectation about the world they were building
// failed, so the rule is an error, not a failure of the target.
type Harness struct {
	Kind   string `json:"kind"`            // KindFixture, KindTransport or KindRateLimited
	Detail string `json:"detail"`          // what the harness was doing
	Cause  string `json:"cause,omitempty"` // what went wrong, without the spec's particulars ("connection refused")
}

// String is the exchange as a person reads it, headers sorted.
func (e Exchange) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s\n", e.Method, e.URL)
	for _, k := range sortedKeys(e.RequestHeaders) {
		fmt.Fprintf(&b, "%s: %s\n", k, e.RequestHeaders[k])
	}
	if e.RequestBody != "" {
		b.WriteString("\n" + e.RequestBody + "\n")
	}
	fmt.Fprintf(&b, "→ %d\n", e.Status)
	for _, k := range sortedKeys(e.ResponseHeaders) {
		fmt.Fprintf(&b, "%s: %s\n", k, e.ResponseHeaders[k])
	}
	if e.ResponseBody != "" {
		b.WriteString("\n" + e.ResponseBody)
	}
	return strings.TrimRight(b.String(), "\n")
}

// Coverage says which endpoints of the rulebook the run's requests reached
// and with which statuses.
type Coverage struct {
	Endpoints int                `json:"endpoints"`          // certified endpoints in the rulebook (provisioning excluded)
	Touched   int                `json:"touched"`            // certified endpoints the run reached
	Unmatched int                `json:"unmatched_requests"` // requests under /api/v4 no endpoint matched
	Entries   []EndpointCoverage `json:"entries"`
}

// EndpointCoverage is one endpoint's use by the run.
type EndpointCoverage struct {
	ID           string         `json:"id"`
	Area         string         `json:"area"`
	Method       string         `json:"method"`
	Path         string         `json:"path"`
	Provisioning bool           `json:"provisioning,omitempty"`
	Requests     int            `json:"requests"`
	Statuses     map[string]int `json:"statuses"` // status code (as a string, JSON keys are strings) → answers seen
}

// ProxyRun is what the validating proxy saw when the run went through it.
type ProxyRun struct {
	Summary    *ProxySummary `json:"summary,omitempty"`
	Violations []Violation   `json:"violations"`
}

// Violation mirrors one line of the proxy's violations file (proxy.Violation);
// reports reads the documented JSON, not the proxy's Go types.
type Violation struct {
	Index    int    `json:"index"`
	Severity string `json:"severity"`
	Endpoint string `json:"endpoint,omitempty"`
	Rule     string `json:"rule,omitempty"`
	Schema   string `json:"schema,omitempty"`
	Pointer  string `json:"pointer,omitempty"`
	Expected string `json:"expected"`
	Seen     string `json:"seen"`
	Method   string `json:"method"`
	URL      string `json:"url"`
	Status   int    `json:"status"`
	Spec     string `json:"spec,omitempty"` // the spec whose traffic showed it, when known
	// Divergence labels a finding under a class-3 rule (proxy.Violation).
	Divergence string `json:"divergence,omitempty"`
}

// ProxySummary mirrors the proxy's summary (proxy.Summary).
type ProxySummary struct {
	Exchanges  int                       `json:"exchanges"`
	Errors     int                       `json:"errors"`
	Warnings   int                       `json:"warnings"`
	Unknown    int                       `json:"unknown_endpoints"`
	Coverage   map[string]map[string]int `json:"coverage,omitempty"`
	Endpoints  int                       `json:"endpoints_in_rulebook"`
	CoveredEPs int                       `json:"endpoints_covered"`
}

// Shown is the index of the exchange a failure shows open: the one its
// assertion named, else the last one made (-1 when there is none).
func (f Failure) Shown() int {
	for i, x := range f.Exchanges {
		if x.Failed {
			return i
		}
	}
	return len(f.Exchanges) - 1
}

// Rule returns the rule with the given ID, or nil.
func (r *Report) Rule(id string) *Rule {
	for i := range r.Rules {
		if r.Rules[i].ID == id {
			return &r.Rules[i]
		}
	}
	return nil
}

// Load reads a report.json.
func Load(path string) (*Report, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r Report
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if r.Format != Format {
		return nil, fmt.Errorf("%s: format %q, want %q", path, r.Format, Format)
	}
	return &r, nil
}

// FailedRuleIDs are the rules of r that failed or errored, in report order.
func (r *Report) FailedRuleIDs() []string {
	var ids []string
	for _, rule := range r.Rules {
		if rule.Status == StatusFail || rule.Status == StatusError {
			ids = append(ids, rule.ID)
		}
	}
	return ids
}

// ViolationGroup is the proxy's findings of one kind (same severity,
// endpoint, rule or schema, expectation and observation), for people: a
// deprecated field seen three hundred times is one line, not three hundred.
type ViolationGroup struct {
	Severity string
	Endpoint string
	Where    string // rule ID, or schema and pointer
	Expected string
	Seen     string
	Count    int
	Example  Violation // the first of them
}

// GroupViolations groups p's findings, errors first, then by count.
func (p *ProxyRun) GroupViolations() []ViolationGroup {
	if p == nil {
		return nil
	}
	idx := map[string]int{}
	var out []ViolationGroup
	for _, v := range p.Violations {
		where := v.Rule
		if where == "" {
			where = v.Schema + v.Pointer
		}
		key := strings.Join([]string{v.Severity, v.Endpoint, where, v.Expected, v.Seen}, "\x00")
		i, ok := idx[key]
		if !ok {
			i = len(out)
			idx[key] = i
			out = append(out, ViolationGroup{Severity: v.Severity, Endpoint: v.Endpoint, Where: where,
				Expected: v.Expected, Seen: v.Seen, Example: v})
		}
		out[i].Count++
	}
	sort.SliceStable(out, func(i, j int) bool {
		if (out[i].Severity == "warning") != (out[j].Severity == "warning") {
			return out[j].Severity == "warning"
		}
		return out[i].Count > out[j].Count
	})
	return out
}

// CauseGroup is the rules that errored for one cause.
type CauseGroup struct {
	Cause string
	Rules []string // IDs, in report order
}

// ErrorCause is why a rule errored, in words shared by every rule that
// errored for the same reason: the cause the suites gave (e.g. "connection
// refused"), else the kind and the first line of the first error's message,
// else the rule's reason (a spec no report came back for).
func (r Rule) ErrorCause() string {
	for _, f := range r.Failures {
		if f.Status != StatusError {
			continue
		}
		if f.Cause != "" {
			return f.Cause
		}
		if line := firstLine(f.Message); line != "" {
			return f.Kind + ": " + line
		}
		return f.Kind
	}
	return firstLine(r.Reason)
}

// ErrorCauses groups the errored rules by cause, the largest group first
// (ties in order of first appearance), so a run that lost its target says
// "connection refused (545)" once instead of 545 times.
func (r *Report) ErrorCauses() []CauseGroup {
	var out []CauseGroup
	idx := map[string]int{}
	for _, rule := range r.Rules {
		if rule.Status != StatusError {
			continue
		}
		c := rule.ErrorCause()
		i, ok := idx[c]
		if !ok {
			i = len(out)
			idx[c] = i
			out = append(out, CauseGroup{Cause: c})
		}
		out[i].Rules = append(out[i].Rules, rule.ID)
	}
	sort.SliceStable(out, func(i, j int) bool { return len(out[i].Rules) > len(out[j].Rules) })
	return out
}

// maxCausesInLine bounds the causes ErrorSummary names; the rest are counted.
const maxCausesInLine = 4

// ErrorSummary is the errored rules in one line, grouped by cause:
// "545 rules errored: connection refused (540), interrupted (5)"; "" when
// none errored.
func (r *Report) ErrorSummary() string {
	groups := r.ErrorCauses()
	if len(groups) == 0 {
		return ""
	}
	n := 0
	var parts []string
	for i, g := range groups {
		n += len(g.Rules)
		if i < maxCausesInLine {
			parts = append(parts, fmt.Sprintf("%s (%d)", clipCause(g.Cause), len(g.Rules)))
		}
	}
	if rest := len(groups) - maxCausesInLine; rest > 0 {
		m := 0
		for _, g := range groups[maxCausesInLine:] {
			m += len(g.Rules)
		}
		parts = append(parts, fmt.Sprintf("%d other causes (%d)", rest, m))
	}
	rules := "rules"
	if n == 1 {
		rules = "rule"
	}
	return fmt.Sprintf("%d %s errored: %s", n, rules, strings.Join(parts, ", "))
}

// clipCause keeps a cause short enough for a line of causes.
func clipCause(c string) string {
	if len(c) <= 120 {
		return c
	}
	cut := 117
	for cut > 0 && !utf8.RuneStart(c[cut]) {
		cut--
	}
	return c[:cut] + "…"
}
