package api

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/v4cert/v4cert/reference/store"
	"github.com/v4cert/v4cert/reference/workflow/ci"
)

// The runner API as gitlab-runner speaks it (provisioning, who: runner):
// register, verify and unregister a runner, take a job, stream its log,
// report its end. Its credentials are the runner's token and the job's
// token, never a user's. The platform's side, read in the mirror
// skratsch-solutions/gitlabhq: lib/api/ci/runner.rb @c766c4b0 and
// lib/api/ci/helpers/runner.rb @12c8871d (gitlabhq/gitlabhq @e8d2c257 for the
// older shape); the runner's side:
// gitlab-org/gitlab-runner network/gitlab.go and common/network.go
// (mirror gitlabhq/gitlab-runner @d79f3e7b, v19.4.0). docs/runner.md.

// RegistrationJSON is Entities::Ci::RunnerRegistrationDetails, the answer
// of registration and verification.
type RegistrationJSON struct {
	ID             int     `json:"id"`
	Token          string  `json:"token"`
	TokenExpiresAt *string `json:"token_expires_at"`
}

// runnerInfo reads the machine a runner reports: info.{name, version,
// revision, platform, architecture} and system_id. The runner sends info
// with nested objects (info.features, info.config, info.labels), which the
// platform declares as hashes and which say nothing the reference keeps.
func runnerInfo(c *Ctx) store.ManagerInfo {
	out := store.ManagerInfo{SystemID: c.In().StringOr("system_id", ""), IPAddress: clientIP(c.R)}
	info, _ := c.P.Raw("info").(map[string]any)
	str := func(k string) string {
		s, _ := info[k].(string)
		return s
	}
	out.Version, out.Revision, out.Platform, out.Arch = str("version"), str("revision"), str("platform"), str("architecture")
	return out
}

// registerRunner implements POST /runners: a registration token makes a
// runner (Ci::Runners::RegisterRunnerService). The reference's registration
// tokens are the groups' runners_token (GET /groups/:id shows it to Owners):
// the runner becomes a group runner. Any other token is 403 "invalid token
// supplied", as on the platform.
func (s *Server) registerRunner(c *Ctx) error {
	in := c.In()
	token := in.StringOr("token", "")
	desc := in.StringOr("description", "")
	note, oldNote := in.String("maintenance_note"), in.String("maintainer_note")
	active, paused := in.Bool("active"), in.Bool("paused")
	r := &store.Runner{Description: desc, Locked: in.BoolOr("locked", false), RunUntagged: in.BoolOr("run_untagged", true),
		AccessLevel: in.StringOr("access_level", "not_protected"), MaximumTimeout: in.Int("maximum_timeout")}
	tags := in.Strings("tag_list")
	if err := in.Err(); err != nil {
		return err
	}
	// Grape's mutually_exclusive (lib/api/ci/runner.rb).
	if note != nil && oldNote != nil {
		return grapeError(http.StatusBadRequest, "maintainer_note, maintenance_note are mutually exclusive")
	}
	if active != nil && paused != nil {
		return grapeError(http.StatusBadRequest, "active, paused are mutually exclusive")
	}
	switch {
	case note != nil:
		r.MaintenanceNote = *note
	case oldNote != nil:
		r.MaintenanceNote = *oldNote
	}
	if active != nil {
		r.Paused = !*active
	}
	if paused != nil {
		r.Paused = *paused
	}
	// CommaSeparatedToArray: the runner sends tag_list as one string.
	r.TagList = []string{}
	for _, t := range tags {
		if t = strings.TrimSpace(t); t != "" {
			r.TagList = append(r.TagList, t)
		}
	}
	var out RegistrationJSON
	err := s.store.Write(func(d *store.Data) error {
		g := d.GroupByRunnersToken(token)
		if g == nil {
			return forbiddenMsg("invalid token supplied")
		}
		if err := checkRunnerFields(r.AccessLevel, r.MaintenanceNote, r.MaximumTimeout); err != nil {
			return err
		}
		r.Type, r.GroupID = store.GroupRunner, g.ID
		d.CreateRunner(r)
		out = RegistrationJSON{ID: r.ID, Token: r.Secret, TokenExpiresAt: tsPtr(r.TokenExpiresAt)}
		return nil
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, out)
}

// verifyRunner implements POST /runners/verify: the runner's token is
// checked (403 when it names no runner), the machine of system_id is
// recorded as on every authenticated runner call (authenticate_runner!), and
// the answer is the registration details, as `gitlab-runner register
// --token glrt-…` (the runner-token flow) and `gitlab-runner verify` read it.
func (s *Server) verifyRunner(c *Ctx) error {
	token := c.In().StringOr("token", "")
	info := runnerInfo(c)
	if err := c.In().Err(); err != nil {
		return err
	}
	var out RegistrationJSON
	err := s.store.Write(func(d *store.Data) error {
		r := d.RunnerBySecret(token)
		if r == nil {
			return forbidden()
		}
		d.ContactRunner(r, info)
		out = RegistrationJSON{ID: r.ID, Token: r.Secret, TokenExpiresAt: tsPtr(r.TokenExpiresAt)}
		return nil
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, out)
}

// unregisterRunner implements DELETE /runners: the runner of the token is
// deleted (204); a token that names no runner is 403.
func (s *Server) unregisterRunner(c *Ctx) error {
	token := c.In().StringOr("token", "")
	if err := c.In().Err(); err != nil {
		return err
	}
	err := s.store.Write(func(d *store.Data) error {
		r := d.RunnerBySecret(token)
		if r == nil {
			return forbidden()
		}
		d.DeleteRunner(r)
		return nil
	})
	if err != nil {
		return err
	}
	return c.NoContent()
}

// requestJob implements POST /jobs/request: the runner gets the oldest
// pending job it may run (201 with the job payload, reference/workflow/ci)
// or none (204 with X-GitLab-Last-Update, which the runner sends back as
// last_update); a token that names no runner is 403.
func (s *Server) requestJob(c *Ctx) error {
	token := c.In().StringOr("token", "")
	info := runnerInfo(c)
	if err := c.In().Err(); err != nil {
		return err
	}
	rev := s.opts.Version
	if rev == "" {
		rev = "dev"
	}
	job, err := s.ci.RequestJob(c.R.Context(), token, info, ci.Server{URL: c.base, Version: PlatformVersion, Revision: rev})
	if errors.Is(err, ci.ErrRunnerForbidden) {
		return forbidden()
	}
	if err != nil {
		return workflowError(err)
	}
	if job == nil {
		// The platform answers the runner queue's value; the reference never
		// short-cuts on it, so a fresh value each time asks the runner to
		// come back and look.
		c.W.Header().Set("X-GitLab-Last-Update", store.NewSecret(""))
		return c.NoContent()
	}
	return c.JSON(http.StatusCreated, job)
}

// runnerJob authenticates the job of :id by its token, the `token`
// parameter or the JOB-TOKEN header (authenticate_job!): an unknown job, a
// wrong token or a deleted project is 403; a job no longer running is 403
// "Job is not processing on runner" with the job's status in Job-Status,
// which is how a runner learns that its job was canceled.
func (c *Ctx) runnerJob(d *store.Data) (*store.Job, error) {
	id, err := strconv.Atoi(c.R.PathValue("id"))
	if err != nil {
		return nil, forbidden()
	}
	token := c.In().StringOr("token", "")
	if token == "" {
		token = c.R.Header.Get("JOB-TOKEN")
	}
	j := d.Job(id)
	if j == nil || j.Bridge || j.TokenSecret == "" || token != j.TokenSecret {
		return nil, forbidden()
	}
	if j.Status != "running" {
		e := forbiddenMsg("Job is not processing on runner")
		e.Header = http.Header{"Job-Status": {j.Status}}
		return nil, e
	}
	return j, nil
}

// traceUpdateInterval is the platform's Gitlab::Ci::Trace#update_interval
// when nobody watches the log: 60 seconds (UPDATE_FREQUENCY_DEFAULT).
const traceUpdateInterval = "60"

// updateJob implements PUT /jobs/:id: the runner reports the job's state
// (Ci::UpdateBuildStateService): running keeps it running, success and failed
// end it (failed with failure_reason, unknown_failure when absent or not one
// the platform knows, and exit_code), anything else is 400. The answer is
// the status code as text with the job's status in Job-Status. A `trace`
// parameter (the platform's old protocol, before PATCH /jobs/:id/trace)
// still replaces the log.
func (s *Server) updateJob(c *Ctx) error {
	in := c.In()
	state := in.StringOr("state", "")
	trace := in.String("trace")
	reason := in.StringOr("failure_reason", "")
	exit := in.Int("exit_code")
	if err := in.Err(); err != nil {
		return err
	}
	if !contains(ci.FailureReasons, reason) {
		reason = "unknown_failure"
	}
	status, jobStatus := http.StatusOK, ""
	err := s.store.Write(func(d *store.Data) error {
		j, err := c.runnerJob(d)
		if err != nil {
			return err
		}
		if trace != nil {
			d.Touch(j)
			j.Trace = *trace
		}
		switch state {
		case "running":
		case "success", "failed":
			if exit != nil {
				d.SetExitCode(j, *exit)
			}
			d.FinishJob(j, state, "", reason)
		default:
			status = http.StatusBadRequest
		}
		jobStatus = j.Status
		return nil
	})
	if err != nil {
		return err
	}
	c.W.Header().Set("Job-Status", jobStatus)
	return textStatus(c, status)
}

// appendTrace implements PATCH /jobs/:id/trace: the runner sends the next
// part of the log with Content-Range "start-end" (Ci::AppendBuildTraceService):
// a part that starts where the log ends is appended (202 with Range "0-size",
// Job-Status and X-GitLab-Trace-Update-Interval); any other start is 416
// with the log's Range, so the runner resends from there; no Content-Range
// is 400.
func (s *Server) appendTrace(c *Ctx) error {
	if err := c.In().Err(); err != nil {
		return err
	}
	body := c.Body
	var size int
	var jobStatus string
	err := s.store.Write(func(d *store.Data) error {
		j, err := c.runnerJob(d)
		if err != nil {
			return err
		}
		rng, ok := c.R.Header["Content-Range"]
		if !ok {
			return errorf(http.StatusBadRequest, "400 Missing header Content-Range")
		}
		// Ruby's to_i of the part before '-': digits from the start, else 0
		// (the platform reads only the start; the runner's end is start+len-1).
		start, _ := strconv.Atoi(leadingDigits(strings.SplitN(strings.Join(rng, ","), "-", 2)[0]))
		n, appended := d.AppendTrace(j, start, body)
		size, jobStatus = n, j.Status
		if !appended {
			e := errorf(http.StatusRequestedRangeNotSatisfiable, "416 Range Not Satisfiable")
			e.Header = http.Header{"Range": {"0-" + strconv.Itoa(n)}}
			return e
		}
		return nil
	})
	if err != nil {
		return err
	}
	h := c.W.Header()
	h.Set("Job-Status", jobStatus)
	h.Set("Range", "0-"+strconv.Itoa(size))
	h.Set("X-GitLab-Trace-Update-Interval", traceUpdateInterval)
	c.W.WriteHeader(http.StatusAccepted)
	return nil
}

func leadingDigits(s string) string {
	s = strings.TrimSpace(s)
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return s[:i]
}

// textStatus answers the status code as the body, as the runner API's
// `body result.status.to_s` does.
func textStatus(c *Ctx, status int) error {
	body := strconv.Itoa(status)
	c.W.Header().Set("Content-Type", "text/plain")
	c.W.Header().Set("Content-Length", strconv.Itoa(len(body)))
	c.W.WriteHeader(status)
	_, _ = c.W.Write([]byte(body))
	return nil
}

func clientIP(r *http.Request) string {
	host := r.RemoteAddr
	if i := strings.LastIndexByte(host, ':'); i > 0 {
		host = host[:i]
	}
	return strings.Trim(host, "[]")
}
