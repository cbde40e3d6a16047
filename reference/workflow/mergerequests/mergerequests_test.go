package mergerequests_test

import (
	"errors"
	"testing"

	"github.com/v4cert/v4cert/reference/store"
	"github.com/v4cert/v4cert/reference/workflow/mergerequests"
	"github.com/v4cert/v4cert/reference/workflow/repository"
	"github.com/v4cert/v4cert/reference/workflow/workflowtest"
)

func write(t *testing.T, w *workflowtest.World, tg *repository.Target, branch, path, content string) *repository.Commit {
	t.Helper()
	kind := "create"
	if head, err := tg.Repo.Branch(t.Context(), branch); err == nil {
		if _, err := tg.Repo.Lookup(t.Context(), head, path); err == nil {
			kind = "update"
		}
	}
	c, err := w.Repos.Commit(t.Context(), tg, &repository.CommitRequest{Branch: branch, Message: "write " + path,
		Actions: []repository.Action{{Kind: kind, Path: path, Content: []byte(content), HasContent: true}},
		Author:  repository.Signature{Name: w.User.Name, Email: w.User.Email, When: w.Repos.Now()}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// open creates the merge request source → main as the API does: compared
// under the project's lock, recorded with its first version.
func open(t *testing.T, w *workflowtest.World, mrs *mergerequests.Workflows, tg *repository.Target, source string) int {
	t.Helper()
	l := mrs.Lock(w.Project.ID)
	l.Lock()
	defer l.Unlock()
	st, err := mrs.Evaluate(t.Context(), w.Project.ID, tg.Repo, source, "main", "", true)
	if err != nil {
		t.Fatal(err)
	}
	var id int
	err = w.Store.Write(func(d *store.Data) error {
		title, src, tgt := "Change "+source, source, "main"
		mr, err := d.CreateMergeRequest(d.Project(w.Project.ID), d.User(w.User.ID),
			store.MRFields{Title: &title, SourceBranch: &src, TargetBranch: &tgt}, st.Version, st.Check)
		if err == nil {
			id = mr.ID
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func mergeRequest(t *testing.T, st *store.Store, id int) store.MergeRequest {
	t.Helper()
	var out store.MergeRequest
	st.Read(func(d *store.Data) error {
		mr := d.MergeRequest(id)
		if mr == nil {
			t.Fatalf("merge request %d is gone", id)
		}
		out = *mr
		return nil
	})
	return out
}

// TestAPushAddsAVersion: a write to a merge request's source branch, through
// the repository workflow, gives it a new version (the old one keeps its
// SHAs) before the writer returns; a conflicting write to the target makes
// it unmergeable. What the refresh recorded persists.
func TestAPushAddsAVersion(t *testing.T) {
	workflowtest.Run(t, true, func(t *testing.T, w *workflowtest.World) {
		mrs := mergerequests.New(w.Store, w.Repos)
		tg := w.Target(t)
		if _, err := w.Repos.CreateBranch(t.Context(), tg, "feature", "main"); err != nil {
			t.Fatal(err)
		}
		first := write(t, w, tg, "feature", "f.txt", "one\n")
		id := open(t, w, mrs, tg, "feature")
		mr := mergeRequest(t, w.Store, id)
		if len(mr.Versions) != 1 || mr.Latest().HeadSHA != string(first.ID) || mr.Check.Status != store.MergeCanBeMerged {
			t.Fatalf("a new merge request: %d versions, head %s, %s", len(mr.Versions), mr.Latest().HeadSHA, mr.Check.Status)
		}
		second := write(t, w, tg, "feature", "f.txt", "two\n")
		write(t, w, tg, "main", "f.txt", "clash\n")
		mr = mergeRequest(t, w.Reopen(t), id)
		if len(mr.Versions) != 2 || mr.Versions[0].HeadSHA != string(first.ID) || mr.Latest().HeadSHA != string(second.ID) {
			t.Fatalf("after the push: versions %+v", mr.Versions)
		}
		if !mr.Check.Conflicts || mr.Check.Status != store.MergeCannotBeMerged {
			t.Fatalf("after a clashing write to main: %+v", mr.Check)
		}
	})
}

// TestMerge: the sha guard and mergeability are checked before anything is
// written; a merge writes a two-parent merge commit on the target and may
// remove the source.
func TestMerge(t *testing.T) {
	workflowtest.Run(t, true, func(t *testing.T, w *workflowtest.World) {
		ctx := t.Context()
		mrs := mergerequests.New(w.Store, w.Repos)
		tg := w.Target(t)
		for _, b := range []string{"feature", "clash"} {
			if _, err := w.Repos.CreateBranch(ctx, tg, b, "main"); err != nil {
				t.Fatal(err)
			}
		}
		head := write(t, w, tg, "feature", "f.txt", "feature\n")
		write(t, w, tg, "clash", "README.md", "theirs\n")
		write(t, w, tg, "main", "README.md", "ours\n")
		mainBefore, _ := tg.Repo.Branch(ctx, "main")
		merger := tg.Signature(w.Repos.Now())
		m := mergerequests.Merge{ProjectID: w.Project.ID, Title: "Feature", Ref: "writer/workflows!1", Source: "feature",
			Target: "main", Method: store.MergeMethodMerge, Author: merger, RemoveSource: true}

		wrong := "0000000000000000000000000000000000000000"
		m.SHA = &wrong
		_, err := mrs.MergeBranches(ctx, tg, m, merger)
		var mismatch *mergerequests.SHAMismatchError
		if !errors.As(err, &mismatch) || mismatch.Head != string(head.ID) {
			t.Fatalf("a wrong sha: %v", err)
		}
		c := m
		c.Source = "clash"
		c.SHA = nil
		if _, err := mrs.MergeBranches(ctx, tg, c, merger); !errors.Is(err, mergerequests.ErrCannotMerge) {
			t.Fatalf("a conflicting merge: %v", err)
		}
		ff := m
		ff.SHA, ff.Method = nil, store.MergeMethodFF
		if _, err := mrs.MergeBranches(ctx, tg, ff, merger); !errors.Is(err, mergerequests.ErrCannotMerge) {
			t.Fatalf("fast-forward only, diverged: %v", err)
		}
		if now, _ := tg.Repo.Branch(ctx, "main"); now != mainBefore {
			t.Fatal("a refused merge moved main")
		}

		sha := string(head.ID)
		m.SHA = &sha
		out, err := mrs.MergeBranches(ctx, tg, m, merger)
		if err != nil {
			t.Fatal(err)
		}
		main, _ := tg.Repo.Branch(ctx, "main")
		mc, err := tg.Repo.Commit(ctx, main)
		if err != nil || out.MergeCommit != string(main) || len(mc.Parents) != 2 || mc.Parents[0] != mainBefore || mc.Parents[1] != head.ID {
			t.Fatalf("merge commit %+v (%v), outcome %+v", mc, err, out)
		}
		if _, err := tg.Repo.Branch(ctx, "feature"); !out.RemovedSource || !errors.Is(err, repository.ErrNotFound) {
			t.Fatalf("the source branch stays: removed %v, %v", out.RemovedSource, err)
		}
	})
}
