package api

import (
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/v4cert/v4cert/reference/access"
	"github.com/v4cert/v4cert/reference/store"
	"github.com/v4cert/v4cert/reference/workflow/ci"
)

// Pipelines and commit statuses (provisioning, issue 18): the platform's
// pipelines API (gitlabhq/gitlabhq lib/api/ci/pipelines.rb @002718ac, its
// finder app/finders/ci/pipelines_finder.rb @0286e4c6) and commit statuses
// API (lib/api/commit_statuses.rb, skratsch-solutions/gitlabhq @faf0d771),
// which tools such as glab, python-gitlab and Renovate read beside the
// spec's jobs and merge requests.

// PipelineListJSON is the platform's Entities::Ci::PipelineBasicWithMetadata.
type PipelineListJSON struct {
	CreatedPipelineJSON
	Name *string `json:"name"`
}

// PipelineDetailJSON is the platform's Entities::Ci::PipelineWithMetadata
// (lib/api/entities/ci/pipeline.rb @e7e40d45, pipeline_with_metadata.rb).
type PipelineDetailJSON struct {
	PipelineListJSON
	BeforeSHA      string             `json:"before_sha"`
	Tag            bool               `json:"tag"`
	YAMLErrors     *string            `json:"yaml_errors"`
	User           *UserRef           `json:"user"`
	StartedAt      *string            `json:"started_at"`
	FinishedAt     *string            `json:"finished_at"`
	CommittedAt    *string            `json:"committed_at"`
	Duration       *int               `json:"duration"`
	QueuedDuration *int               `json:"queued_duration"`
	Coverage       *string            `json:"coverage"`
	DetailedStatus DetailedStatusJSON `json:"detailed_status"`
}

// DetailedStatusJSON is the platform's DetailedStatusEntity of a pipeline
// (app/serializers/detailed_status_entity.rb; the texts of
// lib/gitlab/ci/status/*.rb).
type DetailedStatusJSON struct {
	Icon         string  `json:"icon"`
	Text         string  `json:"text"`
	Label        string  `json:"label"`
	Group        string  `json:"group"`
	Tooltip      string  `json:"tooltip"`
	HasDetails   bool    `json:"has_details"`
	DetailsPath  string  `json:"details_path"`
	Illustration *string `json:"illustration"`
	Favicon      string  `json:"favicon"`
}

// statusTexts are the text and label of each status (Gitlab::Ci::Status::*).
var statusTexts = map[string][2]string{
	"created": {"Created", "created"}, "waiting_for_resource": {"Waiting", "waiting for resource"},
	"preparing": {"Preparing", "preparing"}, "pending": {"Pending", "pending"}, "running": {"Running", "running"},
	"success": {"Passed", "passed"}, "failed": {"Failed", "failed"}, "canceled": {"Canceled", "canceled"},
	"skipped": {"Skipped", "skipped"}, "manual": {"Blocked", "waiting for manual action"},
	"scheduled": {"Scheduled", "scheduled"},
}

func (v *view) pipelineList(pl *store.Pipeline) PipelineListJSON {
	return PipelineListJSON{CreatedPipelineJSON: v.pipelineJSON(pl)}
}

func (v *view) pipelineDetail(pl *store.Pipeline) PipelineDetailJSON {
	out := PipelineDetailJSON{PipelineListJSON: v.pipelineList(pl), BeforeSHA: strings.Repeat("0", 40), Tag: pl.Tag,
		User: v.userRefByID(pl.UserID)}
	started, finished := v.d.PipelineTimes(pl)
	out.StartedAt = tsPtr(started)
	if finished != nil && isFinished(pl.Status) {
		out.FinishedAt = tsPtr(finished)
	}
	if !pl.Commit.CreatedAt.IsZero() {
		t := ts(pl.Commit.CreatedAt)
		out.CommittedAt = &t
	}
	out.Duration, out.QueuedDuration = v.d.PipelineDuration(pl)
	if !isFinished(pl.Status) {
		out.Duration = nil
	}
	texts, ok := statusTexts[pl.Status]
	if !ok {
		texts = [2]string{pl.Status, pl.Status}
	}
	path := strings.TrimPrefix(v.pipelineWebURL(pl), v.base)
	out.DetailedStatus = DetailedStatusJSON{Icon: "status_" + pl.Status, Text: texts[0], Label: texts[1], Group: pl.Status,
		Tooltip: texts[1], HasDetails: true, DetailsPath: path, Favicon: "/assets/ci_favicons/favicon_status_" + pl.Status + ".png"}
	return out
}

func isFinished(status string) bool {
	switch status {
	case "success", "failed", "canceled", "skipped":
		return true
	}
	return false
}

// pipelinesProject resolves :id for the pipeline reads: read_pipeline and
// read_build, the permissions the project jobs resource needs too.
func (c *Ctx) pipelinesProject(d *store.Data) (*store.Project, error) { return c.jobsProject(d) }

// listPipelines implements GET /projects/:id/pipelines (provisioning): the
// finder's filters and order; child pipelines only with
// source=parent_pipeline; scope=branches and scope=tags keep the newest
// pipeline of each branch or tag the repository holds.
func (s *Server) listPipelines(c *Ctx) error {
	in := c.In()
	scope, status, ref, sha := in.String("scope"), in.String("status"), in.String("ref"), in.String("sha")
	username, source, name := in.String("username"), in.String("source"), in.String("name")
	updatedAfter, updatedBefore := in.Time("updated_after"), in.Time("updated_before")
	createdAfter, createdBefore := in.Time("created_after"), in.Time("created_before")
	yamlErrors := in.Bool("yaml_errors")
	orderBy, sort := in.StringOr("order_by", "id"), in.StringOr("sort", "desc")
	if err := in.Err(); err != nil {
		return err
	}
	// scope=branches and scope=tags need the repository's refs (git, read
	// before the store's lock).
	var refNames map[string]bool
	if scope != nil && (*scope == "branches" || *scope == "tags") {
		rc, err := s.repoOf(c, false)
		if err != nil {
			return err
		}
		list := rc.Repo.Branches
		if *scope == "tags" {
			list = rc.Repo.Tags
		}
		refs, err := list(c.R.Context())
		if err != nil {
			return gitError(err, "Repository")
		}
		refNames = map[string]bool{}
		for _, r := range refs {
			refNames[r.Name] = true
		}
	}
	return s.readPage(c, func(d *store.Data) (*Page, error) {
		p, err := c.pipelinesProject(d)
		if err != nil {
			return nil, err
		}
		var userID *int
		if username != nil && *username != "" {
			id := 0
			if u := d.UserByUsername(*username); u != nil {
				id = u.ID
			}
			userID = &id
		}
		var kept []*store.Pipeline
		for _, pl := range d.ProjectPipelines(p.ID) {
			switch {
			case pl.ParentID != 0 && (source == nil || *source != "parent_pipeline"):
			case status != nil && pl.Status != *status:
			case ref != nil && *ref != "" && pl.Ref != *ref:
			case sha != nil && *sha != "" && pl.SHA != *sha:
			case userID != nil && pl.UserID != *userID:
			case source != nil && pl.PipelineSource() != *source:
			case name != nil && *name != "": // no pipeline has a name (workflow:name is outside the CI subset)
			case yamlErrors != nil && *yamlErrors: // a pipeline with YAML errors is never saved here
			case updatedAfter != nil && !pl.UpdatedAt.After(*updatedAfter):
			case updatedBefore != nil && !pl.UpdatedAt.Before(*updatedBefore):
			case createdAfter != nil && !pl.CreatedAt.After(*createdAfter):
			case createdBefore != nil && !pl.CreatedAt.Before(*createdBefore):
			case scope != nil && !pipelineInScope(*scope, pl):
			default:
				kept = append(kept, pl)
			}
		}
		if refNames != nil {
			kept = newestPerRef(kept, refNames, *scope == "tags")
		}
		sortPipelines(d, kept, orderBy, sort)
		return Paginate(c, kept, nil, c.view(d).pipelineList)
	})
}

// pipelineInScope is the finder's running, pending and finished scopes
// (Ci::HasStatus: finished is success, failed, canceled or skipped).
func pipelineInScope(scope string, pl *store.Pipeline) bool {
	switch scope {
	case "running", "pending":
		return pl.Status == scope
	case "finished":
		return isFinished(pl.Status)
	case "branches":
		return !pl.Tag
	case "tags":
		return pl.Tag
	}
	return true
}

// newestPerRef keeps, for each ref the repository holds, its newest
// pipeline (PipelinesFinder#pipelines_for_refs).
func newestPerRef(pls []*store.Pipeline, refs map[string]bool, tags bool) []*store.Pipeline {
	seen := map[string]bool{}
	var out []*store.Pipeline
	for _, pl := range pls { // newest first
		if pl.Tag == tags && refs[pl.Ref] && !seen[pl.Ref] {
			seen[pl.Ref] = true
			out = append(out, pl)
		}
	}
	return out
}

// sortPipelines orders by one of the finder's indexed columns, ties by id
// in the same direction (the platform's order(order_by => sort), which the
// database answers in id order for equal keys).
func sortPipelines(d *store.Data, pls []*store.Pipeline, orderBy, sort string) {
	key := func(a, b *store.Pipeline) int {
		switch orderBy {
		case "status":
			return strings.Compare(a.Status, b.Status)
		case "ref":
			return strings.Compare(a.Ref, b.Ref)
		case "updated_at":
			return a.UpdatedAt.Compare(b.UpdatedAt)
		case "user_id":
			return a.UserID - b.UserID
		}
		return 0
	}
	slices.SortStableFunc(pls, func(a, b *store.Pipeline) int {
		k := key(a, b)
		if k == 0 {
			k = a.ID - b.ID
		}
		if sort == "desc" {
			return -k
		}
		return k
	})
}

// getPipeline implements GET /projects/:id/pipelines/:pipeline_id
// (provisioning): any pipeline of the project, children included
// (user_project.all_pipelines.find).
func (s *Server) getPipeline(c *Ctx) error {
	var out PipelineDetailJSON
	err := s.store.Read(func(d *store.Data) error {
		p, err := c.pipelinesProject(d)
		if err != nil {
			return err
		}
		pl, err := c.pipelineOf(d, p)
		if err != nil {
			return err
		}
		out = c.view(d).pipelineDetail(pl)
		return nil
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, out)
}

// latestPipeline implements GET /projects/:id/pipelines/latest
// (provisioning): Project#latest_pipeline(ref) is the newest pipeline of ref
// (the default branch when none is sent) at that ref's head commit. With
// none, the platform's authorize! :read_pipeline on nil answers 403.
func (s *Server) latestPipeline(c *Ctx) error {
	ref := c.In().StringOr("ref", "")
	if err := c.In().Err(); err != nil {
		return err
	}
	rc, err := s.repoOf(c, false)
	if err != nil {
		return err
	}
	if ref == "" {
		ref = rc.DefaultBranch
	}
	head := ""
	if oid, err := rc.Repo.Resolve(c.R.Context(), ref); err == nil {
		head = string(oid)
	}
	var out PipelineDetailJSON
	err = s.store.Read(func(d *store.Data) error {
		p, err := c.pipelinesProject(d)
		if err != nil {
			return err
		}
		pl := d.LatestPipelineFor(p.ID, head, ref)
		if head == "" || pl == nil {
			return forbidden()
		}
		out = c.view(d).pipelineDetail(pl)
		return nil
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, out)
}

// canReadPipelines is read_pipeline on p without an error: a commit's
// last_pipeline shows only to who may read it (Entities::CommitDetail).
func (c *Ctx) canReadPipelines(d *store.Data, p *store.Project) bool {
	return c.projectRole(d, p) >= access.Reporter || (p.Visibility != "private" && p.PublicJobs)
}

// CommitStatusJSON is the platform's Entities::CommitStatus
// (gitlabhq/gitlabhq lib/api/entities/commit_status.rb @1737a58c).
type CommitStatusJSON struct {
	ID           int      `json:"id"`
	SHA          string   `json:"sha"`
	Ref          string   `json:"ref"`
	Status       string   `json:"status"`
	Name         string   `json:"name"`
	TargetURL    *string  `json:"target_url"`
	Description  *string  `json:"description"`
	CreatedAt    string   `json:"created_at"`
	StartedAt    *string  `json:"started_at"`
	FinishedAt   *string  `json:"finished_at"`
	AllowFailure bool     `json:"allow_failure"`
	Coverage     *float64 `json:"coverage"`
	PipelineID   int      `json:"pipeline_id"`
	Author       *UserRef `json:"author"`
}

func (v *view) commitStatus(j *store.Job) CommitStatusJSON {
	pl := v.d.Pipeline(j.ProjectID, j.PipelineID)
	return CommitStatusJSON{ID: j.ID, SHA: pl.SHA, Ref: pl.Ref, Status: j.Status, Name: j.Name, TargetURL: j.TargetURL,
		Description: j.Description, CreatedAt: ts(j.CreatedAt), StartedAt: tsPtr(j.StartedAt), FinishedAt: tsPtr(j.FinishedAt),
		AllowFailure: j.AllowFailure, Coverage: j.Coverage, PipelineID: j.PipelineID, Author: v.userRefByID(j.UserID)}
}

// listCommitStatuses implements GET /projects/:id/repository/commits/:sha/statuses
// (provisioning): every status of the pipelines at the commit, jobs and
// trigger jobs included (CommitStatus is their common table), the latest of
// each name unless all=true, filtered by ref, stage, name and pipeline_id,
// ordered by id or pipeline_id, ascending by default.
func (s *Server) listCommitStatuses(c *Ctx) error {
	in := c.In()
	ref, stage, name := in.String("ref"), in.String("stage"), in.String("name")
	pipelineID := in.Int("pipeline_id")
	all := in.BoolOr("all", false)
	orderBy, sort := in.StringOr("order_by", "id"), in.StringOr("sort", "asc")
	if err := in.Err(); err != nil {
		return err
	}
	_, cm, err := s.commitIn(c)
	if err != nil {
		return err
	}
	sha := string(cm.ID)
	return s.readPage(c, func(d *store.Data) (*Page, error) {
		p, err := c.pipelinesProject(d)
		if err != nil {
			return nil, err
		}
		ids := map[int]bool{}
		for _, pl := range d.ProjectPipelines(p.ID) {
			if pl.SHA == sha && (pipelineID == nil || pl.ID == *pipelineID) {
				ids[pl.ID] = true
			}
		}
		var kept []*store.Job
		for _, j := range d.PipelineStatuses(ids) {
			pl := d.Pipeline(j.ProjectID, j.PipelineID)
			switch {
			case !all && j.Retried:
			case ref != nil && *ref != "" && pl.Ref != *ref:
			case stage != nil && *stage != "" && j.Stage != *stage:
			case name != nil && *name != "" && j.Name != *name:
			default:
				kept = append(kept, j)
			}
		}
		slices.SortStableFunc(kept, func(a, b *store.Job) int {
			k := a.ID - b.ID
			if orderBy == "pipeline_id" {
				k = a.PipelineID - b.PipelineID
			}
			if sort == "desc" {
				return -k
			}
			return k
		})
		return Paginate(c, kept, nil, c.view(d).commitStatus)
	})
}

// createCommitStatus implements POST /projects/:id/statuses/:sha
// (provisioning): a Developer posts the state of an external check; it joins
// the newest pipeline at the commit or makes an external one, and moves that
// pipeline's status (the ci workflow, PostCommitStatus). A transition the
// state machine refuses answers 400 with its message; a pipeline_id that
// matches nothing 404.
func (s *Server) createCommitStatus(c *Ctx) error {
	in := c.In()
	state := in.String("state")
	req := ci.StatusRequest{Ref: in.StringOr("ref", ""), PipelineID: in.Int("pipeline_id"),
		TargetURL: in.String("target_url"), Description: in.String("description")}
	name, context := in.String("name"), in.String("context")
	coverage := in.String("coverage")
	if err := in.Err(); err != nil {
		return err
	}
	if coverage != nil && *coverage != "" {
		f, err := strconv.ParseFloat(strings.TrimSpace(*coverage), 64)
		if err != nil {
			return invalidParam("coverage")
		}
		req.Coverage = &f
	}
	// params[:name] || params[:context] || 'default'.
	req.Name = "default"
	switch {
	case name != nil && *name != "":
		req.Name = *name
	case context != nil && *context != "":
		req.Name = *context
	}
	req.State = *state
	rc, cm, err := s.commitIn(c)
	if err != nil {
		return err
	}
	// create_commit_status and update_pipeline: Developer.
	err = s.store.Read(func(d *store.Data) error {
		p := d.Project(rc.ProjectID)
		if p == nil {
			return notFound("Project")
		}
		return c.requireProjectRole(d, p, access.Developer)
	})
	if err != nil {
		return err
	}
	req.Commit = cm
	var out CommitStatusJSON
	err = s.ci.PostCommitStatus(c.R.Context(), &rc.Target, req, func(d *store.Data, st *store.Job, _ *store.Pipeline) {
		out = c.view(d).commitStatus(st)
	})
	var se *store.CommitStatusError
	switch {
	case errors.As(err, &se) && se.NotFound:
		return errorf(http.StatusNotFound, "%s", se.Msg)
	case errors.As(err, &se):
		return errorf(http.StatusBadRequest, "%s", se.Msg)
	case errors.Is(err, ci.ErrNoProject):
		return notFound("Project")
	case err != nil:
		return workflowError(err)
	}
	return c.JSON(http.StatusCreated, out)
}
