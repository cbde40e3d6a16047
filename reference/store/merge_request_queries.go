package store

import (
	"slices"
	"strings"
	"time"
)

// The merge request lists (Endpoints, Merge requests: GET /merge_requests and
// GET /projects/:id/merge_requests) as a filter over the merge requests a
// caller may read.

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

// matches applies m to the users of one attribute.
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

// MRNot holds the not[...] negations.
type MRNot struct {
	Labels           []string
	Milestone        *string
	Author           UserMatch
	Assignee         UserMatch
	AssigneeUsername []string
	Reviewer         UserMatch
	MyReactionEmoji  *string
}

// MRFilter is every attribute of the two lists. Nil and zero values filter nothing.
type MRFilter struct {
	Caller    *User
	ProjectID int // 0: the global list
	Scope     string
	State     string
	IIDs      []int

	Author, Assignee, Reviewer, MergeUser UserMatch

	Milestone       *string
	Labels          []string
	MyReactionEmoji *string
	ApprovedBy      *IDsMatch
	Approver        *IDsMatch
	Approved        *bool

	CreatedAfter, CreatedBefore   *time.Time
	UpdatedAfter, UpdatedBefore   *time.Time
	DeployedAfter, DeployedBefore *time.Time
	Environment                   *string

	Search       *string
	InTitle      bool // where search looks; both when neither is set
	InDesc       bool
	SourceBranch *string
	TargetBranch *string
	Draft        *bool

	Not MRNot

	OrderBy, Sort string
}

// IDsMatch is an integer-array filter with None and Any (approved_by_ids, approver_ids).
type IDsMatch struct {
	Kind string // none, any, ids
	IDs  []int
}

// FindMergeRequests lists the merge requests f selects that its caller may
// read, in f's order (ties broken by id).
func (d *Data) FindMergeRequests(f MRFilter) []*MergeRequest {
	var pool []*MergeRequest
	if f.ProjectID != 0 {
		pool = d.projectMRs[f.ProjectID]
	} else {
		pool = d.AllMergeRequests()
	}
	readable := map[int]bool{}
	canRead := func(projectID int) bool {
		ok, seen := readable[projectID]
		if !seen {
			p := d.projects[projectID]
			ok = p != nil && d.CanReadMergeRequests(f.Caller, p)
			readable[projectID] = ok
		}
		return ok
	}
	var out []*MergeRequest
	for _, mr := range pool {
		if canRead(mr.ProjectID) && d.matchMR(f, mr) {
			out = append(out, mr)
		}
	}
	sortMRs(out, f.OrderBy, f.Sort)
	return out
}

func (d *Data) matchMR(f MRFilter, mr *MergeRequest) bool {
	caller := f.Caller
	switch f.Scope {
	case "created_by_me":
		if caller == nil || mr.AuthorID != caller.ID {
			return false
		}
	case "assigned_to_me":
		if caller == nil || !slices.Contains(mr.AssigneeIDs, caller.ID) {
			return false
		}
	case "reviews_for_me":
		if caller == nil || !slices.Contains(mr.ReviewerIDs, caller.ID) {
			return false
		}
	}
	if f.State != "" && f.State != "all" && mr.State != f.State {
		return false
	}
	if f.IIDs != nil && !slices.Contains(f.IIDs, mr.IID) {
		return false
	}
	if !d.matchUsers(f.Author, []int{mr.AuthorID}) || !d.matchUsers(f.Assignee, mr.AssigneeIDs) ||
		!d.matchUsers(f.Reviewer, mr.ReviewerIDs) {
		return false
	}
	if f.MergeUser.Set() {
		var ids []int
		if mr.MergeUserID != 0 {
			ids = []int{mr.MergeUserID}
		}
		if !d.matchUsers(f.MergeUser, ids) {
			return false
		}
	}
	if f.Milestone != nil && !d.matchMilestone(mr, *f.Milestone) {
		return false
	}
	if f.Labels != nil && !d.matchLabels(mr, f.Labels) {
		return false
	}
	if f.MyReactionEmoji != nil && caller != nil && !d.matchReaction(mr, caller, *f.MyReactionEmoji) {
		return false
	}
	if f.ApprovedBy != nil && !matchIDs(*f.ApprovedBy, mr.ApprovedBy) {
		return false
	}
	// The reference has no approval rules, so no merge request has approvers.
	if f.Approver != nil && !matchIDs(*f.Approver, nil) {
		return false
	}
	if f.Approved != nil && mr.Approved() != *f.Approved {
		return false
	}
	if !inRange(mr.CreatedAt, f.CreatedAfter, f.CreatedBefore) || !inRange(mr.UpdatedAt, f.UpdatedAfter, f.UpdatedBefore) {
		return false
	}
	// The reference deploys nothing: no merge request was deployed anywhere.
	if f.DeployedAfter != nil || f.DeployedBefore != nil || f.Environment != nil {
		return false
	}
	if f.Search != nil && !matchSearch(mr, *f.Search, f.InTitle, f.InDesc) {
		return false
	}
	if f.SourceBranch != nil && mr.SourceBranch != *f.SourceBranch {
		return false
	}
	if f.TargetBranch != nil && mr.TargetBranch != *f.TargetBranch {
		return false
	}
	if f.Draft != nil && mr.Draft() != *f.Draft {
		return false
	}
	return d.matchNot(f.Not, mr, caller)
}

func (d *Data) matchNot(n MRNot, mr *MergeRequest, caller *User) bool {
	for _, name := range n.Labels {
		if l := d.LabelByName(mr.ProjectID, strings.TrimSpace(name)); l != nil && slices.Contains(mr.LabelIDs, l.ID) {
			return false
		}
	}
	if n.Milestone != nil && d.matchMilestone(mr, *n.Milestone) {
		return false
	}
	if n.Author.Set() && d.matchUsers(n.Author, []int{mr.AuthorID}) {
		return false
	}
	if n.Assignee.Set() && d.matchUsers(n.Assignee, mr.AssigneeIDs) {
		return false
	}
	for _, name := range n.AssigneeUsername {
		if d.matchUsers(UserMatch{Kind: "username", Username: name}, mr.AssigneeIDs) {
			return false
		}
	}
	if n.Reviewer.Set() && d.matchUsers(n.Reviewer, mr.ReviewerIDs) {
		return false
	}
	if n.MyReactionEmoji != nil && caller != nil && d.matchReaction(mr, caller, *n.MyReactionEmoji) {
		return false
	}
	return true
}

// matchMilestone: a milestone title, None (no milestone) or Any (some milestone).
func (d *Data) matchMilestone(mr *MergeRequest, want string) bool {
	m := d.MilestoneOf(mr.ProjectID, mr.MilestoneID)
	switch k, _ := Predefined(want); k {
	case FilterNone:
		return m == nil
	case FilterAny:
		return m != nil
	}
	return m != nil && m.Title == want
}

// matchLabels: every named label, or None (no label) / Any (some label).
func (d *Data) matchLabels(mr *MergeRequest, names []string) bool {
	if len(names) == 1 {
		switch k, _ := Predefined(strings.TrimSpace(names[0])); k {
		case FilterNone:
			return len(mr.LabelIDs) == 0
		case FilterAny:
			return len(mr.LabelIDs) > 0
		}
	}
	for _, name := range names {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		l := d.LabelByName(mr.ProjectID, name)
		if l == nil || !slices.Contains(mr.LabelIDs, l.ID) {
			return false
		}
	}
	return true
}

// matchReaction: the caller's reactions to mr include name, or None / Any.
func (d *Data) matchReaction(mr *MergeRequest, caller *User, name string) bool {
	var mine []string
	for _, e := range d.awards[Awardable{AwardableMergeRequest, mr.ID}] {
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

func matchIDs(m IDsMatch, have []int) bool {
	switch m.Kind {
	case FilterNone:
		return len(have) == 0
	case FilterAny:
		return len(have) > 0
	}
	for _, id := range m.IDs {
		if !slices.Contains(have, id) {
			return false
		}
	}
	return true
}

// Approved reports whether mr has the approvals it needs: approvals_before_merge
// of them when set, otherwise one (paid tier).
func (mr *MergeRequest) Approved() bool {
	need := 1
	if mr.ApprovalsBeforeMerge != nil && *mr.ApprovalsBeforeMerge > need {
		need = *mr.ApprovalsBeforeMerge
	}
	return len(mr.ApprovedBy) >= need
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

func matchSearch(mr *MergeRequest, q string, inTitle, inDesc bool) bool {
	if !inTitle && !inDesc {
		inTitle, inDesc = true, true
	}
	q = strings.ToLower(q)
	return inTitle && strings.Contains(strings.ToLower(mr.Title), q) ||
		inDesc && strings.Contains(strings.ToLower(mr.Description), q)
}

// sortMRs orders by created_at (default), updated_at, title or merged_at
// (unmerged last either way), descending unless sort is asc; ties by id in
// the same direction.
func sortMRs(mrs []*MergeRequest, orderBy, sortDir string) {
	desc := sortDir != "asc"
	cmp := func(a, b *MergeRequest) int {
		var c int
		switch orderBy {
		case "updated_at":
			c = a.UpdatedAt.Compare(b.UpdatedAt)
		case "title":
			c = strings.Compare(strings.ToLower(a.Title), strings.ToLower(b.Title))
		case "merged_at":
			switch {
			case a.MergedAt == nil && b.MergedAt == nil:
			case a.MergedAt == nil:
				c = -1 // unmerged first ascending, so last once reversed
			case b.MergedAt == nil:
				c = 1
			default:
				c = a.MergedAt.Compare(*b.MergedAt)
			}
		default:
			c = a.CreatedAt.Compare(b.CreatedAt)
		}
		if c == 0 {
			c = a.ID - b.ID
		}
		return c
	}
	// Merge requests are stored in creation order, which is already the
	// default order (created_at, then id): checking costs n comparisons,
	// sorting n log n.
	if !slices.IsSortedFunc(mrs, cmp) {
		slices.SortFunc(mrs, cmp)
	}
	if desc {
		slices.Reverse(mrs)
	}
	if orderBy == "merged_at" {
		// Unmerged merge requests come last in either direction.
		merged := slices.DeleteFunc(slices.Clone(mrs), func(mr *MergeRequest) bool { return mr.MergedAt == nil })
		unmerged := slices.DeleteFunc(slices.Clone(mrs), func(mr *MergeRequest) bool { return mr.MergedAt != nil })
		copy(mrs[copy(mrs, merged):], unmerged)
	}
}
