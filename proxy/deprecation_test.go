package proxy_test

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/v4cert/v4cert/proxy"
	"github.com/v4cert/v4cert/reference"
)

// TestDeprecationsByWhoseDoing: deprecated things a request sends are the
// client's (warnings), deprecated fields an answer carries are the server's
// (information), and a current request draws neither.
func TestDeprecationsByWhoseDoing(t *testing.T) {
	c := proxy.NewChecker(nil)
	ok := http.Header{"Content-Type": {"application/json"}}
	cases := []struct {
		name, method, path, query, ct, body string
		status                              int
		respBody                            string
		want                                string // the Seen of the one warning expected, or ""
	}{
		{"deprecated alias in the query", "DELETE", "/api/v4/projects/1/registry/repositories/2/tags", "name_regex=.*", "", "", 202, "",
			"the request sends parameter name_regex is deprecated (use name_regex_delete)"},
		{"deprecated alias in a form body", "DELETE", "/api/v4/projects/1/registry/repositories/2/tags", "", "application/x-www-form-urlencoded", "name_regex=.%2A", 202, "",
			"the request sends parameter name_regex is deprecated (use name_regex_delete)"},
		{"its replacement", "DELETE", "/api/v4/projects/1/registry/repositories/2/tags", "name_regex_delete=.*", "", "", 202, "", ""},
		{"deprecated parameter in a JSON body", "PUT", "/api/v4/runners/4", "", "application/json", `{"active":false}`, 200, "",
			"the request sends parameter active is deprecated (use paused)"},
		{"deprecated value", "GET", "/api/v4/runners", "status=paused", "", "", 200, "[]",
			"the request sends parameter status=paused is deprecated (use paused)"},
		{"current value", "GET", "/api/v4/runners", "status=online", "", "", 200, "[]", ""},
		{"deprecated filter", "GET", "/api/v4/runners/all", "scope=online", "", "", 200, "[]",
			"the request sends parameter scope is deprecated"},
		{"deprecated endpoint", "DELETE", "/v2/group/project/image/tags/reference/v1", "", "", "", 202, "",
			"the request calls DELETE /v2/*name/tags/reference/:tag, which is deprecated"},
	}
	for _, tc := range cases {
		ex := &proxy.Exchange{Method: tc.method, URL: "http://x" + tc.path + "?" + tc.query, Path: tc.path, RawQuery: tc.query,
			ReqHeader: http.Header{"Content-Type": {tc.ct}}, ReqBody: []byte(tc.body), Status: tc.status, Header: ok, Body: []byte(tc.respBody)}
		var warnings []string
		for _, v := range c.Check(ex) {
			if v.Severity == proxy.SeverityWarning {
				warnings = append(warnings, v.Seen)
			}
		}
		if tc.want == "" && len(warnings) > 0 || tc.want != "" && (len(warnings) != 1 || warnings[0] != tc.want) {
			t.Errorf("%s: warnings %q, want %q", tc.name, warnings, tc.want)
		}
	}
}

// TestReferenceAnswersPassStrict records the reference's own answers to
// current requests across the areas and validates the cassette: no error,
// no warning (so `v4cert validate --strict` passes), and the deprecated
// fields the reference sends, as the spec's answers do, as information.
func TestReferenceAnswersPassStrict(t *testing.T) {
	const token = "glpat-strict-root-token-0000000"
	inst, err := reference.New(reference.Config{RootToken: token, Seed: "demo", FixedClock: true})
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Close()
	ref := newHandlerServer(t, inst.Server)
	file := filepath.Join(t.TempDir(), "strict.yaml")
	p, base := startProxy(t, proxy.Options{Mode: proxy.ModeRecord, Upstream: ref, Cassette: file, CassetteFormat: proxy.Format2})
	send := func(method, path, ct, body string) {
		res, got := do(t, method, base+"/api/v4"+path, ct, body, "PRIVATE-TOKEN", token)
		if res.StatusCode >= 400 {
			t.Fatalf("%s %s: %d %s", method, path, res.StatusCode, got)
		}
	}
	send("POST", "/user/runners", "application/json", `{"runner_type":"instance_type","description":"strict"}`)
	const website = "/projects/demo%2Fwebsite"
	for _, path := range []string{
		"/users?per_page=5", "/users?pagination=keyset&order_by=id&sort=asc&per_page=2", "/users/1", "/user",
		"/groups", "/groups/demo", "/groups/demo?with_custom_attributes=true", "/groups/demo/projects", "/groups/demo/projects?simple=true",
		"/groups/demo/members", "/groups/demo/members/all", "/groups/demo/billable_members", "/groups/demo/access_requests",
		"/groups/demo/registry/repositories", "/groups/demo/runners",
		"/projects", website, website + "/members/all", website + "/repository/commits", website + "/repository/commits/main",
		website + "/jobs", website + "/registry/repositories", website + "/remote_mirrors",
		website + "/integrations", website + "/packages/protection/rules", website + "/runners",
		"/topics", "/runners", "/runners/all", "/runners/all?status=online&type=instance_type", "/bulk_imports",
	} {
		send("GET", path, "", "")
	}
	s, _, err := p.Close()
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	sum, err := proxy.ValidateCassette(file, nil, func(v proxy.Violation) {
		if v.Severity != proxy.SeverityInfo {
			lines = append(lines, proxy.Format(v))
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Exchanges != s.Recorded || sum.Errors != 0 || sum.Warnings != 0 || sum.Harness != 0 {
		t.Fatalf("%d exchanges: %d errors, %d warnings; strict would fail:\n%s", sum.Exchanges, sum.Errors, sum.Warnings, strings.Join(lines, "\n"))
	}
	if sum.Info == 0 {
		t.Error("no deprecated field reported as information (runner active, group projects)")
	}
}
