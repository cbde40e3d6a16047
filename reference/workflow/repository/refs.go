package repository

import (
	"context"
	"errors"

	"github.com/v4cert/v4cert/reference/git"
	"github.com/v4cert/v4cert/reference/store"
)

// CreateBranch creates branch name at ref (a branch, tag or commit) for
// POST /projects/:id/repository/branches and returns the commit it points
// at; the hooks hear of it.
func (w *Workflows) CreateBranch(ctx context.Context, t *Target, name, ref string) (Oid, error) {
	if !ValidBranchName(name) || len(name) > git.MaxRefName {
		return "", refRefused("Branch name is invalid")
	}
	target, err := t.Repo.Resolve(ctx, ref)
	if err != nil {
		return "", refRefused("Invalid reference name: " + ref)
	}
	switch err := t.Repo.UpdateRef(ctx, "refs/heads/"+name, target, git.ZeroOid); {
	case errors.Is(err, git.ErrExists):
		return "", refRefused("Branch already exists")
	case errors.Is(err, git.ErrRefClash):
		return "", refRefused("Branch name " + name + " clashes with an existing branch")
	case err != nil:
		return "", failed("Branch", err)
	}
	w.branchWritten(ctx, t, name, git.ZeroOid, target)
	return target, nil
}

// CreateTag creates tag name at ref for POST /projects/:id/repository/tags:
// lightweight, or annotated with msg (tagged by t.By now); the hooks hear of
// it. A message past git's limits is a *store.ValidationError on "message".
func (w *Workflows) CreateTag(ctx context.Context, t *Target, name, ref, msg string) error {
	if !git.ValidRefName(name) || len(name) > git.MaxRefName {
		return refRefused("Tag name invalid")
	}
	if r := git.MessageProblem(msg); r != "" {
		return &store.ValidationError{Fields: map[string][]string{"message": {r}}}
	}
	target, err := t.Repo.Resolve(ctx, ref)
	if err != nil {
		return refRefused("Target " + ref + " is invalid")
	}
	switch err := t.Repo.CreateTag(ctx, name, target, msg, t.Signature(w.repos.Now())); {
	case errors.Is(err, git.ErrExists):
		return refRefused("Tag " + name + " already exists")
	case errors.Is(err, git.ErrRefClash):
		return refRefused("Tag name " + name + " clashes with an existing tag")
	case err != nil:
		return failed("Tag", err)
	}
	if obj, err := t.Repo.RefTarget(ctx, "refs/tags/"+name); err == nil {
		w.RefsMoved(ctx, t.ProjectID, []git.RefMove{{Ref: "refs/tags/" + name, Old: git.ZeroOid, New: obj}})
	}
	return nil
}
