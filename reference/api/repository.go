package api

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/v4cert/v4cert/reference/access"
	"github.com/v4cert/v4cert/reference/store"
	"github.com/v4cert/v4cert/reference/workflow/repository"
)

// Close releases what the server holds outside memory: its repositories'
// processes and, when temporary, their directory; and the registry host when
// the server built it.
func (s *Server) Close() error {
	err := s.repos.Close()
	if s.ownRegistry {
		err = errors.Join(err, s.registry.Close())
	}
	return err
}

// Repositories returns the repository workflows: seeding and reset go
// through them, tests and benchmarks look inside.
func (s *Server) Repositories() *repository.Workflows { return s.repos }

// repoCtx is a project's repository as one request sees it: the workflows'
// Target (what it needs of the project, read under the store's lock, and the
// repository itself, used after the lock is released: git commands must not
// hold up the store) and what the views need.
type repoCtx struct {
	repository.Target
	FullPath string
	webBase  string
}

// access levels of the repository (Authentication 3 and 7): anyone who can
// see a public or internal project reads its code, private code needs
// Reporter; writing needs Developer.
const (
	readCodeLevel  = access.Reporter
	writeCodeLevel = access.Developer
)

// repoOf resolves :id and checks that the caller may read (or, with write,
// push to) the project's repository.
func (s *Server) repoOf(c *Ctx, write bool) (*repoCtx, error) {
	rc := &repoCtx{Target: repository.Target{By: c.Caller}}
	err := s.store.Read(func(d *store.Data) error {
		p, err := c.projectOf(d, "id")
		if err != nil {
			return err
		}
		role := c.projectRole(d, p)
		switch {
		case write && (role < writeCodeLevel || p.Archived):
			return forbidden()
		case !write && p.Visibility == "private" && role < readCodeLevel:
			return forbidden()
		}
		rc.ProjectID, rc.FullPath, rc.DefaultBranch = p.ID, d.ProjectFullPath(p), p.DefaultBranch
		return nil
	})
	if err != nil {
		return nil, err
	}
	rc.webBase = c.base + "/" + rc.FullPath
	// Every project gets its repository when it is made (seeded worlds
	// included, reference.New), so no read creates one.
	rc.Repo, err = s.repos.Get(rc.ProjectID)
	if err != nil {
		return nil, gitError(err, "Repository")
	}
	return rc, nil
}

// headOf resolves the project's HEAD: its default branch.
func (rc *repoCtx) head(ctx context.Context) (repository.Oid, error) {
	if rc.DefaultBranch != "" {
		if oid, err := rc.Repo.Branch(ctx, rc.DefaultBranch); err == nil {
			return oid, nil
		}
	}
	_, oid, err := rc.Repo.Head(ctx)
	return oid, err
}

// gitError turns a storage failure into an answer: a missing object is the
// named 404, anything else a server error.
func gitError(err error, what string) error {
	if errors.Is(err, repository.ErrNotFound) {
		return notFound(what)
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return errorf(http.StatusInternalServerError, "500 Internal Server Error")
}

// CommitJSON is the spec's Commit resource.
type CommitJSON struct {
	ID               string              `json:"id"`
	ShortID          string              `json:"short_id"`
	CreatedAt        string              `json:"created_at"`
	ParentIDs        []string            `json:"parent_ids"`
	Title            string              `json:"title"`
	Message          string              `json:"message"`
	AuthorName       string              `json:"author_name"`
	AuthorEmail      string              `json:"author_email"`
	AuthoredDate     string              `json:"authored_date"`
	CommitterName    string              `json:"committer_name"`
	CommitterEmail   string              `json:"committer_email"`
	CommittedDate    string              `json:"committed_date"`
	Trailers         map[string]string   `json:"trailers"`
	ExtendedTrailers map[string][]string `json:"extended_trailers"`
	WebURL           string              `json:"web_url"`
	Stats            *StatsJSON          `json:"stats,omitempty"`
}

// StatsJSON is a commit's {additions, deletions, total}.
type StatsJSON struct {
	Additions int `json:"additions"`
	Deletions int `json:"deletions"`
	Total     int `json:"total"`
}

// CommitDetailJSON is a single commit: the commit with status, last_pipeline
// and the project it was read from.
type CommitDetailJSON struct {
	CommitJSON
	Status       *string       `json:"status"`
	LastPipeline *PipelineJSON `json:"last_pipeline"`
	ProjectID    int           `json:"project_id"`
}

// PipelineJSON is a commit's last_pipeline: the spec's {id, ref, sha,
// status}, as the platform's Entities::Ci::PipelineBasic renders it.
type PipelineJSON struct {
	ID        int    `json:"id"`
	IID       int    `json:"iid"`
	ProjectID int    `json:"project_id"`
	Ref       string `json:"ref"`
	SHA       string `json:"sha"`
	Status    string `json:"status"`
	Source    string `json:"source"`
	CreatedAt string `json:"created_at"`
	UpdatedAt string `json:"updated_at"`
	WebURL    string `json:"web_url"`
}

// gitTime formats a commit date as the platform does: milliseconds and the
// commit's own UTC offset.
func gitTime(t time.Time) string { return t.Format("2006-01-02T15:04:05.000-07:00") }

func (rc *repoCtx) commitJSON(c *repository.Commit, trailers bool) CommitJSON {
	parents := make([]string, len(c.Parents))
	for i, p := range c.Parents {
		parents[i] = string(p)
	}
	j := CommitJSON{ID: string(c.ID), ShortID: c.ID.Short(), ParentIDs: parents, Title: c.Title(), Message: c.Message,
		AuthorName: c.Author.Name, AuthorEmail: c.Author.Email, AuthoredDate: gitTime(c.Author.When),
		CommitterName: c.Committer.Name, CommitterEmail: c.Committer.Email, CommittedDate: gitTime(c.Committer.When),
		WebURL: rc.webBase + "/-/commit/" + string(c.ID), Trailers: map[string]string{}, ExtendedTrailers: map[string][]string{}}
	// The spec: created_at is always identical to committed_date.
	j.CreatedAt = j.CommittedDate
	if trailers {
		for _, kv := range repository.Trailers(c.Message) {
			j.Trailers[kv[0]] = kv[1] // a duplicated key keeps its last value
			j.ExtendedTrailers[kv[0]] = append(j.ExtendedTrailers[kv[0]], kv[1])
		}
	}
	return j
}

func statsJSON(s repository.Stats) *StatsJSON {
	return &StatsJSON{Additions: s.Additions, Deletions: s.Deletions, Total: s.Total()}
}

// commitDetail renders one commit with stats (when asked); status and
// last_pipeline stay null here (getCommit fills them from the store).
func (rc *repoCtx) commitDetail(ctx context.Context, c *repository.Commit, withStats bool) (CommitDetailJSON, error) {
	d := CommitDetailJSON{CommitJSON: rc.commitJSON(c, true), ProjectID: rc.ProjectID}
	if withStats {
		st, err := rc.Repo.StatsOf(ctx, []*repository.Commit{c})
		if err != nil {
			return d, err
		}
		d.Stats = statsJSON(st[c.ID])
	}
	return d, nil
}

// dropRepository forgets a deleted project's repository and commit comments
// (called under the store's lock; the files go in the background).
func (s *Server) dropRepository(d *store.Data, projectID int) {
	d.DropCommitComments(projectID)
	s.repos.Remove(projectID)
}
