package repository

import (
	"context"
	"errors"

	"github.com/v4cert/v4cert/reference/git"
)

// ErrDefaultBranch refuses deleting the project's default branch (the
// platform's pre-receive BranchCheck: "The default branch of a project
// cannot be deleted.", which Branches::DeleteService answers with 400).
var ErrDefaultBranch = errors.New("the default branch of a project cannot be deleted")

// DeleteBranch removes branch name for DELETE
// /projects/:id/repository/branches/:branch, as the platform's
// Branches::DeleteService (gitlabhq/gitlabhq app/services/branches/delete_service.rb @7881eb30,
// with the default branch refused by git's pre-receive check): an unknown branch is
// ErrNotFound, the default branch ErrDefaultBranch; the reference protects
// no branch, so no other refusal applies. The hooks hear of the removal
// (open merge requests from it, for one).
func (w *Workflows) DeleteBranch(ctx context.Context, t *Target, name string) error {
	old, err := w.deleteBranchLocked(ctx, t, name)
	if err != nil {
		return err
	}
	w.branchWritten(ctx, t, name, old, git.ZeroOid)
	return nil
}

func (w *Workflows) deleteBranchLocked(ctx context.Context, t *Target, name string) (git.Oid, error) {
	t.Repo.Lock()
	defer t.Repo.Unlock()
	old, err := t.Repo.Branch(ctx, name)
	if err != nil {
		return "", ErrNotFound
	}
	if name == t.DefaultBranch {
		return "", ErrDefaultBranch
	}
	switch err := t.Repo.DeleteRef(ctx, "refs/heads/"+name, old); {
	case errors.Is(err, git.ErrStale):
		return "", refRefused("Failed to remove branch")
	case err != nil:
		return "", failed("Branch", err)
	}
	return old, nil
}
