package git

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// The operations merge requests need: the merge base of two branches, a real
// three-way merge of two commits (mergeability and merge commits), ancestry
// for fast-forwards, the commits and the diff between two commits, patch IDs,
// deleting a branch by compare-and-swap, and the gitlab-generated attribute.

// ErrUnrelated: two commits share no history, so they have no merge base.
var ErrUnrelated = errors.New("git: no common history")

// MergeBase returns the best common ancestor of a and b (`git merge-base`);
// ErrUnrelated when they share no history.
func (r *Repo) MergeBase(ctx context.Context, a, b Oid) (Oid, error) {
	if !IsOid(string(a)) || !IsOid(string(b)) {
		return "", ErrNotFound
	}
	out, err := r.run(ctx, nil, nil, "merge-base", string(a), string(b))
	var ce *CmdError
	if errors.As(err, &ce) && ce.Code == 1 {
		return "", ErrUnrelated
	}
	if err != nil {
		return "", err
	}
	return Oid(strings.TrimSpace(string(out))), nil
}

// IsAncestor reports whether a is in b's history (a == b counts), that is,
// whether b fast-forwards a.
func (r *Repo) IsAncestor(ctx context.Context, a, b Oid) (bool, error) {
	if !IsOid(string(a)) || !IsOid(string(b)) {
		return false, ErrNotFound
	}
	_, err := r.run(ctx, nil, nil, "merge-base", "--is-ancestor", string(a), string(b))
	var ce *CmdError
	if errors.As(err, &ce) && ce.Code == 1 {
		return false, nil
	}
	return err == nil, err
}

// MergeCommits merges theirs into ours the way `git merge` does, with their
// real merge base (`merge-tree --write-tree`, the ort strategy), and returns
// the resulting tree. conflict reports a conflict; the paths that conflict
// are listed then. Nothing refers to the objects it writes.
func (r *Repo) MergeCommits(ctx context.Context, ours, theirs Oid) (tree Oid, conflict bool, paths []string, err error) {
	if !IsOid(string(ours)) || !IsOid(string(theirs)) {
		return "", false, nil, ErrNotFound
	}
	out, err := r.run(ctx, nil, nil, "merge-tree", "--write-tree", "--no-messages", "--name-only", "-z", string(ours), string(theirs))
	var ce *CmdError
	switch {
	case errors.As(err, &ce) && ce.Code == 1:
		conflict = true
	case errors.As(err, &ce) && strings.Contains(ce.Stderr, "unrelated histories"):
		return "", false, nil, ErrUnrelated
	case err != nil:
		return "", false, nil, err
	}
	// -z output: the tree, then (on conflict) each conflicted path, NUL-separated.
	recs := strings.Split(string(out), "\x00")
	tree = Oid(strings.TrimSpace(recs[0]))
	if conflict {
		for _, p := range recs[1:] {
			if p != "" {
				paths = append(paths, p)
			}
		}
	}
	return tree, conflict, paths, nil
}

// Range lists the commits in to's history that are not in from's (`git
// rev-list to ^from`), newest first; an empty from lists all of to's history.
func (r *Repo) Range(ctx context.Context, from, to Oid) ([]Oid, error) {
	revs := []string{string(to)}
	if from != "" {
		revs = append(revs, "^"+string(from))
	}
	for _, o := range []Oid{from, to} {
		if o != "" && !IsOid(string(o)) {
			return nil, ErrNotFound
		}
	}
	return r.Log(ctx, LogOptions{Revs: revs})
}

// CountRange counts the commits Range would list.
func (r *Repo) CountRange(ctx context.Context, from, to Oid) (int, error) {
	if !IsOid(string(from)) || !IsOid(string(to)) {
		return 0, ErrNotFound
	}
	out, err := r.run(ctx, nil, nil, "rev-list", "--count", string(to), "^"+string(from), "--")
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(string(out)))
}

// DiffCommits lists the files that differ between the trees of two commits,
// with their patches (`git diff from to`, renames detected), in path order.
func (r *Repo) DiffCommits(ctx context.Context, from, to Oid, unified bool) ([]FileDiff, error) {
	if !IsOid(string(from)) || !IsOid(string(to)) {
		return nil, ErrNotFound
	}
	return r.diffTrees(ctx, string(from), string(to), unified)
}

// PatchID is git's stable patch ID of the change from one commit to another
// (`git diff-tree -p from to | git patch-id --stable`): equal for equal
// changes whatever the commits. An empty change has an empty patch ID.
func (r *Repo) PatchID(ctx context.Context, from, to Oid) (string, error) {
	if !IsOid(string(from)) || !IsOid(string(to)) {
		return "", ErrNotFound
	}
	patch, err := r.run(ctx, nil, nil, "diff-tree", "-r", "-p", "--no-color", "--no-ext-diff", "--no-textconv", "--full-index", string(from), string(to))
	if err != nil {
		return "", err
	}
	if len(bytes.TrimSpace(patch)) == 0 {
		return "", nil
	}
	// patch-id wants a commit header line before the diff; any object name does.
	in := append([]byte("commit "+string(to)+"\n"), patch...)
	out, err := r.run(ctx, bytes.NewReader(in), nil, "patch-id", "--stable")
	if err != nil {
		return "", err
	}
	id, _, _ := strings.Cut(strings.TrimSpace(string(out)), " ")
	return id, nil
}

// DeleteRef removes ref if it still points at old (compare-and-swap); a ref
// that moved meanwhile is ErrStale and stays.
func (r *Repo) DeleteRef(ctx context.Context, ref string, old Oid) error {
	if !strings.HasPrefix(ref, "refs/") || !ValidRefName(ref) || !IsOid(string(old)) {
		return ErrNotFound
	}
	defer r.refsWritten()
	_, err := r.run(ctx, nil, nil, "update-ref", "-d", ref, string(old))
	var ce *CmdError
	if errors.As(err, &ce) {
		if _, cur, _, lookErr := r.object(ctx, ref); lookErr != nil || cur != old {
			return ErrStale
		}
	}
	return err
}

// SetRef points ref at oid whatever it held before (the merge request's
// refs/merge-requests/<iid>/head, which keeps every version's commits
// reachable as on the platform).
func (r *Repo) SetRef(ctx context.Context, ref string, oid Oid) error {
	if !strings.HasPrefix(ref, "refs/") || !ValidRefName(ref) || !IsOid(string(oid)) {
		return ErrNotFound
	}
	defer r.refsWritten()
	_, err := r.run(ctx, nil, nil, "update-ref", ref, string(oid))
	return err
}

// Attribute reads one gitattributes attribute of paths as the .gitattributes
// files of commit's tree set it (`check-attr --cached` over that tree read
// into a private index): "set", "unset", "unspecified" or a value.
func (r *Repo) Attribute(ctx context.Context, commit Oid, attr string, paths []string) (map[string]string, error) {
	out := make(map[string]string, len(paths))
	if len(paths) == 0 {
		return out, nil
	}
	if !IsOid(string(commit)) || strings.ContainsAny(attr, " \x00") || strings.HasPrefix(attr, "-") {
		return nil, ErrNotFound
	}
	tmp, err := r.tempDir()
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	env := []string{"GIT_INDEX_FILE=" + filepath.Join(tmp, "index")}
	if _, err := r.run(ctx, nil, env, "read-tree", string(commit)); err != nil {
		return nil, err
	}
	var in bytes.Buffer
	for _, p := range paths {
		in.WriteString(p)
		in.WriteByte(0)
	}
	res, err := r.run(ctx, &in, env, "check-attr", "--cached", "-z", "--stdin", attr)
	if err != nil {
		return nil, err
	}
	// -z output: path NUL attribute NUL value NUL, repeated.
	sc := bufio.NewScanner(bytes.NewReader(res))
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	sc.Split(func(data []byte, atEOF bool) (int, []byte, error) {
		if i := bytes.IndexByte(data, 0); i >= 0 {
			return i + 1, data[:i], nil
		}
		if atEOF && len(data) > 0 {
			return len(data), data, nil
		}
		return 0, nil, nil
	})
	var f []string
	for sc.Scan() {
		f = append(f, sc.Text())
		if len(f) == 3 {
			out[f[0]] = f[2]
			f = f[:0]
		}
	}
	return out, sc.Err()
}
