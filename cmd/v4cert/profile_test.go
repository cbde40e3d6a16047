package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/v4cert/v4cert/reports"
	"github.com/v4cert/v4cert/specs"
)

// platformMissing is the spec's missing-attribute body (Errors rule 2).
var platformMissing = regexp.MustCompile(`^\{"message":"400 \(Bad request\) \\?"?([^"\\]+)\\?"? not given"\}\s*$`)

// platformLikeReference is the reference answering a missing attribute as
// the platform does (errors.missing.1's platform.does: Grape's presence
// validator, 400 {"error":"<attr> is missing"}) and nothing else changed.
func platformLikeReference(t *testing.T, upstream string) string {
	t.Helper()
	u, _ := url.Parse(upstream)
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.ModifyResponse = func(res *http.Response) error {
		if res.StatusCode != http.StatusBadRequest {
			return nil
		}
		data, err := io.ReadAll(res.Body)
		if err != nil {
			return err
		}
		body := string(data)
		if m := platformMissing.FindStringSubmatch(body); m != nil {
			body = `{"error":"` + m[1] + ` is missing"}`
		}
		setBody(res, body)
		return nil
	}
	srv := httptest.NewServer(rp)
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestCertifyProfiles certifies a target that answers a missing attribute
// as the platform does. Under the default profile the two rules that say
// otherwise fail, labelled as known platform divergences the target was
// seen doing; under --profile platform they pass as the platform does, and
// the verdict line and report.json name the profile.
func TestCertifyProfiles(t *testing.T) {
	base, token := serveReference(t)
	target := platformLikeReference(t, base)
	rules := []string{"errors.missing.1", "bulk_imports.create.3"}
	run := func(profile string) (*reports.Report, int, string) {
		dir := t.TempDir()
		args := []string{"certify", "--target", target, "--token", token, "--out", dir, "--quiet", "--procs", "1", "--focus", strings.Join(rules, ",")}
		if profile != "" {
			args = append(args, "--profile", profile)
		}
		status, out := runV4cert(t, args...)
		return loadReport(t, dir), status, out
	}

	r, status, out := run("")
	if status != 1 || r.Profile != reports.ProfileSpec || !strings.Contains(out, "NOT CONFORMANT on 2 of") || !strings.Contains(out, "(profile spec)") {
		t.Fatalf("profile spec: exit %d, %s\n%s", status, r.Headline(), out)
	}
	for _, id := range rules {
		rule := r.Rule(id)
		want := specs.Default().Rule(id).Divergence()
		if rule.Status != reports.StatusFail || rule.Divergence == nil || !rule.Divergence.AsPlatform || rule.Divergence.Label != want {
			t.Errorf("profile spec, %s: %s %+v", id, rule.Status, rule.Divergence)
		}
		if !strings.HasPrefix(rule.Note(), want) || !strings.Contains(out, rule.Note()) {
			t.Errorf("profile spec, %s: note %q, not printed under the verdict", id, rule.Note())
		}
	}

	r, status, out = run(reports.ProfilePlatform)
	if status != 0 || r.Profile != reports.ProfilePlatform || !strings.Contains(out, "CONFORMANT on 2 of") || !strings.Contains(out, "(profile platform)") {
		t.Fatalf("profile platform: exit %d, %s\n%s", status, r.Headline(), out)
	}
	for _, id := range rules {
		rule := r.Rule(id)
		if rule.Status != reports.StatusPass || rule.Divergence == nil || !rule.Divergence.AsPlatform || rule.Reason != "passed as the platform does" {
			t.Errorf("profile platform, %s: %s %q %+v", id, rule.Status, rule.Reason, rule.Divergence)
		}
	}
	if r.Counts.AsPlatform != 2 {
		t.Errorf("counts %+v", r.Counts)
	}

	if status, out := runV4cert(t, "certify", "--profile", "lenient", "--target", target, "--token", token); status != 2 || !strings.Contains(out, "--profile") {
		t.Errorf("an unknown profile: exit %d\n%s", status, out)
	}
}
