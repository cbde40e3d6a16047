package reports

import (
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/v4cert/v4cert/specs"
)

const testBook = `area: things
endpoints:
  - {id: things.get, method: GET, path: /things/:id, who: anonymous, status: 200, statuses: [404]}
  - {id: things.create, method: POST, path: /things, who: authenticated, status: 201, provisioning: true}
rules:
  - {id: things.get.1, endpoint: things.get, says: Answers 200., source: Things (1)}
  - {id: things.get.2, endpoint: things.get, says: Answers 404 when hidden., source: Things (2)}
  - {id: things.get.3, endpoint: things.get, says: Third., source: Things (3)}
  - {id: things.get.4, endpoint: things.get, says: Fourth., source: Things (4)}
  - {id: things.get.5, endpoint: things.get, says: Fifth., source: Things (5)}
  - {id: things.get.6, endpoint: things.get, says: Sixth., source: Things (6)}
  - {id: things.get.7, endpoint: things.get, says: Seventh., source: Things (7)}
  - {id: things.get.8, endpoint: things.get, says: Eighth., source: Things (8)}
  - {id: things.get.9, endpoint: things.get, says: Ninth., source: Things (9)}
  - {id: things.get.10, endpoint: things.get, says: Tenth., source: Things (10)}
  - {id: things.get.11, endpoint: things.get, says: Eleventh., source: Things (11)}
  - {id: things.get.12, endpoint: things.get, says: Twelfth., source: Things (12)}
  - {id: things.get.13, endpoint: things.get, says: Thirteenth., source: Things (13)}
  - {id: things.get.14, endpoint: things.get, says: Fourteenth., source: Things (14)}
  - {id: things.get.15, endpoint: things.get, says: Fifteenth., source: Things (15)}
`

func book(t *testing.T) *specs.Rulebook {
	t.Helper()
	b, err := specs.Load(fstest.MapFS{"things.yaml": {Data: []byte(testBook)}})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

var nextLine = 1

// spec builds a synthetic It report labelled with rules.
func spec(state types.SpecState, rules ...string) types.SpecReport {
	nextLine++
	labels := []string{"area:things"}
	for _, r := range rules {
		labels = append(labels, "rule:"+r)
	}
	return types.SpecReport{
		ContainerHierarchyTexts:  []string{"GET /things/:id"},
		ContainerHierarchyLabels: [][]string{{"endpoint:things.get"}},
		LeafNodeType:             types.NodeTypeIt,
		LeafNodeText:             "spec " + strings.Join(rules, "+"),
		LeafNodeLabels:           labels,
		LeafNodeLocation:         types.CodeLocation{FileName: "/src/v4cert/suites/things.go", LineNumber: nextLine},
		State:                    state,
		RunTime:                  10 * time.Millisecond,
		Failure:                  types.Failure{FailureNodeContext: types.FailureNodeIsLeafNode},
	}
}

func failed(msg string, rules ...string) types.SpecReport {
	s := spec(types.SpecStateFailed, rules...)
	s.Failure.Message = msg
	s.Failure.Location = types.CodeLocation{FileName: "/src/v4cert/suites/things.go", LineNumber: 40,
		FullStackTrace: "github.com/v4cert/github.com/v4cert/v4cert/suites.init.func1()\n\t/src/v4cert/suites/things.go:40 +0x1d\n"}
	return s
}

// harnessFailed is a spec whose failure the suites marked as the harness's
// (suites.ExpectFixture and the client's transport check attach the entry).
func harnessFailed(kind, msg string, rules ...string) types.SpecReport {
	s := failed(msg, rules...)
	s.ReportEntries = append(s.ReportEntries, types.ReportEntry{Name: EntryHarness, Value: types.WrapEntryValue(Harness{Kind: kind, Detail: "x"})})
	return s
}

func fixtureFailed(rules ...string) types.SpecReport {
	return harnessFailed(KindFixture, "creating a fixture user\nExpected 201, got 500", rules...)
}

func skipped(reason string, rules ...string) types.SpecReport {
	s := spec(types.SpecStateSkipped, rules...)
	s.Failure.Message = reason
	return s
}

func statusOf(t *testing.T, r Report, id string) (Status, string) {
	t.Helper()
	rule := r.Rule(id)
	if rule == nil {
		t.Fatalf("rule %s missing from the report", id)
	}
	return rule.Status, rule.Reason
}

func TestRuleStatusDerivation(t *testing.T) {
	b := book(t)
	setup := spec(types.SpecStateFailed, "things.get.8")
	setup.Failure = types.Failure{Message: "boom", FailureNodeContext: types.FailureNodeInContainer, FailureNodeType: types.NodeTypeBeforeEach}
	cleanup := spec(types.SpecStateFailed, "things.get.13")
	cleanup.Failure = types.Failure{Message: "could not delete", FailureNodeContext: types.FailureNodeAtTopLevel, FailureNodeType: types.NodeTypeCleanupAfterEach}
	panicked := spec(types.SpecStatePanicked, "things.get.4")
	panicked.Failure.Message, panicked.Failure.ForwardedPanic = "Test Panicked", "runtime error: index out of range"
	gr := types.Report{SpecReports: types.SpecReports{
		spec(types.SpecStatePassed, "things.get.1"),
		failed("Expected status 404, got 200", "things.get.2"),
		fixtureFailed("things.get.3"),
		panicked,
		spec(types.SpecStateTimedout, "things.get.5"),
		skipped("the target has no paid tier", "things.get.6"),
		// things.get.7 has no spec: not covered.
		setup,
		// Mixed cases.
		spec(types.SpecStatePassed, "things.get.9"), failed("wrong order", "things.get.9"),
		spec(types.SpecStatePassed, "things.get.10"), fixtureFailed("things.get.10"),
		failed("wrong field", "things.get.11"), fixtureFailed("things.get.11"),
		spec(types.SpecStatePassed, "things.get.12"), skipped("optional", "things.get.12"),
		cleanup,
		skipped("reason A", "things.get.14"), skipped("reason B", "things.get.14"),
		harnessFailed(KindTransport, `Get "http://127.0.0.1:1/api/v4/things/1": dial tcp 127.0.0.1:1: connect: connection refused`, "things.get.15"),
	}}
	r := Build(b, gr, Run{Target: "http://t", Seed: 7, Started: time.Unix(0, 0)})

	want := map[string]Status{
		"things.get.1": StatusPass, "things.get.2": StatusFail, "things.get.3": StatusError,
		"things.get.4": StatusError, "things.get.5": StatusError, "things.get.6": StatusSkipped,
		"things.get.7": StatusNotCovered, "things.get.8": StatusError, "things.get.9": StatusFail,
		"things.get.10": StatusError, "things.get.11": StatusFail, "things.get.12": StatusPass,
		"things.get.13": StatusError, "things.get.14": StatusSkipped, "things.get.15": StatusError,
	}
	for id, st := range want {
		if got, reason := statusOf(t, r, id); got != st {
			t.Errorf("%s: status %s (%s), want %s", id, got, reason, st)
		}
	}
	kinds := map[string]string{"things.get.2": KindAssertion, "things.get.3": KindFixture, "things.get.4": KindPanic,
		"things.get.5": KindTimeout, "things.get.8": KindSetup, "things.get.13": KindCleanup, "things.get.15": KindTransport}
	for id, kind := range kinds {
		f := r.Rule(id).Failures
		if len(f) != 1 || f[0].Kind != kind {
			t.Errorf("%s: failures %+v, want one of kind %s", id, f, kind)
		}
	}
	if _, reason := statusOf(t, r, "things.get.6"); reason != "the target has no paid tier" {
		t.Errorf("skip reason lost: %q", reason)
	}
	if _, reason := statusOf(t, r, "things.get.14"); reason != "reason A; reason B" {
		t.Errorf("skip reasons of several specs: %q", reason)
	}
	if !strings.Contains(r.Rule("things.get.4").Failures[0].Message, "index out of range") {
		t.Errorf("panic message lost: %q", r.Rule("things.get.4").Failures[0].Message)
	}
	if got := r.Rule("things.get.2").Failures[0].Location; got != "suites/things.go:40" {
		t.Errorf("location %q", got)
	}
	c := r.Counts
	if c.Total != 15 || c.Pass != 2 || c.Fail != 3 || c.Error != 7 || c.Skipped != 2 || c.NotCovered != 1 {
		t.Errorf("counts %+v", c)
	}
	if r.Conformant || r.Verdict != VerdictNotConformant {
		t.Errorf("verdict %s", r.Verdict)
	}
	if r.Seed != 7 || r.Rulebook.Digest != b.Digest || r.Version != "dev" {
		t.Errorf("run identity: %+v", r)
	}
}

func TestLabelFilterSkipsAndConformance(t *testing.T) {
	b := book(t)
	var sr types.SpecReports
	for i := 1; i <= 15; i++ {
		id := "things.get." + strconv.Itoa(i)
		if i <= 2 {
			sr = append(sr, spec(types.SpecStatePassed, id))
		} else {
			sr = append(sr, spec(types.SpecStateSkipped, id))
		}
	}
	r := Build(b, types.Report{SpecReports: sr}, Run{LabelFilter: "rule:things.get.1 || rule:things.get.2"})
	rule := r.Rule("things.get.3")
	if rule.Status != StatusSkipped || !rule.Filtered || rule.Reason != "filtered out by the label filter" {
		t.Errorf("filtered rule: %+v", rule)
	}
	if !r.Conformant || r.Complete || r.Verdict != VerdictConformant {
		t.Errorf("a clean filtered run is conformant and incomplete: %+v", r.Counts)
	}
	if r.Counts.Filtered != 13 || r.Counts.Skipped != 13 || r.Counts.Judged() != 2 {
		t.Errorf("counts %+v", r.Counts)
	}
	if got := r.Headline(); got != "CONFORMANT on 2 of 15 rules (profile spec)" {
		t.Errorf("headline %q", got)
	}
}

// planned makes a plan of the given specs, all selected.
func planned(ss ...types.SpecReport) []PlannedSpec {
	out := make([]PlannedSpec, len(ss))
	for i, s := range ss {
		out[i] = PlannedSpec{Spec: s}
	}
	return out
}

func TestBeforeSuiteFailureIsNotRun(t *testing.T) {
	b := book(t)
	plan := planned(spec(types.SpecStateInvalid, "things.get.1"), spec(types.SpecStateInvalid, "things.get.2"))
	gr := types.Report{SpecReports: types.SpecReports{{
		LeafNodeType: types.NodeTypeSynchronizedBeforeSuite, State: types.SpecStateFailed, ParallelProcess: 1,
		Failure: types.Failure{Message: "the administrator token must authenticate"},
	}, {
		// The other processes only say process 1 failed: not repeated.
		LeafNodeType: types.NodeTypeSynchronizedBeforeSuite, State: types.SpecStateFailed, ParallelProcess: 2,
		Failure: types.Failure{Message: "SynchronizedBeforeSuite failed on Ginkgo parallel process #1"},
	}}}
	r := Build(b, gr, Run{Plan: plan})
	if r.Verdict != VerdictNotRun || !strings.Contains(r.Cause, "token must authenticate") || verdictOK(r) {
		t.Errorf("verdict %s (%s)", r.Verdict, r.Cause)
	}
	for _, id := range []string{"things.get.1", "things.get.2"} {
		if st, reason := statusOf(t, r, id); st != StatusSkipped || !strings.Contains(reason, "not run: the suite's setup") {
			t.Errorf("%s: %s %q", id, st, reason)
		}
	}
	if len(r.SuiteErrors) != 1 {
		t.Errorf("suite errors %+v", r.SuiteErrors)
	}
}

func verdictOK(r Report) bool { return r.Conformant || r.Complete }

func TestNotRunAndIncompleteAreNoVerdict(t *testing.T) {
	b := book(t)
	r := Build(b, types.Report{}, Run{NotRun: "cannot reach the target http://x (--target/V4CERT_TARGET): connection refused"})
	if r.Verdict != VerdictNotRun || verdictOK(r) || !strings.HasPrefix(r.Headline(), "NOT RUN: cannot reach") {
		t.Errorf("not run: %s %q", r.Verdict, r.Headline())
	}
	for _, rule := range r.Rules {
		if rule.Status != StatusSkipped || !strings.HasPrefix(rule.Reason, "not run: cannot reach") {
			t.Fatalf("%s: %s %q", rule.ID, rule.Status, rule.Reason)
		}
	}

	// Interrupted: what ran is judged, what did not is skipped, the spec in
	// flight is an error, and the run is no verdict.
	interrupted := spec(types.SpecStateInterrupted, "things.get.3")
	interrupted.Failure.Message = "interrupted by signal"
	plan := planned(spec(types.SpecStatePassed, "things.get.1"), spec(types.SpecStatePassed, "things.get.2"), interrupted)
	// The suite's cleanup, waiting on the last fixtures' teardown when the
	// stop came, is cut short by the same stop.
	cleanup := types.SpecReport{LeafNodeType: types.NodeTypeCleanupAfterSuite, State: types.SpecStateInterrupted,
		ParallelProcess: 2, Failure: types.Failure{Message: "Interrupted by User"}}
	gr := types.Report{
		SpecialSuiteFailureReasons: []string{"Interrupted by User"},
		SpecReports:                types.SpecReports{plan[0].Spec, interrupted, cleanup},
	}
	r = Build(b, gr, Run{Plan: plan, Incomplete: "interrupted by SIGINT after 2 of 3 specs"})
	if r.Verdict != VerdictIncomplete || verdictOK(r) || r.Headline() != "INCOMPLETE: interrupted by SIGINT after 2 of 3 specs" {
		t.Errorf("incomplete: %s %q", r.Verdict, r.Headline())
	}
	if st, _ := statusOf(t, r, "things.get.1"); st != StatusPass {
		t.Errorf("a spec that ran keeps its result: %s", st)
	}
	if st, reason := statusOf(t, r, "things.get.2"); st != StatusSkipped || !strings.Contains(reason, "not run: interrupted by SIGINT") {
		t.Errorf("unrun spec after interrupt: %s %q", st, reason)
	}
	if st, _ := statusOf(t, r, "things.get.3"); st != StatusError {
		t.Errorf("the spec in flight: %s", st)
	}
	if len(r.SuiteErrors) != 0 {
		t.Errorf("Ginkgo's reason repeats the cause: %+v", r.SuiteErrors)
	}
	// Interrupted without a stop of the run's own saying why, it stays.
	if r := Build(b, types.Report{SpecReports: types.SpecReports{cleanup}}, Run{}); len(r.SuiteErrors) != 1 {
		t.Errorf("an interrupted suite node in a run that says no stop: %+v", r.SuiteErrors)
	}

	// A spec nobody reported, in a run that completed: the harness lost it.
	r = Build(b, types.Report{SpecReports: types.SpecReports{plan[0].Spec}}, Run{Plan: plan[:2]})
	if st, _ := statusOf(t, r, "things.get.2"); st != StatusError || r.Conformant {
		t.Errorf("a lost spec: %s, conformant %v", st, r.Conformant)
	}
}

func TestShardsLeaveOtherShardsRulesUnselected(t *testing.T) {
	b := book(t)
	one, two := spec(types.SpecStatePassed, "things.get.1"), spec(types.SpecStatePassed, "things.get.2")
	plan := []PlannedSpec{{Spec: one}, {Spec: two, Excluded: ExcludedByShard}}
	r := Build(b, types.Report{SpecReports: types.SpecReports{one}}, Run{Plan: plan, Shard: &Shard{Index: 1, Total: 2}})
	rule := r.Rule("things.get.2")
	if rule.Status != StatusSkipped || !rule.Filtered || rule.Reason != "runs in another shard" {
		t.Errorf("another shard's rule: %+v", rule)
	}
	if r.Shard == nil || *r.Shard != (Shard{1, 2}) || !r.Conformant {
		t.Errorf("shard %v, conformant %v", r.Shard, r.Conformant)
	}
}

func TestFailFastLeavesTheRestSkipped(t *testing.T) {
	b := book(t)
	stopped := spec(types.SpecStateInterrupted, "things.get.3")
	plan := planned(failed("Expected 404", "things.get.1"), spec(types.SpecStateSkipped, "things.get.2"), stopped)
	gr := types.Report{SpecReports: types.SpecReports{plan[0].Spec, plan[1].Spec, stopped}}
	r := Build(b, gr, Run{Plan: plan, Stopped: "--fail-fast stopped the run"})
	for id, want := range map[string]Status{"things.get.1": StatusFail, "things.get.2": StatusSkipped, "things.get.3": StatusSkipped} {
		if st, reason := statusOf(t, r, id); st != want {
			t.Errorf("%s: %s %q, want %s", id, st, reason, want)
		}
	}
	if r.Verdict != VerdictNotConformant {
		t.Errorf("a failure seen before stopping is a verdict: %s", r.Verdict)
	}
}

func TestEntriesCarryCoverageAndViolations(t *testing.T) {
	b := book(t)
	s1 := spec(types.SpecStatePassed, "things.get.1")
	s1.ReportEntries = types.ReportEntries{{Name: EntryCoverage, Value: types.WrapEntryValue(map[string]map[int]int{"things.get": {200: 2}})}}
	s2 := spec(types.SpecStatePassed, "things.get.2")
	// As it arrives from a worker process: JSON only.
	s2.ReportEntries = types.ReportEntries{
		{Name: EntryCoverage, Value: types.ReportEntryValue{AsJSON: `{"things.get":{"404":1},"":{"404":3}}`}},
		{Name: EntryViolations, Value: types.ReportEntryValue{AsJSON: `[{"index":1,"severity":"error","rule":"things.get.2","expected":"404","seen":"200","method":"GET","url":"http://t/x","status":200}]`}},
	}
	r := Build(b, types.Report{SpecReports: types.SpecReports{s1, s2}}, Run{ViaProxy: true})
	if e := r.Coverage.Entries[0]; e.Requests != 3 || e.Statuses["200"] != 2 || e.Statuses["404"] != 1 || r.Coverage.Unmatched != 3 {
		t.Errorf("coverage %+v", r.Coverage)
	}
	rule := r.Rule("things.get.2")
	if rule.Status != StatusFail || rule.Failures[0].Kind != KindProxy || rule.Failures[0].Spec != s2.FullText() {
		t.Errorf("violation: %+v", rule)
	}
	if p := r.Proxy; p == nil || p.Summary.Errors != 1 || p.Summary.Exchanges != 6 || p.Violations[0].Spec != s2.FullText() {
		t.Errorf("proxy %+v", p)
	}
}

// A worker's last teardown ends after its last spec's report went: the
// end-of-suite node that waited for it carries its requests, which count.
func TestSuiteNodesCarryCoverage(t *testing.T) {
	b := book(t)
	s := spec(types.SpecStatePassed, "things.get.1")
	s.ReportEntries = types.ReportEntries{{Name: EntryCoverage, Value: types.WrapEntryValue(map[string]map[int]int{"things.get": {200: 2}})}}
	end := types.SpecReport{LeafNodeType: types.NodeTypeCleanupAfterSuite, State: types.SpecStatePassed,
		ReportEntries: types.ReportEntries{{Name: EntryCoverage, Value: types.ReportEntryValue{AsJSON: `{"things.get":{"404":1}}`}}}}
	r := Build(b, types.Report{SpecReports: types.SpecReports{s, end}}, Run{})
	if e := r.Coverage.Entries[0]; e.Requests != 3 || e.Statuses["200"] != 2 || e.Statuses["404"] != 1 {
		t.Errorf("coverage %+v", r.Coverage)
	}
}

func TestTheNamedExchangeIsShown(t *testing.T) {
	b := book(t)
	s := failed("Expected status [201], got:\n  POST http://t/api/v4/things → 500", "things.get.2")
	s.ReportEntries = types.ReportEntries{
		{Name: EntryExchange, Value: types.ReportEntryValue{AsJSON: `{"method":"POST","url":"http://t/api/v4/things","status":500,"failed":true}`}},
		{Name: EntryExchange, Value: types.WrapEntryValue(Exchange{Method: "GET", URL: "http://t/api/v4/things/1", Status: 200})},
	}
	r := Build(b, types.Report{SpecReports: types.SpecReports{s}}, Run{})
	f := r.Rule("things.get.2").Failures[0]
	if i := f.Shown(); i != 0 || f.Exchanges[i].Status != 500 {
		t.Errorf("shown %d of %+v", i, f.Exchanges)
	}
	f.Exchanges[0].Failed = false
	if f.Shown() != 1 {
		t.Errorf("without a named exchange the last one is shown")
	}
}

func TestExchangesAreReadAndRedacted(t *testing.T) {
	b := book(t)
	s := failed("Expected 404", "things.get.2")
	x := Exchange{Method: "GET", URL: "http://t/api/v4/things/1?private_token=sekrit-query", Status: 200,
		RequestHeaders: map[string]string{"Private-Token": "glpat-admintoken123"}, ResponseBody: `{"id":1,"token":"glpat-newtoken456"}`}
	s.ReportEntries = types.ReportEntries{
		{Name: "exchange", Value: types.WrapEntryValue(x)},
		{Name: "exchange", Value: types.WrapEntryValue("POST http://t/api/v4/things\n→ 201\n{\"password\":\"hunter22\"}")},
		{Name: "other", Value: types.WrapEntryValue("ignored")},
	}
	r := Build(b, types.Report{SpecReports: types.SpecReports{s}}, Run{Secrets: []string{"glpat-admintoken123"}})
	ex := r.Rule("things.get.2").Failures[0].Exchanges
	if len(ex) != 2 || ex[1].Status != 201 || ex[1].Method != "POST" {
		t.Fatalf("exchanges %+v", ex)
	}
	all := ex[0].String() + ex[1].String()
	for _, secret := range []string{"sekrit-query", "glpat-admintoken123", "glpat-newtoken456", "hunter22"} {
		if strings.Contains(all, secret) {
			t.Errorf("secret %q in %s", secret, all)
		}
	}
}

func TestCoverage(t *testing.T) {
	b := book(t)
	r := Build(b, types.Report{}, Run{Coverage: map[string]map[int]int{"things.get": {200: 3, 404: 1}, "things.create": {201: 2}, "": {404: 5}}})
	c := r.Coverage
	if c.Endpoints != 1 || c.Touched != 1 || c.Unmatched != 5 || len(c.Entries) != 2 {
		t.Fatalf("coverage %+v", c)
	}
	if e := c.Entries[0]; e.ID != "things.get" || e.Requests != 4 || e.Statuses["404"] != 1 {
		t.Errorf("entry %+v", e)
	}
}

func TestProxyViolations(t *testing.T) {
	b := book(t)
	gr := types.Report{SpecReports: types.SpecReports{spec(types.SpecStatePassed, "things.get.1"), spec(types.SpecStatePassed, "things.get.2")}}
	pr := &ProxyRun{Violations: []Violation{
		{Index: 1, Severity: "error", Rule: "things.get.1", Expected: "404", Seen: "200", Method: "GET", URL: "http://t/api/v4/things/1?private_token=pt-zz", Spec: "spec things.get.1"},
		{Index: 2, Severity: "warning", Rule: "things.get.2", Expected: "no deprecated field", Seen: "projects"},
	}}
	r := Build(b, gr, Run{Proxy: pr})
	if st, _ := statusOf(t, r, "things.get.1"); st != StatusFail {
		t.Errorf("a proxy error naming a rule fails it: %s", st)
	}
	f := r.Rule("things.get.1").Failures
	if len(f) != 1 || f[0].Kind != KindProxy || f[0].Spec != "spec things.get.1" || strings.Contains(f[0].Exchanges[0].URL, "pt-zz") {
		t.Errorf("proxy failure %+v", f)
	}
	if st, _ := statusOf(t, r, "things.get.2"); st != StatusPass {
		t.Errorf("a warning fails nothing: %s", st)
	}
	if strings.Contains(r.Proxy.Violations[0].URL, "pt-zz") {
		t.Errorf("violation URL not redacted")
	}

	// An error that names no rule still keeps the run from being conformant.
	clean := types.Report{SpecReports: types.SpecReports{spec(types.SpecStatePassed, "things.get.1")}}
	r = Build(b, clean, Run{Proxy: &ProxyRun{Violations: []Violation{{Severity: "error", Schema: "thing", Expected: "integer", Seen: "string"}}}})
	if r.Conformant {
		t.Errorf("schema violation seen by the proxy, yet conformant")
	}
	r = Build(b, clean, Run{Proxy: &ProxyRun{Violations: []Violation{{Severity: "warning", Expected: "known endpoint", Seen: "/nope"}}}})
	if !r.Conformant {
		t.Errorf("warnings alone keep a run conformant")
	}
}
