package reports

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/v4cert/v4cert/specs"
)

// Run is what a certify run knows beyond Ginkgo's report.
type Run struct {
	Target      string
	Version     string
	Seed        int64
	LabelFilter string
	// Profile is what the rules are judged by (ProfileSpec when empty).
	Profile  string
	Shard    *Shard
	ViaProxy bool
	RerunOf  string
	Started  time.Time
	Duration time.Duration
	// Secrets are values to hide wherever they appear (the administrator token).
	Secrets []string
	// Coverage counts, per endpoint ID, the statuses of requests no spec's
	// EntryCoverage accounts for; the empty ID counts requests no endpoint
	// matched.
	Coverage map[string]map[int]int
	// Plan is every It spec of the suites' tree, in tree order, with whether
	// the run selected it. Specs the run selected and Ginkgo never reported
	// (a worker died, the run stopped) are judged from it. Without a plan,
	// the It specs of Ginkgo's report are the plan.
	Plan []PlannedSpec
	// Proxy holds violations no spec's EntryViolations carries, and the
	// proxy's own summary when it has one.
	Proxy *ProxyRun
	// NotRun is why the run could not start: the verdict is NOT RUN.
	NotRun string
	// Incomplete is why the run stopped before the end (a signal, the
	// timeout, the target stopped answering): the verdict is INCOMPLETE.
	Incomplete string
	// TargetDown is set, with Incomplete, when the run stopped because the
	// target stopped answering.
	TargetDown *TargetDown
	// Stopped is why selected specs were left unrun on purpose (--fail-fast);
	// they are skipped, not errors.
	Stopped string
	// HarnessErrors are failures of the run's machinery outside Ginkgo's
	// report (a worker process that died).
	HarnessErrors []Failure
}

// PlannedSpec is one spec of the tree as the run planned it.
type PlannedSpec struct {
	Spec     types.SpecReport // as the preview saw it: texts, labels, location
	Excluded string           // "" when selected; ExcludedByFilter or ExcludedByShard
}

// Why a planned spec was left out.
const (
	ExcludedByFilter = "filter" // the label filter (--label-filter, --focus, --skip, --rerun-failed)
	ExcludedByShard  = "shard"  // another shard runs it
)

// maxMessage bounds a failure message: Gomega prints whole bodies.
const maxMessage = 8000

// Build judges every rule of book from a Ginkgo report.
func Build(book *specs.Rulebook, gr types.Report, run Run) Report {
	red := NewRedactor(run.Secrets...)
	rep := Report{
		Format:       Format,
		Target:       red.Text(run.Target),
		Version:      run.Version,
		Rulebook:     Rulebook{Digest: book.Digest, Rules: len(book.Rules), Endpoints: len(book.Endpoints)},
		Seed:         run.Seed,
		LabelFilter:  run.LabelFilter,
		Profile:      run.Profile,
		Shard:        run.Shard,
		ViaProxy:     run.ViaProxy,
		RerunOf:      run.RerunOf,
		Started:      run.Started.UTC().Truncate(time.Millisecond),
		DurationSec:  round3(run.Duration.Seconds()),
		Rules:        []Rule{},
		SuiteErrors:  []Failure{},
		UnknownRules: []string{},
	}
	if rep.Version == "" {
		rep.Version = "dev"
	}
	if rep.Profile == "" {
		rep.Profile = ProfileSpec
	}
	if run.Shard != nil && run.Shard.Total <= 1 {
		rep.Shard = nil
	}

	setupFailed := rep.addSuiteErrors(gr, run, red)

	plan := run.Plan
	if len(plan) == 0 {
		plan = planOf(gr, run.LabelFilter)
	}
	ran := map[string]types.SpecReport{}
	for _, s := range gr.SpecReports {
		if s.LeafNodeType == types.NodeTypeIt {
			ran[specKey(s)] = s
		}
	}

	// What a selected spec that never ran is, depends on why it did not.
	unrun := judged{spec: Spec{Status: StatusSkipped}}
	switch {
	case run.NotRun != "":
		unrun.spec.Reason = "not run: " + run.NotRun
	case run.Incomplete != "":
		unrun.spec.Reason = "not run: " + run.Incomplete
	case run.Stopped != "":
		unrun.spec.Reason = "not run: " + run.Stopped
	case setupFailed != "":
		unrun.spec.Reason = "not run: " + setupFailed
	default:
		// Nothing explains it: the harness lost the spec.
		unrun.spec.Status, unrun.kind, unrun.spec.Reason = StatusError, KindSuite, "not run: no report of this spec reached certify"
	}

	specsByRule := map[string][]judged{}
	excluded := map[string]string{} // rule → why its specs were left out
	planned := map[string]bool{}    // rules with a spec in the tree
	unknown := map[string]bool{}
	anyRan := false
	for _, p := range plan {
		var j judged
		if p.Excluded == "" {
			s, ok := ran[specKey(p.Spec)]
			switch {
			case !ok || s.State == types.SpecStateSkipped && s.Failure.Message == "":
				j = unrun
			case s.State == types.SpecStateSkipped && s.Failure.Message == TargetDownSkip && run.Incomplete != "":
				// Held at the worker's gate, then let go when the target was found down.
				j = unrun
			case s.State.Is(types.SpecStateInterrupted) && run.Incomplete != "" && held(s):
				// The run's stop interrupted it while it waited to start.
				j = unrun
			case run.Stopped != "" && s.State.Is(types.SpecStateInterrupted|types.SpecStateAborted):
				// Stopped by another process's --fail-fast: it judged nothing.
				j = unrun
			default:
				j = judge(s, red)
				anyRan = anyRan || s.State != types.SpecStateSkipped
			}
			j.spec.Text = p.Spec.FullText()
		}
		asPlatform := platformRules(ran[specKey(p.Spec)])
		for _, id := range ruleIDs(p.Spec) {
			j := j
			j.spec.AsPlatform = p.Excluded == "" && asPlatform[id]
			if book.Rule(id) == nil {
				unknown[id] = true
				continue
			}
			planned[id] = true
			if p.Excluded != "" {
				if excluded[id] != ExcludedByShard {
					excluded[id] = p.Excluded
				}
				continue
			}
			specsByRule[id] = append(specsByRule[id], j)
		}
	}
	violations := append([]Violation(nil), run.Proxy.list()...)
	for _, p := range plan {
		if p.Excluded == "" {
			violations = append(violations, entryViolations(ran[specKey(p.Spec)])...)
		}
	}
	// A proxy finding that names a rule fails that rule, whatever the specs
	// said: the traffic showed the target breaking it.
	for _, v := range violations {
		if v.Severity != severityError || book.Rule(v.Rule) == nil {
			continue
		}
		msg := red.Text(fmt.Sprintf("proxy violation: expected %s, seen %s", v.Expected, v.Seen))
		spec := v.Spec
		if spec == "" {
			spec = outsideAnySpec
		}
		specsByRule[v.Rule] = append(specsByRule[v.Rule], judged{
			spec: Spec{Text: spec, Status: StatusFail, Reason: KindProxy + ": " + firstLine(msg)},
			kind: KindProxy,
			failure: &Failure{Spec: spec, Status: StatusFail, Kind: KindProxy, Message: msg,
				Exchanges: []Exchange{{Method: v.Method, URL: red.Text(v.URL), Status: v.Status, Failed: true}}},
		})
	}
	for id := range unknown {
		rep.UnknownRules = append(rep.UnknownRules, id)
	}
	sort.Strings(rep.UnknownRules)

	areaIndex := map[string]int{}
	for _, br := range book.Rules {
		r := Rule{ID: br.ID, Area: br.Area, Endpoint: br.Endpoint, Says: br.Says, Source: br.Source, Paid: br.Paid,
			Specs: []Spec{}, Failures: []Failure{}}
		for _, j := range specsByRule[br.ID] {
			r.Specs = append(r.Specs, j.spec)
			if j.failure != nil {
				r.Failures = append(r.Failures, *j.failure)
			}
		}
		r.sortSpecs()
		switch {
		case len(r.Specs) > 0:
			r.Status, r.Reason = aggregateSpecs(r.Specs)
			r.judgeDivergence(divergenceOf(br))
		case excluded[br.ID] == ExcludedByShard:
			r.Status, r.Filtered, r.Reason = StatusSkipped, true, "runs in another shard"
		case excluded[br.ID] != "":
			r.Status, r.Filtered, r.Reason = StatusSkipped, true, "filtered out by the label filter"
		case !planned[br.ID] && len(plan) == 0 && run.NotRun != "":
			// The run stopped before it knew the tree.
			r.Status, r.Reason = StatusSkipped, unrun.spec.Reason
		default:
			r.Status, r.Reason = StatusNotCovered, "no spec checks this rule"
		}
		if r.Divergence == nil {
			r.judgeDivergence(divergenceOf(br))
		}
		rep.Rules = append(rep.Rules, r)
		rep.Counts.add(r)
		i, ok := areaIndex[r.Area]
		if !ok {
			i = len(rep.Areas)
			areaIndex[r.Area] = i
			rep.Areas = append(rep.Areas, Area{Name: r.Area})
		}
		rep.Areas[i].Counts.add(r)
	}

	seen := mergeCoverage(run.Coverage)
	for _, p := range plan {
		if p.Excluded == "" {
			addCoverage(seen, ran[specKey(p.Spec)])
		}
	}
	// A suite node's requests are the run's too: a worker's last teardown
	// ends after its last spec's report went (suites, endTeardowns).
	for _, s := range gr.SpecReports {
		if s.LeafNodeType.Is(types.NodeTypesForSuiteLevelNodes) {
			addCoverage(seen, s)
		}
	}
	rep.Coverage = coverage(book, seen)
	if run.ViaProxy || run.Proxy != nil {
		rep.Proxy = proxyRun(run.Proxy, violations, rep.Coverage, red)
	}

	switch {
	case run.NotRun != "":
		rep.decide(VerdictNotRun, run.NotRun)
	case setupFailed != "" && !anyRan:
		rep.decide(VerdictNotRun, setupFailed)
	case run.Incomplete != "":
		rep.TargetDown = run.TargetDown
		rep.decide(VerdictIncomplete, run.Incomplete)
	default:
		rep.decide("", "")
	}
	rep.addCurl()
	return rep
}

// addCurl gives every failure with traffic the curl line repeating the
// exchange it shows.
func (r *Report) addCurl() {
	set := func(f *Failure) {
		if i := f.Shown(); i >= 0 && f.Curl == "" {
			f.Curl = f.Exchanges[i].Curl()
		}
	}
	for i := range r.Rules {
		for j := range r.Rules[i].Failures {
			set(&r.Rules[i].Failures[j])
		}
	}
	for i := range r.SuiteErrors {
		set(&r.SuiteErrors[i])
	}
}

// decide sets the verdict: the one given with its cause, or, for a run that
// completed (verdict ""), CONFORMANT when nothing failed or errored and
// something passed, NOT RUN when every rule the run selected was skipped
// (nothing was judged, and nothing went wrong either).
func (rep *Report) decide(verdict, cause string) {
	rep.Verdict, rep.Cause, rep.Conformant, rep.Complete, rep.AllSkipped = verdict, cause, false, false, false
	if verdict != "" {
		return
	}
	c := rep.Counts
	if c.Pass+c.Fail+c.Error == 0 && c.Skipped > c.Filtered && len(rep.SuiteErrors) == 0 && rep.Proxy.errors() == 0 {
		rep.Verdict, rep.Cause, rep.AllSkipped = VerdictNotRun, rep.allSkippedCause(), true
		return
	}
	rep.Conformant = rep.Counts.Fail == 0 && rep.Counts.Error == 0 && len(rep.SuiteErrors) == 0 &&
		rep.Counts.Pass > 0 && rep.Proxy.errors() == 0
	rep.Complete = rep.Counts.Skipped == 0 && rep.Counts.NotCovered == 0
	rep.Verdict = VerdictNotConformant
	if rep.Conformant {
		rep.Verdict = VerdictConformant
	}
}

// maxSkipReasons bounds the reasons the cause of an all-skipped run names.
const maxSkipReasons = 3

// allSkippedCause says why a run judged nothing: what selected its rules
// and the reasons their specs skipped, the commonest first.
func (rep *Report) allSkippedCause() string {
	count := map[string]int{}
	var reasons []string
	n := 0
	for _, r := range rep.Rules {
		if r.Status != StatusSkipped || r.Filtered {
			continue
		}
		n++
		reason := firstLine(r.Reason)
		if reason == "" {
			reason = "no reason given"
		}
		if count[reason] == 0 {
			reasons = append(reasons, reason)
		}
		count[reason]++
	}
	sort.SliceStable(reasons, func(i, j int) bool { return count[reasons[i]] > count[reasons[j]] })
	var parts []string
	for i, reason := range reasons {
		if i == maxSkipReasons {
			parts = append(parts, fmt.Sprintf("%d other reasons", len(reasons)-i))
			break
		}
		parts = append(parts, fmt.Sprintf("%s (%d)", reason, count[reason]))
	}
	what := fmt.Sprintf("every one of the %d rules the run selected", n)
	if rep.LabelFilter != "" {
		what = fmt.Sprintf("the label filter %q selected %d rules, and every one", ReadableFilter(rep.LabelFilter), n)
		if n == 1 {
			what = fmt.Sprintf("the label filter %q selected 1 rule, and it", ReadableFilter(rep.LabelFilter))
		}
	}
	if rep.Shard != nil {
		what = "in shard " + rep.Shard.String() + ", " + what
	}
	return what + " was skipped, so nothing was judged: " + strings.Join(parts, "; ")
}

// sortSpecs orders a rule's specs and failures by spec text, so that the
// report is the same however the specs were spread over processes and shards.
func (r *Rule) sortSpecs() {
	sort.SliceStable(r.Specs, func(i, j int) bool { return r.Specs[i].Text < r.Specs[j].Text })
	// The target's failures before the harness's errors: a failing rule
	// shows first what failed it.
	sort.SliceStable(r.Failures, func(i, j int) bool {
		a, b := r.Failures[i], r.Failures[j]
		if (a.Status == StatusFail) != (b.Status == StatusFail) {
			return a.Status == StatusFail
		}
		return a.Spec < b.Spec
	})
}

// addSuiteErrors records the failures of suite-level nodes and of the run's
// machinery, and returns why the suite's setup failed ("" when it did not).
func (rep *Report) addSuiteErrors(gr types.Report, run Run, red *Redactor) string {
	setupFailed := ""
	seen := map[string]bool{}
	for _, s := range gr.SpecReports {
		if !s.LeafNodeType.Is(types.NodeTypesForSuiteLevelNodes) || s.State.Is(types.SpecStatePassed|types.SpecStateSkipped|types.SpecStatePending) {
			continue
		}
		// A suite node the run's own stop cut short (the target went down, a
		// signal, --fail-fast) is what the stop's cause already says.
		if s.State == types.SpecStateInterrupted && (run.Incomplete != "" || run.Stopped != "") {
			continue
		}
		// Every parallel process reports a failed SynchronizedBeforeSuite;
		// only the first one ran it and says why.
		if s.LeafNodeType == types.NodeTypeSynchronizedBeforeSuite && s.ParallelProcess > 1 {
			continue
		}
		msg := red.Text(failureMessage(s))
		if key := s.LeafNodeType.String() + "\x00" + msg; seen[key] {
			continue
		} else {
			seen[key] = true
		}
		rep.SuiteErrors = append(rep.SuiteErrors, Failure{
			Spec: s.LeafNodeType.String(), Status: StatusError, Kind: KindSuite,
			Message: msg, Location: location(s.Failure.Location), Exchanges: exchangesOf(s, red),
		})
		if s.LeafNodeType.Is(types.NodeTypeBeforeSuite|types.NodeTypeSynchronizedBeforeSuite) && setupFailed == "" {
			setupFailed = "the suite's setup (" + s.LeafNodeType.String() + ") failed: " + firstLine(msg)
		}
	}
	// Ginkgo's own reasons ("Interrupted by User", "Suite Timeout Elapsed")
	// are what a stopped run's cause already says.
	if run.NotRun == "" && run.Incomplete == "" && run.Stopped == "" {
		for _, reason := range gr.SpecialSuiteFailureReasons {
			if !seen[reason] {
				seen[reason] = true
				rep.SuiteErrors = append(rep.SuiteErrors, Failure{Spec: "suite", Status: StatusError, Kind: KindInterrupted, Message: reason})
			}
		}
	}
	for _, f := range run.HarnessErrors {
		f.Message = red.Text(f.Message)
		rep.SuiteErrors = append(rep.SuiteErrors, f)
	}
	return setupFailed
}

// planOf makes a plan from the report alone: its It specs, those the label
// filter rejects or another shard runs left out.
func planOf(gr types.Report, labelFilter string) []PlannedSpec {
	var filter types.LabelFilter
	if labelFilter != "" {
		if f, err := types.ParseLabelFilter(labelFilter); err == nil {
			filter = f
		}
	}
	var out []PlannedSpec
	for _, s := range gr.SpecReports {
		if s.LeafNodeType != types.NodeTypeIt {
			continue
		}
		p := PlannedSpec{Spec: s}
		switch {
		case s.State == types.SpecStateSkipped && strings.HasPrefix(s.Failure.Message, ShardSkipPrefix):
			p.Excluded = ExcludedByShard
		case s.State == types.SpecStateSkipped && s.Failure.Message == "" && filter != nil && !filter(s.Labels()):
			p.Excluded = ExcludedByFilter
		}
		out = append(out, p)
	}
	return out
}

// ShardSkipPrefix starts the Skip message of a spec another shard runs.
const ShardSkipPrefix = "runs in shard"

// held: the spec's worker held it before it started (EntryHeld).
func held(s types.SpecReport) bool {
	for _, e := range s.ReportEntries {
		if e.Name == EntryHeld {
			return true
		}
	}
	return false
}

// TargetDownSkip is the Skip message of a spec a certify worker did not
// start because certify found the target down: the report gives it the
// run's own cause, like every spec the run never reached.
const TargetDownSkip = "not run: the target stopped answering"

func ruleIDs(s types.SpecReport) []string {
	var out []string
	for _, l := range s.Labels() {
		if id, ok := strings.CutPrefix(l, "rule:"); ok {
			out = append(out, id)
		}
	}
	return out
}

// severityError is the proxy's severity of a finding that breaks the
// rulebook (warnings and information break nothing).
const severityError = "error"

func (p *ProxyRun) errors() int {
	if p == nil {
		return 0
	}
	n := 0
	for _, v := range p.Violations {
		if v.Severity == severityError {
			n++
		}
	}
	return n
}

func (p *ProxyRun) list() []Violation {
	if p == nil {
		return nil
	}
	return p.Violations
}

// entryViolations reads what the proxy found in a spec's traffic
// (EntryViolations), naming the spec.
func entryViolations(s types.SpecReport) []Violation {
	var out []Violation
	for _, e := range s.ReportEntries {
		if e.Name != EntryViolations {
			continue
		}
		var vs []Violation
		switch v := e.Value.GetRawValue().(type) {
		case []Violation:
			vs = v
		default:
			if json.Unmarshal([]byte(e.Value.AsJSON), &vs) != nil {
				continue
			}
		}
		for _, v := range vs {
			v.Spec = s.FullText()
			out = append(out, v)
		}
	}
	return out
}

// mergeCoverage copies counts into a fresh map.
func mergeCoverage(maps ...map[string]map[int]int) map[string]map[int]int {
	out := map[string]map[int]int{}
	for _, m := range maps {
		for id, statuses := range m {
			if out[id] == nil {
				out[id] = map[int]int{}
			}
			for st, n := range statuses {
				out[id][st] += n
			}
		}
	}
	return out
}

// addCoverage adds a spec's own requests (EntryCoverage) to seen.
func addCoverage(seen map[string]map[int]int, s types.SpecReport) {
	for _, e := range s.ReportEntries {
		if e.Name != EntryCoverage {
			continue
		}
		var m map[string]map[int]int
		switch v := e.Value.GetRawValue().(type) {
		case map[string]map[int]int:
			m = v
		default:
			if json.Unmarshal([]byte(e.Value.AsJSON), &m) != nil {
				continue
			}
		}
		for id, statuses := range m {
			if seen[id] == nil {
				seen[id] = map[int]int{}
			}
			for st, n := range statuses {
				seen[id][st] += n
			}
		}
	}
}

// proxyRun is the proxy section of a report: every violation, secrets
// hidden, and the proxy's summary (counted from the specs' traffic when the
// proxies of several worker processes saw it).
func proxyRun(given *ProxyRun, violations []Violation, cov Coverage, red *Redactor) *ProxyRun {
	p := &ProxyRun{Violations: make([]Violation, 0, len(violations))}
	for _, v := range violations {
		v.URL, v.Seen = red.Text(v.URL), red.Text(v.Seen)
		p.Violations = append(p.Violations, v)
	}
	if given != nil && given.Summary != nil {
		sum := *given.Summary
		p.Summary = &sum
		return p
	}
	sum := &ProxySummary{Coverage: map[string]map[string]int{}, Unknown: cov.Unmatched, Exchanges: cov.Unmatched,
		Endpoints: len(cov.Entries)}
	for _, e := range cov.Entries {
		sum.Exchanges += e.Requests
		if e.Requests > 0 {
			sum.CoveredEPs++
			sum.Coverage[e.ID] = e.Statuses
		}
	}
	for _, v := range p.Violations {
		if v.Severity == severityError {
			sum.Errors++
		} else {
			sum.Warnings++
		}
	}
	p.Summary = sum
	return p
}

// judged is one spec's outcome.
type judged struct {
	spec    Spec
	kind    string
	failure *Failure
}

// SpecKey identifies a spec within one binary's tree: its full text and
// where it is written.
func SpecKey(s types.SpecReport) string { return specKey(s) }

func specKey(s types.SpecReport) string {
	return s.FullText() + "\x00" + s.LeafNodeLocation.String()
}

// judge decides one spec's status. A spec fails only when an expectation
// about the target's answer failed in the spec's own body; everything that
// kept the harness from judging is an error.
func judge(s types.SpecReport, red *Redactor) judged {
	j := judged{spec: Spec{Text: s.FullText(), DurationSec: round3(s.RunTime.Seconds())}}
	switch s.State {
	case types.SpecStatePassed:
		j.spec.Status = StatusPass
		return j
	case types.SpecStatePending:
		j.spec.Status, j.spec.Reason = StatusSkipped, "pending: the spec is not written yet"
		return j
	case types.SpecStateSkipped:
		// Skip("why") in the spec: an optional feature the target lacks.
		j.spec.Status, j.spec.Reason = StatusSkipped, s.Failure.Message
		if j.spec.Reason == "" {
			j.spec.Reason = "not run"
		}
		return j
	}

	j.kind = failureKind(s)
	j.spec.Status = StatusError
	if j.kind == KindAssertion || j.kind == KindProxy {
		j.spec.Status = StatusFail
	}
	msg := failureMessage(s)
	j.spec.Reason = j.kind + ": " + firstLine(red.Text(msg))
	j.failure = &Failure{
		Spec: s.FullText(), Status: j.spec.Status, Kind: j.kind, Message: red.Text(msg),
		Location: location(s.Failure.Location), Exchanges: exchangesOf(s, red),
	}
	// The harness's own word for what went wrong, whichever node it was in
	// (a cleanup that could not reach the target is the same cause).
	if h, ok := harnessOf(s); ok && j.spec.Status == StatusError {
		j.failure.Cause = red.Text(h.Cause)
	}
	return j
}

// proxyMarker starts the failure message of a spec the in-process proxy of
// the suites (V4CERT_PROXY) failed.
const proxyMarker = "proxy violation"

func failureKind(s types.SpecReport) string {
	switch s.State {
	case types.SpecStatePanicked:
		return KindPanic
	case types.SpecStateTimedout:
		return KindTimeout
	case types.SpecStateInterrupted:
		return KindInterrupted
	case types.SpecStateAborted:
		return KindAborted
	}
	f := s.Failure
	if f.FailureNodeContext != types.FailureNodeIsLeafNode {
		switch {
		case strings.Contains(f.Message, proxyMarker):
			return KindProxy
		case f.FailureNodeType.Is(types.NodeTypeBeforeEach | types.NodeTypeJustBeforeEach | types.NodeTypeBeforeAll):
			return KindSetup
		case f.FailureNodeType.Is(types.NodeTypesForSuiteLevelNodes):
			return KindSuite
		default:
			return KindCleanup
		}
	}
	// The suites mark an expectation the harness needed (building a
	// fixture, reaching the target) when it fails: EntryHarness.
	if h, ok := harnessOf(s); ok {
		return h.Kind
	}
	if strings.HasPrefix(f.Message, proxyMarker) {
		return KindProxy
	}
	return KindAssertion
}

// HarnessEntry reads the mark the suites put on a spec whose failure was
// the harness's own (EntryHarness), and when they put it: the moment a
// transport error struck, for certify to tell when a target stopped
// answering.
func HarnessEntry(s types.SpecReport) (Harness, time.Time, bool) {
	for _, e := range s.ReportEntries {
		if e.Name != EntryHarness {
			continue
		}
		if h, ok := harnessOf(types.SpecReport{ReportEntries: []types.ReportEntry{e}}); ok {
			return h, e.Time, true
		}
	}
	return Harness{}, time.Time{}, false
}

// divergenceOf is the rulebook's record of a class-3 rule; nil for the others.
func divergenceOf(r *specs.Rule) *Divergence {
	label := r.Divergence()
	if label == "" {
		return nil
	}
	return &Divergence{Does: r.Platform.Does, Source: r.Platform.Source, Label: label}
}

// platformRules are the rules under which the spec saw the target do what
// the platform does (its EntryPlatform report entries).
func platformRules(s types.SpecReport) map[string]bool {
	var out map[string]bool
	for _, e := range s.ReportEntries {
		if e.Name != EntryPlatform {
			continue
		}
		var pe PlatformEntry
		switch v := e.Value.GetRawValue().(type) {
		case PlatformEntry:
			pe = v
		case *PlatformEntry:
			pe = *v
		default:
			if json.Unmarshal([]byte(e.Value.AsJSON), &pe) != nil {
				continue
			}
		}
		if out == nil {
			out = map[string]bool{}
		}
		out[pe.Rule] = true
	}
	return out
}

// harnessOf reads the spec's EntryHarness, if its failure is the harness's.
func harnessOf(s types.SpecReport) (Harness, bool) {
	for _, e := range s.ReportEntries {
		if e.Name != EntryHarness {
			continue
		}
		var h Harness
		switch v := e.Value.GetRawValue().(type) {
		case Harness:
			h = v
		case *Harness:
			h = *v
		default:
			if json.Unmarshal([]byte(e.Value.AsJSON), &h) != nil {
				continue
			}
		}
		if h.Kind == KindFixture || h.Kind == KindTransport || h.Kind == KindRateLimited {
			return h, true
		}
	}
	return Harness{}, false
}

// aggregateSpecs folds a rule's specs into one status: fail if any failed,
// error if any errored, skipped only if all were skipped, pass otherwise.
func aggregateSpecs(specs []Spec) (Status, string) {
	var fails, errs, skips int
	var firstErr string
	var skipReasons []string
	for _, s := range specs {
		switch s.Status {
		case StatusFail:
			fails++
		case StatusError:
			errs++
			if firstErr == "" {
				firstErr = s.Reason
			}
		case StatusSkipped:
			skips++
			if !slices.Contains(skipReasons, s.Reason) {
				skipReasons = append(skipReasons, s.Reason)
			}
		}
	}
	switch {
	case fails > 0:
		return StatusFail, fmt.Sprintf("%d of %d specs failed", fails, len(specs))
	case errs > 0:
		return StatusError, firstErr
	case skips == len(specs):
		return StatusSkipped, strings.Join(skipReasons, "; ")
	}
	return StatusPass, ""
}

func failureMessage(s types.SpecReport) string {
	f := s.Failure
	msg := f.Message
	if f.ForwardedPanic != "" {
		msg = strings.TrimSpace(msg + "\n" + f.ForwardedPanic)
	}
	if len(msg) > maxMessage {
		msg = msg[:maxMessage] + "…"
	}
	return msg
}

// location names the failure's line relative to the module (suites/users.go:42).
func location(cl types.CodeLocation) string {
	if cl.FileName == "" {
		return ""
	}
	name := cl.FileName
	if i := strings.LastIndex(name, "/suites/"); i >= 0 {
		name = name[i+1:]
	} else if i := strings.LastIndex(name, "/"); i >= 0 {
		name = name[i+1:]
	}
	return name + ":" + strconv.Itoa(cl.LineNumber)
}

// exchangesOf reads the spec's "exchange" report entries: reports.Exchange
// values in process, their JSON from a rehydrated report, or plain text.
func exchangesOf(s types.SpecReport, red *Redactor) []Exchange {
	out := []Exchange{}
	for _, e := range s.ReportEntries {
		if e.Name != "exchange" {
			continue
		}
		if x, ok := entryExchange(e); ok {
			out = append(out, red.Exchange(x))
		}
	}
	return out
}

func entryExchange(e types.ReportEntry) (Exchange, bool) {
	switch v := e.Value.GetRawValue().(type) {
	case Exchange:
		return v, true
	case *Exchange:
		return *v, true
	}
	if e.Value.AsJSON != "" {
		var x Exchange
		if json.Unmarshal([]byte(e.Value.AsJSON), &x) == nil && x.Method != "" {
			return x, true
		}
	}
	return parseExchangeText(e.Value.String())
}

// parseExchangeText reads the text form "METHOD URL\n→ STATUS\nbody".
func parseExchangeText(t string) (Exchange, bool) {
	first, rest, _ := strings.Cut(t, "\n")
	method, u, ok := strings.Cut(first, " ")
	if !ok {
		return Exchange{}, false
	}
	x := Exchange{Method: method, URL: u}
	for rest != "" {
		var line string
		line, rest, _ = strings.Cut(rest, "\n")
		if st, ok := strings.CutPrefix(line, "→ "); ok {
			x.Status, _ = strconv.Atoi(strings.TrimSpace(st))
			x.ResponseBody = rest
			break
		}
	}
	return x, true
}

// add appends one endpoint's entry and counts it.
func (c *Coverage) add(e EndpointCoverage) {
	if !e.Provisioning {
		c.Endpoints++
		if e.Requests > 0 {
			c.Touched++
		}
	}
	c.Entries = append(c.Entries, e)
}

func coverage(book *specs.Rulebook, seen map[string]map[int]int) Coverage {
	c := Coverage{Entries: []EndpointCoverage{}}
	for _, e := range book.Endpoints {
		ec := EndpointCoverage{ID: e.ID, Area: e.Area, Method: e.Method, Path: e.Path, Provisioning: e.Provisioning,
			Statuses: map[string]int{}}
		for status, n := range seen[e.ID] {
			ec.Statuses[strconv.Itoa(status)] += n
			ec.Requests += n
		}
		c.add(ec)
	}
	for _, n := range seen[""] {
		c.Unmatched += n
	}
	return c
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

func round3(f float64) float64 { return float64(int64(f*1000+0.5)) / 1000 }

// SpecStatus is one spec's status and, unless it passed or was skipped, the
// kind of its failure: what certify's progress lines show.
func SpecStatus(s types.SpecReport) (Status, string) {
	j := judge(s, NewRedactor())
	return j.spec.Status, j.kind
}
