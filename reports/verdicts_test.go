package reports

import (
	"bytes"
	"html"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2/types"
)

// transportFailed is a spec that could not reach the target: the client's
// check marks it with the harness entry and its cause.
func transportFailed(cause string, rules ...string) types.SpecReport {
	s := failed("GET http://t/api/v4/things/1\nUnexpected error: "+cause, rules...)
	s.ReportEntries = append(s.ReportEntries, types.ReportEntry{Name: EntryHarness,
		Value: types.WrapEntryValue(Harness{Kind: KindTransport, Detail: "GET http://t/api/v4/things/1", Cause: cause})})
	return s
}

func TestOnNOfMCountsOnlyTheJudgedRules(t *testing.T) {
	b := book(t)
	sr := types.SpecReports{
		spec(types.SpecStatePassed, "things.get.1"),
		failed("Expected status 404, got 200", "things.get.2"),
		transportFailed("connection refused", "things.get.3"),
		transportFailed("connection refused", "things.get.4"),
		skipped("the target has no paid tier", "things.get.5"),
	}
	for i := 6; i <= 15; i++ {
		sr = append(sr, spec(types.SpecStatePassed, "things.get."+strconv.Itoa(i)))
	}
	r := Build(b, types.Report{SpecReports: sr}, Run{})
	// 11 passed and 1 failed: 12 judged; the 2 errored and the skipped one were not.
	if got, want := r.Headline(), "NOT CONFORMANT on 12 of 15 rules (profile spec)"; got != want {
		t.Errorf("headline %q, want %q (%s)", got, want, r.Counts)
	}
	if r.Counts.Judged() != 12 {
		t.Errorf("judged %d", r.Counts.Judged())
	}
}

func TestErrorsAreGroupedByCauseOnTheFirstScreen(t *testing.T) {
	b := book(t)
	var sr types.SpecReports
	for i := 1; i <= 12; i++ {
		sr = append(sr, transportFailed("connection refused", "things.get."+strconv.Itoa(i)))
	}
	sr = append(sr, transportFailed("connection reset by peer", "things.get.13"), fixtureFailed("things.get.14"),
		failed("Expected status 404, got 200", "things.get.15"))
	r := Build(b, types.Report{SpecReports: sr}, Run{Target: "http://t"})
	want := "14 rules errored: connection refused (12), connection reset by peer (1), fixture: creating a fixture user (1)"
	if got := r.ErrorSummary(); got != want {
		t.Fatalf("summary %q, want %q", got, want)
	}
	if g := r.ErrorCauses(); len(g) != 3 || len(g[0].Rules) != 12 || g[0].Rules[0] != "things.get.1" {
		t.Errorf("groups %+v", g)
	}
	if f := r.Rule("things.get.1").Failures[0]; f.Cause != "connection refused" {
		t.Errorf("the failure keeps its cause: %+v", f)
	}

	// summary.md: the line and one bullet per cause come before any
	// failure's details, and no rule ID is listed once per error there.
	md := Markdown(r, "report.html")
	head, _, _ := strings.Cut(md, "\n## ")
	if !strings.Contains(head, "**"+want+"** (not judged):") || !strings.Contains(head, "- connection refused (12): ") {
		t.Errorf("summary.md's first screen does not group the errors:\n%s", head)
	}
	if strings.Contains(head, "Errored") || strings.Count(head, "[`things.get.1`]") != 1 {
		t.Errorf("each errored rule is listed once, under its cause:\n%s", head)
	}
	if !strings.Contains(head, "**Failed (1):**") {
		t.Errorf("the failed rule is listed:\n%s", head)
	}

	var page bytes.Buffer
	if err := WriteHTML(&page, r); err != nil {
		t.Fatal(err)
	}
	banner, _, _ := strings.Cut(page.String(), "<h2>Run</h2>")
	if !strings.Contains(banner, html.EscapeString(want)+" — not judged") || !strings.Contains(banner, `<div class="cause-group">connection refused (12):`) {
		t.Errorf("report.html does not group the errors under the banner:\n%s", banner)
	}
}

func TestEveryRuleSkippedIsNotRun(t *testing.T) {
	b := book(t)
	plan := planned(skipped("the target's rate limit is unknown; set V4CERT_RATE_LIMIT", "things.get.1"))
	for i := 2; i <= 15; i++ {
		plan = append(plan, PlannedSpec{Spec: spec(types.SpecStateSkipped, "things.get."+strconv.Itoa(i)), Excluded: ExcludedByFilter})
	}
	gr := types.Report{SpecReports: types.SpecReports{plan[0].Spec}}
	r := Build(b, gr, Run{Plan: plan, LabelFilter: "rule:things.get.1"})
	want := `the label filter "rule:things.get.1" selected 1 rule, and it was skipped, so nothing was judged: the target's rate limit is unknown; set V4CERT_RATE_LIMIT (1)`
	if r.Verdict != VerdictNotRun || !r.AllSkipped || r.Cause != want || verdictOK(r) {
		t.Fatalf("verdict %s, all skipped %v, cause %q", r.Verdict, r.AllSkipped, r.Cause)
	}
	if got, _, _ := strings.Cut(Markdown(r, "report.html"), "\n"); got != "# ⛔ NOT RUN: "+want {
		t.Errorf("summary.md starts %q", got)
	}
	// What was skipped, and why, is still there to read.
	if md := Markdown(r, "report.html"); !strings.Contains(md, "- the target's rate limit is unknown; set V4CERT_RATE_LIMIT: `things.get.1`\n") || !strings.Contains(md, "every rule it selected was skipped") {
		t.Errorf("summary.md:\n%s", md)
	}
	var junit bytes.Buffer
	if err := WriteJUnit(&junit, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(junit.String(), `<skipped message="the target&#39;s rate limit is unknown`) {
		t.Errorf("junit.xml lacks the skipped rule:\n%s", junit.String())
	}

	var page bytes.Buffer
	if err := WriteHTML(&page, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page.String(), "every rule it selected was skipped, so nothing was judged") || !strings.Contains(page.String(), `id="matrix"`) {
		t.Errorf("report.html does not show the skipped rules of an all-skipped run")
	}

	// One spec that ran is enough for a verdict.
	plan[1].Excluded = ""
	plan[1].Spec.State = types.SpecStatePassed
	gr.SpecReports = append(gr.SpecReports, plan[1].Spec)
	if r := Build(b, gr, Run{Plan: plan}); r.Verdict != VerdictConformant || r.AllSkipped {
		t.Errorf("a run that judged a rule: %s", r.Headline())
	}
}

func TestMergeOfAllSkippedShards(t *testing.T) {
	// Every spec of the run skips, whichever shard runs it.
	var all []types.SpecReport
	for i := 1; i <= 15; i++ {
		all = append(all, skipped("the target has no paid tier", "things.get."+strconv.Itoa(i)))
	}
	a, c := shardOf(t, all, 1, 2), shardOf(t, all, 2, 2)
	if !a.AllSkipped || a.Verdict != VerdictNotRun {
		t.Fatalf("shard: %s", a.Headline())
	}
	m, err := Merge([]*Report{a, c}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if m.Verdict != VerdictNotRun || !m.AllSkipped || !strings.Contains(m.Cause, "the target has no paid tier (15)") {
		t.Errorf("merged all-skipped shards: %s", m.Headline())
	}
	// One rule passing in one shard makes the merged run a verdict.
	all[0] = spec(types.SpecStatePassed, "things.get.1")
	a, c = shardOf(t, all, 1, 2), shardOf(t, all, 2, 2)
	if m, err := Merge([]*Report{a, c}, nil); err != nil || m.Verdict != VerdictConformant || m.AllSkipped {
		t.Errorf("one shard judged a rule: %v %s", err, m.Headline())
	}
}

func TestTargetDownIsIncomplete(t *testing.T) {
	b := book(t)
	since := time.Date(2026, 11, 27, 22, 10, 0, 0, time.UTC)
	down := &TargetDown{Since: since, Cause: "connection refused", URL: "http://t/api/v4/version"}
	gr := types.Report{SpecReports: types.SpecReports{spec(types.SpecStatePassed, "things.get.1"), transportFailed("connection refused", "things.get.2")}}
	r := Build(b, gr, Run{Incomplete: "the target stopped answering", TargetDown: down})
	if r.Verdict != VerdictIncomplete || r.TargetDown == nil || *r.TargetDown != *down {
		t.Fatalf("verdict %s, %+v", r.Verdict, r.TargetDown)
	}
	if md := Markdown(r, "report.html"); !strings.Contains(md, "The target stopped answering at 2026-11-27 22:10:00 UTC (connection refused at http://t/api/v4/version)") {
		t.Errorf("summary.md:\n%s", md)
	}
}
