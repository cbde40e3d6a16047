package store

import (
	"fmt"
	"slices"
	"time"
)

// Pipelines as the platform lists them, and commit statuses: the
// neighbouring endpoints tools read beside the spec's areas (issue 18).

// ExternalStageIdx is the position of the stage commit statuses sit in, after
// every stage a CI file can declare (GenericCommitStatus::EXTERNAL_STAGE_IDX,
// gitlabhq/gitlabhq app/models/generic_commit_status.rb @9297025d).
const ExternalStageIdx = 1_000_000

// ProjectPipelines returns every pipeline of a project, children included,
// newest first.
func (d *Data) ProjectPipelines(projectID int) []*Pipeline {
	var out []*Pipeline
	for _, pl := range d.pipelines {
		if pl.ProjectID == projectID {
			out = append(out, pl)
		}
	}
	slices.SortFunc(out, func(a, b *Pipeline) int { return b.ID - a.ID })
	return out
}

// LatestPipelineFor is the newest top-level pipeline of a project at sha, on
// any ref when ref is empty: a commit's last_pipeline and status
// (Commit#lazy_latest_pipeline, Commit#status_for) and the project's latest
// pipeline of a branch.
func (d *Data) LatestPipelineFor(projectID int, sha, ref string) *Pipeline {
	var best *Pipeline
	for _, pl := range d.pipelines {
		if pl.ProjectID == projectID && pl.ParentID == 0 && pl.SHA == sha && (ref == "" || pl.Ref == ref) &&
			(best == nil || pl.ID > best.ID) {
			best = pl
		}
	}
	return best
}

// PipelineSource is the pipeline's source as the platform names it.
func (pl *Pipeline) PipelineSource() string {
	switch {
	case pl.Source != "":
		return pl.Source
	case pl.ParentID != 0:
		return "parent_pipeline"
	}
	return "api"
}

// PipelineStatuses are the commit statuses of pipelines (retried ones
// included), in id order.
func (d *Data) PipelineStatuses(pipelineIDs map[int]bool) []*Job {
	var out []*Job
	for _, j := range d.jobs {
		if pipelineIDs[j.PipelineID] && d.projects[j.ProjectID] != nil {
			out = append(out, j)
		}
	}
	sortByID(out, func(j *Job) int { return j.ID })
	return out
}

// CommitStatusRequest is POST /projects/:id/statuses/:sha after the caller
// has resolved the commit and the ref the status is for.
type CommitStatusRequest struct {
	ProjectID   int
	SHA         string
	Ref         string // resolved: the ref given, the matching pipeline's or the first branch holding the commit
	RefGiven    bool   // a ref was sent: only the pipelines of that ref match
	Tag         bool
	Name        string
	State       string
	PipelineID  *int
	UserID      int
	Commit      JobCommit
	TargetURL   *string
	Description *string
	Coverage    *float64
}

// CommitStatusError is a commit status the platform refuses after its
// parameters passed: NotFound for a pipeline_id that matches nothing,
// otherwise an invalid state transition (400).
type CommitStatusError struct {
	NotFound bool
	Msg      string
}

func (e *CommitStatusError) Error() string { return e.Msg }

// FirstMatchingPipeline is the pipeline a commit status joins: the newest of
// the project's pipelines at sha (of ref when one was sent; the one named by
// pipelineID when one was). Children count, as project.ci_pipelines
// holds them (Ci::CreateCommitStatusService#first_matching_pipeline).
func (d *Data) FirstMatchingPipeline(projectID int, sha, ref string, pipelineID *int) *Pipeline {
	for _, pl := range d.ProjectPipelines(projectID) {
		if pl.SHA == sha && (ref == "" || pl.Ref == ref) && (pipelineID == nil || pl.ID == *pipelineID) {
			return pl
		}
	}
	return nil
}

// PostCommitStatus creates or moves a commit status as the platform's
// Ci::CreateCommitStatusService does
// (gitlabhq/gitlabhq app/services/ci/create_commit_status_service.rb @0286e4c6): it joins the
// newest matching pipeline or makes an external one, finds the caller's
// pending or running status of that name and ref in it or makes a new one
// in the external stage, applies the state as an event of the commit status
// state machine (app/models/commit_status.rb), marks older statuses of the
// same name retried, and moves the pipeline's status on. A transition the
// state machine does not allow changes nothing.
func (d *Data) PostCommitStatus(req CommitStatusRequest) (*Job, *Pipeline, error) {
	d.ciInit()
	filterRef := ""
	if req.RefGiven {
		filterRef = req.Ref
	}
	pl := d.FirstMatchingPipeline(req.ProjectID, req.SHA, filterRef, req.PipelineID)
	if req.PipelineID != nil && pl == nil {
		return nil, nil, &CommitStatusError{NotFound: true, Msg: "404 Pipeline for pipeline_id, sha and ref Not Found"}
	}
	var st *Job
	if pl != nil {
		for _, j := range d.PipelineJobs(pl.ID) {
			if j.External && !j.Retried && (j.Status == "pending" || j.Status == "running") && pl.Ref == req.Ref &&
				j.Name == req.Name && j.UserID == req.UserID {
				st = j
			}
		}
	}
	from := "created"
	if st != nil {
		from = st.Status
	}
	to, err := commitStatusTransition(from, req.State)
	if err != nil {
		return nil, nil, err
	}
	now := d.Now()
	if pl == nil {
		pl = &Pipeline{ProjectID: req.ProjectID, Ref: req.Ref, SHA: req.SHA, Tag: req.Tag, UserID: req.UserID,
			Commit: req.Commit, Source: "external"}
		d.NewPipeline(pl, nil)
	}
	if st == nil {
		st = &Job{ID: d.next("job"), ProjectID: pl.ProjectID, PipelineID: pl.ID, Name: req.Name, Stage: "external",
			StageIdx: ExternalStageIdx, Status: "created", UserID: req.UserID, TagList: []string{}, External: true, CreatedAt: now}
		d.jobs[st.ID] = st
	}
	d.Touch(st)
	if req.TargetURL != nil {
		st.TargetURL = req.TargetURL
	}
	if req.Description != nil {
		st.Description = req.Description
	}
	if req.Coverage != nil {
		st.Coverage = req.Coverage
	}
	if to == "running" && st.StartedAt == nil {
		st.StartedAt = &now
	}
	switch to {
	case "success", "failed", "canceled":
		st.FinishedAt = &now
	}
	if to == "failed" {
		st.FailureReason = "api_failure"
	}
	st.Status = to
	// update_older_statuses_retried!: the latest status of a name is the one shown.
	for _, j := range d.PipelineJobs(pl.ID) {
		if j.ID != st.ID && j.Name == st.Name && !j.Retried {
			d.Touch(j)
			j.Retried = true
		}
	}
	d.advance(pl)
	return st, pl, nil
}

// commitStatusTransition applies the event Ci::CreateCommitStatusService
// fires for state to a status in from (apply_job_state!): pending enqueues,
// running enqueues when it can and runs, success succeeds, failed drops,
// canceled cancels, skipped skips. The events' allowed origins are those of
// CommitStatus's state machine; the refusal is the state_machines gem's
// InvalidTransition message, which the API answers with 400.
func commitStatusTransition(from, state string) (string, error) {
	type event struct {
		name string
		from []string
		to   string
	}
	enqueue := event{"enqueue", []string{"created", "skipped", "manual", "scheduled"}, "pending"}
	run := event{"run", []string{"pending"}, "running"}
	fire := func(e event, s string) (string, bool) {
		if slices.Contains(e.from, s) {
			return e.to, true
		}
		return s, false
	}
	var e event
	switch state {
	case "pending":
		e = enqueue
	case "running":
		// job.enqueue (no bang: a refusal is ignored), then job.run!.
		from, _ = fire(enqueue, from)
		e = run
	case "success":
		e = event{"success", []string{"created", "waiting_for_resource", "preparing", "waiting_for_callback", "pending", "running"}, "success"}
	case "failed":
		e = event{"drop", []string{"created", "waiting_for_resource", "preparing", "waiting_for_callback", "pending", "running", "manual", "scheduled"}, "failed"}
	case "canceled":
		e = event{"cancel", []string{"created", "waiting_for_resource", "preparing", "waiting_for_callback", "pending", "running", "manual", "scheduled"}, "canceled"}
	case "skipped":
		e = event{"skip", []string{"created", "waiting_for_resource", "preparing", "pending"}, "skipped"}
	default:
		return "", &CommitStatusError{Msg: "invalid state"}
	}
	to, ok := fire(e, from)
	if !ok {
		return "", &CommitStatusError{Msg: fmt.Sprintf("Cannot transition status via :%s from :%s (Reason(s): Status cannot transition via \"%s\")", e.name, from, e.name)}
	}
	return to, nil
}

// PipelineDuration is the platform's pipeline duration and queued duration
// in whole seconds (nil until a job has started, duration nil until one has
// finished).
func (d *Data) PipelineDuration(pl *Pipeline) (duration, queued *int) {
	started, finished := d.PipelineTimes(pl)
	if started == nil {
		return nil, nil
	}
	q := int(started.Sub(pl.CreatedAt).Round(time.Second).Seconds())
	if finished == nil {
		return nil, &q
	}
	du := int(finished.Sub(*started).Round(time.Second).Seconds())
	return &du, &q
}
