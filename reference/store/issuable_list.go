package store

import (
	"reflect"
	"slices"
	"strings"
	"time"
)

// The issuable lists: GET /projects/:id/issues and the merge request lists
// (GET /merge_requests, GET /projects/:id/merge_requests) filter alike, as on
// the platform, where both are IssuableFinder's (pavankalisetti009/gitlab,
// a mirror of gitlabhq/gitlabhq, app/finders/issuable_finder.rb @b0a5fb57;
// the API's common parameters in
// skratsch-solutions/gitlabhq lib/api/helpers/issues_helpers.rb @e6938f83 and
// gitlabhq/gitlabhq lib/api/helpers/merge_requests_helpers.rb @d72ae08a). The
// attributes both take, and how they match, are written once here;
// IssueFilter and MRFilter add what only their list has.

// issuable is what the shared filters read of an issue or a merge request.
type issuable struct {
	id, iid, projectID, authorID int
	assigneeIDs, labelIDs        []int
	milestoneID                  int
	state                        string
	title, description           string
	createdAt, updatedAt         time.Time
	awardable                    Awardable
}

func (i *Issue) issuable() issuable {
	return issuable{i.ID, i.IID, i.ProjectID, i.AuthorID, i.AssigneeIDs, i.LabelIDs, i.MilestoneID, i.State,
		i.Title, i.Description, i.CreatedAt, i.UpdatedAt, Awardable{AwardableIssue, i.ID}}
}

func (mr *MergeRequest) issuable() issuable {
	return issuable{mr.ID, mr.IID, mr.ProjectID, mr.AuthorID, mr.AssigneeIDs, mr.LabelIDs, mr.MilestoneID, mr.State,
		mr.Title, mr.Description, mr.CreatedAt, mr.UpdatedAt, Awardable{AwardableMergeRequest, mr.ID}}
}

// IssuableFilter holds the attributes the issue and merge request lists
// share. Nil and zero values filter nothing; "all" for Scope and State
// neither.
type IssuableFilter struct {
	Caller    *User
	ProjectID int    // 0: every project (the global merge request list)
	Scope     string // created_by_me, assigned_to_me, all, and a list's own
	State     string // all, or the one state to keep
	IIDs      []int

	Author, Assignee UserMatch
	AssigneeUsername []string // every one of them is an assignee

	Labels          []string // every one of them, or None / Any
	Milestone       *string  // a title, or None / Any
	MilestoneID     *string  // a wildcard: any, none, upcoming, started
	MyReactionEmoji *string

	CreatedAfter, CreatedBefore *time.Time
	UpdatedAfter, UpdatedBefore *time.Time

	Search        *string
	InTitle       bool // where search looks; both when neither is set
	InDescription bool

	Not IssuableNot

	OrderBy, Sort string
	Today         time.Time // the date milestone wildcards (and due_date) compare with
}

// IssuableNot holds the not[...] negations the lists share; each list fills
// only those its platform declares.
type IssuableNot struct {
	Labels           []string
	Milestone        *string
	MilestoneID      *string
	IIDs             []int
	Author, Assignee UserMatch
	AssigneeUsername []string
	MyReactionEmoji  *string
}

// selectsAll reports whether f keeps every record the caller may read: no
// attribute but the caller, the project, the order and the clock, and scope
// and state all. Compared with the zero value as a whole, so an attribute
// added later counts as a filter without anyone listing it here.
func (f *IssuableFilter) selectsAll() bool {
	rest := *f
	rest.Caller, rest.ProjectID, rest.OrderBy, rest.Sort, rest.Today = nil, 0, "", "", time.Time{}
	if rest.Scope == "all" {
		rest.Scope = ""
	}
	if rest.State == "all" {
		rest.State = ""
	}
	return reflect.ValueOf(rest).IsZero()
}

// byState splits f for a walk over the ordering of one state: the state
// ("" for all) and the filter left once the ordering has applied it.
func (f IssuableFilter) byState() (string, IssuableFilter) {
	state := f.State
	if state == "all" {
		state = ""
	}
	f.State = ""
	return state, f
}

// matchIssuable applies the shared attributes to one record.
func (d *Data) matchIssuable(f *IssuableFilter, it issuable) bool {
	caller := f.Caller
	switch f.Scope {
	case "created_by_me":
		if caller == nil || it.authorID != caller.ID {
			return false
		}
	case "assigned_to_me":
		if caller == nil || !slices.Contains(it.assigneeIDs, caller.ID) {
			return false
		}
	}
	if f.State != "" && f.State != "all" && it.state != f.State {
		return false
	}
	if f.IIDs != nil && !slices.Contains(f.IIDs, it.iid) {
		return false
	}
	if !d.matchUsers(f.Author, []int{it.authorID}) || !d.matchUsers(f.Assignee, it.assigneeIDs) {
		return false
	}
	for _, name := range f.AssigneeUsername {
		if !d.matchUsers(UserMatch{Kind: "username", Username: name}, it.assigneeIDs) {
			return false
		}
	}
	if f.Labels != nil && !d.labelsMatch(it.projectID, it.labelIDs, f.Labels) {
		return false
	}
	if f.Milestone != nil && !d.milestoneMatch(it.projectID, it.milestoneID, *f.Milestone) {
		return false
	}
	if f.MilestoneID != nil && !d.milestoneWildcard(it.projectID, it.milestoneID, *f.MilestoneID, f.Today) {
		return false
	}
	if f.MyReactionEmoji != nil && caller != nil && !d.reacted(it.awardable, caller, *f.MyReactionEmoji) {
		return false
	}
	if !inRange(it.createdAt, f.CreatedAfter, f.CreatedBefore) || !inRange(it.updatedAt, f.UpdatedAfter, f.UpdatedBefore) {
		return false
	}
	if f.Search != nil && !searchMatch(it.title, it.description, *f.Search, f.InTitle, f.InDescription) {
		return false
	}
	return d.matchIssuableNot(&f.Not, it, caller, f.Today)
}

// matchIssuableNot: a record any given negation matches is left out.
func (d *Data) matchIssuableNot(n *IssuableNot, it issuable, caller *User, today time.Time) bool {
	for _, name := range n.Labels {
		if l := d.LabelByName(it.projectID, strings.TrimSpace(name)); l != nil && slices.Contains(it.labelIDs, l.ID) {
			return false
		}
	}
	if n.Milestone != nil && d.milestoneMatch(it.projectID, it.milestoneID, *n.Milestone) {
		return false
	}
	if n.MilestoneID != nil && d.milestoneWildcard(it.projectID, it.milestoneID, *n.MilestoneID, today) {
		return false
	}
	if n.IIDs != nil && slices.Contains(n.IIDs, it.iid) {
		return false
	}
	if n.Author.Set() && d.matchUsers(n.Author, []int{it.authorID}) {
		return false
	}
	if n.Assignee.Set() && d.matchUsers(n.Assignee, it.assigneeIDs) {
		return false
	}
	for _, name := range n.AssigneeUsername {
		if d.matchUsers(UserMatch{Kind: "username", Username: name}, it.assigneeIDs) {
			return false
		}
	}
	if n.MyReactionEmoji != nil && caller != nil && d.reacted(it.awardable, caller, *n.MyReactionEmoji) {
		return false
	}
	return true
}

// compareIssuables orders two records ascending by the orders both lists
// have (created_at, the default; updated_at; title, case-insensitively),
// ties broken by id; ok is false for any other order.
func compareIssuables(a, b issuable, orderBy string) (c int, ok bool) {
	switch orderBy {
	case "", "created_at":
		c = a.createdAt.Compare(b.createdAt)
	case "updated_at":
		c = a.updatedAt.Compare(b.updatedAt)
	case "title":
		c = strings.Compare(strings.ToLower(a.title), strings.ToLower(b.title))
	default:
		return 0, false
	}
	if c == 0 {
		c = a.id - b.id
	}
	return c, true
}

// Walk is one list's records in the order asked, for the HTTP layer's
// PaginateWalk: N records, At(i) the i-th, and Match the filter a record must
// pass (nil when every record passes, so a page reads only its own records).
type Walk[T any] struct {
	N     int
	At    func(int) T
	Match func(T) bool
}

// All gathers every record the walk matches, in its order.
func (w Walk[T]) All() []T {
	out := make([]T, 0, w.N)
	for i := 0; i < w.N; i++ {
		if it := w.At(i); w.Match == nil || w.Match(it) {
			out = append(out, it)
		}
	}
	return out
}

// walkOf walks sorted (ascending) in sortDir's direction.
func walkOf[T any](sorted []T, sortDir string, match func(T) bool) Walk[T] {
	n := len(sorted)
	at := func(i int) T { return sorted[i] }
	if sortDir != "asc" {
		at = func(i int) T { return sorted[n-1-i] }
	}
	return Walk[T]{N: n, At: at, Match: match}
}

// Predefined filter values. The spec names None and Any; they match case-insensitively.
const (
	FilterNone = "none"
	FilterAny  = "any"
)

// Predefined reports whether v is None or Any in any case, and which.
func Predefined(v string) (string, bool) {
	switch strings.ToLower(v) {
	case FilterNone:
		return FilterNone, true
	case FilterAny:
		return FilterAny, true
	}
	return "", false
}

// UserMatch matches one user-valued attribute: None (nobody), Any (somebody),
// a user id, or a username. The zero value matches everything.
type UserMatch struct {
	Kind     string // "", none, any, id, username
	ID       int
	Username string
}

// Set reports whether the filter was given.
func (m UserMatch) Set() bool { return m.Kind != "" }

// matchUsers applies m to the users of one attribute.
func (d *Data) matchUsers(m UserMatch, ids []int) bool {
	switch m.Kind {
	case "":
		return true
	case FilterNone:
		return len(ids) == 0
	case FilterAny:
		return len(ids) > 0
	case "id":
		return slices.Contains(ids, m.ID)
	case "username":
		for _, id := range ids {
			if u := d.User(id); u != nil && strings.EqualFold(u.Username, m.Username) {
				return true
			}
		}
	}
	return false
}

// labelsMatch: every named label is among ids, or None (no label) / Any
// (some label).
func (d *Data) labelsMatch(projectID int, ids []int, names []string) bool {
	if len(names) == 1 {
		switch k, _ := Predefined(strings.TrimSpace(names[0])); k {
		case FilterNone:
			return len(ids) == 0
		case FilterAny:
			return len(ids) > 0
		}
	}
	for _, name := range names {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		l := d.LabelByName(projectID, name)
		if l == nil || !slices.Contains(ids, l.ID) {
			return false
		}
	}
	return true
}

// milestoneMatch: a milestone title, None (no milestone) or Any (some milestone).
func (d *Data) milestoneMatch(projectID, milestoneID int, want string) bool {
	m := d.MilestoneOf(projectID, milestoneID)
	switch k, _ := Predefined(want); k {
	case FilterNone:
		return m == nil
	case FilterAny:
		return m != nil
	}
	return m != nil && m.Title == want
}

// milestoneWildcard applies milestone_id's wildcards as the platform's
// legacy milestone filtering does (IssuableFinder with
// use_legacy_milestone_filtering; app/models/milestone.rb): Any and None,
// Upcoming (the project's active milestone due soonest after today) and
// Started (an active milestone whose start date has come).
func (d *Data) milestoneWildcard(projectID, milestoneID int, want string, today time.Time) bool {
	m := d.MilestoneOf(projectID, milestoneID)
	switch strings.ToLower(want) {
	case FilterNone:
		return m == nil
	case FilterAny:
		return m != nil
	case "upcoming":
		var next *Milestone
		for _, c := range d.milestones {
			if c.ProjectID == projectID && c.State == "active" && c.DueDate != nil && c.DueDate.After(today) && (next == nil || c.DueDate.Before(*next.DueDate)) {
				next = c
			}
		}
		return m != nil && next != nil && m.ID == next.ID
	case "started":
		return m != nil && m.State == "active" && m.StartDate != nil && !m.StartDate.After(today)
	}
	return false
}

// reacted: the caller's reactions to on include name, or None / Any.
func (d *Data) reacted(on Awardable, caller *User, name string) bool {
	var mine []string
	for _, e := range d.awards[on] {
		if e.UserID == caller.ID {
			mine = append(mine, e.Name)
		}
	}
	switch k, _ := Predefined(name); k {
	case FilterNone:
		return len(mine) == 0
	case FilterAny:
		return len(mine) > 0
	}
	return slices.Contains(mine, name)
}

// inRange applies inclusive time bounds.
func inRange(t time.Time, after, before *time.Time) bool {
	if after != nil && t.Before(*after) {
		return false
	}
	if before != nil && t.After(*before) {
		return false
	}
	return true
}

func searchMatch(title, description, q string, inTitle, inDesc bool) bool {
	if !inTitle && !inDesc {
		inTitle, inDesc = true, true
	}
	q = strings.ToLower(q)
	return inTitle && strings.Contains(strings.ToLower(title), q) ||
		inDesc && strings.Contains(strings.ToLower(description), q)
}
