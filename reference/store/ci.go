package store

import (
	"sort"
	"strings"
	"time"
)

// CI state: runners and their managers, pipelines and their jobs. Jobs move
// only when a runner asks for work or reports a result (POST /jobs/request,
// PUT /jobs/:id) and when a pipeline is created or a job retried, never on a
// timer, so a recorded run replays to the same answers.

// Runner types (Resources, Runner).
const (
	InstanceRunner = "instance_type"
	GroupRunner    = "group_type"
	ProjectRunner  = "project_type"
)

// Runner is one registered runner.
type Runner struct {
	ID              int
	Secret          string
	TokenExpiresAt  *time.Time
	Type            string
	GroupID         int   // group_type
	ProjectIDs      []int // project_type: the owning project first
	Description     string
	Paused          bool
	TagList         []string
	RunUntagged     bool
	Locked          bool
	AccessLevel     string
	MaximumTimeout  *int
	MaintenanceNote string
	CreatedAt       time.Time
	ContactedAt     *time.Time
}

// RunnerManager is one machine (system_id) a runner has asked for jobs from.
type RunnerManager struct {
	ID          int
	RunnerID    int
	SystemID    string
	Version     string
	Revision    string
	Platform    string
	Arch        string
	IPAddress   string
	CreatedAt   time.Time
	ContactedAt time.Time
}

// Pipeline is one run of a project's CI configuration at a ref.
type Pipeline struct {
	ID        int
	ProjectID int
	ParentID  int // child pipelines: the pipeline whose trigger job created it
	Ref       string
	SHA       string
	Tag       bool
	Status    string
	UserID    int
	Commit    JobCommit
	// Source is how the pipeline came about, as the platform names it:
	// empty for api (POST /projects/:id/pipeline), external for one a
	// commit status made (pipelines.go).
	Source    string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// JobCommit is what jobs show of their commit.
type JobCommit struct {
	ID, ShortID, Title, Message, AuthorName, AuthorEmail string
	CreatedAt                                            time.Time
}

// Job is a CI job or, with Bridge set, a trigger job.
type Job struct {
	ID            int
	ProjectID     int
	PipelineID    int
	Name          string
	Stage         string
	StageIdx      int
	Status        string
	FailureReason string
	AllowFailure  bool
	Manual        bool
	TagList       []string
	Script        []string
	// BeforeScript and AfterScript are the job's before_script and
	// after_script (its own, else the file's default: or top-level ones).
	BeforeScript []string
	AfterScript  []string
	// Image and Services are the job's image: and services: (or the
	// defaults), as the runner receives them.
	Image    *JobImage
	Services []JobImage
	// Variables are the job's variables: after the file's top-level ones.
	Variables   []JobVariable
	ExitCode    *int
	UserID      int
	RunnerID    int
	ManagerID   int
	Trace       string
	TokenSecret string
	Retried     bool
	Bridge      bool
	// Child holds the jobs of a trigger job's child pipeline, read from the
	// file it includes when the parent pipeline was created.
	Child        []*Job
	DownstreamID int
	// External marks a commit status posted through the API (the
	// platform's GenericCommitStatus): it sits in the pipeline's external
	// stage and counts for its status, but no runner takes it and the jobs
	// endpoints do not list it (pipelines.go).
	External    bool
	TargetURL   *string
	Description *string
	Coverage    *float64
	CreatedAt   time.Time
	StartedAt   *time.Time
	FinishedAt  *time.Time
}

// JobImage is an image: or one of services: of a job.
type JobImage struct {
	Name       string
	Alias      string
	Entrypoint []string
	Command    []string
}

// JobVariable is one variable of a job's CI definition.
type JobVariable struct {
	Key, Value string
}

// Finished reports whether the job has reached an end state.
func (j *Job) Finished() bool {
	switch j.Status {
	case "success", "failed", "canceled", "skipped":
		return true
	}
	return false
}

// JobStatuses are the job status values (States, Job status).
var JobStatuses = []string{"created", "pending", "running", "failed", "success", "canceled", "skipped", "waiting_for_resource", "manual"}

func (d *Data) ciInit() {
	if d.runners == nil {
		d.runners = map[int]*Runner{}
		d.runnerManagers = map[int][]*RunnerManager{}
		d.pipelines = map[int]*Pipeline{}
		d.jobs = map[int]*Job{}
	}
}

// CreateRunner registers a runner; the caller has checked who may.
func (d *Data) CreateRunner(r *Runner) *Runner {
	d.ciInit()
	r.ID = d.next("runner")
	r.CreatedAt = d.Now()
	r.Secret = NewSecret("glrt-")
	d.runners[r.ID] = r
	d.Touch(r)
	return r
}

// Runner returns the runner with id, nil when unknown or when its owner is gone.
func (d *Data) Runner(id int) *Runner {
	r := d.runners[id]
	if r == nil || !d.runnerOwnerExists(r) {
		return nil
	}
	return r
}

func (d *Data) runnerOwnerExists(r *Runner) bool {
	switch r.Type {
	case GroupRunner:
		return d.groups[r.GroupID] != nil
	case ProjectRunner:
		return len(r.ProjectIDs) > 0 && d.projects[r.ProjectIDs[0]] != nil
	}
	return true
}

// DeleteRunner removes a runner with its managers; its jobs keep their history.
func (d *Data) DeleteRunner(r *Runner) {
	d.Touch(r)
	d.touchKey(tRunnerManagers, r.ID)
	delete(d.runners, r.ID)
	delete(d.runnerManagers, r.ID)
}

// RunnerBySecret returns the runner authenticated by a runner token.
func (d *Data) RunnerBySecret(secret string) *Runner {
	for _, r := range d.runners {
		if r.Secret == secret && d.runnerOwnerExists(r) {
			return r
		}
	}
	return nil
}

// Runners returns every runner in id order.
func (d *Data) Runners() []*Runner {
	out := make([]*Runner, 0, len(d.runners))
	for _, r := range d.runners {
		if d.runnerOwnerExists(r) {
			out = append(out, r)
		}
	}
	sortByID(out, func(r *Runner) int { return r.ID })
	return out
}

// RunnerStatus is online (contacted within two hours), stale (no contact
// for a week, or never contacted and older than a week), offline, or
// never_contacted: the platform's thresholds.
func (d *Data) RunnerStatus(r *Runner) string {
	now := d.Now()
	week := 7 * 24 * time.Hour
	if r.ContactedAt == nil {
		if now.Sub(r.CreatedAt) > week {
			return "stale"
		}
		return "never_contacted"
	}
	switch age := now.Sub(*r.ContactedAt); {
	case age <= 2*time.Hour:
		return "online"
	case age > week:
		return "stale"
	}
	return "offline"
}

// RunnerManagers returns a runner's managers, oldest first.
func (d *Data) RunnerManagers(runnerID int) []*RunnerManager { return d.runnerManagers[runnerID] }

// RunnerManager returns a manager by id.
func (d *Data) RunnerManager(runnerID, id int) *RunnerManager {
	for _, m := range d.runnerManagers[runnerID] {
		if m.ID == id {
			return m
		}
	}
	return nil
}

// ManagerInfo is what a runner reports about its machine.
type ManagerInfo struct {
	SystemID, Version, Revision, Platform, Arch, IPAddress string
}

// ContactRunner records that r asked for work from a machine, creating its
// manager on first contact.
func (d *Data) ContactRunner(r *Runner, info ManagerInfo) *RunnerManager {
	d.ciInit()
	now := d.Now()
	d.Touch(r)
	d.touchKey(tRunnerManagers, r.ID)
	r.ContactedAt = &now
	if info.SystemID == "" {
		return nil
	}
	for _, m := range d.runnerManagers[r.ID] {
		if m.SystemID == info.SystemID {
			m.ContactedAt, m.IPAddress = now, info.IPAddress
			if info.Version != "" {
				m.Version, m.Revision, m.Platform, m.Arch = info.Version, info.Revision, info.Platform, info.Arch
			}
			return m
		}
	}
	m := &RunnerManager{ID: d.next("runner_manager"), RunnerID: r.ID, SystemID: info.SystemID, Version: info.Version,
		Revision: info.Revision, Platform: info.Platform, Arch: info.Arch, IPAddress: info.IPAddress, CreatedAt: now, ContactedAt: now}
	d.runnerManagers[r.ID] = append(d.runnerManagers[r.ID], m)
	return m
}

// RunnerProjects returns the live projects of a project runner.
func (d *Data) RunnerProjects(r *Runner) []*Project {
	var out []*Project
	for _, id := range r.ProjectIDs {
		if p := d.projects[id]; p != nil {
			out = append(out, p)
		}
	}
	return out
}

// ProjectGroups returns the group a project lives in and its ancestors, nearest first.
func (d *Data) ProjectGroups(p *Project) []*Group {
	g := d.ProjectGroup(p)
	if g == nil {
		return nil
	}
	return append([]*Group{g}, d.Ancestors(g)...)
}

// RunnerServes reports whether r may run p's jobs: its own project, a
// project below its group, or any project with instance runners enabled.
func (d *Data) RunnerServes(r *Runner, p *Project) bool {
	switch r.Type {
	case InstanceRunner:
		return p.SharedRunnersEnabled
	case GroupRunner:
		for _, g := range d.ProjectGroups(p) {
			if g.ID == r.GroupID {
				return true
			}
		}
	case ProjectRunner:
		for _, id := range r.ProjectIDs {
			if id == p.ID {
				return true
			}
		}
	}
	return false
}

// NewPipeline stores a pipeline and its jobs (in stage order, then as
// written), and starts its first stage.
func (d *Data) NewPipeline(pl *Pipeline, jobs []*Job) *Pipeline {
	d.ciInit()
	now := d.Now()
	pl.ID = d.next("pipeline")
	pl.CreatedAt, pl.UpdatedAt = now, now
	d.pipelines[pl.ID] = pl
	d.Touch(pl)
	for _, j := range jobs {
		j.ID = d.next("job")
		j.ProjectID, j.PipelineID, j.UserID, j.CreatedAt = pl.ProjectID, pl.ID, pl.UserID, now
		j.Status = "created"
		d.jobs[j.ID] = j
		d.Touch(j)
	}
	d.advance(pl)
	return pl
}

// Pipeline returns a pipeline of a project.
func (d *Data) Pipeline(projectID, id int) *Pipeline {
	if pl := d.pipelines[id]; pl != nil && pl.ProjectID == projectID {
		return pl
	}
	return nil
}

// PipelineJobs returns a pipeline's jobs and trigger jobs, in id order;
// callers must not change the slice (between writes it is the index's).
func (d *Data) PipelineJobs(pipelineID int) []*Job {
	if d.cached {
		return d.jobIdx().byPipeline[pipelineID]
	}
	var out []*Job
	for _, j := range d.jobs {
		if j.PipelineID == pipelineID {
			out = append(out, j)
		}
	}
	sortByID(out, func(j *Job) int { return j.ID })
	return out
}

// ChildPipelines returns the pipelines below pl (children, grandchildren…).
func (d *Data) ChildPipelines(pl *Pipeline) []*Pipeline {
	var out []*Pipeline
	if d.cached {
		for _, c := range d.jobIdx().children[pl.ID] {
			out = append(out, c)
			out = append(out, d.ChildPipelines(c)...)
		}
		sortByID(out, func(p *Pipeline) int { return p.ID })
		return out
	}
	for _, c := range d.pipelines {
		if c.ParentID == pl.ID {
			out = append(out, c)
			out = append(out, d.ChildPipelines(c)...)
		}
	}
	sortByID(out, func(p *Pipeline) int { return p.ID })
	return out
}

// ProjectJobs returns a project's jobs (not trigger jobs), in id order;
// callers must not change the slice (between writes it is the index's).
func (d *Data) ProjectJobs(projectID int) []*Job {
	if d.cached {
		return d.jobIdx().byProject[projectID]
	}
	var out []*Job
	for _, j := range d.jobs {
		if j.ProjectID == projectID && !j.Bridge && !j.External {
			out = append(out, j)
		}
	}
	sortByID(out, func(j *Job) int { return j.ID })
	return out
}

// Job returns a job by id, nil when unknown or its project is gone.
func (d *Data) Job(id int) *Job {
	j := d.jobs[id]
	if j == nil || d.projects[j.ProjectID] == nil {
		return nil
	}
	return j
}

// RunnerJobs returns the jobs a runner has taken, in id order.
func (d *Data) RunnerJobs(runnerID int) []*Job {
	var out []*Job
	for _, j := range d.jobs {
		if j.RunnerID == runnerID && d.projects[j.ProjectID] != nil {
			out = append(out, j)
		}
	}
	sortByID(out, func(j *Job) int { return j.ID })
	return out
}

// advance moves a pipeline on: the earliest stage that has unfinished work
// gets its created jobs pending (manual jobs wait as manual, trigger jobs
// start their child pipeline); a failure that may not fail skips every later
// stage. The pipeline status follows its jobs.
func (d *Data) advance(pl *Pipeline) {
	d.Touch(pl)
	for {
		jobs := d.PipelineJobs(pl.ID)
		for _, j := range jobs {
			d.Touch(j)
		}
		live := jobs[:0:0]
		for _, j := range jobs {
			if !j.Retried {
				live = append(live, j)
			}
		}
		failed := false
		changed := false
		stages := map[int]bool{}
		var order []int
		for _, j := range live {
			if !stages[j.StageIdx] {
				stages[j.StageIdx] = true
				order = append(order, j.StageIdx)
			}
		}
		sort.Ints(order)
		for _, st := range order {
			blocking := false
			for _, j := range live {
				if j.StageIdx != st {
					continue
				}
				if failed {
					if j.Status == "created" {
						j.Status, changed = "skipped", true
					}
					continue
				}
				switch {
				case j.Status == "created" && j.Bridge:
					d.trigger(pl, j)
					changed = true
				case j.Status == "created" && j.Manual:
					j.Status, changed = "manual", true
				case j.Status == "created":
					j.Status, changed = "pending", true
				}
				switch j.Status {
				case "pending", "running", "created", "waiting_for_resource":
					blocking = true
				case "failed", "canceled":
					if !j.AllowFailure {
						failed = true
					}
				}
			}
			if blocking {
				break
			}
		}
		if !changed {
			pl.Status = pipelineStatus(live)
			pl.UpdatedAt = d.Now()
			return
		}
	}
}

func pipelineStatus(jobs []*Job) string {
	has := map[string]bool{}
	failed := false
	for _, j := range jobs {
		has[j.Status] = true
		if (j.Status == "failed" || j.Status == "canceled") && !j.AllowFailure {
			failed = true
		}
	}
	switch {
	case has["running"]:
		return "running"
	case has["pending"]:
		return "pending"
	case has["created"]:
		return "created"
	case failed:
		return "failed"
	case has["success"] || has["failed"]:
		return "success"
	case has["manual"]:
		return "manual"
	case has["canceled"]:
		return "canceled"
	}
	return "skipped"
}

// trigger runs a trigger job: its child pipeline is created from the
// included file (or empty when the file yields nothing) and the trigger job
// succeeds once the downstream pipeline exists.
func (d *Data) trigger(pl *Pipeline, j *Job) {
	d.Touch(j)
	jobs := j.Child
	j.Child = nil
	child := &Pipeline{ProjectID: pl.ProjectID, ParentID: pl.ID, Ref: pl.Ref, SHA: pl.SHA, Tag: pl.Tag,
		UserID: pl.UserID, Commit: pl.Commit}
	d.NewPipeline(child, jobs)
	now := d.Now()
	j.DownstreamID = child.ID
	j.Status, j.StartedAt, j.FinishedAt = "success", &now, &now
}

// PickJob gives r the oldest pending job it may run, or nil: a job whose
// tags the runner all has, untagged jobs only when run_untagged. The job
// starts running with a fresh job token.
func (d *Data) PickJob(r *Runner, m *RunnerManager) *Job {
	if r.Paused {
		return nil
	}
	var best *Job
	for _, j := range d.jobs {
		if j.Status != "pending" || j.Bridge || j.External || (best != nil && j.ID > best.ID) {
			continue
		}
		p := d.projects[j.ProjectID]
		if p == nil || !d.RunnerServes(r, p) || !runnerTakes(r, j) {
			continue
		}
		best = j
	}
	if best == nil {
		return nil
	}
	now := d.Now()
	d.Touch(best)
	best.Status, best.StartedAt, best.RunnerID = "running", &now, r.ID
	if m != nil {
		best.ManagerID = m.ID
	}
	best.TokenSecret = NewSecret("glcbt-")
	d.AddJobToken(&JobToken{Secret: best.TokenSecret, JobID: best.ID, ProjectID: best.ProjectID, UserID: best.UserID})
	d.advance(d.pipelines[best.PipelineID])
	return best
}

func runnerTakes(r *Runner, j *Job) bool {
	if len(j.TagList) == 0 {
		return r.RunUntagged
	}
	for _, t := range j.TagList {
		if !HasTag(r.TagList, t) {
			return false
		}
	}
	return true
}

// HasTag reports whether tags holds t (case-insensitively, as tags are on the platform).
func HasTag(tags []string, t string) bool {
	for _, x := range tags {
		if strings.EqualFold(x, t) {
			return true
		}
	}
	return false
}

// FinishJob records a runner's result for a running job: success or failed
// ends it (its token dies), and the pipeline moves on.
func (d *Data) FinishJob(j *Job, state, trace, reason string) {
	now := d.Now()
	d.Touch(j)
	if trace != "" {
		j.Trace = trace
	}
	if state != "success" && state != "failed" {
		return
	}
	j.Status, j.FinishedAt = state, &now
	if state == "failed" {
		if reason == "" {
			reason = "script_failure"
		}
		j.FailureReason = reason
	}
	// The token stops authenticating API calls (the job-token registry) but
	// stays on the job, so the runner presenting it learns the job's status
	// (403 with Job-Status) as on the platform.
	if j.TokenSecret != "" {
		d.RemoveJobToken(j.TokenSecret)
	}
	d.advance(d.pipelines[j.PipelineID])
}

// RetryJob replaces a finished job by a new pending copy; the old one is
// kept as retried.
func (d *Data) RetryJob(j *Job) *Job {
	n := &Job{ID: d.next("job"), ProjectID: j.ProjectID, PipelineID: j.PipelineID, Name: j.Name, Stage: j.Stage,
		StageIdx: j.StageIdx, Status: "pending", AllowFailure: j.AllowFailure, TagList: j.TagList, Script: j.Script,
		BeforeScript: j.BeforeScript, AfterScript: j.AfterScript, Image: j.Image, Services: j.Services, Variables: j.Variables,
		UserID: j.UserID, CreatedAt: d.Now()}
	j.Retried = true
	d.jobs[n.ID] = n
	d.Touch(j, n)
	d.advance(d.pipelines[j.PipelineID])
	return n
}

// CancelJob ends an unfinished job as canceled; its token dies.
func (d *Data) CancelJob(j *Job) {
	now := d.Now()
	d.Touch(j)
	j.Status, j.FinishedAt = "canceled", &now
	if j.TokenSecret != "" {
		d.RemoveJobToken(j.TokenSecret) // kept on the job, as in FinishJob
	}
	d.advance(d.pipelines[j.PipelineID])
}

// PlayJob starts a manual job: it becomes pending for runners.
func (d *Data) PlayJob(j *Job) {
	d.Touch(j)
	j.Status = "pending"
	d.advance(d.pipelines[j.PipelineID])
}

func (d *Data) dropCI(projectID int) {
	for id, j := range d.jobs {
		if j.ProjectID == projectID {
			if j.TokenSecret != "" {
				d.RemoveJobToken(j.TokenSecret)
			}
			d.Touch(j)
			delete(d.jobs, id)
		}
	}
	for id, pl := range d.pipelines {
		if pl.ProjectID == projectID {
			d.Touch(pl)
			delete(d.pipelines, id)
		}
	}
}

// AppendTrace appends a runner's log patch at offset and returns the log's
// size after it. A patch that does not start where the log ends changes
// nothing and reports false with the current size: the platform's
// Gitlab::Ci::Trace#append (gitlabhq/gitlabhq lib/gitlab/ci/trace.rb @d474ba6e:
// `return -current_length unless current_length == offset`, where the
// runner's PATCH then answers 416 with the current Range). The job's own
// token is masked in the log with as many x as it has characters, as the
// platform's hide_secrets does (Gitlab::Ci::MaskSecret), so sizes hold.
func (d *Data) AppendTrace(j *Job, offset int, patch []byte) (int, bool) {
	if offset != len(j.Trace) {
		return len(j.Trace), false
	}
	text := string(patch)
	if j.TokenSecret != "" {
		text = strings.ReplaceAll(text, j.TokenSecret, strings.Repeat("x", len(j.TokenSecret)))
	}
	d.Touch(j)
	j.Trace += text
	return len(j.Trace), true
}

// SetExitCode records the exit code a runner reports with a job's end state.
func (d *Data) SetExitCode(j *Job, code int) {
	d.Touch(j)
	j.ExitCode = &code
}

// GroupByRunnersToken returns the group whose runner registration token is
// tok, or nil.
func (d *Data) GroupByRunnersToken(tok string) *Group {
	if tok == "" {
		return nil
	}
	for _, g := range d.groups {
		if g.RunnersToken == tok {
			return g
		}
	}
	return nil
}
