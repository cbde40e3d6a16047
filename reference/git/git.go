// Package git is the reference server's repository storage: one bare git
// repository per project, read and written through the git command line so
// that what the API writes is ordinary git that `git log` and `git fsck` accept,
// and merges are git's own three-way merges.
package git

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Sentinel errors; the HTTP layer maps them to the spec's statuses.
var (
	// ErrNotFound: no such repository, ref, commit, path or object.
	ErrNotFound = errors.New("git: not found")
	// ErrStale: a compare-and-swap on a ref met another value than expected
	// (the branch was updated concurrently, Errors rule 5).
	ErrStale = errors.New("git: ref changed concurrently")
	// ErrExists: a ref that must not exist does.
	ErrExists = errors.New("git: ref already exists")
	// ErrRefClash: a new ref would be the directory of an existing one, or
	// the reverse (refs/heads/a beside refs/heads/a/b).
	ErrRefClash = errors.New("git: ref clashes with an existing ref")
	// ErrClosed: the manager was closed.
	ErrClosed = errors.New("git: repositories closed")
)

// MinVersion is the oldest git this package works with: `merge-tree
// --write-tree` (real merges without a work tree) arrived in 2.38.
var MinVersion = [2]int{2, 38}

// CommandTimeout bounds every git command one request runs.
var CommandTimeout = 60 * time.Second

// CmdError is a git command that failed.
type CmdError struct {
	Args   []string
	Code   int
	Stderr string
}

func (e *CmdError) Error() string {
	return fmt.Sprintf("git %s: exit %d: %s", strings.Join(e.Args, " "), e.Code, strings.TrimSpace(e.Stderr))
}

var versionRe = regexp.MustCompile(`git version (\d+)\.(\d+)`)

// Check finds git on PATH and verifies its version, once per process; the
// reference refuses to start without it (its repositories are real git
// repositories).
func Check() (string, error) { return checkOnce() }

var checkOnce = sync.OnceValues(check)

func check() (string, error) {
	path, err := exec.LookPath("git")
	if err != nil {
		return "", fmt.Errorf("git %d.%d or later is required on PATH for project repositories: %w", MinVersion[0], MinVersion[1], err)
	}
	out, err := exec.Command(path, "version").Output()
	if err != nil {
		return "", fmt.Errorf("running %s version: %w", path, err)
	}
	m := versionRe.FindSubmatch(out)
	if m == nil {
		return "", fmt.Errorf("cannot read the version of %s: %q", path, out)
	}
	major, _ := strconv.Atoi(string(m[1]))
	minor, _ := strconv.Atoi(string(m[2]))
	if major < MinVersion[0] || major == MinVersion[0] && minor < MinVersion[1] {
		return "", fmt.Errorf("git %d.%d or later is required (merge-tree --write-tree); %s is %d.%d", MinVersion[0], MinVersion[1], path, major, minor)
	}
	return strings.TrimSpace(string(out)), nil
}

// Manager owns the repositories of one server instance. Its directory is
// created on first use, so servers that never create a project leave nothing
// behind; a temporary one is removed by Close.
type Manager struct {
	clock func() time.Time

	mu      sync.Mutex
	initMu  sync.Mutex // serialises Ensure
	dir     string
	temp    bool
	made    bool
	closed  bool
	repos   map[int]*Repo
	baseEnv []string

	// removing holds, by project, the removal (Remove) whose files are not
	// yet out of the project's directory: nothing may take that path until
	// it is closed, or the late removal would delete what took it (a reset
	// restoring the seed's repository, a restart adopting it).
	removing map[int]chan struct{}
	// removals counts removals whose files are not yet deleted (Close waits).
	removals sync.WaitGroup
}

// NewManager returns a manager storing repositories under dir, or in a
// temporary directory when dir is empty. clock dates the commits the server
// makes, so a fixed clock gives the same commit SHAs on every run.
func NewManager(dir string, clock func() time.Time) *Manager {
	if clock == nil {
		clock = time.Now
	}
	if dir != "" {
		// git runs in the repository's directory with GIT_DIR set, so a
		// relative path would be read from there (--data-dir dd/ failed so).
		if abs, err := filepath.Abs(dir); err == nil {
			dir = abs
		}
	}
	return &Manager{dir: dir, temp: dir == "", clock: clock, repos: map[int]*Repo{}, removing: map[int]chan struct{}{}}
}

// Now is the manager's clock.
func (m *Manager) Now() time.Time { return m.clock() }

// Dir is where the repositories live ("" until the first one is created in a temporary directory).
func (m *Manager) Dir() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.dir
}

// prepare creates the storage directory and the environment every command
// runs with: no system or global configuration, a private HOME, C locale and
// literal pathspecs, so results never depend on the machine's git setup and
// user paths are never read as pathspec magic.
func (m *Manager) prepare() error {
	if m.closed {
		return ErrClosed
	}
	if m.made {
		return nil
	}
	if m.temp {
		d, err := os.MkdirTemp("", "v4cert-repos-")
		if err != nil {
			return err
		}
		m.dir = d
	} else if err := os.MkdirAll(m.dir, 0o755); err != nil {
		return err
	}
	// Repositories a reset moved aside and a crash kept from deleting.
	if left, _ := filepath.Glob(filepath.Join(m.dir, ".removed-*")); len(left) > 0 {
		for _, d := range left {
			os.RemoveAll(d)
		}
	}
	home := filepath.Join(m.dir, ".home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		return err
	}
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "GIT_") || strings.HasPrefix(kv, "HOME=") || strings.HasPrefix(kv, "XDG_CONFIG_HOME=") ||
			strings.HasPrefix(kv, "LC_") || strings.HasPrefix(kv, "LANG=") || strings.HasPrefix(kv, "LANGUAGE=") {
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "HOME="+home, "XDG_CONFIG_HOME="+home, "LC_ALL=C", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_TERMINAL_PROMPT=0", "GIT_LITERAL_PATHSPECS=1", "GIT_NO_REPLACE_OBJECTS=1",
		"GIT_ATTR_NOSYSTEM=1")
	m.baseEnv = env
	m.made = true
	return nil
}

// Create makes an empty bare repository for project id whose HEAD names
// defaultBranch. The skeleton is written directly (what `git init --bare`
// writes), which costs no process.
func (m *Manager) Create(id int, defaultBranch string) (*Repo, error) {
	if defaultBranch == "" {
		defaultBranch = "main"
	}
	if !ValidRefName(defaultBranch) {
		return nil, fmt.Errorf("git: invalid default branch %q", defaultBranch)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	dir, err := m.slot(id)
	if err != nil {
		return nil, err
	}
	for _, sub := range []string{"objects/info", "objects/pack", "refs/heads", "refs/tags", "info", "lfs/objects"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			return nil, err
		}
	}
	files := map[string]string{
		"HEAD": "ref: refs/heads/" + defaultBranch + "\n",
		// gc.auto=0: the server never packs behind a request's back;
		// allowAnySHA1InWant lets start_project fetch a commit by SHA.
		"config":      "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = true\n[gc]\n\tauto = 0\n[uploadpack]\n\tallowAnySHA1InWant = true\n",
		"description": "v4cert project repository\n",
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			return nil, err
		}
	}
	return m.register(id, dir), nil
}

// slot readies the directory of project id for a new repository: the
// storage exists, and an older repository of id is closed and removed.
func (m *Manager) slot(id int) (string, error) {
	if err := m.prepare(); err != nil {
		return "", err
	}
	m.awaitRemoval(id)
	if old := m.repos[id]; old != nil {
		old.close()
	}
	dir := m.repoDir(id)
	return dir, os.RemoveAll(dir)
}

func (m *Manager) repoDir(id int) string {
	return filepath.Join(m.dir, fmt.Sprintf("project-%d.git", id))
}

func (m *Manager) register(id int, dir string) *Repo {
	r := &Repo{m: m, id: id, dir: dir, lastCommit: map[string]Oid{}}
	m.repos[id] = r
	return r
}

// Get returns the repository of project id.
func (m *Manager) Get(id int) (*Repo, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, ErrClosed
	}
	r := m.repos[id]
	if r == nil {
		return m.adopt(id)
	}
	return r, nil
}

// adopt takes over a repository a previous server left in a lasting
// directory (--data-dir): repositories outlive the process there. A
// repository being removed is gone already, not adopted again.
func (m *Manager) adopt(id int) (*Repo, error) {
	if m.temp || m.removing[id] != nil {
		return nil, ErrNotFound
	}
	dir := m.repoDir(id)
	if fi, err := os.Stat(filepath.Join(dir, "HEAD")); err != nil || !fi.Mode().IsRegular() {
		return nil, ErrNotFound
	}
	if err := m.prepare(); err != nil {
		return nil, err
	}
	return m.register(id, dir), nil
}

// RemoveAll deletes every repository (POST /-/reset); the manager stays open
// for new ones. Removals still pending are finished first (the caller has
// stopped requests, so no write holds them up); then the directories are
// moved aside at once and deleted in the background, so a reset does not
// wait for the deletion and new repositories may take the same paths at once.
func (m *Manager) RemoveAll() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return ErrClosed
	}
	for id := range m.removing {
		m.awaitRemoval(id)
	}
	repos := m.repos
	m.repos = map[int]*Repo{}
	for _, r := range repos {
		r.gone.Store(true)
	}
	if !m.made {
		return nil
	}
	trash, err := os.MkdirTemp(m.dir, ".removed-")
	if err != nil {
		return err
	}
	entries, err := os.ReadDir(m.dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "project-") && strings.HasSuffix(e.Name(), ".git") {
			if err := os.Rename(filepath.Join(m.dir, e.Name()), filepath.Join(trash, e.Name())); err != nil {
				return err
			}
		}
	}
	m.removals.Add(1)
	go func() {
		defer m.removals.Done()
		for _, r := range repos {
			r.wmu.Lock()
			r.close()
			r.wmu.Unlock()
		}
		os.RemoveAll(trash)
	}()
	return nil
}

// awaitRemoval waits, with m.mu held on entry and on return, until no
// removal of project id holds its directory. The lock is released while
// waiting: the removal itself takes it to finish.
func (m *Manager) awaitRemoval(id int) {
	for {
		done := m.removing[id]
		if done == nil {
			return
		}
		m.mu.Unlock()
		<-done
		m.mu.Lock()
	}
}

// Snapshot copies the repository of project id into dir (a template a
// reset restores, cheaper than writing its commits again).
func (m *Manager) Snapshot(id int, dir string) error {
	r, err := m.Get(id)
	if err != nil {
		return err
	}
	r.wmu.Lock()
	defer r.wmu.Unlock()
	return copyTree(r.dir, dir)
}

// Restore makes the repository of project id a copy of a snapshot.
func (m *Manager) Restore(id int, snapshot string) (*Repo, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	dir, err := m.slot(id)
	if err != nil {
		return nil, err
	}
	if err := copyTree(snapshot, dir); err != nil {
		return nil, err
	}
	return m.register(id, dir), nil
}

// copyTree copies a directory of regular files.
func copyTree(from, to string) error {
	return filepath.WalkDir(from, func(p string, e os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(from, p)
		if err != nil {
			return err
		}
		dst := filepath.Join(to, rel)
		if e.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	})
}

// Ensure returns the repository of project id, creating it with init when
// the project has none yet.
func (m *Manager) Ensure(id int, defaultBranch string, init func(*Repo) error) (*Repo, error) {
	if r, err := m.Get(id); err == nil || !errors.Is(err, ErrNotFound) {
		return r, err
	}
	m.initMu.Lock()
	defer m.initMu.Unlock()
	if r, err := m.Get(id); err == nil || !errors.Is(err, ErrNotFound) {
		return r, err
	}
	r, err := m.Create(id, defaultBranch)
	if err != nil {
		return nil, err
	}
	if init != nil {
		if err := init(r); err != nil {
			m.Remove(id)
			return nil, err
		}
	}
	return r, nil
}

// Remove detaches the repository of project id at once and deletes its
// files once a write in progress has finished (without waiting for it, so a
// caller may hold other locks that write waits on). Until the files are out
// of the project's directory, the path is held: a reset, a restore or a new
// repository of id waits for it (awaitRemoval), and Get finds nothing.
func (m *Manager) Remove(id int) {
	m.mu.Lock()
	r := m.repos[id]
	delete(m.repos, id)
	if r == nil || m.removing[id] != nil {
		m.mu.Unlock()
		return
	}
	r.gone.Store(true)
	done := make(chan struct{})
	m.removing[id] = done
	m.removals.Add(1)
	m.mu.Unlock()
	go func() {
		defer m.removals.Done()
		r.wmu.Lock()
		r.close()
		// Moved aside under the write lock, deleted after the path is free.
		trash, err := os.MkdirTemp(filepath.Dir(r.dir), ".removed-")
		if err != nil || os.Rename(r.dir, filepath.Join(trash, filepath.Base(r.dir))) != nil {
			os.RemoveAll(r.dir) // no room aside: deleted in place, the path still held
		}
		r.wmu.Unlock()
		m.mu.Lock()
		delete(m.removing, id)
		m.mu.Unlock()
		close(done)
		if trash != "" {
			os.RemoveAll(trash)
		}
	}()
}

// Close stops every long-lived git process and, for a temporary directory,
// removes every repository.
func (m *Manager) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil
	}
	m.closed = true
	for _, r := range m.repos {
		r.close()
	}
	m.repos = nil
	// Removals finish before Close returns: a restart on the same directory
	// must not meet a deletion still under way.
	m.mu.Unlock()
	m.removals.Wait()
	m.mu.Lock()
	if m.temp && m.dir != "" {
		return os.RemoveAll(m.dir)
	}
	return nil
}

// run executes git in repository dir with env added, bounded by CommandTimeout.
func (m *Manager) run(ctx context.Context, dir string, stdin io.Reader, env []string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, CommandTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Env = append(append(append([]string(nil), m.baseEnv...), "GIT_DIR="+dir), env...)
	cmd.Dir = dir
	cmd.Stdin = stdin
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	err := cmd.Run()
	if err != nil {
		code := -1
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		}
		if ctx.Err() != nil {
			return stdout.Bytes(), fmt.Errorf("git %s: %w", strings.Join(args, " "), ctx.Err())
		}
		return stdout.Bytes(), &CmdError{Args: args, Code: code, Stderr: stderr.String()}
	}
	return stdout.Bytes(), nil
}
