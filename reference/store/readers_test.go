package store

import (
	"fmt"
	"sync"
	"testing"
	"time"
)

// TestReadersChangeNothingShared: readers hold only the shared lock, so a
// read that fills a cache must do it under a lock of its own. Two user lists
// ordered by name at once after a write stopped the server with "concurrent
// map writes"; under the race detector (make race) this fails on any such
// read, with no other synchronisation between the readers to hide it.
func TestReadersChangeNothingShared(t *testing.T) {
	st := New(func() time.Time { return FixedTime })
	st.Write(func(d *Data) error {
		for i := range 20 {
			name := fmt.Sprintf("user%02d", 20-i)
			if _, err := d.CreateUser(NewUser{Username: name, Name: name, Email: name + "@example.com"}); err != nil {
				return err
			}
		}
		return nil
	})
	fields := []string{"name", "username", "created_at", "updated_at"}
	for round := range 3 {
		var wg sync.WaitGroup
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				st.Read(func(d *Data) error {
					for _, f := range fields {
						if got := d.UsersOrdered(f); len(got) != 20 {
							t.Errorf("round %d: %s ordering has %d users", round, f, len(got))
						}
					}
					return nil
				})
			}()
		}
		wg.Wait()
		st.Write(func(d *Data) error { return nil }) // a write drops the orderings
	}
}
