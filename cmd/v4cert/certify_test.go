package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	html2 "html"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/v4cert/v4cert/reference"
	"github.com/v4cert/v4cert/reference/suitehost"
	"github.com/v4cert/v4cert/reports"
	"github.com/v4cert/v4cert/suites"
)

// The tests run v4cert as a user does: this test binary is the v4cert
// binary (TestMain dispatches to main), run as a separate process, and
// certify re-executes it for its workers.
const mainEnv = "V4CERT_TEST_MAIN"

func TestMain(m *testing.M) {
	suites.StartReference = suitehost.Start // as main does, for the workers dispatched here
	if len(os.Args) > 1 && os.Args[1] == suites.WorkerCommand {
		os.Exit(suites.RunWorker())
	}
	if args := os.Getenv(mainEnv); args != "" {
		os.Unsetenv(mainEnv)
		os.Args = append([]string{"v4cert"}, strings.Split(args, "\x1f")...)
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// startMain prepares `v4cert args...` as its own process, its output
// (stdout and stderr) gathered.
func startMain(args ...string) (*exec.Cmd, *bytes.Buffer) {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), mainEnv+"="+strings.Join(args, "\x1f"))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	return cmd, &out
}

// v4cert starts `v4cert args...` as its own process.
func v4cert(t *testing.T, args ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	cmd, out := startMain(args...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, out
}

// runV4cert runs `v4cert args...` to the end: its exit status and output.
func runV4cert(t *testing.T, args ...string) (int, string) {
	t.Helper()
	cmd, out := v4cert(t, args...)
	err := cmd.Wait()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, out.String()
	case errors.As(err, &ee):
		return ee.ExitCode(), out.String()
	}
	t.Fatal(err)
	return 0, ""
}

// serveReference serves a fresh reference on loopback, as `v4cert serve
// --seed demo` does: root's token is returned, the demo users' tokens are
// glpat-demo-<username>.
func serveReference(t *testing.T) (string, string) {
	t.Helper()
	const token = "glpat-certify-test-admin"
	inst, err := reference.New(reference.Config{RootToken: token, Seed: "demo", FixedClock: true})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(inst.Server)
	t.Cleanup(func() { srv.Close(); inst.Close() })
	return srv.URL, token
}

func loadReport(t *testing.T, dir string) *reports.Report {
	t.Helper()
	r, err := reports.Load(filepath.Join(dir, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func firstLineOf(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	line, _, _ := strings.Cut(string(data), "\n")
	return line
}

// assertNotRun checks a run that could not start: exit 2, the cause first
// on stderr and in every report, and no verdict on the target.
func assertNotRun(t *testing.T, status int, output, dir, cause string) {
	t.Helper()
	if status != 2 {
		t.Errorf("exit %d, want 2\n%s", status, output)
	}
	if !strings.HasPrefix(output, "v4cert certify: NOT RUN: "+cause) {
		t.Errorf("stderr does not start with the cause %q:\n%s", cause, output)
	}
	r := loadReport(t, dir)
	if r.Verdict != reports.VerdictNotRun || r.Conformant || r.Complete || !strings.HasPrefix(r.Cause, cause) {
		t.Errorf("report.json: verdict %s, cause %q", r.Verdict, r.Cause)
	}
	if got := firstLineOf(t, filepath.Join(dir, "summary.md")); !strings.HasPrefix(got, "# ⛔ NOT RUN: "+cause) {
		t.Errorf("summary.md starts %q", got)
	}
	junit, _ := os.ReadFile(filepath.Join(dir, "junit.xml"))
	if strings.Count(string(junit), "<testcase ") != 1 || !strings.Contains(string(junit), `message="NOT RUN: `+cause) {
		t.Errorf("junit.xml is not one error naming the cause:\n%s", junit)
	}
	html, _ := os.ReadFile(filepath.Join(dir, "report.html"))
	if !strings.Contains(string(html), "<h1>NOT RUN</h1>\n<p class=\"cause\">"+html2.EscapeString(cause)) {
		t.Errorf("report.html does not lead with NOT RUN")
	}
}

func TestCertifyAnUnreachableTargetIsNotRun(t *testing.T) {
	// A port nothing listens on: bind one, then close it.
	srv := httptest.NewServer(http.NotFoundHandler())
	addr := srv.URL
	srv.Close()
	dir := t.TempDir()
	status, out := runV4cert(t, "certify", "--target", addr, "--token", "glpat-whatever", "--out", dir, "--quiet")
	assertNotRun(t, status, out, dir, "cannot reach the target "+addr+" (--target/V4CERT_TARGET)")
	if !strings.Contains(out, "connection refused") {
		t.Errorf("the cause names the refusal:\n%s", out)
	}

	dir = t.TempDir()
	status, out = runV4cert(t, "certify", "--target", "", "--token", "t", "--out", dir)
	assertNotRun(t, status, out, dir, "no target: give --target URL or set V4CERT_TARGET")
}

func TestCertifyAWrongOrNonAdministratorTokenIsNotRun(t *testing.T) {
	base, _ := serveReference(t)
	dir := t.TempDir()
	status, out := runV4cert(t, "certify", "--target", base, "--token", "glpat-not-a-token", "--out", dir)
	assertNotRun(t, status, out, dir, "the target refused the token (GET "+base+"/api/v4/user answered 401)")
	if strings.Contains(out, "glpat-not-a-token") {
		t.Errorf("the token is printed:\n%s", out)
	}

	dir = t.TempDir()
	status, out = runV4cert(t, "certify", "--target", base, "--token", "glpat-demo-olivia", "--out", dir)
	assertNotRun(t, status, out, dir, "the token belongs to olivia, who is not an administrator")

	dir = t.TempDir()
	status, out = runV4cert(t, "certify", "--target", base+"/nothing-here", "--token", "glpat-demo-olivia", "--out", dir)
	assertNotRun(t, status, out, dir, "GET "+base+"/nothing-here/api/v4/user answered 404")
}

// usersOn counts the users of the target (x-total of GET /users).
func usersOn(t *testing.T, base, token string) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, base+"/api/v4/users?per_page=1", nil)
	req.Header.Set("PRIVATE-TOKEN", token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.Header.Get("X-Total")
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

func TestCertifyInterruptedWritesAnIncompleteReport(t *testing.T) {
	// The 150th request of the run is held: when the signal comes, a spec
	// is in flight for certain, and it can end only after certify has said
	// it is stopping (the test lets it go on then).
	g, base, token := serveGatedReference(t, 150, reference.Config{})
	before := usersOn(t, base, token)
	dir := t.TempDir()
	cmd, lines := startCertify(t, "--target", base, "--token", token, "--out", dir, "--procs", "2", "--skip", "limits.pagination.3")
	<-g.held
	cmd.Process.Signal(os.Interrupt)
	if !lines.until("SIGINT: stopping") {
		t.Fatalf("certify did not say it was stopping:\n%s", lines.rest())
	}
	close(g.release)
	status, text := exitOf(t, cmd, lines)
	rest := []byte(text)
	if status != 130 {
		t.Errorf("exit %d, want 130\n%s", status, rest)
	}
	r := loadReport(t, dir)
	if r.Verdict != reports.VerdictIncomplete || r.Conformant || !strings.HasPrefix(r.Cause, "interrupted by SIGINT after ") {
		t.Errorf("verdict %s, cause %q", r.Verdict, r.Cause)
	}
	if r.Counts.Pass < 5 || r.Counts.Skipped < 100 {
		t.Errorf("what ran is kept, the rest skipped: %+v", r.Counts)
	}
	if got := firstLineOf(t, filepath.Join(dir, "summary.md")); !strings.HasPrefix(got, "# ⏸️ INCOMPLETE: interrupted by SIGINT") {
		t.Errorf("summary.md starts %q", got)
	}
	if !strings.Contains(string(rest), "INCOMPLETE: interrupted by SIGINT") {
		t.Errorf("stderr:\n%s", rest)
	}
	// The specs in flight were stopped (or finished first), reported, and
	// cleaned up after.
	_, after, _ := strings.Cut(string(rest), "SIGINT: stopping")
	if !strings.Contains(after, "\n[") {
		t.Errorf("the specs in flight when the signal came are not reported:\n%s", rest)
	}
	// A request cut off by the signal may have created its object before
	// its spec could register the cleanup: at most one per worker is left.
	if b, a := atoi(usersOn(t, base, token)), atoi(before); b-a > 2 {
		t.Errorf("%d users before the run, %d after: the cleanups of the specs in flight did not run", a, b)
	}
	// No worker outlives certify: their cleanups ran and they exited.
	if out, _ := exec.Command("pgrep", "-f", suites.WorkerCommand).Output(); len(out) > 0 {
		for _, pid := range strings.Fields(string(out)) {
			if env, _ := os.ReadFile("/proc/" + pid + "/environ"); bytes.Contains(env, []byte(base)) {
				t.Errorf("worker %s still running", pid)
			}
		}
	}
}

// comparable is the part of a report that must not depend on how the specs
// were spread: every rule's status, reason and specs (without timings),
// the counts, the verdict.
func comparable(r *reports.Report) string {
	rules := make([]reports.Rule, len(r.Rules))
	for i, rule := range r.Rules {
		rule.Specs = append([]reports.Spec(nil), rule.Specs...)
		for j := range rule.Specs {
			rule.Specs[j].DurationSec = 0
		}
		rules[i] = rule
	}
	b, _ := json.MarshalIndent(struct {
		Verdict, Headline string
		Counts            reports.Counts
		Rules             []reports.Rule
		Touched           int
	}{r.Verdict, r.Headline(), r.Counts, rules, r.Coverage.Touched}, "", " ")
	return string(b)
}

func TestCertifyReportsAreTheSameWhateverTheProcessesAndShards(t *testing.T) {
	base, token := serveReference(t)
	certify := func(extra ...string) *reports.Report {
		dir := t.TempDir()
		args := append([]string{"certify", "--target", base, "--token", token, "--out", dir, "--quiet",
			"--focus", "users.get.*,topics.*", "--random-seed", "5"}, extra...)
		if status, out := runV4cert(t, args...); status != 0 {
			t.Fatalf("%v: exit %d\n%s", extra, status, out)
		}
		return loadReport(t, dir)
	}
	one := certify("--procs", "1")
	if one.Verdict != reports.VerdictConformant || one.Counts.Pass < 20 || one.Counts.Filtered == 0 {
		t.Fatalf("the reference: %s %+v", one.Headline(), one.Counts)
	}
	if want := "topics.*"; !strings.Contains(one.LabelFilter, `/^rule:topics\..*$/`) {
		t.Errorf("label filter %q does not record --focus %s", one.LabelFilter, want)
	}
	three := certify("--procs", "3")
	if a, b := comparable(one), comparable(three); a != b {
		t.Errorf("--procs 1 and 3 differ:\n%s\n---\n%s", a, b)
	}

	// The shards, merged, are the whole run.
	var paths []string
	for _, k := range []string{"2/2", "1/2"} {
		dir := t.TempDir()
		args := []string{"certify", "--target", base, "--token", token, "--out", dir, "--quiet",
			"--focus", "users.get.*,topics.*", "--random-seed", "5", "--shard", k, "--procs", "2"}
		if status, out := runV4cert(t, args...); status != 0 {
			t.Fatalf("shard %s: exit %d\n%s", k, status, out)
		}
		paths = append(paths, filepath.Join(dir, "report.json"))
	}
	out := t.TempDir()
	status, text := runV4cert(t, append([]string{"report", "merge", out}, paths...)...)
	if status != 0 {
		t.Fatalf("merge: exit %d\n%s", status, text)
	}
	merged := loadReport(t, out)
	if a, b := comparable(one), comparable(merged); a != b {
		t.Errorf("the merged shards differ from the whole run:\n%s\n---\n%s", a, b)
	}
	for _, f := range reports.Files {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("merge wrote no %s", f)
		}
	}
	// One shard alone, or a shard of another run, is refused.
	if status, text := runV4cert(t, "report", "merge", t.TempDir(), paths[0]); status != 2 || !strings.Contains(text, "shard 1/2 missing") {
		t.Errorf("a missing shard: exit %d\n%s", status, text)
	}
}

func TestEveryHelpExitsZeroAndTheUsageListsEveryFlag(t *testing.T) {
	for _, c := range commands {
		args := []string{c.name, "-h"}
		if c.name == "report" {
			args = []string{"report", "merge", "-h"}
		}
		if status, out := runV4cert(t, args...); status != 0 || len(out) < 10 {
			t.Errorf("%v: exit %d\n%s", args, status, out)
		}
	}
	for _, args := range [][]string{{"-h"}, {"--help"}, {"help"}, {"report", "-h"}} {
		if status, _ := runV4cert(t, args...); status != 0 {
			t.Errorf("%v: exit %d", args, status)
		}
	}
	status, out := runV4cert(t, "help")
	if status != 0 {
		t.Fatalf("help: exit %d", status)
	}
	for _, c := range commands {
		if fs := flagsOf(c); fs != nil {
			fs.VisitAll(func(f *flag.Flag) {
				if a, alias := f.Value.(*aliasFlag); alias {
					if !strings.Contains(out, "--"+a.old+" (--"+a.name+")") {
						t.Errorf("the usage does not name %s --%s as deprecated", c.name, a.old)
					}
					return
				}
				if !strings.Contains(out, "-"+f.Name+" ") && !strings.Contains(out, "-"+f.Name+"\n") && !strings.Contains(out, "-"+f.Name+"\t") {
					t.Errorf("the usage does not list %s --%s", c.name, f.Name)
				}
			})
		}
	}
	for _, env := range []string{"V4CERT_TARGET", "V4CERT_TOKEN", "V4CERT_SALT", "V4CERT_PROXY"} {
		if !strings.Contains(out, env) {
			t.Errorf("the usage does not list %s", env)
		}
	}
	if status, _ := runV4cert(t, "certify", "--no-such-flag"); status != 2 {
		t.Errorf("a usage error exits %d, want 2", status)
	}
}

func TestCertifyListRunsNothing(t *testing.T) {
	status, out := runV4cert(t, "certify", "--list", "--focus", "users.list.1?", "--skip", "users.list.11")
	if status != 0 {
		t.Fatalf("exit %d\n%s", status, out)
	}
	if !regexp.MustCompile(`users\.list\.12\n\s+.*GET /users`).MatchString(out) || strings.Contains(out, "users.list.11\n") || strings.Contains(out, "users.list.2\n") {
		t.Errorf("list:\n%s", out)
	}
	if !strings.Contains(out, " of 489 rules") && !strings.Contains(out, " rules, ") {
		t.Errorf("no tally:\n%s", out)
	}
}

func TestRerunFilterSelectsExactlyTheFailedRules(t *testing.T) {
	for _, tc := range []struct {
		user   string
		labels []string
		want   bool
	}{
		{"", []string{"area:users", "rule:users.list.14"}, true},
		{"", []string{"area:users", "rule:users.list.1"}, false},
		{"", []string{"area:groups", "rule:groups.get.1"}, true},
		{"!paid", []string{"rule:groups.get.1", "paid"}, false},
		{"!paid", []string{"rule:groups.get.1"}, true},
	} {
		expr := rerunFilter(tc.user, []string{"users.list.14", "groups.get.1"})
		f, err := types.ParseLabelFilter(expr)
		if err != nil {
			t.Fatalf("%q: %v", expr, err)
		}
		if got := f(tc.labels); got != tc.want {
			t.Errorf("%q on %v: %v, want %v", expr, tc.labels, got, tc.want)
		}
	}
}

func TestFocusAndSkipAreRuleIDPatterns(t *testing.T) {
	for _, tc := range []struct {
		focus, skip []string
		labels      []string
		want        bool
	}{
		{[]string{"users.*"}, nil, []string{"rule:users.list.14"}, true},
		{[]string{"users.*"}, nil, []string{"rule:groups.list.1"}, false},
		{[]string{"users.list.1"}, nil, []string{"rule:users.list.14"}, false}, // anchored: an exact ID is itself only
		{[]string{"users.list.1?"}, nil, []string{"rule:users.list.14"}, true},
		{[]string{"users.*,groups.get.1"}, nil, []string{"rule:groups.get.1"}, true},
		{nil, []string{"users.list.*"}, []string{"rule:users.list.1", "rule:users.get.2"}, false},
		{[]string{"users.*"}, []string{"users.get.*"}, []string{"rule:users.list.1"}, true},
	} {
		for _, user := range []string{"", "!paid"} {
			cfg := suites.CertifyConfig{Focus: tc.focus, Skip: tc.skip, LabelFilter: user}
			expr, err := cfg.Filter()
			if err != nil {
				t.Fatal(err)
			}
			f, err := types.ParseLabelFilter(expr)
			if err != nil {
				t.Fatalf("%q: %v", expr, err)
			}
			if got := f(tc.labels); got != tc.want {
				t.Errorf("focus %v skip %v → %q on %v: %v, want %v", tc.focus, tc.skip, expr, tc.labels, got, tc.want)
			}
		}
	}
	if _, err := (suites.CertifyConfig{Focus: []string{"users/(x)"}}).Filter(); err == nil {
		t.Errorf("a pattern with characters no rule ID has is accepted")
	}
}
