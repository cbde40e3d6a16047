package store

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Merge request states (States and transitions): locked is the short-lived
// state of a merge in progress.
const (
	MROpened = "opened"
	MRClosed = "closed"
	MRLocked = "locked"
	MRMerged = "merged"
)

// AwardableMergeRequest is the awardable and noteable type of merge requests.
const AwardableMergeRequest = "MergeRequest"

// Merge status values (States and transitions; merge_status is deprecated in
// favour of detailed_merge_status).
const (
	MergeUnchecked      = "unchecked"
	MergeCanBeMerged    = "can_be_merged"
	MergeCannotBeMerged = "cannot_be_merged"
)

// MergeRequest compares a source branch with a target branch of one project's
// repository. Everything observable about the comparison (versions, diff
// refs, mergeability) comes from git and is recorded here when a branch moves.
type MergeRequest struct {
	ID, IID, ProjectID, SourceProjectID int
	AuthorID                            int
	Title, Description                  string
	SourceBranch, TargetBranch          string
	State                               string
	AssigneeIDs, ReviewerIDs            []int
	LabelIDs                            []int
	MilestoneID                         int
	ForceRemoveSourceBranch             bool
	ShouldRemoveSourceBranch            *bool
	Squash                              bool
	AllowCollaboration                  bool
	DiscussionLocked                    *bool
	// ApprovalsBeforeMerge is the deprecated paid-tier approval count.
	ApprovalsBeforeMerge *int
	// ApprovedBy lists the users who approved (paid tier), in approval order.
	ApprovedBy              []int
	CreatedAt, UpdatedAt    time.Time
	MergedAt, ClosedAt      *time.Time
	MergeUserID, ClosedByID int
	MergeCommitSHA          string
	SquashCommitSHA         string
	TimeEstimate, TimeSpent int // seconds
	Subscriptions           map[int]bool
	Versions                []*MRVersion // oldest first
	Check                   MergeCheck
}

// MRVersion is one diff version: the comparison as it stood when the source
// branch reached HeadSHA. Commits are newest first.
type MRVersion struct {
	ID             int
	MergeRequestID int
	HeadSHA        string
	BaseSHA        string
	StartSHA       string
	CreatedAt      time.Time
	State          string // collected, overflow, without_files
	RealSize       string
	PatchIDSHA     string
	Commits        []string
}

// Diff version states (States and transitions).
const (
	VersionCollected    = "collected"
	VersionOverflow     = "overflow"
	VersionWithoutFiles = "without_files"
)

// MergeCheck is the last mergeability check: a real three-way merge of the
// target head and the source head.
type MergeCheck struct {
	Source, Target string // the heads checked
	Status         string // unchecked, can_be_merged, cannot_be_merged
	Conflicts      bool
	FastForward    bool // the target head is in the source's history
	Diverged       int  // commits on the target not in the source
	BranchMissing  bool // the source or the target branch is gone
}

// Latest returns the newest version.
func (mr *MergeRequest) Latest() *MRVersion {
	if len(mr.Versions) == 0 {
		return nil
	}
	return mr.Versions[len(mr.Versions)-1]
}

// Version finds one of the merge request's versions.
func (mr *MergeRequest) Version(id int) *MRVersion {
	for _, v := range mr.Versions {
		if v.ID == id {
			return v
		}
	}
	return nil
}

// draftRe is the platform's draft title prefix: [Draft], (Draft), Draft: and
// Draft - and the legacy WIP forms, case-insensitive, possibly repeated.
var draftRe = regexp.MustCompile(`(?i)^\s*(\[draft\]|\(draft\)|draft:|draft\s-\s|\[wip\]|wip:|wip\s-\s)+\s*`)

// IsDraft reports whether a title marks its merge request as a draft.
func IsDraft(title string) bool { return draftRe.MatchString(title) }

// Draft reports whether the merge request is a draft (its title says so).
func (mr *MergeRequest) Draft() bool { return IsDraft(mr.Title) }

// Open reports whether the merge request can still change state by merging:
// opened, or locked while a merge runs.
func (mr *MergeRequest) Open() bool { return mr.State == MROpened || mr.State == MRLocked }

// MRFields holds what POST and PUT .../merge_requests accept; nil means not given.
type MRFields struct {
	Title, Description         *string
	SourceBranch, TargetBranch *string
	AssigneeIDs                []int
	AssigneesGiven             bool
	ReviewerIDs                []int
	ReviewersGiven             bool
	Labels                     []string
	LabelsGiven                bool
	AddLabels, RemoveLabels    []string
	MilestoneID                *int // 0 removes the milestone
	RemoveSourceBranch         *bool
	Squash                     *bool
	AllowCollaboration         *bool
	DiscussionLocked           *bool
	ApprovalsBeforeMerge       *int
	StateEvent                 *string // close, reopen
}

// DuplicateMRError is an open merge request with the same branches; the
// platform answers 409 naming it.
type DuplicateMRError struct{ IID int }

func (e *DuplicateMRError) Error() string {
	return "Another open merge request already exists for this source branch: !" + strconv.Itoa(e.IID)
}

func (d *Data) mrInit() {
	if d.mergeRequests == nil {
		d.mergeRequests = map[int]*MergeRequest{}
	}
	if d.projectMRs == nil {
		d.projectMRs = map[int][]*MergeRequest{}
	}
}

// CreateMergeRequest validates and stores a merge request of p by author with
// its first version and mergeability check (computed from git by the caller).
// An open merge request with the same branches is a *DuplicateMRError.
func (d *Data) CreateMergeRequest(p *Project, author *User, f MRFields, first *MRVersion, check MergeCheck) (*MergeRequest, error) {
	d.mrInit()
	v := &ValidationError{Fields: map[string][]string{}}
	title := strings.TrimSpace(deref(f.Title))
	if title == "" {
		v.Fields["title"] = []string{"can't be blank"}
	}
	for _, n := range append(append([]string{}, f.Labels...), f.AddLabels...) {
		if strings.TrimSpace(n) != "" && !ValidLabelName(n) {
			v.Fields["labels"] = []string{"is invalid"}
		}
	}
	if len(v.Fields) > 0 {
		return nil, v
	}
	src, tgt := deref(f.SourceBranch), deref(f.TargetBranch)
	if err := d.openDuplicate(p, 0, src, tgt); err != nil {
		return nil, err
	}
	now := d.Now()
	mr := &MergeRequest{ID: d.next("merge_request"), IID: d.next("mr_iid:" + strconv.Itoa(p.ID)), ProjectID: p.ID,
		SourceProjectID: p.ID, AuthorID: author.ID, Title: title, Description: deref(f.Description),
		SourceBranch: src, TargetBranch: tgt, State: MROpened, CreatedAt: now, UpdatedAt: now,
		Subscriptions: map[int]bool{}, LabelIDs: []int{}}
	if f.RemoveSourceBranch != nil {
		mr.ForceRemoveSourceBranch = *f.RemoveSourceBranch
	}
	if f.Squash != nil {
		mr.Squash = *f.Squash
	}
	if f.AllowCollaboration != nil {
		mr.AllowCollaboration = *f.AllowCollaboration
	}
	mr.ApprovalsBeforeMerge = f.ApprovalsBeforeMerge
	d.applyMRLinks(p, mr, f, author)
	d.mergeRequests[mr.ID] = mr
	d.projectMRs[p.ID] = append(d.projectMRs[p.ID], mr)
	d.allMRs = append(d.allMRs, mr)
	d.Touch(mr)
	d.AddVersion(mr, first, check)
	return mr, nil
}

// openDuplicate is the *DuplicateMRError of an open merge request of p other
// than except between source and target, or nil.
func (d *Data) openDuplicate(p *Project, except int, source, target string) error {
	for _, o := range d.projectMRs[p.ID] {
		if o.ID != except && o.Open() && o.SourceBranch == source && o.TargetBranch == target {
			return &DuplicateMRError{IID: o.IID}
		}
	}
	return nil
}

// applyMRLinks sets assignees, reviewers, labels and milestone from f,
// creating to-do items for new assignees and reviewers as the platform does.
func (d *Data) applyMRLinks(p *Project, mr *MergeRequest, f MRFields, by *User) {
	// New assignees and reviewers get a to-do item; those kept get none.
	people := func(old, ids []int, action string) []int {
		kept := d.assignable(p, ids)
		for _, id := range kept {
			if !slices.Contains(old, id) {
				d.addTodo(id, by.ID, p.ID, AwardableMergeRequest, mr.ID, action)
			}
		}
		return kept
	}
	if f.AssigneesGiven {
		mr.AssigneeIDs = people(mr.AssigneeIDs, f.AssigneeIDs, TodoAssigned)
	}
	if f.ReviewersGiven {
		mr.ReviewerIDs = people(mr.ReviewerIDs, f.ReviewerIDs, TodoReviewRequested)
	}
	if f.LabelsGiven {
		mr.LabelIDs = d.ensureLabels(p.ID, f.Labels)
	}
	if len(f.AddLabels) > 0 {
		for _, id := range d.ensureLabels(p.ID, f.AddLabels) {
			if !slices.Contains(mr.LabelIDs, id) {
				mr.LabelIDs = append(mr.LabelIDs, id)
			}
		}
	}
	for _, n := range f.RemoveLabels {
		if l := d.LabelByName(p.ID, strings.TrimSpace(n)); l != nil {
			mr.LabelIDs = slices.DeleteFunc(mr.LabelIDs, func(id int) bool { return id == l.ID })
		}
	}
	if f.MilestoneID != nil {
		// A milestone of another project is ignored, as the platform does.
		if *f.MilestoneID == 0 || d.MilestoneOf(p.ID, *f.MilestoneID) != nil {
			mr.MilestoneID = *f.MilestoneID
		}
	}
}

// assignable keeps the users who exist and may read the project's merge
// requests; the platform drops the others silently.
func (d *Data) assignable(p *Project, ids []int) []int {
	out := []int{}
	for _, id := range ids {
		u := d.User(id)
		if u == nil || slices.Contains(out, id) || !d.CanReadMergeRequests(u, p) {
			continue
		}
		out = append(out, id)
	}
	return out
}

// CanReadMergeRequests applies who may read a project's merge requests: they
// compare code, so whoever may read the repository (anyone who sees a public
// or internal project, Reporter and above in a private one) while the
// project's merge requests are enabled.
func (d *Data) CanReadMergeRequests(u *User, p *Project) bool {
	if !p.MergeRequestsEnabled || !d.CanSeeProject(u, p) {
		return false
	}
	if u != nil && u.Admin {
		return true
	}
	return p.Visibility != "private" || d.ProjectAccess(u, p) >= 20
}

// UpdateMergeRequest validates f and applies it to mr: fields, links and a
// state_event (close, reopen).
func (d *Data) UpdateMergeRequest(p *Project, mr *MergeRequest, f MRFields, by *User) error {
	v := &ValidationError{Fields: map[string][]string{}}
	if f.Title != nil && strings.TrimSpace(*f.Title) == "" {
		v.Fields["title"] = []string{"can't be blank"}
	}
	for _, n := range append(append([]string{}, f.Labels...), f.AddLabels...) {
		if strings.TrimSpace(n) != "" && !ValidLabelName(n) {
			v.Fields["labels"] = []string{"is invalid"}
		}
	}
	if len(v.Fields) > 0 {
		return v
	}
	// A state_event the state does not allow (closing a merged one) changes
	// nothing, as on the platform.
	if f.StateEvent != nil && *f.StateEvent == "reopen" && mr.State == MRClosed {
		if err := d.openDuplicate(p, mr.ID, mr.SourceBranch, mr.TargetBranch); err != nil {
			return err
		}
	}
	if f.TargetBranch != nil && *f.TargetBranch != mr.TargetBranch && mr.Open() {
		if err := d.openDuplicate(p, mr.ID, mr.SourceBranch, *f.TargetBranch); err != nil {
			return err
		}
	}
	d.Touch(mr)
	now := d.Now()
	if f.Title != nil {
		mr.Title = strings.TrimSpace(*f.Title)
	}
	if f.Description != nil {
		mr.Description = *f.Description
	}
	if f.TargetBranch != nil {
		mr.TargetBranch = *f.TargetBranch
	}
	if f.RemoveSourceBranch != nil {
		mr.ForceRemoveSourceBranch = *f.RemoveSourceBranch
	}
	if f.Squash != nil {
		mr.Squash = *f.Squash
	}
	if f.AllowCollaboration != nil {
		mr.AllowCollaboration = *f.AllowCollaboration
	}
	if f.DiscussionLocked != nil {
		mr.DiscussionLocked = f.DiscussionLocked
	}
	if f.ApprovalsBeforeMerge != nil {
		mr.ApprovalsBeforeMerge = f.ApprovalsBeforeMerge
	}
	d.applyMRLinks(p, mr, f, by)
	if f.StateEvent != nil {
		switch {
		case *f.StateEvent == "close" && mr.State == MROpened:
			mr.State, mr.ClosedAt, mr.ClosedByID = MRClosed, &now, by.ID
			d.doneTodosOf(AwardableMergeRequest, mr.ID)
		case *f.StateEvent == "reopen" && mr.State == MRClosed:
			mr.State, mr.ClosedAt, mr.ClosedByID = MROpened, nil, 0
		}
	}
	mr.UpdatedAt = now
	return nil
}

// AddVersion records a new diff version of mr with the mergeability check
// made at the same heads; the version gets the next version id.
func (d *Data) AddVersion(mr *MergeRequest, v *MRVersion, check MergeCheck) {
	d.Touch(mr)
	if v != nil {
		v.ID = d.next("mr_version")
		v.MergeRequestID = mr.ID
		v.CreatedAt = d.Now()
		mr.Versions = append(mr.Versions, v)
	}
	mr.Check = check
}

// SetMergeCheck records a mergeability check of mr (a branch moved).
func (d *Data) SetMergeCheck(mr *MergeRequest, check MergeCheck) {
	d.Touch(mr)
	mr.Check = check
}

// LockForMerge moves an opened merge request to locked while its merge runs.
func (d *Data) LockForMerge(mr *MergeRequest) {
	d.Touch(mr)
	mr.State = MRLocked
}

// UnlockMerge returns a merge request whose merge failed to opened.
func (d *Data) UnlockMerge(mr *MergeRequest) {
	d.Touch(mr)
	if mr.State == MRLocked {
		mr.State = MROpened
	}
}

// MarkMerged records a finished merge by user.
func (d *Data) MarkMerged(mr *MergeRequest, by *User, mergeCommit, squashCommit string, removeSource *bool) {
	d.Touch(mr)
	now := d.Now()
	mr.State, mr.MergedAt, mr.MergeUserID = MRMerged, &now, by.ID
	mr.MergeCommitSHA, mr.SquashCommitSHA = mergeCommit, squashCommit
	if removeSource != nil {
		mr.ShouldRemoveSourceBranch = removeSource
	}
	mr.UpdatedAt = now
	d.doneTodosOf(AwardableMergeRequest, mr.ID)
}

// MergeRequest finds a merge request by its global id.
func (d *Data) MergeRequest(id int) *MergeRequest { return d.mergeRequests[id] }

// MergeRequestByIID finds a project's merge request by iid.
func (d *Data) MergeRequestByIID(projectID, iid int) *MergeRequest {
	list := d.projectMRs[projectID]
	// Ascending iid: binary search.
	i, ok := slices.BinarySearchFunc(list, iid, func(mr *MergeRequest, iid int) int { return mr.IID - iid })
	if !ok {
		return nil
	}
	return list[i]
}

// ProjectMergeRequests lists a project's merge requests by ascending iid.
func (d *Data) ProjectMergeRequests(projectID int) []*MergeRequest { return d.projectMRs[projectID] }

// OpenMergeRequestsOn lists the open merge requests of a project whose
// source or target is branch.
func (d *Data) OpenMergeRequestsOn(projectID int, branch string) []*MergeRequest {
	var out []*MergeRequest
	for _, mr := range d.projectMRs[projectID] {
		if mr.Open() && (mr.SourceBranch == branch || mr.TargetBranch == branch) {
			out = append(out, mr)
		}
	}
	return out
}

// AllMergeRequests lists every merge request by ascending id.
func (d *Data) AllMergeRequests() []*MergeRequest { return d.allMRs }

// DeleteMergeRequest removes a merge request with its notes, reactions,
// to-do items and blocks.
func (d *Data) DeleteMergeRequest(mr *MergeRequest) {
	on := Awardable{AwardableMergeRequest, mr.ID}
	for id, n := range d.notes {
		if n.NoteableType == AwardableMergeRequest && n.NoteableID == mr.ID {
			d.Touch(n)
			d.touchKey(tAwards, Awardable{AwardableNote, id})
			delete(d.awards, Awardable{AwardableNote, id})
			delete(d.notes, id)
		}
	}
	d.touchKey(tAwards, on)
	delete(d.awards, on)
	d.dropTodosOf(AwardableMergeRequest, mr.ID)
	for id, b := range d.mrBlocks {
		if b.BlockingID == mr.ID || b.BlockedID == mr.ID {
			d.Touch(b)
			delete(d.mrBlocks, id)
		}
	}
	d.Touch(mr)
	delete(d.mergeRequests, mr.ID)
	d.projectMRs[mr.ProjectID] = slices.DeleteFunc(d.projectMRs[mr.ProjectID], func(x *MergeRequest) bool { return x.ID == mr.ID })
	d.allMRs = slices.DeleteFunc(d.allMRs, func(x *MergeRequest) bool { return x.ID == mr.ID })
}

// dropMergeRequests forgets a deleted project's merge requests (their notes
// go with the project's notes).
func (d *Data) dropMergeRequests(projectID int) {
	for _, mr := range slices.Clone(d.projectMRs[projectID]) {
		d.DeleteMergeRequest(mr)
	}
	delete(d.projectMRs, projectID)
}

// Subscribed reports whether u receives notifications of mr: an explicit
// subscription or unsubscription wins; otherwise participants (the author,
// assignees, reviewers and commenters) are subscribed, as on the platform.
func (d *Data) Subscribed(mr *MergeRequest, u *User) bool {
	if u == nil {
		return false
	}
	if s, ok := mr.Subscriptions[u.ID]; ok {
		return s
	}
	if mr.AuthorID == u.ID || slices.Contains(mr.AssigneeIDs, u.ID) || slices.Contains(mr.ReviewerIDs, u.ID) {
		return true
	}
	for _, n := range d.notes {
		if n.NoteableType == AwardableMergeRequest && n.NoteableID == mr.ID && n.AuthorID == u.ID {
			return true
		}
	}
	return false
}

// SetSubscription records u's explicit (un)subscription.
func (d *Data) SetSubscription(mr *MergeRequest, u *User, on bool) {
	d.Touch(mr)
	mr.Subscriptions[u.ID] = on
}

// Votes counts the thumbs-up and thumbs-down reactions to an awardable
// (upvotes and downvotes; +1 and -1 are their aliases).
func (d *Data) Votes(a Awardable) (up, down int) {
	for _, e := range d.awards[a] {
		switch e.Name {
		case "thumbsup", "+1":
			up++
		case "thumbsdown", "-1":
			down++
		}
	}
	return up, down
}

// UserNotesCount counts the notes on a noteable (the reference writes no system notes).
func (d *Data) UserNotesCount(on Awardable) int {
	n := 0
	for _, note := range d.notes {
		if note.NoteableType == on.Type && note.NoteableID == on.ID {
			n++
		}
	}
	return n
}

// NotesOn lists the notes on a noteable by ascending id.
func (d *Data) NotesOn(on Awardable) []*Note {
	var out []*Note
	for _, n := range d.notes {
		if n.NoteableType == on.Type && n.NoteableID == on.ID {
			out = append(out, n)
		}
	}
	slices.SortFunc(out, func(a, b *Note) int { return a.ID - b.ID })
	return out
}

// SetTimeEstimate records mr's time estimate in seconds.
func (d *Data) SetTimeEstimate(mr *MergeRequest, seconds int) {
	d.Touch(mr)
	mr.TimeEstimate = seconds
	mr.UpdatedAt = d.Now()
}

// AddTimeSpent adds to mr's total time spent (negative durations subtract, not below zero).
func (d *Data) AddTimeSpent(mr *MergeRequest, seconds int) {
	d.Touch(mr)
	mr.TimeSpent = max(0, mr.TimeSpent+seconds)
	mr.UpdatedAt = d.Now()
}

// Approve records u's approval of mr (paid tier); approving twice is ErrConflict.
func (d *Data) Approve(mr *MergeRequest, u *User) error {
	if slices.Contains(mr.ApprovedBy, u.ID) {
		return ErrConflict
	}
	d.Touch(mr)
	mr.ApprovedBy = append(mr.ApprovedBy, u.ID)
	return nil
}

// Unapprove withdraws u's approval; without one it is ErrNotFound.
func (d *Data) Unapprove(mr *MergeRequest, u *User) error {
	if !slices.Contains(mr.ApprovedBy, u.ID) {
		return ErrNotFound
	}
	d.Touch(mr)
	mr.ApprovedBy = slices.DeleteFunc(mr.ApprovedBy, func(id int) bool { return id == u.ID })
	return nil
}

// MRBlock says the blocked merge request cannot merge before the blocking one has.
type MRBlock struct {
	ID                    int
	BlockingID, BlockedID int // merge request global ids
	ProjectID             int // the blocked merge request's project
}

// BlockError is a block the platform refuses to save (Endpoints, blocks: 400).
type BlockError struct{ Field, Message string }

func (e *BlockError) Error() string { return e.Field + " " + e.Message }

// AddBlock records that blocking blocks blocked. An existing block is
// ErrConflict; a block of a merge request by itself, or one that would chain
// blocks (the blocking one is itself blocked, or the blocked one blocks
// others), is a *BlockError.
func (d *Data) AddBlock(blocking, blocked *MergeRequest) (*MRBlock, error) {
	for _, b := range d.mrBlocks {
		if b.BlockingID == blocking.ID && b.BlockedID == blocked.ID {
			return nil, ErrConflict
		}
	}
	switch {
	case blocking.ID == blocked.ID:
		return nil, &BlockError{"base", "This block is self-referential"}
	case len(d.BlocksOf(blocking.ID)) > 0:
		return nil, &BlockError{"blocking_merge_request", "cannot itself be blocked"}
	}
	for _, b := range d.mrBlocks {
		if b.BlockingID == blocked.ID {
			return nil, &BlockError{"blocked_merge_request", "cannot block others"}
		}
	}
	if d.mrBlocks == nil {
		d.mrBlocks = map[int]*MRBlock{}
	}
	b := &MRBlock{ID: d.next("mr_block"), BlockingID: blocking.ID, BlockedID: blocked.ID, ProjectID: blocked.ProjectID}
	d.mrBlocks[b.ID] = b
	d.Touch(b)
	return b, nil
}

// BlocksOf lists the blocks on a merge request (those that block it) by ascending id.
func (d *Data) BlocksOf(blockedID int) []*MRBlock {
	var out []*MRBlock
	for _, b := range d.mrBlocks {
		if b.BlockedID == blockedID {
			out = append(out, b)
		}
	}
	slices.SortFunc(out, func(a, b *MRBlock) int { return a.ID - b.ID })
	return out
}

// BlockOf finds one block on a merge request; a block of another is not found.
func (d *Data) BlockOf(blockedID, id int) *MRBlock {
	if b := d.mrBlocks[id]; b != nil && b.BlockedID == blockedID {
		return b
	}
	return nil
}

// DeleteBlock removes a block.
func (d *Data) DeleteBlock(b *MRBlock) {
	d.Touch(b)
	delete(d.mrBlocks, b.ID)
}

// Blocked reports whether a blocking merge request of mr has not merged yet.
func (d *Data) Blocked(mr *MergeRequest) bool {
	for _, b := range d.BlocksOf(mr.ID) {
		if o := d.mergeRequests[b.BlockingID]; o != nil && o.State != MRMerged {
			return true
		}
	}
	return false
}

// DetailedMergeStatus says why mr can or cannot merge now, with the
// platform's words, checked in the platform's order.
func (d *Data) DetailedMergeStatus(mr *MergeRequest, p *Project) string {
	c := mr.Check
	switch {
	case !mr.Open():
		return "not_open"
	case c.Status == MergeUnchecked || c.Status == "":
		return "unchecked"
	case c.BranchMissing:
		return "broken_status"
	case mr.Draft():
		return "draft_status"
	case d.Blocked(mr):
		return "blocked_status"
	case c.Conflicts:
		return "conflict"
	case p.MergeMethod != MergeMethodMerge && p.MergeMethod != "" && !c.FastForward:
		return "need_rebase"
	case mr.ApprovalsBeforeMerge != nil && len(mr.ApprovedBy) < *mr.ApprovalsBeforeMerge:
		return "not_approved"
	}
	return "mergeable"
}

// Merge methods of a project (the platform's merge_method setting).
const (
	MergeMethodMerge       = "merge"        // always a merge commit
	MergeMethodRebaseMerge = "rebase_merge" // a merge commit, only onto an up-to-date source
	MergeMethodFF          = "ff"           // fast-forward only, no merge commit
)

// taskRe finds Markdown task list items; the box says whether it is done.
var taskRe = regexp.MustCompile(`(?m)^\s*(?:[-*+]|\d+[.)])\s+\[([ xX])\]`)

// TaskCompletion counts the task list items of a description and the done ones.
func TaskCompletion(description string) (count, completed int) {
	for _, m := range taskRe.FindAllStringSubmatch(description, -1) {
		count++
		if m[1] != " " {
			completed++
		}
	}
	return count, completed
}

// LatestPipeline finds the newest top-level pipeline of a project for ref at
// sha: a merge request's head pipeline.
func (d *Data) LatestPipeline(projectID int, ref, sha string) *Pipeline {
	var best *Pipeline
	for _, pl := range d.pipelines {
		if pl.ProjectID == projectID && pl.ParentID == 0 && pl.Ref == ref && pl.SHA == sha && (best == nil || pl.ID > best.ID) {
			best = pl
		}
	}
	return best
}

// PipelinesOf lists a project's top-level pipelines for ref whose commit is
// one of shas, newest first: the pipelines of a merge request's source branch.
func (d *Data) PipelinesOf(projectID int, ref string, shas map[string]bool) []*Pipeline {
	var out []*Pipeline
	for _, pl := range d.pipelines {
		if pl.ProjectID == projectID && pl.ParentID == 0 && pl.Ref == ref && shas[pl.SHA] {
			out = append(out, pl)
		}
	}
	slices.SortFunc(out, func(a, b *Pipeline) int { return b.ID - a.ID })
	return out
}

// PipelineTimes is when a pipeline's first job started and its last one
// finished (nil while none has).
func (d *Data) PipelineTimes(pl *Pipeline) (started, finished *time.Time) {
	for _, j := range d.PipelineJobs(pl.ID) {
		if j.StartedAt != nil && (started == nil || j.StartedAt.Before(*started)) {
			started = j.StartedAt
		}
		if j.FinishedAt != nil && (finished == nil || j.FinishedAt.After(*finished)) {
			finished = j.FinishedAt
		}
	}
	return started, finished
}
