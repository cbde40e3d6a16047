// Package store is the reference server's in-memory state: the domain objects and
// the rules that relate them (hierarchy, memberships, effective access), free of HTTP.
package store

import (
	"cmp"
	"errors"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/v4cert/v4cert/reference/access"
)

// Sentinel errors; the HTTP layer maps them to statuses in one place.
var (
	ErrNotFound = errors.New("not found")
	ErrConflict = errors.New("conflict")
)

// ValidationError carries the per-property messages of Errors rule 3.
type ValidationError struct {
	Fields map[string][]string
}

func (e *ValidationError) Error() string {
	keys := make([]string, 0, len(e.Fields))
	for k := range e.Fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(k + " " + strings.Join(e.Fields[k], ", ") + "; ")
	}
	return strings.TrimSuffix(b.String(), "; ")
}

// Invalid builds a one-property validation error.
func Invalid(field, msg string) *ValidationError {
	return &ValidationError{Fields: map[string][]string{field: {msg}}}
}

// Clock gives the current time; with a fixed clock time stands still so answers
// are byte-identical across runs.
type Clock func() time.Time

// FixedTime is the instant a fixed clock shows.
var FixedTime = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Store guards Data with a read-write lock: reads run in parallel, writes
// alone. With a Backend (Open), every write is stored before it returns.
type Store struct {
	mu     sync.RWMutex
	d      *Data
	db     Backend
	gc     groupCommit
	verify bool
	writes atomic.Uint64
}

// New returns an empty store using clock.
func New(clock Clock) *Store {
	d := newData(clock)
	d.cached = true
	return &Store{d: d}
}

// Read runs fn with shared access.
func (s *Store) Read(fn func(d *Data) error) error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return fn(s.d)
}

// Write runs fn with exclusive access. fn must check everything before it
// changes anything, so a failed request leaves nothing half-written. With a
// backend, the records fn touched are committed before Write returns, so an
// acknowledged write survives a crash; a failed commit answers ErrPersist.
func (s *Store) Write(fn func(d *Data) error) error {
	s.writes.Add(1)
	s.mu.Lock()
	s.d.cached = false
	err := fn(s.d)
	// Any write may have renamed, blocked or touched anything a list derives.
	s.d.cache.drop()
	s.d.issuables.drop()
	s.d.cached = true
	if s.db == nil {
		s.mu.Unlock()
		return err
	}
	// Stored even when fn failed: whatever it touched is stored as it is.
	if s.verify {
		perr := s.persistLocked()
		s.mu.Unlock()
		return cmp.Or(perr, err)
	}
	changes, perr := s.encode()
	var batch uint64
	// A write that changed nothing still waits for what an earlier failed
	// commit left pending: what it acknowledges may rest on it (a retried
	// create finds the record the failed one left in memory).
	if perr == nil && (len(changes) > 0 || s.gc.hasPending()) {
		batch = s.gc.enqueue(changes)
	}
	s.mu.Unlock()
	if batch > 0 {
		// Acknowledged only once durable; the disk is waited for outside
		// the lock (group commit, persist.go).
		perr = s.gc.wait(s.db, batch)
	}
	return cmp.Or(perr, err)
}

// Writes counts the writes begun so far, so tests can hold a read to the
// shared lock (a GET never writes).
func (s *Store) Writes() uint64 { return s.writes.Load() }

// SourceType names what a membership, link or access request belongs to, with
// the platform's words.
type SourceType string

// The two kinds of membership source.
const (
	SourceGroup   SourceType = "Namespace"
	SourceProject SourceType = "Project"
)

// Data is the whole state. Its methods assume the caller holds the Store's lock.
type Data struct {
	Now Clock

	seq map[string]int

	users       []*User // ascending id
	userByID    map[int]*User
	userByName  map[string]*User // lower-cased username
	userByEmail map[string]*User // lower-cased email
	tokens      map[string]*Token
	jobTokens   map[string]*JobToken

	groups   map[int]*Group
	userNS   map[int]*UserNamespace // namespace id -> personal namespace
	projects map[int]*Project
	members  map[memberKey]*Member
	links    []*Link
	requests map[memberKey]*AccessRequest
	topics   map[int]*Topic
	cache    readCache // what lists derive between writes (index.go)
	cached   bool      // cache may be used: set by the Store outside its writes

	issuables issuableIndex // the issue and merge request lists' orderings (issuable_index.go)

	commitComments map[int][]*CommitComment // by project
	remoteMirrors  map[int][]*RemoteMirror  // by project, ascending id

	packageRules map[int][]*PackageProtectionRule // by project, ascending id

	integrations map[int]map[string]*Integration // by project, then slug

	issues   map[int]*Issue              // by global id
	snippets map[int]*Snippet            // by id
	notes    map[int]*Note               // by id
	awards   map[Awardable][]*AwardEmoji // ascending id

	// CI (ci.go): runners, their managers by runner, pipelines, jobs.
	runners        map[int]*Runner
	runnerManagers map[int][]*RunnerManager
	pipelines      map[int]*Pipeline
	jobs           map[int]*Job

	bulkImports map[int]*BulkImport // direct-transfer migrations, by id

	// merge requests (merge_requests.go) and what they carry: labels and
	// milestones by project, blocks, to-do items
	mergeRequests map[int]*MergeRequest   // by global id
	projectMRs    map[int][]*MergeRequest // by project, ascending iid
	allMRs        []*MergeRequest         // ascending id
	mrBlocks      map[int]*MRBlock        // by id
	labels        map[int][]*Label        // by project, ascending id
	milestones    map[int]*Milestone      // by global id
	todos         map[int]*Todo           // by id

	// dirty is the set of records the write in progress touched; nil
	// without persistence (persist.go).
	dirty map[record]struct{}

	// container registry (registry.go): the project API's records of the
	// registry host's repositories; nil until the first push
	registryRepos map[int]*RegistryRepository // by id
}

type memberKey struct {
	Type   SourceType
	Source int
	User   int
}

func newData(clock Clock) *Data {
	return &Data{
		Now:         clock,
		seq:         map[string]int{},
		userByID:    map[int]*User{},
		userByName:  map[string]*User{},
		userByEmail: map[string]*User{},
		tokens:      map[string]*Token{},
		groups:      map[int]*Group{},
		userNS:      map[int]*UserNamespace{},
		projects:    map[int]*Project{},
		members:     map[memberKey]*Member{},
		requests:    map[memberKey]*AccessRequest{},
		topics:      map[int]*Topic{},
	}
}

// next returns the next sequential ID of a kind; namespaces (groups and
// personal namespaces) share one sequence, as on the platform.
func (d *Data) next(kind string) int {
	d.touchKey(tSeq, kind)
	d.seq[kind]++
	return d.seq[kind]
}

// Level is re-exported for brevity inside the store.
type Level = access.Level
