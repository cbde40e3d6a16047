package store

import (
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/v4cert/v4cert/reference/access"
)

// The project issue list and issue edit (provisioning, outside the certified
// surface): the platform's GET and PUT /projects/:id/issues[/:issue_iid]
// (lib/api/issues.rb, with its finder arguments in
// lib/api/helpers/issues_helpers.rb; read in mirrors of the platform:
// pavankalisetti009/gitlab lib/api/issues.rb @041340ff and
// skratsch-solutions/gitlabhq lib/api/helpers/issues_helpers.rb @e6938f83).

// IssueFilter is every attribute of GET /projects/:id/issues: the
// issuable attributes (issuable_list.go) and the issues' own. Nil and zero
// values filter nothing.
type IssueFilter struct {
	IssuableFilter // scope: created_by_me, assigned_to_me, all; state: opened, closed, all

	ClosedByID   *int
	Confidential *bool
	IssueType    *string
	DueDate      *string // 0, any, today, tomorrow, overdue, week, month, next_month_and_previous_two_weeks
}

// CanReadIssue applies an issue's confidentiality inside a project the user
// can see: a confidential issue is for its author, its assignees, members
// of Reporter and above and administrators (the platform's IssuePolicy,
// a mirror of the platform,
// pavankalisetti009/gitlab app/policies/issue_policy.rb @fa352bf4: can_read_confidential for
// administrators, reporter_access and the author's and assignees' own;
// app/policies/group_policy.rb @488ed79b enables read_confidential_issues
// from Planner and Reporter up).
func (d *Data) CanReadIssue(u *User, p *Project, i *Issue) bool {
	if !p.IssuesEnabled || !d.CanSeeProject(u, p) {
		return false
	}
	if !i.Confidential {
		return true
	}
	if u == nil {
		return false
	}
	return u.Admin || i.AuthorID == u.ID || slices.Contains(i.AssigneeIDs, u.ID) || d.ProjectAccess(u, p) >= access.Reporter
}

// CanUpdateIssue: the author, an assignee, or Reporter and above (the
// platform's update_issue: admin_issue from Planner/Reporter up, and the
// author's and assignees' own; the mirror pavankalisetti009/gitlab
// app/policies/issue_policy.rb @fa352bf4 and group_policy.rb @488ed79b).
func (d *Data) CanUpdateIssue(u *User, p *Project, i *Issue) bool {
	if u == nil || !d.CanReadIssue(u, p, i) {
		return false
	}
	return u.Admin || i.AuthorID == u.ID || slices.Contains(i.AssigneeIDs, u.ID) || d.ProjectAccess(u, p) >= access.Reporter
}

// FindIssues lists the issues of f.ProjectID that f selects and its caller
// may read, in f's order (ties broken by id).
func (d *Data) FindIssues(f IssueFilter) []*Issue { return d.IssueWalk(f).All() }

// IssueWalk is the list f asks for as a walk: created_at and updated_at
// from the ordering kept between writes (issuable_index.go), filtered as the
// page is gathered; the other orders sorted per request.
func (d *Data) IssueWalk(f IssueFilter) Walk[*Issue] {
	p := d.projects[f.ProjectID]
	if p == nil {
		return Walk[*Issue]{At: func(int) *Issue { return nil }}
	}
	match := func(i *Issue) bool { return d.CanReadIssue(f.Caller, p, i) && d.matchIssue(&f, i) }
	state, shared := f.byState()
	if sorted := d.issuesOrdered(p.ID, state, f.OrderBy); sorted != nil {
		// The ordering holds one state's issues (or all): with no other
		// attribute, every one it holds is on the list.
		rest := f
		rest.IssuableFilter = shared
		if rest.selectsAll() && d.readsEveryIssue(f.Caller, p) {
			return walkOf(sorted, f.Sort, nil)
		}
		return walkOf(sorted, f.Sort, match)
	}
	var out []*Issue
	for _, i := range d.issues {
		if i.ProjectID == p.ID && match(i) {
			out = append(out, i)
		}
	}
	d.sortIssues(out, f.OrderBy, f.Sort)
	return walkOf(out, "asc", nil) // already in the order asked
}

// selectsAll: no attribute beyond the shared ones' all.
func (f *IssueFilter) selectsAll() bool {
	rest := *f
	rest.IssuableFilter = IssuableFilter{}
	return f.IssuableFilter.selectsAll() && reflect.ValueOf(rest).IsZero()
}

// readsEveryIssue reports whether u may read every issue of p, the
// confidential ones too (CanReadIssue without an issue to look at).
func (d *Data) readsEveryIssue(u *User, p *Project) bool {
	if !p.IssuesEnabled || !d.CanSeeProject(u, p) || u == nil {
		return false
	}
	return u.Admin || d.ProjectAccess(u, p) >= access.Reporter
}

func (d *Data) matchIssue(f *IssueFilter, i *Issue) bool {
	if !d.matchIssuable(&f.IssuableFilter, i.issuable()) {
		return false
	}
	if f.ClosedByID != nil && i.ClosedByID != *f.ClosedByID {
		return false
	}
	if f.Confidential != nil && i.Confidential != *f.Confidential {
		return false
	}
	// The reference makes plain issues only (issue_type "issue").
	if f.IssueType != nil && *f.IssueType != "issue" {
		return false
	}
	return f.DueDate == nil || dueDateMatch(i.DueDate, *f.DueDate, f.Today)
}

// dueDateMatch applies the due_date filter's words as the platform's
// IssuableFinder does (app/finders/issues_finder.rb, by_due_date): 0 (none),
// any, today, tomorrow, overdue (before today), week and month (the calendar
// week, Monday to Sunday, or month of today) and
// next_month_and_previous_two_weeks; "" filters nothing.
func dueDateMatch(due *time.Time, want string, today time.Time) bool {
	day := func(t time.Time) time.Time { return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC) }
	today = day(today)
	if want == "" {
		return true
	}
	if want == "0" {
		return due == nil
	}
	if due == nil {
		return false
	}
	d := day(*due)
	between := func(from, to time.Time) bool { return !d.Before(from) && !d.After(to) }
	switch want {
	case "any":
		return true
	case "today":
		return d.Equal(today)
	case "tomorrow":
		return d.Equal(today.AddDate(0, 0, 1))
	case "overdue":
		return d.Before(today)
	case "week":
		monday := today.AddDate(0, 0, -((int(today.Weekday()) + 6) % 7))
		return between(monday, monday.AddDate(0, 0, 6))
	case "month":
		first := time.Date(today.Year(), today.Month(), 1, 0, 0, 0, 0, time.UTC)
		return between(first, first.AddDate(0, 1, -1))
	case "next_month_and_previous_two_weeks":
		first := time.Date(today.Year(), today.Month(), 1, 0, 0, 0, 0, time.UTC)
		return between(today.AddDate(0, 0, -14), first.AddDate(0, 2, -1))
	}
	return false
}

// sortIssues orders by order_by, descending unless sort is asc; ties by id in
// the same direction. Orders on an attribute some issues lack (due_date,
// milestone_due, label_priority, priority) put those last either way, as
// the platform's nulls-last scopes do (app/models/issue.rb, sort_by_attribute).
func (d *Data) sortIssues(is []*Issue, orderBy, sortDir string) {
	desc := sortDir != "asc"
	// key answers the value to order by and whether the issue has one.
	key := func(i *Issue) (int64, bool) {
		switch orderBy {
		case "updated_at":
			return i.UpdatedAt.UnixNano(), true
		case "due_date":
			if i.DueDate == nil {
				return 0, false
			}
			return i.DueDate.Unix(), true
		case "milestone_due":
			if m := d.MilestoneOf(i.ProjectID, i.MilestoneID); m != nil && m.DueDate != nil {
				return m.DueDate.Unix(), true
			}
			return 0, false
		case "popularity":
			up, _ := d.Votes(Awardable{AwardableIssue, i.ID})
			return int64(up), true
		case "label_priority", "priority":
			// The highest priority (lowest number) of the issue's prioritized labels.
			best, has := 0, false
			for _, l := range d.LabelsByIDs(i.ProjectID, i.LabelIDs) {
				if l.Priority != nil && (!has || *l.Priority < best) {
					best, has = *l.Priority, true
				}
			}
			return int64(best), has
		case "relative_position":
			// Nothing in the reference positions issues on a board: the
			// platform's nulls-last order leaves creation order.
			return 0, false
		}
		return i.CreatedAt.UnixNano(), true
	}
	slices.SortStableFunc(is, func(a, b *Issue) int {
		ka, ha := key(a)
		kb, hb := key(b)
		if ha != hb {
			if ha {
				return -1
			}
			return 1
		}
		c := 0
		switch {
		case orderBy == "title":
			c = strings.Compare(strings.ToLower(a.Title), strings.ToLower(b.Title))
		case ka < kb:
			c = -1
		case ka > kb:
			c = 1
		}
		if c == 0 {
			c = a.ID - b.ID
		}
		if desc {
			c = -c
		}
		return c
	})
}

// IssueFields holds what PUT /projects/:id/issues/:issue_iid changes; nil
// and false mean not given.
type IssueFields struct {
	Title, Description      *string
	StateEvent              *string // close, reopen
	Labels                  []string
	LabelsGiven             bool
	AddLabels, RemoveLabels []string
	AssigneeIDs             []int
	AssigneesGiven          bool
	MilestoneID             *int // 0 removes the milestone
	DueDate                 *time.Time
	DueGiven                bool // a blank due_date removes it
	Confidential            *bool
	DiscussionLocked        *bool
}

// UpdateIssue applies f to i as the platform's Issues::UpdateService does:
// a blank title is refused, labels are replaced or added and removed (named
// ones created on the fly), assignees kept when they can see the project,
// and state_event moves opened and closed (a close of a closed issue changes
// nothing).
func (d *Data) UpdateIssue(p *Project, i *Issue, f IssueFields, by *User) error {
	if f.Title != nil && strings.TrimSpace(*f.Title) == "" {
		return &ValidationError{Fields: map[string][]string{"title": {"can't be blank"}}}
	}
	for _, n := range append(slices.Clone(f.Labels), f.AddLabels...) {
		if strings.TrimSpace(n) != "" && !ValidLabelName(n) {
			return &ValidationError{Fields: map[string][]string{"labels": {"is invalid"}}}
		}
	}
	d.Touch(i)
	now := d.Now()
	if f.Title != nil {
		i.Title = strings.TrimSpace(*f.Title)
	}
	if f.Description != nil {
		i.Description = *f.Description
	}
	if f.Confidential != nil {
		i.Confidential = *f.Confidential
	}
	if f.DiscussionLocked != nil {
		i.DiscussionLocked = f.DiscussionLocked
	}
	if f.LabelsGiven {
		i.LabelIDs = d.ensureLabels(p.ID, f.Labels)
	}
	for _, id := range d.ensureLabels(p.ID, f.AddLabels) {
		if !slices.Contains(i.LabelIDs, id) {
			i.LabelIDs = append(i.LabelIDs, id)
		}
	}
	for _, n := range f.RemoveLabels {
		if l := d.LabelByName(p.ID, strings.TrimSpace(n)); l != nil {
			i.LabelIDs = slices.DeleteFunc(i.LabelIDs, func(id int) bool { return id == l.ID })
		}
	}
	if f.AssigneesGiven {
		kept := []int{}
		for _, id := range f.AssigneeIDs {
			if u := d.User(id); u != nil && d.CanSeeProject(u, p) && !slices.Contains(kept, id) {
				kept = append(kept, id)
			}
		}
		i.AssigneeIDs = kept
	}
	if f.MilestoneID != nil && (*f.MilestoneID == 0 || d.MilestoneOf(p.ID, *f.MilestoneID) != nil) {
		// A milestone of another project is ignored, as for merge requests.
		i.MilestoneID = *f.MilestoneID
	}
	if f.DueGiven {
		i.DueDate = f.DueDate
	}
	if f.StateEvent != nil {
		switch {
		case *f.StateEvent == "close" && i.State == "opened":
			i.State, i.ClosedAt, i.ClosedByID = "closed", &now, by.ID
		case *f.StateEvent == "reopen" && i.State == "closed":
			i.State, i.ClosedAt, i.ClosedByID = "opened", nil, 0
		}
	}
	i.UpdatedAt = now
	return nil
}
