package reports

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/v4cert/v4cert/specs"
)

// sample is a report with one rule in every status, a suite error, coverage
// and proxy violations, and content that tries to break each format.
func sample(t *testing.T) Report {
	t.Helper()
	s := failed("Expected <int>: 200\nto equal 404 ]]> </failure> <script>alert(1)</script> ``` fence", "things.get.2")
	s.ReportEntries = types.ReportEntries{{Name: "exchange", Value: types.WrapEntryValue(Exchange{
		Method: "GET", URL: "http://t/api/v4/things/1?a=<b>&c=d", Status: 200,
		ResponseHeaders: map[string]string{"Content-Type": "application/json"}, ResponseBody: "{\"id\":1,\"x\":\"\x01\"}",
	})}}
	gr := types.Report{SpecReports: types.SpecReports{
		spec(types.SpecStatePassed, "things.get.1"), s, fixtureFailed("things.get.3"),
		skipped("the target has no paid tier", "things.get.4"),
		{LeafNodeType: types.NodeTypeReportAfterSuite, State: types.SpecStateFailed, Failure: types.Failure{Message: "report node broke"}},
	}}
	return Build(book(t), gr, Run{
		Target: "http://target.example", Version: "v1.2.3", Seed: 42, LabelFilter: "!paid",
		Started: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Duration: 2500 * time.Millisecond,
		Coverage: map[string]map[int]int{"things.get": {200: 2, 404: 1}},
		Proxy: &ProxyRun{Summary: &ProxySummary{Exchanges: 10, Errors: 1}, Violations: []Violation{{
			Index: 3, Severity: "error", Endpoint: "things.get", Schema: "thing", Pointer: "/id",
			Expected: "integer", Seen: "string", Method: "GET", URL: "http://t/api/v4/things/1?private_token=pt-secret-1", Status: 200,
		}}},
	})
}

func TestJUnitIsValidXMLWithOneCasePerRule(t *testing.T) {
	r := sample(t)
	var buf bytes.Buffer
	if err := WriteJUnit(&buf, r); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Tests  int `xml:"tests,attr"`
		Suites []struct {
			Name  string `xml:"name,attr"`
			Tests int    `xml:"tests,attr"`
			Cases []struct {
				Name    string    `xml:"name,attr"`
				Failure *struct{} `xml:"failure"`
				Error   *struct{} `xml:"error"`
				Skipped *struct{} `xml:"skipped"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	dec := xml.NewDecoder(bytes.NewReader(buf.Bytes()))
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("junit.xml does not parse: %v\n%s", err, buf.String())
	}
	if doc.Suites[0].Name != "things" || len(doc.Suites[0].Cases) != len(r.Rules) {
		t.Fatalf("want one testcase per rule in suite things, got %+v", doc.Suites[0])
	}
	var fails, errs, skips int
	for _, c := range doc.Suites[0].Cases {
		if c.Failure != nil {
			fails++
		}
		if c.Error != nil {
			errs++
		}
		if c.Skipped != nil {
			skips++
		}
	}
	if fails != r.Counts.Fail || errs != r.Counts.Error || skips != r.Counts.Skipped+r.Counts.NotCovered {
		t.Errorf("junit %d/%d/%d vs counts %+v", fails, errs, skips, r.Counts)
	}
	names := []string{}
	for _, s := range doc.Suites {
		names = append(names, s.Name)
	}
	if strings.Join(names, ",") != "things,suite,proxy" {
		t.Errorf("suites %v", names)
	}
}

func TestJSONRoundTrips(t *testing.T) {
	r := sample(t)
	dir := t.TempDir()
	if err := WriteAll(dir, r); err != nil {
		t.Fatal(err)
	}
	for _, f := range Files {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s not written: %v", f, err)
		}
	}
	back, err := Load(filepath.Join(dir, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var a, b bytes.Buffer
	WriteJSON(&a, r)
	WriteJSON(&b, *back)
	if a.String() != b.String() {
		t.Errorf("report.json does not round-trip:\n%s\n---\n%s", a.String(), b.String())
	}
	if ids := back.FailedRuleIDs(); strings.Join(ids, ",") != "things.get.2,things.get.3" {
		t.Errorf("failed rules %v", ids)
	}
	// The documented top-level keys are all there.
	var m map[string]any
	json.Unmarshal(a.Bytes(), &m)
	for _, k := range []string{"format", "verdict", "conformant", "complete", "target", "version", "rulebook", "seed",
		"label_filter", "via_proxy", "started", "duration_seconds", "counts", "areas", "rules", "suite_errors",
		"unknown_rules", "coverage", "proxy"} {
		if _, ok := m[k]; !ok {
			t.Errorf("report.json lacks %q", k)
		}
	}
}

func TestHTMLIsSelfContained(t *testing.T) {
	r := sample(t)
	var buf bytes.Buffer
	if err := WriteHTML(&buf, r); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	for _, bad := range []*regexp.Regexp{
		regexp.MustCompile(`(?i)<(script|link|img|iframe|object|embed|frame|video|audio|source)\b`),
		regexp.MustCompile(`(?i)\s(src|srcset|action|formaction|poster|data)\s*=`),
		regexp.MustCompile(`(?i)\shref\s*=\s*"[^#]`),
		regexp.MustCompile(`(?i)url\(|@import`),
	} {
		if m := bad.FindString(page); m != "" {
			t.Errorf("report.html refers outside itself: %q", m)
		}
	}
	for _, want := range []string{VerdictNotConformant, "things.get.2", "Things (2)", "GET /things/:id", "Expected &lt;int&gt;: 200",
		"the target has no paid tier", "not covered", "1 of 1", "pt-secret-1"} {
		if want == "pt-secret-1" {
			if strings.Contains(page, want) {
				t.Errorf("secret in the page")
			}
			continue
		}
		if !strings.Contains(page, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
}

func TestMarkdownSummary(t *testing.T) {
	r := sample(t)
	var buf bytes.Buffer
	if err := WriteMarkdown(&buf, r); err != nil {
		t.Fatal(err)
	}
	md := buf.String()
	if !strings.HasPrefix(md, "# ❌ NOT CONFORMANT") {
		t.Errorf("verdict must come first: %q", md[:40])
	}
	for _, want := range []string{"| things | 1 | **1** | **1** | 1 | 11 |", "### `things.get.2`", "````", "Proxy violations (1)", "the target has no paid tier"} {
		if !strings.Contains(md, want) {
			t.Errorf("summary.md lacks %q\n%s", want, md)
		}
	}
}

func TestRedaction(t *testing.T) {
	red := NewRedactor("admin-token-1234")
	cases := map[string]string{
		`GET http://h/api/v4/user?private_token=q-secret&page=2`:                "q-secret",
		`{"name":"t","token":"glpat-abcdefghij","expires_at":null}`:             "glpat-abcdefghij",
		`{"password": "hunter2-pw", "username":"u"}`:                            "hunter2-pw",
		`{"runners_token":"rt-secret-value"}`:                                   "rt-secret-value",
		`{"url":"https://user:mirror-pass@git.example.com/repo.git"}`:           "mirror-pass",
		`job_token=jt-secret&ref=main`:                                          "jt-secret",
		"Expected\n    <string>: \"{\\\"token\\\":\\\"zz-escaped-secret\\\"}\"": "zz-escaped-secret",
		`message mentioning admin-token-1234 in passing`:                        "admin-token-1234",
		`{"new_password":"np-secret"}`:                                          "np-secret",
		`{"private_key":"-----BEGIN KEY-----abc"}`:                              "BEGIN KEY",
		// A masked CI/CD variable (specs.IsMaskFlag), flag after or before
		// the value, as JSON, as Gomega quotes it, and as a form.
		`[{"key":"K","value":"masked-v4lue-1","masked":true}]`:                                           "masked-v4lue-1",
		`{"masked": true, "key":"K", "value": "masked-v4lue-2"}`:                                         "masked-v4lue-2",
		"<string>: \"{\\\"key\\\":\\\"K\\\",\\\"value\\\":\\\"masked-v4lue-3\\\",\\\"masked\\\":true}\"": "masked-v4lue-3",
		`POST /api/v4/projects/1/variables key=K&value=masked-v4lue-4&masked=true`:                       "masked-v4lue-4",
	}
	for in, secret := range cases {
		out := red.Text(in)
		if strings.Contains(out, secret) {
			t.Errorf("%q still shows %q: %q", in, secret, out)
		}
		if !strings.Contains(out, Redacted) {
			t.Errorf("%q: no redaction marker in %q", in, out)
		}
	}
	// Metadata about secrets stays readable.
	keep := `{"token_expires_at":"2026-01-01","scopes":["api"],"page":"2","per_page":20,"variables":[{"key":"REGION","value":"eu-west-1","masked":false}]}`
	if out := red.Text(keep); out != keep {
		t.Errorf("over-redacted: %q", out)
	}
	for _, h := range []string{"PRIVATE-TOKEN", "Job-Token", "authorization"} {
		if got := red.Header(h, "anything"); got != Redacted {
			t.Errorf("header %s: %q", h, got)
		}
	}
	if got := red.Header("Content-Type", "application/json"); got != "application/json" {
		t.Errorf("content-type: %q", got)
	}
}

func TestJUnitLeavesOutUnselectedRulesAndSaysTheAssertion(t *testing.T) {
	b := book(t)
	s := failed("GET /things/1 should answer 404\nExpected status [404], got:\n  GET http://t → 200", "things.get.2")
	var sr types.SpecReports
	sr = append(sr, spec(types.SpecStatePassed, "things.get.1"), s)
	for i := 3; i <= 15; i++ {
		sr = append(sr, spec(types.SpecStateSkipped, "things.get."+strconv.Itoa(i)))
	}
	r := Build(b, types.Report{SpecReports: sr}, Run{LabelFilter: "rule:things.get.1 || rule:things.get.2"})
	var buf bytes.Buffer
	if err := WriteJUnit(&buf, r); err != nil {
		t.Fatal(err)
	}
	x := buf.String()
	if n := strings.Count(x, "<testcase "); n != 2 {
		t.Errorf("%d testcases, want the 2 selected rules:\n%s", n, x)
	}
	if !strings.Contains(x, `<failure message="GET /things/1 should answer 404" type="assertion">`) {
		t.Errorf("failure message is not the assertion's first line:\n%s", x)
	}

	nr := Build(b, types.Report{}, Run{NotRun: "cannot reach the target http://t (--target/V4CERT_TARGET): connection refused"})
	buf.Reset()
	WriteJUnit(&buf, nr)
	x = buf.String()
	if strings.Count(x, "<testcase ") != 1 || !strings.Contains(x, `message="NOT RUN: cannot reach the target`) {
		t.Errorf("a run that did not start is one error saying why:\n%s", x)
	}
}

// bigBook is a rulebook of n rules, for reports with many failures.
func bigBook(t *testing.T, n int) *specs.Rulebook {
	t.Helper()
	var b strings.Builder
	b.WriteString("area: things\nendpoints:\n  - {id: things.get, method: GET, path: /things/:id, who: anonymous, status: 200}\nrules:\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "  - {id: things.get.%d, endpoint: things.get, says: Rule number %d says something fairly long about things., source: Things (%d)}\n", i, i, i)
	}
	bk, err := specs.Load(fstest.MapFS{"things.yaml": {Data: []byte(b.String())}})
	if err != nil {
		t.Fatal(err)
	}
	return bk
}

func TestSummaryStaysUnder60000CharactersWhateverFails(t *testing.T) {
	for _, n := range []int{3, 60, 600} {
		var sr types.SpecReports
		for i := 1; i <= n; i++ {
			s := failed(strings.Repeat("Expected a long explanation of what went wrong. ", 40), "things.get."+strconv.Itoa(i))
			s.ReportEntries = types.ReportEntries{{Name: EntryExchange, Value: types.WrapEntryValue(Exchange{
				Method: "GET", URL: "http://t/api/v4/things/1", Status: 500, ResponseBody: strings.Repeat("x", 4000), Failed: true,
				ResponseHeaders: map[string]string{"Content-Type": "application/json"}})}}
			sr = append(sr, s)
		}
		r := Build(bigBook(t, n), types.Report{SpecReports: sr}, Run{Target: "http://t"})
		md := Markdown(r, "report.html")
		if len(md) >= MaxSummary {
			t.Errorf("%d failures: summary.md is %d characters", n, len(md))
		}
		if !strings.HasPrefix(md, "# ❌ NOT CONFORMANT") || !strings.Contains(md, "**Failed ("+strconv.Itoa(n)+"):**") {
			t.Errorf("%d failures: the headline and the failing IDs come first:\n%s", n, md[:min(len(md), 400)])
		}
		if !strings.Contains(md, "Content-Type: application/json") {
			t.Errorf("%d failures: the failing exchange is shown with its headers", n)
		}
		detailed := strings.Count(md, "<a id=\"fail-")
		if n == 3 && detailed != 3 {
			t.Errorf("3 failures: %d detailed", detailed)
		}
		if n == 600 {
			if detailed < 10 || !strings.Contains(md, "more not shown here") || !strings.Contains(md, "](report.html#fail-things-get-100)") {
				t.Errorf("600 failures: %d detailed; the rest must be linked to report.html", detailed)
			}
			if !strings.Contains(md, "](#fail-things-get-1)") {
				t.Errorf("a failure detailed in the summary is linked within it")
			}
		}
	}
}

func TestHTMLShowsTheFailuresFirstAndTheNamedExchangeOpen(t *testing.T) {
	r := sample(t)
	var buf bytes.Buffer
	if err := WriteHTML(&buf, r); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	worst := strings.Index(page, `class="worst"`)
	if worst < 0 || worst > strings.Index(page, "<h2>Run</h2>") {
		t.Errorf("the failing rules are not listed under the banner")
	}
	if !strings.Contains(page, `<a class="mono" href="#fail-things-get-2">things.get.2</a>`) {
		t.Errorf("failing rule not linked")
	}
	if !strings.Contains(page, "the last exchange before the failure") {
		t.Errorf("the open exchange is not labelled")
	}

	buf.Reset()
	nr := Build(book(t), types.Report{}, Run{Target: "http://t", NotRun: "the token belongs to olivia, who is not an administrator"})
	WriteHTML(&buf, nr)
	page = buf.String()
	if !strings.Contains(page, "<h1>NOT RUN</h1>\n<p class=\"cause\">the token belongs to olivia, who is not an administrator</p>") || strings.Contains(page, `id="matrix"`) {
		t.Errorf("a NOT RUN page says why first and shows no matrix")
	}
}
