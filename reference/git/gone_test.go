package git

import (
	"context"
	"errors"
	"testing"
)

// TestReadOfARemovedRepositoryIsNotFound: a request handed a repository
// before its project was deleted (or the world reset) may read it after the
// files went away. Such a read answers ErrNotFound, as a request made after
// the removal would, never a failure the API turns into 500. The race is
// forced here: the read comes after Remove has moved the files out, in the
// order TestConcurrentLoad hits by chance.
func TestReadOfARemovedRepositoryIsNotFound(t *testing.T) {
	for _, how := range []string{"remove", "remove all"} {
		r := newRepo(t)
		ctx := context.Background()
		c := commit(t, r, "main", "one", Action{Kind: "create", Path: "a.txt", Content: []byte("a\n"), HasContent: true})
		// Reads before the removal work, and start the cat-file process
		// the later read reuses.
		if _, err := r.Commit(ctx, c); err != nil {
			t.Fatal(err)
		}
		switch how {
		case "remove":
			r.m.Remove(r.id)
			r.m.mu.Lock()
			r.m.awaitRemoval(r.id)
			r.m.mu.Unlock()
		case "remove all":
			if err := r.m.RemoveAll(); err != nil {
				t.Fatal(err)
			}
			r.m.removals.Wait()
		}
		r.cacheMu.Lock()
		r.parsed = map[Oid]any{} // read from the files, not the cache
		r.lastCommit = map[string]Oid{}
		r.cacheMu.Unlock()
		if _, err := r.Commit(ctx, c); !errors.Is(err, ErrNotFound) {
			t.Errorf("%s: reading a commit after the removal: %v, want ErrNotFound", how, err)
		}
		if _, err := r.Blame(ctx, c, "a.txt", 0, 0); !errors.Is(err, ErrNotFound) {
			t.Errorf("%s: blame after the removal: %v, want ErrNotFound", how, err)
		}
		if _, err := r.Log(ctx, LogOptions{Revs: []string{string(c)}}); !errors.Is(err, ErrNotFound) {
			t.Errorf("%s: log after the removal: %v, want ErrNotFound", how, err)
		}
	}
}
