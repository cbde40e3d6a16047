package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/v4cert/v4cert/reference/access"
	"github.com/v4cert/v4cert/reference/store"
)

// JobUser is the job's user: a user reference with the profile fields the
// spec lists (Resources, Job).
type JobUser struct {
	UserRef
	CreatedAt    string  `json:"created_at"`
	Bio          string  `json:"bio"`
	Location     string  `json:"location"`
	PublicEmail  *string `json:"public_email"`
	Skype        string  `json:"skype"`
	Linkedin     string  `json:"linkedin"`
	Twitter      string  `json:"twitter"`
	WebsiteURL   string  `json:"website_url"`
	Organization string  `json:"organization"`
}

// JobCommitJSON is the commit of a job.
type JobCommitJSON struct {
	AuthorEmail string `json:"author_email"`
	AuthorName  string `json:"author_name"`
	CreatedAt   string `json:"created_at"`
	ID          string `json:"id"`
	Message     string `json:"message"`
	ShortID     string `json:"short_id"`
	Title       string `json:"title"`
}

// JobPipelineJSON is the pipeline of a job.
type JobPipelineJSON struct {
	ID        int    `json:"id"`
	ProjectID int    `json:"project_id"`
	Ref       string `json:"ref"`
	SHA       string `json:"sha"`
	Status    string `json:"status"`
}

// JobProjectJSON is the project of a job.
type JobProjectJSON struct {
	CIJobTokenScopeEnabled bool `json:"ci_job_token_scope_enabled"`
}

// jobCore holds the fields jobs and trigger jobs share.
type jobCore struct {
	ID             int            `json:"id"`
	Name           string         `json:"name"`
	Stage          string         `json:"stage"`
	Ref            string         `json:"ref"`
	Status         string         `json:"status"`
	FailureReason  string         `json:"failure_reason,omitempty"`
	Tag            bool           `json:"tag"`
	Archived       bool           `json:"archived"`
	AllowFailure   bool           `json:"allow_failure"`
	Coverage       *float64       `json:"coverage"`
	CreatedAt      *string        `json:"created_at"`
	StartedAt      *string        `json:"started_at"`
	FinishedAt     *string        `json:"finished_at"`
	ErasedAt       *string        `json:"erased_at"`
	Duration       *float64       `json:"duration"`
	QueuedDuration *float64       `json:"queued_duration"`
	WebURL         string         `json:"web_url"`
	Commit         JobCommitJSON  `json:"commit"`
	Project        JobProjectJSON `json:"project"`
	User           *JobUser       `json:"user"`
}

// JobJSON is the Job resource.
type JobJSON struct {
	jobCore
	Pipeline          JobPipelineJSON    `json:"pipeline"`
	ArtifactsExpireAt *string            `json:"artifacts_expire_at"`
	TagList           []string           `json:"tag_list"`
	Artifacts         []any              `json:"artifacts"`
	Runner            *RunnerJSON        `json:"runner"`
	RunnerManager     *RunnerManagerJSON `json:"runner_manager"`
}

// BridgePipelineJSON is the pipeline of a trigger job.
type BridgePipelineJSON struct {
	JobPipelineJSON
	CreatedAt string `json:"created_at"`
	UpdatedAt string `json:"updated_at"`
	WebURL    string `json:"web_url"`
}

// DownstreamJSON is the pipeline a trigger job started.
type DownstreamJSON struct {
	ID        int    `json:"id"`
	SHA       string `json:"sha"`
	Ref       string `json:"ref"`
	Status    string `json:"status"`
	CreatedAt string `json:"created_at"`
	UpdatedAt string `json:"updated_at"`
	WebURL    string `json:"web_url"`
}

// BridgeJSON is the Trigger job (bridge) resource.
type BridgeJSON struct {
	jobCore
	Pipeline           BridgePipelineJSON `json:"pipeline"`
	DownstreamPipeline *DownstreamJSON    `json:"downstream_pipeline"`
}

func seconds(from time.Time, to *time.Time, now time.Time) *float64 {
	end := now
	if to != nil {
		end = *to
	}
	s := end.Sub(from).Seconds()
	return &s
}

func (v *view) jobUser(id int) *JobUser {
	u := v.d.User(id)
	if u == nil {
		return nil
	}
	return &JobUser{UserRef: v.userRef(u), CreatedAt: ts(u.CreatedAt), Bio: u.Bio, Location: u.Location,
		PublicEmail: strOrNil(u.PublicEmail), Skype: u.Skype, Linkedin: u.Linkedin, Twitter: u.Twitter,
		WebsiteURL: u.WebsiteURL, Organization: u.Organization}
}

func (v *view) jobCore(j *store.Job, pl *store.Pipeline) jobCore {
	p := v.d.Project(j.ProjectID)
	created := ts(j.CreatedAt)
	jc := jobCore{ID: j.ID, Name: j.Name, Stage: j.Stage, Ref: pl.Ref, Status: j.Status, FailureReason: j.FailureReason,
		Tag: pl.Tag, AllowFailure: j.AllowFailure, CreatedAt: &created, StartedAt: tsPtr(j.StartedAt),
		FinishedAt: tsPtr(j.FinishedAt), WebURL: fmt.Sprintf("%s/%s/-/jobs/%d", v.base, v.d.ProjectFullPath(p), j.ID),
		Commit: JobCommitJSON{AuthorEmail: pl.Commit.AuthorEmail, AuthorName: pl.Commit.AuthorName,
			CreatedAt: ts(pl.Commit.CreatedAt), ID: pl.Commit.ID, Message: pl.Commit.Message, ShortID: pl.Commit.ShortID,
			Title: pl.Commit.Title},
		User: v.jobUser(j.UserID)}
	now := v.d.Now()
	if j.StartedAt != nil {
		jc.Duration = seconds(*j.StartedAt, j.FinishedAt, now)
		jc.QueuedDuration = seconds(j.CreatedAt, j.StartedAt, now)
	} else if j.Status == "pending" {
		jc.QueuedDuration = seconds(j.CreatedAt, nil, now)
	}
	return jc
}

func pipelineRef(pl *store.Pipeline) JobPipelineJSON {
	return JobPipelineJSON{ID: pl.ID, ProjectID: pl.ProjectID, Ref: pl.Ref, SHA: pl.SHA, Status: pl.Status}
}

func (v *view) jobJSON(j *store.Job) JobJSON {
	pl := v.d.Pipeline(j.ProjectID, j.PipelineID)
	out := JobJSON{jobCore: v.jobCore(j, pl), Pipeline: pipelineRef(pl), TagList: j.TagList, Artifacts: []any{}}
	if out.TagList == nil {
		out.TagList = []string{}
	}
	if r := v.d.Runner(j.RunnerID); r != nil {
		rj := v.runnerJSON(r)
		out.Runner = &rj
		if m := v.d.RunnerManager(r.ID, j.ManagerID); m != nil {
			mj := v.runnerManagerJSON(m)
			out.RunnerManager = &mj
		}
	}
	return out
}

func (v *view) bridgeJSON(j *store.Job) BridgeJSON {
	pl := v.d.Pipeline(j.ProjectID, j.PipelineID)
	out := BridgeJSON{jobCore: v.jobCore(j, pl), Pipeline: BridgePipelineJSON{JobPipelineJSON: pipelineRef(pl),
		CreatedAt: ts(pl.CreatedAt), UpdatedAt: ts(pl.UpdatedAt), WebURL: v.pipelineWebURL(pl)}}
	if ds := v.d.Pipeline(j.ProjectID, j.DownstreamID); ds != nil {
		out.DownstreamPipeline = &DownstreamJSON{ID: ds.ID, SHA: ds.SHA, Ref: ds.Ref, Status: ds.Status,
			CreatedAt: ts(ds.CreatedAt), UpdatedAt: ts(ds.UpdatedAt), WebURL: v.pipelineWebURL(ds)}
	}
	return out
}

// jobsProject resolves :id for the job reads: a hidden project is not found;
// a private project's jobs need Reporter, and public or internal projects
// show their jobs to whoever sees the project when public jobs are on (the
// platform's read_build permission).
func (c *Ctx) jobsProject(d *store.Data) (*store.Project, error) {
	p, err := c.projectOf(d, "id")
	if err != nil {
		return nil, err
	}
	if c.projectRole(d, p) >= access.Reporter {
		return p, nil
	}
	if p.Visibility == "private" || !p.PublicJobs {
		return nil, forbidden()
	}
	return p, nil
}

// jobScope reads scope, a status or an array of statuses (rule jobs.list.2);
// nil keeps every job.
func (c *Ctx) jobScope() (map[string]bool, error) {
	if !c.P.Has("scope") {
		return nil, nil
	}
	vals := c.In().Strings("scope")
	if err := c.In().Err(); err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, s := range vals {
		if !contains(store.JobStatuses, s) {
			return nil, invalidParam("scope")
		}
		out[s] = true
	}
	return out, nil
}

func newestFirst(jobs []*store.Job) []*store.Job {
	out := make([]*store.Job, 0, len(jobs))
	for i := len(jobs) - 1; i >= 0; i-- {
		out = append(out, jobs[i])
	}
	return out
}

// jobRender renders jobs for a list, each job's view encoded once between
// writes (Data.Memo) unless it shows durations that run on with the clock
// (a pending or running job's).
func (c *Ctx) jobRender(d *store.Data) func(*store.Job) json.RawMessage {
	v := c.view(d)
	return func(j *store.Job) json.RawMessage {
		if j.Status == "pending" || j.StartedAt != nil && j.FinishedAt == nil {
			return encoded(v.jobJSON(j))
		}
		return d.MemoView(store.ViewKey{Kind: viewJob, ID: j.ID, Base: c.base}, func() []byte { return encoded(v.jobJSON(j)) })
	}
}

// listProjectJobs implements GET /projects/:id/jobs (rules jobs.list.*):
// IDs descending, scope filter, keyset pagination by id descending. The
// project's jobs are walked newest first in the store's index, stopping at
// the page's end (issue 21).
func (s *Server) listProjectJobs(c *Ctx) error {
	scope, err := c.jobScope()
	if err != nil {
		return err
	}
	return s.readPage(c, func(d *store.Data) (*Page, error) {
		p, err := c.jobsProject(d)
		if err != nil {
			return nil, err
		}
		all := d.ProjectJobs(p.ID)
		var match func(j *store.Job) bool
		if scope != nil {
			match = func(j *store.Job) bool { return scope[j.Status] }
		}
		ks := &Keyset[*store.Job]{
			Orders: map[string]KeysetOrder[*store.Job]{"id": {
				Sorted: func() []*store.Job { return all },
				Key:    func(j *store.Job) Cursor { return Cursor{ID: j.ID} },
			}},
			Sorts: []string{"desc"}, DefaultOrder: "id", DefaultSort: "desc", Match: match,
		}
		return PaginateWalk(c, len(all), orderedAt(all, true), match, ks, c.jobRender(d))
	})
}

// pipelineOf resolves :pipeline_id within the project.
func (c *Ctx) pipelineOf(d *store.Data, p *store.Project) (*store.Pipeline, error) {
	id, err := c.PathInt("pipeline_id", "Pipeline")
	if err != nil {
		return nil, err
	}
	pl := d.Pipeline(p.ID, id)
	if pl == nil {
		return nil, notFound("Pipeline")
	}
	return pl, nil
}

// listPipelineJobs implements GET /projects/:id/pipelines/:pipeline_id/jobs
// (rules jobs.pipeline_jobs.*): the pipeline's jobs and those of its child
// pipelines, IDs descending, retried jobs only with include_retried.
func (s *Server) listPipelineJobs(c *Ctx) error {
	scope, err := c.jobScope()
	if err != nil {
		return err
	}
	retried := c.In().BoolOr("include_retried", false)
	if err := c.In().Err(); err != nil {
		return err
	}
	return s.readPage(c, func(d *store.Data) (*Page, error) {
		p, err := c.jobsProject(d)
		if err != nil {
			return nil, err
		}
		pl, err := c.pipelineOf(d, p)
		if err != nil {
			return nil, err
		}
		var jobs []*store.Job
		for _, q := range append([]*store.Pipeline{pl}, d.ChildPipelines(pl)...) {
			for _, j := range d.PipelineJobs(q.ID) {
				if !j.Bridge && !j.External && (retried || !j.Retried) && (scope == nil || scope[j.Status]) {
					jobs = append(jobs, j)
				}
			}
		}
		sortJobsByID(jobs)
		return Paginate(c, newestFirst(jobs), nil, c.jobRender(d))
	})
}

func sortJobsByID(jobs []*store.Job) {
	for i := 1; i < len(jobs); i++ {
		for k := i; k > 0 && jobs[k].ID < jobs[k-1].ID; k-- {
			jobs[k], jobs[k-1] = jobs[k-1], jobs[k]
		}
	}
}

// listPipelineBridges implements GET /projects/:id/pipelines/:pipeline_id/bridges
// (rules jobs.bridges.*).
func (s *Server) listPipelineBridges(c *Ctx) error {
	scope, err := c.jobScope()
	if err != nil {
		return err
	}
	return s.readPage(c, func(d *store.Data) (*Page, error) {
		p, err := c.jobsProject(d)
		if err != nil {
			return nil, err
		}
		pl, err := c.pipelineOf(d, p)
		if err != nil {
			return nil, err
		}
		var out []*store.Job
		for _, j := range d.PipelineJobs(pl.ID) {
			if j.Bridge && (scope == nil || scope[j.Status]) {
				out = append(out, j)
			}
		}
		return Paginate(c, newestFirst(out), nil, c.view(d).bridgeJSON)
	})
}

// tokenJob is the job of the presented job token (rules jobs.current.2,
// jobs.allowed_agents.2). Without credentials the answer is 401; a caller
// signed in with another credential passes authentication and, as on the
// platform, finds no job: 404 (a mirror of the platform,
// skratsch-solutions/gitlabhq lib/api/ci/jobs.rb @9cdbf8ef,
// validate_current_authenticated_job: not_found!('Job')).
func (c *Ctx) tokenJob(d *store.Data) (*store.Job, error) {
	if c.JobToken == nil {
		if c.Caller != nil {
			return nil, notFound("Job")
		}
		return nil, unauthorized()
	}
	j := d.Job(c.JobToken.JobID)
	if j == nil || j.TokenSecret != c.JobToken.Secret {
		return nil, unauthorized()
	}
	return j, nil
}

// currentJob implements GET /job (rules jobs.current.*).
func (s *Server) currentJob(c *Ctx) error {
	var out JobJSON
	err := s.store.Read(func(d *store.Data) error {
		j, err := c.tokenJob(d)
		if err != nil {
			return err
		}
		out = c.view(d).jobJSON(j)
		return nil
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, out)
}

// jobAllowedAgents implements GET /job/allowed_agents (rules
// jobs.allowed_agents.*). The reference has no Kubernetes agents, so
// allowed_agents is empty.
func (s *Server) jobAllowedAgents(c *Ctx) error {
	var out map[string]any
	err := s.store.Read(func(d *store.Data) error {
		j, err := c.tokenJob(d)
		if err != nil {
			return err
		}
		p := d.Project(j.ProjectID)
		groups := []map[string]int{}
		for _, g := range d.ProjectGroups(p) {
			groups = append(groups, map[string]int{"id": g.ID})
		}
		var user any
		if u := d.User(j.UserID); u != nil {
			ref := c.view(d).userRef(u)
			user = map[string]any{"id": ref.ID, "name": ref.Name, "username": ref.Username, "state": ref.State,
				"avatar_url": ref.AvatarURL, "web_url": ref.WebURL}
		}
		out = map[string]any{
			"allowed_agents": []any{},
			"job":            map[string]int{"id": j.ID},
			"pipeline":       map[string]int{"id": j.PipelineID},
			"project":        map[string]any{"id": p.ID, "groups": groups},
			"user":           user,
		}
		return nil
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, out)
}

// jobOf resolves :job_id within a project whose jobs the caller may read.
func (c *Ctx) jobOf(d *store.Data) (*store.Job, error) {
	p, err := c.jobsProject(d)
	if err != nil {
		return nil, err
	}
	return c.jobIn(d, p)
}

// jobIn resolves :job_id among p's jobs; bridges are not jobs here.
func (c *Ctx) jobIn(d *store.Data, p *store.Project) (*store.Job, error) {
	id, err := c.PathInt("job_id", "Job")
	if err != nil {
		return nil, err
	}
	j := d.Job(id)
	if j == nil || j.ProjectID != p.ID || j.Bridge || j.External {
		return nil, notFound("Job")
	}
	return j, nil
}

// getJob implements GET /projects/:id/jobs/:job_id (rules jobs.get.*).
func (s *Server) getJob(c *Ctx) error {
	var out JobJSON
	err := s.store.Read(func(d *store.Data) error {
		j, err := c.jobOf(d)
		if err != nil {
			return err
		}
		out = c.view(d).jobJSON(j)
		return nil
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, out)
}

// jobTrace implements GET /projects/:id/jobs/:job_id/trace (rules
// jobs.trace.*): the log as plain text, empty until the runner sends one.
func (s *Server) jobTrace(c *Ctx) error {
	var trace string
	err := s.store.Read(func(d *store.Data) error {
		j, err := c.jobOf(d)
		if err != nil {
			return err
		}
		trace = j.Trace
		return nil
	})
	if err != nil {
		return err
	}
	c.W.Header().Set("Content-Type", "text/plain; charset=utf-8")
	c.W.WriteHeader(http.StatusOK)
	_, _ = c.W.Write([]byte(trace))
	return nil
}
