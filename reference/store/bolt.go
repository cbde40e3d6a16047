package store

import (
	"errors"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// Bolt is the Backend of --data-dir: one bbolt file, a bucket per table. A
// commit is one bbolt transaction (copy-on-write pages, then the meta page
// that makes them current, fsynced), so a crash at any moment leaves the last
// committed state whole: a write in flight is lost, nothing else.
type Bolt struct {
	db *bolt.DB
}

// OpenBolt opens or creates the database at path. A second server on the
// same file is refused rather than waited for.
func OpenBolt(path string) (*Bolt, error) {
	// The free-page list is not written with every commit (it is rebuilt on
	// open) and is kept as a map: both keep a commit's cost independent of
	// the size of the file.
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: 2 * time.Second, NoFreelistSync: true, FreelistType: bolt.FreelistMapType})
	if err != nil {
		if errors.Is(err, berrors.ErrTimeout) {
			return nil, fmt.Errorf("%s is in use by another v4cert serve", path)
		}
		return nil, err
	}
	return &Bolt{db: db}, nil
}

// Load implements Backend.
func (b *Bolt) Load(fn func(table, key string, value []byte) error) error {
	return b.db.View(func(tx *bolt.Tx) error {
		return tx.ForEach(func(name []byte, bk *bolt.Bucket) error {
			return bk.ForEach(func(k, v []byte) error { return fn(string(name), string(k), v) })
		})
	})
}

// Commit implements Backend.
func (b *Bolt) Commit(changes []Change) error {
	return b.db.Update(func(tx *bolt.Tx) error { return apply(tx, changes) })
}

// Replace implements Backend.
func (b *Bolt) Replace(changes []Change) error {
	return b.db.Update(func(tx *bolt.Tx) error {
		var names [][]byte
		if err := tx.ForEach(func(name []byte, _ *bolt.Bucket) error {
			names = append(names, append([]byte(nil), name...))
			return nil
		}); err != nil {
			return err
		}
		for _, n := range names {
			if err := tx.DeleteBucket(n); err != nil {
				return err
			}
		}
		return apply(tx, changes)
	})
}

func apply(tx *bolt.Tx, changes []Change) error {
	for _, c := range changes {
		bk, err := tx.CreateBucketIfNotExists([]byte(c.Table))
		if err != nil {
			return err
		}
		if c.Value == nil {
			err = bk.Delete([]byte(c.Key))
		} else {
			err = bk.Put([]byte(c.Key), c.Value)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// Close releases the file.
func (b *Bolt) Close() error { return b.db.Close() }
