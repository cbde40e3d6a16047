package store

import (
	"slices"
	"testing"
	"time"
)

// TestIssuableOrderingsFollowWrites: the orderings the lists walk are kept
// between writes and follow every write: a merge request updated in a write
// moves in the updated_at order the next read sees, a new one appears, and
// the kept ordering answers what sorting afresh does.
func TestIssuableOrderingsFollowWrites(t *testing.T) {
	d, p, author, _ := mrFixture(t)
	clock := FixedTime
	d.Now = func() time.Time { return clock }
	var mrs []*MergeRequest
	for _, src := range []string{"a", "b", "c"} {
		clock = clock.Add(time.Minute)
		mrs = append(mrs, newMR(t, d, p, author, src, MRFields{}))
	}
	s := &Store{d: d}
	d.cached = true
	walk := func(orderBy, sort string) []int {
		var got []int
		s.Read(func(d *Data) error {
			got = iidsOf(d.MergeRequestWalk(MRFilter{IssuableFilter: IssuableFilter{Caller: author, ProjectID: p.ID,
				OrderBy: orderBy, Sort: sort}}).All())
			return nil
		})
		return got
	}
	if got := walk("updated_at", "asc"); !slices.Equal(got, []int{1, 2, 3}) {
		t.Fatalf("updated_at asc: %v", got)
	}
	if got := walk("created_at", "desc"); !slices.Equal(got, []int{3, 2, 1}) {
		t.Fatalf("created_at desc: %v", got)
	}
	s.Write(func(d *Data) error {
		clock = clock.Add(time.Minute)
		mrs[0].UpdatedAt = clock
		newMR(t, d, p, author, "d", MRFields{})
		return nil
	})
	if got := walk("updated_at", "asc"); !slices.Equal(got, []int{2, 3, 1, 4}) {
		t.Fatalf("updated_at asc after a write: %v", got)
	}
	if got := walk("", "desc"); !slices.Equal(got, []int{4, 3, 2, 1}) {
		t.Fatalf("default order after a write: %v", got)
	}
}

// TestIssuableWalkMatchesOnlyWhenFiltered: an unfiltered list, or one
// filtered by state alone, hands the page a walk without a filter (so it
// reads only its own records); any other attribute, the list's own ones too,
// brings the filter back.
func TestIssuableWalkMatchesOnlyWhenFiltered(t *testing.T) {
	d, p, author, _ := mrFixture(t)
	newMR(t, d, p, author, "a", MRFields{})
	newMR(t, d, p, author, "b", MRFields{}).State = MRClosed
	base := IssuableFilter{Caller: author, ProjectID: p.ID, Scope: "all", State: "all", OrderBy: "created_at", Sort: "desc"}
	if w := d.MergeRequestWalk(MRFilter{IssuableFilter: base}); w.Match != nil || w.N != 2 {
		t.Fatalf("unfiltered: match set or %d records", w.N)
	}
	closed := base
	closed.State = MRClosed
	if w := d.MergeRequestWalk(MRFilter{IssuableFilter: closed}); w.Match != nil || w.N != 1 || w.At(0).SourceBranch != "b" {
		t.Fatalf("state=closed: match set or %d records", w.N)
	}
	// An order the index does not keep filters by state itself.
	closed.OrderBy = "title"
	if got := d.FindMergeRequests(MRFilter{IssuableFilter: closed}); len(got) != 1 || got[0].SourceBranch != "b" {
		t.Fatalf("state=closed by title: %d merge requests", len(got))
	}
	i := d.CreateIssue(p, author, "closed", "", false)
	i.State = "closed"
	d.CreateIssue(p, author, "open", "", false)
	for _, orderBy := range []string{"created_at", "title", "due_date"} {
		f := IssueFilter{IssuableFilter: closed}
		f.OrderBy = orderBy
		if got := d.FindIssues(f); len(got) != 1 || got[0] != i {
			t.Fatalf("issues state=closed by %s: %d issues", orderBy, len(got))
		}
	}
	draft := true
	for name, f := range map[string]MRFilter{
		"scope":    {IssuableFilter: IssuableFilter{Caller: author, ProjectID: p.ID, Scope: "created_by_me"}},
		"not":      {IssuableFilter: IssuableFilter{Caller: author, ProjectID: p.ID, Not: IssuableNot{Labels: []string{"x"}}}},
		"draft":    {IssuableFilter: base, Draft: &draft},
		"reviewer": {IssuableFilter: base, NotReviewer: UserMatch{Kind: FilterAny}},
	} {
		if w := d.MergeRequestWalk(f); w.Match == nil {
			t.Errorf("%s: no filter in the walk", name)
		}
	}
	if w := d.MergeRequestWalk(MRFilter{IssuableFilter: IssuableFilter{ProjectID: p.ID}}); w.Match == nil {
		t.Error("an anonymous caller of a private project reads through the filter")
	}
	if w := d.IssueWalk(IssueFilter{IssuableFilter: base, Confidential: &draft}); w.Match == nil {
		t.Error("issues: confidential is a filter")
	}
}
