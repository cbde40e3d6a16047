package store

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// TestReadCacheFollowsWrites checks the lists' indexes against the state
// they derive from: read through a Store (the cache in use), changed by a
// write, read again. A stale index would keep the old answer.
func TestReadCacheFollowsWrites(t *testing.T) {
	s := New(func() time.Time { return FixedTime })
	var g *Group
	var alice *User
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(s.Write(func(d *Data) error {
		var err error
		if alice, err = d.CreateUser(NewUser{Username: "Alice", Name: "Alice Ämber", Email: "a@example.com", PublicEmail: "Pub@Example.com"}); err != nil {
			return err
		}
		if g, err = d.CreateGroup(NewGroup{Name: "g", Path: "g", Visibility: "private", CreatorID: alice.ID}); err != nil {
			return err
		}
		for _, n := range []string{"beta", "Alpha", "gamma"} {
			if _, err := d.CreateProject(alice, ProjectFields{Name: &n, NamespaceID: &g.ID}); err != nil {
				return err
			}
		}
		return nil
	}))
	names := func(ps []*Project) []string {
		var out []string
		for _, p := range ps {
			out = append(out, p.Name)
		}
		return out
	}
	read := func(fn func(d *Data)) { must(s.Read(func(d *Data) error { fn(d); return nil })) }
	read(func(d *Data) {
		if got := names(d.GroupProjectsOrdered(g, false, "name")); !slices.Equal(got, []string{"Alpha", "beta", "gamma"}) {
			t.Errorf("by name: %v", got)
		}
		if got := len(d.Projects()); got != 3 {
			t.Errorf("Projects: %d", got)
		}
		for q, want := range map[string]int{"ämber": 1, "ali": 1, "al": 1, "zzz": 0, "pub@example.com": 1, "a@example.com": 0} {
			if got := len(d.SearchUsers(q, false)); got != want {
				t.Errorf("search %q: %d users, want %d", q, got, want)
			}
		}
		if got := len(d.SearchUsers("a@example.com", true)); got != 1 {
			t.Errorf("search by email with private emails: %d", got)
		}
		if got := d.UsersByUsernameFold("ALICE"); len(got) != 1 || got[0] != alice {
			t.Errorf("username fold: %v", got)
		}
	})
	must(s.Write(func(d *Data) error {
		alice.Name = "Carol"
		d.Projects()[0].Name = "zeta" // beta
		n := "delta"
		_, err := d.CreateProject(alice, ProjectFields{Name: &n, NamespaceID: &g.ID})
		return err
	}))
	read(func(d *Data) {
		if got := names(d.GroupProjectsOrdered(g, false, "name")); !slices.Equal(got, []string{"Alpha", "delta", "gamma", "zeta"}) {
			t.Errorf("after the write, by name: %v", got)
		}
		if got := len(d.SearchUsers("ämber", false)); got != 0 {
			t.Errorf("a renamed user still found by the old name")
		}
		if got := len(d.SearchUsers("caro", false)); got != 1 {
			t.Errorf("a renamed user not found by the new name")
		}
	})
}

// TestFoldKeyIsEqualFold: two strings share a key exactly when
// strings.EqualFold holds, the index's promise for username and emails.
func TestFoldKeyIsEqualFold(t *testing.T) {
	words := []string{"alice", "ALICE", "Alice", "k", "K", "\u212a", "ß", "ẞ", "ss", "İ", "i", "ı", "σ", "Σ", "ς", "\xff", "\ufffd", "straße", "STRASSE", ""}
	for _, a := range words {
		for _, b := range words {
			if (FoldKey(a) == FoldKey(b)) != strings.EqualFold(a, b) {
				t.Errorf("%q %q: same key %v, EqualFold %v", a, b, FoldKey(a) == FoldKey(b), strings.EqualFold(a, b))
			}
		}
	}
}
