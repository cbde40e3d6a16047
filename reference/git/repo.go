package git

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
)

// Oid is a full object name (40 hexadecimal digits).
type Oid string

// Short is the 8-character abbreviation the API shows as short_id.
func (o Oid) Short() string {
	if len(o) < 8 {
		return string(o)
	}
	return string(o[:8])
}

// ZeroOid means "no object": as the old value of update-ref, "must not exist".
const ZeroOid Oid = "0000000000000000000000000000000000000000"

// IsOid reports whether s is a full object name.
func IsOid(s string) bool {
	if len(s) != 40 {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil
}

func isHex(s string) bool {
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return s != ""
}

// Repo is one project's bare repository. Reads go through a long-lived
// `cat-file --batch`; writes to branches are serialised by Lock and checked
// by compare-and-swap on the ref.
type Repo struct {
	m   *Manager
	id  int
	dir string

	wmu sync.Mutex // held across read-check-write sequences on branches

	catMu sync.Mutex
	cat   *catFile

	cacheMu    sync.Mutex
	lastCommit map[string]Oid // commit+NUL+path -> last commit touching path (commits never change)
	parsed     map[Oid]any    // *Commit and []Entry by object name: objects never change

	emptyOnce sync.Once
	emptyErr  error

	// refsGen counts the ref writes made through this package (update-ref,
	// pushes), bumped once each has landed: what is derived from a ref's
	// value may be cached against it (RefsGeneration).
	refsGen atomic.Uint64

	// gone is set when the Manager starts removing the repository (its
	// project deleted, or a reset): a read that was handed the repository
	// before and fails because its files went away is answered as not found,
	// which is what a request after the removal gets, not as a failure.
	gone atomic.Bool
}

// errGone is a failed read of a repository being removed: not found.
var errGone = fmt.Errorf("%w: the repository was removed", ErrNotFound)

// failed is err, or errGone when the repository's removal began: a command
// that lost its files to a delete or a reset mid-way reads as not found.
func (r *Repo) failed(err error) error {
	if err != nil && !errors.Is(err, ErrNotFound) && r.gone.Load() {
		return errGone
	}
	return err
}

// RefsGeneration changes after every ref write made through this package
// has landed. A value derived from refs and recorded with the generation
// read before the refs were is current while the generation is unchanged.
func (r *Repo) RefsGeneration() uint64 { return r.refsGen.Load() }

// refsWritten marks that a ref write has landed (or failed: a changed
// generation only costs a recomputation).
func (r *Repo) refsWritten() { r.refsGen.Add(1) }

// Dir is the repository's directory (GIT_DIR).
func (r *Repo) Dir() string { return r.dir }

// Lock serialises writes to the repository's branches.
func (r *Repo) Lock() { r.wmu.Lock() }

// Unlock ends a write.
func (r *Repo) Unlock() { r.wmu.Unlock() }

// Git runs a git command in the repository (for tests and tools).
func (r *Repo) Git(ctx context.Context, stdin io.Reader, args ...string) ([]byte, error) {
	out, err := r.m.run(ctx, r.dir, stdin, nil, args...)
	return out, r.failed(err)
}

func (r *Repo) run(ctx context.Context, stdin io.Reader, env []string, args ...string) ([]byte, error) {
	out, err := r.m.run(ctx, r.dir, stdin, env, args...)
	return out, r.failed(err)
}

func (r *Repo) close() {
	r.catMu.Lock()
	defer r.catMu.Unlock()
	if r.cat != nil {
		r.cat.stop()
		r.cat = nil
	}
}

// catFile is a running `git cat-file --batch`.
type catFile struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

func (c *catFile) stop() {
	c.in.Close()
	c.cmd.Process.Kill()
	c.cmd.Wait()
}

func (r *Repo) startCat() (*catFile, error) {
	cmd := exec.Command("git", "cat-file", "--batch")
	cmd.Env = append(append([]string(nil), r.m.baseEnv...), "GIT_DIR="+r.dir)
	cmd.Dir = r.dir
	cmd.Stderr = io.Discard
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &catFile{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 64<<10)}, nil
}

// object reads one object by name (an object name or a revision expression
// built by this package; never a raw user string). It answers ErrNotFound for
// a missing or ambiguous name.
func (r *Repo) object(ctx context.Context, name string) (typ string, oid Oid, data []byte, err error) {
	if strings.ContainsAny(name, "\n\x00") || name == "" {
		return "", "", nil, ErrNotFound
	}
	ctx, cancel := context.WithTimeout(ctx, CommandTimeout)
	defer cancel()
	r.catMu.Lock()
	defer r.catMu.Unlock()
	if r.cat == nil {
		if r.cat, err = r.startCat(); err != nil {
			return "", "", nil, r.failed(err)
		}
	}
	c := r.cat
	// A request that outlives its deadline kills the process; the next read starts a new one.
	stop := context.AfterFunc(ctx, func() { c.cmd.Process.Kill() })
	defer stop()
	typ, oid, data, err = readObject(c, name)
	if err != nil && !errors.Is(err, ErrNotFound) {
		c.stop()
		r.cat = nil
		if ctx.Err() != nil {
			err = fmt.Errorf("git cat-file: %w", ctx.Err())
		}
	}
	return typ, oid, data, r.failed(err)
}

func readObject(c *catFile, name string) (string, Oid, []byte, error) {
	if _, err := io.WriteString(c.in, name+"\n"); err != nil {
		return "", "", nil, err
	}
	header, err := c.out.ReadString('\n')
	if err != nil {
		return "", "", nil, err
	}
	header = strings.TrimSuffix(header, "\n")
	if strings.HasSuffix(header, " missing") || strings.HasSuffix(header, " ambiguous") {
		return "", "", nil, ErrNotFound
	}
	f := strings.Fields(header)
	if len(f) != 3 {
		return "", "", nil, fmt.Errorf("git cat-file: unexpected header %q", header)
	}
	size, err := strconv.Atoi(f[2])
	if err != nil {
		return "", "", nil, fmt.Errorf("git cat-file: unexpected header %q", header)
	}
	data := make([]byte, size+1)
	if _, err := io.ReadFull(c.out, data); err != nil {
		return "", "", nil, err
	}
	return f[1], Oid(f[0]), data[:size], nil
}

// Signature is an author or committer.
type Signature struct {
	Name  string
	Email string
	When  time.Time
}

func (s Signature) env(prefix string) []string {
	return []string{
		"GIT_" + prefix + "_NAME=" + s.Name,
		"GIT_" + prefix + "_EMAIL=" + s.Email,
		"GIT_" + prefix + "_DATE=" + strconv.FormatInt(s.When.Unix(), 10) + " " + s.When.Format("-0700"),
	}
}

// Commit is a parsed commit object.
type Commit struct {
	ID        Oid
	Tree      Oid
	Parents   []Oid
	Author    Signature
	Committer Signature
	Message   string
}

// Title is the first line of the message.
func (c *Commit) Title() string {
	t, _, _ := strings.Cut(c.Message, "\n")
	return t
}

// maxParsed bounds the cache of parsed commits and trees; it is dropped
// whole when full, which is simpler than an LRU and rarely matters.
const maxParsed = 8192

func (r *Repo) cached(id Oid) (any, bool) {
	r.cacheMu.Lock()
	defer r.cacheMu.Unlock()
	v, ok := r.parsed[id]
	return v, ok
}

func (r *Repo) remember(id Oid, v any) {
	r.cacheMu.Lock()
	defer r.cacheMu.Unlock()
	if r.parsed == nil || len(r.parsed) >= maxParsed {
		r.parsed = map[Oid]any{}
	}
	r.parsed[id] = v
}

// Commit reads a commit by its full object name. Callers must not modify it.
func (r *Repo) Commit(ctx context.Context, id Oid) (*Commit, error) {
	if v, ok := r.cached(id); ok {
		if c, ok := v.(*Commit); ok {
			return c, nil
		}
		return nil, ErrNotFound
	}
	typ, oid, data, err := r.object(ctx, string(id))
	if err != nil {
		return nil, err
	}
	if typ != "commit" {
		return nil, ErrNotFound
	}
	c, err := parseCommit(oid, data)
	if err == nil && oid == id {
		r.remember(id, c)
	}
	return c, err
}

func parseCommit(id Oid, data []byte) (*Commit, error) {
	c := &Commit{ID: id}
	head, msg, _ := bytes.Cut(data, []byte("\n\n"))
	c.Message = string(msg)
	for _, line := range strings.Split(string(head), "\n") {
		key, val, _ := strings.Cut(line, " ")
		switch key {
		case "tree":
			c.Tree = Oid(val)
		case "parent":
			c.Parents = append(c.Parents, Oid(val))
		case "author":
			c.Author = parseSignature(val)
		case "committer":
			c.Committer = parseSignature(val)
		}
	}
	if c.Tree == "" {
		return nil, fmt.Errorf("git: commit %s has no tree", id)
	}
	return c, nil
}

// parseSignature reads "Name <email> 1700000000 +0200".
func parseSignature(s string) Signature {
	var sig Signature
	lt := strings.IndexByte(s, '<')
	gt := strings.LastIndexByte(s, '>')
	if lt < 0 || gt < lt {
		sig.Name = s
		return sig
	}
	sig.Name = strings.TrimSpace(s[:lt])
	sig.Email = s[lt+1 : gt]
	f := strings.Fields(s[gt+1:])
	if len(f) == 2 {
		secs, _ := strconv.ParseInt(f[0], 10, 64)
		sig.When = time.Unix(secs, 0).In(zone(f[1]))
	}
	return sig
}

func zone(tz string) *time.Location {
	if len(tz) != 5 {
		return time.UTC
	}
	h, err1 := strconv.Atoi(tz[1:3])
	m, err2 := strconv.Atoi(tz[3:5])
	if err1 != nil || err2 != nil {
		return time.UTC
	}
	off := (h*60 + m) * 60
	if tz[0] == '-' {
		off = -off
	}
	if off == 0 {
		return time.UTC
	}
	return time.FixedZone(tz, off)
}

// Entry is one entry of a tree.
type Entry struct {
	Mode string // 100644, 100755, 120000, 40000, 160000
	Type string // blob, tree, commit
	ID   Oid
	Name string
}

// Executable reports the execute bit of a blob entry.
func (e Entry) Executable() bool { return e.Mode == "100755" }

func parseTree(data []byte) ([]Entry, error) {
	var out []Entry
	for len(data) > 0 {
		sp := bytes.IndexByte(data, ' ')
		nul := bytes.IndexByte(data, 0)
		if sp < 0 || nul < sp || len(data) < nul+21 {
			return nil, errors.New("git: malformed tree")
		}
		mode := string(data[:sp])
		e := Entry{Mode: mode, Name: string(data[sp+1 : nul]), ID: Oid(hex.EncodeToString(data[nul+1 : nul+21]))}
		switch mode {
		case "40000":
			e.Type = "tree"
		case "160000":
			e.Type = "commit"
		default:
			e.Type = "blob"
		}
		out = append(out, e)
		data = data[nul+21:]
	}
	return out, nil
}

// Tree reads a tree's entries. Callers must not modify them.
func (r *Repo) Tree(ctx context.Context, id Oid) ([]Entry, error) {
	if v, ok := r.cached(id); ok {
		if t, ok := v.([]Entry); ok {
			return t, nil
		}
		return nil, ErrNotFound
	}
	typ, oid, data, err := r.object(ctx, string(id))
	if err != nil {
		return nil, err
	}
	if typ != "tree" {
		return nil, ErrNotFound
	}
	t, err := parseTree(data)
	if err == nil && oid == id {
		r.remember(id, t)
	}
	return t, err
}

// Lookup finds path in the tree of commit, walking one tree per path component.
func (r *Repo) Lookup(ctx context.Context, commit Oid, path string) (Entry, error) {
	c, err := r.Commit(ctx, commit)
	if err != nil {
		return Entry{}, err
	}
	tree := c.Tree
	parts := strings.Split(path, "/")
	for i, name := range parts {
		entries, err := r.Tree(ctx, tree)
		if err != nil {
			return Entry{}, err
		}
		found := false
		for _, e := range entries {
			if e.Name != name {
				continue
			}
			if i == len(parts)-1 {
				return e, nil
			}
			if e.Type != "tree" {
				return Entry{}, ErrNotFound
			}
			tree, found = e.ID, true
			break
		}
		if !found {
			return Entry{}, ErrNotFound
		}
	}
	return Entry{}, ErrNotFound
}

// Blob reads a blob's content.
func (r *Repo) Blob(ctx context.Context, id Oid) ([]byte, error) {
	typ, _, data, err := r.object(ctx, string(id))
	if err != nil {
		return nil, err
	}
	if typ != "blob" {
		return nil, ErrNotFound
	}
	return data, nil
}

// Branch returns the commit a branch points at.
func (r *Repo) Branch(ctx context.Context, name string) (Oid, error) {
	if !ValidRefName(name) {
		return "", ErrNotFound
	}
	return r.peel(ctx, "refs/heads/"+name)
}

// Tag returns the commit a tag points at (annotated tags peeled).
func (r *Repo) Tag(ctx context.Context, name string) (Oid, error) {
	if !ValidRefName(name) {
		return "", ErrNotFound
	}
	return r.peel(ctx, "refs/tags/"+name)
}

func (r *Repo) peel(ctx context.Context, name string) (Oid, error) {
	typ, oid, _, err := r.object(ctx, name+"^{commit}")
	if err != nil {
		return "", err
	}
	if typ != "commit" {
		return "", ErrNotFound
	}
	return oid, nil
}

// Head returns the default branch's name (HEAD's target) and its commit
// (ErrNotFound in an empty repository).
func (r *Repo) Head(ctx context.Context) (string, Oid, error) {
	out, err := r.run(ctx, nil, nil, "symbolic-ref", "--short", "HEAD")
	if err != nil {
		return "", "", err
	}
	name := strings.TrimSpace(string(out))
	oid, err := r.Branch(ctx, name)
	return name, oid, err
}

// SetHead points HEAD at branch (the project's default branch).
func (r *Repo) SetHead(ctx context.Context, branch string) error {
	if !ValidRefName(branch) {
		return ErrNotFound
	}
	_, err := r.run(ctx, nil, nil, "symbolic-ref", "HEAD", "refs/heads/"+branch)
	return err
}

// Resolve finds the commit a user-supplied revision names: a branch, then a
// tag, then a full or abbreviated (7+ digits) commit SHA, then any other
// revision git resolves to a commit (HEAD, main~2, v1^, refs/heads/main...).
// The platform hands a ref to Gitaly's FindCommit, which resolves it as
// `git rev-parse <rev>^{commit}` does, after refusing a revision that starts
// with '-' or holds ':', NUL or white space (lib/gitlab/git/commit.rb
// Commit.find and Commit.valid?, gitlabhq @0211553b); Renovate reads
// renovate.json with ref=HEAD.
func (r *Repo) Resolve(ctx context.Context, rev string) (Oid, error) {
	if rev == "" || strings.HasPrefix(rev, "-") {
		return "", ErrNotFound
	}
	if ValidRefName(rev) {
		if oid, err := r.Branch(ctx, rev); err == nil || !errors.Is(err, ErrNotFound) {
			return oid, err
		}
		if oid, err := r.Tag(ctx, rev); err == nil || !errors.Is(err, ErrNotFound) {
			return oid, err
		}
	}
	if len(rev) >= 7 && len(rev) <= 40 && isHex(strings.ToLower(rev)) {
		return r.peel(ctx, strings.ToLower(rev))
	}
	if strings.ContainsAny(rev, ":\x00") || strings.IndexFunc(rev, unicode.IsSpace) >= 0 {
		return "", ErrNotFound
	}
	return r.peel(ctx, rev)
}

// Ref is a branch or tag.
type Ref struct {
	Name   string // short name
	Target Oid    // the object the ref points at (a tag object for annotated tags)
	Commit Oid    // the commit, peeled
	// Annotated tags only:
	Message string
	Tagger  *Signature
}

// Branches lists the branches in name order.
func (r *Repo) Branches(ctx context.Context) ([]Ref, error) {
	return r.refs(ctx, "refs/heads/")
}

// Tags lists the tags in name order.
func (r *Repo) Tags(ctx context.Context) ([]Ref, error) {
	return r.refs(ctx, "refs/tags/")
}

func (r *Repo) refs(ctx context.Context, prefix string) ([]Ref, error) {
	out, err := r.run(ctx, nil, nil, "for-each-ref",
		"--format=%(refname)%00%(objectname)%00%(*objectname)%00%(objecttype)%00%(taggername)%00%(taggeremail)%00%(taggerdate:raw)%00%(contents)%01",
		prefix)
	if err != nil {
		return nil, err
	}
	var refs []Ref
	for _, rec := range strings.Split(string(out), "\x01") {
		rec = strings.TrimPrefix(rec, "\n")
		if rec == "" {
			continue
		}
		f := strings.Split(rec, "\x00")
		if len(f) != 8 {
			continue
		}
		ref := Ref{Name: strings.TrimPrefix(f[0], prefix), Target: Oid(f[1]), Commit: Oid(f[1])}
		if f[3] == "tag" {
			ref.Commit = Oid(f[2])
			ref.Message = f[7]
			sig := parseSignature(f[4] + " " + f[5] + " " + f[6])
			ref.Tagger = &sig
		}
		refs = append(refs, ref)
	}
	return refs, nil
}
