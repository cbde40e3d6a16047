// Package mergerequests holds the platform's merge-request workflows on real
// git: versions and mergeability computed whenever a branch moves (whoever
// moves it: the API's writes, a push over smart HTTP, a merge), diffs under
// the diff limits, and merges that write real merge commits, squash or
// fast-forward. It knows nothing of HTTP: what a merge refuses is a sentinel
// error (ErrNotMergeable, ErrCannotMerge) or a *SHAMismatchError, git
// failures are *repository.Failure values.
package mergerequests

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"
	"sync"

	"github.com/v4cert/v4cert/reference/git"
	"github.com/v4cert/v4cert/reference/store"
	"github.com/v4cert/v4cert/reference/workflow/repository"
)

// Merge requests on real git: versions and mergeability computed from the
// repository whenever a branch moves, diffs between two commits under the
// diff limits, and merges that write real merge commits or fast-forward.

// Diff limits (Limits: merge request diffs are subject to diff size limits).
// The numbers are the platform's defaults: at most 1,000 files and 50,000
// lines per diff (past either the diff is cut there and overflow is true),
// and 200 KiB per file patch (a larger one is shown empty with too_large).
// access_raw_diffs=true reads the diff with no limit at all.
const (
	MaxFiles      = 1000
	MaxLines      = 50000
	MaxPatchBytes = 200 << 10
)

// Workflows are the merge-request workflows of one store and its
// repositories. Beside the store they keep one lock per project serialising
// refreshes with creations, and caches of results that depend on commit
// names alone (commits never change).
type Workflows struct {
	store *store.Store
	repos *repository.Workflows

	mu     sync.Mutex
	locks  map[int]*sync.Mutex
	checks map[string]store.MergeCheck // project:target:source
	diffs  map[string][]File           // project:from:to
	bases  map[string]git.Oid          // project:a:b, the merge base
}

// New builds the merge-request workflows over st and repos, and makes merge
// requests follow their branches whoever moves them (repos' OnRefsMoved).
func New(st *store.Store, repos *repository.Workflows) *Workflows {
	w := &Workflows{store: st, repos: repos}
	repos.OnRefsMoved(w.followRefs)
	return w
}

// maxCached bounds each cache; a full cache is dropped whole.
const maxCached = 512

// Lock is the project's merge-request lock: creating, retargeting or
// reopening a merge request holds it while git compares its branches, so a
// refresh does not interleave.
func (m *Workflows) Lock(projectID int) *sync.Mutex {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.locks == nil {
		m.locks = map[int]*sync.Mutex{}
	}
	l := m.locks[projectID]
	if l == nil {
		l = &sync.Mutex{}
		m.locks[projectID] = l
	}
	return l
}

func (m *Workflows) cachedCheck(key string) (store.MergeCheck, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c, ok := m.checks[key]
	return c, ok
}

func (m *Workflows) rememberCheck(key string, c store.MergeCheck) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.checks == nil || len(m.checks) >= maxCached {
		m.checks = map[string]store.MergeCheck{}
	}
	m.checks[key] = c
}

func (m *Workflows) cachedDiff(key string) ([]File, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	f, ok := m.diffs[key]
	return f, ok
}

func (m *Workflows) rememberDiff(key string, f []File) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.diffs == nil || len(m.diffs) >= maxCached {
		m.diffs = map[string][]File{}
	}
	m.diffs[key] = f
}

// mergeBase is git merge-base of a and b, remembered: both commits never change.
func (s *Workflows) mergeBase(ctx context.Context, projectID int, r *git.Repo, a, b git.Oid) (git.Oid, error) {
	key := fmt.Sprintf("%d:%s:%s", projectID, a, b)
	s.mu.Lock()
	base, ok := s.bases[key]
	s.mu.Unlock()
	if ok {
		return base, nil
	}
	base, err := r.MergeBase(ctx, a, b)
	if err != nil {
		return "", err
	}
	s.mu.Lock()
	if s.bases == nil || len(s.bases) >= maxCached {
		s.bases = map[string]git.Oid{}
	}
	s.bases[key] = base
	s.mu.Unlock()
	return base, nil
}

// File is one changed file of a merge request diff.
type File struct {
	git.FileDiff
	Generated bool
	Lines     int
}

// generatedNames are files the platform treats as generated without being
// told: lock files of package managers, minified assets, source maps and
// protocol-buffer output. The gitlab-generated attribute overrides this
// either way.
var generatedNames = []string{"package-lock.json", "yarn.lock", "pnpm-lock.yaml", "Gemfile.lock", "go.sum",
	"Cargo.lock", "composer.lock", "poetry.lock", "Pipfile.lock", "*.min.js", "*.min.css", "*.map", "*.pb.go", "*_pb2.py"}

func generatedByName(p string) bool {
	base := path.Base(p)
	for _, pat := range generatedNames {
		if ok, _ := path.Match(pat, base); ok {
			return true
		}
	}
	return false
}

// Diff is the full diff from one commit to another (a version's base and
// head) with generated_file from the head's .gitattributes (gitlab-generated)
// and the built-in names; unified adds the ---/+++ lines.
func (s *Workflows) Diff(ctx context.Context, projectID int, r *git.Repo, from, to git.Oid, unified bool) ([]File, error) {
	key := fmt.Sprintf("%d:%s:%s:%t", projectID, from, to, unified)
	if f, ok := s.cachedDiff(key); ok {
		return f, nil
	}
	diffs, err := r.DiffCommits(ctx, from, to, unified)
	if err != nil {
		return nil, err
	}
	paths := make([]string, 0, len(diffs))
	for _, d := range diffs {
		paths = append(paths, d.NewPath)
	}
	attrs, err := r.Attribute(ctx, to, "gitlab-generated", paths)
	if err != nil {
		return nil, err
	}
	files := make([]File, len(diffs))
	for i, d := range diffs {
		gen := generatedByName(d.NewPath)
		switch attrs[d.NewPath] {
		case "set", "true":
			gen = true
		case "unset", "false":
			gen = false
		}
		files[i] = File{FileDiff: d, Generated: gen, Lines: strings.Count(d.Patch, "\n")}
	}
	s.rememberDiff(key, files)
	return files, nil
}

// LimitDiff applies the diff limits: the files up to the first that would
// pass 1,000 files or 50,000 lines, and whether any were left out. raw
// (access_raw_diffs) applies none.
func LimitDiff(files []File, raw bool) ([]File, bool) {
	if raw {
		return files, false
	}
	lines := 0
	for i, f := range files {
		if i >= MaxFiles || lines+f.Lines > MaxLines {
			return files[:i], true
		}
		lines += f.Lines
	}
	return files, false
}

// computeVersion builds the diff version of source against target as they
// stand: base is their merge base, head the source, start the target.
func (s *Workflows) computeVersion(ctx context.Context, projectID int, r *git.Repo, source, target, base git.Oid) (*store.MRVersion, error) {
	commits, err := r.Range(ctx, base, source)
	if err != nil {
		return nil, err
	}
	files, err := s.Diff(ctx, projectID, r, base, source, false)
	if err != nil {
		return nil, err
	}
	patchID, err := r.PatchID(ctx, base, source)
	if err != nil {
		return nil, err
	}
	kept, overflow := LimitDiff(files, false)
	v := &store.MRVersion{HeadSHA: string(source), BaseSHA: string(base), StartSHA: string(target),
		State: store.VersionCollected, RealSize: strconv.Itoa(len(kept)), PatchIDSHA: patchID}
	switch {
	case len(files) == 0:
		v.State = store.VersionWithoutFiles
	case overflow:
		v.State, v.RealSize = store.VersionOverflow, v.RealSize+"+"
	}
	for _, c := range commits {
		v.Commits = append(v.Commits, string(c))
	}
	return v, nil
}

// checkMerge is the mergeability of source into target: a real three-way
// merge (`merge-tree`), whether the target is in the source's history (so a
// fast-forward is possible) and how many target commits the source lacks.
func (s *Workflows) checkMerge(ctx context.Context, projectID int, r *git.Repo, source, target git.Oid) (store.MergeCheck, error) {
	key := fmt.Sprintf("%d:%s:%s", projectID, target, source)
	if c, ok := s.cachedCheck(key); ok {
		return c, nil
	}
	c := store.MergeCheck{Source: string(source), Target: string(target), Status: store.MergeCanBeMerged}
	_, conflict, _, err := r.MergeCommits(ctx, target, source)
	if errors.Is(err, git.ErrUnrelated) {
		conflict, err = true, nil
	}
	if err != nil {
		return c, err
	}
	if conflict {
		c.Conflicts, c.Status = true, store.MergeCannotBeMerged
	}
	// The target is in the source's history exactly when it is their merge base.
	base, err := s.mergeBase(ctx, projectID, r, source, target)
	if err != nil && !errors.Is(err, git.ErrUnrelated) {
		return c, err
	}
	c.FastForward = base == target
	if !c.FastForward {
		if c.Diverged, err = r.CountRange(ctx, source, target); err != nil {
			return c, err
		}
	}
	s.rememberCheck(key, c)
	return c, nil
}

// BranchHeads resolves the source and target branches; a missing one is "".
func BranchHeads(ctx context.Context, r *git.Repo, source, target string) (git.Oid, git.Oid, error) {
	src, err := r.Branch(ctx, source)
	if err != nil && !errors.Is(err, git.ErrNotFound) {
		return "", "", err
	}
	tgt, err := r.Branch(ctx, target)
	if err != nil && !errors.Is(err, git.ErrNotFound) {
		return "", "", err
	}
	return src, tgt, nil
}

// State is what a comparison computed for one merge request.
type State struct {
	Version *store.MRVersion // nil: the source did not move
	Check   store.MergeCheck
}

// Evaluate computes a merge request's new version (when the source head
// differs from its latest version's head, or always with force) and its
// mergeability at the branches' current heads.
func (s *Workflows) Evaluate(ctx context.Context, projectID int, r *git.Repo, source, target, lastHead string, force bool) (State, error) {
	var st State
	src, tgt, err := BranchHeads(ctx, r, source, target)
	if err != nil {
		return st, err
	}
	if src == "" || tgt == "" {
		st.Check = store.MergeCheck{Source: string(src), Target: string(tgt), Status: store.MergeCannotBeMerged, BranchMissing: true}
		return st, nil
	}
	if force || string(src) != lastHead {
		base, err := s.mergeBase(ctx, projectID, r, src, tgt)
		if err != nil {
			return st, err
		}
		if st.Version, err = s.computeVersion(ctx, projectID, r, src, tgt, base); err != nil {
			return st, err
		}
	}
	st.Check, err = s.checkMerge(ctx, projectID, r, src, tgt)
	return st, err
}

// followRefs is the merge requests' RefsMoved hook: a branch moved by any
// write (the API's, or a git push over HTTP) brings the open merge requests
// on it up to date before the writer answers.
func (s *Workflows) followRefs(ctx context.Context, projectID int, moves []git.RefMove) {
	var branches []string
	for _, m := range moves {
		if b, ok := strings.CutPrefix(m.Ref, "refs/heads/"); ok {
			branches = append(branches, b)
		}
	}
	if len(branches) == 0 {
		return
	}
	r, err := s.repos.Get(projectID)
	if err != nil {
		return
	}
	s.Refresh(ctx, projectID, r, branches...)
}

// Refresh brings the open merge requests whose source or target
// is one of branches up to date after those branches moved: a new version
// when the source moved (older versions keep their SHAs) and a new
// mergeability check. Git runs outside the store's lock; the results are
// recorded only for merge requests that did not change meanwhile.
func (s *Workflows) Refresh(ctx context.Context, projectID int, r *git.Repo, branches ...string) {
	l := s.Lock(projectID)
	l.Lock()
	defer l.Unlock()
	s.RefreshLocked(ctx, projectID, r, branches...)
}

// RefreshLocked is Refresh for a caller that holds the project's Lock.
func (s *Workflows) RefreshLocked(ctx context.Context, projectID int, r *git.Repo, branches ...string) {
	type snap struct {
		id, iid, latest        int
		source, target, head   string
		checkedSrc, checkedTgt string
	}
	var snaps []snap
	s.store.Read(func(d *store.Data) error {
		seen := map[int]bool{}
		for _, b := range branches {
			for _, mr := range d.OpenMergeRequestsOn(projectID, b) {
				if seen[mr.ID] {
					continue
				}
				seen[mr.ID] = true
				sn := snap{id: mr.ID, iid: mr.IID, source: mr.SourceBranch, target: mr.TargetBranch,
					checkedSrc: mr.Check.Source, checkedTgt: mr.Check.Target}
				if v := mr.Latest(); v != nil {
					sn.latest, sn.head = v.ID, v.HeadSHA
				}
				snaps = append(snaps, sn)
			}
		}
		return nil
	})
	if len(snaps) == 0 {
		return
	}
	results := make([]State, len(snaps))
	ok := make([]bool, len(snaps))
	for i, sn := range snaps {
		st, err := s.Evaluate(ctx, projectID, r, sn.source, sn.target, sn.head, false)
		if err != nil {
			continue // the previous state stays; the next move checks again
		}
		results[i], ok[i] = st, true
	}
	s.store.Write(func(d *store.Data) error {
		for i, sn := range snaps {
			mr := d.MergeRequest(sn.id)
			if !ok[i] || mr == nil || !mr.Open() || mr.SourceBranch != sn.source || mr.TargetBranch != sn.target {
				continue
			}
			if latest := mr.Latest(); latest != nil && latest.ID != sn.latest {
				continue
			}
			d.AddVersion(mr, results[i].Version, results[i].Check)
		}
		return nil
	})
	for i, sn := range snaps {
		if ok[i] && results[i].Version != nil {
			r.SetRef(ctx, HeadRef(sn.iid), git.Oid(results[i].Version.HeadSHA))
		}
	}
}

// HeadRef keeps a merge request's latest head reachable, as the platform's
// refs/merge-requests/<iid>/head does, so every version's commits stay.
func HeadRef(iid int) string { return "refs/merge-requests/" + strconv.Itoa(iid) + "/head" }

// Outcome is what a merge wrote.
type Outcome struct {
	MergeCommit, SquashCommit string
	RemovedSource             bool
}

// What a merge refuses (rules merge_requests.merge.*).
var (
	// ErrNotMergeable is a merge request that cannot merge now: not open,
	// a draft, blocked (the platform's 405).
	ErrNotMergeable = errors.New("merge request cannot be merged now")
	// ErrCannotMerge is a merge whose git state refuses it (conflicting,
	// needing a rebase) or that failed while writing: the branches clashed,
	// or the target moved meanwhile (the platform's 422).
	ErrCannotMerge = errors.New("branch cannot be merged")
)

// SHAMismatchError is a merge whose sha guard is not the source branch's
// head (the platform's 409).
type SHAMismatchError struct{ Head string }

func (e *SHAMismatchError) Error() string {
	return "SHA does not match HEAD of source branch: " + e.Head
}

// Merge is what a merge needs of a merge request, read under the store's lock.
type Merge struct {
	ProjectID            int
	Title, Ref           string // Ref: the merge request's reference, group/project!iid
	Source, Target       string
	Method               string // the project's merge method
	Squash, RemoveSource bool
	Author               git.Signature
	MergeMsg, SquashMsg  *string
	SHA                  *string
}

// MergeBranches does the git part of PUT .../merge: with the repository's
// write lock held, the heads are read, the sha guard and mergeability
// checked, the squash commit, the merge commit (two parents) or the
// fast-forward written, and the target moved by compare-and-swap; then the
// source branch is removed when asked.
func (s *Workflows) MergeBranches(ctx context.Context, t *repository.Target, m Merge, merger git.Signature) (Outcome, error) {
	var out Outcome
	r := t.Repo
	r.Lock()
	defer r.Unlock()
	src, tgt, err := BranchHeads(ctx, r, m.Source, m.Target)
	if err != nil {
		return out, failed("Branch", err)
	}
	if src == "" || tgt == "" {
		return out, ErrNotMergeable
	}
	check, err := s.checkMerge(ctx, m.ProjectID, r, src, tgt)
	if err != nil {
		return out, failed("Commit", err)
	}
	ffOnly := m.Method == store.MergeMethodFF || m.Method == store.MergeMethodRebaseMerge
	if check.Conflicts || (ffOnly && !check.FastForward) {
		// The platform's git-state checks (conflict, need_rebase) are not
		// among its mergeable_state_checks: mergeable_state? passes and
		// mergeable? fails, so the route answers 422 'Branch cannot be
		// merged', before the sha guard (pavankalisetti009/gitlab
		// lib/api/merge_requests.rb @018badf3; app/models/merge_request.rb,
		// mergeable_git_state_checks).
		return out, ErrCannotMerge
	}
	if m.SHA != nil && *m.SHA != string(src) {
		return out, &SHAMismatchError{Head: string(src)}
	}
	head := src
	if m.Squash {
		base, err := s.mergeBase(ctx, m.ProjectID, r, src, tgt)
		if err != nil {
			return out, failed("Commit", err)
		}
		hc, err := r.Commit(ctx, src)
		if err != nil {
			return out, failed("Commit", err)
		}
		msg := m.Title
		if m.SquashMsg != nil && *m.SquashMsg != "" {
			msg = *m.SquashMsg
		}
		if head, err = r.CommitTree(ctx, hc.Tree, []git.Oid{base}, ensureNewline(msg), m.Author, merger); err != nil {
			return out, failed("Commit", err)
		}
		out.SquashCommit = string(head)
	}
	next := head
	if m.Method != store.MergeMethodFF {
		tree, clash, _, err := r.MergeCommits(ctx, tgt, head)
		if err != nil {
			return out, failed("Commit", err)
		}
		if clash {
			return out, ErrCannotMerge
		}
		msg := fmt.Sprintf("Merge branch '%s' into '%s'\n\n%s\n\nSee merge request %s\n", m.Source, m.Target, m.Title, m.Ref)
		if m.MergeMsg != nil && *m.MergeMsg != "" {
			msg = ensureNewline(*m.MergeMsg)
		}
		if next, err = r.CommitTree(ctx, tree, []git.Oid{tgt, head}, msg, merger, merger); err != nil {
			return out, failed("Commit", err)
		}
		out.MergeCommit = string(next)
	}
	if err := r.UpdateRef(ctx, "refs/heads/"+m.Target, next, tgt); err != nil {
		if errors.Is(err, git.ErrStale) {
			return out, ErrCannotMerge
		}
		return out, failed("Branch", err)
	}
	if m.RemoveSource && m.Source != t.DefaultBranch {
		out.RemovedSource = r.DeleteRef(ctx, "refs/heads/"+m.Source, src) == nil
	}
	return out, nil
}

func ensureNewline(s string) string {
	if strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n"
}

// Forget empties the caches of diffs and mergeability
// checks, so benchmarks can measure the path a first read takes.
func (s *Workflows) Forget() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.diffs, s.checks, s.bases = nil, nil, nil
}

func failed(object string, err error) *repository.Failure {
	return &repository.Failure{Object: object, Err: err}
}
