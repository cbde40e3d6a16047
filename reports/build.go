package reports

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2/types"

	"v4cert/specs"
)

// Run is what a certify run knows beyond Ginkgo's report.
type Run struct {
	Target      string
	Version     string
	Seed        int64
	LabelFilter string
	ViaProxy    bool
	RerunOf     string
	Started     time.Time
	Duration    time.Duration
	// Secrets are values to hide wherever they appear (the administrator token).
	Secrets []string
	// Coverage counts, per endpoint ID, the statuses the suites' requests got;
	// the empty ID counts requests no endpoint matched.
	Coverage map[string]map[int]int
	// Planned is the tree as PreviewSpecs saw it before the run: specs missing
	// from the run's report (the suite's setup failed) are judged from it.
	Planned []types.SpecReport
	Proxy   *ProxyRun
}

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

	var filter types.LabelFilter
	if run.LabelFilter != "" {
		if f, err := types.ParseLabelFilter(run.LabelFilter); err == nil {
			filter = f
		}
	}

	// Suite-level nodes first: when the suite's setup failed, nothing ran.
	notRun := ""
	for _, s := range gr.SpecReports {
		if !s.LeafNodeType.Is(types.NodeTypesForSuiteLevelNodes) || s.State.Is(types.SpecStatePassed|types.SpecStateSkipped|types.SpecStatePending) {
			continue
		}
		msg := failureMessage(s)
		rep.SuiteErrors = append(rep.SuiteErrors, Failure{
			Spec: s.LeafNodeType.String(), Status: StatusError, Kind: KindSuite,
			Message: red.Text(msg), Location: location(s.Failure.Location), Exchanges: exchangesOf(s, red),
		})
		if s.LeafNodeType.Is(types.NodeTypeBeforeSuite | types.NodeTypeSynchronizedBeforeSuite) {
			notRun = "not run: the suite's setup (" + s.LeafNodeType.String() + ") failed: " + firstLine(red.Text(msg))
		}
	}
	for _, reason := range gr.SpecialSuiteFailureReasons {
		rep.SuiteErrors = append(rep.SuiteErrors, Failure{Spec: "suite", Status: StatusError, Kind: KindInterrupted, Message: reason})
		if notRun == "" {
			notRun = "not run: " + reason
		}
	}

	specsByRule := map[string][]judged{}
	unknown := map[string]bool{}
	for _, s := range itSpecs(gr.SpecReports, run.Planned) {
		j := judge(s, filter, notRun, red)
		for _, l := range s.Labels() {
			id, ok := strings.CutPrefix(l, "rule:")
			if !ok {
				continue
			}
			if book.Rule(id) == nil {
				unknown[id] = true
				continue
			}
			specsByRule[id] = append(specsByRule[id], j)
		}
	}
	// A proxy finding that names a rule fails that rule, whatever the specs
	// said: the traffic showed the target breaking it.
	if run.Proxy != nil {
		for _, v := range run.Proxy.Violations {
			if v.Severity == "warning" || book.Rule(v.Rule) == nil {
				continue
			}
			msg := red.Text(fmt.Sprintf("proxy violation: expected %s, seen %s", v.Expected, v.Seen))
			spec := v.Spec
			if spec == "" {
				spec = "(traffic outside any spec)"
			}
			specsByRule[v.Rule] = append(specsByRule[v.Rule], judged{
				spec: Spec{Text: spec, Status: StatusFail, Reason: KindProxy + ": " + firstLine(msg)},
				kind: KindProxy,
				failure: &Failure{Spec: spec, Status: StatusFail, Kind: KindProxy, Message: msg,
					Exchanges: []Exchange{{Method: v.Method, URL: red.Text(v.URL), Status: v.Status}}},
			})
		}
	}
	for id := range unknown {
		rep.UnknownRules = append(rep.UnknownRules, id)
	}
	sort.Strings(rep.UnknownRules)

	areaIndex := map[string]int{}
	for _, br := range book.Rules {
		r := Rule{ID: br.ID, Area: br.Area, Endpoint: br.Endpoint, Says: br.Says, Source: br.Source, Paid: br.Paid,
			Specs: []Spec{}, Failures: []Failure{}}
		r.Status, r.Reason = aggregate(specsByRule[br.ID], notRun)
		for _, j := range specsByRule[br.ID] {
			r.Specs = append(r.Specs, j.spec)
			if j.failure != nil {
				r.Failures = append(r.Failures, *j.failure)
			}
		}
		rep.Rules = append(rep.Rules, r)
		rep.Counts.Add(r.Status)
		i, ok := areaIndex[r.Area]
		if !ok {
			i = len(rep.Areas)
			areaIndex[r.Area] = i
			rep.Areas = append(rep.Areas, Area{Name: r.Area})
		}
		rep.Areas[i].Counts.Add(r.Status)
	}

	rep.Coverage = coverage(book, run.Coverage)
	if run.Proxy != nil {
		p := *run.Proxy
		p.Violations = make([]Violation, len(run.Proxy.Violations))
		for i, v := range run.Proxy.Violations {
			v.URL, v.Seen = red.Text(v.URL), red.Text(v.Seen)
			p.Violations[i] = v
		}
		rep.Proxy = &p
	}

	rep.Conformant = rep.Counts.Fail == 0 && rep.Counts.Error == 0 && len(rep.SuiteErrors) == 0 &&
		rep.Counts.Pass > 0 && rep.Proxy.errors() == 0
	rep.Complete = rep.Counts.Skipped == 0 && rep.Counts.NotCovered == 0
	rep.Verdict = VerdictNotConformant
	if rep.Conformant {
		rep.Verdict = VerdictConformant
	}
	return rep
}

func (p *ProxyRun) errors() int {
	if p == nil {
		return 0
	}
	n := 0
	for _, v := range p.Violations {
		if v.Severity != "warning" {
			n++
		}
	}
	return n
}

// judged is one spec's outcome.
type judged struct {
	spec    Spec
	kind    string
	failure *Failure
}

// itSpecs returns the run's It specs, plus those the plan had and the run
// never reported (a failed BeforeSuite stops Ginkgo before any spec).
func itSpecs(ran, planned []types.SpecReport) []types.SpecReport {
	var out []types.SpecReport
	seen := map[string]bool{}
	for _, s := range ran {
		if s.LeafNodeType == types.NodeTypeIt {
			out = append(out, s)
			seen[specKey(s)] = true
		}
	}
	for _, s := range planned {
		if s.LeafNodeType == types.NodeTypeIt && !seen[specKey(s)] {
			out = append(out, types.SpecReport{
				ContainerHierarchyTexts: s.ContainerHierarchyTexts, ContainerHierarchyLabels: s.ContainerHierarchyLabels,
				LeafNodeType: s.LeafNodeType, LeafNodeLocation: s.LeafNodeLocation, LeafNodeText: s.LeafNodeText,
				LeafNodeLabels: s.LeafNodeLabels, State: types.SpecStateSkipped,
			})
		}
	}
	return out
}

func specKey(s types.SpecReport) string {
	return s.FullText() + "\x00" + s.LeafNodeLocation.String()
}

// judge decides one spec's status. A spec fails only when an expectation
// about the target's answer failed in the spec's own body; everything that
// kept the harness from judging is an error.
func judge(s types.SpecReport, filter types.LabelFilter, notRun string, red *Redactor) judged {
	j := judged{spec: Spec{Text: s.FullText(), DurationSec: round3(s.RunTime.Seconds())}}
	switch {
	case s.State == types.SpecStatePassed:
		j.spec.Status = StatusPass
		return j
	case s.State == types.SpecStatePending:
		j.spec.Status, j.spec.Reason = StatusSkipped, "pending: the spec is not written yet"
		return j
	case s.State == types.SpecStateSkipped:
		j.spec.Status = StatusSkipped
		switch {
		case s.Failure.Message != "": // Skip("why") in the spec
			j.spec.Reason = s.Failure.Message
		case filter != nil && !filter(s.Labels()):
			j.spec.Reason = "filtered out by the label filter"
		case notRun != "":
			j.spec.Status, j.spec.Reason, j.kind = StatusError, notRun, KindSuite
		default:
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
	return j
}

// transportError matches the error net/http's client returns: Get "url": cause.
var transportError = regexp.MustCompile(`(?m)(Get|Head|Post|Put|Patch|Delete|Options) "[^"]+": `)

// fixtureAnnotation recognises "creating a fixture topic" and the like.
var fixtureAnnotation = regexp.MustCompile(`(?i)\bfixtures?\b`)

// proxyMarker starts the failure message of a spec the validating proxy failed.
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
	switch {
	case strings.Contains(f.Location.FullStackTrace, "suites/fixtures.go:") || fixtureAnnotation.MatchString(firstLine(f.Message)):
		// Fixture helpers live in suites/fixtures.go; those an area keeps to
		// itself say "fixture" in the annotation of their expectations.
		return KindFixture
	case transportError.MatchString(f.Message):
		return KindTransport
	case strings.HasPrefix(f.Message, proxyMarker):
		return KindProxy
	}
	return KindAssertion
}

// aggregate folds a rule's specs into one status: fail if any failed, error
// if any errored, skipped only if all were skipped, pass otherwise.
func aggregate(js []judged, notRun string) (Status, string) {
	if len(js) == 0 {
		if notRun != "" {
			// Without a tree to look at, "no spec" cannot be told from "never ran".
			return StatusError, notRun
		}
		return StatusNotCovered, "no spec checks this rule"
	}
	var fails, errs, skips int
	var firstErr string
	var skipReasons []string
	for _, j := range js {
		switch j.spec.Status {
		case StatusFail:
			fails++
		case StatusError:
			errs++
			if firstErr == "" {
				firstErr = j.spec.Reason
			}
		case StatusSkipped:
			skips++
			if !slices.Contains(skipReasons, j.spec.Reason) {
				skipReasons = append(skipReasons, j.spec.Reason)
			}
		}
	}
	switch {
	case fails > 0:
		return StatusFail, fmt.Sprintf("%d of %d specs failed", fails, len(js))
	case errs > 0:
		return StatusError, firstErr
	case skips == len(js):
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

func coverage(book *specs.Rulebook, seen map[string]map[int]int) Coverage {
	c := Coverage{Entries: []EndpointCoverage{}}
	for _, e := range book.Endpoints {
		ec := EndpointCoverage{ID: e.ID, Area: e.Area, Method: e.Method, Path: e.Path, Provisioning: e.Provisioning,
			Statuses: map[string]int{}}
		for status, n := range seen[e.ID] {
			ec.Statuses[strconv.Itoa(status)] += n
			ec.Requests += n
		}
		if !e.Provisioning {
			c.Endpoints++
			if ec.Requests > 0 {
				c.Touched++
			}
		}
		c.Entries = append(c.Entries, ec)
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
	j := judge(s, nil, "", NewRedactor())
	return j.spec.Status, j.kind
}
