package store

import "fmt"

// Export returns the whole state as records (POST /-/snapshots/NAME), the
// same records a backend stores, so Import and a restart read them alike.
func (s *Store) Export() ([]Change, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.d.records()
}

// Import replaces the whole state by records Export returned (POST
// /-/snapshots/NAME/restore); with a backend, its records are replaced in
// one transaction, as Reset does. Records that do not load change nothing.
func (s *Store) Import(records []Change) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	d := newData(s.d.Now)
	for _, c := range records {
		t := tableNamed[c.Table]
		if t == nil {
			return fmt.Errorf("a snapshot holds records of table %q, which this v4cert does not know", c.Table)
		}
		if err := t.load(d, c.Key, c.Value); err != nil {
			return fmt.Errorf("record %s/%s: %w", c.Table, c.Key, err)
		}
	}
	for _, t := range tables {
		t.ensure(d)
	}
	d.rebuildDerived()
	if s.db != nil {
		// Writes queued before the restore reach the disk first, so none
		// lands on top of the restored world.
		if err := s.gc.flush(s.db); err != nil {
			return err
		}
		if err := s.db.Replace(records); err != nil {
			return fmt.Errorf("%w: %v", ErrPersist, err)
		}
		d.dirty = map[record]struct{}{}
	}
	s.d = d
	return nil
}
