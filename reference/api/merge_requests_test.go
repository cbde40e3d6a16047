package api_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
)

// mr opens a merge request from source into main and returns its iid.
func (a *apiClient) mr(id int, source, title string, extra map[string]any) int {
	a.t.Helper()
	body := map[string]any{"source_branch": source, "target_branch": "main", "title": title}
	for k, v := range extra {
		body[k] = v
	}
	m := a.must(201, "POST", fmt.Sprintf("/projects/%d/merge_requests", id), body)
	return int(m["iid"].(float64))
}

// branchWith creates branch from main with one commit adding path.
func (a *apiClient) branchWith(id int, branch, path, content string) string {
	a.t.Helper()
	p := fmt.Sprintf("/projects/%d/repository", id)
	a.must(201, "POST", p+"/branches", map[string]any{"branch": branch, "ref": "main"})
	c := a.must(201, "POST", p+"/commits", map[string]any{"branch": branch, "commit_message": "add " + path,
		"actions": []map[string]any{{"action": "create", "file_path": path, "content": content}}})
	return c["id"].(string)
}

// TestMergesAreOrdinaryGit merges with every merge method, squashed and not,
// then asks git itself: fsck is clean, git log agrees with the API, merge
// commits have two parents, squash commits one, fast-forwards none of their own.
func TestMergesAreOrdinaryGit(t *testing.T) {
	a := newAPI(t)
	id, r := a.project("merges")
	mrPath := func(iid int, rest string) string {
		return fmt.Sprintf("/projects/%d/merge_requests/%d%s", id, iid, rest)
	}

	a.branchWith(id, "plain", "plain.txt", "p\n")
	plain := a.must(200, "PUT", mrPath(a.mr(id, "plain", "Plain", nil), "/merge"), map[string]any{})
	if parents := strings.Fields(gitIn(t, r, "rev-list", "--parents", "-n", "1", plain["merge_commit_sha"].(string))); len(parents) != 3 {
		t.Fatalf("merge commit parents: %v", parents)
	}

	a.branchWith(id, "squashed", "s1.txt", "1\n")
	a.must(201, "POST", fmt.Sprintf("/projects/%d/repository/commits", id), map[string]any{"branch": "squashed", "commit_message": "second",
		"actions": []map[string]any{{"action": "create", "file_path": "s2.txt", "content": "2\n"}}})
	sq := a.must(200, "PUT", mrPath(a.mr(id, "squashed", "Squashed", map[string]any{"remove_source_branch": true}), "/merge"), map[string]any{"squash": true})
	squash := sq["squash_commit_sha"].(string)
	if parents := strings.Fields(gitIn(t, r, "rev-list", "--parents", "-n", "1", squash)); len(parents) != 2 {
		t.Fatalf("squash commit parents: %v", parents)
	}
	if out, err := r.Git(t.Context(), nil, "rev-parse", "--verify", "--quiet", "refs/heads/squashed"); err == nil {
		t.Fatalf("source branch still there: %s", out)
	}

	a.must(200, "PUT", fmt.Sprintf("/projects/%d", id), map[string]any{"merge_method": "ff"})
	head := a.branchWith(id, "fast", "f.txt", "f\n")
	ff := a.must(200, "PUT", mrPath(a.mr(id, "fast", "Fast", nil), "/merge"), map[string]any{})
	if ff["merge_commit_sha"] != nil || strings.TrimSpace(gitIn(t, r, "rev-parse", "main")) != head {
		t.Fatalf("fast-forward: merge_commit_sha %v, main at %s, want %s", ff["merge_commit_sha"], gitIn(t, r, "rev-parse", "main"), head)
	}

	a.must(200, "PUT", fmt.Sprintf("/projects/%d", id), map[string]any{"merge_method": "rebase_merge"})
	a.branchWith(id, "semi", "semi.txt", "s\n")
	a.must(200, "PUT", mrPath(a.mr(id, "semi", "Semi", nil), "/merge"), map[string]any{})

	fsckClean(t, r)
	want := strings.Fields(gitIn(t, r, "log", "--format=%H", "main"))
	var got []string
	for _, cm := range a.apiLog(id, "main") {
		got = append(got, cm["id"].(string))
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("API log %v, git log %v", got, want)
	}
	// Every merge request keeps its head reachable, as refs/merge-requests/<iid>/head.
	refs := gitIn(t, r, "for-each-ref", "--format=%(refname)", "refs/merge-requests/")
	if n := len(strings.Fields(refs)); n != 4 {
		t.Fatalf("merge request refs: %q", refs)
	}
}

// TestConcurrentMerges: merging one merge request twice at once merges it
// once (the other answers 405 while it is locked or merged); two merge
// requests into one branch both land, one merge commit each.
func TestConcurrentMerges(t *testing.T) {
	a := newAPI(t)
	id, r := a.project("racing-merges")
	a.branchWith(id, "one", "one.txt", "1\n")
	a.branchWith(id, "two", "two.txt", "2\n")
	one, two := a.mr(id, "one", "One", nil), a.mr(id, "two", "Two", nil)
	before := strings.TrimSpace(gitIn(t, r, "rev-parse", "main"))
	var wg sync.WaitGroup
	statuses := make([]int, 4)
	for i, iid := range []int{one, one, two, one} {
		wg.Add(1)
		go func(i, iid int) {
			defer wg.Done()
			statuses[i], _ = a.do("PUT", fmt.Sprintf("/projects/%d/merge_requests/%d/merge", id, iid), map[string]any{})
		}(i, iid)
	}
	wg.Wait()
	ok := 0
	for i, s := range statuses {
		switch s {
		case 200:
			ok++
		case 405:
			if i == 2 {
				t.Fatalf("the second merge request was refused")
			}
		default:
			t.Fatalf("status %d (%v)", s, statuses)
		}
	}
	if ok != 2 {
		t.Fatalf("%d merges landed, want 2 (%v)", ok, statuses)
	}
	merges := strings.Fields(gitIn(t, r, "rev-list", "--merges", before+"..main"))
	if len(merges) != 2 {
		t.Fatalf("%d merge commits on main, want 2", len(merges))
	}
	fsckClean(t, r)
}

// TestVersionsFollowConcurrentPushes: whatever order concurrent commits to the
// source branch land in, the latest version is the branch's head and every
// version's head is a commit of the branch.
func TestVersionsFollowConcurrentPushes(t *testing.T) {
	a := newAPI(t)
	id, r := a.project("pushes")
	a.branchWith(id, "topic", "t.txt", "t\n")
	iid := a.mr(id, "topic", "Topic", nil)
	var wg sync.WaitGroup
	for i := 0; i < 6; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			a.do("POST", fmt.Sprintf("/projects/%d/repository/files/f%d.txt", id, i), map[string]any{"branch": "topic",
				"commit_message": fmt.Sprintf("file %d", i), "content": "x"})
		}(i)
	}
	wg.Wait()
	status, b := a.do("GET", fmt.Sprintf("/projects/%d/merge_requests/%d/versions?per_page=100", id, iid), nil)
	var versions []map[string]any
	if err := json.Unmarshal(b, &versions); status != 200 || err != nil {
		t.Fatalf("versions: %d %s", status, b)
	}
	head := strings.TrimSpace(gitIn(t, r, "rev-parse", "topic"))
	if versions[0]["head_commit_sha"] != head {
		t.Fatalf("latest version head %v, branch head %s", versions[0]["head_commit_sha"], head)
	}
	history := gitIn(t, r, "rev-list", "topic")
	for _, v := range versions {
		if !strings.Contains(history, v["head_commit_sha"].(string)) {
			t.Fatalf("version head %v is not on the branch", v["head_commit_sha"])
		}
	}
	if len(versions) < 2 || len(versions) > 7 {
		t.Fatalf("%d versions for 6 pushes", len(versions))
	}
}
