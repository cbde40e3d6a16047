package reference

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/v4cert/v4cert/reference/store"
	"github.com/v4cert/v4cert/reference/workflow/repository"
)

// World is the world a server starts with, and goes back to on POST /-/reset:
// the administrator root with its token, then a named seed (demo, none) or a
// seed file.
type World struct {
	rootToken      string
	rootTokenGiven bool
	seed           string
	file           *SeedFile
}

func worldOf(cfg Config) (*World, error) {
	w := &World{rootToken: cfg.RootToken, rootTokenGiven: cfg.RootToken != "", seed: cfg.Seed}
	if w.rootToken == "" {
		w.rootToken = store.NewSecret("glpat-")
	}
	if cfg.SeedFile != "" {
		f, err := LoadSeedFile(cfg.SeedFile)
		if err != nil {
			return nil, err
		}
		w.file, w.seed = f, ""
		return w, nil
	}
	switch w.seed {
	case "", "none", "demo":
		return w, nil
	}
	return nil, fmt.Errorf("unknown seed %q (want demo or none, or --seed-file FILE)", w.seed)
}

// build creates the world in d, an empty state.
func (w *World) build(d *store.Data) (Account, []Account, error) {
	root, err := d.CreateUser(store.NewUser{Username: "root", Name: "Administrator", Email: "admin@example.com", Admin: true, SkipConfirmation: true})
	if err != nil {
		return Account{}, nil, err
	}
	if _, err := d.CreateToken(root, "root", RootScopes, nil, w.rootToken); err != nil {
		return Account{}, nil, err
	}
	rootAccount := Account{Role: "administrator", Username: "root", Token: w.rootToken}
	var accounts []Account
	switch {
	case w.file != nil:
		accounts, err = w.file.build(d, root)
	case w.seed == "demo":
		accounts, err = seedDemo(d, root)
	}
	return rootAccount, accounts, err
}

// accounts names the seeded accounts without building anything, for a world
// restored from a data dir.
func (w *World) accounts() (Account, []Account) {
	st := store.New(func() time.Time { return store.FixedTime })
	var root Account
	var accounts []Account
	st.Write(func(d *store.Data) error {
		root, accounts, _ = w.build(d)
		return nil
	})
	return root, accounts
}

// provisionRepositories gives every project without a repository its own:
// a seed file's files and branches, a README commit for projects that are not
// empty (initialize_with_readme, the demo world), otherwise an empty one. It
// runs when the world is built, so no read ever creates a repository.
func (i *Instance) provisionRepositories(ctx context.Context) error {
	type todo struct {
		project store.Project
		creator store.User
	}
	var list []todo
	repos := i.Server.Repositories()
	i.Server.Store().Read(func(d *store.Data) error {
		for _, p := range d.Projects() {
			if _, err := repos.Get(p.ID); !errors.Is(err, repository.ErrNotFound) {
				continue
			}
			t := todo{project: *p}
			if u := d.User(p.CreatorID); u != nil {
				t.creator = *u
			}
			list = append(list, t)
		}
		return nil
	})
	for _, t := range list {
		if snap, ok := i.snapshots[t.project.ID]; ok {
			if _, err := repos.Restore(t.project.ID, snap); err != nil {
				return fmt.Errorf("repository of project %d: %w", t.project.ID, err)
			}
			continue
		}
		var full string
		i.Server.Store().Read(func(d *store.Data) error { full = d.ProjectFullPath(&t.project); return nil })
		content := i.world.file.repository(full)
		if content == nil {
			if err := repos.Create(ctx, &t.project, &t.creator, !t.project.EmptyRepo); err != nil {
				return fmt.Errorf("repository of %s: %w", full, err)
			}
			continue
		}
		if err := seedRepository(ctx, repos, t.project.ID, content, &t.creator); err != nil {
			return fmt.Errorf("repository of %s: %w", full, err)
		}
	}
	return nil
}

// seedRepository writes a seed file project's files to its default branch
// and its branches on top of theirs, committed by the project's creator.
func seedRepository(ctx context.Context, repos *repository.Workflows, projectID int, sp *SeedProject, creator *store.User) error {
	branches := make([]repository.SeedBranch, len(sp.Branches))
	for k, b := range sp.Branches {
		branches[k] = repository.SeedBranch{Name: b.Name, From: b.From, Files: b.Files}
	}
	return repos.Seed(ctx, projectID, sp.defaultBranch(), sp.Files, branches, creator)
}

// snapshotSeed keeps a copy of every seeded repository, so a reset copies
// files rather than writing the same commits again (the same SHAs, too,
// whatever the clock).
func (i *Instance) snapshotSeed() error {
	if i.snapshots != nil {
		return nil
	}
	// Under --data-dir the copies live there (a crash leaves nothing in /tmp);
	// otherwise in a temporary directory that Close removes.
	var dir string
	var err error
	if i.cfg.DataDir != "" {
		dir = filepath.Join(i.cfg.DataDir, "seed-repositories")
		if err = os.RemoveAll(dir); err == nil {
			err = os.MkdirAll(dir, 0o755)
		}
	} else {
		dir, err = os.MkdirTemp("", "v4cert-seed-")
	}
	if err != nil {
		return err
	}
	snaps := map[int]string{}
	var ids []int
	i.Server.Store().Read(func(d *store.Data) error {
		for _, p := range d.Projects() {
			ids = append(ids, p.ID)
		}
		return nil
	})
	for _, id := range ids {
		to := filepath.Join(dir, fmt.Sprintf("project-%d.git", id))
		if err := i.Server.Repositories().Snapshot(id, to); err != nil {
			os.RemoveAll(dir)
			return err
		}
		snaps[id] = to
	}
	i.snapshots = snaps
	if i.cfg.DataDir == "" {
		i.snapshotDir = dir
	}
	return nil
}
