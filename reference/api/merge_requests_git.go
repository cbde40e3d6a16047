package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"path"
	"strconv"
	"strings"
	"sync"

	"v4cert/reference/git"
	"v4cert/reference/store"
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
	diffMaxFiles      = 1000
	diffMaxLines      = 50000
	diffMaxPatchBytes = 200 << 10
)

// mrRuntime is what the server keeps beside the store for merge requests:
// one lock per project serialising refreshes with creations, and caches of
// results that depend on commit names alone (commits never change).
type mrRuntime struct {
	mu     sync.Mutex
	locks  map[int]*sync.Mutex
	checks map[string]store.MergeCheck // project:target:source
	diffs  map[string][]mrFile         // project:from:to
	bases  map[string]git.Oid          // project:a:b, the merge base
}

// maxCached bounds each cache; a full cache is dropped whole.
const maxCached = 512

func (m *mrRuntime) lock(projectID int) *sync.Mutex {
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

func (m *mrRuntime) cachedCheck(key string) (store.MergeCheck, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c, ok := m.checks[key]
	return c, ok
}

func (m *mrRuntime) rememberCheck(key string, c store.MergeCheck) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.checks == nil || len(m.checks) >= maxCached {
		m.checks = map[string]store.MergeCheck{}
	}
	m.checks[key] = c
}

func (m *mrRuntime) cachedDiff(key string) ([]mrFile, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	f, ok := m.diffs[key]
	return f, ok
}

func (m *mrRuntime) rememberDiff(key string, f []mrFile) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.diffs == nil || len(m.diffs) >= maxCached {
		m.diffs = map[string][]mrFile{}
	}
	m.diffs[key] = f
}

// mergeBase is git merge-base of a and b, remembered: both commits never change.
func (s *Server) mergeBase(ctx context.Context, projectID int, r *git.Repo, a, b git.Oid) (git.Oid, error) {
	key := fmt.Sprintf("%d:%s:%s", projectID, a, b)
	s.mr.mu.Lock()
	base, ok := s.mr.bases[key]
	s.mr.mu.Unlock()
	if ok {
		return base, nil
	}
	base, err := r.MergeBase(ctx, a, b)
	if err != nil {
		return "", err
	}
	s.mr.mu.Lock()
	if s.mr.bases == nil || len(s.mr.bases) >= maxCached {
		s.mr.bases = map[string]git.Oid{}
	}
	s.mr.bases[key] = base
	s.mr.mu.Unlock()
	return base, nil
}

// mrFile is one changed file of a merge request diff.
type mrFile struct {
	git.FileDiff
	Generated bool
	Lines     int
}

// MRDiffJSON is a diff entry of merge request diffs, changes and versions:
// the commit diff entry plus generated_file, collapsed and too_large.
type MRDiffJSON struct {
	OldPath       string `json:"old_path"`
	NewPath       string `json:"new_path"`
	AMode         string `json:"a_mode"`
	BMode         string `json:"b_mode"`
	Diff          string `json:"diff"`
	NewFile       bool   `json:"new_file"`
	RenamedFile   bool   `json:"renamed_file"`
	DeletedFile   bool   `json:"deleted_file"`
	GeneratedFile bool   `json:"generated_file"`
	Collapsed     bool   `json:"collapsed"`
	TooLarge      bool   `json:"too_large"`
}

func (f mrFile) json() MRDiffJSON {
	j := MRDiffJSON{OldPath: f.OldPath, NewPath: f.NewPath, AMode: gitMode(f.AMode), BMode: gitMode(f.BMode), Diff: f.Patch,
		NewFile: f.NewFile, RenamedFile: f.Renamed, DeletedFile: f.Deleted, GeneratedFile: f.Generated}
	if len(f.Patch) > diffMaxPatchBytes {
		j.Diff, j.TooLarge = "", true
	}
	return j
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

// mrDiff is the full diff from one commit to another (a version's base and
// head) with generated_file from the head's .gitattributes (gitlab-generated)
// and the built-in names; unified adds the ---/+++ lines.
func (s *Server) mrDiff(ctx context.Context, projectID int, r *git.Repo, from, to git.Oid, unified bool) ([]mrFile, error) {
	key := fmt.Sprintf("%d:%s:%s:%t", projectID, from, to, unified)
	if f, ok := s.mr.cachedDiff(key); ok {
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
	files := make([]mrFile, len(diffs))
	for i, d := range diffs {
		gen := generatedByName(d.NewPath)
		switch attrs[d.NewPath] {
		case "set", "true":
			gen = true
		case "unset", "false":
			gen = false
		}
		files[i] = mrFile{FileDiff: d, Generated: gen, Lines: strings.Count(d.Patch, "\n")}
	}
	s.mr.rememberDiff(key, files)
	return files, nil
}

// limitDiff applies the diff limits: the files up to the first that would
// pass 1,000 files or 50,000 lines, and whether any were left out. raw
// (access_raw_diffs) applies none.
func limitDiff(files []mrFile, raw bool) ([]mrFile, bool) {
	if raw {
		return files, false
	}
	lines := 0
	for i, f := range files {
		if i >= diffMaxFiles || lines+f.Lines > diffMaxLines {
			return files[:i], true
		}
		lines += f.Lines
	}
	return files, false
}

// computeVersion builds the diff version of source against target as they
// stand: base is their merge base, head the source, start the target.
func (s *Server) computeVersion(ctx context.Context, projectID int, r *git.Repo, source, target, base git.Oid) (*store.MRVersion, error) {
	commits, err := r.Range(ctx, base, source)
	if err != nil {
		return nil, err
	}
	files, err := s.mrDiff(ctx, projectID, r, base, source, false)
	if err != nil {
		return nil, err
	}
	patchID, err := r.PatchID(ctx, base, source)
	if err != nil {
		return nil, err
	}
	kept, overflow := limitDiff(files, false)
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
func (s *Server) checkMerge(ctx context.Context, projectID int, r *git.Repo, source, target git.Oid) (store.MergeCheck, error) {
	key := fmt.Sprintf("%d:%s:%s", projectID, target, source)
	if c, ok := s.mr.cachedCheck(key); ok {
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
	s.mr.rememberCheck(key, c)
	return c, nil
}

// branchHeads resolves the source and target branches; a missing one is "".
func branchHeads(ctx context.Context, r *git.Repo, source, target string) (git.Oid, git.Oid, error) {
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

// mrState is what a refresh computed for one merge request.
type mrState struct {
	version *store.MRVersion // nil: the source did not move
	check   store.MergeCheck
}

// evaluate computes a merge request's new version (when the source head
// differs from its latest version's head, or always with force) and its
// mergeability at the branches' current heads.
func (s *Server) evaluate(ctx context.Context, projectID int, r *git.Repo, source, target, lastHead string, force bool) (mrState, error) {
	var st mrState
	src, tgt, err := branchHeads(ctx, r, source, target)
	if err != nil {
		return st, err
	}
	if src == "" || tgt == "" {
		st.check = store.MergeCheck{Source: string(src), Target: string(tgt), Status: store.MergeCannotBeMerged, BranchMissing: true}
		return st, nil
	}
	if force || string(src) != lastHead {
		base, err := s.mergeBase(ctx, projectID, r, src, tgt)
		if err != nil {
			return st, err
		}
		if st.version, err = s.computeVersion(ctx, projectID, r, src, tgt, base); err != nil {
			return st, err
		}
	}
	st.check, err = s.checkMerge(ctx, projectID, r, src, tgt)
	return st, err
}

// followRefs is the merge requests' RefsMoved hook: a branch moved by any
// write (the API's, or a git push over HTTP) brings the open merge requests
// on it up to date before the writer answers.
func (s *Server) followRefs(ctx context.Context, projectID int, moves []git.RefMove) {
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
	s.refreshMergeRequests(ctx, projectID, r, branches...)
}

// refreshMergeRequests brings the open merge requests whose source or target
// is one of branches up to date after those branches moved: a new version
// when the source moved (older versions keep their SHAs) and a new
// mergeability check. Git runs outside the store's lock; the results are
// recorded only for merge requests that did not change meanwhile.
func (s *Server) refreshMergeRequests(ctx context.Context, projectID int, r *git.Repo, branches ...string) {
	l := s.mr.lock(projectID)
	l.Lock()
	defer l.Unlock()
	s.refreshLocked(ctx, projectID, r, branches...)
}

func (s *Server) refreshLocked(ctx context.Context, projectID int, r *git.Repo, branches ...string) {
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
	results := make([]mrState, len(snaps))
	ok := make([]bool, len(snaps))
	for i, sn := range snaps {
		st, err := s.evaluate(ctx, projectID, r, sn.source, sn.target, sn.head, false)
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
			d.AddVersion(mr, results[i].version, results[i].check)
		}
		return nil
	})
	for i, sn := range snaps {
		if ok[i] && results[i].version != nil {
			r.SetRef(ctx, mrHeadRef(sn.iid), git.Oid(results[i].version.HeadSHA))
		}
	}
}

// mrHeadRef keeps a merge request's latest head reachable, as the platform's
// refs/merge-requests/<iid>/head does, so every version's commits stay.
func mrHeadRef(iid int) string { return "refs/merge-requests/" + strconv.Itoa(iid) + "/head" }

// mergeOutcome is what a merge wrote.
type mergeOutcome struct {
	mergeCommit, squashCommit string
	removedSource             bool
}

// mergeNotAllowed is the platform's 405 for a merge request that cannot merge
// now (not open, a draft, blocked, conflicting, needing a rebase); a failed
// sha guard is 409 and a merge that fails while writing 422.
func mergeNotAllowed() *Error { return methodNotAllowed("") }

// mergeRequestGit is what a merge needs of a merge request, read under the store's lock.
type mergeRequestGit struct {
	projectID            int
	title, ref           string
	source, target       string
	method               string
	squash, removeSource bool
	author               git.Signature
	mergeMsg, squashMsg  *string
	sha                  *string
}

// mergeBranches does the git part of PUT .../merge: with the repository's
// write lock held, the heads are read, the sha guard and mergeability
// checked, the squash commit, the merge commit (two parents) or the
// fast-forward written, and the target moved by compare-and-swap; then the
// source branch is removed when asked.
func (s *Server) mergeBranches(ctx context.Context, rc *repoCtx, m mergeRequestGit, merger git.Signature) (mergeOutcome, error) {
	var out mergeOutcome
	r := rc.Repo
	r.Lock()
	defer r.Unlock()
	src, tgt, err := branchHeads(ctx, r, m.source, m.target)
	if err != nil {
		return out, gitError(err, "Branch")
	}
	if src == "" || tgt == "" {
		return out, mergeNotAllowed()
	}
	check, err := s.checkMerge(ctx, m.projectID, r, src, tgt)
	if err != nil {
		return out, gitError(err, "Commit")
	}
	ffOnly := m.method == store.MergeMethodFF || m.method == store.MergeMethodRebaseMerge
	if check.Conflicts || (ffOnly && !check.FastForward) {
		return out, mergeNotAllowed()
	}
	if m.sha != nil && *m.sha != string(src) {
		return out, errorf(http.StatusConflict, "SHA does not match HEAD of source branch: %s", src)
	}
	head := src
	if m.squash {
		base, err := s.mergeBase(ctx, m.projectID, r, src, tgt)
		if err != nil {
			return out, gitError(err, "Commit")
		}
		hc, err := r.Commit(ctx, src)
		if err != nil {
			return out, gitError(err, "Commit")
		}
		msg := m.title
		if m.squashMsg != nil && *m.squashMsg != "" {
			msg = *m.squashMsg
		}
		if head, err = r.CommitTree(ctx, hc.Tree, []git.Oid{base}, ensureNewline(msg), m.author, merger); err != nil {
			return out, gitError(err, "Commit")
		}
		out.squashCommit = string(head)
	}
	next := head
	if m.method != store.MergeMethodFF {
		tree, clash, _, err := r.MergeCommits(ctx, tgt, head)
		if err != nil {
			return out, gitError(err, "Commit")
		}
		if clash {
			return out, errorf(http.StatusUnprocessableEntity, "Branch cannot be merged")
		}
		msg := fmt.Sprintf("Merge branch '%s' into '%s'\n\n%s\n\nSee merge request %s\n", m.source, m.target, m.title, m.ref)
		if m.mergeMsg != nil && *m.mergeMsg != "" {
			msg = ensureNewline(*m.mergeMsg)
		}
		if next, err = r.CommitTree(ctx, tree, []git.Oid{tgt, head}, msg, merger, merger); err != nil {
			return out, gitError(err, "Commit")
		}
		out.mergeCommit = string(next)
	}
	if err := r.UpdateRef(ctx, "refs/heads/"+m.target, next, tgt); err != nil {
		if errors.Is(err, git.ErrStale) {
			return out, errorf(http.StatusUnprocessableEntity, "Branch cannot be merged")
		}
		return out, gitError(err, "Branch")
	}
	if m.removeSource && m.source != rc.DefaultBranch {
		out.removedSource = r.DeleteRef(ctx, "refs/heads/"+m.source, src) == nil
	}
	return out, nil
}

func ensureNewline(s string) string {
	if strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n"
}

// ForgetMergeRequestDiffs empties the caches of diffs and mergeability
// checks, so benchmarks can measure the path a first read takes.
func (s *Server) ForgetMergeRequestDiffs() {
	s.mr.mu.Lock()
	defer s.mr.mu.Unlock()
	s.mr.diffs, s.mr.checks, s.mr.bases = nil, nil, nil
}
