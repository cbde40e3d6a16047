package suites

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// Runner specs. Instance runners are shared by every spec running at the
// same time, so lists that include them are checked for what they must and
// must not contain; lists narrowed to one spec's runners are checked exactly.

func runnerPath(id int) string { return fmt.Sprintf("/runners/%d", id) }

// NewGroupRunner registers a runner of group g as by (its Owner or an administrator).
func NewGroupRunner(ctx context.Context, by *Client, g *Group, extra ...map[string]any) *CIRunner {
	GinkgoHelper()
	body := map[string]any{"runner_type": "group_type", "group_id": g.ID, "description": Unique("runner")}
	for _, e := range extra {
		for k, v := range e {
			body[k] = v
		}
	}
	return NewRunner(ctx, by, body)
}

// contactAs makes the runner ask for work from a machine reporting version.
func (rn *CIRunner) contactAs(ctx context.Context, systemID, version string) {
	GinkgoHelper()
	r := api.Anonymous().Post(ctx, "/jobs/request", Body(map[string]any{"token": rn.Token, "system_id": systemID,
		"info": map[string]any{"version": version, "revision": "abc123", "platform": "linux", "architecture": "amd64"}}))
	Expect(r).To(HaveStatus(http.StatusCreated, http.StatusNoContent))
}

var _ = Describe("GET /runners", Label("area:runners", "endpoint:runners.list"), func() {
	It("lists the runners the caller owns; instance runners only for administrators", Label("rule:runners.list.1"), func(ctx SpecContext) {
		owner := NewUser(ctx)
		g := NewGroup(ctx, owner.Client)
		p := NewProject(ctx, owner.Client)
		gr := NewGroupRunner(ctx, owner.Client, g)
		pr := NewProjectRunner(ctx, p)
		otherGroup := NewGroup(ctx, api)
		foreign := NewGroupRunner(ctx, api, otherGroup)
		ir := NewInstanceRunner(ctx)
		maint := NewUser(ctx)
		AddGroupMember(ctx, g, maint, MaintainerLevel)

		r := owner.Get(ctx, "/runners")
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(r).To(MatchSchema("runner", true))
		Expect(r.IDs()).To(ConsistOf(gr.ID, pr.ID))
		Expect(maint.Get(ctx, "/runners").IDs()).NotTo(ContainElement(gr.ID))
		admin := api.Get(ctx, "/runners", Q("per_page", 100), Q("type", "instance_type"))
		Expect(admin).To(HaveStatus(http.StatusOK))
		Expect(admin.IDs()).To(ContainElement(ir.ID))
		Expect(admin.IDs()).NotTo(ContainElement(foreign.ID))
		Expect(api.Anonymous().Get(ctx, "/runners")).To(HaveStatus(http.StatusUnauthorized))
	})

	It("carries the list fields and never the token", Label("rule:runners.fields.1"), func(ctx SpecContext) {
		owner := NewUser(ctx)
		p := NewProject(ctx, owner.Client)
		active := NewProjectRunner(ctx, p)
		paused := NewProjectRunner(ctx, p, map[string]any{"paused": true})
		ir := NewInstanceRunner(ctx)
		r := owner.Get(ctx, "/runners")
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(r.IDs()).To(ConsistOf(active.ID, paused.ID))
		for _, e := range r.JSON().Array() {
			for _, f := range []string{"id", "description", "paused", "active", "ip_address", "is_shared", "runner_type", "name", "online", "status"} {
				Expect(e.Get(f).Exists()).To(BeTrue(), "field %s missing in %s", f, e.Raw)
			}
			Expect(e.Get("token").Exists()).To(BeFalse())
			Expect(e.Get("active").Bool()).To(Equal(!e.Get("paused").Bool()))
			Expect(e.Get("paused").Bool()).To(Equal(int(e.Get("id").Int()) == paused.ID))
			Expect(e.Get("ip_address").String()).To(BeEmpty())
			Expect(e.Get("is_shared").Bool()).To(BeFalse())
			Expect(e.Get("runner_type").String()).To(Equal("project_type"))
		}
		all := api.Get(ctx, "/runners/all", Q("type", "instance_type"), Q("per_page", 100))
		found := false
		for _, e := range all.JSON().Array() {
			if int(e.Get("id").Int()) == ir.ID {
				found = true
				Expect(e.Get("is_shared").Bool()).To(BeTrue())
				Expect(e.Get("token").Exists()).To(BeFalse())
			}
		}
		Expect(found).To(BeTrue(), "the instance runner is listed")
	})

	It("applies the shared filters and the deprecated scope", Label("rule:runners.filters.6"), func(ctx SpecContext) {
		owner := NewUser(ctx)
		g := NewGroup(ctx, owner.Client)
		p := NewProject(ctx, owner.Client)
		gr := NewGroupRunner(ctx, owner.Client, g)
		pr := NewProjectRunner(ctx, p, map[string]any{"paused": true})
		Expect(owner.Get(ctx, "/runners", Q("type", "group_type")).IDs()).To(Equal([]int{gr.ID}))
		Expect(owner.Get(ctx, "/runners", Q("paused", true)).IDs()).To(Equal([]int{pr.ID}))
		Expect(owner.Get(ctx, "/runners", Q("scope", "paused")).IDs()).To(Equal([]int{pr.ID}))
		Expect(owner.Get(ctx, "/runners", Q("scope", "active")).IDs()).To(Equal([]int{gr.ID}))
		Expect(owner.Get(ctx, "/runners", Q("status", "never_contacted")).IDs()).To(ConsistOf(gr.ID, pr.ID))
		Expect(owner.Get(ctx, "/runners", Q("type", "bogus"))).To(HaveStatus(http.StatusBadRequest))
	})
})

var _ = Describe("GET /runners/all", Label("area:runners", "endpoint:runners.all", "admin"), func() {
	It("lists every runner to administrators only", Label("rule:runners.all.1"), func(ctx SpecContext) {
		owner := NewUser(ctx)
		g := NewGroup(ctx, owner.Client)
		p := NewProject(ctx, owner.Client)
		gr := NewGroupRunner(ctx, owner.Client, g)
		pr := NewProjectRunner(ctx, p)
		ir := NewInstanceRunner(ctx)
		ids := []int{}
		for _, typ := range []string{"instance_type", "group_type", "project_type"} {
			r := api.Get(ctx, "/runners/all", Q("type", typ), Q("per_page", 100))
			Expect(r).To(HaveStatus(http.StatusOK))
			ids = append(ids, r.IDs()...)
		}
		Expect(ids).To(ContainElements(gr.ID, pr.ID, ir.ID))
		Expect(owner.Get(ctx, "/runners/all")).To(HaveStatus(http.StatusForbidden))
		Expect(api.Anonymous().Get(ctx, "/runners/all")).To(HaveStatus(http.StatusUnauthorized))
	})

	It("filters by type", Label("rule:runners.filters.1"), func(ctx SpecContext) {
		g := NewGroup(ctx, api)
		p := NewProject(ctx, api)
		gr := NewGroupRunner(ctx, api, g)
		pr := NewProjectRunner(ctx, p)
		ir := NewInstanceRunner(ctx)
		for typ, want := range map[string]int{"instance_type": ir.ID, "group_type": gr.ID, "project_type": pr.ID} {
			r := api.Get(ctx, "/runners/all", Q("type", typ), Q("per_page", 100))
			Expect(r).To(HaveStatus(http.StatusOK))
			Expect(r.IDs()).To(ContainElement(want))
			Expect(r.Strings("runner_type")).To(HaveEach(typ))
		}
		Expect(api.Get(ctx, "/runners/all", Q("type", "specific"))).To(HaveStatus(http.StatusBadRequest))
	})

	It("filters by status, including the deprecated active and paused", Label("rule:runners.filters.2"), func(ctx SpecContext) {
		tag := Unique("tag")
		fresh := NewInstanceRunner(ctx, map[string]any{"tag_list": []string{tag}})
		seen := NewInstanceRunner(ctx, map[string]any{"tag_list": []string{tag}})
		paused := NewInstanceRunner(ctx, map[string]any{"tag_list": []string{tag}, "paused": true})
		seen.contactAs(ctx, "m1", "17.5.1")
		list := func(status string) []int {
			GinkgoHelper()
			r := api.Get(ctx, "/runners/all", Q("status", status), Q("tag_list", tag))
			Expect(r).To(HaveStatus(http.StatusOK))
			return r.IDs()
		}
		Expect(list("never_contacted")).To(ConsistOf(fresh.ID, paused.ID))
		Expect(list("online")).To(ConsistOf(seen.ID))
		Expect(list("paused")).To(ConsistOf(paused.ID))
		Expect(list("active")).To(ConsistOf(fresh.ID, seen.ID))
		Expect(list("stale")).To(BeEmpty())
		Expect(api.Get(ctx, "/runners/all", Q("status", "sleeping"))).To(HaveStatus(http.StatusBadRequest))
	})

	It("filters by paused", Label("rule:runners.filters.3"), func(ctx SpecContext) {
		tag := Unique("tag")
		a := NewInstanceRunner(ctx, map[string]any{"tag_list": []string{tag}})
		b := NewInstanceRunner(ctx, map[string]any{"tag_list": []string{tag}, "paused": true})
		Expect(api.Get(ctx, "/runners/all", Q("paused", true), Q("tag_list", tag)).IDs()).To(Equal([]int{b.ID}))
		Expect(api.Get(ctx, "/runners/all", Q("paused", false), Q("tag_list", tag)).IDs()).To(Equal([]int{a.ID}))
		// Booleans (suites/booleans.go): paused=yes keeps the paused runners
		// as true does; a word the platform does not read answers 400.
		expectBooleanWords(boolProbe{
			send:    func(v string) *Response { return api.Get(ctx, "/runners/all", RawQ("paused="+v), Q("tag_list", tag)) },
			meaning: func(r *Response) any { return containsEach(r, a.ID, b.ID) },
		})
	})

	It("keeps runners with every listed tag", Label("rule:runners.filters.4"), func(ctx SpecContext) {
		x, y := Unique("tag"), Unique("tag")
		both := NewInstanceRunner(ctx, map[string]any{"tag_list": []string{x, y}})
		one := NewInstanceRunner(ctx, map[string]any{"tag_list": []string{x}})
		Expect(api.Get(ctx, "/runners/all", Q("tag_list", x)).IDs()).To(ConsistOf(both.ID, one.ID))
		Expect(api.Get(ctx, "/runners/all", RawQ("tag_list[]="+x+"&tag_list[]="+y)).IDs()).To(Equal([]int{both.ID}))
	})

	It("keeps runners whose manager version has the prefix", Label("rule:runners.filters.5"), func(ctx SpecContext) {
		tag := Unique("tag")
		new17 := NewInstanceRunner(ctx, map[string]any{"tag_list": []string{tag}})
		old16 := NewInstanceRunner(ctx, map[string]any{"tag_list": []string{tag}})
		NewInstanceRunner(ctx, map[string]any{"tag_list": []string{tag}})
		new17.contactAs(ctx, "m1", "17.5.1")
		old16.contactAs(ctx, "m2", "16.11.0")
		Expect(api.Get(ctx, "/runners/all", Q("version_prefix", "17.5"), Q("tag_list", tag)).IDs()).To(Equal([]int{new17.ID}))
		Expect(api.Get(ctx, "/runners/all", Q("version_prefix", "16"), Q("tag_list", tag)).IDs()).To(Equal([]int{old16.ID}))
		Expect(api.Get(ctx, "/runners/all", Q("version_prefix", "15.0"), Q("tag_list", tag)).IDs()).To(BeEmpty())
	})
})

var _ = Describe("GET /runners/:id", Label("area:runners", "endpoint:runners.get"), func() {
	It("answers the detail form without the token", Label("rule:runners.get.1"), func(ctx SpecContext) {
		p := NewProject(ctx, api)
		rn := NewProjectRunner(ctx, p, map[string]any{"tag_list": []string{"docker", "linux"}, "access_level": "ref_protected",
			"maximum_timeout": 3600, "maintenance_note": "disk is small"})
		r := api.Get(ctx, runnerPath(rn.ID))
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(r).To(MatchSchema("runner_detail", false))
		for _, f := range []string{"id", "description", "paused", "active", "ip_address", "is_shared", "runner_type", "name", "online",
			"status", "architecture", "platform", "revision", "version", "contacted_at", "maintenance_note", "projects", "tag_list",
			"access_level", "maximum_timeout"} {
			Expect(r.Get(f).Exists()).To(BeTrue(), "field %s missing in %s", f, r)
		}
		Expect(r.Get("token").Exists()).To(BeFalse())
		for _, f := range []string{"architecture", "platform", "revision", "version"} {
			Expect(r.Get(f).String()).To(BeEmpty(), "%s is deprecated and empty", f)
		}
		Expect(r.Get("id").Int()).To(BeEquivalentTo(rn.ID))
		Expect(r.Get("tag_list").Value()).To(ConsistOf("docker", "linux"))
		Expect(r.Get("access_level").String()).To(Equal("ref_protected"))
		Expect(r.Get("maximum_timeout").Int()).To(BeEquivalentTo(3600))
		Expect(r.Get("maintenance_note").String()).To(Equal("disk is small"))
		Expect(r.Get("projects.#").Int()).To(BeEquivalentTo(1))
		Expect(r.Get("projects.0.id").Int()).To(BeEquivalentTo(p.ID))
		Expect(r.Get("projects.0.path_with_namespace").String()).To(Equal(p.FullPath))
		for _, f := range []string{"name", "name_with_namespace", "path"} {
			Expect(r.Get("projects.0." + f).Exists()).To(BeTrue())
		}
	})

	It("shows instance runners to every signed-in user", Label("rule:runners.get.2"), func(ctx SpecContext) {
		ir := NewInstanceRunner(ctx)
		u := NewUser(ctx)
		r := u.Get(ctx, runnerPath(ir.ID))
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(r.Get("is_shared").Bool()).To(BeTrue())
		Expect(r.Get("runner_type").String()).To(Equal("instance_type"))
		Expect(api.Anonymous().Get(ctx, runnerPath(ir.ID))).To(HaveStatus(http.StatusUnauthorized))
		Expect(u.Get(ctx, runnerPath(999999999))).To(HaveStatus(http.StatusNotFound))
	})

	It("needs Developer for group and project runners", Label("rule:runners.get.3"), func(ctx SpecContext) {
		w := NewRoleWorld(ctx, "private")
		p := NewProject(ctx, w.Owner.Client, ProjectOpts{"namespace_id": w.Group.ID})
		gr := NewGroupRunner(ctx, w.Owner.Client, w.Group)
		pr := NewProjectRunner(ctx, p)
		for _, id := range []int{gr.ID, pr.ID} {
			for _, lv := range []int{DeveloperLevel, MaintainerLevel, OwnerLevel} {
				Expect(w.Members[lv].Get(ctx, runnerPath(id))).To(HaveStatus(http.StatusOK), "level %d", lv)
			}
			for _, u := range []*User{w.Members[GuestLevel], w.Members[ReporterLevel], w.Outsider} {
				Expect(u.Get(ctx, runnerPath(id))).To(HaveStatus(http.StatusForbidden))
			}
		}
	})

	It("accepts a manage_runner token and refuses an unrelated scope", Label("rule:runners.get.4"), func(ctx SpecContext) {
		w := NewRoleWorld(ctx, "private")
		gr := NewGroupRunner(ctx, w.Owner.Client, w.Group)
		dev := w.Members[DeveloperLevel]
		manage := api.As(NewToken(ctx, dev.ID, "manage_runner"))
		r := manage.Get(ctx, runnerPath(gr.ID))
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(r.Get("id").Int()).To(BeEquivalentTo(gr.ID))
		readUser := api.As(NewToken(ctx, dev.ID, "read_user"))
		Expect(readUser.Get(ctx, runnerPath(gr.ID))).To(HaveStatus(http.StatusForbidden))
	})

	It("reports never_contacted until the runner asks for jobs, then online", Label("rule:runners.status.1"), func(ctx SpecContext) {
		p := NewProject(ctx, api)
		rn := NewProjectRunner(ctx, p)
		r := api.Get(ctx, runnerPath(rn.ID))
		Expect(r.Get("status").String()).To(Equal("never_contacted"))
		Expect(r.Get("online").Bool()).To(BeFalse())
		Expect(r.Get("contacted_at").Type.String()).To(Equal("Null"))
		rn.contactAs(ctx, "m1", "17.5.1")
		r = api.Get(ctx, runnerPath(rn.ID))
		Expect(r.Get("status").String()).To(Equal("online"))
		Expect(r.Get("online").Bool()).To(BeTrue())
		Expect(r.Get("contacted_at").String()).NotTo(BeEmpty())
	})
})

var _ = Describe("PUT /runners/:id", Label("area:runners", "endpoint:runners.update"), func() {
	It("changes every listed field", Label("rule:runners.update.1"), func(ctx SpecContext) {
		p := NewProject(ctx, api)
		rn := NewProjectRunner(ctx, p)
		body := map[string]any{"description": "renamed", "paused": true, "tag_list": []string{"gpu", "arm"}, "run_untagged": false,
			"locked": true, "access_level": "ref_protected", "maximum_timeout": 7200, "maintenance_note": "moved to rack 4"}
		r := api.Put(ctx, runnerPath(rn.ID), Body(body))
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(r).To(MatchSchema("runner_detail", false))
		for _, got := range []*Response{r, api.Get(ctx, runnerPath(rn.ID))} {
			Expect(got.Get("description").String()).To(Equal("renamed"))
			Expect(got.Get("paused").Bool()).To(BeTrue())
			Expect(got.Get("tag_list").Value()).To(ConsistOf("gpu", "arm"))
			Expect(got.Get("access_level").String()).To(Equal("ref_protected"))
			Expect(got.Get("maximum_timeout").Int()).To(BeEquivalentTo(7200))
			Expect(got.Get("maintenance_note").String()).To(Equal("moved to rack 4"))
		}
		if r.Get("run_untagged").Exists() {
			Expect(r.Get("run_untagged").Bool()).To(BeFalse())
		}
		if r.Get("locked").Exists() {
			Expect(r.Get("locked").Bool()).To(BeTrue())
		}
	})

	It("pauses with paused=true or the deprecated active=false", Label("rule:runners.update.2"), func(ctx SpecContext) {
		p := NewProject(ctx, api)
		a := NewProjectRunner(ctx, p)
		b := NewProjectRunner(ctx, p)
		r := api.Put(ctx, runnerPath(a.ID), Form("paused", "true"))
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(r.Get("paused").Bool()).To(BeTrue())
		Expect(r.Get("active").Bool()).To(BeFalse())
		r = api.Put(ctx, runnerPath(b.ID), Form("active", "false"))
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(r.Get("paused").Bool()).To(BeTrue())
		Expect(r.Get("active").Bool()).To(BeFalse())
	})

	It("holds maintenance_note to 1024 characters and access_level to its values", Label("rule:runners.update.3"), func(ctx SpecContext) {
		p := NewProject(ctx, api)
		rn := NewProjectRunner(ctx, p)
		max := strings.Repeat("n", 1024)
		r := api.Put(ctx, runnerPath(rn.ID), Body(map[string]any{"maintenance_note": max}))
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(r.Get("maintenance_note").String()).To(Equal(max))
		Expect(api.Put(ctx, runnerPath(rn.ID), Body(map[string]any{"maintenance_note": max + "n", "description": "x"}))).
			To(HaveStatus(http.StatusBadRequest))
		got := api.Get(ctx, runnerPath(rn.ID))
		Expect(got.Get("maintenance_note").String()).To(Equal(max))
		Expect(got.Get("description").String()).NotTo(Equal("x"))
		Expect(api.Put(ctx, runnerPath(rn.ID), Body(map[string]any{"access_level": "everyone"}))).To(HaveStatus(http.StatusBadRequest))
	})

	It("needs admin, Owner or Maintainer by runner type", Label("rule:runners.update.4"), func(ctx SpecContext) {
		w := NewRoleWorld(ctx, "private")
		p := NewProject(ctx, w.Owner.Client, ProjectOpts{"namespace_id": w.Group.ID})
		ir := NewInstanceRunner(ctx)
		gr := NewGroupRunner(ctx, w.Owner.Client, w.Group)
		pr := NewProjectRunner(ctx, p)
		put := func(by *Client, id int) *Response {
			return by.Put(ctx, runnerPath(id), Body(map[string]any{"description": Unique("d")}))
		}
		Expect(put(w.Owner.Client, ir.ID)).To(HaveStatus(http.StatusForbidden))
		Expect(put(api, ir.ID)).To(HaveStatus(http.StatusOK))
		Expect(put(w.Members[MaintainerLevel].Client, gr.ID)).To(HaveStatus(http.StatusForbidden))
		Expect(put(w.Owner.Client, gr.ID)).To(HaveStatus(http.StatusOK))
		Expect(put(w.Members[DeveloperLevel].Client, pr.ID)).To(HaveStatus(http.StatusForbidden))
		Expect(put(w.Members[MaintainerLevel].Client, pr.ID)).To(HaveStatus(http.StatusOK))
		Expect(put(api.Anonymous(), pr.ID)).To(HaveStatus(http.StatusUnauthorized))
		Expect(put(api, 999999999)).To(HaveStatus(http.StatusNotFound))
	})
})

// runnerJobsWorld: a project runner that ran compile (success, on m1) and
// then took unit (running, on m2).
type runnerJobsWorld struct {
	*basicWorld
	Compile, Unit int
}

func newRunnerJobsWorld(ctx context.Context) *runnerJobsWorld {
	GinkgoHelper()
	w := newBasicWorld(ctx, api)
	c := w.Runner.Take(ctx, "m1")
	c.Finish(ctx, "success", "")
	u := w.Runner.Take(ctx, "m2")
	return &runnerJobsWorld{basicWorld: w, Compile: c.ID, Unit: u.ID}
}

var _ = Describe("GET /runners/:id/jobs", Label("area:runners", "endpoint:runners.jobs"), func() {
	It("lists the runner's jobs, IDs descending, as runner-job entries", Label("rule:runners.jobs.1"), func(ctx SpecContext) {
		w := newRunnerJobsWorld(ctx)
		r := api.Get(ctx, runnerPath(w.Runner.ID)+"/jobs")
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(r).To(MatchSchema("runner_job", true))
		Expect(r.IDs()).To(Equal([]int{w.Unit, w.Compile}))
		e := r.JSON().Array()[1]
		for _, f := range []string{"id", "status", "stage", "name", "ref", "tag", "coverage", "created_at", "started_at", "finished_at",
			"duration", "queued_duration", "user", "commit", "pipeline.id", "pipeline.sha", "pipeline.ref", "pipeline.status",
			"project.id", "project.description", "project.name", "project.name_with_namespace", "project.path",
			"project.path_with_namespace", "project.created_at"} {
			Expect(e.Get(f).Exists()).To(BeTrue(), "field %s missing in %s", f, e.Raw)
		}
		Expect(e.Get("project.id").Int()).To(BeEquivalentTo(w.P.ID))
		Expect(e.Get("pipeline.id").Int()).To(BeEquivalentTo(w.Pipeline))
	})

	It("filters by status and system_id", Label("rule:runners.jobs.2"), func(ctx SpecContext) {
		w := newRunnerJobsWorld(ctx)
		path := runnerPath(w.Runner.ID) + "/jobs"
		Expect(api.Get(ctx, path, Q("status", "success")).IDs()).To(Equal([]int{w.Compile}))
		Expect(api.Get(ctx, path, Q("status", "running")).IDs()).To(Equal([]int{w.Unit}))
		Expect(api.Get(ctx, path, Q("status", "failed")).IDs()).To(BeEmpty())
		Expect(api.Get(ctx, path, Q("system_id", "m1")).IDs()).To(Equal([]int{w.Compile}))
		Expect(api.Get(ctx, path, Q("system_id", "m2")).IDs()).To(Equal([]int{w.Unit}))
		// The spec lists four statuses and refuses none; the platform filters
		// by every job status (runners.jobs.2's platform.does). The runner
		// took both jobs, so none of its jobs is pending or created.
		for _, st := range []string{"pending", "created"} {
			r := api.Get(ctx, path, Q("status", st))
			if r.Status != http.StatusBadRequest {
				Expect(r).To(HaveStatus(http.StatusOK), "status=%s: 400, or filtered as the platform does", st)
				Expect(r.IDs()).To(BeEmpty(), "status=%s: no job of the runner has it", st)
			}
		}
		Expect(api.Get(ctx, path, Q("status", "sleeping"))).To(HaveStatus(http.StatusBadRequest))
	})

	It("orders by id in either direction; sort needs order_by", Label("rule:runners.jobs.3"), func(ctx SpecContext) {
		w := newRunnerJobsWorld(ctx)
		path := runnerPath(w.Runner.ID) + "/jobs"
		Expect(api.Get(ctx, path, Q("order_by", "id"), Q("sort", "asc")).IDs()).To(Equal([]int{w.Compile, w.Unit}))
		Expect(api.Get(ctx, path, Q("order_by", "id"), Q("sort", "desc")).IDs()).To(Equal([]int{w.Unit, w.Compile}))
		// sort without order_by: the spec requires order_by with sort; the
		// platform orders only by a given order_by and ignores the sort
		// (runners.jobs.3's platform.does, a known divergence).
		sortOnly := api.Get(ctx, path, Q("sort", "asc"))
		SpecOrPlatform("runners.jobs.3", func() {
			Expect(sortOnly).To(HaveStatus(http.StatusBadRequest))
		}, func() {
			Expect(sortOnly).To(HaveStatus(http.StatusOK))
			Expect(sortOnly.IDs()).To(ConsistOf(w.Compile, w.Unit), "the runner's jobs, the sort ignored")
		})
	})

	It("lists only jobs of projects where the caller is Reporter or higher", Label("rule:runners.jobs.4"), func(ctx SpecContext) {
		tag := Unique("tag")
		ci := "tagged:\n  stage: test\n  script: make\n  tags: [" + tag + "]\n"
		p1 := NewCIProject(ctx, api, map[string]string{".gitlab-ci.yml": ci})
		p2 := NewCIProject(ctx, api, map[string]string{".gitlab-ci.yml": ci})
		RunPipeline(ctx, api, p1)
		RunPipeline(ctx, api, p2)
		ir := NewInstanceRunner(ctx, map[string]any{"tag_list": []string{tag}})
		j1 := ir.Take(ctx, "m1")
		j2 := ir.Take(ctx, "m1")
		reporter, guest := NewUser(ctx), NewUser(ctx)
		var inP1 int
		for _, j := range []*TakenJob{j1, j2} {
			if api.Get(ctx, jobPath(p1, j.ID)).Status == http.StatusOK {
				inP1 = j.ID
			}
		}
		AddProjectMember(ctx, p1.Project, reporter, ReporterLevel)
		AddProjectMember(ctx, p2.Project, guest, GuestLevel)
		path := runnerPath(ir.ID) + "/jobs"
		Expect(api.Get(ctx, path).IDs()).To(ConsistOf(j1.ID, j2.ID))
		Expect(reporter.Get(ctx, path).IDs()).To(Equal([]int{inP1}))
		Expect(guest.Get(ctx, path).IDs()).To(BeEmpty())
	})
})

var _ = Describe("GET /runners/:id/managers", Label("area:runners", "endpoint:runners.managers"), func() {
	It("answers one manager per system_id", Label("rule:runners.managers.1"), func(ctx SpecContext) {
		p := NewProject(ctx, api)
		rn := NewProjectRunner(ctx, p)
		r := api.Get(ctx, runnerPath(rn.ID)+"/managers")
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(r.Body).To(MatchJSON(`[]`))
		rn.contactAs(ctx, "s_machine_one", "17.5.1")
		rn.contactAs(ctx, "s_machine_two", "17.5.1")
		rn.contactAs(ctx, "s_machine_one", "17.5.1")
		r = api.Get(ctx, runnerPath(rn.ID)+"/managers")
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(r).To(MatchSchema("runner_manager", true))
		Expect(r.Strings("system_id")).To(ConsistOf("s_machine_one", "s_machine_two"))
		for _, m := range r.JSON().Array() {
			for _, f := range []string{"id", "system_id", "version", "revision", "platform", "architecture", "created_at", "contacted_at", "ip_address", "status"} {
				Expect(m.Get(f).Exists()).To(BeTrue(), "field %s missing in %s", f, m.Raw)
			}
			Expect(m.Get("version").String()).To(Equal("17.5.1"))
			Expect(m.Get("status").String()).To(Equal("online"))
		}
	})

	It("paginates the managers with page and per_page", Label("rule:runners.managers.2"), func(ctx SpecContext) {
		p := NewProject(ctx, api)
		rn := NewProjectRunner(ctx, p)
		for _, m := range []string{"s_one", "s_two", "s_three"} {
			rn.contactAs(ctx, m, "17.5.1")
		}
		path := runnerPath(rn.ID) + "/managers"
		first := api.Get(ctx, path, Q("per_page", 2))
		second := api.Get(ctx, path, Q("per_page", 2), Q("page", 2))
		all := []string{"s_one", "s_two", "s_three"}
		// The platform does not paginate the managers
		// (runners.managers.2's platform.does).
		SpecOrPlatform("runners.managers.2", func() {
			Expect(first).To(HaveStatus(http.StatusOK))
			Expect(first.JSON().Array()).To(HaveLen(2))
			Expect(first).To(HaveHeader("X-Per-Page", "2"))
			Expect(first).To(HaveHeader("X-Next-Page", "2"))
			Expect(first).To(HaveHeader("X-Total", "3"))
			Expect(linkRels(first)).To(ContainElement("next"))
			Expect(second).To(HaveHeader("X-Prev-Page", "1"))
			Expect(append(first.Strings("system_id"), second.Strings("system_id")...)).To(ConsistOf(all))
		}, func() {
			for _, r := range []*Response{first, second} {
				expectUnpaginated(r, r.Strings("system_id"), all)
			}
		})
	})
})

var _ = Describe("GET /projects/:id/runners", Label("area:runners", "endpoint:runners.project"), func() {
	It("lists instance runners only while the project allows them", Label("rule:runners.project.4"), func(ctx SpecContext) {
		ir := NewInstanceRunner(ctx)
		on := NewProject(ctx, api)
		Expect(api.Get(ctx, fmt.Sprintf("/projects/%d", on.ID)).Get("shared_runners_enabled").Bool()).To(BeTrue(), "the default")
		off := NewProject(ctx, api, ProjectOpts{"shared_runners_enabled": false})
		Expect(api.Get(ctx, fmt.Sprintf("/projects/%d", off.ID)).Get("shared_runners_enabled").Bool()).To(BeFalse())
		list := func(p *Project) []int {
			r := api.Get(ctx, fmt.Sprintf("/projects/%d/runners", p.ID), Q("type", "instance_type"), Q("per_page", 100))
			Expect(r).To(HaveStatus(http.StatusOK))
			return r.IDs()
		}
		Expect(list(on)).To(ContainElement(ir.ID))
		Expect(list(off)).NotTo(ContainElement(ir.ID))
		r := api.Put(ctx, fmt.Sprintf("/projects/%d", on.ID), Body(map[string]any{"shared_runners_enabled": false}))
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(r.Get("shared_runners_enabled").Bool()).To(BeFalse())
		Expect(list(on)).NotTo(ContainElement(ir.ID))
		Expect(api.Put(ctx, fmt.Sprintf("/projects/%d", off.ID), Body(map[string]any{"shared_runners_enabled": true}))).To(HaveStatus(http.StatusOK))
		Expect(list(off)).To(ContainElement(ir.ID))
	})

	It("lists the project's, its groups' and the instance runners", Label("rule:runners.project.1"), func(ctx SpecContext) {
		parent := NewGroup(ctx, api)
		g := NewGroup(ctx, api, GroupOpts{"parent_id": parent.ID})
		p := NewProject(ctx, api, ProjectOpts{"namespace_id": g.ID})
		otherP := NewProject(ctx, api)
		otherG := NewGroup(ctx, api)
		pr := NewProjectRunner(ctx, p)
		gr := NewGroupRunner(ctx, api, g)
		pgr := NewGroupRunner(ctx, api, parent)
		ir := NewInstanceRunner(ctx)
		foreignP := NewProjectRunner(ctx, otherP)
		foreignG := NewGroupRunner(ctx, api, otherG)
		r := api.Get(ctx, fmt.Sprintf("/projects/%d/runners", p.ID), Q("per_page", 100))
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(r).To(MatchSchema("runner", true))
		Expect(r.IDs()).To(ContainElements(pr.ID, gr.ID, pgr.ID, ir.ID))
		Expect(r.IDs()).NotTo(ContainElements(foreignP.ID))
		Expect(r.IDs()).NotTo(ContainElement(foreignG.ID))
	})

	It("needs Maintainer or administrator", Label("rule:runners.project.2"), func(ctx SpecContext) {
		w := NewRoleWorld(ctx, "private")
		p := NewProject(ctx, w.Owner.Client, ProjectOpts{"namespace_id": w.Group.ID})
		path := fmt.Sprintf("/projects/%d/runners", p.ID)
		for _, lv := range []int{GuestLevel, ReporterLevel, DeveloperLevel} {
			Expect(w.Members[lv].Get(ctx, path)).To(HaveStatus(http.StatusForbidden), "level %d", lv)
		}
		for _, lv := range []int{MaintainerLevel, OwnerLevel} {
			Expect(w.Members[lv].Get(ctx, path)).To(HaveStatus(http.StatusOK), "level %d", lv)
		}
		Expect(api.Get(ctx, path)).To(HaveStatus(http.StatusOK))
	})

	It("filters by type, status, paused and tag_list", Label("rule:runners.project.3"), func(ctx SpecContext) {
		g := NewGroup(ctx, api)
		p := NewProject(ctx, api, ProjectOpts{"namespace_id": g.ID})
		a := NewProjectRunner(ctx, p, map[string]any{"tag_list": []string{"fast"}})
		b := NewProjectRunner(ctx, p, map[string]any{"paused": true})
		gr := NewGroupRunner(ctx, api, g)
		path := fmt.Sprintf("/projects/%d/runners", p.ID)
		Expect(api.Get(ctx, path, Q("type", "project_type")).IDs()).To(ConsistOf(a.ID, b.ID))
		Expect(api.Get(ctx, path, Q("type", "group_type")).IDs()).To(Equal([]int{gr.ID}))
		Expect(api.Get(ctx, path, Q("type", "project_type"), Q("paused", true)).IDs()).To(Equal([]int{b.ID}))
		Expect(api.Get(ctx, path, Q("type", "project_type"), Q("tag_list", "fast")).IDs()).To(Equal([]int{a.ID}))
		Expect(api.Get(ctx, path, Q("type", "project_type"), Q("status", "paused")).IDs()).To(Equal([]int{b.ID}))
	})
})

var _ = Describe("GET /groups/:id/runners", Label("area:runners", "endpoint:runners.group"), func() {
	It("lists, paginated, the group's, its ancestors' and the instance runners", Label("rule:runners.group.1"), func(ctx SpecContext) {
		parent := NewGroup(ctx, api)
		g := NewGroup(ctx, api, GroupOpts{"parent_id": parent.ID})
		p := NewProject(ctx, api, ProjectOpts{"namespace_id": g.ID})
		otherG := NewGroup(ctx, api)
		gr := NewGroupRunner(ctx, api, g)
		pgr := NewGroupRunner(ctx, api, parent)
		ir := NewInstanceRunner(ctx)
		pr := NewProjectRunner(ctx, p)
		foreign := NewGroupRunner(ctx, api, otherG)
		path := fmt.Sprintf("/groups/%d/runners", g.ID)
		r := api.Get(ctx, path, Q("per_page", 100))
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(r).To(MatchSchema("runner", true))
		Expect(r.IDs()).To(ContainElements(gr.ID, pgr.ID, ir.ID))
		Expect(r.IDs()).NotTo(ContainElement(pr.ID))
		Expect(r.IDs()).NotTo(ContainElement(foreign.ID))
		page := api.Get(ctx, path, Q("type", "group_type"), Q("per_page", 1))
		Expect(page).To(HaveStatus(http.StatusOK))
		Expect(page.IDs()).To(HaveLen(1))
		Expect(page).To(HaveHeader("X-Total", "2"))
		Expect(page).To(HaveHeader("X-Per-Page", "1"))
	})

	It("needs the Owner role or administrator", Label("rule:runners.group.2"), func(ctx SpecContext) {
		w := NewRoleWorld(ctx, "private")
		path := fmt.Sprintf("/groups/%d/runners", w.Group.ID)
		for _, lv := range []int{GuestLevel, ReporterLevel, DeveloperLevel, MaintainerLevel} {
			Expect(w.Members[lv].Get(ctx, path)).To(HaveStatus(http.StatusForbidden), "level %d", lv)
		}
		Expect(w.Owner.Get(ctx, path)).To(HaveStatus(http.StatusOK))
		Expect(api.Get(ctx, path)).To(HaveStatus(http.StatusOK))
	})
})
