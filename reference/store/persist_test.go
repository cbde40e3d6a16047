package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestEveryFieldPersistedOrDerived fails when a field of Data is neither a
// persisted table (tables.go) nor declared derived: a new field must be
// given its place before it can lose data at a restart.
func TestEveryFieldPersistedOrDerived(t *testing.T) {
	d := newData(func() time.Time { return FixedTime })
	byAddr := map[uintptr]string{}
	for _, tb := range tables {
		byAddr[uintptr(tb.field(d))] = tb.name()
	}
	v := reflect.ValueOf(d).Elem()
	seen := map[string]bool{}
	for i := 0; i < v.NumField(); i++ {
		f := v.Type().Field(i)
		seen[f.Name] = true
		_, persisted := byAddr[v.Field(i).UnsafeAddr()]
		_, derived := derivedFields[f.Name]
		switch {
		case persisted && derived:
			t.Errorf("Data.%s is both a table and derived", f.Name)
		case !persisted && !derived:
			t.Errorf("Data.%s is neither persisted nor derived: add a table for it in tables.go (and d.Touch where it changes), or name it in derivedFields with how it is rebuilt", f.Name)
		}
	}
	for name := range derivedFields {
		if !seen[name] {
			t.Errorf("derivedFields names %s, which Data no longer has", name)
		}
	}
	if len(byAddr) != len(tables) {
		t.Errorf("two tables point at the same field")
	}
}

// TestPersistedTypesHaveNoHiddenFields fails when a persisted type holds an
// unexported field: JSON would drop it at every restart.
func TestPersistedTypesHaveNoHiddenFields(t *testing.T) {
	marshaler := reflect.TypeOf((*json.Marshaler)(nil)).Elem()
	seen := map[reflect.Type]bool{}
	var walk func(typ reflect.Type, path string)
	walk = func(typ reflect.Type, path string) {
		if seen[typ] || typ.Implements(marshaler) || reflect.PointerTo(typ).Implements(marshaler) {
			return
		}
		seen[typ] = true
		switch typ.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array:
			walk(typ.Elem(), path)
		case reflect.Map:
			walk(typ.Key(), path+"[key]")
			walk(typ.Elem(), path+"[]")
		case reflect.Struct:
			for i := 0; i < typ.NumField(); i++ {
				f := typ.Field(i)
				if !f.IsExported() {
					t.Errorf("%s.%s (%s) is unexported: it would not survive a restart", path, f.Name, typ)
					continue
				}
				walk(f.Type, path+"."+f.Name)
			}
		case reflect.Interface, reflect.Func, reflect.Chan:
			if path != "" && !strings.HasSuffix(path, "Settings[]") {
				t.Errorf("%s holds a %s, which JSON cannot carry faithfully", path, typ)
			}
		}
	}
	d := newData(func() time.Time { return FixedTime })
	v := reflect.ValueOf(d).Elem()
	for _, tb := range tables {
		for i := 0; i < v.NumField(); i++ {
			if v.Field(i).UnsafeAddr() == uintptr(tb.field(d)) {
				walk(v.Type().Field(i).Type, tb.name())
			}
		}
	}
}

func TestTouchOfAnUnknownTypePanics(t *testing.T) {
	d := newData(func() time.Time { return FixedTime })
	d.dirty = map[record]struct{}{}
	defer func() {
		if recover() == nil {
			t.Fatal("touching a type no table holds must panic")
		}
	}()
	d.Touch(&struct{ ID int }{1})
}

// memBackend is a Backend in memory: the reference for the shared suite.
type memBackend struct{ m map[string]map[string][]byte }

func (b *memBackend) Load(fn func(table, key string, value []byte) error) error {
	for t, recs := range b.m {
		for k, v := range recs {
			if err := fn(t, k, v); err != nil {
				return err
			}
		}
	}
	return nil
}

func (b *memBackend) Commit(changes []Change) error {
	for _, c := range changes {
		if b.m[c.Table] == nil {
			b.m[c.Table] = map[string][]byte{}
		}
		if c.Value == nil {
			delete(b.m[c.Table], c.Key)
		} else {
			b.m[c.Table][c.Key] = append([]byte(nil), c.Value...)
		}
	}
	return nil
}

func (b *memBackend) Replace(changes []Change) error {
	b.m = map[string]map[string][]byte{}
	return b.Commit(changes)
}

// TestBackends is the suite every Backend passes: records come back as
// committed, deletes delete, Replace leaves only what it was given, and a
// store reopened on the backend has the state the writes left.
func TestBackends(t *testing.T) {
	backends := map[string]func(t *testing.T) (Backend, func() Backend){
		"memory": func(t *testing.T) (Backend, func() Backend) {
			b := &memBackend{m: map[string]map[string][]byte{}}
			return b, func() Backend { return b }
		},
		"bolt": func(t *testing.T) (Backend, func() Backend) {
			path := filepath.Join(t.TempDir(), "world.db")
			b, err := OpenBolt(path)
			if err != nil {
				t.Fatal(err)
			}
			cur := b
			return b, func() Backend {
				cur.Close()
				nb, err := OpenBolt(path)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { nb.Close() })
				cur = nb
				return nb
			}
		},
	}
	for name, open := range backends {
		t.Run(name, func(t *testing.T) {
			b, reopen := open(t)
			read := func(b Backend) map[string]string {
				out := map[string]string{}
				if err := b.Load(func(table, key string, v []byte) error { out[table+"/"+key] = string(v); return nil }); err != nil {
					t.Fatal(err)
				}
				return out
			}
			must := func(err error) {
				t.Helper()
				if err != nil {
					t.Fatal(err)
				}
			}
			must(b.Commit([]Change{{"users", "1", []byte(`{"a":1}`)}, {"users", "2", []byte(`{"a":2}`)}, {"groups", "1", []byte(`{}`)}}))
			must(b.Commit([]Change{{"users", "2", nil}, {"users", "1", []byte(`{"a":3}`)}}))
			if got := read(b); len(got) != 2 || got["users/1"] != `{"a":3}` || got["groups/1"] != `{}` {
				t.Fatalf("after commits: %v", got)
			}
			b = reopen()
			if got := read(b); len(got) != 2 || got["users/1"] != `{"a":3}` {
				t.Fatalf("after reopening: %v", got)
			}
			must(b.Replace([]Change{{"topics", "7", []byte(`{}`)}}))
			if got := read(b); len(got) != 1 || got["topics/7"] != `{}` {
				t.Fatalf("after replace: %v", got)
			}

			// A store over the backend: seeded, written, reopened.
			clock := func() time.Time { return FixedTime }
			must(b.Replace(nil))
			st, restored, err := Open(clock, b)
			must(err)
			if restored {
				t.Fatal("an empty backend restores nothing")
			}
			st.Verify(true)
			must(st.Reset(func(d *Data) error {
				_, err := d.CreateUser(NewUser{Username: "ann", Name: "Ann", Email: "ann@example.com"})
				return err
			}))
			must(st.Write(func(d *Data) error {
				u, err := d.CreateUser(NewUser{Username: "ben", Name: "Ben", Email: "ben@example.com"})
				if err != nil {
					return err
				}
				d.SetUserState(u, "blocked")
				_, err = d.CreateGroup(NewGroup{Name: "G", Path: "g", CreatorID: u.ID})
				return err
			}))
			must(st.Write(func(d *Data) error { d.DeleteUser(d.UserByUsername("ann")); return nil }))
			st2, restored, err := Open(clock, reopen())
			must(err)
			if !restored {
				t.Fatal("a written backend restores")
			}
			st2.Read(func(d *Data) error {
				if d.UserByUsername("ann") != nil || d.UserByUsername("ben") == nil || d.UserByUsername("ben").State != "blocked" ||
					d.GroupByPath("g") == nil || d.UserCount() != 1 {
					t.Errorf("restored world: %d users, ann %v, ben %+v", d.UserCount(), d.UserByUsername("ann"), d.UserByUsername("ben"))
				}
				// The sequences came back too: the next id follows.
				if id := d.next("user"); id != 3 {
					t.Errorf("next user id after restore = %d, want 3", id)
				}
				return nil
			})
		})
	}
}

// TestVerifyNamesAnUntouchedChange: the verifying mode fails a write that
// changes an object without touching it, naming the record.
func TestVerifyNamesAnUntouchedChange(t *testing.T) {
	st, _, err := Open(func() time.Time { return FixedTime }, &memBackend{m: map[string]map[string][]byte{}})
	if err != nil {
		t.Fatal(err)
	}
	st.Verify(true)
	if err := st.Reset(func(d *Data) error {
		_, err := d.CreateUser(NewUser{Username: "ann", Name: "Ann", Email: "ann@example.com"})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	err = st.Write(func(d *Data) error {
		d.UserByUsername("ann").Bio = "changed behind the store's back"
		return nil
	})
	if err == nil || !strings.Contains(err.Error(), "users/1") {
		t.Fatalf("Write = %v, want an error naming users/1", err)
	}
}

// TestGroupCommitKeepsEveryWriteInOrder: concurrent writers, whose commits
// the group commit gathers, leave on disk exactly the state in memory, the
// last write to a shared record included.
func TestGroupCommitKeepsEveryWriteInOrder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "world.db")
	db, err := OpenBolt(path)
	if err != nil {
		t.Fatal(err)
	}
	clock := func() time.Time { return FixedTime }
	st, _, err := Open(clock, db)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Reset(func(d *Data) error {
		_, err := d.CreateUser(NewUser{Username: "shared", Name: "Shared", Email: "shared@example.com"})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 25; i++ {
				err := st.Write(func(d *Data) error {
					name := fmt.Sprintf("w-%d-%d", g, i)
					if _, err := d.CreateUser(NewUser{Username: name, Name: name, Email: name + "@example.com"}); err != nil {
						return err
					}
					d.SetUserState(d.UserByUsername("shared"), []string{"active", "blocked"}[(g+i)%2])
					return nil
				})
				if err != nil {
					t.Error(err)
					return
				}
			}
		}(g)
	}
	wg.Wait()
	var want []Change
	st.Read(func(d *Data) error { want, err = d.records(); return err })
	db.Close()
	db, err = OpenBolt(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	st2, _, err := Open(clock, db)
	if err != nil {
		t.Fatal(err)
	}
	var got []Change
	st2.Read(func(d *Data) error { got, err = d.records(); return err })
	if len(got) != len(want) || len(want) < 200 {
		t.Fatalf("%d records on disk, %d in memory", len(got), len(want))
	}
	for i := range want {
		if got[i].Table != want[i].Table || got[i].Key != want[i].Key || string(got[i].Value) != string(want[i].Value) {
			t.Fatalf("record %s/%s on disk differs from memory:\n%s\n%s", want[i].Table, want[i].Key, got[i].Value, want[i].Value)
		}
	}
}

// failingBackend fails every commit while failing is set.
type failingBackend struct {
	memBackend
	failing bool
}

func (b *failingBackend) Commit(changes []Change) error {
	if b.failing {
		return fmt.Errorf("disk full")
	}
	return b.memBackend.Commit(changes)
}

// TestWriteWaitsForAFailedCommit: a write that changes nothing is not
// acknowledged while what an earlier failed commit left pending is not on
// disk (a retried create finds the record the failed one left in memory and
// changes nothing), and it commits that record once the disk is back.
func TestWriteWaitsForAFailedCommit(t *testing.T) {
	db := &failingBackend{memBackend: memBackend{m: map[string]map[string][]byte{}}}
	st, _, err := Open(func() time.Time { return FixedTime }, db)
	if err != nil {
		t.Fatal(err)
	}
	createAnn := func(d *Data) error {
		if d.UserByUsername("ann") != nil {
			return nil // already there: nothing to change
		}
		_, err := d.CreateUser(NewUser{Username: "ann", Name: "Ann", Email: "ann@example.com"})
		return err
	}
	db.failing = true
	if err := st.Write(createAnn); !errors.Is(err, ErrPersist) {
		t.Fatalf("create with the disk failing = %v, want ErrPersist", err)
	}
	if err := st.Write(createAnn); !errors.Is(err, ErrPersist) {
		t.Fatalf("retried create with the disk still failing = %v, want ErrPersist", err)
	}
	db.failing = false
	if err := st.Write(createAnn); err != nil {
		t.Fatalf("retried create with the disk back = %v", err)
	}
	if len(db.m["users"]) != 1 {
		t.Fatalf("users on disk: %v, want ann", db.m["users"])
	}
	if err := st.Write(func(*Data) error { return nil }); err != nil {
		t.Fatalf("a write with nothing pending = %v", err)
	}
}
