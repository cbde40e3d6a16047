package api_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// doAs is doRaw with another token ("" for none).
func (a *apiClient) doAs(token, method, path string, body any) (int, []byte) {
	a.t.Helper()
	var rd *bytes.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	} else {
		rd = bytes.NewReader(nil)
	}
	req, _ := http.NewRequest(method, a.srv.URL+"/api/v4"+path, rd)
	if token != "" {
		req.Header.Set("PRIVATE-TOKEN", token)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
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

func (a *apiClient) list(path string) []map[string]any {
	a.t.Helper()
	st, b := a.do("GET", path, nil)
	if st != 200 {
		a.t.Fatalf("GET %s: %d %s", path, st, b)
	}
	var out []map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		a.t.Fatalf("GET %s: %v in %s", path, err, b)
	}
	return out
}

func ids(items []map[string]any) []int {
	out := []int{}
	for _, it := range items {
		out = append(out, int(it["id"].(float64)))
	}
	return out
}

func num(m map[string]any, k string) int { return int(m[k].(float64)) }

// TestPipelinesListGetLatest: pipelines made by POST .../pipeline read
// through the list (newest first, children left out, the finder's filters),
// the single pipeline in the platform's detailed shape, the latest of a
// branch at its head, and a commit's status and last_pipeline.
func TestPipelinesListGetLatest(t *testing.T) {
	a := newAPI(t)
	id, _ := a.project("pipes")
	p := fmt.Sprintf("/projects/%d", id)
	a.must(201, "POST", p+"/repository/files/.gitlab-ci.yml", map[string]any{"branch": "main", "commit_message": "CI",
		"content": "build:\n  script: make\nkid:\n  trigger:\n    include: child.yml\n"})
	a.must(201, "POST", p+"/repository/files/child.yml", map[string]any{"branch": "main", "commit_message": "child",
		"content": "inner:\n  script: make\n"})
	a.must(201, "POST", p+"/repository/branches", map[string]any{"branch": "topic", "ref": "main"})
	a.must(201, "POST", p+"/repository/tags", map[string]any{"tag_name": "v1", "ref": "main"})

	// The commit before any pipeline: status and last_pipeline are null.
	head := a.must(200, "GET", p+"/repository/commits/main", nil)
	if head["status"] != nil || head["last_pipeline"] != nil {
		t.Fatalf("a commit without pipelines: status %v, last_pipeline %v", head["status"], head["last_pipeline"])
	}
	first := a.must(201, "POST", p+"/pipeline", map[string]any{"ref": "main"})
	second := a.must(201, "POST", p+"/pipeline", map[string]any{"ref": "topic"})
	third := a.must(201, "POST", p+"/pipeline", map[string]any{"ref": "v1"})
	all := a.list(p + "/pipelines")
	want := []int{num(third, "id"), num(second, "id"), num(first, "id")}
	if got := ids(all); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("pipelines = %v, want %v (newest first, no child pipelines)", got, want)
	}
	for _, k := range []string{"id", "iid", "project_id", "sha", "ref", "status", "source", "created_at", "updated_at", "web_url", "name"} {
		if _, ok := all[0][k]; !ok {
			t.Errorf("list item lacks %s: %v", k, all[0])
		}
	}
	children := a.list(p + "/pipelines?source=parent_pipeline")
	if len(children) != 3 || children[0]["source"] != "parent_pipeline" {
		t.Fatalf("source=parent_pipeline lists %v", children)
	}
	for q, want := range map[string][]int{
		"ref=topic":                          {num(second, "id")},
		"scope=tags":                         {num(third, "id")},
		"scope=branches":                     {num(second, "id"), num(first, "id")},
		"status=pending":                     want,
		"status=success":                     {},
		"scope=finished":                     {},
		"username=root":                      want,
		"username=nobody":                    {},
		"sort=asc":                           {num(first, "id"), num(second, "id"), num(third, "id")},
		"order_by=ref&sort=asc":              {num(first, "id"), num(second, "id"), num(third, "id")},
		"sha=" + first["sha"].(string):       want,
		"updated_after=2999-01-01T00:00:00Z": {},
	} {
		if got := ids(a.list(p + "/pipelines?" + q)); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("?%s lists %v, want %v", q, got, want)
		}
	}
	for _, q := range []string{"scope=all", "status=done", "order_by=name", "sort=up", "yaml_errors=maybe", "updated_after=yesterday"} {
		if st, b := a.do("GET", p+"/pipelines?"+q, nil); st != 400 {
			t.Errorf("?%s: %d %s, want 400", q, st, b)
		}
	}

	one := a.must(200, "GET", fmt.Sprintf("%s/pipelines/%d", p, num(first, "id")), nil)
	for _, k := range []string{"before_sha", "tag", "yaml_errors", "user", "started_at", "finished_at", "committed_at", "duration", "queued_duration", "coverage", "detailed_status", "name"} {
		if _, ok := one[k]; !ok {
			t.Errorf("single pipeline lacks %s: %v", k, one)
		}
	}
	if ds := one["detailed_status"].(map[string]any); ds["group"] != "pending" || ds["text"] != "Pending" {
		t.Errorf("detailed_status = %v", ds)
	}
	if u := one["user"].(map[string]any); u["username"] != "root" {
		t.Errorf("user = %v", u)
	}
	if st, b := a.do("GET", p+"/pipelines/999999", nil); st != 404 || !strings.Contains(string(b), "404") {
		t.Errorf("unknown pipeline: %d %s", st, b)
	}
	// The child pipeline is a pipeline of the project too.
	a.must(200, "GET", fmt.Sprintf("%s/pipelines/%d", p, num(children[0], "id")), nil)

	latest := a.must(200, "GET", p+"/pipelines/latest", nil)
	if num(latest, "id") != num(first, "id") {
		t.Errorf("latest of the default branch = %v, want %v", latest["id"], first["id"])
	}
	if l := a.must(200, "GET", p+"/pipelines/latest?ref=topic", nil); num(l, "id") != num(second, "id") {
		t.Errorf("latest of topic = %v", l["id"])
	}
	// A new commit on topic has no pipeline: the platform answers 403.
	a.must(201, "POST", p+"/repository/files/x.txt", map[string]any{"branch": "topic", "commit_message": "x", "content": "x"})
	if st, b := a.do("GET", p+"/pipelines/latest?ref=topic", nil); st != 403 {
		t.Errorf("latest of a head without pipeline: %d %s, want 403", st, b)
	}
	if st, b := a.do("GET", p+"/pipelines/latest?ref=nowhere", nil); st != 403 {
		t.Errorf("latest of an unknown ref: %d %s, want 403", st, b)
	}

	// The commit now has pipelines: status and last_pipeline are the newest
	// top-level one (the tag's, at the same commit).
	c := a.must(200, "GET", p+"/repository/commits/main", nil)
	lp, ok := c["last_pipeline"].(map[string]any)
	if !ok || num(lp, "id") != num(third, "id") || lp["status"] != "pending" || c["status"] != "pending" || lp["sha"] != c["id"] {
		t.Fatalf("commit status %v, last_pipeline %v", c["status"], c["last_pipeline"])
	}
}

// TestPipelinesAccess: a private project's pipelines are hidden from
// non-members and refused to Guests; its Reporters read them.
func TestPipelinesAccess(t *testing.T) {
	a := newAPI(t)
	id, _ := a.project("secret")
	p := fmt.Sprintf("/projects/%d", id)
	a.must(201, "POST", p+"/repository/files/.gitlab-ci.yml", map[string]any{"branch": "main", "commit_message": "CI", "content": "b:\n  script: make\n"})
	a.must(201, "POST", p+"/pipeline", map[string]any{"ref": "main"})
	guest, reporter, stranger := a.gitUser("guesty", "api"), a.gitUser("reporty", "api"), a.gitUser("strangey", "api")
	for name, level := range map[string]int{"guesty": 10, "reporty": 20} {
		u := a.list("/users?username=" + name)
		a.must(201, "POST", p+"/members", map[string]any{"user_id": u[0]["id"], "access_level": level})
	}
	for tok, want := range map[string]int{"": 404, stranger: 404, guest: 403, reporter: 200} {
		if st, b := a.doAs(tok, "GET", p+"/pipelines", nil); st != want && !(tok == "" && st == 401) {
			t.Errorf("token %q: %d %s, want %d", tok, st, b, want)
		}
	}
	// Writes of commit statuses need Developer.
	if st, b := a.doAs(reporter, "POST", p+"/statuses/main", map[string]any{"state": "success"}); st != 403 {
		t.Errorf("a Reporter posting a status: %d %s, want 403", st, b)
	}
}

// TestCommitStatuses: a posted status makes an external pipeline when the
// commit has none, joins the newest one when it has, moves its status, is
// listed (latest per name unless all=true), and a transition the state
// machine refuses answers 400 and changes nothing.
func TestCommitStatuses(t *testing.T) {
	a := newAPI(t)
	id, _ := a.project("checks")
	p := fmt.Sprintf("/projects/%d", id)
	sha := a.must(200, "GET", p+"/repository/commits/main", nil)["id"].(string)

	st := a.must(201, "POST", p+"/statuses/"+sha, map[string]any{"state": "pending", "context": "ci/lint",
		"target_url": "https://ci.example.com/1", "description": "linting", "coverage": "81.5"})
	if st["name"] != "ci/lint" || st["status"] != "pending" || st["ref"] != "main" || st["sha"] != sha ||
		st["target_url"] != "https://ci.example.com/1" || st["coverage"] != 81.5 || st["allow_failure"] != false {
		t.Fatalf("created status %v", st)
	}
	plID := num(st, "pipeline_id")
	pl := a.must(200, "GET", fmt.Sprintf("%s/pipelines/%d", p, plID), nil)
	if pl["source"] != "external" || pl["status"] != "pending" || pl["ref"] != "main" {
		t.Fatalf("external pipeline %v", pl)
	}
	// Posting pending again: the state machine refuses, as on the platform.
	before := a.list(p + "/repository/commits/" + sha + "/statuses?all=true")
	code, body := a.do("POST", p+"/statuses/"+sha, map[string]any{"state": "pending", "name": "ci/lint"})
	if code != 400 || !strings.Contains(string(body), "Cannot transition status via :enqueue from :pending") {
		t.Fatalf("pending twice: %d %s", code, body)
	}
	if after := a.list(p + "/repository/commits/" + sha + "/statuses?all=true"); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Fatalf("a refused transition changed the statuses:\n%v\n%v", before, after)
	}
	run := a.must(201, "POST", p+"/statuses/"+sha, map[string]any{"state": "running", "name": "ci/lint"})
	if num(run, "id") != num(st, "id") || run["status"] != "running" || run["started_at"] == nil || run["target_url"] != "https://ci.example.com/1" {
		t.Fatalf("running: %v (want the same status moved on)", run)
	}
	if code, body := a.do("POST", p+"/statuses/"+sha, map[string]any{"state": "running", "name": "ci/lint"}); code != 400 ||
		!strings.Contains(string(body), "Cannot transition status via :run from :running") {
		t.Fatalf("running twice: %d %s", code, body)
	}
	if code, body := a.do("POST", p+"/statuses/"+sha, map[string]any{"state": "skipped", "name": "ci/lint"}); code != 400 {
		t.Fatalf("skipping a running status: %d %s", code, body)
	}
	if c := a.must(200, "GET", p+"/repository/commits/"+sha, nil); c["status"] != "running" {
		t.Fatalf("commit status %v, want running", c["status"])
	}
	done := a.must(201, "POST", p+"/statuses/"+sha, map[string]any{"state": "success", "name": "ci/lint"})
	if done["finished_at"] == nil || done["status"] != "success" {
		t.Fatalf("success: %v", done)
	}
	if pl := a.must(200, "GET", fmt.Sprintf("%s/pipelines/%d", p, plID), nil); pl["status"] != "success" {
		t.Fatalf("pipeline after success: %v", pl["status"])
	}
	// A finished status is not found again: a new one of the same name
	// joins the pipeline and the old one is retried.
	again := a.must(201, "POST", p+"/statuses/"+sha, map[string]any{"state": "failed", "name": "ci/lint"})
	if num(again, "id") == num(st, "id") || num(again, "pipeline_id") != plID {
		t.Fatalf("failed after success: %v", again)
	}
	other := a.must(201, "POST", p+"/statuses/"+sha, map[string]any{"state": "success"}) // name "default"
	if other["name"] != "default" {
		t.Fatalf("default name: %v", other["name"])
	}
	latest := a.list(p + "/repository/commits/" + sha + "/statuses")
	if got := ids(latest); fmt.Sprint(got) != fmt.Sprint([]int{num(again, "id"), num(other, "id")}) {
		t.Fatalf("latest statuses %v", got)
	}
	if got := ids(a.list(p + "/repository/commits/" + sha + "/statuses?all=true&sort=desc")); fmt.Sprint(got) != fmt.Sprint([]int{num(other, "id"), num(again, "id"), num(st, "id")}) {
		t.Fatalf("all statuses, descending: %v", got)
	}
	if got := ids(a.list(p + "/repository/commits/" + sha + "/statuses?name=default")); fmt.Sprint(got) != fmt.Sprint([]int{num(other, "id")}) {
		t.Fatalf("by name: %v", got)
	}
	if got := a.list(p + "/repository/commits/" + sha + "/statuses?ref=other"); len(got) != 0 {
		t.Fatalf("by another ref: %v", got)
	}
	if pl := a.must(200, "GET", fmt.Sprintf("%s/pipelines/%d", p, plID), nil); pl["status"] != "failed" {
		t.Fatalf("pipeline with a failed status: %v", pl["status"])
	}
	// Statuses are not jobs.
	if jobs := a.list(p + "/jobs"); len(jobs) != 0 {
		t.Fatalf("jobs list shows statuses: %v", jobs)
	}

	// Refusals: no state, a state outside the set, an unknown commit, a
	// pipeline_id that matches nothing; none changes anything.
	count := len(a.list(p + "/repository/commits/" + sha + "/statuses?all=true"))
	for _, c := range []struct {
		path   string
		body   map[string]any
		status int
	}{
		{"/statuses/" + sha, map[string]any{}, 400},
		{"/statuses/" + sha, map[string]any{"state": "done"}, 400},
		{"/statuses/" + sha, map[string]any{"state": "success", "coverage": "lots"}, 400},
		{"/statuses/" + strings.Repeat("0", 40), map[string]any{"state": "success"}, 404},
		{"/statuses/" + sha, map[string]any{"state": "success", "pipeline_id": 999999}, 404},
	} {
		if code, body := a.do("POST", p+c.path, c.body); code != c.status {
			t.Errorf("POST %s %v: %d %s, want %d", c.path, c.body, code, body, c.status)
		}
	}
	if n := len(a.list(p + "/repository/commits/" + sha + "/statuses?all=true")); n != count {
		t.Errorf("refused posts changed the statuses: %d, then %d", count, n)
	}
	if st, _ := a.doAs("", "GET", p+"/repository/commits/"+sha+"/statuses", nil); st != 401 {
		t.Errorf("anonymous list: %d, want 401", st)
	}
}

// TestCommitStatusJoinsCIPipeline: a status posted to a commit with a CI
// pipeline of the same ref joins it, and the pipeline's status counts it.
func TestCommitStatusJoinsCIPipeline(t *testing.T) {
	a := newAPI(t)
	id, _ := a.project("joined")
	p := fmt.Sprintf("/projects/%d", id)
	a.must(201, "POST", p+"/repository/files/.gitlab-ci.yml", map[string]any{"branch": "main", "commit_message": "CI", "content": "b:\n  script: make\n"})
	pl := a.must(201, "POST", p+"/pipeline", map[string]any{"ref": "main"})
	st := a.must(201, "POST", p+"/statuses/main", map[string]any{"state": "running", "name": "external"})
	if num(st, "pipeline_id") != num(pl, "id") {
		t.Fatalf("status joined pipeline %v, want %v", st["pipeline_id"], pl["id"])
	}
	if got := a.must(200, "GET", fmt.Sprintf("%s/pipelines/%d", p, num(pl, "id")), nil); got["status"] != "running" {
		t.Fatalf("pipeline status %v, want running", got["status"])
	}
	// The job and the status are both statuses of the commit.
	if got := a.list(p + "/repository/commits/main/statuses"); len(got) != 2 || got[0]["name"] != "b" || got[1]["name"] != "external" {
		t.Fatalf("statuses %v", got)
	}
	// pipeline_id picks the pipeline; another ref makes another pipeline.
	a.must(201, "POST", p+"/repository/branches", map[string]any{"branch": "side", "ref": "main"})
	side := a.must(201, "POST", p+"/statuses/main", map[string]any{"state": "success", "ref": "side"})
	if num(side, "pipeline_id") == num(pl, "id") || side["ref"] != "side" {
		t.Fatalf("status on side: %v", side)
	}
	if got := a.must(201, "POST", p+"/statuses/main", map[string]any{"state": "success", "name": "x", "pipeline_id": num(pl, "id")}); num(got, "pipeline_id") != num(pl, "id") {
		t.Fatalf("pipeline_id ignored: %v", got)
	}
}

func jsonUnmarshal(b []byte, v any) {
	if err := json.Unmarshal(b, v); err != nil {
		panic(fmt.Sprintf("%v in %s", err, b))
	}
}

func jsonDecode(t *testing.T, res *http.Response, v any) {
	t.Helper()
	defer res.Body.Close()
	if err := json.NewDecoder(res.Body).Decode(v); err != nil {
		t.Fatal(err)
	}
}
