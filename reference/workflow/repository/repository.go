// Package repository holds the platform's repository workflows on real git:
// a project's repository from creation to removal, the writes that move its
// refs (commits of files and actions, cherry-picks and reverts, branches and
// tags, pushes over smart HTTP) and the hooks that hear of every moved ref.
// It knows nothing of the API's HTTP: refusals are *Refusal values, git
// failures *Failure values, and the caller answers them (its one HTTP entry
// is git's own smart-HTTP transport, ServeSmartHTTP).
package repository

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/v4cert/v4cert/reference/git"
	"github.com/v4cert/v4cert/reference/store"
)

// Workflows are the repository workflows of one store: the repositories
// themselves (one real git repository per project) and the hooks that hear
// of every write.
type Workflows struct {
	store *store.Store
	repos *git.Manager
	// hooks hear of every ref a write moved (RefsMoved).
	hooksMu sync.Mutex
	hooks   []func(ctx context.Context, projectID int, moves []RefMove)
	// readmes are the READMEs of branches, as of their refs (ReadmeName).
	readmes readmeCache
}

// New opens the repositories under dir (empty: a temporary directory that
// Close removes) for the projects of st. Repositories are real git
// repositories: without git it fails.
func New(st *store.Store, dir string) (*Workflows, error) {
	if _, err := git.Check(); err != nil {
		return nil, err
	}
	var clock store.Clock
	st.Read(func(d *store.Data) error { clock = d.Now; return nil })
	return &Workflows{store: st, repos: git.NewManager(dir, clock)}, nil
}

// Now is the clock commits are dated by (the store's).
func (w *Workflows) Now() time.Time { return w.repos.Now() }

// Dir is where the repositories live.
func (w *Workflows) Dir() string { return w.repos.Dir() }

// Get is a project's repository; ErrNotFound when it has none.
func (w *Workflows) Get(projectID int) (*Repo, error) { return w.repos.Get(projectID) }

// Close releases the repositories' git processes and, when temporary, their directory.
func (w *Workflows) Close() error { return w.repos.Close() }

// Remove forgets a deleted project's repository (its files go in the background).
func (w *Workflows) Remove(projectID int) { w.repos.Remove(projectID) }

// RemoveAll removes every repository, for a reset (POST /-/reset).
func (w *Workflows) RemoveAll() error {
	w.forgetReadmes()
	return w.repos.RemoveAll()
}

// Snapshot copies a project's repository to dir, for a reset to restore.
func (w *Workflows) Snapshot(projectID int, dir string) error {
	return w.repos.Snapshot(projectID, dir)
}

// Restore gives a project the repository a Snapshot copied.
func (w *Workflows) Restore(projectID int, snapshot string) (*Repo, error) {
	return w.repos.Restore(projectID, snapshot)
}

// Target is a project's repository as one write sees it: what it needs of
// the project, read by the caller under the store's lock, and the repository
// itself, used after the lock is released (git commands must not hold up the
// store).
type Target struct {
	ProjectID     int
	DefaultBranch string
	Repo          *Repo
	// By is who writes: the committer of what the write commits.
	By *store.User
}

// Signature is the writer as a commit author or committer at now.
func (t *Target) Signature(now time.Time) Signature {
	return Signature{Name: t.By.Name, Email: t.By.Email, When: now}
}

// Create gives a new project its repository: empty, or with a README commit
// on the default branch (initialize_with_readme).
func (w *Workflows) Create(ctx context.Context, p *store.Project, creator *store.User, readme bool) error {
	_, err := w.repos.Ensure(p.ID, p.DefaultBranch, func(r *git.Repo) error {
		if !readme {
			return nil
		}
		return w.initialCommit(ctx, r, p, creator)
	})
	return err
}

// initialCommit is the README commit of initialize_with_readme.
func (w *Workflows) initialCommit(ctx context.Context, r *git.Repo, p *store.Project, creator *store.User) error {
	branch := p.DefaultBranch
	if branch == "" {
		branch = "main"
	}
	sig := git.Signature{Name: creator.Name, Email: creator.Email, When: w.repos.Now()}
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
// refs it moved have landed (old → new, ZeroOid for a ref created or
// deleted), outside the store's lock: git pushes over HTTP, file and commit
// writes, cherry-picks and reverts, branch and tag creation. It keeps the
// project's default branch (the first branch of an empty repository becomes
// the default, as on the platform) and then calls what other workflows
// registered with OnRefsMoved, in registration order.
func (w *Workflows) RefsMoved(ctx context.Context, projectID int, moves []RefMove) {
	if len(moves) == 0 {
		return
	}
	w.settleDefaultBranch(ctx, projectID, moves)
	w.hooksMu.Lock()
	hooks := w.hooks
	w.hooksMu.Unlock()
	for _, h := range hooks {
		h(ctx, projectID, moves)
	}
}

// OnRefsMoved registers fn to hear of every RefsMoved (merge-request
// versions, for one). fn runs on the writer's goroutine after the write
// landed; it must not block for long.
func (w *Workflows) OnRefsMoved(fn func(ctx context.Context, projectID int, moves []RefMove)) {
	w.hooksMu.Lock()
	defer w.hooksMu.Unlock()
	w.hooks = append(w.hooks, fn)
}

// settleDefaultBranch records that branches received commits: the project's
// repository is no longer empty, and when its default branch does not exist
// the first branch written becomes HEAD (and the default when none was set).
func (w *Workflows) settleDefaultBranch(ctx context.Context, projectID int, moves []RefMove) {
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
	repo, err := w.repos.Get(projectID)
	if err != nil {
		return
	}
	def := ""
	w.store.Read(func(d *store.Data) error {
		if p := d.Project(projectID); p != nil {
			def = p.DefaultBranch
		}
		return nil
	})
	if def != "" {
		if _, err := repo.Branch(ctx, def); err == nil {
			w.markNotEmpty(projectID, def)
			return
		}
	}
	if err := repo.SetHead(ctx, branch); err == nil {
		w.markNotEmpty(projectID, branch)
	}
}

// branchWritten is RefsMoved for one branch a write moved from old to new.
func (w *Workflows) branchWritten(ctx context.Context, t *Target, branch string, old, new git.Oid) {
	w.RefsMoved(ctx, t.ProjectID, []git.RefMove{{Ref: "refs/heads/" + branch, Old: old, New: new}})
}

func (w *Workflows) markNotEmpty(projectID int, branch string) {
	w.store.Write(func(d *store.Data) error {
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

// ServeSmartHTTP serves one git smart-HTTP exchange (clone, fetch or push) on a
// project's repository the caller was allowed to reach, then runs the hooks
// of every ref a push moved (RefsMoved), as any other write does. remoteUser
// is who pushes, for the repository's hooks. An error means the backend
// could not start and nothing was written.
func (w *Workflows) ServeSmartHTTP(rw http.ResponseWriter, r *http.Request, projectID int, service, remoteUser string) error {
	// Every project has its repository from the moment it is made, so a
	// fetch never creates one.
	repo, err := w.repos.Get(projectID)
	if err != nil {
		return failed("Repository", err)
	}
	moves, err := repo.ServeSmartHTTP(rw, r, service, remoteUser)
	if err != nil {
		return failed("Repository", err)
	}
	w.RefsMoved(r.Context(), projectID, moves)
	return nil
}
