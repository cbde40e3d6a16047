package reports

import (
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/onsi/ginkgo/v2/types"

	"v4cert/specs"
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
		FullStackTrace: "v4cert/suites.init.func1()\n\t/src/v4cert/suites/things.go:40 +0x1d\n"}
	return s
}

func fixtureFailed(rules ...string) types.SpecReport {
	s := failed("creating a fixture user\nExpected 201, got 500", rules...)
	s.Failure.Location.FullStackTrace = "v4cert/suites.NewUser()\n\t/src/v4cert/suites/fixtures.go:77 +0x1d\n" + s.Failure.Location.FullStackTrace
	return s
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
		failed(`Get "http://127.0.0.1:1/api/v4/things/1": dial tcp 127.0.0.1:1: connect: connection refused`, "things.get.15"),
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
	if st, reason := statusOf(t, r, "things.get.3"); st != StatusSkipped || reason != "filtered out by the label filter" {
		t.Errorf("filtered rule: %s %q", st, reason)
	}
	if !r.Conformant || r.Complete || r.Verdict != VerdictConformant {
		t.Errorf("a clean filtered run is conformant and incomplete: %+v", r.Counts)
	}
}

func TestBeforeSuiteFailureMakesEveryRuleAnError(t *testing.T) {
	b := book(t)
	planned := []types.SpecReport{spec(types.SpecStateInvalid, "things.get.1"), spec(types.SpecStateInvalid, "things.get.2")}
	gr := types.Report{SpecReports: types.SpecReports{{
		LeafNodeType: types.NodeTypeSynchronizedBeforeSuite, State: types.SpecStateFailed,
		Failure: types.Failure{Message: "the administrator token must authenticate"},
	}}}
	r := Build(b, gr, Run{Planned: planned})
	for _, rule := range r.Rules {
		if rule.Status != StatusError || !strings.Contains(rule.Reason, "token must authenticate") {
			t.Errorf("%s: %s %q", rule.ID, rule.Status, rule.Reason)
		}
	}
	if len(r.SuiteErrors) != 1 || r.Conformant {
		t.Errorf("suite errors %+v, conformant %v", r.SuiteErrors, r.Conformant)
	}
}

func TestInterruptedRunMarksUnrunSpecsAsErrors(t *testing.T) {
	b := book(t)
	gr := types.Report{
		SpecialSuiteFailureReasons: []string{"Interrupted by User"},
		SpecReports:                types.SpecReports{spec(types.SpecStatePassed, "things.get.1"), spec(types.SpecStateSkipped, "things.get.2")},
	}
	r := Build(b, gr, Run{})
	if st, reason := statusOf(t, r, "things.get.2"); st != StatusError || !strings.Contains(reason, "Interrupted") {
		t.Errorf("unrun spec after interrupt: %s %q", st, reason)
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
