package api_test

import (
	"fmt"
	"strings"
	"testing"
)

// TestMergeRequestCommitsAndParticipants: the commits of the merge
// request's latest version, newest first, as git has them; its author, note
// authors, assignees and reviewers, each once.
func TestMergeRequestCommitsAndParticipants(t *testing.T) {
	a := newAPI(t)
	id, repo := a.project("mrs")
	p := fmt.Sprintf("/projects/%d", id)
	a.must(201, "POST", p+"/repository/branches", map[string]any{"branch": "topic", "ref": "main"})
	for _, f := range []string{"one", "two", "three"} {
		a.must(201, "POST", p+"/repository/files/"+f+".txt", map[string]any{"branch": "topic", "commit_message": "Add " + f, "content": f})
	}
	a.gitUser("bob", "api")
	users := a.list("/users?username=bob")
	bobID := users[0]["id"]
	a.must(201, "POST", p+"/members", map[string]any{"user_id": bobID, "access_level": 30})
	mr := a.must(201, "POST", p+"/merge_requests", map[string]any{"source_branch": "topic", "target_branch": "main", "title": "T",
		"reviewer_ids": []any{bobID}, "assignee_ids": []any{bobID}})
	mrPath := fmt.Sprintf("%s/merge_requests/%d", p, num(mr, "iid"))
	commits := a.list(mrPath + "/commits")
	var titles []string
	for _, c := range commits {
		titles = append(titles, c["title"].(string))
	}
	if strings.Join(titles, ",") != "Add three,Add two,Add one" {
		t.Fatalf("commits %v", titles)
	}
	logged := strings.Fields(gitIn(t, repo, "log", "--format=%H", "main..topic"))
	for i, c := range commits {
		if c["id"] != logged[i] {
			t.Fatalf("commit %d is %v, git log has %s", i, c["id"], logged[i])
		}
	}
	if page := a.list(mrPath + "/commits?per_page=1&page=2"); len(page) != 1 || page[0]["title"] != "Add two" {
		t.Fatalf("page 2 of 1: %v", page)
	}
	if st, _ := a.do("GET", p+"/merge_requests/999/commits", nil); st != 404 {
		t.Fatalf("commits of no merge request: %d", st)
	}
	parts := a.list(mrPath + "/participants")
	if len(parts) != 2 || parts[0]["username"] != "root" || parts[1]["username"] != "bob" {
		t.Fatalf("participants %v", parts)
	}
	for _, k := range []string{"id", "username", "name", "state", "avatar_url", "web_url"} {
		if _, ok := parts[0][k]; !ok {
			t.Errorf("participant lacks %s", k)
		}
	}
}

// TestNoteEdit: a note's author edits it (updated_at moves), a Maintainer
// may too, another member may not; a blank body and no attribute answer 400;
// a refused edit changes nothing.
func TestNoteEdit(t *testing.T) {
	a := newAPI(t)
	id, _ := a.project("notes")
	p := fmt.Sprintf("/projects/%d", id)
	dev := a.gitUser("dev", "api")
	devID := a.list("/users?username=dev")[0]["id"]
	a.must(201, "POST", p+"/members", map[string]any{"user_id": devID, "access_level": 30})
	issue := a.must(201, "POST", p+"/issues", map[string]any{"title": "I"})
	a.must(201, "POST", p+"/repository/branches", map[string]any{"branch": "topic", "ref": "main"})
	a.must(201, "POST", p+"/repository/files/x.txt", map[string]any{"branch": "topic", "commit_message": "x", "content": "x"})
	mr := a.must(201, "POST", p+"/merge_requests", map[string]any{"source_branch": "topic", "target_branch": "main", "title": "M"})
	for _, on := range []string{fmt.Sprintf("%s/issues/%d", p, num(issue, "iid")), fmt.Sprintf("%s/merge_requests/%d", p, num(mr, "iid"))} {
		n := a.must(201, "POST", on+"/notes", map[string]any{"body": "first"})
		notePath := fmt.Sprintf("%s/notes/%d", on, num(n, "id"))
		if st, b := a.doAs(dev, "PUT", notePath, map[string]any{"body": "hijacked"}); st != 403 {
			t.Errorf("%s: a Developer edits root's note: %d %s", on, st, b)
		}
		for _, body := range []map[string]any{{"body": "  "}, {}} {
			if st, b := a.do("PUT", notePath, body); st != 400 {
				t.Errorf("%s %v: %d %s, want 400", on, body, st, b)
			}
		}
		if st, _ := a.do("PUT", on+"/notes/999999", map[string]any{"body": "x"}); st != 404 {
			t.Errorf("%s: an unknown note: %d", on, st)
		}
		got := a.must(200, "PUT", notePath, map[string]any{"body": "second"})
		if got["body"] != "second" || num(got, "id") != num(n, "id") {
			t.Errorf("%s: edited note %v", on, got)
		}
		// The Developer's own note is theirs to edit.
		st, b := a.doAs(dev, "POST", on+"/notes", map[string]any{"body": "mine"})
		if st != 201 {
			t.Fatalf("%s: dev's note: %d %s", on, st, b)
		}
		var mine map[string]any
		jsonUnmarshal(b, &mine)
		if st, b := a.doAs(dev, "PUT", fmt.Sprintf("%s/notes/%d", on, num(mine, "id")), map[string]any{"body": "mine, edited"}); st != 200 || !strings.Contains(string(b), "mine, edited") {
			t.Errorf("%s: dev edits own note: %d %s", on, st, b)
		}
	}
	// A Maintainer (root owns the project) edits a Developer's note.
	notes := a.list(fmt.Sprintf("%s/merge_requests/%d/notes", p, num(mr, "iid")))
	var devNote int
	for _, n := range notes {
		if n["body"] == "mine, edited" {
			devNote = num(n, "id")
		}
	}
	a.must(200, "PUT", fmt.Sprintf("%s/merge_requests/%d/notes/%d", p, num(mr, "iid"), devNote), map[string]any{"body": "moderated"})
}

// TestDeleteBranch: a Developer deletes a branch, which git then lacks; the
// default branch answers 400 with the platform's pre-receive message (see
// deleteBranch) and an unknown one 404, a Reporter 403, and none of them
// changes a ref.
func TestDeleteBranch(t *testing.T) {
	a := newAPI(t)
	id, repo := a.project("branches")
	p := fmt.Sprintf("/projects/%d", id)
	a.must(201, "POST", p+"/repository/branches", map[string]any{"branch": "gone", "ref": "main"})
	rep := a.gitUser("rep", "api")
	repID := a.list("/users?username=rep")[0]["id"]
	a.must(201, "POST", p+"/members", map[string]any{"user_id": repID, "access_level": 20})
	refs := gitIn(t, repo, "for-each-ref")
	if st, b := a.doAs(rep, "DELETE", p+"/repository/branches/gone", nil); st != 403 {
		t.Errorf("a Reporter deletes: %d %s", st, b)
	}
	if st, b := a.do("DELETE", p+"/repository/branches/main", nil); st != 400 || !strings.Contains(string(b), "The default branch of a project cannot be deleted.") {
		t.Errorf("the default branch: %d %s", st, b)
	}
	if st, b := a.do("DELETE", p+"/repository/branches/nowhere", nil); st != 404 || !strings.Contains(string(b), "404 Branch Not Found") {
		t.Errorf("an unknown branch: %d %s", st, b)
	}
	if got := gitIn(t, repo, "for-each-ref"); got != refs {
		t.Fatalf("refused deletes changed refs:\n%s\n%s", refs, got)
	}
	if st, b := a.do("DELETE", p+"/repository/branches/gone", nil); st != 204 || len(b) != 0 {
		t.Fatalf("delete: %d %s", st, b)
	}
	if strings.Contains(gitIn(t, repo, "for-each-ref"), "refs/heads/gone") {
		t.Fatal("git still has the branch")
	}
	if st, _ := a.do("GET", p+"/repository/branches/gone", nil); st != 404 {
		t.Fatalf("the deleted branch reads %d", st)
	}
}

// TestSubgroups: a group's direct children the caller sees, not deeper ones,
// not private ones to a stranger.
func TestSubgroups(t *testing.T) {
	a := newAPI(t)
	top := a.must(201, "POST", "/groups", map[string]any{"name": "Top", "path": "top", "visibility": "public"})
	topID := num(top, "id")
	pub := a.must(201, "POST", "/groups", map[string]any{"name": "Pub", "path": "pub", "visibility": "public", "parent_id": topID})
	priv := a.must(201, "POST", "/groups", map[string]any{"name": "Priv", "path": "priv", "visibility": "private", "parent_id": topID})
	a.must(201, "POST", "/groups", map[string]any{"name": "Deep", "path": "deep", "visibility": "public", "parent_id": num(pub, "id")})
	all := a.list(fmt.Sprintf("/groups/%d/subgroups?all_available=true", topID))
	if fmt.Sprint(ids(all)) != fmt.Sprint([]int{num(priv, "id"), num(pub, "id")}) {
		t.Fatalf("root sees %v (by name)", ids(all))
	}
	stranger := a.gitUser("stranger", "api")
	st, b := a.doAs(stranger, "GET", fmt.Sprintf("/groups/%d/subgroups?all_available=true", topID), nil)
	var seen []map[string]any
	jsonUnmarshal(b, &seen)
	if st != 200 || fmt.Sprint(ids(seen)) != fmt.Sprint([]int{num(pub, "id")}) {
		t.Fatalf("a stranger sees %d %s", st, b)
	}
	if st, _ := a.do("GET", "/groups/999999/subgroups", nil); st != 404 {
		t.Fatalf("subgroups of no group: %d", st)
	}
}
