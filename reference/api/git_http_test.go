package api_test

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/v4cert/v4cert/reference/git"
)

// gitCLI runs the git command line in dir with no user or system
// configuration, as a user's machine would, and returns its combined output.
func gitCLI(t *testing.T, dir string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	home := t.TempDir()
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+home, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_TERMINAL_PROMPT=0", "GIT_AUTHOR_NAME=Pusher", "GIT_AUTHOR_EMAIL=pusher@example.com",
		"GIT_COMMITTER_NAME=Pusher", "GIT_COMMITTER_EMAIL=pusher@example.com")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func mustGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := gitCLI(t, dir, args...)
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// gitUser makes a user with a password and a personal access token of scopes.
func (a *apiClient) gitUser(name string, scopes ...string) (token string) {
	a.t.Helper()
	u := a.must(201, "POST", "/users", map[string]any{"username": name, "name": name, "email": name + "@example.com",
		"password": "pass-" + name, "skip_confirmation": true})
	tok := a.must(201, "POST", fmt.Sprintf("/users/%v/personal_access_tokens", u["id"]), map[string]any{"name": "git", "scopes": scopes})
	return tok["token"].(string)
}

func (a *apiClient) remote(user, secret, fullPath string) string {
	u, _ := url.Parse(a.srv.URL)
	u.User = url.UserPassword(user, secret)
	u.Path = "/" + fullPath + ".git"
	return u.String()
}

// The git command line clones, fetches and pushes over HTTP with a personal
// access token or the password, and what it pushes is what the API reads:
// commits, files and branches; RefsMoved hears of every ref the push moved.
func TestGitCLIClonePushOverHTTP(t *testing.T) {
	a := newAPI(t)
	id, _ := a.project("cli")
	dev := a.gitUser("dev", "write_repository")
	a.must(201, "POST", fmt.Sprintf("/projects/%d/members", id), map[string]any{"user_id": 2, "access_level": 30})
	var mu sync.Mutex
	var heard []git.RefMove
	a.inst.Server.Repositories().OnRefsMoved(func(_ context.Context, projectID int, moves []git.RefMove) {
		if projectID == id {
			mu.Lock()
			heard = append(heard, moves...)
			mu.Unlock()
		}
	})

	work := t.TempDir()
	mustGit(t, work, "clone", "-q", a.remote("dev", dev, "root/cli"), "w")
	dir := filepath.Join(work, "w")
	if b, err := os.ReadFile(filepath.Join(dir, "README.md")); err != nil || !strings.Contains(string(b), "cli") {
		t.Fatalf("cloned README: %q %v", b, err)
	}
	os.WriteFile(filepath.Join(dir, "pushed.txt"), []byte("from the command line\n"), 0o644)
	mustGit(t, dir, "add", "pushed.txt")
	mustGit(t, dir, "commit", "-qm", "Pushed over HTTP")
	old := strings.TrimSpace(mustGit(t, dir, "rev-parse", "origin/main"))
	head := strings.TrimSpace(mustGit(t, dir, "rev-parse", "HEAD"))
	mustGit(t, dir, "push", "-q", "origin", "main", "main:feature")

	raw := a.must(200, "GET", fmt.Sprintf("/projects/%d/repository/commits/main", id), nil)
	if raw["id"] != head || raw["title"] != "Pushed over HTTP" {
		t.Errorf("the API's main after the push: %v", raw)
	}
	if st, b := a.do("GET", fmt.Sprintf("/projects/%d/repository/files/pushed.txt/raw?ref=feature", id), nil); st != 200 || string(b) != "from the command line\n" {
		t.Errorf("pushed file through the API: %d %q", st, b)
	}
	mu.Lock()
	got := slices.Clone(heard)
	mu.Unlock()
	want := []git.RefMove{{Ref: "refs/heads/main", Old: git.Oid(old), New: git.Oid(head)}, {Ref: "refs/heads/feature", Old: git.ZeroOid, New: git.Oid(head)}}
	slices.SortFunc(got, func(x, y git.RefMove) int { return strings.Compare(y.Ref, x.Ref) })
	if !slices.Equal(got, want) {
		t.Errorf("RefsMoved heard %v, want %v", got, want)
	}

	// An API write moves main; the password works as well as the token, a
	// fetch brings the API's commit, and a push based on the old main is
	// refused as non-fast-forward (the compare-and-swap holds both ways).
	a.must(201, "POST", fmt.Sprintf("/projects/%d/repository/files/api.txt", id), map[string]any{"branch": "main", "content": "api", "commit_message": "From the API"})
	pw := a.remote("dev", "pass-dev", "root/cli")
	mustGit(t, dir, "fetch", "-q", pw)
	if log := mustGit(t, dir, "log", "--format=%s", "-1", "FETCH_HEAD"); strings.TrimSpace(log) != "From the API" {
		t.Errorf("fetched main: %q", log)
	}
	os.WriteFile(filepath.Join(dir, "late.txt"), []byte("late"), 0o644)
	mustGit(t, dir, "add", "late.txt")
	mustGit(t, dir, "commit", "-qm", "Late")
	if out, err := gitCLI(t, dir, "push", pw, "main"); err == nil || !strings.Contains(out, "rejected") {
		t.Errorf("a push behind the API's write was not rejected: %v\n%s", err, out)
	}
	if st, _ := a.do("GET", fmt.Sprintf("/projects/%d/repository/files/late.txt?ref=main", id), nil); st != 404 {
		t.Errorf("the rejected push reached main: %d", st)
	}
}

// Permissions: anonymous callers get a credentials challenge on a private
// project, a Reporter clones but may not push, a wrong password is refused,
// a token without a repository scope cannot clone, an archived project
// takes no push, and pushing into an empty project makes its branch the default.
func TestGitHTTPPermissions(t *testing.T) {
	a := newAPI(t)
	id, _ := a.project("perm")
	a.must(200, "PUT", fmt.Sprintf("/projects/%d", id), map[string]any{"visibility": "private"})
	rep := a.gitUser("rep", "read_repository")
	noScope := a.gitUser("noscope", "read_user")
	a.must(201, "POST", fmt.Sprintf("/projects/%d/members", id), map[string]any{"user_id": 2, "access_level": 20})
	a.must(201, "POST", fmt.Sprintf("/projects/%d/members", id), map[string]any{"user_id": 3, "access_level": 30})
	work := t.TempDir()

	u, _ := url.Parse(a.srv.URL)
	u.Path = "/root/perm.git"
	if out, err := gitCLI(t, work, "clone", "-q", u.String(), "anon"); err == nil || !strings.Contains(out, "Authentication failed") && !strings.Contains(out, "could not read Username") {
		t.Errorf("anonymous clone of a private project: %v\n%s", err, out)
	}
	if out, err := gitCLI(t, work, "clone", "-q", a.remote("rep", "wrong", "root/perm"), "bad"); err == nil {
		t.Errorf("a wrong password cloned:\n%s", out)
	}
	if out, err := gitCLI(t, work, "clone", "-q", a.remote("noscope", noScope, "root/perm"), "ns"); err == nil {
		t.Errorf("a token without a repository scope cloned:\n%s", out)
	}
	mustGit(t, work, "clone", "-q", a.remote("rep", rep, "root/perm"), "rep")
	dir := filepath.Join(work, "rep")
	mustGit(t, dir, "commit", "-q", "--allow-empty", "-m", "Reporter's")
	if out, err := gitCLI(t, dir, "push", "origin", "main"); err == nil || !strings.Contains(out, "403") {
		t.Errorf("a Reporter pushed: %v\n%s", err, out)
	}

	// An empty project: its first pushed branch becomes the default.
	empty := a.must(201, "POST", "/projects", map[string]any{"name": "empty"})
	mustGit(t, dir, "push", "-q", a.remote("root", repoRootToken, "root/empty"), "HEAD:trunk")
	p := a.must(200, "GET", fmt.Sprintf("/projects/%v", empty["id"]), nil)
	if p["default_branch"] != "trunk" {
		t.Errorf("default_branch after the first push = %v, want trunk", p["default_branch"])
	}
	a.must(201, "POST", fmt.Sprintf("/projects/%v/archive", empty["id"]), nil)
	mustGit(t, dir, "commit", "-q", "--allow-empty", "-m", "after archive")
	if out, err := gitCLI(t, dir, "push", a.remote("root", repoRootToken, "root/empty"), "HEAD:trunk"); err == nil {
		t.Errorf("pushed to an archived project:\n%s", out)
	}
}

// The platform looks a personal access token up by its secret alone
// (lib/gitlab/auth.rb personal_access_token_check never reads the login), so
// git clones with the token under any user name — `oauth2` as Renovate and
// glab send it, `gitlab-ci-token` as semantic-release does, or a name that
// is nobody's — and acts as the token's owner. `gitlab-ci-token` with a
// running job's token clones the job's own project and nothing else, never
// pushes, and stops working when the job finishes.
func TestGitHTTPCredentialForms(t *testing.T) {
	a := newAPI(t)
	id, _ := a.project("forms")
	a.must(200, "PUT", fmt.Sprintf("/projects/%d", id), map[string]any{"visibility": "private"})
	other, _ := a.project("other")
	a.must(200, "PUT", fmt.Sprintf("/projects/%d", other), map[string]any{"visibility": "private"})
	dev := a.gitUser("dev", "write_repository")
	a.must(201, "POST", fmt.Sprintf("/projects/%d/members", id), map[string]any{"user_id": 2, "access_level": 30})
	work := t.TempDir()

	for i, login := range []string{"oauth2", "gitlab-ci-token", "nobody-at-all", "root"} {
		dir := fmt.Sprintf("c%d", i)
		mustGit(t, work, "clone", "-q", a.remote(login, dev, "root/forms"), dir)
		// The token's owner pushes, whatever the login said: dev is a Developer.
		mustGit(t, filepath.Join(work, dir), "commit", "-q", "--allow-empty", "-m", "as "+login)
		mustGit(t, filepath.Join(work, dir), "push", "-q", "origin", "HEAD:"+login)
		c := a.must(200, "GET", fmt.Sprintf("/projects/%d/repository/commits/%s", id, login), nil)
		if c["title"] != "as "+login {
			t.Errorf("pushed as %s: %v", login, c)
		}
		// ...and reads only what dev may: not root's other private project.
		if out, err := gitCLI(t, work, "clone", "-q", a.remote(login, dev, "root/other"), dir+"-other"); err == nil {
			t.Errorf("%s:<dev's token> cloned a project dev is not a member of:\n%s", login, out)
		}
	}
	// A wrong secret under oauth2 is refused, and so is a user's password
	// under a name that is not theirs.
	for _, cred := range [][2]string{{"oauth2", "glpat-nothing"}, {"oauth2", "pass-dev"}, {"root", "pass-dev"}} {
		if out, err := gitCLI(t, work, "clone", "-q", a.remote(cred[0], cred[1], "root/forms"), "bad"); err == nil {
			t.Errorf("%s:%s cloned:\n%s", cred[0], cred[1], out)
		}
	}

	// A running job's token under gitlab-ci-token.
	a.must(201, "POST", fmt.Sprintf("/projects/%d/repository/files/.gitlab-ci.yml", id),
		map[string]any{"branch": "main", "content": "test:\n  script: [\"true\"]\n", "commit_message": "CI"})
	runner := a.must(201, "POST", "/user/runners", map[string]any{"runner_type": "project_type", "project_id": id})
	a.must(201, "POST", fmt.Sprintf("/projects/%d/pipeline", id), map[string]any{"ref": "main"})
	job := a.must(201, "POST", "/jobs/request", map[string]any{"token": runner["token"], "info": map[string]any{"version": "17.5.1"}})
	jobToken, _ := job["token"].(string)
	if jobToken == "" {
		t.Fatalf("no job handed out: %v", job)
	}
	mustGit(t, work, "clone", "-q", a.remote("gitlab-ci-token", jobToken, "root/forms"), "job")
	if out, err := gitCLI(t, work, "clone", "-q", a.remote("gitlab-ci-token", jobToken, "root/other"), "job-other"); err == nil {
		t.Errorf("a job token cloned another project:\n%s", out)
	}
	if out, err := gitCLI(t, work, "clone", "-q", a.remote("oauth2", jobToken, "root/forms"), "job-oauth2"); err == nil {
		t.Errorf("a job token under oauth2 cloned:\n%s", out)
	}
	dir := filepath.Join(work, "job")
	mustGit(t, dir, "commit", "-q", "--allow-empty", "-m", "from the job")
	if out, err := gitCLI(t, dir, "push", "origin", "HEAD:from-job"); err == nil || !strings.Contains(out, "403") {
		t.Errorf("a job token pushed: %v\n%s", err, out)
	}
	a.must(200, "PUT", fmt.Sprintf("/jobs/%v", job["id"]), map[string]any{"token": jobToken, "state": "success"})
	if out, err := gitCLI(t, work, "clone", "-q", a.remote("gitlab-ci-token", jobToken, "root/forms"), "job-done"); err == nil {
		t.Errorf("the token of a finished job cloned:\n%s", out)
	}
}
