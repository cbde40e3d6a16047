package registry

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"

	storagedriver "github.com/distribution/distribution/v3/registry/storage/driver"
)

// SaveContent copies every file of the registry host's storage (blobs,
// manifests, tags, upload state) into dir, for a named snapshot (POST
// /-/snapshots/NAME). The caller holds requests off, so nothing changes
// meanwhile; the records the project API shows live in the store, which
// the snapshot keeps beside this.
func (r *Registry) SaveContent(ctx context.Context, dir string) error {
	err := r.driver.Walk(ctx, "/docker", func(fi storagedriver.FileInfo) error {
		if fi.IsDir() {
			return nil
		}
		to := filepath.Join(dir, filepath.FromSlash(fi.Path()))
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return err
		}
		rd, err := r.driver.Reader(ctx, fi.Path(), 0)
		if err != nil {
			return err
		}
		defer rd.Close()
		f, err := os.Create(to)
		if err != nil {
			return err
		}
		if _, err := io.Copy(f, rd); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	})
	var nf storagedriver.PathNotFoundError
	if errors.As(err, &nf) {
		return nil // an empty registry
	}
	return err
}

// LoadContent makes the registry host's storage what SaveContent copied
// into dir: everything it holds now goes first.
func (r *Registry) LoadContent(ctx context.Context, dir string) error {
	if err := r.Reset(ctx); err != nil {
		return err
	}
	return filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, os.ErrNotExist) && p == dir {
				return nil
			}
			return err
		}
		if e.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		w, err := r.driver.Writer(ctx, "/"+filepath.ToSlash(rel), false)
		if err != nil {
			return err
		}
		if _, err := io.Copy(w, f); err != nil {
			w.Cancel(ctx)
			return err
		}
		return w.Commit(ctx)
	})
}
