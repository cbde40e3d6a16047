package api

import (
	"errors"
	"math"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/v4cert/v4cert/reference/access"
	"github.com/v4cert/v4cert/reference/store"
	"github.com/v4cert/v4cert/reference/workflow/mergerequests"
	"github.com/v4cert/v4cert/reference/workflow/repository"
)

// The merge request sub-resources: diffs, changes, versions, pipelines,
// blocks, subscriptions, to-do items, time tracking, notes and approvals.

// latestDiff reads the latest version of the path's merge request and its
// diff from git: what diffs and changes show.
func (s *Server) latestDiff(c *Ctx, unified bool) (*repoCtx, *store.MRVersion, []mrFile, error) {
	rc, err := s.mrRepo(c, false)
	if err != nil {
		return nil, nil, nil, err
	}
	var v *store.MRVersion
	if err := s.withMR(c, func(_ *store.Data, _ *store.Project, mr *store.MergeRequest) error {
		v = mr.Latest()
		return nil
	}); err != nil {
		return nil, nil, nil, err
	}
	if v == nil {
		return rc, nil, nil, nil
	}
	files, err := s.mr.Diff(c.R.Context(), rc.ProjectID, rc.Repo, repository.Oid(v.BaseSHA), repository.Oid(v.HeadSHA), unified)
	if err != nil {
		return nil, nil, nil, gitError(err, "Commit")
	}
	return rc, v, files, nil
}

func diffJSONs(files []mrFile) []MRDiffJSON {
	out := make([]MRDiffJSON, 0, len(files))
	for _, f := range files {
		out = append(out, diffJSON(f))
	}
	return out
}

// mergeRequestDiffs implements GET .../merge_requests/:merge_request_iid/diffs
// (rules merge_requests.diffs.*): the latest version's files under the diff
// limits, paginated.
func (s *Server) mergeRequestDiffs(c *Ctx) error {
	unidiff := c.In().BoolOr("unidiff", false)
	if err := c.In().Err(); err != nil {
		return err
	}
	_, _, files, err := s.latestDiff(c, unidiff)
	if err != nil {
		return err
	}
	kept, _ := mergerequests.LimitDiff(files, false)
	page, err := Paginate(c, kept, nil, diffJSON)
	if err != nil {
		return err
	}
	return c.JSONPage(page)
}

// MergeRequestChangesJSON is the deprecated changes form: the merge request
// with its changes and whether they overflowed the diff limits.
type MergeRequestChangesJSON struct {
	MergeRequestDetailJSON
	Changes  []MRDiffJSON `json:"changes"`
	Overflow bool         `json:"overflow"`
}

// mergeRequestChanges implements the deprecated GET .../changes (rules
// merge_requests.changes.*): access_raw_diffs=true lifts the diff limits.
func (s *Server) mergeRequestChanges(c *Ctx) error {
	in := c.In()
	raw, unidiff := in.BoolOr("access_raw_diffs", false), in.BoolOr("unidiff", false)
	if err := in.Err(); err != nil {
		return err
	}
	_, _, files, err := s.latestDiff(c, unidiff)
	if err != nil {
		return err
	}
	kept, overflow := mergerequests.LimitDiff(files, raw)
	var body MergeRequestChangesJSON
	err = s.withMR(c, func(d *store.Data, p *store.Project, mr *store.MergeRequest) error {
		body = MergeRequestChangesJSON{MergeRequestDetailJSON: c.view(d).mergeRequestDetail(mr, p, false),
			Changes: diffJSONs(kept), Overflow: overflow}
		return nil
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, body)
}

// MRVersionJSON is the spec's merge request diff version.
type MRVersionJSON struct {
	ID             int    `json:"id"`
	HeadCommitSHA  string `json:"head_commit_sha"`
	BaseCommitSHA  string `json:"base_commit_sha"`
	StartCommitSHA string `json:"start_commit_sha"`
	CreatedAt      string `json:"created_at"`
	MergeRequestID int    `json:"merge_request_id"`
	State          string `json:"state"`
	RealSize       string `json:"real_size"`
	PatchIDSHA     string `json:"patch_id_sha"`
}

// MRVersionDetailJSON is the single version with its commits and diffs.
type MRVersionDetailJSON struct {
	MRVersionJSON
	Commits []CommitJSON `json:"commits"`
	Diffs   []MRDiffJSON `json:"diffs"`
}

func versionJSON(v *store.MRVersion) MRVersionJSON {
	return MRVersionJSON{ID: v.ID, HeadCommitSHA: v.HeadSHA, BaseCommitSHA: v.BaseSHA, StartCommitSHA: v.StartSHA,
		CreatedAt: ts(v.CreatedAt), MergeRequestID: v.MergeRequestID, State: v.State, RealSize: v.RealSize,
		PatchIDSHA: v.PatchIDSHA}
}

// mergeRequestVersions implements GET .../versions (rules merge_requests.versions.*):
// newest first.
func (s *Server) mergeRequestVersions(c *Ctx) error {
	var out []MRVersionJSON
	if err := s.withMR(c, func(_ *store.Data, _ *store.Project, mr *store.MergeRequest) error {
		for i := len(mr.Versions) - 1; i >= 0; i-- {
			out = append(out, versionJSON(mr.Versions[i]))
		}
		return nil
	}); err != nil {
		return err
	}
	page, err := Paginate(c, out, nil, func(v MRVersionJSON) MRVersionJSON { return v })
	if err != nil {
		return err
	}
	return c.JSONPage(page)
}

// mergeRequestVersion implements GET .../versions/:version_id (rules
// merge_requests.version.*): the version's commits and its diff, from git.
func (s *Server) mergeRequestVersion(c *Ctx) error {
	unidiff := c.In().BoolOr("unidiff", false)
	if err := c.In().Err(); err != nil {
		return err
	}
	id, err := c.pathID("version_id")
	if err != nil {
		return err
	}
	rc, err := s.mrRepo(c, false)
	if err != nil {
		return err
	}
	var v *store.MRVersion
	if err := s.withMR(c, func(_ *store.Data, _ *store.Project, mr *store.MergeRequest) error {
		if v = mr.Version(id); v == nil {
			return notFound("Merge Request Diff")
		}
		return nil
	}); err != nil {
		return err
	}
	ctx := c.R.Context()
	body := MRVersionDetailJSON{MRVersionJSON: versionJSON(v), Commits: []CommitJSON{}}
	for _, sha := range v.Commits {
		cm, err := rc.Repo.Commit(ctx, repository.Oid(sha))
		if err != nil {
			return gitError(err, "Commit")
		}
		body.Commits = append(body.Commits, rc.commitJSON(cm, true))
	}
	files, err := s.mr.Diff(ctx, rc.ProjectID, rc.Repo, repository.Oid(v.BaseSHA), repository.Oid(v.HeadSHA), unidiff)
	if err != nil {
		return gitError(err, "Commit")
	}
	kept, _ := mergerequests.LimitDiff(files, false)
	body.Diffs = diffJSONs(kept)
	return c.JSON(http.StatusOK, body)
}

// mergeRequestPipelines implements GET .../pipelines (rule
// merge_requests.pipelines.*): the pipelines of the source branch at one of
// the merge request's commits, newest first.
func (s *Server) mergeRequestPipelines(c *Ctx) error {
	var page *Page
	err := s.withMR(c, func(d *store.Data, _ *store.Project, mr *store.MergeRequest) error {
		shas := map[string]bool{}
		for _, ver := range mr.Versions {
			for _, sha := range ver.Commits {
				shas[sha] = true
			}
		}
		var err error
		page, err = Paginate(c, d.PipelinesOf(mr.ProjectID, mr.SourceBranch, shas), nil, c.view(d).pipelineJSON)
		return err
	})
	if err != nil {
		return err
	}
	return c.JSONPage(page)
}

// listMergeRequestBlocks implements GET .../blocks (rule merge_requests.blocks.*):
// the blocks on the merge request whose blocking merge request the caller may read.
func (s *Server) listMergeRequestBlocks(c *Ctx) error {
	var page *Page
	err := s.withMR(c, func(d *store.Data, _ *store.Project, mr *store.MergeRequest) error {
		var items []*store.MRBlock
		for _, b := range d.BlocksOf(mr.ID) {
			if blocking := d.MergeRequest(b.BlockingID); blocking != nil && d.CanReadMergeRequests(c.Caller, d.Project(blocking.ProjectID)) {
				items = append(items, b)
			}
		}
		v := c.view(d)
		var err error
		page, err = Paginate(c, items, nil, v.mrBlock)
		return err
	})
	if err != nil {
		return err
	}
	return c.JSONPage(page)
}

// createMergeRequestBlock implements POST .../blocks (rules
// merge_requests.blocks.*): update permission on the blocked merge request
// (403), the blocking one by global id (404 when missing, 403 when the caller
// may not read it), 409 for an existing block, 400 for one that cannot be saved.
func (s *Server) createMergeRequestBlock(c *Ctx) error {
	blockingID := c.In().Require("blocking_merge_request_id").Int("blocking_merge_request_id")
	if err := c.In().Err(); err != nil {
		return err
	}
	var body MRBlockJSON
	err := s.store.Write(func(d *store.Data) error {
		p, mr, err := c.mrOf(d)
		if err != nil {
			return err
		}
		if !canUpdateMR(d, c.Caller, p, mr) {
			return forbidden()
		}
		blocking := d.MergeRequest(*blockingID)
		if blocking == nil {
			return notFound("Blocking merge request")
		}
		if !d.CanReadMergeRequests(c.Caller, d.Project(blocking.ProjectID)) {
			return forbidden()
		}
		b, err := d.AddBlock(blocking, mr)
		var be *store.BlockError
		switch {
		case errors.Is(err, store.ErrConflict):
			return conflict("Block already exists")
		case errors.As(err, &be):
			return validation(map[string][]string{be.Field: {be.Message}})
		case err != nil:
			return err
		}
		body = c.view(d).mrBlock(b)
		return nil
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, body)
}

// deleteMergeRequestBlock implements DELETE .../blocks/:block_id (rules
// merge_requests.blocks.*): 204, or 403 without update permission on the
// blocked merge request or read permission on the blocking one.
func (s *Server) deleteMergeRequestBlock(c *Ctx) error {
	id, err := c.pathID("block_id")
	if err != nil {
		return err
	}
	err = s.store.Write(func(d *store.Data) error {
		p, mr, err := c.mrOf(d)
		if err != nil {
			return err
		}
		b := d.BlockOf(mr.ID, id)
		if b == nil {
			return notFound("Block")
		}
		blocking := d.MergeRequest(b.BlockingID)
		if !canUpdateMR(d, c.Caller, p, mr) || blocking == nil || !d.CanReadMergeRequests(c.Caller, d.Project(blocking.ProjectID)) {
			return forbidden()
		}
		d.DeleteBlock(b)
		return nil
	})
	if err != nil {
		return err
	}
	return c.NoContent()
}

// notModified is the spec's 304: no body.
func notModified(c *Ctx) error {
	c.W.WriteHeader(http.StatusNotModified)
	return nil
}

// subscribeMergeRequest implements POST .../subscribe and .../unsubscribe
// (rules merge_requests.subscribe.*): 201 with the merge request, or 304 when
// the caller already is (or, unsubscribing, is not) subscribed.
func (s *Server) subscribeMergeRequest(c *Ctx, on bool) error {
	var body MergeRequestDetailJSON
	changed := false
	err := s.store.Write(func(d *store.Data) error {
		p, mr, err := c.mrOf(d)
		if err != nil {
			return err
		}
		if d.Subscribed(mr, c.Caller) == on {
			return nil
		}
		d.SetSubscription(mr, c.Caller, on)
		changed, body = true, c.view(d).mergeRequestDetail(mr, p, false)
		return nil
	})
	if err != nil {
		return err
	}
	if !changed {
		return notModified(c)
	}
	return c.JSON(http.StatusCreated, body)
}

// TodoJSON is the spec's to-do item.
type TodoJSON struct {
	ID         int              `json:"id"`
	Project    TodoProjectJSON  `json:"project"`
	Author     UserRef          `json:"author"`
	ActionName string           `json:"action_name"`
	TargetType string           `json:"target_type"`
	Target     MergeRequestJSON `json:"target"`
	TargetURL  string           `json:"target_url"`
	Body       string           `json:"body"`
	State      string           `json:"state"`
	CreatedAt  string           `json:"created_at"`
	UpdatedAt  string           `json:"updated_at"`
}

// TodoProjectJSON is the project of a to-do item.
type TodoProjectJSON struct {
	ID                int    `json:"id"`
	Name              string `json:"name"`
	NameWithNamespace string `json:"name_with_namespace"`
	Path              string `json:"path"`
	PathWithNamespace string `json:"path_with_namespace"`
}

func (v *view) todo(t *store.Todo) TodoJSON {
	p := v.d.Project(t.ProjectID)
	j := TodoJSON{ID: t.ID, Author: v.authorRef(t.AuthorID), ActionName: t.Action, TargetType: t.TargetType,
		State: t.State, CreatedAt: ts(t.CreatedAt), UpdatedAt: ts(t.UpdatedAt)}
	if p != nil {
		j.Project = TodoProjectJSON{ID: p.ID, Name: p.Name, NameWithNamespace: v.d.ProjectFullName(p), Path: p.Path,
			PathWithNamespace: v.d.ProjectFullPath(p)}
	}
	if mr := v.d.MergeRequest(t.TargetID); mr != nil && t.TargetType == store.AwardableMergeRequest {
		j.Target = v.mergeRequest(mr, p, false)
		j.TargetURL, j.Body = j.Target.WebURL, mr.Title
	}
	return j
}

// mergeRequestTodo implements POST .../todo (rules merge_requests.todo.*):
// 201 with the new to-do item, 304 when the caller has a pending one about
// the merge request already.
func (s *Server) mergeRequestTodo(c *Ctx) error {
	var body TodoJSON
	created := false
	err := s.store.Write(func(d *store.Data) error {
		p, mr, err := c.mrOf(d)
		if err != nil {
			return err
		}
		t, ok := d.MarkTodo(c.Caller, p.ID, store.AwardableMergeRequest, mr.ID)
		if ok {
			created, body = true, c.view(d).todo(t)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if !created {
		return notModified(c)
	}
	return c.JSON(http.StatusCreated, body)
}

// durationUnits are the platform's time-tracking units: a month of 4 weeks,
// a week of 5 days, a day of 8 hours.
var durationUnits = []struct {
	name    string
	seconds int
	aliases []string
}{
	{"mo", 4 * 5 * 8 * 3600, []string{"mo", "mon", "mons", "month", "months"}},
	{"w", 5 * 8 * 3600, []string{"w", "wk", "wks", "week", "weeks"}},
	{"d", 8 * 3600, []string{"d", "day", "days"}},
	{"h", 3600, []string{"h", "hr", "hrs", "hour", "hours"}},
	{"m", 60, []string{"m", "min", "mins", "minute", "minutes"}},
	{"s", 1, []string{"s", "sec", "secs", "second", "seconds"}},
}

var durationPart = regexp.MustCompile(`^(\d+(?:\.\d+)?)\s*([a-z]*)`)

// parseDuration reads a human duration such as 3h30m, 1w 2d or 1.5h (a bare
// number is hours, as on the platform); ok is false for anything else.
func parseDuration(s string) (seconds int, ok bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimSpace(strings.TrimPrefix(s, "-"))
	if s == "" {
		return 0, false
	}
	total := 0.0
	for s != "" {
		m := durationPart.FindStringSubmatch(s)
		if m == nil {
			return 0, false
		}
		n, err := strconv.ParseFloat(m[1], 64)
		if err != nil {
			return 0, false
		}
		unit := 3600
		if m[2] != "" {
			unit = 0
			for _, u := range durationUnits {
				for _, a := range u.aliases {
					if a == m[2] {
						unit = u.seconds
					}
				}
			}
			if unit == 0 {
				return 0, false
			}
		}
		total += n * float64(unit)
		s = strings.TrimLeft(s[len(m[0]):], " ,")
	}
	if total > math.MaxInt32 {
		return 0, false
	}
	if neg {
		total = -total
	}
	return int(math.Round(total)), true
}

// timeTracking resolves the merge request for a time-tracking change:
// Developer and above (the platform's admin_merge_request).
func (s *Server) timeTracking(c *Ctx, status int, change func(d *store.Data, mr *store.MergeRequest) error) error {
	var body TimeStatsJSON
	err := s.store.Write(func(d *store.Data) error {
		p, mr, err := c.mrOf(d)
		if err != nil {
			return err
		}
		if projectRole(d, c.Caller, p) < access.Developer {
			return forbidden()
		}
		if change != nil {
			if err := change(d, mr); err != nil {
				return err
			}
		}
		body = timeStats(mr.TimeEstimate, mr.TimeSpent)
		return nil
	})
	if err != nil {
		return err
	}
	return c.JSON(status, body)
}

// badDuration is the validation answer for a malformed duration.
func badDuration(field string) *Error {
	return validation(map[string][]string{field: {"must have a valid format and be greater than or equal to zero"}})
}

// setMergeRequestTimeEstimate implements POST .../time_estimate (rules
// merge_requests.time.*): a human duration; a malformed one is 400.
func (s *Server) setMergeRequestTimeEstimate(c *Ctx) error {
	dur := c.In().Require("duration").String("duration")
	if err := c.In().Err(); err != nil {
		return err
	}
	secs, ok := parseDuration(*dur)
	if !ok || secs < 0 {
		return badDuration("time_estimate")
	}
	return s.timeTracking(c, http.StatusOK, func(d *store.Data, mr *store.MergeRequest) error {
		d.SetTimeEstimate(mr, secs)
		return nil
	})
}

// resetMergeRequestTimeEstimate implements the platform's POST .../reset_time_estimate.
func (s *Server) resetMergeRequestTimeEstimate(c *Ctx) error {
	return s.timeTracking(c, http.StatusOK, func(d *store.Data, mr *store.MergeRequest) error {
		d.SetTimeEstimate(mr, 0)
		return nil
	})
}

// addMergeRequestSpentTime implements the platform's POST .../add_spent_time
// (a negative duration subtracts).
func (s *Server) addMergeRequestSpentTime(c *Ctx) error {
	dur := c.In().Require("duration").String("duration")
	c.In().String("summary")
	if err := c.In().Err(); err != nil {
		return err
	}
	secs, ok := parseDuration(*dur)
	if !ok {
		return badDuration("time_spent")
	}
	return s.timeTracking(c, http.StatusCreated, func(d *store.Data, mr *store.MergeRequest) error {
		d.AddTimeSpent(mr, secs)
		return nil
	})
}

// mergeRequestTimeStats implements the platform's GET .../time_stats: anyone who may read it.
func (s *Server) mergeRequestTimeStats(c *Ctx) error {
	var body TimeStatsJSON
	if err := s.withMR(c, func(_ *store.Data, _ *store.Project, mr *store.MergeRequest) error {
		body = timeStats(mr.TimeEstimate, mr.TimeSpent)
		return nil
	}); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, body)
}

// listMergeRequestNotes implements the platform's GET .../notes (provisioning):
// order_by created_at (default) or updated_at, sort desc (default) or asc.
func (s *Server) listMergeRequestNotes(c *Ctx) error {
	in := c.In()
	orderBy := deref(in.Enum("order_by", "created_at", "updated_at"), "created_at")
	sortDir := deref(in.Enum("sort", "asc", "desc"), "desc")
	if err := in.Err(); err != nil {
		return err
	}
	var page *Page
	err := s.withMR(c, func(d *store.Data, _ *store.Project, mr *store.MergeRequest) error {
		notes := d.NotesOn(store.Awardable{Type: store.AwardableMergeRequest, ID: mr.ID})
		sortNotes(notes, orderBy, sortDir)
		v := c.view(d)
		var err error
		page, err = Paginate(c, notes, nil, func(n *store.Note) NoteJSON { return v.note(n, &mr.IID) })
		return err
	})
	if err != nil {
		return err
	}
	return c.JSONPage(page)
}

func sortNotes(notes []*store.Note, orderBy, sortDir string) {
	slices.SortFunc(notes, func(a, b *store.Note) int {
		x, y := a.CreatedAt, b.CreatedAt
		if orderBy == "updated_at" {
			x, y = a.UpdatedAt, b.UpdatedAt
		}
		c := x.Compare(y)
		if c == 0 {
			c = a.ID - b.ID
		}
		if sortDir == "desc" {
			return -c
		}
		return c
	})
}

// getMergeRequestNote implements the platform's GET .../notes/:note_id.
func (s *Server) getMergeRequestNote(c *Ctx) error {
	id, err := c.pathID("note_id")
	if err != nil {
		return err
	}
	var body NoteJSON
	if err := s.withMR(c, func(d *store.Data, _ *store.Project, mr *store.MergeRequest) error {
		n := d.NoteOn(store.Awardable{Type: store.AwardableMergeRequest, ID: mr.ID}, id)
		if n == nil {
			return notFound("Note")
		}
		body = c.view(d).note(n, &mr.IID)
		return nil
	}); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, body)
}

// createMergeRequestNote implements the platform's POST .../notes
// (provisioning): whoever may read the merge request comments, unless its
// discussion is locked, which leaves commenting to those who may update it.
func (s *Server) createMergeRequestNote(c *Ctx) error {
	body := c.In().Require("body").String("body")
	if err := c.In().Err(); err != nil {
		return err
	}
	if strings.TrimSpace(*body) == "" {
		return validation(map[string][]string{"note": {"can't be blank"}})
	}
	var out NoteJSON
	err := s.store.Write(func(d *store.Data) error {
		p, mr, err := c.mrOf(d)
		if err != nil {
			return err
		}
		if mr.DiscussionLocked != nil && *mr.DiscussionLocked && !canUpdateMR(d, c.Caller, p, mr) {
			return forbidden()
		}
		n := d.CreateNote(p.ID, store.Awardable{Type: store.AwardableMergeRequest, ID: mr.ID}, c.Caller, *body)
		out = c.view(d).note(n, &mr.IID)
		return nil
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, out)
}

// ApprovalStateJSON is the platform's approvals answer (paid tier).
type ApprovalStateJSON struct {
	ID                int            `json:"id"`
	IID               int            `json:"iid"`
	ProjectID         int            `json:"project_id"`
	Title             string         `json:"title"`
	Description       string         `json:"description"`
	State             string         `json:"state"`
	CreatedAt         string         `json:"created_at"`
	UpdatedAt         string         `json:"updated_at"`
	MergeStatus       string         `json:"merge_status"`
	Approved          bool           `json:"approved"`
	ApprovalsRequired int            `json:"approvals_required"`
	ApprovalsLeft     int            `json:"approvals_left"`
	ApprovedBy        []ApprovalUser `json:"approved_by"`
}

// ApprovalUser is one approval.
type ApprovalUser struct {
	User UserRef `json:"user"`
}

func (v *view) approvalState(mr *store.MergeRequest) ApprovalStateJSON {
	need := 0
	if mr.ApprovalsBeforeMerge != nil {
		need = *mr.ApprovalsBeforeMerge
	}
	j := ApprovalStateJSON{ID: mr.ID, IID: mr.IID, ProjectID: mr.ProjectID, Title: mr.Title, Description: mr.Description,
		State: mr.State, CreatedAt: ts(mr.CreatedAt), UpdatedAt: ts(mr.UpdatedAt), MergeStatus: mr.Check.Status,
		Approved: mr.Approved(), ApprovalsRequired: need, ApprovalsLeft: max(0, need-len(mr.ApprovedBy)),
		ApprovedBy: []ApprovalUser{}}
	for _, id := range mr.ApprovedBy {
		j.ApprovedBy = append(j.ApprovedBy, ApprovalUser{User: v.authorRef(id)})
	}
	return j
}

// approveMergeRequest implements the platform's POST .../approve and
// .../unapprove (provisioning, paid tier): Developer and above may approve an
// open merge request once (401 on a second approval, as the platform
// answers); sha, when given, must be the source head (409).
func (s *Server) approveMergeRequest(c *Ctx, approve bool) error {
	var sha *string
	if approve {
		sha = c.In().String("sha")
		if err := c.In().Err(); err != nil {
			return err
		}
	}
	var body ApprovalStateJSON
	err := s.store.Write(func(d *store.Data) error {
		p, mr, err := c.mrOf(d)
		if err != nil {
			return err
		}
		if projectRole(d, c.Caller, p) < access.Developer || !mr.Open() {
			return unauthorized()
		}
		if approve {
			if latest := mr.Latest(); sha != nil && latest != nil && *sha != latest.HeadSHA {
				return errorf(http.StatusConflict, "SHA does not match HEAD of source branch: %s", latest.HeadSHA)
			}
			if err := d.Approve(mr, c.Caller); err != nil {
				return unauthorized()
			}
		} else if err := d.Unapprove(mr, c.Caller); err != nil {
			return notFound("Approval")
		}
		body = c.view(d).approvalState(mr)
		return nil
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, body)
}
