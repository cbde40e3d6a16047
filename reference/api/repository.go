package api

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"v4cert/reference/access"
	"v4cert/reference/git"
	"v4cert/reference/store"
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

// Repositories returns the repository storage (tests and benchmarks look inside).
func (s *Server) Repositories() *git.Manager { return s.repos }

// repoCtx is a project's repository as one request sees it: what it needs of
// the project, read under the store's lock, and the repository itself, used
// after the lock is released (git commands must not hold up the store).
type repoCtx struct {
	ProjectID     int
	FullPath      string
	DefaultBranch string
	Repo          *git.Repo
	webBase       string
	caller        *store.User
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
	rc := &repoCtx{caller: c.Caller}
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

// CreateRepository gives a new project its repository: empty, or with a
// README commit on the default branch (initialize_with_readme).
func (s *Server) CreateRepository(ctx context.Context, p *store.Project, creator *store.User, readme bool) error {
	_, err := s.repos.Ensure(p.ID, p.DefaultBranch, func(r *git.Repo) error {
		if !readme {
			return nil
		}
		return s.initialCommit(ctx, r, p, creator)
	})
	return err
}

// initialCommit is the README commit of initialize_with_readme.
func (s *Server) initialCommit(ctx context.Context, r *git.Repo, p *store.Project, creator *store.User) error {
	branch := p.DefaultBranch
	if branch == "" {
		branch = "main"
	}
	sig := git.Signature{Name: creator.Name, Email: creator.Email, When: s.repos.Now()}
	tree, err := r.ApplyActions(ctx, "", []git.Action{{Kind: "create", Path: "README.md", HasContent: true,
		Content: []byte("# " + p.Name + "\n")}})
	if err != nil {
		return err
	}
	commit, err := r.CommitTree(ctx, tree, nil, "Initial commit", sig, sig)
	if err != nil {
		return err
	}
	return r.UpdateRef(ctx, "refs/heads/"+branch, commit, git.ZeroOid)
}

// RefsMoved is what every write to a project's repository calls once the
// refs it moved have landed (old → new, git.ZeroOid for a ref created or
// deleted), outside the store's lock: git pushes over HTTP, file and commit
// writes, cherry-picks and reverts, branch and tag creation. It keeps the
// project's default branch (the first branch of an empty repository becomes
// the default, as on the platform) and then calls what other areas
// registered with OnRefsMoved, in registration order.
func (s *Server) RefsMoved(ctx context.Context, projectID int, moves []git.RefMove) {
	if len(moves) == 0 {
		return
	}
	s.settleDefaultBranch(ctx, projectID, moves)
	s.refHooksMu.Lock()
	hooks := s.refHooks
	s.refHooksMu.Unlock()
	for _, h := range hooks {
		h(ctx, projectID, moves)
	}
}

// OnRefsMoved registers fn to hear of every RefsMoved (merge-request
// versions, for one). fn runs on the writer's goroutine after the write
// landed; it must not block for long.
func (s *Server) OnRefsMoved(fn func(ctx context.Context, projectID int, moves []git.RefMove)) {
	s.refHooksMu.Lock()
	defer s.refHooksMu.Unlock()
	s.refHooks = append(s.refHooks, fn)
}

// settleDefaultBranch records that branches received commits: the project's
// repository is no longer empty, and when its default branch does not exist
// the first branch written becomes HEAD (and the default when none was set).
func (s *Server) settleDefaultBranch(ctx context.Context, projectID int, moves []git.RefMove) {
	branch := ""
	for _, m := range moves {
		if name, ok := strings.CutPrefix(m.Ref, "refs/heads/"); ok && m.New != git.ZeroOid {
			branch = name
			break
		}
	}
	if branch == "" {
		return
	}
	repo, err := s.repos.Get(projectID)
	if err != nil {
		return
	}
	def := ""
	s.store.Read(func(d *store.Data) error {
		if p := d.Project(projectID); p != nil {
			def = p.DefaultBranch
		}
		return nil
	})
	if def != "" {
		if _, err := repo.Branch(ctx, def); err == nil {
			s.markNotEmpty(projectID, def)
			return
		}
	}
	if err := repo.SetHead(ctx, branch); err == nil {
		s.markNotEmpty(projectID, branch)
	}
}

// branchWritten is RefsMoved for one branch an API write moved from old to new.
func (s *Server) branchWritten(ctx context.Context, rc *repoCtx, branch string, old, new git.Oid) {
	s.RefsMoved(ctx, rc.ProjectID, []git.RefMove{{Ref: "refs/heads/" + branch, Old: old, New: new}})
}

func (s *Server) markNotEmpty(projectID int, branch string) {
	s.store.Write(func(d *store.Data) error {
		if p := d.Project(projectID); p != nil && (p.EmptyRepo || p.DefaultBranch == "") {
			d.Touch(p)
			p.EmptyRepo = false
			if p.DefaultBranch == "" {
				p.DefaultBranch = branch
			}
		}
		return nil
	})
}

// signature is the caller as a commit author or committer.
func (rc *repoCtx) signature(now time.Time) git.Signature {
	return git.Signature{Name: rc.caller.Name, Email: rc.caller.Email, When: now}
}

// headOf resolves the project's HEAD: its default branch.
func (rc *repoCtx) head(ctx context.Context) (git.Oid, error) {
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
	if errors.Is(err, git.ErrNotFound) {
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

// PipelineJSON is a commit's last_pipeline {id, ref, sha, status}.
type PipelineJSON struct {
	ID     int    `json:"id"`
	Ref    string `json:"ref"`
	SHA    string `json:"sha"`
	Status string `json:"status"`
}

// gitTime formats a commit date as the platform does: milliseconds and the
// commit's own UTC offset.
func gitTime(t time.Time) string { return t.Format("2006-01-02T15:04:05.000-07:00") }

func (rc *repoCtx) commitJSON(c *git.Commit, trailers bool) CommitJSON {
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
		for _, kv := range git.Trailers(c.Message) {
			j.Trailers[kv[0]] = kv[1] // a duplicated key keeps its last value
			j.ExtendedTrailers[kv[0]] = append(j.ExtendedTrailers[kv[0]], kv[1])
		}
	}
	return j
}

func statsJSON(s git.Stats) *StatsJSON {
	return &StatsJSON{Additions: s.Additions, Deletions: s.Deletions, Total: s.Total()}
}

// commitDetail renders one commit with stats (when asked), status and
// last_pipeline (null: pipelines do not exist in the reference yet).
func (rc *repoCtx) commitDetail(ctx context.Context, c *git.Commit, withStats bool) (CommitDetailJSON, error) {
	d := CommitDetailJSON{CommitJSON: rc.commitJSON(c, true), ProjectID: rc.ProjectID}
	if withStats {
		st, err := rc.Repo.StatsOf(ctx, []*git.Commit{c})
		if err != nil {
			return d, err
		}
		d.Stats = statsJSON(st[c.ID])
	}
	return d, nil
}

// validBranchName is a branch name git accepts, for the 400s of writes.
func validBranchName(name string) bool {
	return git.ValidRefName(name) && !strings.HasPrefix(name, "refs/")
}

// dropRepository forgets a deleted project's repository and commit comments
// (called under the store's lock; the files go in the background).
func (s *Server) dropRepository(d *store.Data, projectID int) {
	d.DropCommitComments(projectID)
	s.repos.Remove(projectID)
}
