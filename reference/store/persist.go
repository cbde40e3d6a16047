package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
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
		if err := s.db.Replace(all); err != nil {
			return fmt.Errorf("%w: %v", ErrPersist, err)
		}
		d.dirty = map[record]struct{}{}
	}
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

// persist commits the records the write touched; it runs under the write lock.
func (s *Store) persist() error {
	d := s.d
	if len(d.dirty) == 0 && !s.verify {
		return nil
	}
	changes := make([]Change, 0, len(d.dirty))
	for r := range d.dirty {
		v, err := r.t.get(d, r.key)
		if err != nil {
			return err
		}
		changes = append(changes, Change{Table: r.t.name(), Key: r.key, Value: v})
	}
	if err := s.commit(changes); err != nil {
		// Kept dirty: the next write commits them too.
		return fmt.Errorf("%w: %v", ErrPersist, err)
	}
	clear(d.dirty)
	if s.verify {
		if err := s.verifyAll(); err != nil {
			// Loud: the API turns it into a bare 500.
			fmt.Fprintln(os.Stderr, err)
			return err
		}
	}
	return nil
}

func (s *Store) commit(changes []Change) error {
	if len(changes) == 0 {
		return nil
	}
	return s.db.Commit(changes)
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
