package api

import (
	"fmt"
	"html"
	"strconv"
	"strings"

	"github.com/v4cert/v4cert/reference/access"
	"github.com/v4cert/v4cert/reference/store"
)

// How merge requests and what they carry (labels, milestones, blocks, diff
// versions, to-do items, time stats) render, and who may do what with them.

// MergeRequestJSON is the spec's Merge request resource as lists answer it.
type MergeRequestJSON struct {
	ID                          int                `json:"id"`
	IID                         int                `json:"iid"`
	ProjectID                   int                `json:"project_id"`
	Title                       string             `json:"title"`
	Description                 string             `json:"description"`
	State                       string             `json:"state"`
	CreatedAt                   string             `json:"created_at"`
	UpdatedAt                   string             `json:"updated_at"`
	MergedBy                    *UserRef           `json:"merged_by"` // Deprecated: merge_user (Versioning 5)
	MergeUser                   *UserRef           `json:"merge_user"`
	MergedAt                    *string            `json:"merged_at"`
	MergeAfter                  *string            `json:"merge_after"`
	PreparedAt                  *string            `json:"prepared_at"`
	ClosedBy                    *UserRef           `json:"closed_by"`
	ClosedAt                    *string            `json:"closed_at"`
	TargetBranch                string             `json:"target_branch"`
	SourceBranch                string             `json:"source_branch"`
	UserNotesCount              int                `json:"user_notes_count"`
	Upvotes                     int                `json:"upvotes"`
	Downvotes                   int                `json:"downvotes"`
	Author                      UserRef            `json:"author"`
	Assignees                   []UserRef          `json:"assignees"`
	Assignee                    *UserRef           `json:"assignee"`
	Reviewers                   []UserRef          `json:"reviewers"`
	SourceProjectID             int                `json:"source_project_id"`
	TargetProjectID             int                `json:"target_project_id"`
	Labels                      any                `json:"labels"` // names, or LabelDetailJSON with with_labels_details
	Draft                       bool               `json:"draft"`
	WorkInProgress              bool               `json:"work_in_progress"`
	Milestone                   *MilestoneJSON     `json:"milestone"`
	MergeWhenPipelineSucceeds   bool               `json:"merge_when_pipeline_succeeds"`
	MergeStatus                 string             `json:"merge_status"` // Deprecated: detailed_merge_status (Versioning 6)
	DetailedMergeStatus         string             `json:"detailed_merge_status"`
	SHA                         string             `json:"sha"`
	MergeCommitSHA              *string            `json:"merge_commit_sha"`
	SquashCommitSHA             *string            `json:"squash_commit_sha"`
	DiscussionLocked            *bool              `json:"discussion_locked"`
	ShouldRemoveSourceBranch    *bool              `json:"should_remove_source_branch"`
	ForceRemoveSourceBranch     bool               `json:"force_remove_source_branch"`
	AllowCollaboration          bool               `json:"allow_collaboration"`
	AllowMaintainerToPush       bool               `json:"allow_maintainer_to_push"`
	Reference                   string             `json:"reference"` // Deprecated: references (Versioning 6)
	References                  ReferencesJSON     `json:"references"`
	WebURL                      string             `json:"web_url"`
	TimeStats                   TimeStatsJSON      `json:"time_stats"`
	Squash                      bool               `json:"squash"`
	SquashOnMerge               bool               `json:"squash_on_merge"`
	TaskCompletionStatus        TaskCompletionJSON `json:"task_completion_status"`
	HasConflicts                bool               `json:"has_conflicts"`
	BlockingDiscussionsResolved bool               `json:"blocking_discussions_resolved"`
	ApprovalsBeforeMerge        *int               `json:"approvals_before_merge"` // Deprecated, paid tier (Versioning 5)
	Imported                    bool               `json:"imported"`
	ImportedFrom                string             `json:"imported_from"`
}

// MergeRequestDetailJSON is the single form: the list form with what only
// GET, POST and PUT of one merge request answer.
type MergeRequestDetailJSON struct {
	MergeRequestJSON
	Subscribed                  bool                 `json:"subscribed"`
	ChangesCount                *string              `json:"changes_count"`
	MergeError                  *string              `json:"merge_error"`
	User                        MRUserJSON           `json:"user"`
	LatestBuildStartedAt        *string              `json:"latest_build_started_at"`
	LatestBuildFinishedAt       *string              `json:"latest_build_finished_at"`
	FirstDeployedToProductionAt *string              `json:"first_deployed_to_production_at"`
	Pipeline                    *CreatedPipelineJSON `json:"pipeline"`
	HeadPipeline                *CreatedPipelineJSON `json:"head_pipeline"`
	DiffRefs                    *DiffRefsJSON        `json:"diff_refs"`
	// DivergedCommitsCount is set only for GET with
	// include_diverged_commits_count=true, as on the platform
	// (lib/api/entities/merge_request.rb: expose ... if: options[:include_diverged_commits_count]).
	DivergedCommitsCount *int `json:"diverged_commits_count,omitempty"`
	RebaseInProgress     bool `json:"rebase_in_progress"`
	FirstContribution    bool `json:"first_contribution"`
}

// MergeRequestSimpleJSON is the view=simple form of the lists.
type MergeRequestSimpleJSON struct {
	ID          int    `json:"id"`
	IID         int    `json:"iid"`
	ProjectID   int    `json:"project_id"`
	Title       string `json:"title"`
	Description string `json:"description"`
	State       string `json:"state"`
	CreatedAt   string `json:"created_at"`
	UpdatedAt   string `json:"updated_at"`
	WebURL      string `json:"web_url"`
}

// MRUserJSON is the caller's permissions on a merge request.
type MRUserJSON struct {
	CanMerge bool `json:"can_merge"`
}

// ReferencesJSON is {short, relative, full}.
type ReferencesJSON struct {
	Short    string `json:"short"`
	Relative string `json:"relative"`
	Full     string `json:"full"`
}

// TimeStatsJSON is the spec's time_stats.
type TimeStatsJSON struct {
	TimeEstimate        int     `json:"time_estimate"`
	TotalTimeSpent      int     `json:"total_time_spent"`
	HumanTimeEstimate   *string `json:"human_time_estimate"`
	HumanTotalTimeSpent *string `json:"human_total_time_spent"`
}

// TaskCompletionJSON is {count, completed_count}.
type TaskCompletionJSON struct {
	Count          int `json:"count"`
	CompletedCount int `json:"completed_count"`
}

// DiffRefsJSON is {base_sha, head_sha, start_sha} of the latest version.
type DiffRefsJSON struct {
	BaseSHA  string `json:"base_sha"`
	HeadSHA  string `json:"head_sha"`
	StartSHA string `json:"start_sha"`
}

// LabelDetailJSON is a label as with_labels_details shows it.
type LabelDetailJSON struct {
	ID              int    `json:"id"`
	Name            string `json:"name"`
	Color           string `json:"color"`
	Description     string `json:"description"`
	DescriptionHTML string `json:"description_html"`
	TextColor       string `json:"text_color"`
}

// MilestoneJSON is a milestone, embedded or as the milestones API answers it.
type MilestoneJSON struct {
	ID          int     `json:"id"`
	IID         int     `json:"iid"`
	ProjectID   int     `json:"project_id"`
	Title       string  `json:"title"`
	Description string  `json:"description"`
	State       string  `json:"state"`
	CreatedAt   string  `json:"created_at"`
	UpdatedAt   string  `json:"updated_at"`
	DueDate     *string `json:"due_date"`
	StartDate   *string `json:"start_date"`
	Expired     bool    `json:"expired"`
	WebURL      string  `json:"web_url"`
}

func (v *view) milestone(m *store.Milestone) *MilestoneJSON {
	if m == nil {
		return nil
	}
	p := v.d.Project(m.ProjectID)
	return &MilestoneJSON{ID: m.ID, IID: m.IID, ProjectID: m.ProjectID, Title: m.Title, Description: m.Description,
		State: m.State, CreatedAt: ts(m.CreatedAt), UpdatedAt: ts(m.UpdatedAt), DueDate: datePtr(m.DueDate),
		StartDate: datePtr(m.StartDate), Expired: m.Expired(v.d.Now()),
		WebURL: fmt.Sprintf("%s/%s/-/milestones/%d", v.base, v.d.ProjectFullPath(p), m.IID)}
}

// markdownHTML renders a description as the platform's Markdown renderer
// does for plain text: one escaped paragraph, nothing for an empty one.
func markdownHTML(s string) string {
	if strings.TrimSpace(s) == "" {
		return ""
	}
	return `<p dir="auto">` + html.EscapeString(s) + `</p>`
}

// textColor is the label text color the platform picks for a background:
// white on dark colors, near-black on light ones.
func textColor(bg string) string {
	h := strings.TrimPrefix(bg, "#")
	if len(h) == 3 {
		h = string([]byte{h[0], h[0], h[1], h[1], h[2], h[2]})
	}
	n, err := strconv.ParseUint(h, 16, 32)
	if err != nil || len(h) != 6 {
		return "#FFFFFF"
	}
	r, g, b := float64(n>>16&0xff), float64(n>>8&0xff), float64(n&0xff)
	if 0.299*r+0.587*g+0.114*b > 186 {
		return "#1F1E24"
	}
	return "#FFFFFF"
}

func (v *view) labelDetail(l *store.Label) LabelDetailJSON {
	return LabelDetailJSON{ID: l.ID, Name: l.Name, Color: l.Color, Description: l.Description,
		DescriptionHTML: markdownHTML(l.Description), TextColor: textColor(l.Color)}
}

func (v *view) userRefs(ids []int) []UserRef {
	out := []UserRef{}
	for _, id := range ids {
		if r := v.userRefByID(id); r != nil {
			out = append(out, *r)
		}
	}
	return out
}

// humanDuration prints seconds as the platform's time tracking does: weeks
// of 5 days, days of 8 hours, the largest units first ("1w 2d 3h 30m").
func humanDuration(seconds int) *string {
	if seconds <= 0 {
		return nil
	}
	var parts []string
	for _, u := range durationUnits {
		if n := seconds / u.seconds; n > 0 {
			parts = append(parts, strconv.Itoa(n)+u.name)
			seconds -= n * u.seconds
		}
	}
	s := strings.Join(parts, " ")
	return &s
}

func timeStats(estimate, spent int) TimeStatsJSON {
	return TimeStatsJSON{TimeEstimate: estimate, TotalTimeSpent: spent, HumanTimeEstimate: humanDuration(estimate),
		HumanTotalTimeSpent: humanDuration(spent)}
}

// mrWebURL is the merge request's page.
func (v *view) mrWebURL(p *store.Project, mr *store.MergeRequest) string {
	return fmt.Sprintf("%s/%s/-/merge_requests/%d", v.base, v.d.ProjectFullPath(p), mr.IID)
}

// mergeRequest renders the list form. from is the project the caller asked
// through (references.relative is relative to it; nil for the global list).
func (v *view) mergeRequest(mr *store.MergeRequest, from *store.Project, labelDetails bool) MergeRequestJSON {
	p := v.d.Project(mr.ProjectID)
	full := v.d.ProjectFullPath(p)
	short := "!" + strconv.Itoa(mr.IID)
	rel := short
	if from == nil || from.ID != p.ID {
		rel = full + short
	}
	up, down := v.d.Votes(store.Awardable{Type: store.AwardableMergeRequest, ID: mr.ID})
	count, done := store.TaskCompletion(mr.Description)
	j := MergeRequestJSON{
		ID: mr.ID, IID: mr.IID, ProjectID: mr.ProjectID, Title: mr.Title, Description: mr.Description, State: mr.State,
		CreatedAt: ts(mr.CreatedAt), UpdatedAt: ts(mr.UpdatedAt), MergedAt: tsPtr(mr.MergedAt), ClosedAt: tsPtr(mr.ClosedAt),
		PreparedAt: tsPtr(&mr.CreatedAt), TargetBranch: mr.TargetBranch, SourceBranch: mr.SourceBranch,
		UserNotesCount: v.d.UserNotesCount(store.Awardable{Type: store.AwardableMergeRequest, ID: mr.ID}),
		Upvotes:        up, Downvotes: down, Author: v.authorRef(mr.AuthorID), Assignees: v.userRefs(mr.AssigneeIDs),
		Reviewers: v.userRefs(mr.ReviewerIDs), SourceProjectID: mr.SourceProjectID, TargetProjectID: mr.ProjectID,
		Draft: mr.Draft(), WorkInProgress: mr.Draft(), Milestone: v.milestone(v.d.MilestoneOf(mr.ProjectID, mr.MilestoneID)),
		MergeStatus: mr.Check.Status, DetailedMergeStatus: v.d.DetailedMergeStatus(mr, p),
		MergeCommitSHA: strOrNil(mr.MergeCommitSHA), SquashCommitSHA: strOrNil(mr.SquashCommitSHA),
		DiscussionLocked: mr.DiscussionLocked, ShouldRemoveSourceBranch: mr.ShouldRemoveSourceBranch,
		ForceRemoveSourceBranch: mr.ForceRemoveSourceBranch, Reference: short,
		References: ReferencesJSON{Short: short, Relative: rel, Full: full + short}, WebURL: v.mrWebURL(p, mr),
		TimeStats: timeStats(mr.TimeEstimate, mr.TimeSpent), Squash: mr.Squash, SquashOnMerge: mr.Squash,
		TaskCompletionStatus: TaskCompletionJSON{Count: count, CompletedCount: done}, HasConflicts: mr.Check.Conflicts,
		BlockingDiscussionsResolved: true, ApprovalsBeforeMerge: mr.ApprovalsBeforeMerge, ImportedFrom: "none",
	}
	if j.MergeStatus == "" {
		j.MergeStatus = store.MergeUnchecked
	}
	if latest := mr.Latest(); latest != nil {
		j.SHA = latest.HeadSHA
	}
	if len(j.Assignees) > 0 {
		j.Assignee = &j.Assignees[0]
	}
	if mr.MergeUserID != 0 {
		u := v.authorRef(mr.MergeUserID)
		j.MergeUser, j.MergedBy = &u, &u
	}
	if mr.ClosedByID != 0 {
		u := v.authorRef(mr.ClosedByID)
		j.ClosedBy = &u
	}
	labels := v.d.LabelsByIDs(mr.ProjectID, mr.LabelIDs)
	if labelDetails {
		out := make([]LabelDetailJSON, 0, len(labels))
		for _, l := range labels {
			out = append(out, v.labelDetail(l))
		}
		j.Labels = out
	} else {
		out := make([]string, 0, len(labels))
		for _, l := range labels {
			out = append(out, l.Name)
		}
		j.Labels = out
	}
	return j
}

// mergeRequestDetail renders the single form for the caller.
func (v *view) mergeRequestDetail(mr *store.MergeRequest, p *store.Project, labelDetails bool) MergeRequestDetailJSON {
	j := MergeRequestDetailJSON{MergeRequestJSON: v.mergeRequest(mr, p, labelDetails),
		Subscribed: v.d.Subscribed(mr, v.caller),
		User:       MRUserJSON{CanMerge: canMerge(v.d, v.caller, p)}}
	if latest := mr.Latest(); latest != nil {
		j.ChangesCount = &latest.RealSize
		j.DiffRefs = &DiffRefsJSON{BaseSHA: latest.BaseSHA, HeadSHA: latest.HeadSHA, StartSHA: latest.StartSHA}
		if pl := v.d.LatestPipeline(mr.ProjectID, mr.SourceBranch, latest.HeadSHA); pl != nil {
			pj := v.pipelineJSON(pl)
			j.Pipeline, j.HeadPipeline = &pj, &pj
			started, finished := v.d.PipelineTimes(pl)
			j.LatestBuildStartedAt, j.LatestBuildFinishedAt = tsPtr(started), tsPtr(finished)
		}
	}
	return j
}

func (v *view) mergeRequestSimple(mr *store.MergeRequest) MergeRequestSimpleJSON {
	return MergeRequestSimpleJSON{ID: mr.ID, IID: mr.IID, ProjectID: mr.ProjectID, Title: mr.Title,
		Description: mr.Description, State: mr.State, CreatedAt: ts(mr.CreatedAt), UpdatedAt: ts(mr.UpdatedAt),
		WebURL: v.mrWebURL(v.d.Project(mr.ProjectID), mr)}
}

// MRBlockJSON is the spec's merge request block.
type MRBlockJSON struct {
	ID                   int              `json:"id"`
	BlockingMergeRequest MergeRequestJSON `json:"blocking_merge_request"`
	BlockedMergeRequest  MergeRequestJSON `json:"blocked_merge_request"`
	ProjectID            int              `json:"project_id"`
}

func (v *view) mrBlock(b *store.MRBlock) MRBlockJSON {
	blocked := v.d.MergeRequest(b.BlockedID)
	from := v.d.Project(blocked.ProjectID)
	return MRBlockJSON{ID: b.ID, BlockingMergeRequest: v.mergeRequest(v.d.MergeRequest(b.BlockingID), from, false),
		BlockedMergeRequest: v.mergeRequest(blocked, from, false), ProjectID: b.ProjectID}
}

// Who may do what with a project's merge requests (the README's permission
// table). Reading follows the repository: whoever may read the code.

// canUpdateMR: the author while they may still read it, or Developer and above.
func canUpdateMR(d *store.Data, u *store.User, p *store.Project, mr *store.MergeRequest) bool {
	if u == nil {
		return false
	}
	return projectRole(d, u, p) >= access.Developer || (u.ID == mr.AuthorID && d.CanReadMergeRequests(u, p))
}

// canMerge: whoever may push to the target branch (Developer and above, no
// branch being protected in the reference), outside archived projects.
func canMerge(d *store.Data, u *store.User, p *store.Project) bool {
	return u != nil && !p.Archived && projectRole(d, u, p) >= access.Developer
}

// projectRole is u's role in p; administrators rank above every role.
func projectRole(d *store.Data, u *store.User, p *store.Project) access.Level {
	if u == nil {
		return access.None
	}
	if u.Admin {
		return access.Admin
	}
	return d.ProjectAccess(u, p)
}

// mrProjectOf resolves :id for the merge request endpoints: 404 when the
// project is hidden, 403 when the caller may see it but not its merge requests.
func (c *Ctx) mrProjectOf(d *store.Data) (*store.Project, error) {
	p, err := c.projectOf(d, "id")
	if err != nil {
		return nil, err
	}
	if !d.CanReadMergeRequests(c.Caller, p) {
		return nil, forbidden()
	}
	return p, nil
}

// mrOf resolves :id and :merge_request_iid: a non-integer iid is 400, an
// unknown one 404 Merge Request Not Found, one the caller may not read 403.
func (c *Ctx) mrOf(d *store.Data) (*store.Project, *store.MergeRequest, error) {
	iid, err := c.pathID("merge_request_iid")
	if err != nil {
		return nil, nil, err
	}
	p, err := c.projectOf(d, "id")
	if err != nil {
		return nil, nil, err
	}
	mr := d.MergeRequestByIID(p.ID, iid)
	if mr == nil {
		return nil, nil, notFound("Merge Request")
	}
	if !d.CanReadMergeRequests(c.Caller, p) {
		return nil, nil, forbidden()
	}
	return p, mr, nil
}
