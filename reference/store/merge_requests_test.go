package store

import (
	"errors"
	"slices"
	"testing"
	"time"
)

func mrFixture(t *testing.T) (*Data, *Project, *User, *User) {
	t.Helper()
	d := newData(func() time.Time { return FixedTime })
	author, err := d.CreateUser(NewUser{Username: "author", Name: "Author", Email: "author@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	other, err := d.CreateUser(NewUser{Username: "other", Name: "Other", Email: "other@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	name := "proj"
	p, err := d.CreateProject(author, ProjectFields{Name: &name, InitializeWithReadme: true})
	if err != nil {
		t.Fatal(err)
	}
	d.AddMember(SourceProject, p.ID, other.ID, 30, nil, author.ID)
	return d, p, author, other
}

func newMR(t *testing.T, d *Data, p *Project, u *User, source string, f MRFields) *MergeRequest {
	t.Helper()
	title := "MR " + source
	f.Title, f.SourceBranch, f.TargetBranch = &title, &source, ptrTo("main")
	mr, err := d.CreateMergeRequest(p, u, f, &MRVersion{HeadSHA: "h", BaseSHA: "b", StartSHA: "s"}, MergeCheck{Status: MergeCanBeMerged})
	if err != nil {
		t.Fatal(err)
	}
	return mr
}

func ptrTo[T any](v T) *T { return &v }

func iidsOf(mrs []*MergeRequest) []int {
	var out []int
	for _, mr := range mrs {
		out = append(out, mr.IID)
	}
	return out
}

func TestMergeRequestLifecycle(t *testing.T) {
	d, p, author, other := mrFixture(t)
	a := newMR(t, d, p, author, "a", MRFields{AssigneeIDs: []int{other.ID, 999}, AssigneesGiven: true, Labels: []string{"bug", " bug", ""}, LabelsGiven: true})
	if a.IID != 1 || !slices.Equal(a.AssigneeIDs, []int{other.ID}) || len(a.LabelIDs) != 1 || a.Latest().ID == 0 {
		t.Fatalf("created: %+v", a)
	}
	if todos := d.UserTodos(other); len(todos) != 1 || todos[0].Action != TodoAssigned {
		t.Fatalf("assignment to-do: %+v", todos)
	}
	var dup *DuplicateMRError
	if _, err := d.CreateMergeRequest(p, author, MRFields{Title: ptrTo("again"), SourceBranch: ptrTo("a"), TargetBranch: ptrTo("main")}, nil, MergeCheck{}); !errors.As(err, &dup) || dup.IID != 1 {
		t.Fatalf("duplicate: %v", err)
	}
	if !d.Subscribed(a, author) || !d.Subscribed(a, other) {
		t.Fatal("the author and assignees are subscribed")
	}
	d.SetSubscription(a, other, false)
	if d.Subscribed(a, other) {
		t.Fatal("an explicit unsubscription wins")
	}
	if err := d.UpdateMergeRequest(p, a, MRFields{StateEvent: ptrTo("close")}, author); err != nil || a.State != MRClosed {
		t.Fatalf("close: %v %s", err, a.State)
	}
	if todos := d.UserTodos(other); todos[0].State != TodoDone {
		t.Fatal("closing marks the to-do items done")
	}
	b := newMR(t, d, p, author, "a", MRFields{})
	if err := d.UpdateMergeRequest(p, a, MRFields{StateEvent: ptrTo("reopen")}, author); !errors.As(err, &dup) || a.State != MRClosed {
		t.Fatalf("reopen beside an open duplicate: %v %s", err, a.State)
	}
	d.MarkMerged(b, author, "m", "", nil)
	if err := d.UpdateMergeRequest(p, b, MRFields{StateEvent: ptrTo("close")}, author); err != nil || b.State != MRMerged {
		t.Fatalf("closing a merged one changes nothing: %v %s", err, b.State)
	}
	d.DeleteMergeRequest(a)
	if d.MergeRequestByIID(p.ID, 1) != nil || len(d.AllMergeRequests()) != 1 {
		t.Fatal("deleted")
	}
}

func TestBlocks(t *testing.T) {
	d, p, author, _ := mrFixture(t)
	a, b, c := newMR(t, d, p, author, "a", MRFields{}), newMR(t, d, p, author, "b", MRFields{}), newMR(t, d, p, author, "c", MRFields{})
	if _, err := d.AddBlock(a, a); err == nil {
		t.Fatal("a self-block is refused")
	}
	if _, err := d.AddBlock(a, b); err != nil {
		t.Fatal(err)
	}
	if _, err := d.AddBlock(a, b); !errors.Is(err, ErrConflict) {
		t.Fatalf("a second block: %v", err)
	}
	var be *BlockError
	if _, err := d.AddBlock(b, c); !errors.As(err, &be) {
		t.Fatalf("a blocked merge request blocking another: %v", err)
	}
	if !d.Blocked(b) || d.DetailedMergeStatus(b, p) != "blocked_status" {
		t.Fatal("b is blocked")
	}
	d.MarkMerged(a, author, "m", "", nil)
	if d.Blocked(b) {
		t.Fatal("a merged blocking merge request no longer blocks")
	}
}

func TestFindMergeRequests(t *testing.T) {
	d, p, author, other := mrFixture(t)
	a := newMR(t, d, p, author, "a", MRFields{Labels: []string{"bug"}, LabelsGiven: true})
	b := newMR(t, d, p, other, "b", MRFields{Labels: []string{"bug", "ui"}, LabelsGiven: true, AssigneeIDs: []int{author.ID}, AssigneesGiven: true})
	c := newMR(t, d, p, author, "c", MRFields{})
	d.MarkMerged(c, other, "m", "", nil)
	find := func(f MRFilter) []int {
		f.Caller, f.ProjectID = author, p.ID
		return iidsOf(d.FindMergeRequests(f))
	}
	for _, tc := range []struct {
		name string
		f    MRFilter
		want []int
	}{
		{"default order", MRFilter{}, []int{c.IID, b.IID, a.IID}},
		{"asc", MRFilter{IssuableFilter: IssuableFilter{Sort: "asc"}}, []int{a.IID, b.IID, c.IID}},
		{"labels", MRFilter{IssuableFilter: IssuableFilter{Labels: []string{"bug"}}}, []int{b.IID, a.IID}},
		{"labels all", MRFilter{IssuableFilter: IssuableFilter{Labels: []string{"bug", "ui"}}}, []int{b.IID}},
		{"labels none", MRFilter{IssuableFilter: IssuableFilter{Labels: []string{"NONE"}}}, []int{c.IID}},
		{"labels any", MRFilter{IssuableFilter: IssuableFilter{Labels: []string{"any"}}}, []int{b.IID, a.IID}},
		{"not labels", MRFilter{IssuableFilter: IssuableFilter{Not: IssuableNot{Labels: []string{"ui"}}}}, []int{c.IID, a.IID}},
		{"author", MRFilter{IssuableFilter: IssuableFilter{Author: UserMatch{Kind: "username", Username: "OTHER"}}}, []int{b.IID}},
		{"assignee any", MRFilter{IssuableFilter: IssuableFilter{Assignee: UserMatch{Kind: FilterAny}}}, []int{b.IID}},
		{"merge user", MRFilter{MergeUser: UserMatch{Kind: "id", ID: other.ID}}, []int{c.IID}},
		{"merged_at desc, unmerged last", MRFilter{IssuableFilter: IssuableFilter{OrderBy: "merged_at"}}, []int{c.IID, b.IID, a.IID}},
		{"merged_at asc, unmerged last", MRFilter{IssuableFilter: IssuableFilter{OrderBy: "merged_at", Sort: "asc"}}, []int{c.IID, a.IID, b.IID}},
		{"state", MRFilter{IssuableFilter: IssuableFilter{State: MROpened}}, []int{b.IID, a.IID}},
		{"scope", MRFilter{IssuableFilter: IssuableFilter{Scope: "assigned_to_me"}}, []int{b.IID}},
		{"deployed", MRFilter{Environment: ptrTo("production")}, nil},
	} {
		if got := find(tc.f); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
