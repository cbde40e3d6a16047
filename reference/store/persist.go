package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
)

// Persistence (--data-dir). The state stays the maps of Data; a Backend keeps
// a copy of it as records, one per object (a user, a project, a membership),
// or per small per-object list (the remote mirrors of one project), each the
// JSON of the object under its table and key (tables.go).
//
// A write must not cost more as the world grows, so the world is never
// written whole: whatever creates, changes or deletes an object of Data calls
// d.Touch(obj) (d.touchKey for values without identity). When the write's
// closure returns, Store.Write encodes just the touched records (an absent
// key is a delete) and the backend commits them in one transaction before the
// write is acknowledged. TestEveryFieldPersistedOrDerived fails when a field
// of Data is neither a table nor declared derived, and the verifying mode
// (Store.Verify) compares the whole state with the backend after every write,
// so a forgotten touch fails the tests that build a world through the API.

// Backend keeps the records outside memory. Every backend passes the shared
// suite of backend_test.go.
type Backend interface {
	// Load calls fn for every stored record.
	Load(fn func(table, key string, value []byte) error) error
	// Commit applies the changes atomically and durably: all or none.
	Commit(changes []Change) error
	// Replace drops every record and stores these instead (POST /-/reset).
	Replace(changes []Change) error
}

// Change is one record to store, or to delete when Value is nil.
type Change struct {
	Table, Key string
	Value      []byte
}

// ErrPersist wraps a failure to store a write; the API answers 503 and the
// next write retries what was not stored.
var ErrPersist = errors.New("store: the data dir could not be written")

// Open returns a store over db: the persisted world when db holds one
// (restored true), else an empty store that persists every write from now on.
func Open(clock Clock, db Backend) (st *Store, restored bool, err error) {
	d := newData(clock)
	err = db.Load(func(table, key string, value []byte) error {
		restored = true
		t := tableNamed[table]
		if t == nil {
			return fmt.Errorf("the data dir holds records of table %q, which this v4cert does not know (written by a newer version?)", table)
		}
		if err := t.load(d, key, value); err != nil {
			return fmt.Errorf("record %s/%s: %w", table, key, err)
		}
		return nil
	})
	if err != nil {
		return nil, false, err
	}
	for _, t := range tables {
		t.ensure(d)
	}
	d.rebuildDerived()
	d.dirty = map[record]struct{}{}
	d.cached = true
	return &Store{d: d, db: db}, restored, nil
}

// Reset replaces the whole state by a fresh one that seed builds (POST
// /-/reset, and the first seeding); with a backend, its records are replaced
// in one transaction.
func (s *Store) Reset(seed func(d *Data) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	d := newData(s.d.Now)
	if err := seed(d); err != nil {
		return err
	}
	if s.db != nil {
		all, err := d.records()
		if err != nil {
			return err
		}
		// Writes queued before the reset reach the disk first, so none
		// lands on top of the new world.
		if err := s.gc.flush(s.db); err != nil {
			return err
		}
		if err := s.db.Replace(all); err != nil {
			return fmt.Errorf("%w: %v", ErrPersist, err)
		}
		d.dirty = map[record]struct{}{}
	}
	d.cached = true
	s.d = d
	return nil
}

// Verify makes every write compare the whole state with the backend after it
// commits, returning an error that names the records a write changed without
// touching them. It costs a full encoding per write: for tests only.
func (s *Store) Verify(on bool) {
	s.mu.Lock()
	s.verify = on
	s.mu.Unlock()
}

// encode turns the records the write touched into changes, in a stable
// order, and forgets them; it runs under the write lock, while the objects
// cannot change.
func (s *Store) encode() ([]Change, error) {
	d := s.d
	changes := make([]Change, 0, len(d.dirty))
	for r := range d.dirty {
		v, err := r.t.get(d, r.key)
		if err != nil {
			return nil, err
		}
		changes = append(changes, Change{Table: r.t.name(), Key: r.key, Value: v})
	}
	clear(d.dirty)
	return changes, nil
}

// persistLocked commits the write's records before the lock is released:
// the verifying mode, which compares the whole state with the backend after
// the commit.
func (s *Store) persistLocked() error {
	changes, err := s.encode()
	if err != nil {
		return err
	}
	s.gc.enqueue(changes)
	if err := s.gc.flush(s.db); err != nil {
		return err
	}
	if err := s.verifyAll(); err != nil {
		// Loud: the API turns it into a bare 500.
		fmt.Fprintln(os.Stderr, err)
		return err
	}
	return nil
}

// groupCommit gathers the records of writes in the order the writes ran
// (they are queued under the store's write lock) and commits them in as few
// transactions as the disk allows: the first writer waiting for its batch
// commits every batch queued so far in one transaction, one fsync, while the
// others wait for it. Writers wait outside the store's lock, so readers and
// the next writers are not held up by the disk.
type groupCommit struct {
	mu         sync.Mutex
	cond       *sync.Cond
	pending    []Change // queued, not yet durable, in write order
	queued     uint64   // batches queued so far
	durable    uint64   // batches committed so far
	committing bool
}

// enqueue queues one write's changes and returns its batch number.
func (g *groupCommit) enqueue(changes []Change) uint64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.cond == nil {
		g.cond = sync.NewCond(&g.mu)
	}
	g.pending = append(g.pending, changes...)
	g.queued++
	return g.queued
}

// hasPending reports whether changes wait to be committed (a failed commit
// put them back).
func (g *groupCommit) hasPending() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.pending) > 0
}

// wait returns once batch n is durable, committing what is queued when no
// one else is. A failed commit puts its changes back in front, so the next
// commit retries them, and answers ErrPersist.
func (g *groupCommit) wait(db Backend, n uint64) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	for g.durable < n {
		if g.committing {
			g.cond.Wait()
			continue
		}
		batch, upto := g.pending, g.queued
		g.pending, g.committing = nil, true
		g.mu.Unlock()
		var err error
		if len(batch) > 0 {
			err = db.Commit(batch)
		}
		g.mu.Lock()
		g.committing = false
		g.cond.Broadcast()
		if err != nil {
			g.pending = append(batch, g.pending...)
			return fmt.Errorf("%w: %v", ErrPersist, err)
		}
		g.durable = upto
	}
	return nil
}

// flush makes everything queued durable.
func (g *groupCommit) flush(db Backend) error {
	g.mu.Lock()
	n := g.queued
	g.mu.Unlock()
	return g.wait(db, n)
}

// verifyAll compares every record of the state with the backend's.
func (s *Store) verifyAll() error {
	want, err := s.d.records()
	if err != nil {
		return err
	}
	have := map[string]string{}
	if err := s.db.Load(func(table, key string, value []byte) error {
		have[table+"/"+key] = string(value)
		return nil
	}); err != nil {
		return err
	}
	var diffs []string
	for _, c := range want {
		k := c.Table + "/" + c.Key
		if v, ok := have[k]; !ok {
			diffs = append(diffs, k+" is not stored")
		} else if v != string(c.Value) {
			diffs = append(diffs, k+" is stored as "+v+" but is "+string(c.Value))
		}
		delete(have, k)
	}
	for k := range have {
		diffs = append(diffs, k+" is stored but no longer exists")
	}
	if len(diffs) > 0 {
		sort.Strings(diffs)
		return fmt.Errorf("store: a write changed records without touching them (add d.Touch where they change): %s", strings.Join(diffs, "; "))
	}
	return nil
}

// record names one record: its table and its key.
type record struct {
	t   table
	key string
}

// Touch records that objs were created, changed or deleted by the write in
// progress; call it for every object a write changes. Outside persistence it
// costs a nil check.
func (d *Data) Touch(objs ...any) {
	if d.dirty == nil {
		return
	}
	for _, o := range objs {
		t, key := tableOf(o)
		d.touchKey(t, key)
	}
}

// touchKey records a change to the record with key in table t.
func (d *Data) touchKey(t table, key any) {
	if d.dirty == nil {
		return
	}
	k, err := json.Marshal(key)
	if err != nil {
		panic(err) // keys are ints, strings and small structs
	}
	d.dirty[record{t, string(k)}] = struct{}{}
}

// records encodes the whole state, table by table (reset, verification).
func (d *Data) records() ([]Change, error) {
	var out []Change
	for _, t := range tables {
		err := t.each(d, func(key string, value []byte) {
			out = append(out, Change{Table: t.name(), Key: key, Value: value})
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}
