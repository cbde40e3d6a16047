package api

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/v4cert/v4cert/reference/access"
	"github.com/v4cert/v4cert/reference/store"
)

// Provisioning of CI, beyond the spec (which shows neither runner
// registration nor where jobs come from), with the platform's own shapes:
// POST /user/runners registers a runner, POST /projects/:id/pipeline runs the
// repository's .gitlab-ci.yml, and the runner API (POST /jobs/request,
// PUT /jobs/:id) moves jobs to running, success and failed.

// createUserRunner implements the platform's POST /user/runners
// (provisioning): instance runners need an administrator, group runners the
// group's Owner, project runners a Maintainer of the project.
func (s *Server) createUserRunner(c *Ctx) error {
	in := c.In()
	typ := in.String("runner_type")
	groupID, projectID := in.Int("group_id"), in.Int("project_id")
	r := &store.Runner{Description: in.StringOr("description", ""), Paused: in.BoolOr("paused", false),
		TagList: in.Strings("tag_list"), RunUntagged: in.BoolOr("run_untagged", true), Locked: in.BoolOr("locked", false),
		AccessLevel: in.StringOr("access_level", "not_protected"), MaximumTimeout: in.Int("maximum_timeout"),
		MaintenanceNote: in.StringOr("maintenance_note", "")}
	if err := in.Err(); err != nil {
		return err
	}
	if err := checkRunnerFields(r.AccessLevel, r.MaintenanceNote, r.MaximumTimeout); err != nil {
		return err
	}
	if r.TagList == nil {
		r.TagList = []string{}
	}
	r.Type = *typ
	var out map[string]any
	err := s.store.Write(func(d *store.Data) error {
		switch r.Type {
		case store.InstanceRunner:
			if !c.Admin() {
				return forbidden()
			}
		case store.GroupRunner:
			if groupID == nil {
				return missing("group_id")
			}
			g := d.Group(*groupID)
			if g == nil || !d.CanSeeGroup(c.Caller, g) {
				return notFound("Group")
			}
			if err := c.requireGroupRole(d, g, access.Owner); err != nil {
				return err
			}
			r.GroupID = g.ID
		case store.ProjectRunner:
			if projectID == nil {
				return missing("project_id")
			}
			p := d.Project(*projectID)
			if p == nil || !d.CanSeeProject(c.Caller, p) {
				return notFound("Project")
			}
			if err := c.requireProjectRole(d, p, access.Maintainer); err != nil {
				return err
			}
			r.ProjectIDs = []int{p.ID}
		}
		d.CreateRunner(r)
		out = map[string]any{"id": r.ID, "token": r.Secret, "token_expires_at": tsPtr(r.TokenExpiresAt)}
		return nil
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, out)
}

// checkRunnerFields holds runner fields to their sets and limits
// (Resources, Runner; Limits: maintenance_note 1024 characters).
func checkRunnerFields(accessLevel, note string, timeout *int) error {
	fields := map[string][]string{}
	if accessLevel != "not_protected" && accessLevel != "ref_protected" {
		return invalidParam("access_level")
	}
	if len([]rune(note)) > 1024 {
		fields["maintenance_note"] = []string{"is too long (maximum is 1024 characters)"}
	}
	if timeout != nil && *timeout < 600 {
		fields["maximum_timeout"] = []string{"needs to be at least 10 minutes"}
	}
	if len(fields) > 0 {
		return validation(fields)
	}
	return nil
}

// createPipeline implements the platform's POST /projects/:id/pipeline
// (provisioning): Developer or above runs the CI file of a branch or tag
// (the pipeline workflow, reference/workflow/ci).
func (s *Server) createPipeline(c *Ctx) error {
	ref := c.In().StringOr("ref", "")
	if err := c.In().Err(); err != nil {
		return err
	}
	rc, err := s.repoOf(c, true)
	if err != nil {
		return err
	}
	var out CreatedPipelineJSON
	err = s.ci.CreatePipeline(c.R.Context(), &rc.Target, ref, func(d *store.Data, pl *store.Pipeline) {
		out = c.view(d).pipelineJSON(pl)
	})
	if err != nil {
		return workflowError(err)
	}
	return c.JSON(http.StatusCreated, out)
}

// CreatedPipelineJSON is the platform's pipeline object, as POST .../pipeline answers it.
type CreatedPipelineJSON struct {
	ID        int    `json:"id"`
	IID       int    `json:"iid"`
	ProjectID int    `json:"project_id"`
	SHA       string `json:"sha"`
	Ref       string `json:"ref"`
	Status    string `json:"status"`
	Source    string `json:"source"`
	CreatedAt string `json:"created_at"`
	UpdatedAt string `json:"updated_at"`
	WebURL    string `json:"web_url"`
}

func (v *view) pipelineWebURL(pl *store.Pipeline) string {
	p := v.d.Project(pl.ProjectID)
	return fmt.Sprintf("%s/%s/-/pipelines/%d", v.base, v.d.ProjectFullPath(p), pl.ID)
}

func (v *view) pipelineJSON(pl *store.Pipeline) CreatedPipelineJSON {
	return CreatedPipelineJSON{ID: pl.ID, IID: pl.ID, ProjectID: pl.ProjectID, SHA: pl.SHA, Ref: pl.Ref, Status: pl.Status,
		Source: pl.PipelineSource(), CreatedAt: ts(pl.CreatedAt), UpdatedAt: ts(pl.UpdatedAt), WebURL: v.pipelineWebURL(pl)}
}

// requestJob implements the platform's runner API POST /jobs/request
// (provisioning): the runner authenticated by its token gets the oldest
// pending job it may run (201) or nothing (204). The system_id it sends
// names the runner manager the job runs on.
func (s *Server) requestJob(c *Ctx) error {
	in := c.In()
	secret := in.StringOr("token", "")
	systemID := in.StringOr("system_id", "")
	info := in.Hash("info")
	if err := in.Err(); err != nil {
		return err
	}
	var out map[string]any // nil: no job for this runner
	err := s.store.Write(func(d *store.Data) error {
		r := d.RunnerBySecret(secret)
		if r == nil {
			return forbidden()
		}
		m := d.ContactRunner(r, store.ManagerInfo{SystemID: systemID, Version: info["version"], Revision: info["revision"],
			Platform: info["platform"], Arch: info["architecture"], IPAddress: clientIP(c.R)})
		j := d.PickJob(r, m)
		if j == nil {
			return nil
		}
		p := d.Project(j.ProjectID)
		pl := d.Pipeline(j.ProjectID, j.PipelineID)
		out = map[string]any{
			"id": j.ID, "token": j.TokenSecret, "allow_git_fetch": true,
			"job_info": map[string]any{"id": j.ID, "name": j.Name, "stage": j.Stage, "project_id": p.ID, "project_name": p.Name},
			"git_info": map[string]any{"ref": pl.Ref, "sha": pl.SHA, "ref_type": map[bool]string{true: "tag", false: "branch"}[pl.Tag]},
			"steps":    []map[string]any{{"name": "script", "script": j.Script, "when": "on_success"}},
		}
		return nil
	})
	if err != nil {
		return err
	}
	if out == nil {
		return c.NoContent()
	}
	return c.JSON(http.StatusCreated, out)
}

func clientIP(r *http.Request) string {
	host := r.RemoteAddr
	if i := strings.LastIndexByte(host, ':'); i > 0 {
		host = host[:i]
	}
	return strings.Trim(host, "[]")
}

// updateJobState implements the platform's runner API PUT /jobs/:id
// (provisioning): with the job's token, the runner reports the log (trace)
// and the end state (success or failed, with failure_reason).
func (s *Server) updateJobState(c *Ctx) error {
	id, err := c.PathInt("id", "Job")
	if err != nil {
		return err
	}
	in := c.In()
	secret := in.StringOr("token", "")
	state := in.String("state")
	trace := in.StringOr("trace", "")
	reason := in.Enum("failure_reason", "unknown_failure", "script_failure", "api_failure", "stuck_or_timeout_failure",
		"runner_system_failure", "job_execution_timeout")
	if err := in.Err(); err != nil {
		return err
	}
	var out map[string]any
	err = s.store.Write(func(d *store.Data) error {
		j := d.Job(id)
		if j == nil {
			return notFound("Job")
		}
		if j.TokenSecret == "" || j.TokenSecret != secret || j.Status != "running" {
			return forbidden()
		}
		st := ""
		if state != nil {
			st = *state
		}
		r := ""
		if reason != nil {
			r = *reason
		}
		d.FinishJob(j, st, trace, r)
		out = map[string]any{"id": j.ID, "status": j.Status}
		return nil
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, out)
}

// jobForAction resolves :id and :job_id for the job actions: Developer or
// above on the project.
func (c *Ctx) jobForAction(d *store.Data) (*store.Job, error) {
	p, err := c.projectOf(d, "id")
	if err != nil {
		return nil, err
	}
	if err := c.requireProjectRole(d, p, access.Developer); err != nil {
		return nil, err
	}
	return c.jobIn(d, p)
}

// retryJob implements the platform's POST /projects/:id/jobs/:job_id/retry
// (provisioning): a finished job is replaced by a new pending one.
func (s *Server) retryJob(c *Ctx) error {
	var out JobJSON
	err := s.store.Write(func(d *store.Data) error {
		j, err := c.jobForAction(d)
		if err != nil {
			return err
		}
		if !j.Finished() || j.Retried {
			return forbiddenMsg("Job is not retryable")
		}
		n := d.RetryJob(j)
		out = c.view(d).jobJSON(n)
		return nil
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, out)
}

// cancelJob implements the platform's POST /projects/:id/jobs/:job_id/cancel
// (provisioning): an unfinished job becomes canceled.
func (s *Server) cancelJob(c *Ctx) error {
	var out JobJSON
	err := s.store.Write(func(d *store.Data) error {
		j, err := c.jobForAction(d)
		if err != nil {
			return err
		}
		if j.Finished() {
			return forbiddenMsg("Job is not cancelable")
		}
		d.CancelJob(j)
		out = c.view(d).jobJSON(j)
		return nil
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, out)
}

// playJob implements the platform's POST /projects/:id/jobs/:job_id/play
// (provisioning): a manual job becomes pending.
func (s *Server) playJob(c *Ctx) error {
	var out JobJSON
	err := s.store.Write(func(d *store.Data) error {
		j, err := c.jobForAction(d)
		if err != nil {
			return err
		}
		if j.Status != "manual" {
			return errorf(http.StatusBadRequest, "400 Bad request - Unplayable Job")
		}
		d.PlayJob(j)
		out = c.view(d).jobJSON(j)
		return nil
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, out)
}
