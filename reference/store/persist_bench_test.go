package store

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkPersistedWrite is one write (a user created, then one changed) in
// a world of 1,000 and of 100,000 users, in memory and with the data dir's
// bbolt backend: its cost must not grow with the world (only the touched
// records are encoded and committed).
func BenchmarkPersistedWrite(b *testing.B) {
	for _, n := range []int{1000, 100000} {
		for _, backend := range []string{"memory", "bolt"} {
			b.Run(fmt.Sprintf("users=%d/%s", n, backend), func(b *testing.B) {
				st := benchStore(b, n, backend)
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					err := st.Write(func(d *Data) error {
						u, err := d.CreateUser(NewUser{Username: fmt.Sprintf("new-%d", i), Name: "New", Email: fmt.Sprintf("new-%d@example.com", i)})
						if err != nil {
							return err
						}
						d.SetUserState(d.User(1+i%n), "blocked")
						_ = u
						return nil
					})
					if err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

func benchStore(b *testing.B, n int, backend string) *Store {
	b.Helper()
	clock := func() time.Time { return FixedTime }
	st := New(clock)
	if backend == "bolt" {
		db, err := OpenBolt(filepath.Join(b.TempDir(), "world.db"))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { db.Close() })
		if st, _, err = Open(clock, db); err != nil {
			b.Fatal(err)
		}
	}
	err := st.Reset(func(d *Data) error {
		for i := 0; i < n; i++ {
			if _, err := d.CreateUser(NewUser{Username: fmt.Sprintf("user-%06d", i), Name: "User", Email: fmt.Sprintf("user-%06d@example.com", i)}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return st
}
