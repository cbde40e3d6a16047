package repository

import (
	"context"
	"errors"
	"fmt"

	"github.com/v4cert/v4cert/reference/git"
	"github.com/v4cert/v4cert/reference/store"
)

// CommitRequest is one commit made through the API: files create, update,
// delete, or POST .../repository/commits.
type CommitRequest struct {
	Branch      string
	StartBranch string
	StartSHA    string
	StartRepo   *Repo // nil: the project's own repository
	Force       bool
	Actions     []Action
	// LastCommitIDs holds, by action index, the last_commit_id a client
	// based the action on; a file changed since then fails the write.
	LastCommitIDs map[int]string
	Message       string
	Author        Signature
	// RejectEmpty fails a commit that changes nothing (Errors rule 5).
	RejectEmpty bool
}

// validate applies the git layer's limits to what the request would write:
// names and messages past them, a blank or malformed identity, answer the
// validation shape keyed by parameter (Errors rule 3, a
// *store.ValidationError); a branch name git refuses answers Errors rule 5,
// as it always has. Nothing is written.
func (req *CommitRequest) validate() error {
	p := fieldProblems{}
	for _, f := range []struct{ field, name string }{{"branch", req.Branch}, {"start_branch", req.StartBranch}} {
		if f.field == "branch" || f.name != "" {
			if r := git.RefNameProblem(f.name); r != git.ReasonInvalid {
				p.add(f.field, r)
			}
		}
	}
	p.add("commit_message", git.MessageProblem(req.Message))
	p.add("author_name", git.NameProblem(req.Author.Name))
	p.add("author_email", git.EmailProblem(req.Author.Email))
	if len(p) > 0 {
		return &store.ValidationError{Fields: p}
	}
	if !ValidBranchName(req.Branch) {
		return commitRefused("Branch name is invalid")
	}
	return nil
}

// fieldProblems collects validation failures by parameter (Errors rule 3).
type fieldProblems map[string][]string

// add records reason for field unless it is empty (no problem).
func (p fieldProblems) add(field, reason string) {
	if reason != "" {
		p[field] = append(p[field], reason)
	}
}

// shasEqual compares SHAs as the platform does: a common prefix of at least 7 digits.
func shasEqual(a, b string) bool {
	n := min(len(a), len(b))
	return n >= 7 && a[:n] == b[:n]
}

// Commit makes one commit on a branch. Writes to a repository are
// serialised, and the branch moves by compare-and-swap from the value the
// commit was built on, so of concurrent writes based on the same state one
// wins and the others fail with Errors rule 5; a failure leaves no ref moved.
// The committer is t.By at the author's time.
func (w *Workflows) Commit(ctx context.Context, t *Target, req *CommitRequest) (*Commit, error) {
	if err := req.validate(); err != nil {
		return nil, err
	}
	r := t.Repo
	r.Lock()
	c, old, err := w.commitLocked(ctx, t, req)
	r.Unlock()
	if err != nil {
		return nil, err
	}
	w.branchWritten(ctx, t, req.Branch, old, c.ID)
	return c, nil
}

func (w *Workflows) commitLocked(ctx context.Context, t *Target, req *CommitRequest) (*git.Commit, git.Oid, error) {
	r := t.Repo
	cur, err := r.Branch(ctx, req.Branch)
	exists := err == nil
	if err != nil && !errors.Is(err, git.ErrNotFound) {
		return nil, "", failed("Branch", err)
	}
	var base git.Oid
	startGiven := req.StartBranch != "" || req.StartSHA != ""
	sameStart := req.StartRepo == nil && req.StartBranch == req.Branch && req.StartSHA == ""
	switch {
	case startGiven && !sameStart:
		if exists && !req.Force {
			return nil, "", commitRefused(fmt.Sprintf("A branch called '%s' already exists. Switch to that branch in order to make changes", req.Branch))
		}
		from := r
		if req.StartRepo != nil {
			from = req.StartRepo
		}
		var err error
		if req.StartSHA != "" {
			base, err = from.Resolve(ctx, req.StartSHA)
			if err == nil && !git.IsOid(req.StartSHA) && !shasEqual(string(base), req.StartSHA) {
				err = git.ErrNotFound // start_sha names a commit, not a ref
			}
		} else {
			base, err = from.Branch(ctx, req.StartBranch)
		}
		if err != nil {
			if req.StartSHA != "" {
				return nil, "", commitRefused("Invalid start_sha: " + req.StartSHA)
			}
			return nil, "", commitRefused("Invalid start branch: " + req.StartBranch)
		}
		if from != r {
			if err := r.FetchCommit(ctx, from, base); err != nil {
				return nil, "", failed("Commit", err)
			}
		}
	case exists:
		base = cur
	default:
		branches, err := r.Branches(ctx)
		if err != nil {
			return nil, "", failed("Branch", err)
		}
		// Only an empty repository takes a first commit on a new branch
		// without a start point.
		if len(branches) > 0 {
			return nil, "", commitRefused("You can only create or edit files when you are on a branch")
		}
	}
	for i, last := range req.LastCommitIDs {
		a := req.Actions[i]
		p := a.Path
		if a.Kind == "move" && a.PreviousPath != "" {
			p = a.PreviousPath
		}
		var actual git.Oid
		if base != "" {
			actual, _ = r.LastCommit(ctx, base, p)
		}
		if !shasEqual(last, string(actual)) {
			return nil, "", commitRefused("You are attempting to update a file that has changed since you started editing it.")
		}
	}
	tree, err := r.ApplyActions(ctx, base, req.Actions)
	var ae *git.ActionError
	if errors.As(err, &ae) {
		return nil, "", commitRefused(ae.Error())
	}
	if err != nil {
		return nil, "", failed("Commit", err)
	}
	var parents []git.Oid
	if base != "" {
		parents = []git.Oid{base}
		if req.RejectEmpty {
			bc, err := r.Commit(ctx, base)
			if err != nil {
				return nil, "", failed("Commit", err)
			}
			if bc.Tree == tree {
				return nil, "", commitRefused("No changes: the commit would be empty")
			}
		}
	}
	committer := t.Signature(req.Author.When)
	id, err := r.CommitTree(ctx, tree, parents, req.Message, req.Author, committer)
	if err != nil {
		return nil, "", failed("Commit", err)
	}
	old := git.ZeroOid
	if exists {
		old = cur
	}
	if err := r.UpdateRef(ctx, "refs/heads/"+req.Branch, id, old); err != nil {
		if errors.Is(err, git.ErrRefClash) {
			return nil, "", commitRefused(fmt.Sprintf("Branch name %s clashes with an existing branch", req.Branch))
		}
		if errors.Is(err, git.ErrStale) || errors.Is(err, git.ErrExists) {
			return nil, "", commitRefused(fmt.Sprintf("Could not update refs/heads/%s. Please refresh and try again.", req.Branch))
		}
		return nil, "", failed("Branch", err)
	}
	c, err := r.Commit(ctx, id)
	return c, old, err
}
