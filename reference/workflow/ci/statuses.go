package ci

import (
	"context"

	"github.com/v4cert/v4cert/reference/store"
	"github.com/v4cert/v4cert/reference/workflow/repository"
)

// StatusRequest is POST /projects/:id/statuses/:sha as the API read it: the
// commit already resolved in t's repository.
type StatusRequest struct {
	Commit      *repository.Commit
	Ref         string // empty: not sent
	Name        string
	State       string
	PipelineID  *int
	TargetURL   *string
	Description *string
	Coverage    *float64
}

// ErrNoRef is a commit status for a commit no branch holds, with no ref sent
// and no pipeline to take one from ("404 References for commit Not Found").
var ErrNoRef = &store.CommitStatusError{NotFound: true, Msg: "404 References for commit Not Found"}

// PostCommitStatus is the platform's Ci::CreateCommitStatusService
// (gitlabhq/gitlabhq app/services/ci/create_commit_status_service.rb @0286e4c6):
// the ref is the one sent, else the newest matching pipeline's,
// else the first branch holding the commit (repository.branch_names_contains,
// which Gitaly answers in name order); the store then joins or makes the
// pipeline and moves the status (store.PostCommitStatus). view runs under
// the store's lock with the status and its pipeline.
func (w *Workflows) PostCommitStatus(ctx context.Context, t *repository.Target, req StatusRequest, view func(d *store.Data, st *store.Job, pl *store.Pipeline)) error {
	sha := string(req.Commit.ID)
	var pipelineRef string
	if req.Ref == "" {
		w.store.Read(func(d *store.Data) error {
			if pl := d.FirstMatchingPipeline(t.ProjectID, sha, "", req.PipelineID); pl != nil {
				pipelineRef = pl.Ref
			}
			return nil
		})
	}
	ref, tag := req.Ref, false
	var branches []string
	if ref == "" && pipelineRef == "" {
		var err error
		branches, _, err = t.Repo.RefsContaining(ctx, req.Commit.ID)
		if err != nil {
			return &repository.Failure{Object: "Commit", Err: err}
		}
	}
	switch {
	case ref != "":
	case pipelineRef != "":
		ref = pipelineRef
	case len(branches) > 0:
		ref = branches[0]
	default:
		return ErrNoRef
	}
	if req.Ref != "" {
		if _, err := t.Repo.Branch(ctx, ref); err != nil {
			if _, err := t.Repo.Tag(ctx, ref); err == nil {
				tag = true
			}
		}
	}
	c := req.Commit
	return w.store.Write(func(d *store.Data) error {
		if d.Project(t.ProjectID) == nil {
			return ErrNoProject
		}
		st, pl, err := d.PostCommitStatus(store.CommitStatusRequest{ProjectID: t.ProjectID, SHA: sha, Ref: ref,
			RefGiven: req.Ref != "", Tag: tag, Name: req.Name, State: req.State, PipelineID: req.PipelineID, UserID: t.By.ID,
			Commit: store.JobCommit{ID: sha, ShortID: sha[:8], Title: c.Title(), Message: c.Message,
				AuthorName: c.Author.Name, AuthorEmail: c.Author.Email, CreatedAt: c.Committer.When},
			TargetURL: req.TargetURL, Description: req.Description, Coverage: req.Coverage})
		if err != nil {
			return err
		}
		view(d, st, pl)
		return nil
	})
}
