package api

import (
	"net/http"
	"strings"

	"github.com/v4cert/v4cert/reference/access"
	"github.com/v4cert/v4cert/reference/store"
)

// RunnerJSON is the list form of a runner (Resources, Runner). active and
// ip_address are the deprecated fields: the negation of paused, and empty.
type RunnerJSON struct {
	ID          int     `json:"id"`
	Description string  `json:"description"`
	Paused      bool    `json:"paused"`
	Active      bool    `json:"active"`
	IPAddress   string  `json:"ip_address"`
	IsShared    bool    `json:"is_shared"`
	RunnerType  string  `json:"runner_type"`
	Name        *string `json:"name"`
	Online      bool    `json:"online"`
	Status      string  `json:"status"`
}

// RunnerProjectJSON is one project of a runner's detail.
type RunnerProjectJSON struct {
	ID                int    `json:"id"`
	Name              string `json:"name"`
	NameWithNamespace string `json:"name_with_namespace"`
	Path              string `json:"path"`
	PathWithNamespace string `json:"path_with_namespace"`
}

// RunnerDetailJSON is the detail form; the four machine fields are the
// deprecated empty strings, and the token is never shown.
type RunnerDetailJSON struct {
	RunnerJSON
	Architecture    string              `json:"architecture"`
	Platform        string              `json:"platform"`
	Revision        string              `json:"revision"`
	Version         string              `json:"version"`
	ContactedAt     *string             `json:"contacted_at"`
	MaintenanceNote *string             `json:"maintenance_note"`
	Projects        []RunnerProjectJSON `json:"projects"`
	TagList         []string            `json:"tag_list"`
	RunUntagged     bool                `json:"run_untagged"`
	Locked          bool                `json:"locked"`
	AccessLevel     string              `json:"access_level"`
	MaximumTimeout  *int                `json:"maximum_timeout"`
}

// RunnerManagerJSON is the Runner manager resource.
type RunnerManagerJSON struct {
	ID           int     `json:"id"`
	SystemID     string  `json:"system_id"`
	Version      string  `json:"version"`
	Revision     string  `json:"revision"`
	Platform     string  `json:"platform"`
	Architecture string  `json:"architecture"`
	CreatedAt    string  `json:"created_at"`
	ContactedAt  *string `json:"contacted_at"`
	IPAddress    string  `json:"ip_address"`
	Status       string  `json:"status"`
}

// RunnerJobProjectJSON is the project of a runner-job entry.
type RunnerJobProjectJSON struct {
	ID                int     `json:"id"`
	Description       *string `json:"description"`
	Name              string  `json:"name"`
	NameWithNamespace string  `json:"name_with_namespace"`
	Path              string  `json:"path"`
	PathWithNamespace string  `json:"path_with_namespace"`
	CreatedAt         string  `json:"created_at"`
}

// RunnerJobPipelineJSON is the pipeline of a runner-job entry.
type RunnerJobPipelineJSON struct {
	ID     int    `json:"id"`
	SHA    string `json:"sha"`
	Ref    string `json:"ref"`
	Status string `json:"status"`
}

// RunnerJobJSON is the Runner-job listing entry.
type RunnerJobJSON struct {
	ID             int                   `json:"id"`
	Status         string                `json:"status"`
	Stage          string                `json:"stage"`
	Name           string                `json:"name"`
	Ref            string                `json:"ref"`
	Tag            bool                  `json:"tag"`
	Coverage       *float64              `json:"coverage"`
	CreatedAt      *string               `json:"created_at"`
	StartedAt      *string               `json:"started_at"`
	FinishedAt     *string               `json:"finished_at"`
	Duration       *float64              `json:"duration"`
	QueuedDuration *float64              `json:"queued_duration"`
	User           *JobUser              `json:"user"`
	Commit         JobCommitJSON         `json:"commit"`
	Pipeline       RunnerJobPipelineJSON `json:"pipeline"`
	Project        RunnerJobProjectJSON  `json:"project"`
}

func (v *view) runnerJSON(r *store.Runner) RunnerJSON {
	st := v.d.RunnerStatus(r)
	return RunnerJSON{ID: r.ID, Description: r.Description, Paused: r.Paused, Active: !r.Paused,
		IsShared: r.Type == store.InstanceRunner, RunnerType: r.Type, Online: st == "online", Status: st}
}

func (v *view) runnerDetail(r *store.Runner) RunnerDetailJSON {
	out := RunnerDetailJSON{RunnerJSON: v.runnerJSON(r), ContactedAt: tsPtr(r.ContactedAt),
		MaintenanceNote: strOrNil(r.MaintenanceNote), Projects: []RunnerProjectJSON{}, TagList: r.TagList,
		RunUntagged: r.RunUntagged, Locked: r.Locked, AccessLevel: r.AccessLevel, MaximumTimeout: r.MaximumTimeout}
	if out.TagList == nil {
		out.TagList = []string{}
	}
	for _, p := range v.d.RunnerProjects(r) {
		out.Projects = append(out.Projects, RunnerProjectJSON{ID: p.ID, Name: p.Name, NameWithNamespace: v.d.ProjectFullName(p),
			Path: p.Path, PathWithNamespace: v.d.ProjectFullPath(p)})
	}
	return out
}

func (v *view) runnerManagerJSON(m *store.RunnerManager) RunnerManagerJSON {
	st := "online"
	if age := v.d.Now().Sub(m.ContactedAt); age > 7*24*3600e9 {
		st = "stale"
	} else if age > 2*3600e9 {
		st = "offline"
	}
	contacted := ts(m.ContactedAt)
	return RunnerManagerJSON{ID: m.ID, SystemID: m.SystemID, Version: m.Version, Revision: m.Revision, Platform: m.Platform,
		Architecture: m.Arch, CreatedAt: ts(m.CreatedAt), ContactedAt: &contacted, IPAddress: m.IPAddress, Status: st}
}

func (v *view) runnerJobJSON(j *store.Job) RunnerJobJSON {
	pl := v.d.Pipeline(j.ProjectID, j.PipelineID)
	p := v.d.Project(j.ProjectID)
	jc := v.jobCore(j, pl)
	return RunnerJobJSON{ID: j.ID, Status: j.Status, Stage: j.Stage, Name: j.Name, Ref: jc.Ref, Tag: jc.Tag,
		CreatedAt: jc.CreatedAt, StartedAt: jc.StartedAt, FinishedAt: jc.FinishedAt, Duration: jc.Duration,
		QueuedDuration: jc.QueuedDuration, User: jc.User, Commit: jc.Commit,
		Pipeline: RunnerJobPipelineJSON{ID: pl.ID, SHA: pl.SHA, Ref: pl.Ref, Status: pl.Status},
		Project: RunnerJobProjectJSON{ID: p.ID, Description: strOrNil(p.Description), Name: p.Name,
			NameWithNamespace: v.d.ProjectFullName(p), Path: p.Path, PathWithNamespace: v.d.ProjectFullPath(p),
			CreatedAt: ts(p.CreatedAt)}}
}

// runnerFilter is the filters the runner lists share (Endpoints, Runners).
type runnerFilter struct {
	scope, typ, status *string
	paused             *bool
	tags               []string
	versionPrefix      *string
}

// runnerTypes are the runner types, also deprecated scope values of GET /runners/all.
var runnerTypes = []string{store.InstanceRunner, store.GroupRunner, store.ProjectRunner}

// readRunnerFilter reads the shared filters; scopes are the deprecated
// status values, and on /runners/all also the runner types.
func (c *Ctx) readRunnerFilter(scopes []string) (*runnerFilter, error) {
	in := c.In()
	f := &runnerFilter{scope: in.Enum("scope", scopes...), typ: in.String("type"),
		status: in.String("status"), paused: in.Bool("paused"), tags: in.Strings("tag_list"),
		versionPrefix: in.String("version_prefix")}
	if err := in.Err(); err != nil {
		return nil, err
	}
	return f, nil
}

func runnerHasStatus(d *store.Data, r *store.Runner, want string) bool {
	st := d.RunnerStatus(r)
	switch want {
	case "active":
		return !r.Paused
	case "paused":
		return r.Paused
	case "offline":
		return st == "offline" || st == "stale"
	case store.InstanceRunner, store.GroupRunner, store.ProjectRunner:
		return r.Type == want
	}
	return st == want
}

func (f *runnerFilter) keep(d *store.Data, r *store.Runner) bool {
	if f.scope != nil && !runnerHasStatus(d, r, *f.scope) {
		return false
	}
	if f.typ != nil && r.Type != *f.typ {
		return false
	}
	if f.status != nil && !runnerHasStatus(d, r, *f.status) {
		return false
	}
	if f.paused != nil && r.Paused != *f.paused {
		return false
	}
	for _, t := range f.tags {
		if !store.HasTag(r.TagList, t) {
			return false
		}
	}
	if f.versionPrefix != nil {
		found := false
		for _, m := range d.RunnerManagers(r.ID) {
			if strings.HasPrefix(m.Version, *f.versionPrefix) {
				found = true
			}
		}
		if !found {
			return false
		}
	}
	return true
}

func (s *Server) runnerList(c *Ctx, scopes []string, pick func(d *store.Data) ([]*store.Runner, error)) error {
	f, err := c.readRunnerFilter(scopes)
	if err != nil {
		return err
	}
	return s.readPage(c, func(d *store.Data) (*Page, error) {
		all, err := pick(d)
		if err != nil {
			return nil, err
		}
		var out []*store.Runner
		for _, r := range all {
			if f.keep(d, r) {
				out = append(out, r)
			}
		}
		return Paginate(c, out, nil, c.view(d).runnerJSON)
	})
}

// ownsRunner reports whether u owns r by membership: Owner of its group or
// of one of its projects (Authentication 7, runners list).
func ownsRunner(d *store.Data, u *store.User, r *store.Runner) bool {
	switch r.Type {
	case store.GroupRunner:
		return d.GroupAccess(u, d.Group(r.GroupID)) >= access.Owner
	case store.ProjectRunner:
		for _, p := range d.RunnerProjects(r) {
			if d.ProjectAccess(u, p) >= access.Owner {
				return true
			}
		}
	}
	return false
}

// listRunners implements GET /runners (rules runners.list.*): the runners
// the caller owns as Owner of their group or project; instance runners
// only for administrators.
func (s *Server) listRunners(c *Ctx) error {
	return s.runnerList(c, []string{"active", "paused", "online", "offline"}, func(d *store.Data) ([]*store.Runner, error) {
		var out []*store.Runner
		for _, r := range d.Runners() {
			if (r.Type == store.InstanceRunner && c.Admin()) || ownsRunner(d, c.Caller, r) {
				out = append(out, r)
			}
		}
		return out, nil
	})
}

// listAllRunners implements GET /runners/all (rules runners.all.*): administrators only.
func (s *Server) listAllRunners(c *Ctx) error {
	scopes := append([]string{"active", "paused", "online", "offline"}, runnerTypes...)
	return s.runnerList(c, scopes, func(d *store.Data) ([]*store.Runner, error) { return d.Runners(), nil })
}

// runnerRole is the caller's best role over a runner: in its group, or in
// any of its projects; administrators rank above all.
func (c *Ctx) runnerRole(d *store.Data, r *store.Runner) access.Level {
	if c.Admin() {
		return access.Admin
	}
	best := access.None
	switch r.Type {
	case store.GroupRunner:
		best = d.GroupAccess(c.Caller, d.Group(r.GroupID))
	case store.ProjectRunner:
		for _, p := range d.RunnerProjects(r) {
			best = max(best, d.ProjectAccess(c.Caller, p))
		}
	}
	return best
}

// runnerOf resolves :id for reading: unknown runners are not found;
// instance runners are visible to every signed-in user, others need
// Developer in the runner's group or project (Endpoints, Runners).
func (c *Ctx) runnerOf(d *store.Data) (*store.Runner, error) {
	id, err := c.PathInt("id", "Runner")
	if err != nil {
		return nil, err
	}
	r := d.Runner(id)
	if r == nil {
		return nil, notFound("Runner")
	}
	if r.Type == store.InstanceRunner || c.runnerRole(d, r) >= access.Developer {
		return r, nil
	}
	return nil, forbiddenMsg("No access granted")
}

// getRunner implements GET /runners/:id (rules runners.get.*).
func (s *Server) getRunner(c *Ctx) error {
	var out RunnerDetailJSON
	err := s.store.Read(func(d *store.Data) error {
		r, err := c.runnerOf(d)
		if err != nil {
			return err
		}
		out = c.view(d).runnerDetail(r)
		return nil
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, out)
}

// updateRunner implements PUT /runners/:id (rules runners.update.*):
// administrators update instance runners, Owners group runners,
// Maintainers project runners (Authentication 7).
func (s *Server) updateRunner(c *Ctx) error {
	in := c.In()
	desc, active, paused := in.String("description"), in.Bool("active"), in.Bool("paused")
	tags, tagsGiven := in.Strings("tag_list"), c.P.Has("tag_list")
	untagged, locked := in.Bool("run_untagged"), in.Bool("locked")
	level := in.String("access_level")
	timeout := in.Int("maximum_timeout")
	note := in.String("maintenance_note")
	if err := in.Err(); err != nil {
		return err
	}
	al := "not_protected"
	if level != nil {
		al = *level
	}
	n := ""
	if note != nil {
		n = *note
	}
	if err := checkRunnerFields(al, n, timeout); err != nil {
		return err
	}
	var out RunnerDetailJSON
	err := s.store.Write(func(d *store.Data) error {
		id, err := c.PathInt("id", "Runner")
		if err != nil {
			return err
		}
		r := d.Runner(id)
		if r == nil {
			return notFound("Runner")
		}
		need := map[string]access.Level{store.InstanceRunner: access.Admin, store.GroupRunner: access.Owner,
			store.ProjectRunner: access.Maintainer}[r.Type]
		if c.runnerRole(d, r) < need {
			return forbidden()
		}
		d.Touch(r)
		if desc != nil {
			r.Description = *desc
		}
		if active != nil {
			r.Paused = !*active
		}
		if paused != nil {
			r.Paused = *paused
		}
		if tagsGiven {
			r.TagList = append([]string{}, tags...)
		}
		if untagged != nil {
			r.RunUntagged = *untagged
		}
		if locked != nil {
			r.Locked = *locked
		}
		if level != nil {
			r.AccessLevel = *level
		}
		if timeout != nil {
			t := *timeout
			r.MaximumTimeout = &t
		}
		if note != nil {
			r.MaintenanceNote = *note
		}
		out = c.view(d).runnerDetail(r)
		return nil
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, out)
}

// listRunnerJobs implements GET /runners/:id/jobs (rules runners.jobs.*):
// only jobs of projects where the caller is Reporter or above.
func (s *Server) listRunnerJobs(c *Ctx) error {
	in := c.In()
	systemID := in.String("system_id")
	status := in.String("status")
	orderBy := in.String("order_by")
	sortDir := in.String("sort")
	if err := in.Err(); err != nil {
		return err
	}
	if sortDir != nil && orderBy == nil {
		return missing("order_by")
	}
	return s.readPage(c, func(d *store.Data) (*Page, error) {
		r, err := c.runnerOf(d)
		if err != nil {
			return nil, err
		}
		var out []*store.Job
		for _, j := range d.RunnerJobs(r.ID) {
			p := d.Project(j.ProjectID)
			if c.projectRole(d, p) < access.Reporter {
				continue
			}
			if status != nil && j.Status != *status {
				continue
			}
			if systemID != nil {
				m := d.RunnerManager(r.ID, j.ManagerID)
				if m == nil || m.SystemID != *systemID {
					continue
				}
			}
			out = append(out, j)
		}
		if sortDir == nil || *sortDir == "desc" {
			out = newestFirst(out)
		}
		return Paginate(c, out, nil, c.view(d).runnerJobJSON)
	})
}

// listRunnerManagers implements GET /runners/:id/managers (rules runners.managers.*).
func (s *Server) listRunnerManagers(c *Ctx) error {
	var out []RunnerManagerJSON
	err := s.store.Read(func(d *store.Data) error {
		r, err := c.runnerOf(d)
		if err != nil {
			return err
		}
		v := c.view(d)
		for _, m := range d.RunnerManagers(r.ID) {
			out = append(out, v.runnerManagerJSON(m))
		}
		return nil
	})
	if err != nil {
		return err
	}
	// Paginated like every list (Endpoints convention 8).
	page, err := Paginate(c, out, nil, func(m RunnerManagerJSON) RunnerManagerJSON { return m })
	if err != nil {
		return err
	}
	return c.JSONPage(page)
}

// listProjectRunners implements GET /projects/:id/runners (rules
// runners.project.*): the project's runners, those of its groups, and the
// instance runners when the project allows them; Maintainer or administrator.
func (s *Server) listProjectRunners(c *Ctx) error {
	return s.runnerList(c, []string{"active", "paused", "online", "offline"}, func(d *store.Data) ([]*store.Runner, error) {
		p, err := c.projectOf(d, "id")
		if err != nil {
			return nil, err
		}
		if err := c.requireProjectRole(d, p, access.Maintainer); err != nil {
			return nil, err
		}
		var out []*store.Runner
		for _, r := range d.Runners() {
			if d.RunnerServes(r, p) {
				out = append(out, r)
			}
		}
		return out, nil
	})
}

// listGroupRunners implements GET /groups/:id/runners (rules
// runners.group.*): the runners of the group and its ancestors plus the
// instance runners; Owner or administrator (Authentication 7).
func (s *Server) listGroupRunners(c *Ctx) error {
	return s.runnerList(c, []string{"active", "paused", "online", "offline"}, func(d *store.Data) ([]*store.Runner, error) {
		g, err := c.groupOf(d, "id")
		if err != nil {
			return nil, err
		}
		if err := c.requireGroupRole(d, g, access.Owner); err != nil {
			return nil, err
		}
		ids := map[int]bool{g.ID: true}
		for _, a := range d.Ancestors(g) {
			ids[a.ID] = true
		}
		var out []*store.Runner
		for _, r := range d.Runners() {
			if r.Type == store.InstanceRunner || (r.Type == store.GroupRunner && ids[r.GroupID]) {
				out = append(out, r)
			}
		}
		return out, nil
	})
}

// deleteRunner implements the platform's DELETE /runners/:id
// (provisioning), with the roles of runner update.
func (s *Server) deleteRunner(c *Ctx) error {
	err := s.store.Write(func(d *store.Data) error {
		id, err := c.PathInt("id", "Runner")
		if err != nil {
			return err
		}
		r := d.Runner(id)
		if r == nil {
			return notFound("Runner")
		}
		need := map[string]access.Level{store.InstanceRunner: access.Admin, store.GroupRunner: access.Owner,
			store.ProjectRunner: access.Maintainer}[r.Type]
		if c.runnerRole(d, r) < need {
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
