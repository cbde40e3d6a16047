package git

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Action is one change of a commit, applied in order (spec, Commits: actions[]).
type Action struct {
	Kind         string // create, update, delete, move, chmod
	Path         string
	PreviousPath string // move only
	Content      []byte
	HasContent   bool  // move without content keeps the blob; any content overwrites
	Executable   *bool // set the execute bit (chmod; create/update when given)
}

// Reasons an action cannot apply.
const (
	ReasonInvalidPath = "invalid_path" // empty, absolute, "." or ".." components, .git
	ReasonExists      = "exists"       // create or move onto a path that exists (as a file or a directory)
	ReasonMissing     = "missing"      // update, delete, move or chmod of a path that does not exist
)

// ActionError says which action failed and why.
type ActionError struct {
	Index  int
	Reason string
	Path   string
}

func (e *ActionError) Error() string {
	switch e.Reason {
	case ReasonExists:
		return fmt.Sprintf("A file with this name already exists: %s", e.Path)
	case ReasonMissing:
		return fmt.Sprintf("A file with this name doesn't exist: %s", e.Path)
	}
	return fmt.Sprintf("Invalid file path: %s", e.Path)
}

type indexEntry struct {
	mode string
	oid  Oid
	blob int // index into the blobs to write, -1 when oid is set
}

// treeState is a tree as a flat map of paths, with a count of the files under
// each directory so directory/file clashes are found without scanning.
type treeState struct {
	files map[string]indexEntry
	dirs  map[string]int
}

func (t *treeState) add(p string, e indexEntry) {
	t.files[p] = e
	for d := parentDir(p); d != ""; d = parentDir(d) {
		t.dirs[d]++
	}
}

func (t *treeState) remove(p string) {
	delete(t.files, p)
	for d := parentDir(p); d != ""; d = parentDir(d) {
		if t.dirs[d]--; t.dirs[d] <= 0 {
			delete(t.dirs, d)
		}
	}
}

// occupied reports whether creating p would clash: p is a file or a
// directory, or one of its ancestors is a file.
func (t *treeState) occupied(p string) bool {
	if _, ok := t.files[p]; ok {
		return true
	}
	if t.dirs[p] > 0 {
		return true
	}
	for d := parentDir(p); d != ""; d = parentDir(d) {
		if _, ok := t.files[d]; ok {
			return true
		}
	}
	return false
}

func parentDir(p string) string {
	i := strings.LastIndexByte(p, '/')
	if i < 0 {
		return ""
	}
	return p[:i]
}

func (r *Repo) listTree(ctx context.Context, commit Oid) (*treeState, error) {
	t := &treeState{files: map[string]indexEntry{}, dirs: map[string]int{}}
	if commit == "" {
		return t, nil
	}
	out, err := r.run(ctx, nil, nil, "ls-tree", "-r", "-z", "--full-tree", string(commit))
	if err != nil {
		return nil, err
	}
	for _, rec := range bytes.Split(out, []byte{0}) {
		if len(rec) == 0 {
			continue
		}
		meta, path, ok := bytes.Cut(rec, []byte{'\t'})
		f := strings.Fields(string(meta))
		if !ok || len(f) != 3 {
			return nil, fmt.Errorf("git ls-tree: unexpected %q", rec)
		}
		t.add(string(path), indexEntry{mode: f[0], oid: Oid(f[2]), blob: -1})
	}
	return t, nil
}

// ApplyActions applies actions in order to the tree of commit base (an empty
// tree when base is "") and writes the resulting tree. Nothing refers to the
// objects it writes until a commit does, so a failure leaves nothing visible.
func (r *Repo) ApplyActions(ctx context.Context, base Oid, actions []Action) (Oid, error) {
	before, err := r.listTree(ctx, base)
	if err != nil {
		return "", err
	}
	t := &treeState{files: map[string]indexEntry{}, dirs: map[string]int{}}
	for p, e := range before.files {
		t.add(p, e)
	}
	var blobs [][]byte
	newBlob := func(content []byte) int {
		blobs = append(blobs, content)
		return len(blobs) - 1
	}
	mode := func(exec *bool, def string) string {
		if exec == nil {
			return def
		}
		if *exec {
			return "100755"
		}
		return "100644"
	}
	for i, a := range actions {
		fail := func(reason, p string) error { return &ActionError{Index: i, Reason: reason, Path: p} }
		if !ValidPath(a.Path) {
			return "", fail(ReasonInvalidPath, a.Path)
		}
		cur, exists := t.files[a.Path]
		switch a.Kind {
		case "create":
			if t.occupied(a.Path) {
				return "", fail(ReasonExists, a.Path)
			}
			t.add(a.Path, indexEntry{mode: mode(a.Executable, "100644"), blob: newBlob(a.Content)})
		case "update":
			if !exists {
				return "", fail(ReasonMissing, a.Path)
			}
			t.add(a.Path, indexEntry{mode: mode(a.Executable, cur.mode), blob: newBlob(a.Content)})
		case "delete":
			if !exists {
				return "", fail(ReasonMissing, a.Path)
			}
			t.remove(a.Path)
		case "move":
			if !ValidPath(a.PreviousPath) {
				return "", fail(ReasonInvalidPath, a.PreviousPath)
			}
			prev, ok := t.files[a.PreviousPath]
			if !ok {
				return "", fail(ReasonMissing, a.PreviousPath)
			}
			t.remove(a.PreviousPath)
			if t.occupied(a.Path) {
				return "", fail(ReasonExists, a.Path)
			}
			if a.HasContent {
				prev = indexEntry{mode: prev.mode, blob: newBlob(a.Content)}
			}
			t.add(a.Path, prev)
		case "chmod":
			if !exists {
				return "", fail(ReasonMissing, a.Path)
			}
			cur.mode = mode(a.Executable, cur.mode)
			t.add(a.Path, cur)
		default:
			return "", fmt.Errorf("git: unknown action %q", a.Kind)
		}
	}
	oids, err := r.writeBlobs(ctx, blobs)
	if err != nil {
		return "", err
	}
	var info bytes.Buffer
	var removed, changed []string
	for p := range before.files {
		if _, ok := t.files[p]; !ok {
			removed = append(removed, p)
		}
	}
	for p, e := range t.files {
		if e.blob >= 0 {
			e.oid = oids[e.blob]
			t.files[p] = e
		}
		if b, ok := before.files[p]; !ok || b.oid != e.oid || b.mode != e.mode {
			changed = append(changed, p)
		}
	}
	sort.Strings(removed)
	sort.Strings(changed)
	// Removals first, so a file can give way to a directory of the same name.
	for _, p := range removed {
		fmt.Fprintf(&info, "0 %s\t%s\x00", ZeroOid, p)
	}
	for _, p := range changed {
		e := t.files[p]
		fmt.Fprintf(&info, "%s %s\t%s\x00", e.mode, e.oid, p)
	}
	tmp, err := r.tempDir()
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	env := []string{"GIT_INDEX_FILE=" + filepath.Join(tmp, "index")}
	if base != "" {
		if _, err := r.run(ctx, nil, env, "read-tree", string(base)); err != nil {
			return "", err
		}
	}
	if info.Len() > 0 {
		if _, err := r.run(ctx, &info, env, "update-index", "-z", "--index-info"); err != nil {
			return "", err
		}
	}
	out, err := r.run(ctx, nil, env, "write-tree")
	if err != nil {
		return "", err
	}
	return Oid(strings.TrimSpace(string(out))), nil
}

func (r *Repo) tempDir() (string, error) {
	return os.MkdirTemp(r.dir, "tmp-")
}

// writeBlobs stores contents as blobs with one process for all of them.
func (r *Repo) writeBlobs(ctx context.Context, blobs [][]byte) ([]Oid, error) {
	if len(blobs) == 0 {
		return nil, nil
	}
	if len(blobs) == 1 {
		out, err := r.run(ctx, bytes.NewReader(blobs[0]), nil, "hash-object", "-w", "--no-filters", "--stdin")
		if err != nil {
			return nil, err
		}
		return []Oid{Oid(strings.TrimSpace(string(out)))}, nil
	}
	tmp, err := r.tempDir()
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	var paths bytes.Buffer
	for i, b := range blobs {
		p := filepath.Join(tmp, fmt.Sprintf("blob-%d", i))
		if err := os.WriteFile(p, b, 0o600); err != nil {
			return nil, err
		}
		paths.WriteString(p + "\n")
	}
	out, err := r.run(ctx, &paths, nil, "hash-object", "-w", "--no-filters", "--stdin-paths")
	if err != nil {
		return nil, err
	}
	f := strings.Fields(string(out))
	if len(f) != len(blobs) {
		return nil, fmt.Errorf("git hash-object: %d object names for %d blobs", len(f), len(blobs))
	}
	oids := make([]Oid, len(f))
	for i, s := range f {
		oids[i] = Oid(s)
	}
	return oids, nil
}

// CommitTree writes a commit object.
func (r *Repo) CommitTree(ctx context.Context, tree Oid, parents []Oid, message string, author, committer Signature) (Oid, error) {
	args := []string{"commit-tree", string(tree)}
	for _, p := range parents {
		args = append(args, "-p", string(p))
	}
	args = append(args, "-F", "-")
	env := append(author.env("AUTHOR"), committer.env("COMMITTER")...)
	out, err := r.run(ctx, strings.NewReader(message), env, args...)
	if err != nil {
		return "", err
	}
	return Oid(strings.TrimSpace(string(out))), nil
}

// UpdateRef moves ref (a full name such as refs/heads/main) from old to new
// atomically; old == ZeroOid requires that the ref does not exist yet. A
// different current value is ErrStale (ErrExists for a ref that must be new).
func (r *Repo) UpdateRef(ctx context.Context, ref string, newOid, old Oid) error {
	if !strings.HasPrefix(ref, "refs/") || !ValidRefName(ref) {
		return fmt.Errorf("git: invalid ref %q", ref)
	}
	defer r.refsWritten()
	_, err := r.run(ctx, nil, nil, "update-ref", ref, string(newOid), string(old))
	var ce *CmdError
	if !errors.As(err, &ce) {
		return err
	}
	// Tell a lost race from any other failure by what the ref holds now.
	_, cur, _, lookErr := r.object(ctx, ref)
	switch {
	case old == ZeroOid && lookErr == nil:
		return ErrExists
	case old != ZeroOid && (lookErr != nil || cur != old):
		return ErrStale
	case old == ZeroOid && r.refClash(ctx, ref):
		return ErrRefClash
	}
	return err
}

// refClash reports whether ref cannot exist beside the refs there are: a ref
// is a file, so refs/heads/a and refs/heads/a/b exclude each other.
func (r *Repo) refClash(ctx context.Context, ref string) bool {
	out, err := r.run(ctx, nil, nil, "for-each-ref", "--count=1", "--format=%(refname)", ref+"/")
	if err == nil && len(bytes.TrimSpace(out)) > 0 {
		return true
	}
	for p := parentDir(ref); strings.Count(p, "/") >= 2; p = parentDir(p) {
		if _, _, _, err := r.object(ctx, p); err == nil {
			return true
		}
	}
	return false
}

// CreateTag creates refs/tags/name at commit: lightweight without a message,
// annotated (a tag object by tagger) with one.
func (r *Repo) CreateTag(ctx context.Context, name string, commit Oid, message string, tagger Signature) error {
	if !ValidRefName(name) {
		return fmt.Errorf("git: invalid tag name %q", name)
	}
	target := commit
	if message != "" {
		if !strings.HasSuffix(message, "\n") {
			message += "\n"
		}
		obj := fmt.Sprintf("object %s\ntype commit\ntag %s\ntagger %s <%s> %d %s\n\n%s",
			commit, name, tagger.Name, tagger.Email, tagger.When.Unix(), tagger.When.Format("-0700"), message)
		out, err := r.run(ctx, strings.NewReader(obj), nil, "mktag")
		if err != nil {
			return err
		}
		target = Oid(strings.TrimSpace(string(out)))
	}
	return r.UpdateRef(ctx, "refs/tags/"+name, target, ZeroOid)
}

// EmptyTree returns the empty tree's name, writing the object once so that
// commits referring to it pass git fsck.
func (r *Repo) EmptyTree(ctx context.Context) (Oid, error) {
	const empty Oid = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
	r.emptyOnce.Do(func() {
		_, r.emptyErr = r.run(ctx, strings.NewReader(""), nil, "mktree")
	})
	return empty, r.emptyErr
}

// Merge3 merges trees at line level the way git merges branches: the changes
// from base to theirs are applied onto ours. It runs git's own merge
// (`merge-tree --write-tree`, the ort strategy) on synthetic commits whose
// merge base is base, since this git has no --merge-base option; those
// commits are never referenced. conflict reports a merge conflict.
func (r *Repo) Merge3(ctx context.Context, base, ours, theirs Oid) (tree Oid, conflict bool, err error) {
	sig := Signature{Name: "v4cert", Email: "merge@v4cert.invalid", When: r.m.Now()}
	b, err := r.CommitTree(ctx, base, nil, "merge base\n", sig, sig)
	if err != nil {
		return "", false, err
	}
	o, err := r.CommitTree(ctx, ours, []Oid{b}, "ours\n", sig, sig)
	if err != nil {
		return "", false, err
	}
	t, err := r.CommitTree(ctx, theirs, []Oid{b}, "theirs\n", sig, sig)
	if err != nil {
		return "", false, err
	}
	out, err := r.run(ctx, nil, nil, "merge-tree", "--write-tree", "--no-messages", string(o), string(t))
	var ce *CmdError
	if errors.As(err, &ce) && ce.Code == 1 {
		return "", true, nil
	}
	if err != nil {
		return "", false, err
	}
	first, _, _ := strings.Cut(string(out), "\n")
	return Oid(strings.TrimSpace(first)), false, nil
}

// FetchCommit copies commit and its history from another repository, for
// commits that start from another project (start_project).
func (r *Repo) FetchCommit(ctx context.Context, from *Repo, commit Oid) error {
	if !IsOid(string(commit)) {
		return ErrNotFound
	}
	if _, err := r.Commit(ctx, commit); err == nil {
		return nil
	}
	_, err := r.run(ctx, nil, nil, "fetch", "--quiet", "--no-tags", "--no-write-fetch-head", from.dir, string(commit))
	return err
}
