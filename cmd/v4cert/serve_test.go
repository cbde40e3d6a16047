package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

const serveToken = "glpat-serve-test-root"

// buildV4cert builds the binary once per test run.
var buildV4cert = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "v4cert-bin-")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "v4cert")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, out)
	}
	return bin, nil
})

// served is a running `v4cert serve` process.
type served struct {
	cmd    *exec.Cmd
	base   string
	stderr *bytes.Buffer
	out    string
}

var listening = regexp.MustCompile(`listening on (http://\S+)`)

// startServe runs `v4cert serve` with args on a free loopback port and waits
// until it reports its address and /-/readiness answers 200.
func startServe(t *testing.T, args ...string) *served {
	t.Helper()
	bin, err := buildV4cert()
	if err != nil {
		t.Fatal(err)
	}
	s := &served{stderr: &bytes.Buffer{}}
	s.cmd = exec.Command(bin, append([]string{"serve", "--addr", "127.0.0.1:0"}, args...)...)
	s.cmd.Stderr = &lockedWriter{w: s.stderr}
	stdout, err := s.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.cmd.Process.Kill(); s.cmd.Wait() })
	sc := bufio.NewScanner(stdout)
	var lines []string
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if m := listening.FindStringSubmatch(sc.Text()); m != nil {
			s.base = m[1]
		}
		if strings.HasPrefix(sc.Text(), "Try:") {
			break
		}
	}
	go io.Copy(io.Discard, stdout)
	s.out = strings.Join(lines, "\n")
	if s.base == "" {
		s.cmd.Wait()
		t.Fatalf("serve did not start:\n%s\n%s", s.out, s.stderr)
	}
	resp, err := http.Get(s.base + "/-/readiness")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("readiness: %v %v", resp, err)
	}
	resp.Body.Close()
	return s
}

type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

func (s *served) call(method, path string, body any) (int, []byte, error) {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, s.base+path, rd)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("PRIVATE-TOKEN", serveToken)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	return resp.StatusCode, data, err
}

// TestKillDuringWritesLosesNothingAcknowledged kills a real `v4cert serve
// --data-dir` with SIGKILL while clients create users and commit files, then
// restarts it on the same directory: every write acknowledged before the
// kill is there (users, and commits with their branches on disk), the rest of
// the world is readable, and git fsck finds the repositories whole.
func TestKillDuringWritesLosesNothingAcknowledged(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and kills a server")
	}
	dir := t.TempDir()
	args := []string{"--data-dir", dir, "--seed", "none", "--root-token", serveToken}
	s := startServe(t, args...)
	status, body, err := s.call("POST", "/api/v4/projects", map[string]any{"name": "crash", "initialize_with_readme": true})
	if err != nil || status != 201 {
		t.Fatalf("project: %d %s %v", status, body, err)
	}
	var project struct{ ID int }
	json.Unmarshal(body, &project)

	var mu sync.Mutex
	var users, files []string // acknowledged
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				if g < 2 {
					name := fmt.Sprintf("crash-%d-%d", g, i)
					st, _, err := s.call("POST", "/api/v4/users", map[string]any{"username": name, "name": name, "email": name + "@example.com", "password": "Secret-" + name})
					if err == nil && st == 201 {
						mu.Lock()
						users = append(users, name)
						mu.Unlock()
					}
					continue
				}
				// Each committer its own branch, so no write waits on another's compare-and-swap.
				branch := fmt.Sprintf("b%d", g)
				path := fmt.Sprintf("f-%d-%d.txt", g, i)
				req := map[string]any{"branch": branch, "content": path, "commit_message": "add " + path}
				if i == 0 {
					req["start_branch"] = "main"
				}
				st, _, err := s.call("POST", fmt.Sprintf("/api/v4/projects/%d/repository/files/%s", project.ID, path), req)
				if err == nil && st == 201 {
					mu.Lock()
					files = append(files, branch+"/"+path)
					mu.Unlock()
				}
			}
		}(g)
	}
	// Kill while the writes stream on, once enough of each kind were
	// acknowledged to judge (file commits run git, slow on a busy machine).
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		mu.Lock()
		enough := len(users) >= 20 && len(files) >= 8
		mu.Unlock()
		if enough {
			break
		}
	}
	if err := s.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	s.cmd.Wait()
	close(stop)
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	if len(users) < 5 || len(files) < 5 {
		t.Fatalf("too few writes acknowledged before the kill to judge: %d users, %d files", len(users), len(files))
	}
	t.Logf("killed after %d users and %d file commits were acknowledged", len(users), len(files))

	s = startServe(t, args...)
	if !strings.Contains(s.out, "restored from") {
		t.Errorf("the restarted server does not say it restored the world:\n%s", s.out)
	}
	for _, u := range users {
		st, body, err := s.call("GET", "/api/v4/users?username="+u, nil)
		if err != nil || st != 200 || !strings.Contains(string(body), `"username":"`+u+`"`) {
			t.Errorf("acknowledged user %s is gone: %d %s %v", u, st, body, err)
		}
	}
	for _, f := range files {
		branch, path, _ := strings.Cut(f, "/")
		st, body, err := s.call("GET", fmt.Sprintf("/api/v4/projects/%d/repository/files/%s/raw?ref=%s", project.ID, url.PathEscape(path), branch), nil)
		if err != nil || st != 200 || string(body) != path {
			t.Errorf("acknowledged commit of %s is gone: %d %s %v", f, st, body, err)
		}
	}
	// The rest is readable: every list answers, the server still writes.
	for _, p := range []string{"/api/v4/users?per_page=100", "/api/v4/projects", fmt.Sprintf("/api/v4/projects/%d/repository/commits?ref_name=b2", project.ID)} {
		if st, body, err := s.call("GET", p, nil); err != nil || st != 200 {
			t.Errorf("GET %s after the crash: %d %s %v", p, st, body, err)
		}
	}
	if st, body, err := s.call("POST", "/api/v4/users", map[string]any{"username": "after", "name": "after", "email": "after@example.com", "password": "Secret-after"}); err != nil || st != 201 {
		t.Errorf("a write after the restart: %d %s %v", st, body, err)
	}
	repos, _ := filepath.Glob(filepath.Join(dir, "repositories", "project-*.git"))
	if len(repos) != 1 {
		t.Fatalf("repositories: %v", repos)
	}
	if out, err := exec.Command("git", "--git-dir", repos[0], "fsck", "--strict").CombinedOutput(); err != nil {
		t.Errorf("git fsck: %v\n%s", err, out)
	}
}

// TestServeHooks drives the CI hooks of a real `v4cert serve`: readiness and
// liveness, the version, POST /-/reset back to the seed file's world with the
// same tokens and repositories, and the request log with its secrets hidden.
func TestServeHooks(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a server")
	}
	seed := filepath.Join(t.TempDir(), "world.yaml")
	os.WriteFile(seed, []byte(`users:
  - username: alice
    tokens: [{token: glpat-alice-seeded}]
groups:
  - path: acme
    visibility: public
    members: [{user: alice, access: developer}]
projects:
  - path: acme/web
    visibility: public
    files: {README.md: "# Web\n"}
    branches: [{name: feature, files: {README.md: "# Web, featured\n"}}]
`), 0o644)
	s := startServe(t, "--seed-file", seed, "--root-token", serveToken, "--clock", "fixed", "--log", "requests")
	for _, p := range []string{"/-/liveness", "/-/readiness"} {
		resp, err := http.Get(s.base + p)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("GET %s: %v %v", p, resp, err)
		}
		resp.Body.Close()
	}
	if st, body, _ := s.call("GET", "/api/v4/version", nil); st != 200 || !strings.Contains(string(body), `"version":"17.0.0"`) {
		t.Errorf("version: %d %s", st, body)
	}
	raw := func(ref string) string {
		resp, err := http.Get(s.base + "/api/v4/projects/acme%2Fweb/repository/files/README.md/raw?ref=" + ref)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return fmt.Sprint(resp.StatusCode, " ", string(b))
	}
	if got := raw("feature"); got != "200 # Web, featured\n" {
		t.Errorf("seeded branch: %q", got)
	}
	// Change the world, then reset it.
	req, _ := http.NewRequest("POST", s.base+"/api/v4/projects/acme%2Fweb/repository/files/new.txt?private_token=glpat-alice-seeded",
		strings.NewReader(`{"branch":"main","content":"x","commit_message":"x"}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 201 {
		t.Fatalf("write as alice: %v %v", resp, err)
	}
	if st, _, _ := s.call("DELETE", "/api/v4/projects/acme%2Fweb", nil); st != 202 && st != 204 {
		t.Fatalf("delete project: %d", st)
	}
	for _, tc := range []struct {
		token  string
		status int
	}{{"", 401}, {"glpat-alice-seeded", 403}, {serveToken, 204}} {
		req, _ := http.NewRequest("POST", s.base+"/-/reset", nil)
		if tc.token != "" {
			req.Header.Set("PRIVATE-TOKEN", tc.token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil || resp.StatusCode != tc.status {
			t.Fatalf("POST /-/reset with %q: %v %v, want %d", tc.token, resp, err, tc.status)
		}
		resp.Body.Close()
	}
	if got := raw("main"); got != "200 # Web\n" {
		t.Errorf("after the reset, main: %q", got)
	}
	if got := raw("feature"); got != "200 # Web, featured\n" {
		t.Errorf("after the reset, feature: %q", got)
	}
	st, body, _ := s.call("GET", "/api/v4/projects/acme%2Fweb/repository/files/new.txt?ref=main", nil)
	if st != 404 {
		t.Errorf("after the reset the new file is still there: %d %s", st, body)
	}
	req, _ = http.NewRequest("GET", s.base+"/api/v4/user", nil)
	req.Header.Set("PRIVATE-TOKEN", "glpat-alice-seeded")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 200 {
		t.Errorf("the seeded token after the reset: %v %v", resp, err)
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	s.cmd.Wait()
	logged := s.stderr.String()
	for _, want := range []string{
		"method=GET path=/-/readiness status=200",
		"method=POST path=/-/reset status=401",
		"method=POST path=/-/reset status=204",
		`path="/api/v4/projects/acme%2Fweb/repository/files/new.txt?private_token=%5BREDACTED%5D" status=201`,
		"caller=alice",
		"caller=root",
	} {
		if !strings.Contains(logged, want) {
			t.Errorf("the request log lacks %q:\n%s", want, logged)
		}
	}
	if strings.Contains(logged, "glpat-alice-seeded") || strings.Contains(logged, serveToken) {
		t.Errorf("the request log shows a token:\n%s", logged)
	}
}
