package suites

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// CI fixtures. Jobs come from a pipeline of the repository's .gitlab-ci.yml
// (POST /projects/:id/pipeline) and move when a runner takes them
// (POST /jobs/request) and reports a result (PUT /jobs/:id): the platform's
// own provisioning, so these specs also run against it. Runners that could
// serve other specs' projects (instance runners) are always made with a
// unique tag and run_untagged=false, so they never take another spec's job.

// ciBasic has a first stage of one job, then a stage with a job that may
// not fail, one that may, and a manual one.
const ciBasic = `stages: [build, test]
compile:
  stage: build
  script: make
unit:
  stage: test
  script: make test
lint:
  stage: test
  script: make lint
  allow_failure: true
deploy:
  stage: test
  script: ./deploy
  when: manual
`

// ciSingle is one job in one stage.
const ciSingle = `only:
  stage: test
  script: echo hello
`

// NewCIProject creates a project whose default branch holds files (at
// least .gitlab-ci.yml), owned by by.
func NewCIProject(ctx context.Context, by *Client, files map[string]string, opts ...ProjectOpts) *RepoProject {
	GinkgoHelper()
	p := NewRepoProject(ctx, by, opts...)
	p.Put(ctx, p.DefaultBranch, files)
	return p
}

// RunPipeline runs the CI configuration of p's default branch as by and
// returns the pipeline id.
func RunPipeline(ctx context.Context, by *Client, p *RepoProject) int {
	GinkgoHelper()
	return int(runPipeline(ctx, by, p).Get("id").Int())
}

// runPipeline is RunPipeline answering the pipeline as created.
func runPipeline(ctx context.Context, by *Client, p *RepoProject) *Response {
	GinkgoHelper()
	r := by.Post(ctx, fmt.Sprintf("/projects/%d/pipeline", p.ID), Body(map[string]any{"ref": p.DefaultBranch}))
	ExpectFixture(r).To(HaveStatus(http.StatusCreated), "creating a fixture pipeline")
	return r
}

// CIRunner is a registered runner and its token.
type CIRunner struct {
	ID    int
	Token string
}

// NewRunner registers a runner as by (POST /user/runners) and deletes it
// when the spec ends.
func NewRunner(ctx context.Context, by *Client, body map[string]any) *CIRunner {
	GinkgoHelper()
	r := by.Post(ctx, "/user/runners", Body(body))
	ExpectFixture(r).To(HaveStatus(http.StatusCreated), "registering a fixture runner")
	rn := &CIRunner{ID: int(r.Get("id").Int()), Token: r.Get("token").String()}
	DeferCleanup(func(ctx SpecContext) {
		api.Delete(ctx, fmt.Sprintf("/runners/%d", rn.ID), Unchecked())
	})
	return rn
}

// NewProjectRunner registers a project runner of p that runs untagged jobs.
func NewProjectRunner(ctx context.Context, p *Project, extra ...map[string]any) *CIRunner {
	GinkgoHelper()
	body := map[string]any{"runner_type": "project_type", "project_id": p.ID, "description": Unique("runner")}
	for _, e := range extra {
		for k, v := range e {
			body[k] = v
		}
	}
	return NewRunner(ctx, api, body)
}

// NewInstanceRunner registers an instance runner that takes no job of any
// spec (a unique tag, no untagged jobs).
func NewInstanceRunner(ctx context.Context, extra ...map[string]any) *CIRunner {
	GinkgoHelper()
	body := map[string]any{"runner_type": "instance_type", "description": Unique("runner"),
		"tag_list": []string{Unique("tag")}, "run_untagged": false}
	for _, e := range extra {
		for k, v := range e {
			body[k] = v
		}
	}
	return NewRunner(ctx, api, body)
}

// TakenJob is a job a runner took, with its job token and the answer that
// started it.
type TakenJob struct {
	ID      int
	Token   string
	Started *Response
}

// RequestJob asks for a job as the runner from machine systemID; the answer
// is 201 with a job or 204 with none.
func (rn *CIRunner) RequestJob(ctx context.Context, systemID string) *Response {
	GinkgoHelper()
	return api.Anonymous().Post(ctx, "/jobs/request", Body(map[string]any{"token": rn.Token, "system_id": systemID,
		"info": map[string]any{"version": "17.5.1", "revision": "abc123", "platform": "linux", "architecture": "amd64"}}))
}

// Take asks for a job and expects one.
func (rn *CIRunner) Take(ctx context.Context, systemID string) *TakenJob {
	GinkgoHelper()
	r := rn.RequestJob(ctx, systemID)
	Expect(r).To(HaveStatus(http.StatusCreated), "the runner should get a job")
	return &TakenJob{ID: int(r.Get("id").Int()), Token: r.Get("token").String(), Started: r}
}

// Finish reports the job's log and end state as its runner does: the log
// with PATCH /jobs/:id/trace (Content-Range, the job's token in JOB-TOKEN),
// then PUT /jobs/:id with the state, and for a failure the reason a runner
// sends for a failing script (gitlab-org/gitlab-runner network/gitlab.go
// PatchTrace and UpdateJob). It returns the answer that ended the job.
func (j *TakenJob) Finish(ctx context.Context, state, trace string) *Response {
	GinkgoHelper()
	if trace != "" {
		r := api.Anonymous().Patch(ctx, fmt.Sprintf("/jobs/%d/trace", j.ID), RawBody("text/plain", []byte(trace)),
			Header("JOB-TOKEN", j.Token), Header("Content-Range", fmt.Sprintf("0-%d", len(trace)-1)))
		Expect(r).To(HaveStatus(http.StatusAccepted))
	}
	body := map[string]any{"token": j.Token, "state": state}
	if state == "failed" {
		body["failure_reason"] = "script_failure"
	}
	r := api.Anonymous().Put(ctx, fmt.Sprintf("/jobs/%d", j.ID), Body(body), Header("JOB-TOKEN", j.Token))
	Expect(r).To(HaveStatus(http.StatusOK))
	return r
}

func jobsPath(p *RepoProject) string { return fmt.Sprintf("/projects/%d/jobs", p.ID) }

func jobPath(p *RepoProject, id int) string { return fmt.Sprintf("%s/%d", jobsPath(p), id) }

func pipelineJobsPath(p *RepoProject, pl int, what string) string {
	return fmt.Sprintf("/projects/%d/pipelines/%d/%s", p.ID, pl, what)
}

// jobIDs returns the ids of the named jobs in a listing.
func jobByName(r *Response, name string) int {
	GinkgoHelper()
	for _, j := range r.JSON().Array() {
		if j.Get("name").String() == name {
			return int(j.Get("id").Int())
		}
	}
	Fail(fmt.Sprintf("no job %q in %s", name, r))
	return 0
}

func statusesByName(r *Response) map[string]string {
	out := map[string]string{}
	for _, j := range r.JSON().Array() {
		out[j.Get("name").String()] = j.Get("status").String()
	}
	return out
}

// basicWorld is a project with ciBasic run once, and a project runner.
type basicWorld struct {
	P        *RepoProject
	Pipeline int
	Created  *Response // the answer that created the pipeline and its jobs
	Runner   *CIRunner
}

func newBasicWorld(ctx context.Context, by *Client, opts ...ProjectOpts) *basicWorld {
	GinkgoHelper()
	p := NewCIProject(ctx, by, map[string]string{".gitlab-ci.yml": ciBasic}, opts...)
	created := runPipeline(ctx, api, p)
	return &basicWorld{P: p, Pipeline: int(created.Get("id").Int()), Created: created, Runner: NewProjectRunner(ctx, p.Project)}
}

var _ = Describe("GET /projects/:id/jobs", Label("area:jobs", "endpoint:jobs.list"), func() {
	It("lists the project's jobs, IDs descending, of every status", Label("rule:jobs.list.1"), func(ctx SpecContext) {
		w := newBasicWorld(ctx, api)
		other := NewCIProject(ctx, api, map[string]string{".gitlab-ci.yml": ciSingle})
		RunPipeline(ctx, api, other)
		r := api.Get(ctx, jobsPath(w.P))
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(r).To(MatchSchema("job", true))
		Expect(r.IDs()).To(HaveLen(4))
		Expect(r.IDs()).To(Equal(sortedDesc(r.IDs())))
		Expect(statusesByName(r)).To(Equal(map[string]string{"compile": "pending", "unit": "created", "lint": "created", "deploy": "created"}))
		for _, j := range r.JSON().Array() {
			Expect(j.Get("pipeline.id").Int()).To(BeEquivalentTo(w.Pipeline))
		}
	})

	It("filters by one scope or an array of scopes", Label("rule:jobs.list.2"), func(ctx SpecContext) {
		w := newBasicWorld(ctx, api)
		w.Runner.Take(ctx, "s1").Finish(ctx, "success", "ok")
		r := api.Get(ctx, jobsPath(w.P), Q("scope", "pending"))
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(r.Strings("name")).To(ConsistOf("unit", "lint"))
		r = api.Get(ctx, jobsPath(w.P), RawQ("scope[]=success&scope[]=manual"))
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(r.Strings("name")).To(Equal([]string{"deploy", "compile"}))
		r = api.Get(ctx, jobsPath(w.P), Q("scope", "failed"))
		Expect(r.Body).To(MatchJSON(`[]`))
	})

	It("refuses an unknown scope with 400", Label("rule:jobs.list.3"), func(ctx SpecContext) {
		w := newBasicWorld(ctx, api)
		Expect(api.Get(ctx, jobsPath(w.P), Q("scope", "finished"))).To(HaveStatus(http.StatusBadRequest))
		Expect(api.Get(ctx, jobsPath(w.P), RawQ("scope[]=pending&scope[]=bogus"))).To(HaveStatus(http.StatusBadRequest))
	})

	It("pages by id descending with keyset pagination", Label("rule:jobs.list.4"), func(ctx SpecContext) {
		w := newBasicWorld(ctx, api)
		all := api.Get(ctx, jobsPath(w.P)).IDs()
		r := api.Get(ctx, jobsPath(w.P), Q("pagination", "keyset"), Q("order_by", "id"), Q("sort", "desc"), Q("per_page", 3))
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(r.IDs()).To(Equal(all[:3]))
		next := linkRel(r, "next")
		Expect(next).NotTo(BeEmpty(), "a full keyset page links to the next one")
		r = api.Get(ctx, "!"+stripBase(next))
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(r.IDs()).To(Equal(all[3:]))
		if next = linkRel(r, "next"); next != "" {
			r = api.Get(ctx, "!"+stripBase(next))
			Expect(r.Body).To(MatchJSON(`[]`))
			Expect(linkRel(r, "next")).To(BeEmpty())
		}
	})

	It("uses offset pagination otherwise", Label("rule:jobs.list.5"), func(ctx SpecContext) {
		w := newBasicWorld(ctx, api)
		all := api.Get(ctx, jobsPath(w.P)).IDs()
		r := api.Get(ctx, jobsPath(w.P), Q("per_page", 3), Q("page", 2))
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(r.IDs()).To(Equal(all[3:]))
		Expect(r).To(HaveHeader("X-Page", "2"))
		Expect(r).To(HaveHeader("X-Per-Page", "3"))
		Expect(r).To(HaveHeader("X-Prev-Page", "1"))
		// Without counts on the platform (listFixtures' Uncounted).
		if !countsOmitted(r) {
			Expect(r).To(HaveHeader("X-Total", "4"))
		}
	})

	It("hides private jobs from outsiders and needs Reporter", Label("rule:jobs.access.1"), func(ctx SpecContext) {
		rw := NewRoleWorld(ctx, "private")
		p := NewCIProject(ctx, rw.Owner.Client, map[string]string{".gitlab-ci.yml": ciSingle}, ProjectOpts{"namespace_id": rw.Group.ID})
		RunPipeline(ctx, api, p)
		// The platform authenticates the jobs resource first: 401 to anonymous
		// callers (rulebook, jobs.access.1); the spec admits 401 or 404.
		Expect(api.Anonymous().Get(ctx, jobsPath(p))).To(HaveStatus(http.StatusUnauthorized, http.StatusNotFound))
		Expect(rw.Outsider.Get(ctx, jobsPath(p))).To(HaveStatus(http.StatusNotFound))
		Expect(rw.Members[GuestLevel].Get(ctx, jobsPath(p))).To(HaveStatus(http.StatusForbidden))
		for _, lv := range []int{ReporterLevel, DeveloperLevel, MaintainerLevel, OwnerLevel} {
			r := rw.Members[lv].Get(ctx, jobsPath(p))
			Expect(r).To(HaveStatus(http.StatusOK), "level %d", lv)
			Expect(r.IDs()).To(HaveLen(1))
		}
		pub := NewCIProject(ctx, api, map[string]string{".gitlab-ci.yml": ciSingle}, ProjectOpts{"visibility": "public"})
		RunPipeline(ctx, api, pub)
		r := rw.Outsider.Get(ctx, jobsPath(pub))
		Expect(r).To(HaveStatus(http.StatusOK), "a signed-in caller who sees the public project")
		Expect(r.IDs()).To(HaveLen(1))
		// Anonymous callers read them, or are asked to sign in as on the platform.
		r = api.Anonymous().Get(ctx, jobsPath(pub))
		Expect(r).To(HaveStatus(http.StatusOK, http.StatusUnauthorized))
		if r.Status == http.StatusOK {
			Expect(r.IDs()).To(HaveLen(1))
		}
	})
})

var _ = Describe("GET /projects/:id/jobs/:job_id", Label("area:jobs", "endpoint:jobs.get"), func() {
	It("answers one job, 404 for unknown or another project's job", Label("rule:jobs.get.1"), func(ctx SpecContext) {
		w := newBasicWorld(ctx, api)
		other := NewCIProject(ctx, api, map[string]string{".gitlab-ci.yml": ciSingle})
		RunPipeline(ctx, api, other)
		otherJob := api.Get(ctx, jobsPath(other)).IDs()[0]
		id := jobByName(api.Get(ctx, jobsPath(w.P)), "compile")
		r := api.Get(ctx, jobPath(w.P, id))
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(r).To(MatchSchema("job", false))
		Expect(r.Get("id").Int()).To(BeEquivalentTo(id))
		Expect(r.Get("name").String()).To(Equal("compile"))
		Expect(api.Get(ctx, jobPath(w.P, otherJob))).To(HaveStatus(http.StatusNotFound))
		Expect(api.Get(ctx, jobPath(w.P, 999999999))).To(HaveStatus(http.StatusNotFound))
	})

	It("carries every job field; runner fields are null until a runner takes it", Label("rule:jobs.fields.1"), func(ctx SpecContext) {
		w := newBasicWorld(ctx, api)
		id := jobByName(api.Get(ctx, jobsPath(w.P)), "compile")
		r := api.Get(ctx, jobPath(w.P, id))
		Expect(r).To(HaveStatus(http.StatusOK))
		for _, f := range []string{"id", "name", "stage", "ref", "status", "tag", "archived", "allow_failure", "coverage",
			"created_at", "started_at", "finished_at", "erased_at", "artifacts_expire_at", "duration", "queued_duration",
			"tag_list", "web_url", "commit", "pipeline", "artifacts", "runner", "runner_manager", "project", "user",
			"commit.author_email", "commit.author_name", "commit.created_at", "commit.id", "commit.message", "commit.short_id",
			"commit.title", "pipeline.id", "pipeline.project_id", "pipeline.ref", "pipeline.sha", "pipeline.status",
			"project.ci_job_token_scope_enabled", "user.created_at", "user.bio", "user.location", "user.public_email",
			"user.skype", "user.linkedin", "user.twitter", "user.website_url", "user.organization"} {
			Expect(r.Get(f).Exists()).To(BeTrue(), "field %s missing in %s", f, r)
		}
		Expect(r.Get("stage").String()).To(Equal("build"))
		Expect(r.Get("ref").String()).To(Equal(w.P.DefaultBranch))
		Expect(r.Get("tag").Bool()).To(BeFalse())
		Expect(r.Get("pipeline.id").Int()).To(BeEquivalentTo(w.Pipeline))
		Expect(r.Get("commit.id").String()).To(Equal(r.Get("pipeline.sha").String()))
		Expect(r.Get("runner").Type.String()).To(Equal("Null"))
		Expect(r.Get("runner_manager").Type.String()).To(Equal("Null"))
		Expect(r.Get("started_at").Type.String()).To(Equal("Null"))
		expectOnClock("the job's created_at", r.Get("created_at").String(), w.Created)
	})

	It("shows the runner and manager that took the job, and durations", Label("rule:jobs.fields.2"), func(ctx SpecContext) {
		w := newBasicWorld(ctx, api)
		j := w.Runner.Take(ctx, "machine-a")
		r := api.Get(ctx, jobPath(w.P, j.ID))
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(r.Get("status").String()).To(Equal("running"))
		Expect(r.Get("runner.id").Int()).To(BeEquivalentTo(w.Runner.ID))
		Expect(r.Get("runner.runner_type").String()).To(Equal("project_type"))
		Expect(r.Get("runner.is_shared").Bool()).To(BeFalse())
		for _, f := range []string{"description", "ip_address", "active", "paused", "name", "online", "status"} {
			Expect(r.Get("runner."+f).Exists()).To(BeTrue(), "runner.%s missing", f)
		}
		Expect(r.Get("runner_manager.system_id").String()).To(Equal("machine-a"))
		for _, f := range []string{"id", "version", "revision", "platform", "architecture", "created_at", "contacted_at", "ip_address", "status"} {
			Expect(r.Get("runner_manager."+f).Exists()).To(BeTrue(), "runner_manager.%s missing", f)
		}
		Expect(r.Get("started_at").String()).NotTo(BeEmpty())
		expectOnClock("started_at", r.Get("started_at").String(), j.Started)
		expectOnClock("runner_manager.contacted_at", r.Get("runner_manager.contacted_at").String(), j.Started)
		finished := j.Finish(ctx, "success", "done")
		r = api.Get(ctx, jobPath(w.P, j.ID))
		Expect(r.Get("finished_at").String()).NotTo(BeEmpty())
		expectOnClock("finished_at", r.Get("finished_at").String(), finished)
		Expect(r.Get("duration").Type.String()).To(Equal("Number"))
	})

	It("moves through the status values only; failures say the runner's reason, unknown_failure without one", Label("rule:jobs.status.1"), func(ctx SpecContext) {
		w := newBasicWorld(ctx, api)
		valid := []string{"created", "pending", "running", "failed", "success", "canceled", "skipped", "waiting_for_resource", "manual"}
		check := func(want map[string]string) {
			GinkgoHelper()
			r := api.Get(ctx, jobsPath(w.P))
			for _, s := range r.Strings("status") {
				Expect(valid).To(ContainElement(s))
			}
			Expect(statusesByName(r)).To(Equal(want))
		}
		check(map[string]string{"compile": "pending", "unit": "created", "lint": "created", "deploy": "created"})
		c := w.Runner.Take(ctx, "s")
		check(map[string]string{"compile": "running", "unit": "created", "lint": "created", "deploy": "created"})
		c.Finish(ctx, "success", "")
		check(map[string]string{"compile": "success", "unit": "pending", "lint": "pending", "deploy": "manual"})
		u := w.Runner.Take(ctx, "s")
		u.Finish(ctx, "failed", "boom")
		r := api.Get(ctx, jobPath(w.P, u.ID))
		Expect(r.Get("status").String()).To(Equal("failed"))
		Expect(r.Get("failure_reason").String()).To(Equal("script_failure"))
		// The spec is silent on a failure reported without a reason: the
		// platform records unknown_failure
		// (gitlabhq/gitlabhq app/services/ci/update_build_state_service.rb @9834c4f7 passes
		// params[:failure_reason] to Ci::Build#drop_with_exit_code!, which
		// defaults it to :unknown_failure).
		l := w.Runner.Take(ctx, "s")
		Expect(api.Anonymous().Put(ctx, fmt.Sprintf("/jobs/%d", l.ID), Body(map[string]any{"token": l.Token, "state": "failed"}),
			Header("JOB-TOKEN", l.Token))).To(HaveStatus(http.StatusOK))
		r = api.Get(ctx, jobPath(w.P, l.ID))
		Expect(r.Get("status").String()).To(Equal("failed"))
		Expect(r.Get("failure_reason").String()).To(Equal("unknown_failure"))
	})
})

// privateJob is a finished job of a private project in a role world, with its log.
func privateJob(ctx context.Context) (*RoleWorld, *RepoProject, int, string) {
	GinkgoHelper()
	rw := NewRoleWorld(ctx, "private")
	p := NewCIProject(ctx, rw.Owner.Client, map[string]string{".gitlab-ci.yml": ciSingle}, ProjectOpts{"namespace_id": rw.Group.ID})
	RunPipeline(ctx, api, p)
	log := "$ echo hello\nhello\n"
	j := NewProjectRunner(ctx, p.Project).Take(ctx, "s")
	j.Finish(ctx, "success", log)
	return rw, p, j.ID, log
}

// expectJobAccess reads path as every caller of a role world: hidden from
// outsiders, refused to a Guest, readable from Reporter up.
func expectJobAccess(ctx context.Context, rw *RoleWorld, path string, readable func(*Response)) {
	GinkgoHelper()
	// 401 as on the platform, which authenticates the jobs resource first, or 404.
	Expect(api.Anonymous().Get(ctx, path)).To(HaveStatus(http.StatusUnauthorized, http.StatusNotFound), "anonymous")
	Expect(rw.Outsider.Get(ctx, path)).To(HaveStatus(http.StatusNotFound), "a signed-in non-member")
	Expect(rw.Members[GuestLevel].Get(ctx, path)).To(HaveStatus(http.StatusForbidden), "a Guest")
	for _, lv := range []int{ReporterLevel, DeveloperLevel, MaintainerLevel, OwnerLevel} {
		r := rw.Members[lv].Get(ctx, path)
		Expect(r).To(HaveStatus(http.StatusOK), "level %d", lv)
		readable(r)
	}
}

var _ = Describe("Single job access", Label("area:jobs", "endpoint:jobs.get"), func() {
	It("hides a private project's job from outsiders and needs Reporter", Label("rule:jobs.access.2"), func(ctx SpecContext) {
		rw, p, id, _ := privateJob(ctx)
		expectJobAccess(ctx, rw, jobPath(p, id), func(r *Response) {
			Expect(r.Get("id").Int()).To(BeEquivalentTo(id))
		})
	})
})

var _ = Describe("Job log access", Label("area:jobs", "endpoint:jobs.trace"), func() {
	It("hides a private project's job log from outsiders and needs Reporter", Label("rule:jobs.access.3"), func(ctx SpecContext) {
		rw, p, id, log := privateJob(ctx)
		expectJobAccess(ctx, rw, jobPath(p, id)+"/trace", func(r *Response) {
			Expect(string(r.Body)).To(Equal(log))
		})
	})
})

var _ = Describe("GET /projects/:id/jobs/:job_id/trace", Label("area:jobs", "endpoint:jobs.trace"), func() {
	It("answers the log as plain text", Label("rule:jobs.trace.1"), func(ctx SpecContext) {
		w := newBasicWorld(ctx, api)
		j := w.Runner.Take(ctx, "s")
		log := "$ make\nbuilding…\nJob succeeded\n"
		j.Finish(ctx, "success", log)
		r := api.Get(ctx, jobPath(w.P, j.ID)+"/trace")
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(r).To(HaveHeader("Content-Type", "text/plain; charset=utf-8"))
		Expect(string(r.Body)).To(Equal(log))
		Expect(api.Get(ctx, jobPath(w.P, 999999999)+"/trace")).To(HaveStatus(http.StatusNotFound))
	})
})

// ciParent runs a trigger job whose child pipeline comes from child.yml.
const ciParent = `stages: [build, test]
prepare:
  stage: build
  script: make
downstream:
  stage: build
  trigger:
    include: child.yml
check:
  stage: test
  script: make check
`

const ciChild = `child-job:
  stage: test
  script: echo child
`

var _ = Describe("GET /projects/:id/pipelines/:pipeline_id/jobs", Label("area:jobs", "endpoint:jobs.pipeline_jobs"), func() {
	It("lists the pipeline's and its child pipelines' jobs, IDs descending", Label("rule:jobs.pipeline_jobs.1"), func(ctx SpecContext) {
		p := NewCIProject(ctx, api, map[string]string{".gitlab-ci.yml": ciParent, "child.yml": ciChild})
		pl := RunPipeline(ctx, api, p)
		other := RunPipeline(ctx, api, p)
		r := api.Get(ctx, pipelineJobsPath(p, pl, "jobs"))
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(r).To(MatchSchema("job", true))
		Expect(r.IDs()).To(Equal(sortedDesc(r.IDs())))
		Expect(r.Strings("name")).To(ConsistOf("prepare", "check", "child-job"))
		for _, j := range r.JSON().Array() {
			Expect(j.Get("pipeline.id").Int()).NotTo(BeEquivalentTo(other))
		}
		Expect(api.Get(ctx, pipelineJobsPath(p, 999999999, "jobs"))).To(HaveStatus(http.StatusNotFound))
	})

	It("leaves retried jobs out unless include_retried=true", Label("rule:jobs.pipeline_jobs.2"), func(ctx SpecContext) {
		p := NewCIProject(ctx, api, map[string]string{".gitlab-ci.yml": ciSingle})
		pl := RunPipeline(ctx, api, p)
		rn := NewProjectRunner(ctx, p.Project)
		j := rn.Take(ctx, "s")
		j.Finish(ctx, "failed", "")
		retry := api.Post(ctx, jobPath(p, j.ID)+"/retry")
		Expect(retry).To(HaveStatus(http.StatusCreated))
		fresh := int(retry.Get("id").Int())
		r := api.Get(ctx, pipelineJobsPath(p, pl, "jobs"))
		Expect(r.IDs()).To(Equal([]int{fresh}))
		r = api.Get(ctx, pipelineJobsPath(p, pl, "jobs"), Q("include_retried", false))
		Expect(r.IDs()).To(Equal([]int{fresh}))
		r = api.Get(ctx, pipelineJobsPath(p, pl, "jobs"), Q("include_retried", true))
		Expect(r.IDs()).To(Equal([]int{fresh, j.ID}))
	})

	It("filters by scope", Label("rule:jobs.pipeline_jobs.3"), func(ctx SpecContext) {
		w := newBasicWorld(ctx, api)
		r := api.Get(ctx, pipelineJobsPath(w.P, w.Pipeline, "jobs"), Q("scope", "created"))
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(r.Strings("name")).To(ConsistOf("unit", "lint", "deploy"))
		r = api.Get(ctx, pipelineJobsPath(w.P, w.Pipeline, "jobs"), RawQ("scope[]=pending&scope[]=running"))
		Expect(r.Strings("name")).To(Equal([]string{"compile"}))
		Expect(api.Get(ctx, pipelineJobsPath(w.P, w.Pipeline, "jobs"), Q("scope", "nope"))).To(HaveStatus(http.StatusBadRequest))
	})
})

var _ = Describe("GET /projects/:id/pipelines/:pipeline_id/bridges", Label("area:jobs", "endpoint:jobs.pipeline_bridges"), func() {
	It("lists the trigger jobs with their downstream pipeline", Label("rule:jobs.bridges.1"), func(ctx SpecContext) {
		p := NewCIProject(ctx, api, map[string]string{".gitlab-ci.yml": ciParent, "child.yml": ciChild})
		pl := RunPipeline(ctx, api, p)
		r := api.Get(ctx, pipelineJobsPath(p, pl, "bridges"))
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(r).To(MatchSchema("bridge", true))
		Expect(r.Strings("name")).To(Equal([]string{"downstream"}))
		b := r.JSON().Array()[0]
		for _, f := range []string{"runner", "artifacts", "tag_list"} {
			Expect(b.Get(f).Exists()).To(BeFalse(), "a trigger job has no %s", f)
		}
		for _, f := range []string{"pipeline.created_at", "pipeline.updated_at", "pipeline.web_url", "downstream_pipeline.id",
			"downstream_pipeline.sha", "downstream_pipeline.ref", "downstream_pipeline.status", "downstream_pipeline.created_at",
			"downstream_pipeline.updated_at", "downstream_pipeline.web_url"} {
			Expect(b.Get(f).Exists()).To(BeTrue(), "field %s missing in %s", f, b.Raw)
		}
		Expect(b.Get("pipeline.id").Int()).To(BeEquivalentTo(pl))
		child := int(b.Get("downstream_pipeline.id").Int())
		Expect(child).NotTo(Equal(pl))
		jobs := api.Get(ctx, pipelineJobsPath(p, child, "jobs"))
		Expect(jobs).To(HaveStatus(http.StatusOK))
		Expect(jobs.Strings("name")).To(Equal([]string{"child-job"}))
		Expect(api.Get(ctx, pipelineJobsPath(p, pl, "jobs")).Strings("name")).NotTo(ContainElement("downstream"))
	})

	It("filters trigger jobs by scope", Label("rule:jobs.bridges.2"), func(ctx SpecContext) {
		p := NewCIProject(ctx, api, map[string]string{".gitlab-ci.yml": ciParent, "child.yml": ciChild})
		pl := RunPipeline(ctx, api, p)
		status := api.Get(ctx, pipelineJobsPath(p, pl, "bridges")).Strings("status")
		Expect(status).To(HaveLen(1))
		r := api.Get(ctx, pipelineJobsPath(p, pl, "bridges"), Q("scope", status[0]))
		Expect(r.Strings("name")).To(Equal([]string{"downstream"}))
		other := "canceled"
		if status[0] == other {
			other = "skipped"
		}
		r = api.Get(ctx, pipelineJobsPath(p, pl, "bridges"), Q("scope", other))
		Expect(r.Body).To(MatchJSON(`[]`))
	})
})

var _ = Describe("GET /job", Label("area:jobs", "endpoint:jobs.current"), func() {
	It("answers the token's job by header, bearer or query", Label("rule:jobs.current.1"), func(ctx SpecContext) {
		w := newBasicWorld(ctx, api)
		j := w.Runner.Take(ctx, "s")
		anon := api.Anonymous()
		for _, opt := range []Opt{Header("JOB-TOKEN", j.Token), Header("Authorization", "Bearer "+j.Token), Q("job_token", j.Token)} {
			r := anon.Get(ctx, "/job", opt)
			Expect(r).To(HaveStatus(http.StatusOK))
			Expect(r).To(MatchSchema("job", false))
			Expect(r.Get("id").Int()).To(BeEquivalentTo(j.ID))
			Expect(r.Get("name").String()).To(Equal("compile"))
		}
	})

	It("answers 401 without a live job token", Label("rule:jobs.current.2"), func(ctx SpecContext) {
		w := newBasicWorld(ctx, api)
		u := NewUser(ctx)
		Expect(api.Anonymous().Get(ctx, "/job")).To(HaveStatus(http.StatusUnauthorized))
		// A personal token authenticates but names no job: 401, or the
		// platform's 404 (rulebook, jobs.current.2).
		Expect(u.Get(ctx, "/job")).To(HaveStatus(http.StatusUnauthorized, http.StatusNotFound))
		j := w.Runner.Take(ctx, "s")
		j.Finish(ctx, "success", "")
		Expect(api.Anonymous().Get(ctx, "/job", Header("JOB-TOKEN", j.Token))).To(HaveStatus(http.StatusUnauthorized))
	})
})

var _ = Describe("GET /job/allowed_agents", Label("area:jobs", "endpoint:jobs.allowed_agents"), func() {
	It("answers the job-token context", Label("rule:jobs.allowed_agents.1"), func(ctx SpecContext) {
		g := NewGroup(ctx, api)
		p := NewCIProject(ctx, api, map[string]string{".gitlab-ci.yml": ciBasic}, ProjectOpts{"namespace_id": g.ID})
		pl := RunPipeline(ctx, api, p)
		j := NewProjectRunner(ctx, p.Project).Take(ctx, "s")
		me := api.Get(ctx, "/user")
		for _, opt := range []Opt{Header("JOB-TOKEN", j.Token), Q("job_token", j.Token)} {
			r := api.Anonymous().Get(ctx, "/job/allowed_agents", opt)
			Expect(r).To(HaveStatus(http.StatusOK))
			Expect(r).To(MatchSchema("job_token_context", false))
			Expect(r.Get("allowed_agents").IsArray()).To(BeTrue())
			Expect(r.Get("job.id").Int()).To(BeEquivalentTo(j.ID))
			Expect(r.Get("pipeline.id").Int()).To(BeEquivalentTo(pl))
			Expect(r.Get("project.id").Int()).To(BeEquivalentTo(p.ID))
			var groups []int
			for _, x := range r.Get("project.groups").Array() {
				groups = append(groups, int(x.Get("id").Int()))
			}
			Expect(groups).To(ContainElement(g.ID))
			Expect(r.Get("user.id").Int()).To(Equal(me.Get("id").Int()))
			Expect(r.Get("user.username").String()).To(Equal(me.Get("username").String()))
		}
	})

	It("answers 401 without a valid job token", Label("rule:jobs.allowed_agents.2"), func(ctx SpecContext) {
		u := NewUser(ctx)
		Expect(api.Anonymous().Get(ctx, "/job/allowed_agents")).To(HaveStatus(http.StatusUnauthorized))
		// 401, or the platform's 404 for a personal token (rulebook, jobs.allowed_agents.2).
		Expect(u.Get(ctx, "/job/allowed_agents")).To(HaveStatus(http.StatusUnauthorized, http.StatusNotFound))
		Expect(api.Anonymous().Get(ctx, "/job/allowed_agents", Header("JOB-TOKEN", "not-a-job-token-"+strings.Repeat("x", 8)))).
			To(HaveStatus(http.StatusUnauthorized))
	})
})
