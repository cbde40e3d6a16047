package api

import (
	"fmt"
	"net/http"

	"github.com/v4cert/v4cert/reference/access"
	"github.com/v4cert/v4cert/reference/store"
)

// Provisioning of CI, beyond the spec (which shows neither runner
// registration nor where jobs come from), with the platform's own shapes:
// POST /user/runners registers a runner, POST /projects/:id/pipeline runs the
// repository's .gitlab-ci.yml, and the runner API (runner_protocol.go) moves
// jobs to running, success and failed.

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
