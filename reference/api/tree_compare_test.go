package api_test

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
)

// TestRepositoryTree: the entries git has at a ref and path, trees first,
// recursive on request, keyset pages through Link rel=next holding every
// entry once, and 404 for an unknown ref or path.
func TestRepositoryTree(t *testing.T) {
	a := newAPI(t)
	id, repo := a.project("tree")
	p := fmt.Sprintf("/projects/%d", id)
	a.must(201, "POST", p+"/repository/commits", map[string]any{"branch": "main", "commit_message": "files", "actions": []map[string]any{
		{"action": "create", "file_path": "b.txt", "content": "b"},
		{"action": "create", "file_path": "a/x.txt", "content": "x"},
		{"action": "create", "file_path": "a/deep/y.txt", "content": "y"},
		{"action": "create", "file_path": "z/z.txt", "content": "z"},
		{"action": "create", "file_path": "run.sh", "content": "#!/bin/sh", "execute_filemode": true},
	}})
	a.must(201, "POST", p+"/repository/branches", map[string]any{"branch": "other", "ref": "main"})
	a.must(201, "POST", p+"/repository/files/only-other.txt", map[string]any{"branch": "other", "commit_message": "o", "content": "o"})

	paths := func(items []map[string]any) string {
		var out []string
		for _, it := range items {
			out = append(out, it["path"].(string))
		}
		return strings.Join(out, " ")
	}
	root := a.list(p + "/repository/tree")
	if got := paths(root); got != "a z README.md b.txt run.sh" {
		t.Fatalf("root tree %q", got)
	}
	// Each entry is what git ls-tree says.
	lsTree := gitIn(t, repo, "ls-tree", "main")
	for _, e := range root {
		line := fmt.Sprintf("%s %s %s\t%s", e["mode"], e["type"], e["id"], e["name"])
		if !strings.Contains(lsTree, line) {
			t.Errorf("entry %v is not in git ls-tree:\n%s", e, lsTree)
		}
	}
	if got := paths(a.list(p + "/repository/tree?path=a")); got != "a/deep a/x.txt" {
		t.Errorf("path=a: %q", got)
	}
	if got := paths(a.list(p + "/repository/tree?recursive=true&per_page=100")); got != "a a/deep z README.md a/deep/y.txt a/x.txt b.txt run.sh z/z.txt" {
		t.Errorf("recursive: %q", got)
	}
	if got := paths(a.list(p + "/repository/tree?ref=other")); !strings.Contains(got, "only-other.txt") {
		t.Errorf("ref=other: %q", got)
	}
	for _, q := range []string{"ref=nowhere", "path=nowhere", "path=b.txt"} {
		if st, b := a.do("GET", p+"/repository/tree?"+q, nil); st != 404 || !strings.Contains(string(b), "404 Tree Not Found") {
			t.Errorf("?%s: %d %s", q, st, b)
		}
	}
	if st, _ := a.do("GET", p+"/repository/tree?pagination=none", nil); st != 400 {
		t.Errorf("pagination=none without recursive: %d", st)
	}
	// Keyset: follow rel=next alone.
	next := a.srv.URL + "/api/v4" + p + "/repository/tree?recursive=true&pagination=keyset&per_page=2"
	var seen []string
	link := regexp.MustCompile(`<([^>]+)>; rel="next"`)
	for i := 0; next != "" && i < 10; i++ {
		req, _ := http.NewRequest("GET", next, nil)
		req.Header.Set("PRIVATE-TOKEN", repoRootToken)
		res, err := a.srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var items []map[string]any
		jsonDecode(t, res, &items)
		for _, it := range items {
			seen = append(seen, it["path"].(string))
		}
		next = ""
		if m := link.FindStringSubmatch(res.Header.Get("Link")); m != nil {
			next = m[1]
		}
	}
	if got := strings.Join(seen, " "); got != "a a/deep z README.md a/deep/y.txt a/x.txt b.txt run.sh z/z.txt" {
		t.Errorf("keyset pages hold %q", got)
	}
	if st, _ := a.do("GET", p+"/repository/tree?pagination=keyset&page_token="+strings.Repeat("f", 40), nil); st != 400 {
		t.Errorf("an unknown page_token: %d", st)
	}
}

// TestRepositoryCompare: commits of to missing from from, oldest first, and
// the diff from the merge base (from itself when straight), as git has them.
func TestRepositoryCompare(t *testing.T) {
	a := newAPI(t)
	id, repo := a.project("compare")
	p := fmt.Sprintf("/projects/%d", id)
	a.must(201, "POST", p+"/repository/branches", map[string]any{"branch": "topic", "ref": "main"})
	a.must(201, "POST", p+"/repository/files/t1.txt", map[string]any{"branch": "topic", "commit_message": "T1", "content": "1"})
	a.must(201, "POST", p+"/repository/files/t2.txt", map[string]any{"branch": "topic", "commit_message": "T2", "content": "2"})
	a.must(201, "POST", p+"/repository/files/m.txt", map[string]any{"branch": "main", "commit_message": "M", "content": "m"})

	c := a.must(200, "GET", p+"/repository/compare?from=main&to=topic", nil)
	var titles, files []string
	for _, cm := range c["commits"].([]any) {
		titles = append(titles, cm.(map[string]any)["title"].(string))
	}
	for _, d := range c["diffs"].([]any) {
		files = append(files, d.(map[string]any)["new_path"].(string))
	}
	if strings.Join(titles, ",") != "T1,T2" || strings.Join(files, ",") != "t1.txt,t2.txt" {
		t.Fatalf("compare main...topic: commits %v, diffs %v", titles, files)
	}
	topic := strings.TrimSpace(gitIn(t, repo, "rev-parse", "topic"))
	if c["commit"].(map[string]any)["id"] != topic || c["compare_same_ref"] != false || c["compare_timeout"] != false {
		t.Fatalf("compare fields %v", c)
	}
	// straight: the diff from main itself also undoes main's own commit.
	s := a.must(200, "GET", p+"/repository/compare?from=main&to=topic&straight=true", nil)
	files = nil
	for _, d := range s["diffs"].([]any) {
		dm := d.(map[string]any)
		files = append(files, fmt.Sprintf("%s:%v", dm["new_path"], dm["deleted_file"]))
	}
	if strings.Join(files, ",") != "m.txt:true,t1.txt:false,t2.txt:false" {
		t.Fatalf("straight diffs %v", files)
	}
	same := a.must(200, "GET", p+"/repository/compare?from=main&to=main", nil)
	if same["compare_same_ref"] != true || len(same["commits"].([]any)) != 0 || same["commit"] != nil {
		t.Fatalf("same ref: %v", same)
	}
	if st, b := a.do("GET", p+"/repository/compare?from=main&to=nowhere", nil); st != 404 || !strings.Contains(string(b), "404 Ref Not Found") {
		t.Fatalf("unknown ref: %d %s", st, b)
	}
	if st, _ := a.do("GET", p+"/repository/compare?from=main", nil); st != 400 {
		t.Fatalf("no to: %d", st)
	}
}
