package repository

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/v4cert/v4cert/reference/git"
	"github.com/v4cert/v4cert/reference/store"
)

// pickRefused is Errors rule 4: a cherry-pick or revert git cannot apply,
// with its error_code.
func pickRefused(revert bool, code string) *Refusal {
	msg := "Sorry, we cannot cherry-pick this commit automatically. This commit may already have been cherry-picked, or a more recent commit may have updated some of its content."
	if revert {
		msg = "Sorry, we cannot revert this commit automatically. This commit may already have been reverted, or a more recent commit may have updated some of its content."
	}
	return &Refusal{Kind: ErrCommitRefused, Msg: msg, Code: code}
}

// PickRequest is one cherry-pick or revert of Commit onto Branch.
type PickRequest struct {
	Commit *Commit
	Branch string
	Revert bool
	// DryRun checks that the pick applies and writes nothing.
	DryRun bool
	// Message replaces a cherry-pick's message; nil keeps the commit's with
	// the "(cherry picked from commit …)" line.
	Message *string
}

// Pick is POST .../commits/:sha/cherry_pick and .../revert (rules
// commits.cherry-pick.*, commits.revert.*): git's three-way merge of the
// commit's change (or its inverse) onto the branch, committed by t.By, the
// branch moved by compare-and-swap under the repository's write lock. It
// returns the new commit ("" for a dry run); the hooks hear of the move.
func (w *Workflows) Pick(ctx context.Context, t *Target, req PickRequest) (Oid, error) {
	if req.Message != nil {
		if r := git.MessageProblem(*req.Message); r != "" {
			return "", &store.ValidationError{Fields: map[string][]string{"message": {r}}}
		}
	}
	r := t.Repo
	r.Lock()
	old, err := r.Branch(ctx, req.Branch) // under the lock: what the pick moves the branch from
	if err != nil {
		old = git.ZeroOid
	}
	id, err := w.pickLocked(ctx, t, req)
	r.Unlock()
	if err != nil || req.DryRun {
		return "", err
	}
	w.branchWritten(ctx, t, req.Branch, old, id)
	return id, nil
}

func (w *Workflows) pickLocked(ctx context.Context, t *Target, req PickRequest) (git.Oid, error) {
	r, cm, branch, revert := t.Repo, req.Commit, req.Branch, req.Revert
	head, err := r.Branch(ctx, branch)
	if err != nil {
		return "", failed("Branch", err)
	}
	headCommit, err := r.Commit(ctx, head)
	if err != nil {
		return "", failed("Commit", err)
	}
	parentTree, err := r.EmptyTree(ctx)
	if err != nil {
		return "", failed("Commit", err)
	}
	if len(cm.Parents) > 0 {
		p, err := r.Commit(ctx, cm.Parents[0])
		if err != nil {
			return "", failed("Commit", err)
		}
		parentTree = p.Tree
	}
	base, theirs := parentTree, cm.Tree
	if revert {
		base, theirs = cm.Tree, parentTree
	}
	tree, conflict, err := r.Merge3(ctx, base, headCommit.Tree, theirs)
	if err != nil {
		return "", failed("Commit", err)
	}
	if conflict {
		return "", pickRefused(revert, "conflict")
	}
	if tree == headCommit.Tree {
		return "", pickRefused(revert, "empty")
	}
	if req.DryRun {
		return "", nil
	}
	now := w.repos.Now()
	author, committer := cm.Author, t.Signature(now)
	var msg string
	switch {
	case revert:
		author = committer
		msg = fmt.Sprintf("Revert \"%s\"\n\nThis reverts commit %s.\n", cm.Title(), cm.ID)
	case req.Message != nil:
		msg = *req.Message
	default:
		msg = strings.TrimRight(cm.Message, "\n") + "\n\n(cherry picked from commit " + string(cm.ID) + ")\n"
	}
	id, err := r.CommitTree(ctx, tree, []git.Oid{head}, msg, author, committer)
	if err != nil {
		return "", failed("Commit", err)
	}
	if err := r.UpdateRef(ctx, "refs/heads/"+branch, id, head); err != nil {
		if errors.Is(err, git.ErrStale) {
			return "", commitRefused(fmt.Sprintf("Could not update refs/heads/%s. Please refresh and try again.", branch))
		}
		return "", failed("Branch", err)
	}
	return id, nil
}
