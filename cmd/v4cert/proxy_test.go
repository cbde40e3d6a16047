package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/v4cert/v4cert/proxy"
	"github.com/v4cert/v4cert/specs"
)

// TestProxySignalWritesEverything runs `v4cert proxy --mode record` as its
// own process, sends traffic, stops it with SIGTERM and checks that the
// cassette, the violations and the summary are all complete on disk.
func TestProxySignalWritesEverything(t *testing.T) {
	if args := os.Getenv("V4CERT_PROXY_CHILD"); args != "" {
		os.Exit(runProxy(strings.Split(args, "\x1f")))
	}
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/api/v4/users/1" {
			w.Write([]byte(`{"message":"404 User Not Found"}`)) // 200 with an error shape: violations
			return
		}
		w.WriteHeader(http.StatusNotFound)
		w.Write([]byte(`{"message":"404 Not Found"}`))
	}))
	defer upstream.Close()
	dir := t.TempDir()
	cas, vio, sum := filepath.Join(dir, "c.yaml"), filepath.Join(dir, "v.jsonl"), filepath.Join(dir, "s.json")
	args := []string{"--upstream", upstream.URL, "--addr", "127.0.0.1:0", "--mode", "record", "--cassette", cas,
		"--violations", vio, "--summary", sum, "--quiet"}
	cmd, lines, first := startProxyProcess(t, args)
	i := strings.Index(first, "http://")
	if i < 0 {
		cmd.Process.Kill()
		t.Fatalf("start line %q", first)
	}
	base := strings.Fields(first[i:])[0]
	const n = 20
	for k := range n {
		path := "/api/v4/users/1"
		if k%2 == 1 {
			path = "/api/v4/users/2"
		}
		res, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
	}
	cmd.Process.Signal(syscall.SIGTERM)
	rest, _ := io.ReadAll(lines)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
			t.Errorf("exit: %v (want status 1: errors were found)\n%s", err, rest)
		}
	case <-time.After(15 * time.Second):
		cmd.Process.Kill()
		t.Fatal("the proxy did not stop on SIGTERM")
	}
	c, err := proxy.LoadCassette(cas)
	if err != nil || len(c.Interactions) != n {
		t.Fatalf("cassette: %v, %d interactions, want %d", err, len(c.Interactions), n)
	}
	data, _ := os.ReadFile(vio)
	vlines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(vlines) < n/2 {
		t.Fatalf("%d violation lines for %d bad answers", len(vlines), n/2)
	}
	for _, l := range vlines {
		var v proxy.Violation
		if err := json.Unmarshal([]byte(l), &v); err != nil || v.Endpoint == "" {
			t.Fatalf("violation line %q: %v", l, err)
		}
	}
	var s proxy.Summary
	data, _ = os.ReadFile(sum)
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	if s.Exchanges != n || s.Recorded != n || s.Coverage["users.get"][200] != n/2 || s.Coverage["users.get"][404] != n/2 {
		t.Errorf("summary %+v", s)
	}
	if !strings.Contains(string(rest), "coverage:") {
		t.Errorf("no summary printed:\n%s", rest)
	}
}

func TestValidateExitStatus(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string, code int) string {
		path := filepath.Join(dir, name)
		writeCassette(t, path, "http://x/api/v4/users/1", body, code)
		return path
	}
	clean := write("clean.yaml", `"{\"message\":\"404 User Not Found\"}"`, 404)
	dirty := write("dirty.yaml", `"{\"id\":1}"`, 200)
	if got := validate([]string{clean}); got != 0 {
		t.Errorf("clean cassette: exit %d", got)
	}
	if got := validate([]string{dirty}); got != 1 {
		t.Errorf("cassette with violations: exit %d", got)
	}
	if got := validate([]string{filepath.Join(dir, "missing.yaml")}); got != 1 {
		t.Errorf("missing cassette: exit %d", got)
	}
	// Files that are not cassettes, and a cassette with nothing in it, must
	// never pass as a clean recording.
	for name, content := range map[string]string{
		"empty.yaml":      "",
		"blank.yaml":      "\n  \n",
		"object.json":     `{"interactions": []}`,
		"array.json":      `[{"request": {}}]`,
		"version3.yaml":   "---\nversion: 3\ninteractions: []\n",
		"noexchange.yaml": "---\nversion: 2\ninteractions: []\n",
		"nourl.yaml":      "---\nversion: 1\ninteractions:\n- request: {method: GET}\n  response: {code: 200}\n",
	} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := validate([]string{path}); got != 1 {
			t.Errorf("%s: exit %d, want 1", name, got)
		}
	}
	// Format 2 (go-vcr v3 and v4) is read like format 1.
	v2 := filepath.Join(dir, "v2.yaml")
	data, _ := os.ReadFile(clean)
	os.WriteFile(v2, []byte(strings.Replace(strings.Replace(string(data), "version: 1", "version: 2", 1), "- request:", "- id: 0\n  request:", 1)), 0o644)
	if got := validate([]string{v2}); got != 0 {
		t.Errorf("format 2 cassette: exit %d", got)
	}
}

// writeCassette writes a format 1 cassette of one GET of url answered code
// with body, a YAML scalar.
func writeCassette(t *testing.T, path, url, body string, code int) {
	t.Helper()
	c := "---\nversion: 1\ninteractions:\n- request:\n    body: \"\"\n    form: {}\n    headers: {}\n    url: \"" + url + "\"\n    method: \"GET\"\n" +
		"  response:\n    body: " + body + "\n    headers:\n      \"Content-Type\": [\"application/json\"]\n    status: \"\"\n    code: " + strconv.Itoa(code) + "\n    duration: 1ms\n"
	if err := os.WriteFile(path, []byte(c), 0o644); err != nil {
		t.Fatal(err)
	}
}

// pages are the pagination headers of a one-page list at url.
func pages(url string, one bool) string {
	total := "0"
	if one {
		total = "1"
	}
	first := url + "&page=1&per_page=20"
	if !strings.Contains(url, "?") {
		first = url + "?page=1&per_page=20"
	}
	link := "<" + first + `>; rel="first", <` + first + `>; rel="last"`
	h := ""
	for k, v := range map[string]string{"X-Page": "1", "X-Per-Page": "20", "X-Next-Page": "", "X-Prev-Page": "", "X-Total": total, "X-Total-Pages": total, "Link": link} {
		h += "      " + strconv.Quote(k) + ": [" + strconv.Quote(v) + "]\n"
	}
	return h
}

// TestValidateStrict: --strict fails on the client's deprecations
// (warnings), never on the server's (information).
func TestValidateStrict(t *testing.T) {
	dir := t.TempDir()
	write := func(name, url, body string) string {
		path := filepath.Join(dir, name)
		c := "---\nversion: 1\ninteractions:\n- request:\n    body: \"\"\n    form: {}\n    headers: {}\n    url: \"" + url + "\"\n    method: \"GET\"\n" +
			"  response:\n    body: " + strconv.Quote(body) + "\n    headers:\n      \"Content-Type\": [\"application/json\"]\n" + pages(url, len(body) > 2) + "    status: \"\"\n    code: 200\n    duration: 1ms\n"
		if err := os.WriteFile(path, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	runner := `[{"id":1,"description":"r","paused":false,"active":true,"ip_address":"","is_shared":true,"runner_type":"instance_type","name":null,"online":true,"status":"online"}]`
	clientDeprecated := write("client.yaml", "http://x/api/v4/runners/all?scope=online", "[]")
	serverDeprecated := write("server.yaml", "http://x/api/v4/runners/all", runner)
	if got := validate([]string{clientDeprecated}); got != 0 {
		t.Errorf("a deprecated parameter without --strict: exit %d", got)
	}
	if got := validate([]string{"--strict", clientDeprecated}); got != 1 {
		t.Errorf("a deprecated parameter with --strict: exit %d", got)
	}
	if got := validate([]string{"--strict", serverDeprecated}); got != 0 {
		t.Errorf("a deprecated field in an answer with --strict: exit %d", got)
	}
}

func TestNoTrafficWarning(t *testing.T) {
	w := noTrafficWarning("http://127.0.0.1:8081", proxy.ModeRecord)
	for _, want := range []string{"no traffic", "nothing to record", "HTTP_PROXY", "reverse mode", "http://127.0.0.1:8081"} {
		if !strings.Contains(w, want) {
			t.Errorf("warning %q lacks %q", w, want)
		}
	}
}

// startProxyProcess runs `v4cert proxy` with args as a process of its own
// (this test binary, re-entered through V4CERT_PROXY_CHILD) and returns it,
// its stderr and the start line it printed.
func startProxyProcess(t *testing.T, args []string) (*exec.Cmd, *bufio.Reader, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestProxySignalWritesEverything$")
	cmd.Env = append(os.Environ(), "V4CERT_PROXY_CHILD="+strings.Join(args, "\x1f"))
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewReader(stderr)
	first, err := lines.ReadString('\n')
	if err != nil {
		cmd.Process.Kill()
		t.Fatalf("no start line: %v", err)
	}
	return cmd, lines, first
}

// TestProxyWarnsWithoutTraffic: a proxy stopped before any request reached
// it says so at exit, and how to reach it.
func TestProxyWarnsWithoutTraffic(t *testing.T) {
	args := []string{"--upstream", "http://127.0.0.1:9", "--addr", "127.0.0.1:0", "--mode", "validate", "--quiet"}
	cmd, lines, _ := startProxyProcess(t, args)
	cmd.Process.Signal(syscall.SIGTERM)
	rest, _ := io.ReadAll(lines)
	if err := cmd.Wait(); err != nil {
		t.Errorf("exit: %v\n%s", err, rest)
	}
	if !strings.Contains(string(rest), "warning: no traffic reached the proxy") {
		t.Errorf("no warning at exit:\n%s", rest)
	}
}

// stopProxyProcess stops a proxy started by startProxyProcess with SIGTERM
// and returns its exit status and the rest of its stderr.
func stopProxyProcess(t *testing.T, cmd *exec.Cmd, lines *bufio.Reader) (int, string) {
	t.Helper()
	cmd.Process.Signal(syscall.SIGTERM)
	rest, _ := io.ReadAll(lines)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode(), string(rest)
		} else if err != nil {
			t.Fatal(err)
		}
		return 0, string(rest)
	case <-time.After(15 * time.Second):
		cmd.Process.Kill()
		t.Fatal("the proxy did not stop on SIGTERM")
	}
	return 0, ""
}

// baseOf is the proxy's URL in its start line.
func baseOf(t *testing.T, cmd *exec.Cmd, start string) string {
	t.Helper()
	i := strings.Index(start, "http://")
	if i < 0 {
		cmd.Process.Kill()
		t.Fatalf("start line %q", start)
	}
	return strings.Fields(start[i:])[0]
}

// status sends one GET and returns the answer's status.
func status(t *testing.T, url string) int {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res.StatusCode
}

// TestProxyReplayMissExitStatus: a replay that answered everything exits 0;
// one miss and it exits 1, saying how many on stderr.
func TestProxyReplayMissExitStatus(t *testing.T) {
	cas := filepath.Join(t.TempDir(), "c.yaml")
	writeCassette(t, cas, "http://x/api/v4/users/1", `"{\"message\":\"404 User Not Found\"}"`, 404)
	for _, paths := range [][]string{{"/api/v4/users/1"}, {"/api/v4/users/1", "/api/v4/users/2"}} {
		cmd, lines, first := startProxyProcess(t, []string{"--mode", "replay", "--cassette", cas, "--addr", "127.0.0.1:0", "--quiet"})
		base := baseOf(t, cmd, first)
		if got := status(t, base+"/-/readiness"); got != http.StatusOK {
			t.Errorf("readiness: %d", got)
		}
		for _, p := range paths {
			status(t, base+p)
		}
		code, rest := stopProxyProcess(t, cmd, lines)
		misses := len(paths) - 1
		if misses == 0 && code != 0 {
			t.Errorf("a replay that answered every request: exit %d\n%s", code, rest)
		}
		if misses > 0 && (code != 1 || !strings.Contains(rest, strconv.Itoa(misses)+" request(s) had no recorded answer")) {
			t.Errorf("a replay with %d miss: exit %d (want 1, and the count on stderr)\n%s", misses, code, rest)
		}
	}
}

// TestProxyEmptyRecordingExitStatus: a recording that captured nothing (a
// readiness probe is not traffic) exits 1, says so, and writes no cassette:
// no new file, an existing one untouched whether appended to or overwritten.
func TestProxyEmptyRecordingExitStatus(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "existing.yaml")
	writeCassette(t, existing, "http://x/api/v4/users/1", `"{\"message\":\"404 User Not Found\"}"`, 404)
	before, _ := os.ReadFile(existing)
	for _, c := range []struct {
		file, flag, says string
	}{
		{filepath.Join(dir, "new.yaml"), "", "was not written"},
		{existing, "--overwrite", "is left as it was"},
		{existing, "--append", "is left as it was"},
	} {
		args := []string{"--upstream", "http://127.0.0.1:9", "--addr", "127.0.0.1:0", "--mode", "record", "--cassette", c.file, "--quiet"}
		if c.flag != "" {
			args = append(args, c.flag)
		}
		cmd, lines, first := startProxyProcess(t, args)
		if got := status(t, baseOf(t, cmd, first)+"/-/readiness"); got != http.StatusOK {
			t.Errorf("readiness: %d", got)
		}
		code, rest := stopProxyProcess(t, cmd, lines)
		if code != 1 || !strings.Contains(rest, "the recording captured nothing") || !strings.Contains(rest, c.says) {
			t.Errorf("record %s %s of nothing: exit %d (want 1, saying the cassette %s)\n%s", filepath.Base(c.file), c.flag, code, c.says, rest)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "new.yaml")); !os.IsNotExist(err) {
		t.Errorf("a recording of nothing left a file behind: %v", err)
	}
	if after, _ := os.ReadFile(existing); string(after) != string(before) {
		t.Errorf("a recording of nothing changed the existing cassette:\n%s", after)
	}
	if got := validate([]string{existing}); got != 0 {
		t.Errorf("the existing cassette no longer validates: exit %d", got)
	}
}

// TestProxyListenAlias: --listen still works, saying once that it is --addr now.
func TestProxyListenAlias(t *testing.T) {
	cmd, lines, first := startProxyProcess(t, []string{"--upstream", "http://127.0.0.1:9", "--listen", "127.0.0.1:0", "--quiet"})
	if first != "v4cert proxy: --listen is deprecated: use --addr (serve's name for the listen address)\n" {
		cmd.Process.Kill()
		t.Fatalf("first line %q, want the deprecation notice", first)
	}
	start, _ := lines.ReadString('\n')
	if got := status(t, baseOf(t, cmd, start)+"/-/readiness"); got != http.StatusOK {
		t.Errorf("readiness on the --listen address: %d", got)
	}
	if code, rest := stopProxyProcess(t, cmd, lines); code != 0 || strings.Contains(rest, "deprecated") {
		t.Errorf("exit %d\n%s", code, rest)
	}
}

// TestValidateLabelsDivergence: validate's findings under a class-3 rule
// carry the rulebook's label, in the printed line and in --violations. The
// answer is the platform's cursor pager's: a full last keyset page without
// Link (limits.pagination.4).
func TestValidateLabelsDivergence(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "keyset.yaml")
	user := func(id int) string {
		return fmt.Sprintf(`{"id":%d,"username":"u%d","name":"U %d","state":"active","locked":false,"avatar_url":null,"web_url":"http://x/u%d"}`, id, id, id, id)
	}
	writeCassette(t, path, "http://x/api/v4/users?pagination=keyset&per_page=2&order_by=id&sort=asc",
		strconv.Quote("["+user(1)+","+user(2)+"]"), 200)
	found := filepath.Join(dir, "violations.jsonl")
	if got := validate([]string{"--violations", found, path}); got != 1 {
		t.Errorf("exit %d: a divergence is still a finding of the spec's text", got)
	}
	data, err := os.ReadFile(found)
	if err != nil {
		t.Fatal(err)
	}
	want := specs.Default().Rule("limits.pagination.4").Divergence()
	labelled := 0
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var v proxy.Violation
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatal(err)
		}
		if v.Rule == "limits.pagination.4" && v.Divergence == want {
			labelled++
		}
	}
	if labelled != 1 || !strings.HasPrefix(want, specs.DivergencePrefix) {
		t.Errorf("%d labelled findings under limits.pagination.4 in:\n%s", labelled, data)
	}
}
