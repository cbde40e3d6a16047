package main

import (
	"bufio"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/v4cert/v4cert/reference"
	"github.com/v4cert/v4cert/reports"
)

// gate stands in front of a reference and holds one request of the run,
// the Nth under /api/v4 that is not GET /user (certify's preflight and the
// suite's setup ask that one), so a test knows a spec is in flight when it
// acts, without waiting for time to pass.
type gate struct {
	srv     *httptest.Server
	held    chan struct{} // closed when the Nth request arrived and is held
	release chan struct{} // closed by the test: the held request goes on
	heldAt  time.Time     // when it arrived
	// every429, when set, answers every so many requests 429 Too Many
	// Requests (Retry-After: 0) in the reference's stead, once each: a rate
	// limit that strikes at known requests, not at the machine's speed.
	every429 int64
	limited  atomic.Int64 // 429s answered so
}

// serveGatedReference serves a fresh demo reference on loopback behind a
// gate holding the holdAt-th request.
func serveGatedReference(t *testing.T, holdAt int64, opts reference.Config, every429 ...int64) (*gate, string, string) {
	t.Helper()
	const token = "glpat-certify-test-admin"
	opts.RootToken, opts.Seed, opts.FixedClock = token, "demo", true
	inst, err := reference.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	g := &gate{held: make(chan struct{}), release: make(chan struct{})}
	if len(every429) > 0 {
		g.every429 = every429[0]
	}
	var n atomic.Int64
	g.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/api/v4/") || r.URL.Path == "/api/v4/user" {
			inst.Server.ServeHTTP(w, r)
			return
		}
		i := n.Add(1)
		if g.every429 > 0 && i%g.every429 == 0 {
			g.limited.Add(1)
			w.Header().Set("Retry-After", "0")
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusTooManyRequests)
			io.WriteString(w, `{"message":"429 Too Many Requests - Retry later"}`)
			return
		}
		if i == holdAt {
			g.heldAt = time.Now()
			close(g.held)
			select {
			case <-g.release:
			case <-r.Context().Done():
			}
		}
		inst.Server.ServeHTTP(w, r)
	}))
	t.Cleanup(func() {
		select {
		case <-g.release: // killed: released already
		default:
			close(g.release)
		}
		g.srv.Close()
		inst.Close()
	})
	return g, g.srv.URL, token
}

// kill makes the target stop answering as a dead process does: new
// connections are refused, open ones are cut (the held request's too).
func (g *gate) kill() {
	g.srv.Listener.Close()
	g.srv.CloseClientConnections()
	close(g.release)
}

// lines gathers a process's stderr line by line, for a test to wait on one.
type lines struct {
	ch  chan string
	all []string
}

func readLines(r io.Reader) *lines {
	l := &lines{ch: make(chan string, 4096)}
	go func() {
		s := bufio.NewScanner(r)
		s.Buffer(make([]byte, 1<<20), 1<<20)
		for s.Scan() {
			l.ch <- s.Text()
		}
		close(l.ch)
	}()
	return l
}

// until reads lines until one contains want (false: the output ended first).
func (l *lines) until(want string) bool {
	for line := range l.ch {
		l.all = append(l.all, line)
		if strings.Contains(line, want) {
			return true
		}
	}
	return false
}

// rest reads to the end and returns everything read.
func (l *lines) rest() string {
	for line := range l.ch {
		l.all = append(l.all, line)
	}
	return strings.Join(l.all, "\n") + "\n"
}

// startCertify starts `v4cert certify args...` with its stderr to read.
func startCertify(t *testing.T, args ...string) (*exec.Cmd, *lines) {
	t.Helper()
	cmd, _ := startMain(append([]string{"certify"}, args...)...)
	cmd.Stdout, cmd.Stderr = nil, nil
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	return cmd, readLines(stderr)
}

// exitOf waits for cmd (at most 3 minutes) and returns its exit status.
func exitOf(t *testing.T, cmd *exec.Cmd, out *lines) (int, string) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	text := out.rest()
	select {
	case err := <-done:
		var ee *exec.ExitError
		switch {
		case err == nil:
			return 0, text
		case errors.As(err, &ee):
			return ee.ExitCode(), text
		}
		t.Fatal(err)
	case <-time.After(3 * time.Minute):
		cmd.Process.Kill()
		t.Fatalf("certify did not end:\n%s", text)
	}
	return 0, ""
}

func TestCertifyATargetThatStopsAnsweringIsIncomplete(t *testing.T) {
	g, base, token := serveGatedReference(t, 80, reference.Config{})
	dir := t.TempDir()
	cmd, out := startCertify(t, "--target", base, "--token", token, "--out", dir, "--procs", "2", "--focus", "users.*,groups.*")
	<-g.held // a spec is in flight, waiting for its answer
	g.kill()
	status, text := exitOf(t, cmd, out)
	if status != exitTargetDown {
		t.Errorf("exit %d, want %d\n%s", status, exitTargetDown, text)
	}
	r := loadReport(t, dir)
	probe := base + "/api/v4/version"
	if r.Verdict != reports.VerdictIncomplete || r.Conformant || !strings.HasPrefix(r.Cause, "the target stopped answering at ") ||
		!strings.Contains(r.Cause, ": connection refused at "+probe+" (after ") {
		t.Fatalf("verdict %s, cause %q", r.Verdict, r.Cause)
	}
	d := r.TargetDown
	if d == nil || d.Cause != "connection refused" || d.URL != probe {
		t.Fatalf("target_down %+v", d)
	}
	// It stopped answering after the held request arrived, and before the run ended.
	if d.Since.Before(g.heldAt.Truncate(time.Millisecond)) || d.Since.After(time.Now()) {
		t.Errorf("stopped answering at %s; the target was killed after %s", d.Since, g.heldAt)
	}
	// The run stopped early: a few specs errored on the dead target, the
	// rest were not run, and what ran before is kept. "A few" is bounded:
	// certify holds every spec not yet started (the host's counter, and the
	// workers' gate for the rest of a group already handed out) as soon as
	// downAfter (3) specs in a row could not reach the target, before the
	// worker that reported the third starts another. Every spec started
	// after the target died errors on it and counts in that streak; only a
	// spec in flight when it died can end a streak, by passing. With W
	// workers, one of them holding the request the target died on (which
	// errors), that is at most W−1 streaks of 2 ended so, the streak of 3,
	// and W−1 specs in flight on the other workers when the run is held:
	// 2(W−1) + 3 + (W−1) = 6 specs with W = 2.
	const maxErrored = 2*(2-1) + 3 + (2 - 1)
	errored := map[string][]string{}
	for _, rule := range r.Rules {
		for _, s := range rule.Specs {
			if s.Status == reports.StatusError {
				errored[s.Text] = append(errored[s.Text], rule.ID)
			}
		}
	}
	notRun := r.Counts.Skipped - r.Counts.Filtered
	if r.Counts.Pass == 0 || r.Counts.Error == 0 || len(errored) > maxErrored || notRun < 40 {
		t.Errorf("counts %+v, %d specs errored (at most %d): want passes before, a few errors, the rest not run\n%v",
			r.Counts, len(errored), maxErrored, errored)
	}
	for _, g := range r.ErrorCauses() {
		if !strings.HasPrefix(g.Cause, "connection ") && !strings.HasPrefix(g.Cause, "interrupted") && !strings.HasPrefix(g.Cause, "request cancelled") {
			t.Errorf("an error with another cause: %q %v", g.Cause, g.Rules)
		}
	}
	// The first screen: the verdict with the cause, then the errors by cause
	// (the request cut off when the target died ends in EOF or a reset, the
	// ones after it are refused).
	if !regexp.MustCompile(`\nINCOMPLETE: the target stopped answering at .*\n\d+ rules? errored: connection (refused|closed before an answer \(EOF\)|reset by peer) \(\d+\)`).MatchString(text) {
		t.Errorf("stderr:\n%s", text)
	}
	if got := firstLineOf(t, filepath.Join(dir, "summary.md")); !strings.HasPrefix(got, "# ⏸️ INCOMPLETE: the target stopped answering at ") {
		t.Errorf("summary.md starts %q", got)
	}
}

func TestCertifyEveryRuleSkippedIsNotRun(t *testing.T) {
	// errors.ratelimit.1 skips when the target's limit is not declared.
	t.Setenv("V4CERT_RATE_LIMIT", "")
	t.Setenv("V4CERT_RATE_LIMITED", "")
	base, token := serveReference(t)
	dir := t.TempDir()
	status, out := runV4cert(t, "certify", "--target", base, "--token", token, "--out", dir, "--quiet", "--focus", "errors.ratelimit.1")
	if status != exitNothingJudged {
		t.Errorf("exit %d, want %d\n%s", status, exitNothingJudged, out)
	}
	cause := `the label filter "rule:errors.ratelimit.1" selected 1 rule, and it was skipped, so nothing was judged: the target's rate limit is unknown`
	if !strings.HasPrefix(out, "v4cert certify: NOT RUN: "+cause) {
		t.Errorf("stderr:\n%s", out)
	}
	r := loadReport(t, dir)
	if r.Verdict != reports.VerdictNotRun || !r.AllSkipped || !strings.HasPrefix(r.Cause, cause) || r.Conformant {
		t.Errorf("verdict %s, all skipped %v, cause %q", r.Verdict, r.AllSkipped, r.Cause)
	}
	if !strings.Contains(r.Cause, "certify --rate-limit N") {
		t.Errorf("the cause does not say what would run it: %q", r.Cause)
	}
}

func TestCertifyARateLimitedTargetCompletes(t *testing.T) {
	t.Setenv("V4CERT_RATE_LIMIT", "")
	t.Setenv("V4CERT_RATE_LIMITED", "")
	// Every 7th request is answered 429: waited out, the run is judged as
	// if there were no limit.
	g, base, token := serveGatedReference(t, -1, reference.Config{}, 7)
	dir := t.TempDir()
	status, out := runV4cert(t, "certify", "--target", base, "--token", token, "--out", dir, "--quiet", "--procs", "2",
		"--focus", "topics.*", "--retry-429", "5")
	r := loadReport(t, dir)
	if status != exitConformant || r.Verdict != reports.VerdictConformant || g.limited.Load() < 10 {
		t.Fatalf("exit %d, %s, %d answers 429\n%s", status, r.Headline(), g.limited.Load(), out)
	}

	// Not waited out, a 429 keeps the harness from judging: errors, each
	// under the one cause, and no failure of the target.
	g, base, token = serveGatedReference(t, -1, reference.Config{}, 7)
	dir = t.TempDir()
	status, out = runV4cert(t, "certify", "--target", base, "--token", token, "--out", dir, "--quiet", "--procs", "2",
		"--focus", "topics.*")
	r = loadReport(t, dir)
	causes := r.ErrorCauses()
	if status != exitNotConformant || g.limited.Load() == 0 || r.Counts.Fail != 0 || r.Counts.Error == 0 || len(causes) != 1 ||
		causes[0].Cause != "rate limited: 429 Too Many Requests (not sent again)" {
		t.Fatalf("exit %d, %s, causes %+v\n%s", status, r.Headline(), causes, out)
	}
	if f := r.Rule(causes[0].Rules[0]).Failures[0]; f.Status != reports.StatusError || f.Kind == reports.KindAssertion {
		t.Errorf("a 429 judged the target: %+v", f)
	}

	// The reference's own limit, declared with --rate-limit: errors.ratelimit.1
	// runs and passes, and the rest waits the limit out.
	_, base, token = serveGatedReference(t, -1, reference.Config{RateLimit: 30})
	dir = t.TempDir()
	status, out = runV4cert(t, "certify", "--target", base, "--token", token, "--out", dir, "--quiet", "--procs", "2",
		"--focus", "topics.*,errors.ratelimit.1", "--rate-limit", "30")
	r = loadReport(t, dir)
	if status != exitConformant || r.Verdict != reports.VerdictConformant {
		t.Fatalf("exit %d, %s\n%s", status, r.Headline(), out)
	}
	if rule := r.Rule("errors.ratelimit.1"); rule.Status != reports.StatusPass {
		t.Errorf("errors.ratelimit.1 %s %q: --rate-limit declares the limit it checks", rule.Status, rule.Reason)
	}
}

// Every V4CERT_ variable the help names is one the code reads: the help is
// what users set, and a name nothing reads (V4CERT_RATE_LIMITED was one)
// changes nothing without a word.
func TestEveryEnvironmentVariableTheHelpNamesIsRead(t *testing.T) {
	help := usage()
	for _, c := range commands {
		args := []string{c.name, "-h"}
		if c.name == "report" {
			args = []string{"report", "merge", "-h"}
		}
		_, out := runV4cert(t, args...)
		help += out
	}
	named := map[string]bool{}
	for _, v := range regexp.MustCompile(`V4CERT_[A-Z0-9_]+`).FindAllString(help, -1) {
		named[v] = true
	}
	if !named["V4CERT_RATE_LIMIT"] || !named["V4CERT_TARGET"] {
		t.Fatalf("the help names %v", named)
	}
	// The module's Go sources (not tests), read for os.Getenv/LookupEnv of
	// the name, directly or through a constant.
	var src strings.Builder
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			src.Write(b)
			src.WriteByte('\n')
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	code := src.String()
	for v := range named {
		read := regexp.MustCompile(`(Getenv|LookupEnv)\("` + v + `"\)`).MatchString(code)
		for _, m := range regexp.MustCompile(`(\w+)\s*=\s*"`+v+`"`).FindAllStringSubmatch(code, -1) {
			read = read || regexp.MustCompile(`(Getenv|LookupEnv)\(`+m[1]+`\)`).MatchString(code)
		}
		// serve's flags read through a table: the name in serveEnv, read by
		// flagsFromEnv's LookupEnv(names[name]).
		read = read || (regexp.MustCompile(`serveEnv = map\[string\]string\{[^}]*"`+v+`"`).MatchString(code) &&
			strings.Contains(code, "os.LookupEnv(names[name])"))
		if !read {
			t.Errorf("the help names %s, and no Go source reads it", v)
		}
	}
}
