package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/v4cert/v4cert/reference"
	"github.com/v4cert/v4cert/reference/git"
)

const repoRootToken = "repo-test-root-token"

type apiClient struct {
	t    testing.TB
	srv  *httptest.Server
	inst *reference.Instance
}

func newAPI(t testing.TB) *apiClient {
	t.Helper()
	inst, err := reference.New(reference.Config{RootToken: repoRootToken, Seed: "none", FixedClock: true})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(inst.Server)
	t.Cleanup(func() { srv.Close(); inst.Close() })
	return &apiClient{t: t, srv: srv, inst: inst}
}

func (a *apiClient) do(method, path string, body any) (int, []byte) {
	a.t.Helper()
	if body == nil {
		return a.doRaw(method, path, "", "")
	}
	b, _ := json.Marshal(body)
	return a.doRaw(method, path, "application/json", string(b))
}

func (a *apiClient) must(status int, method, path string, body any) map[string]any {
	a.t.Helper()
	got, b := a.do(method, path, body)
	if got != status {
		a.t.Fatalf("%s %s: %d %s (want %d)", method, path, got, b, status)
	}
	var m map[string]any
	json.Unmarshal(b, &m)
	return m
}

func (a *apiClient) project(name string) (int, *git.Repo) {
	a.t.Helper()
	p := a.must(201, "POST", "/projects", map[string]any{"name": name, "initialize_with_readme": true})
	id := int(p["id"].(float64))
	r, err := a.inst.Server.Repositories().Get(id)
	if err != nil {
		a.t.Fatal(err)
	}
	return id, r
}

func gitIn(t testing.TB, r *git.Repo, args ...string) string {
	t.Helper()
	out, err := r.Git(context.Background(), nil, args...)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// fsckClean runs git fsck with the machine's git, outside the server's environment.
func fsckClean(t testing.TB, r *git.Repo) {
	t.Helper()
	cmd := exec.Command("git", "--git-dir="+r.Dir(), "fsck", "--strict", "--no-dangling", "--no-progress")
	cmd.Env = []string{"GIT_CONFIG_NOSYSTEM=1", "HOME=/nonexistent", "PATH=/usr/bin:/bin:/usr/local/bin"}
	out, err := cmd.CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "" {
		t.Fatalf("git fsck: %v\n%s", err, out)
	}
}

// apiLog pages through GET .../repository/commits.
func (a *apiClient) apiLog(id int, ref string) []map[string]any {
	a.t.Helper()
	var all []map[string]any
	for page := 1; ; page++ {
		status, b := a.do("GET", fmt.Sprintf("/projects/%d/repository/commits?ref_name=%s&per_page=2&page=%d", id, url.QueryEscape(ref), page), nil)
		if status != 200 {
			a.t.Fatalf("commits: %d %s", status, b)
		}
		var list []map[string]any
		json.Unmarshal(b, &list)
		if len(list) == 0 {
			return all
		}
		all = append(all, list...)
	}
}

// TestAPIWritesAreOrdinaryGit drives every kind of write through the API and
// then asks git itself: fsck is clean and git log agrees with the API.
func TestAPIWritesAreOrdinaryGit(t *testing.T) {
	a := newAPI(t)
	id, r := a.project("plain-git")
	p := fmt.Sprintf("/projects/%d/repository", id)
	a.must(201, "POST", p+"/files/src%2Fmain.go", map[string]any{"branch": "main", "commit_message": "add main", "content": "package main\n"})
	f := a.must(200, "GET", p+"/files/src%2Fmain.go?ref=main", nil)
	a.must(200, "PUT", p+"/files/src%2Fmain.go", map[string]any{"branch": "main", "commit_message": "edit main",
		"content": "cGFja2FnZSBtYWluCgpmdW5jIG1haW4oKSB7fQo=", "encoding": "base64", "last_commit_id": f["last_commit_id"],
		"author_name": "Grace", "author_email": "grace@example.com"})
	a.must(201, "POST", p+"/commits", map[string]any{"branch": "main", "commit_message": "many\n\nSigned-off-by: A <a@x>\n", "actions": []map[string]any{
		{"action": "create", "file_path": "bin/run", "content": "#!/bin/sh\n"},
		{"action": "chmod", "file_path": "bin/run", "execute_filemode": true},
		{"action": "move", "file_path": "docs/README.md", "previous_path": "README.md"},
		{"action": "create", "file_path": "notes.txt", "content": "1\n2\n3\n"},
	}})
	a.must(201, "POST", p+"/branches", map[string]any{"branch": "feature", "ref": "main"})
	c := a.must(201, "POST", p+"/commits", map[string]any{"branch": "feature", "commit_message": "feature edit", "actions": []map[string]any{
		{"action": "update", "file_path": "notes.txt", "content": "one\n2\n3\n"}}})
	a.must(201, "POST", p+"/commits/"+c["id"].(string)+"/cherry_pick", map[string]any{"branch": "main"})
	a.must(201, "POST", p+"/commits/"+c["id"].(string)+"/revert", map[string]any{"branch": "feature"})
	a.must(201, "POST", p+"/tags", map[string]any{"tag_name": "v1.0", "ref": "main", "message": "first release"})
	a.must(204, "DELETE", p+"/files/src%2Fmain.go", map[string]any{"branch": "main", "commit_message": "drop main"})
	a.must(201, "POST", p+"/commits", map[string]any{"branch": "rewrite", "start_branch": "main", "commit_message": "orphaned", "actions": []map[string]any{
		{"action": "delete", "file_path": "notes.txt"}}})
	a.must(201, "POST", p+"/commits", map[string]any{"branch": "rewrite", "start_sha": c["id"], "force": true, "commit_message": "forced", "actions": []map[string]any{
		{"action": "create", "file_path": "forced.txt", "content": "x"}}})

	fsckClean(t, r)
	for _, branch := range []string{"main", "feature", "rewrite"} {
		want := strings.Fields(gitIn(t, r, "log", "--format=%H", branch))
		var got []string
		for _, cm := range a.apiLog(id, branch) {
			got = append(got, cm["id"].(string))
			if cm["created_at"] != cm["committed_date"] {
				t.Errorf("created_at %v != committed_date %v", cm["created_at"], cm["committed_date"])
			}
		}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("%s: API log %v, git log %v", branch, got, want)
		}
		for i, line := range strings.Split(strings.TrimSpace(gitIn(t, r, "log", "--format=%an|%ae|%cn|%s", branch)), "\n") {
			cm := a.apiLog(id, branch)[i]
			if api := fmt.Sprintf("%s|%s|%s|%s", cm["author_name"], cm["author_email"], cm["committer_name"], cm["title"]); api != line {
				t.Errorf("%s commit %d: API %q, git %q", branch, i, api, line)
			}
		}
	}
	if mode := gitIn(t, r, "ls-tree", "main", "bin/run"); !strings.HasPrefix(mode, "100755 ") {
		t.Errorf("chmod: %q", mode)
	}
	if got := gitIn(t, r, "show", "main:notes.txt"); got != "one\n2\n3\n" {
		t.Errorf("cherry-picked content %q", got)
	}
	if got := gitIn(t, r, "show", "feature:notes.txt"); got != "1\n2\n3\n" {
		t.Errorf("reverted content %q", got)
	}
	if got := gitIn(t, r, "cat-file", "-t", "v1.0"); got != "tag\n" {
		t.Errorf("annotated tag: %q", got)
	}
}

// TestConcurrentWritesOneWins fires twenty writes based on the same
// last_commit_id at once, half through the files API and half as update
// actions of POST .../commits: exactly one lands, the rest answer 400
// (Errors rule 5), the file holds the winner's content, and no commit is lost
// or half-written; writes without a base all land, one commit each.
func TestConcurrentWritesOneWins(t *testing.T) {
	a := newAPI(t)
	id, r := a.project("racers")
	p := fmt.Sprintf("/projects/%d/repository", id)
	a.must(201, "POST", p+"/files/race.txt", map[string]any{"branch": "main", "commit_message": "base", "content": "base\n"})
	base := a.must(200, "GET", p+"/files/race.txt?ref=main", nil)["last_commit_id"].(string)
	const n = 20
	statuses := make([]int, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			<-start
			content := fmt.Sprintf("racer %d\n", i)
			if i%2 == 0 {
				statuses[i], _ = a.do("PUT", p+"/files/race.txt", map[string]any{"branch": "main", "commit_message": fmt.Sprintf("racer %d", i),
					"content": content, "last_commit_id": base})
				return
			}
			statuses[i], _ = a.do("POST", p+"/commits", map[string]any{"branch": "main", "commit_message": fmt.Sprintf("racer %d", i),
				"actions": []map[string]any{{"action": "update", "file_path": "race.txt", "content": content, "last_commit_id": base}}})
		}(i)
	}
	close(start)
	wg.Wait()
	won, winner := 0, -1
	for i, s := range statuses {
		switch s {
		case 200, 201:
			won, winner = won+1, i
		case 400:
		default:
			t.Fatalf("racer %d: status %d", i, s)
		}
	}
	if won != 1 {
		t.Fatalf("%d writes won, want exactly 1 (%v)", won, statuses)
	}
	log := strings.Fields(gitIn(t, r, "log", "--format=%H", "main"))
	if len(log) != 3 || log[1] != base {
		t.Fatalf("history after the race: %v (base %s)", log, base)
	}
	if got, want := gitIn(t, r, "show", "main:race.txt"), fmt.Sprintf("racer %d\n", winner); got != want {
		t.Fatalf("race.txt holds %q, the winner wrote %q", got, want)
	}
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			statuses[i], _ = a.do("POST", fmt.Sprintf("%s/files/f%d.txt", p, i), map[string]any{"branch": "main",
				"commit_message": fmt.Sprintf("file %d", i), "content": "x"})
		}(i)
	}
	wg.Wait()
	for i, s := range statuses {
		if s != 201 {
			t.Fatalf("independent write %d: %d", i, s)
		}
	}
	if got := len(strings.Fields(gitIn(t, r, "log", "--format=%H", "main"))); got != 3+n {
		t.Fatalf("%d commits, want %d: a write was lost", got, 3+n)
	}
	fsckClean(t, r)
}

// TestEmptyRepositoryTakesFirstCommit: a project made without a README has an
// empty repository; its first commit makes that branch the default one.
func TestEmptyRepositoryTakesFirstCommit(t *testing.T) {
	a := newAPI(t)
	p := a.must(201, "POST", "/projects", map[string]any{"name": "empty"})
	if p["empty_repo"] != true || p["default_branch"] != nil {
		t.Fatalf("new project: empty_repo=%v default_branch=%v", p["empty_repo"], p["default_branch"])
	}
	id := int(p["id"].(float64))
	path := fmt.Sprintf("/projects/%d/repository", id)
	if status, b := a.do("GET", path+"/commits", nil); status != 200 || string(b) != "[]" {
		t.Fatalf("commits of an empty repository: %d %s", status, b)
	}
	a.must(201, "POST", path+"/files/first.txt", map[string]any{"branch": "trunk", "commit_message": "first", "content": "1\n"})
	p = a.must(200, "GET", fmt.Sprintf("/projects/%d", id), nil)
	if p["empty_repo"] != false || p["default_branch"] != "trunk" {
		t.Fatalf("after the first commit: empty_repo=%v default_branch=%v", p["empty_repo"], p["default_branch"])
	}
	if status, b := a.do("GET", path+"/files/first.txt/raw", nil); status != 200 || string(b) != "1\n" {
		t.Fatalf("raw at HEAD: %d %q", status, b)
	}
	// A second branch needs a start point once the repository has one.
	if status, _ := a.do("POST", path+"/files/second.txt", map[string]any{"branch": "other", "commit_message": "m", "content": "x"}); status != 400 {
		t.Fatalf("commit to a new branch without start_branch: %d", status)
	}
}

// TestDemoProjectsGetRepositoriesOnFirstUse: projects seeded straight into
// the store have repositories too.
func TestDemoProjectsGetRepositoriesOnFirstUse(t *testing.T) {
	inst, err := reference.New(reference.Config{RootToken: repoRootToken, Seed: "demo", FixedClock: true})
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Close()
	srv := httptest.NewServer(inst.Server)
	defer srv.Close()
	a := &apiClient{t: t, srv: srv, inst: inst}
	status, b := a.do("GET", "/projects?per_page=100", nil)
	var projects []map[string]any
	if err := json.Unmarshal(b, &projects); status != 200 || err != nil || len(projects) == 0 {
		t.Fatalf("projects: %d %v", status, err)
	}
	for _, p := range projects {
		want := 200
		if p["empty_repo"] == true {
			want = 404
		}
		if status, b := a.do("GET", fmt.Sprintf("/projects/%v/repository/files/README.md?ref=%v", p["id"], p["default_branch"]), nil); status != want {
			t.Errorf("%v: README %d %s (want %d)", p["path_with_namespace"], status, b, want)
		}
	}
}

// doRaw sends body as it is, with Content-Type ct.
func (a *apiClient) doRaw(method, path, ct, body string) (int, []byte) {
	a.t.Helper()
	req, _ := http.NewRequest(method, a.srv.URL+"/api/v4"+path, strings.NewReader(body))
	req.Header.Set("PRIVATE-TOKEN", repoRootToken)
	if ct != "" {
		req.Header.Set("Content-Type", ct)
	}
	res, err := a.srv.Client().Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	defer res.Body.Close()
	var buf bytes.Buffer
	buf.ReadFrom(res.Body)
	return res.StatusCode, buf.Bytes()
}

// TestRefusedWritesChangeNothing sends writes the repository must refuse —
// a path under a file, a file where a directory is (files API, every action
// of POST .../commits, move), bodies that are not exactly one JSON object,
// blank or oversized identities, oversized names and messages, a branch
// whose name clashes with another — and checks each answers 400 in the
// documented shape while no ref moves and no file changes.
func TestRefusedWritesChangeNothing(t *testing.T) {
	a := newAPI(t)
	id, r := a.project("refusals")
	p := fmt.Sprintf("/projects/%d/repository", id)
	a.must(201, "POST", p+"/commits", map[string]any{"branch": "main", "commit_message": "tree", "actions": []map[string]any{
		{"action": "create", "file_path": "dir/a.txt", "content": "a\n"},
		{"action": "create", "file_path": "dir/sub/b.txt", "content": "b\n"},
	}})
	a.must(201, "POST", p+"/branches", map[string]any{"branch": "team/one", "ref": "main"})
	refs := gitIn(t, r, "for-each-ref")
	readme := gitIn(t, r, "show", "main:README.md")

	write := func(extra map[string]any) map[string]any {
		m := map[string]any{"branch": "main", "commit_message": "m", "content": "x\n"}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	mib := strings.Repeat("x", 1<<20)
	type refusal struct {
		what       string
		method     string
		path       string
		body       any    // JSON-encoded unless raw is set
		raw        string // sent as application/json as it is
		validation string // Errors rule 3: the field named; "" for Errors rule 5 or 2 (a string message)
	}
	cases := []refusal{
		{"file under a file", "POST", "/files/README.md%2Fchild", write(nil), "", ""},
		{"file where a directory is", "POST", "/files/dir", write(nil), "", ""},
		{"update under a file", "PUT", "/files/README.md%2Fchild", write(nil), "", ""},
		{"update a directory", "PUT", "/files/dir", write(nil), "", ""},
		{"delete a directory", "DELETE", "/files/dir", map[string]any{"branch": "main", "commit_message": "m"}, "", ""},
		{"trailing data on a delete", "DELETE", "/files/README.md", nil, `{"branch":"main","commit_message":"x"}}`, ""},
		{"two values on a create", "POST", "/files/new.txt", nil, `{"branch":"main","commit_message":"x","content":"c"} {}`, ""},
		{"an array body", "POST", "/files/new.txt", nil, `[{"branch":"main","commit_message":"x","content":"c"}]`, ""},
		{"blank author_name", "POST", "/files/new.txt", write(map[string]any{"author_name": ""}), "", "author_name"},
		{"spaces for author_name", "PUT", "/files/README.md", write(map[string]any{"author_name": "  "}), "", "author_name"},
		{"blank author_email", "DELETE", "/files/README.md", map[string]any{"branch": "main", "commit_message": "m", "author_email": ""}, "", "author_email"},
		{"an author_name git would rewrite", "POST", "/files/new.txt", write(map[string]any{"author_name": "a<b>"}), "", "author_name"},
		{"a 1 MiB author_email", "POST", "/files/new.txt", write(map[string]any{"author_email": mib + "@example.com"}), "", "author_email"},
		{"a 1 MiB branch", "POST", "/files/new.txt", write(map[string]any{"branch": mib, "start_branch": "main"}), "", "branch"},
		{"a 1 MiB start_branch", "POST", "/files/new.txt", write(map[string]any{"branch": "b2", "start_branch": mib}), "", "start_branch"},
		{"a NUL in commit_message", "POST", "/files/new.txt", write(map[string]any{"commit_message": "a\x00b"}), "", "commit_message"},
		{"a commit_message over 1 MiB", "POST", "/files/new.txt", write(map[string]any{"commit_message": mib + "x"}), "", "commit_message"},
		{"a 5,000-byte file path", "POST", "/files/" + strings.Repeat("p", 5000), write(nil), "", ""},
		{"a branch under a branch", "POST", "/files/new.txt", write(map[string]any{"branch": "main/x", "start_branch": "main"}), "", ""},
		{"a branch above a branch", "POST", "/files/new.txt", write(map[string]any{"branch": "team", "start_branch": "main"}), "", ""},
		{"a branch under a branch (branches API)", "POST", "/branches", map[string]any{"branch": "team/one/two", "ref": "main"}, "", ""},
		{"a tag message with a NUL", "POST", "/tags", map[string]any{"tag_name": "v1", "ref": "main", "message": "a\x00b"}, "", "message"},
		{"a cherry-pick message with a NUL", "POST", "/commits/main/cherry_pick", map[string]any{"branch": "team/one", "message": "a\x00b"}, "", "message"},
	}
	action := func(a map[string]any) map[string]any {
		return map[string]any{"branch": "main", "commit_message": "m", "actions": []map[string]any{
			{"action": "create", "file_path": "fine.txt", "content": "ok\n"}, a}}
	}
	for _, ac := range []struct {
		what string
		a    map[string]any
	}{
		{"create under a file", map[string]any{"action": "create", "file_path": "README.md/x", "content": "c"}},
		{"create where a directory is", map[string]any{"action": "create", "file_path": "dir", "content": "c"}},
		{"update a directory", map[string]any{"action": "update", "file_path": "dir/sub", "content": "c"}},
		{"update under a file", map[string]any{"action": "update", "file_path": "README.md/x", "content": "c"}},
		{"delete a directory", map[string]any{"action": "delete", "file_path": "dir"}},
		{"chmod a directory", map[string]any{"action": "chmod", "file_path": "dir", "execute_filemode": true}},
		{"move under a file", map[string]any{"action": "move", "file_path": "README.md/x", "previous_path": "dir/a.txt"}},
		{"move onto a directory", map[string]any{"action": "move", "file_path": "dir/sub", "previous_path": "README.md"}},
		{"move a directory", map[string]any{"action": "move", "file_path": "elsewhere", "previous_path": "dir"}},
		{"move onto a file", map[string]any{"action": "move", "file_path": "README.md", "previous_path": "dir/a.txt"}},
	} {
		cases = append(cases, refusal{"commits: " + ac.what, "POST", "/commits", action(ac.a), "", ""})
	}
	cases = append(cases,
		refusal{"commits: blank author_email", "POST", "/commits", func() map[string]any {
			m := action(map[string]any{"action": "create", "file_path": "g.txt", "content": "c"})
			m["author_email"] = " "
			return m
		}(), "", "author_email"},
		refusal{"commits: a 1 MiB author_name", "POST", "/commits", func() map[string]any {
			m := action(map[string]any{"action": "create", "file_path": "g.txt", "content": "c"})
			m["author_name"] = mib
			return m
		}(), "", "author_name"},
	)
	for _, tc := range cases {
		var status int
		var body []byte
		if tc.raw != "" {
			status, body = a.doRaw(tc.method, p+tc.path, "application/json", tc.raw)
		} else {
			status, body = a.do(tc.method, p+tc.path, tc.body)
		}
		if status != http.StatusBadRequest {
			t.Errorf("%s: %d %.300s, want 400", tc.what, status, body)
			continue
		}
		var doc struct{ Message any }
		if err := json.Unmarshal(body, &doc); err != nil {
			t.Errorf("%s: body %.300s", tc.what, body)
			continue
		}
		if tc.validation != "" {
			fields, ok := doc.Message.(map[string]any)
			if !ok || fields[tc.validation] == nil {
				t.Errorf("%s: %.300s, want the validation shape naming %s", tc.what, body, tc.validation)
			}
		} else if _, ok := doc.Message.(string); !ok {
			t.Errorf("%s: %.300s, want a string message", tc.what, body)
		}
	}
	if got := gitIn(t, r, "for-each-ref"); got != refs {
		t.Errorf("refs moved:\n%s\nwant\n%s", got, refs)
	}
	if got := gitIn(t, r, "show", "main:README.md"); got != readme {
		t.Errorf("README.md changed: %q", got)
	}
	if status, b := a.do("GET", p+"/files/README.md?ref=main", nil); status != 200 {
		t.Errorf("README.md after the refusals: %d %s", status, b)
	}
	fsckClean(t, r)
}

// Wherever the platform resolves a ref it takes any revision git resolves
// (Gitaly's FindCommit): Renovate reads its config with ref=HEAD.
func TestRevisionsWhereRefsResolve(t *testing.T) {
	a := newAPI(t)
	id, _ := a.project("revs")
	first := a.must(200, "GET", fmt.Sprintf("/projects/%d/repository/commits/main", id), nil)["id"]
	a.must(201, "POST", fmt.Sprintf("/projects/%d/repository/files/renovate.json", id),
		map[string]any{"branch": "main", "content": "{}\n", "commit_message": "Add renovate.json"})
	head := a.must(200, "GET", fmt.Sprintf("/projects/%d/repository/commits/main", id), nil)["id"]

	f := a.must(200, "GET", fmt.Sprintf("/projects/%d/repository/files/renovate.json?ref=HEAD", id), nil)
	if f["commit_id"] != head || f["ref"] != "HEAD" {
		t.Errorf("file at HEAD: %v", f)
	}
	if st, b := a.do("GET", fmt.Sprintf("/projects/%d/repository/files/renovate.json/raw?ref=HEAD", id), nil); st != 200 || string(b) != "{}\n" {
		t.Errorf("raw at HEAD: %d %q", st, b)
	}
	if st, _ := a.do("GET", fmt.Sprintf("/projects/%d/repository/files/renovate.json?ref=%s", id, url.QueryEscape("HEAD~1")), nil); st != 404 {
		t.Errorf("the file one commit before it was added: %d", st)
	}
	if c := a.must(200, "GET", fmt.Sprintf("/projects/%d/repository/commits/%s", id, url.PathEscape("HEAD~1")), nil); c["id"] != first {
		t.Errorf("commit HEAD~1: %v, want %v", c["id"], first)
	}
	if log := a.apiLog(id, "HEAD"); len(log) != 2 || log[0]["id"] != head {
		t.Errorf("commits?ref_name=HEAD: %v", log)
	}
	if log := a.apiLog(id, "HEAD~1..HEAD"); len(log) != 1 || log[0]["id"] != head {
		t.Errorf("commits?ref_name=HEAD~1..HEAD: %v", log)
	}
	// What the platform refuses before asking git stays not found.
	if st, _ := a.do("GET", fmt.Sprintf("/projects/%d/repository/files/renovate.json?ref=%s", id, url.QueryEscape("main:renovate.json")), nil); st != 404 {
		t.Errorf("ref with a colon: %d", st)
	}
}
