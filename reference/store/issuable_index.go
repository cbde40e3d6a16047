package store

import (
	"slices"
	"sync"
)

// issuableIndex keeps the issuable lists' orderings between two writes, as
// readCache (index.go) does for users and projects, so a list page in the
// default or a declared order costs what the page holds (issue 21): the
// merge requests of a project or of every project, and the issues of a
// project, ascending by created_at or updated_at with ties by id, all of
// them or those in one state (the filter clients send most: Renovate's and
// the CLIs' state=opened). Readers
// hold only the store's shared lock, so it has a lock of its own; it is used
// only while Data.cached is set (Store.Write drops it and never reads it
// inside a write), and Data used without a Store sorts afresh every time.
type issuableIndex struct {
	mu     sync.Mutex
	mrs    map[issuableOrderKey][]*MergeRequest
	issues map[issuableOrderKey][]*Issue
}

type issuableOrderKey struct {
	project int    // 0: every project
	state   string // "": every state
	field   string
}

// drop forgets every ordering (a write may have changed anything).
func (x *issuableIndex) drop() {
	x.mu.Lock()
	x.mrs, x.issues = nil, nil
	x.mu.Unlock()
}

// indexedOrder maps an order_by the index keeps to its field ("" is the
// lists' default, created_at), and reports whether it keeps it.
func indexedOrder(orderBy string) (string, bool) {
	switch orderBy {
	case "", "created_at":
		return "created_at", true
	case "updated_at":
		return "updated_at", true
	}
	return "", false
}

// kept returns the ordering of project's records in state from m,
// computing it from pool the first time while d.cached; nil when the index
// does not keep orderBy.
func kept[T any](d *Data, m *map[issuableOrderKey][]T, project int, state, orderBy string, pool func() []T,
	stateOf func(T) string, cmp func(a, b T, field string) int) []T {
	field, ok := indexedOrder(orderBy)
	if !ok {
		return nil
	}
	sorted := func() []T {
		out := slices.Clone(pool())
		if state != "" {
			out = slices.DeleteFunc(out, func(it T) bool { return stateOf(it) != state })
		}
		by := func(a, b T) int { return cmp(a, b, field) }
		// Records are kept in creation order, already the created_at
		// order: checking costs n comparisons, sorting n log n.
		if !slices.IsSortedFunc(out, by) {
			slices.SortFunc(out, by)
		}
		if out == nil {
			out = []T{} // kept: nil means not computed yet
		}
		return out
	}
	if !d.cached {
		return sorted()
	}
	x := &d.issuables
	k := issuableOrderKey{project, state, field}
	x.mu.Lock()
	v, ok := (*m)[k]
	x.mu.Unlock()
	if ok {
		return v
	}
	// Computed without the lock: two readers that miss at once compute
	// the same ordering (no write runs between them).
	v = sorted()
	x.mu.Lock()
	if *m == nil {
		*m = map[issuableOrderKey][]T{}
	}
	(*m)[k] = v
	x.mu.Unlock()
	return v
}

// mergeRequestsOrdered returns the merge requests of project (every
// project's for 0) in state (every state for "") ascending by orderBy, or
// nil when the index does not keep that order. Callers must not change the
// slice.
func (d *Data) mergeRequestsOrdered(project int, state, orderBy string) []*MergeRequest {
	pool := func() []*MergeRequest {
		if project != 0 {
			return d.projectMRs[project]
		}
		return d.allMRs
	}
	stateOf := func(mr *MergeRequest) string { return mr.State }
	return kept(d, &d.issuables.mrs, project, state, orderBy, pool, stateOf, compareMRs)
}

// issuesOrdered returns the issues of project in state (every state for "")
// ascending by orderBy, or nil when the index does not keep that order.
// Callers must not change the slice.
func (d *Data) issuesOrdered(project int, state, orderBy string) []*Issue {
	pool := func() []*Issue {
		var out []*Issue
		for _, i := range d.issues {
			if i.ProjectID == project {
				out = append(out, i)
			}
		}
		return out
	}
	cmp := func(a, b *Issue, field string) int {
		c, _ := compareIssuables(a.issuable(), b.issuable(), field)
		return c
	}
	stateOf := func(i *Issue) string { return i.State }
	return kept(d, &d.issuables.issues, project, state, orderBy, pool, stateOf, cmp)
}
