package store

import (
	"reflect"
	"slices"
	"time"
)

// The merge request lists (Endpoints, Merge requests: GET /merge_requests and
// GET /projects/:id/merge_requests) as a filter over the merge requests a
// caller may read: the issuable attributes (issuable_list.go) and the merge
// requests' own.

// MRFilter is every attribute of the two lists. Nil and zero values filter nothing.
type MRFilter struct {
	IssuableFilter // scope adds reviews_for_me; state locked and merged

	Reviewer, MergeUser UserMatch
	NotReviewer         UserMatch // not[reviewer_id], not[reviewer_username]

	ApprovedBy *IDsMatch
	Approver   *IDsMatch
	Approved   *bool

	DeployedAfter, DeployedBefore *time.Time
	Environment                   *string

	SourceBranch *string
	TargetBranch *string
	Draft        *bool
}

// IDsMatch is an integer-array filter with None and Any (approved_by_ids, approver_ids).
type IDsMatch struct {
	Kind string // none, any, ids
	IDs  []int
}

// FindMergeRequests lists the merge requests f selects that its caller may
// read, in f's order (ties broken by id).
func (d *Data) FindMergeRequests(f MRFilter) []*MergeRequest { return d.MergeRequestWalk(f).All() }

// MergeRequestWalk is the list f asks for as a walk: the created_at and
// updated_at orders (the default and the one clients page by) are read from
// an ordering kept between writes (issuable_index.go) and filtered as the
// page is gathered; the others are sorted per request.
func (d *Data) MergeRequestWalk(f MRFilter) Walk[*MergeRequest] {
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
	match := func(mr *MergeRequest) bool { return canRead(mr.ProjectID) && d.matchMR(&f, mr) }
	state, shared := f.byState()
	if sorted := d.mergeRequestsOrdered(f.ProjectID, state, f.OrderBy); sorted != nil {
		// The ordering holds one state's merge requests (or all): with no
		// other attribute, every one it holds is on the list.
		rest := f
		rest.IssuableFilter = shared
		if rest.selectsAll() && d.readsEveryMR(f, canRead) {
			return walkOf(sorted, f.Sort, nil)
		}
		return walkOf(sorted, f.Sort, match)
	}
	var pool []*MergeRequest
	if f.ProjectID != 0 {
		pool = d.projectMRs[f.ProjectID]
	} else {
		pool = d.allMRs
	}
	var out []*MergeRequest
	for _, mr := range pool {
		if match(mr) {
			out = append(out, mr)
		}
	}
	sortMRs(out, f.OrderBy, f.Sort)
	return walkOf(out, "asc", nil) // already in the order asked
}

// selectsAll: no attribute beyond the shared ones' all.
func (f *MRFilter) selectsAll() bool {
	rest := *f
	rest.IssuableFilter = IssuableFilter{}
	return f.IssuableFilter.selectsAll() && reflect.ValueOf(rest).IsZero()
}

// readsEveryMR reports whether the caller may read every merge request of
// the list: the project's, or for the global list those of every project
// that has any (one check a project, not one a merge request).
func (d *Data) readsEveryMR(f MRFilter, canRead func(int) bool) bool {
	if f.ProjectID != 0 {
		return canRead(f.ProjectID)
	}
	for id := range d.projectMRs {
		if len(d.projectMRs[id]) > 0 && !canRead(id) {
			return false
		}
	}
	return true
}

func (d *Data) matchMR(f *MRFilter, mr *MergeRequest) bool {
	if !d.matchIssuable(&f.IssuableFilter, mr.issuable()) {
		return false
	}
	caller := f.Caller
	if f.Scope == "reviews_for_me" && (caller == nil || !slices.Contains(mr.ReviewerIDs, caller.ID)) {
		return false
	}
	if !d.matchUsers(f.Reviewer, mr.ReviewerIDs) {
		return false
	}
	if f.NotReviewer.Set() && d.matchUsers(f.NotReviewer, mr.ReviewerIDs) {
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
	// The reference deploys nothing: no merge request was deployed anywhere.
	if f.DeployedAfter != nil || f.DeployedBefore != nil || f.Environment != nil {
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
	return true
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

// compareMRs orders ascending by the shared orders or merged_at (unmerged
// first ascending, so last once reversed), ties by id.
func compareMRs(a, b *MergeRequest, orderBy string) int {
	if orderBy == "merged_at" {
		c := 0
		switch {
		case a.MergedAt == nil && b.MergedAt == nil:
		case a.MergedAt == nil:
			c = -1
		case b.MergedAt == nil:
			c = 1
		default:
			c = a.MergedAt.Compare(*b.MergedAt)
		}
		if c == 0 {
			c = a.ID - b.ID
		}
		return c
	}
	c, ok := compareIssuables(a.issuable(), b.issuable(), orderBy)
	if !ok { // the readers refuse other orders; created_at is the default
		c, _ = compareIssuables(a.issuable(), b.issuable(), "created_at")
	}
	return c
}

// sortMRs orders by created_at (default), updated_at, title or merged_at
// (unmerged last either way), descending unless sort is asc; ties by id in
// the same direction.
func sortMRs(mrs []*MergeRequest, orderBy, sortDir string) {
	cmp := func(a, b *MergeRequest) int { return compareMRs(a, b, orderBy) }
	// Merge requests are stored in creation order, which is already the
	// default order (created_at, then id): checking costs n comparisons,
	// sorting n log n.
	if !slices.IsSortedFunc(mrs, cmp) {
		slices.SortFunc(mrs, cmp)
	}
	if sortDir != "asc" {
		slices.Reverse(mrs)
	}
	if orderBy == "merged_at" {
		// Unmerged merge requests come last in either direction.
		merged := slices.DeleteFunc(slices.Clone(mrs), func(mr *MergeRequest) bool { return mr.MergedAt == nil })
		unmerged := slices.DeleteFunc(slices.Clone(mrs), func(mr *MergeRequest) bool { return mr.MergedAt != nil })
		copy(mrs[copy(mrs, merged):], unmerged)
	}
}
