package store

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// BenchmarkPersistedWrite is one write (a user created, then one changed) in
// a world of 1,000 and of 100,000 users, in memory and with the data dir's
// bbolt backend: its cost must not grow with the world (only the touched
// records are encoded and committed).
func BenchmarkPersistedWrite(b *testing.B) {
	for _, n := range []int{1000, 100000} {
		// bolt-nosync leaves out the fsync, which dominates and is the disk's:
		// what remains is the encoding and the B+tree update.
		for _, backend := range []string{"memory", "bolt", "bolt-nosync"} {
			b.Run(fmt.Sprintf("users=%d/%s", n, backend), func(b *testing.B) {
				st := benchStore(b, n, backend)
				cpu0 := cpuTime()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					err := st.Write(func(d *Data) error {
						name := fmt.Sprintf("new-%d-%d", b.N, i)
						if _, err := d.CreateUser(NewUser{Username: name, Name: "New", Email: name + "@example.com"}); err != nil {
							return err
						}
						d.SetUserState(d.User(1+i%n), "blocked")
						return nil
					})
					if err != nil {
						b.Fatal(err)
					}
				}
				// The process's CPU time per write: the part the program
				// controls, apart from waiting on the disk.
				b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(b.N), "cpu-µs/op")
			})
		}
	}
}

// benchStores keeps each world across the benchmark's rounds: building
// 100,000 users is the slow part.
var (
	benchStores = map[string]*Store{}
	benchDirs   []string
)

func TestMain(m *testing.M) {
	code := m.Run()
	for _, d := range benchDirs {
		os.RemoveAll(d)
	}
	os.Exit(code)
}

func benchStore(b *testing.B, n int, backend string) *Store {
	b.Helper()
	key := fmt.Sprint(n, backend)
	if st := benchStores[key]; st != nil {
		return st
	}
	clock := func() time.Time { return FixedTime }
	st := New(clock)
	if backend != "memory" {
		dir, err := os.MkdirTemp("", "v4cert-bench-")
		if err != nil {
			b.Fatal(err)
		}
		benchDirs = append(benchDirs, dir)
		db, err := OpenBolt(filepath.Join(dir, "world.db"))
		if err != nil {
			b.Fatal(err)
		}
		db.db.NoSync = backend == "bolt-nosync"
		// The file lives as long as the benchmark binary; its directory is removed with it.
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
	benchStores[key] = st
	return st
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
