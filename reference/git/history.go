package git

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// LastCommit returns the last commit at or before commit that changed path
// (`git rev-list -1 <commit> -- <path>`). Commits never change, so answers are
// cached.
func (r *Repo) LastCommit(ctx context.Context, commit Oid, path string) (Oid, error) {
	key := string(commit) + "\x00" + path
	r.cacheMu.Lock()
	oid, ok := r.lastCommit[key]
	r.cacheMu.Unlock()
	if ok {
		return oid, nil
	}
	out, err := r.run(ctx, nil, nil, "rev-list", "-1", string(commit), "--", path)
	if err != nil {
		return "", err
	}
	oid = Oid(strings.TrimSpace(string(out)))
	if oid == "" {
		return "", ErrNotFound
	}
	r.cacheMu.Lock()
	if len(r.lastCommit) > 100000 {
		clear(r.lastCommit)
	}
	r.lastCommit[key] = oid
	r.cacheMu.Unlock()
	return oid, nil
}

// LogOptions select commits as GET /projects/:id/repository/commits does.
type LogOptions struct {
	// Revs are commits (Oid) to start from; a "^"-prefixed Oid excludes its
	// history, "A...B" is a symmetric difference. Built by the caller from
	// resolved names only.
	Revs        []string
	All         bool
	Since       *time.Time // inclusive
	Until       *time.Time // inclusive
	Path        string
	Author      string
	FirstParent bool
	Topo        bool
}

// ErrBadPattern is an author pattern git cannot compile.
var ErrBadPattern = errors.New("git: invalid pattern")

// Log lists the commits opts select, newest first (or in topological order).
func (r *Repo) Log(ctx context.Context, opts LogOptions) ([]Oid, error) {
	args := []string{"rev-list"}
	if opts.Topo {
		args = append(args, "--topo-order")
	}
	if opts.FirstParent {
		args = append(args, "--first-parent")
	}
	if opts.Since != nil {
		args = append(args, "--max-age="+strconv.FormatInt(opts.Since.Unix(), 10))
	}
	if opts.Until != nil {
		args = append(args, "--min-age="+strconv.FormatInt(opts.Until.Unix(), 10))
	}
	if opts.Author != "" {
		args = append(args, "--author="+opts.Author)
	}
	if opts.All {
		args = append(args, "--all")
	}
	for _, rev := range opts.Revs {
		if strings.HasPrefix(rev, "-") {
			return nil, ErrNotFound
		}
	}
	args = append(args, opts.Revs...)
	args = append(args, "--")
	if opts.Path != "" {
		args = append(args, opts.Path)
	}
	out, err := r.run(ctx, nil, nil, args...)
	if err != nil {
		var ce *CmdError
		if opts.Author != "" && errors.As(err, &ce) {
			return nil, ErrBadPattern
		}
		return nil, err
	}
	f := strings.Fields(string(out))
	oids := make([]Oid, len(f))
	for i, s := range f {
		oids[i] = Oid(s)
	}
	return oids, nil
}

// Count is `git rev-list --count [--first-parent] <commit>`.
func (r *Repo) Count(ctx context.Context, commit Oid, firstParent bool) (int, error) {
	args := []string{"rev-list", "--count"}
	if firstParent {
		args = append(args, "--first-parent")
	}
	out, err := r.run(ctx, nil, nil, append(args, string(commit), "--")...)
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(string(out)))
}

// Stats are the line counts of a commit's change against its first parent.
type Stats struct {
	Additions int
	Deletions int
}

// Total is additions plus deletions.
func (s Stats) Total() int { return s.Additions + s.Deletions }

// StatsOf computes the stats of several commits with one process.
func (r *Repo) StatsOf(ctx context.Context, commits []*Commit) (map[Oid]Stats, error) {
	out := map[Oid]Stats{}
	if len(commits) == 0 {
		return out, nil
	}
	var in bytes.Buffer
	for _, c := range commits {
		out[c.ID] = Stats{}
		// "<commit> <parent>" diffs against that parent alone: the first, as
		// the platform's stats do for merges.
		if len(c.Parents) > 0 {
			fmt.Fprintf(&in, "%s %s\n", c.ID, c.Parents[0])
		} else {
			fmt.Fprintf(&in, "%s\n", c.ID)
		}
	}
	res, err := r.run(ctx, &in, nil, "diff-tree", "--stdin", "-r", "--root", "--numstat", "--no-renames")
	if err != nil {
		return nil, err
	}
	var cur Oid
	sc := bufio.NewScanner(bytes.NewReader(res))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if IsOid(line) {
			cur = Oid(line)
			continue
		}
		f := strings.SplitN(line, "\t", 3)
		if len(f) != 3 || cur == "" {
			continue
		}
		s := out[cur]
		a, _ := strconv.Atoi(f[0]) // "-" for binary files counts nothing
		d, _ := strconv.Atoi(f[1])
		s.Additions += a
		s.Deletions += d
		out[cur] = s
	}
	return out, nil
}

// FileDiff is one changed file of a commit.
type FileDiff struct {
	OldPath, NewPath          string
	AMode, BMode              string
	NewFile, Renamed, Deleted bool
	// Patch is the unified diff body: hunks only, or with ---/+++ headers
	// when asked for the unified format.
	Patch string
}

// Diff lists the files commit changed against its first parent (the empty
// tree for a root commit), with their patches.
func (r *Repo) Diff(ctx context.Context, c *Commit, unified bool) ([]FileDiff, error) {
	from := ""
	if len(c.Parents) > 0 {
		from = string(c.Parents[0])
	} else {
		empty, err := r.EmptyTree(ctx)
		if err != nil {
			return nil, err
		}
		from = string(empty)
	}
	return r.diffTrees(ctx, from, string(c.ID), unified)
}

// diffTrees lists the files that differ between two tree-ish objects (commits
// or trees), renames detected, with their patches.
func (r *Repo) diffTrees(ctx context.Context, from, to string, unified bool) ([]FileDiff, error) {
	raw, err := r.run(ctx, nil, nil, "diff-tree", "-r", "-M", "-z", "--raw", "--no-abbrev", from, to)
	if err != nil {
		return nil, err
	}
	var files []FileDiff
	recs := strings.Split(string(raw), "\x00")
	for i := 0; i < len(recs); i++ {
		meta := recs[i]
		if !strings.HasPrefix(meta, ":") {
			continue
		}
		f := strings.Fields(meta[1:])
		if len(f) < 5 || i+1 >= len(recs) {
			break
		}
		fd := FileDiff{AMode: f[0], BMode: f[1]}
		status := f[4]
		fd.OldPath = recs[i+1]
		fd.NewPath = fd.OldPath
		i++
		if status[0] == 'R' || status[0] == 'C' {
			if i+1 < len(recs) {
				fd.NewPath = recs[i+1]
				i++
			}
			fd.Renamed = status[0] == 'R'
		}
		fd.NewFile = status[0] == 'A'
		fd.Deleted = status[0] == 'D'
		files = append(files, fd)
	}
	patch, err := r.run(ctx, nil, nil, "diff-tree", "-r", "-M", "-p", "--no-color", "--no-ext-diff", "--no-textconv", from, to)
	if err != nil {
		return nil, err
	}
	// The patch lists files in the same order as the raw output; split it on
	// the per-file headers.
	var chunks []string
	for _, part := range strings.SplitAfter(string(patch), "\n") {
		if strings.HasPrefix(part, "diff --git ") {
			chunks = append(chunks, "")
			continue
		}
		if len(chunks) > 0 {
			chunks[len(chunks)-1] += part
		}
	}
	for i := range files {
		if i >= len(chunks) {
			break
		}
		files[i].Patch = patchBody(chunks[i], unified)
	}
	return files, nil
}

// patchBody drops git's extended header lines (index, modes, rename) and,
// unless unified, the ---/+++ lines, leaving the hunks.
func patchBody(chunk string, unified bool) string {
	var b strings.Builder
	inHunks := false
	for _, line := range strings.SplitAfter(chunk, "\n") {
		switch {
		case inHunks:
			b.WriteString(line)
		case strings.HasPrefix(line, "@@"), strings.HasPrefix(line, "Binary files"):
			inHunks = true
			b.WriteString(line)
		case strings.HasPrefix(line, "--- "), strings.HasPrefix(line, "+++ "):
			if unified {
				b.WriteString(line)
			}
		}
	}
	return b.String()
}

// RefsContaining lists the branches and the tags whose history contains commit, in name order.
func (r *Repo) RefsContaining(ctx context.Context, commit Oid) (branches, tags []string, err error) {
	out, err := r.run(ctx, nil, nil, "for-each-ref", "--contains", string(commit), "--format=%(refname)", "refs/heads/", "refs/tags/")
	if err != nil {
		return nil, nil, err
	}
	for _, line := range strings.Split(string(out), "\n") {
		if b, ok := strings.CutPrefix(line, "refs/heads/"); ok {
			branches = append(branches, b)
		} else if t, ok := strings.CutPrefix(line, "refs/tags/"); ok {
			tags = append(tags, t)
		}
	}
	return branches, tags, nil
}

// BlameLine is one line of a file with the commit that last changed it.
type BlameLine struct {
	Commit Oid
	Text   string
}

// Blame attributes lines start..end (1-based, inclusive; 0,0 for the whole
// file) of path at commit.
func (r *Repo) Blame(ctx context.Context, commit Oid, path string, start, end int) ([]BlameLine, error) {
	args := []string{"blame", "--porcelain"}
	if start > 0 {
		args = append(args, "-L", fmt.Sprintf("%d,%d", start, end))
	}
	args = append(args, string(commit), "--", path)
	out, err := r.run(ctx, nil, nil, args...)
	if err != nil {
		return nil, err
	}
	var lines []BlameLine
	var cur Oid
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Text()
		if text, ok := strings.CutPrefix(line, "\t"); ok {
			lines = append(lines, BlameLine{Commit: cur, Text: text})
			continue
		}
		if sp := strings.IndexByte(line, ' '); sp == 40 && IsOid(line[:40]) {
			cur = Oid(line[:40])
		}
	}
	return lines, sc.Err()
}
