package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/v4cert/v4cert/reports"
)

// brokenReference is the reference with a few answers changed on the way
// out, as an implementation with bugs would give them:
//   - an unknown user answers 403 instead of 404 (users.get.4);
//   - the second page of a topics list loses its X-Prev-Page header (topics.list.5);
//   - adding a Maintainer to a group fails with 500, so fixtures that build
//     a group with one member per role cannot be built (harness errors).
func brokenReference(t *testing.T, upstream string) string {
	t.Helper()
	u, _ := url.Parse(upstream)
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.ModifyResponse = func(res *http.Response) error {
		req := res.Request
		switch {
		case req.Method == http.MethodGet && regexp.MustCompile(`^/api/v4/users/\d+$`).MatchString(req.URL.Path) && res.StatusCode == http.StatusNotFound:
			res.StatusCode, res.Status = http.StatusForbidden, "403 Forbidden"
			setBody(res, `{"message":"403 Forbidden"}`)
		case req.Method == http.MethodGet && req.URL.Path == "/api/v4/topics" && req.URL.Query().Get("page") == "2":
			res.Header.Del("X-Prev-Page")
		}
		return nil
	}
	maintainer := regexp.MustCompile(`"access_level":\s*40\b`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && regexp.MustCompile(`^/api/v4/groups/\d+/members$`).MatchString(r.URL.Path) {
			body, _ := io.ReadAll(r.Body)
			if maintainer.Match(body) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusInternalServerError)
				w.Write([]byte(`{"message":"500 Internal Server Error"}`))
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func setBody(res *http.Response, body string) {
	res.Body.Close()
	res.Body = io.NopCloser(strings.NewReader(body))
	res.ContentLength = int64(len(body))
	res.Header.Set("Content-Length", itoa(len(body)))
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestCertifyABrokenTargetShowsTheEvidence certifies the broken reference:
// the report fails exactly the broken rules, shows for each the exchange the
// failing assertion named with its headers, tells the harness's errors from
// the target's failures, and puts it all first. V4CERT_KEEP_REPORT=DIR keeps
// the four reports (for looking at report.html in a browser).
func TestCertifyABrokenTargetShowsTheEvidence(t *testing.T) {
	base, token := serveReference(t)
	broken := brokenReference(t, base)
	dir := t.TempDir()
	if keep := os.Getenv("V4CERT_KEEP_REPORT"); keep != "" {
		dir = keep
	}
	status, out := runV4cert(t, "certify", "--target", broken, "--token", token, "--out", dir, "--quiet", "--procs", "2",
		"--focus", "users.get.*,topics.list.*,auth.*")
	if status != 1 {
		t.Fatalf("exit %d, want 1 (NOT CONFORMANT)\n%s", status, out)
	}
	r := loadReport(t, dir)
	if r.Verdict != reports.VerdictNotConformant || !strings.HasPrefix(r.Headline(), "NOT CONFORMANT on ") {
		t.Errorf("verdict %s", r.Headline())
	}

	// The unknown user: the failing exchange is the 403, named and shown.
	f := failureOf(t, r, "users.get.4", reports.StatusFail)
	x := f.Exchanges[f.Shown()]
	if !x.Failed || x.Status != http.StatusForbidden || !strings.HasSuffix(x.URL, "/api/v4/users/999999999") {
		t.Errorf("users.get.4 shows %+v", x)
	}
	if x.RequestHeaders["Private-Token"] != reports.Redacted || x.ResponseHeaders["Content-Type"] == "" {
		t.Errorf("the shown exchange lacks its headers (or shows the token): %+v", x)
	}

	// The missing header: shown with the headers that were there.
	f = failureOf(t, r, "topics.list.5", reports.StatusFail)
	x = f.Exchanges[f.Shown()]
	if !x.Failed || !strings.Contains(x.URL, "page=2") || x.ResponseHeaders["X-Page"] != "2" || !strings.Contains(f.Message, "X-Prev-Page") {
		t.Errorf("topics.list.5: %s\nshows %+v", f.Message, x)
	}

	// The fixture the target broke is the harness's error, not a failure.
	var fixtureErrors int
	for _, rule := range r.Rules {
		for _, f := range rule.Failures {
			if f.Kind == reports.KindFixture && rule.Status == reports.StatusError {
				fixtureErrors++
			}
		}
	}
	if fixtureErrors == 0 {
		t.Errorf("no rule errored on the fixture the target broke")
	}

	junit, _ := os.ReadFile(filepath.Join(dir, "junit.xml"))
	if !strings.Contains(string(junit), `<failure message="Expected status [404], got:" type="assertion">`) {
		t.Errorf("junit.xml's failure message is not the assertion's first line")
	}
	md, _ := os.ReadFile(filepath.Join(dir, "summary.md"))
	head, _, _ := strings.Cut(string(md), "## ")
	if !strings.Contains(head, "[`users.get.4`](#fail-users-get-4)") || !regexp.MustCompile(`\*\*\d+ rules? errored: fixture: `).MatchString(head) {
		t.Errorf("summary.md does not list the failing rules, and the errored ones by cause, under the headline:\n%s", head)
	}
}

func TestCertifyFailFastStopsAtTheFirstFailure(t *testing.T) {
	base, token := serveReference(t)
	broken := brokenReference(t, base)
	dir := t.TempDir()
	status, out := runV4cert(t, "certify", "--target", broken, "--token", token, "--out", dir, "--quiet", "--procs", "2",
		"--focus", "users.*,topics.list.*", "--fail-fast")
	if status != 1 {
		t.Fatalf("exit %d, want 1\n%s", status, out)
	}
	r := loadReport(t, dir)
	if r.Verdict != reports.VerdictNotConformant || r.Counts.Fail == 0 {
		t.Errorf("a failure seen is a verdict: %s %+v", r.Verdict, r.Counts)
	}
	notRun := 0
	for _, rule := range r.Rules {
		if rule.Status == reports.StatusSkipped && strings.HasPrefix(rule.Reason, "not run: --fail-fast") {
			notRun++
		}
	}
	if notRun == 0 || r.Counts.Pass+r.Counts.Fail+notRun < 20 {
		t.Errorf("the rules after the first failure are skipped as not run: %d of %+v", notRun, r.Counts)
	}
}

func failureOf(t *testing.T, r *reports.Report, id string, want reports.Status) reports.Failure {
	t.Helper()
	rule := r.Rule(id)
	if rule == nil || rule.Status != want || len(rule.Failures) == 0 {
		t.Fatalf("%s: %+v, want %s", id, rule, want)
	}
	f := rule.Failures[0]
	if f.Shown() < 0 {
		t.Fatalf("%s: no exchange", id)
	}
	return f
}
