package repository_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/v4cert/v4cert/reference/store"
	"github.com/v4cert/v4cert/reference/workflow/repository"
	"github.com/v4cert/v4cert/reference/workflow/workflowtest"
)

// heard records what RefsMoved told the hooks.
type heard struct {
	mu    sync.Mutex
	moves []repository.RefMove
}

func (h *heard) hook(_ context.Context, _ int, moves []repository.RefMove) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.moves = append(h.moves, moves...)
}

func (h *heard) take() []repository.RefMove {
	h.mu.Lock()
	defer h.mu.Unlock()
	m := h.moves
	h.moves = nil
	return m
}

func file(kind, path, content string) repository.Action {
	return repository.Action{Kind: kind, Path: path, Content: []byte(content), HasContent: kind != "delete"}
}

func commitReq(w *workflowtest.World, branch string, actions ...repository.Action) *repository.CommitRequest {
	return &repository.CommitRequest{Branch: branch, Message: "change " + branch, Actions: actions,
		Author: repository.Signature{Name: w.User.Name, Email: w.User.Email, When: w.Repos.Now()}}
}

// refusal asserts err is a Refusal of kind with msg.
func refusal(t *testing.T, err error, kind error, msg string) {
	t.Helper()
	var r *repository.Refusal
	if !errors.As(err, &r) || !errors.Is(err, kind) || r.Msg != msg {
		t.Fatalf("err = %v, want the refusal %q (%v)", err, msg, kind)
	}
}

// TestFirstCommitSettlesTheDefaultBranch: the first branch written to an
// empty repository becomes its HEAD and the project's default branch, and
// the project is no longer empty, in the store (persisted too) as in git.
func TestFirstCommitSettlesTheDefaultBranch(t *testing.T) {
	workflowtest.Run(t, false, func(t *testing.T, w *workflowtest.World) {
		ctx := t.Context()
		var h heard
		w.Repos.OnRefsMoved(h.hook)
		tg := w.Target(t)
		c, err := w.Repos.Commit(ctx, tg, commitReq(w, "trunk", file("create", "a.txt", "a\n")))
		if err != nil {
			t.Fatal(err)
		}
		if got := h.take(); len(got) != 1 || got[0] != (repository.RefMove{Ref: "refs/heads/trunk", Old: repository.ZeroOid, New: c.ID}) {
			t.Fatalf("the hooks heard %v", got)
		}
		if c.Committer.Name != w.User.Name || c.Author.Email != w.User.Email {
			t.Fatalf("committer %v, author %v", c.Committer, c.Author)
		}
		head, oid, err := tg.Repo.Head(ctx)
		if err != nil || head != "trunk" || oid != c.ID {
			t.Fatalf("HEAD = %s %s %v, want trunk at %s", head, oid, err, c.ID)
		}
		st := w.Reopen(t)
		st.Read(func(d *store.Data) error {
			p := d.Project(w.Project.ID)
			if p.EmptyRepo || p.DefaultBranch != "trunk" {
				t.Errorf("project: empty %v, default %q; want a repository on trunk", p.EmptyRepo, p.DefaultBranch)
			}
			return nil
		})
	})
}

// TestRefusedWritesMoveNothing: each refusal of the platform's rules is its
// kind of Refusal (or the validation shape) and leaves every ref where it was.
func TestRefusedWritesMoveNothing(t *testing.T) {
	workflowtest.Run(t, true, func(t *testing.T, w *workflowtest.World) {
		ctx := t.Context()
		tg := w.Target(t)
		if _, err := w.Repos.CreateBranch(ctx, tg, "feature", "main"); err != nil {
			t.Fatal(err)
		}
		var h heard
		w.Repos.OnRefsMoved(h.hook)
		before, _ := tg.Repo.Branches(ctx)

		req := commitReq(w, "feature", file("create", "b.txt", "b\n"))
		req.StartBranch = "main"
		_, err := w.Repos.Commit(ctx, tg, req)
		refusal(t, err, repository.ErrCommitRefused, "A branch called 'feature' already exists. Switch to that branch in order to make changes")

		req = commitReq(w, "main", file("update", "README.md", "new\n"))
		req.LastCommitIDs = map[int]string{0: "0123456789abcdef"}
		_, err = w.Repos.Commit(ctx, tg, req)
		refusal(t, err, repository.ErrCommitRefused, "You are attempting to update a file that has changed since you started editing it.")

		req = commitReq(w, "main", file("create", "README.md", "again\n"))
		_, err = w.Repos.Commit(ctx, tg, req)
		var r *repository.Refusal
		if !errors.As(err, &r) || !errors.Is(err, repository.ErrCommitRefused) {
			t.Fatalf("creating an existing file: %v", err)
		}

		req = commitReq(w, "main", file("create", "c.txt", "c\n"))
		req.Author.Email = "<writer@example.com>"
		_, err = w.Repos.Commit(ctx, tg, req)
		var ve *store.ValidationError
		if !errors.As(err, &ve) || len(ve.Fields["author_email"]) == 0 {
			t.Fatalf("a malformed author email: %v, want a validation error on author_email", err)
		}

		_, err = w.Repos.CreateBranch(ctx, tg, "feature", "main")
		refusal(t, err, repository.ErrRefRefused, "Branch already exists")
		_, err = w.Repos.CreateBranch(ctx, tg, "other", "no-such-ref")
		refusal(t, err, repository.ErrRefRefused, "Invalid reference name: no-such-ref")
		_, err = w.Repos.CreateBranch(ctx, tg, "refs/heads/x", "main")
		refusal(t, err, repository.ErrRefRefused, "Branch name is invalid")
		refusal(t, w.Repos.CreateTag(ctx, tg, "v1", "no-such-ref", ""), repository.ErrRefRefused, "Target no-such-ref is invalid")

		after, _ := tg.Repo.Branches(ctx)
		if len(after) != len(before) {
			t.Fatalf("branches %v became %v", before, after)
		}
		for i := range before {
			if before[i] != after[i] {
				t.Fatalf("branch %v moved to %v", before[i], after[i])
			}
		}
		if got := h.take(); len(got) != 0 {
			t.Fatalf("refused writes told the hooks %v", got)
		}
	})
}

// TestPickAndRevert: a cherry-pick applies a commit's change onto another
// branch (and a second one is refused as empty); a revert undoes it.
func TestPickAndRevert(t *testing.T) {
	workflowtest.Run(t, true, func(t *testing.T, w *workflowtest.World) {
		ctx := t.Context()
		tg := w.Target(t)
		if _, err := w.Repos.CreateBranch(ctx, tg, "stable", "main"); err != nil {
			t.Fatal(err)
		}
		c, err := w.Repos.Commit(ctx, tg, commitReq(w, "main", file("create", "fix.txt", "fix\n")))
		if err != nil {
			t.Fatal(err)
		}
		var h heard
		w.Repos.OnRefsMoved(h.hook)
		if id, err := w.Repos.Pick(ctx, tg, repository.PickRequest{Commit: c, Branch: "stable", DryRun: true}); err != nil || id != "" {
			t.Fatalf("dry run: %s %v", id, err)
		}
		if got := h.take(); len(got) != 0 {
			t.Fatalf("a dry run told the hooks %v", got)
		}
		stable, _ := tg.Repo.Branch(ctx, "stable")
		id, err := w.Repos.Pick(ctx, tg, repository.PickRequest{Commit: c, Branch: "stable"})
		if err != nil {
			t.Fatal(err)
		}
		if got := h.take(); len(got) != 1 || got[0].Old != stable || got[0].New != id {
			t.Fatalf("the hooks heard %v, want stable from %s to %s", got, stable, id)
		}
		picked, err := tg.Repo.Commit(ctx, id)
		if err != nil || picked.Message != strings.TrimRight(c.Message, "\n")+"\n\n(cherry picked from commit "+string(c.ID)+")\n" {
			t.Fatalf("picked %+v %v", picked, err)
		}
		_, err = w.Repos.Pick(ctx, tg, repository.PickRequest{Commit: c, Branch: "stable"})
		var r *repository.Refusal
		if !errors.As(err, &r) || r.Code != "empty" {
			t.Fatalf("picking again: %v, want the refusal coded empty", err)
		}
		rid, err := w.Repos.Pick(ctx, tg, repository.PickRequest{Commit: c, Branch: "main", Revert: true})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tg.Repo.Lookup(ctx, rid, "fix.txt"); !errors.Is(err, repository.ErrNotFound) {
			t.Fatalf("after the revert fix.txt is still there: %v", err)
		}
	})
}
