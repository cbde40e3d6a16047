package reports

import (
	"bytes"
	"encoding/json"
	"html"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/v4cert/v4cert/specs"
)

// divergentBook has three class-3 rules and one rule the platform agrees with.
const divergentBook = `area: things
endpoints:
  - {id: things.list, method: GET, path: /things, who: anonymous, status: 200}
rules:
  - id: things.list.1
    endpoint: things.list
    says: Pages with page and per_page.
    source: Things (1)
    platform: {does: "answers every thing, unpaginated", source: "platform lib/api/things.rb v1", diverges: true}
  - id: things.list.2
    endpoint: things.list
    says: Ends on an empty page.
    source: Things (2)
    platform: {does: "ends on the last full page", source: "platform lib/pager.rb v1", diverges: true}
  - id: things.list.3
    endpoint: things.list
    says: Refuses a missing attribute with the spec's body.
    source: Things (3)
    platform: {does: "answers {\"error\":\"x is missing\"}", source: "grape en.yml v2", diverges: true}
  - id: things.list.4
    endpoint: things.list
    says: Answers 200.
    source: Things (4)
    platform: {does: "answers 200", source: "platform lib/api/things.rb v1"}
`

// asPlatform is a spec in which the target did what the platform does
// under rule (suites.SpecOrPlatform attaches the entry).
func asPlatform(s types.SpecReport, rule string) types.SpecReport {
	s.ReportEntries = append(s.ReportEntries, types.ReportEntry{Name: EntryPlatform, Value: types.WrapEntryValue(PlatformEntry{Rule: rule})})
	return s
}

func divergentReport(t *testing.T, profile string) (Report, *specs.Rulebook) {
	t.Helper()
	b, err := specs.Load(fstest.MapFS{"things.yaml": {Data: []byte(divergentBook)}})
	if err != nil {
		t.Fatal(err)
	}
	gr := types.Report{SpecReports: types.SpecReports{
		// things.list.1 fails, and nothing says the target did what the platform does.
		failed("Expected x-page", "things.list.1"),
		// things.list.2 passed as the platform does (profile platform).
		asPlatform(spec(types.SpecStatePassed, "things.list.2"), "things.list.2"),
		// things.list.3 failed the spec's text, and the target did what the platform does.
		asPlatform(failed("Expected '400 (Bad request) x not given'", "things.list.3"), "things.list.3"),
		spec(types.SpecStatePassed, "things.list.4"),
	}}
	return Build(b, gr, Run{Target: "http://t", Profile: profile}), b
}

func TestDivergenceInTheReport(t *testing.T) {
	r, b := divergentReport(t, ProfilePlatform)
	if r.Profile != ProfilePlatform || r.Headline() != "NOT CONFORMANT (profile platform)" {
		t.Errorf("profile %q, headline %q", r.Profile, r.Headline())
	}
	one, two, three, four := r.Rule("things.list.1"), r.Rule("things.list.2"), r.Rule("things.list.3"), r.Rule("things.list.4")
	if one.Status != StatusFail || one.Divergence == nil || one.Divergence.AsPlatform || one.Note() != b.Rule("things.list.1").Divergence() {
		t.Errorf("things.list.1: %+v, note %q", one.Divergence, one.Note())
	}
	if two.Status != StatusPass || !two.Divergence.AsPlatform || !strings.HasPrefix(two.Note(), "passed as the platform does") || two.Reason != "passed as the platform does" {
		t.Errorf("things.list.2: %s %+v, note %q", two.Status, two.Divergence, two.Note())
	}
	if three.Status != StatusFail || !three.Divergence.AsPlatform || !strings.HasSuffix(three.Note(), "the target answered as the platform does") {
		t.Errorf("things.list.3: %+v, note %q", three.Divergence, three.Note())
	}
	if four.Divergence != nil || four.Note() != "" {
		t.Errorf("a rule the platform agrees with is labelled: %+v", four.Divergence)
	}
	if c := r.Counts; c.Divergent != 2 || c.AsPlatform != 1 || !strings.Contains(c.String(), "1 passed as the platform does; 2 of the failures known platform divergences") {
		t.Errorf("counts %+v: %s", c, c)
	}

	// JSON: profile, and each class-3 rule's divergence.
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var back struct {
		Profile string `json:"profile"`
		Rules   []struct {
			ID         string      `json:"id"`
			Divergence *Divergence `json:"divergence"`
		} `json:"rules"`
	}
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if back.Profile != ProfilePlatform || back.Rules[0].Divergence == nil || back.Rules[0].Divergence.Label != b.Rule("things.list.1").Divergence() ||
		!back.Rules[1].Divergence.AsPlatform || back.Rules[3].Divergence != nil {
		t.Errorf("report.json: %s", data)
	}

	// JUnit: the failure's type and first line tell a divergence from a
	// plain failure; a pass as the platform says so.
	var junit bytes.Buffer
	if err := WriteJUnit(&junit, r); err != nil {
		t.Fatal(err)
	}
	j := junit.String()
	for _, want := range []string{`type="known_platform_divergence"`, `message="known platform divergence: the platform does this: answers every thing, unpaginated (platform lib/api/things.rb v1) — Expected x-page"`,
		"passed as the platform does, not as the spec says: ends on the last full page (platform lib/pager.rb v1)"} {
		if !strings.Contains(j, want) {
			t.Errorf("junit.xml lacks %q:\n%s", want, j)
		}
	}

	// Markdown: the label above the failure; the passes as the platform listed.
	md := Markdown(r, "report.html")
	for _, want := range []string{"**" + html.EscapeString(b.Rule("things.list.1").Divergence()) + "**", "## Passed as the platform does (1)",
		"- `things.list.2` — passed as the platform does", "| Profile | platform |", "NOT CONFORMANT (profile platform)"} {
		if !strings.Contains(md, want) {
			t.Errorf("summary.md lacks %q:\n%s", want, md)
		}
	}

	// HTML: the badge and the label.
	var page bytes.Buffer
	if err := WriteHTML(&page, r); err != nil {
		t.Fatal(err)
	}
	p := page.String()
	for _, want := range []string{"fail: known platform divergence", "pass as the platform", html.EscapeString(b.Rule("things.list.3").Divergence()), "NOT CONFORMANT (profile platform)"} {
		if !strings.Contains(p, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
}

// TestProfileSpecIsTheDefault: with no profile the report says spec.
func TestProfileSpecIsTheDefault(t *testing.T) {
	r, _ := divergentReport(t, "")
	if r.Profile != ProfileSpec || !strings.HasSuffix(r.Headline(), "(profile spec)") {
		t.Errorf("profile %q, headline %q", r.Profile, r.Headline())
	}
}

// TestProxyFindingsKeepTheirLabel: a proxy finding under a class-3 rule
// shows its label in JUnit's text and summary.md's table.
func TestProxyFindingsKeepTheirLabel(t *testing.T) {
	b, err := specs.Load(fstest.MapFS{"things.yaml": {Data: []byte(divergentBook)}})
	if err != nil {
		t.Fatal(err)
	}
	label := b.Rule("things.list.2").Divergence()
	v := Violation{Index: 1, Severity: "error", Endpoint: "things.list", Rule: "things.list.2", Expected: "an empty last page",
		Seen: "a full page without Link", Method: "GET", URL: "http://t/api/v4/things", Status: 200, Divergence: label}
	r := Build(b, types.Report{}, Run{Target: "http://t", ViaProxy: true, Proxy: &ProxyRun{Violations: []Violation{v}}})
	if line := violationLine(v); !strings.HasSuffix(line, "("+label+")") {
		t.Errorf("junit line %q", line)
	}
	if md := Markdown(r, "report.html"); !strings.Contains(md, label) {
		t.Errorf("summary.md lacks the label:\n%s", md)
	}
}
