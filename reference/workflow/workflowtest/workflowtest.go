// Package workflowtest runs a workflow package's tests against every store
// backend, as distribution's storage-driver suite runs one suite against
// every driver: the in-memory store and the persisted one (bbolt under a
// test's temporary directory, the --data-dir store), each with real git
// repositories. A suite sees a World and never which backend it runs on,
// except through Reopen.
package workflowtest

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/v4cert/v4cert/reference/store"
	"github.com/v4cert/v4cert/reference/workflow/repository"
)

// World is what a suite starts from: a store holding one user and one
// project (Project, whose repository has a README commit on main when the
// suite asked for one), and that store's repository workflows.
type World struct {
	Store   *store.Store
	Repos   *repository.Workflows
	User    *store.User
	Project *store.Project
	// Reopen returns the state a restart would find: for the persisted
	// backend a new store loaded from disk, for the in-memory one the same
	// store. The old store must not be written afterwards.
	Reopen func(t *testing.T) *store.Store
}

// Target is the project's repository as the user writes it.
func (w *World) Target(t *testing.T) *repository.Target {
	t.Helper()
	r, err := w.Repos.Get(w.Project.ID)
	if err != nil {
		t.Fatal(err)
	}
	return &repository.Target{ProjectID: w.Project.ID, DefaultBranch: w.Project.DefaultBranch, Repo: r, By: w.User}
}

// Clock is the fixed clock every backend's store runs on, so commits made
// by the same writes have the same names on both.
func Clock() time.Time { return store.FixedTime }

// Run runs suite once per backend, as subtests named after the backends.
// readme gives the project its README commit (initialize_with_readme).
func Run(t *testing.T, readme bool, suite func(t *testing.T, w *World)) {
	t.Run("memory", func(t *testing.T) {
		st := store.New(Clock)
		suite(t, build(t, st, readme, func(*testing.T) *store.Store { return st }))
	})
	t.Run("bolt", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "world.db")
		db, err := store.OpenBolt(path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		st, _, err := store.Open(Clock, db)
		if err != nil {
			t.Fatal(err)
		}
		reopen := func(t *testing.T) *store.Store {
			t.Helper()
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			if db, err = store.OpenBolt(path); err != nil {
				t.Fatal(err)
			}
			st, restored, err := store.Open(Clock, db)
			if err != nil || !restored {
				t.Fatalf("reopening the data dir: restored %v, %v", restored, err)
			}
			return st
		}
		suite(t, build(t, st, readme, reopen))
	})
}

func build(t *testing.T, st *store.Store, readme bool, reopen func(*testing.T) *store.Store) *World {
	t.Helper()
	w := &World{Store: st, Reopen: reopen}
	err := st.Write(func(d *store.Data) error {
		u, err := d.CreateUser(store.NewUser{Username: "writer", Name: "Writer", Email: "writer@example.com", Password: "a-long-password-1"})
		if err != nil {
			return err
		}
		name := "workflows"
		p, err := d.CreateProject(u, store.ProjectFields{Name: &name, InitializeWithReadme: readme})
		if err != nil {
			return err
		}
		cu, cp := *u, *p
		w.User, w.Project = &cu, &cp
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	repos, err := repository.New(st, filepath.Join(t.TempDir(), "repos"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { repos.Close() })
	w.Repos = repos
	if err := repos.Create(t.Context(), w.Project, w.User, readme); err != nil {
		t.Fatal(err)
	}
	return w
}
