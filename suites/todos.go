package suites

import (
	"fmt"
	"net/http"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// To-do items: the caller's own, read through the platform's To-do list API.

var _ = Describe("GET /todos", Label("area:todos", "endpoint:todos.list"), func() {
	It("lists the caller's own pending items, newest first", Label("rule:todos.list.1"), func(ctx SpecContext) {
		p := NewRepoProject(ctx, api)
		u, other := NewUser(ctx), NewUser(ctx)
		AddProjectMember(ctx, &Project{ID: p.ID}, u, ReporterLevel)
		AddProjectMember(ctx, &Project{ID: p.ID}, other, ReporterLevel)
		a, b := p.FeatureMR(ctx, "a"), p.FeatureMR(ctx, "b")
		first := u.Post(ctx, p.MR(a.IID, "/todo")).Get("id").Int()
		second := u.Post(ctx, p.MR(b.IID, "/todo")).Get("id").Int()
		other.Post(ctx, p.MR(a.IID, "/todo"))
		r := u.Get(ctx, "/todos")
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(r.IDs()).To(Equal([]int{int(second), int(first)}))
		Expect(api.Anonymous().Get(ctx, "/todos")).To(HaveStatus(http.StatusUnauthorized))
	})

	It("filters by state, action, author, project and type", Label("rule:todos.list.2"), func(ctx SpecContext) {
		p := NewRepoProject(ctx, api)
		u := NewUser(ctx)
		AddProjectMember(ctx, &Project{ID: p.ID}, u, DeveloperLevel)
		assigned := p.FeatureMR(ctx, "a", map[string]any{"assignee_ids": []int{u.ID}})
		marked := p.FeatureMR(ctx, "m")
		mid := u.Post(ctx, p.MR(marked.IID, "/todo")).Get("id").Int()
		Expect(u.Get(ctx, "/todos", Q("action", "assigned")).Get("0.target.iid").Int()).To(BeEquivalentTo(assigned.IID))
		Expect(u.Get(ctx, "/todos", Q("action", "marked")).IDs()).To(Equal([]int{int(mid)}))
		Expect(u.Get(ctx, "/todos", Q("author_id", u.ID)).IDs()).To(Equal([]int{int(mid)}))
		Expect(u.Get(ctx, "/todos", Q("project_id", p.ID)).JSON().Array()).To(HaveLen(2))
		Expect(u.Get(ctx, "/todos", Q("project_id", 999999999)).JSON().Array()).To(BeEmpty())
		Expect(u.Get(ctx, "/todos", Q("type", "MergeRequest")).JSON().Array()).To(HaveLen(2))
		Expect(u.Get(ctx, "/todos", Q("type", "Issue")).JSON().Array()).To(BeEmpty())
		Expect(u.Get(ctx, "/todos", Q("state", "done")).JSON().Array()).To(BeEmpty())
		Expect(u.Post(ctx, fmt.Sprintf("/todos/%d/mark_as_done", mid))).To(HaveStatus(http.StatusCreated))
		Expect(u.Get(ctx, "/todos", Q("state", "done")).IDs()).To(Equal([]int{int(mid)}))
		Expect(u.Get(ctx, "/todos", Q("state", "later"))).To(HaveStatus(http.StatusBadRequest))
	})
})

var _ = Describe("POST /todos/:id/mark_as_done", Label("area:todos", "endpoint:todos.mark_done"), func() {
	It("marks one or all of the caller's items done", Label("rule:todos.done.1"), func(ctx SpecContext) {
		p := NewRepoProject(ctx, api)
		u, other := NewUser(ctx), NewUser(ctx)
		AddProjectMember(ctx, &Project{ID: p.ID}, u, ReporterLevel)
		AddProjectMember(ctx, &Project{ID: p.ID}, other, ReporterLevel)
		a, b := p.FeatureMR(ctx, "a"), p.FeatureMR(ctx, "b")
		ta := u.Post(ctx, p.MR(a.IID, "/todo")).Get("id").Int()
		u.Post(ctx, p.MR(b.IID, "/todo"))
		theirs := other.Post(ctx, p.MR(a.IID, "/todo")).Get("id").Int()
		Expect(u.Post(ctx, fmt.Sprintf("/todos/%d/mark_as_done", theirs))).To(HaveStatus(http.StatusNotFound))
		done := u.Post(ctx, fmt.Sprintf("/todos/%d/mark_as_done", ta))
		Expect(done).To(HaveStatus(http.StatusCreated))
		Expect(done.Get("state").String()).To(Equal("done"))
		Expect(u.Get(ctx, "/todos").JSON().Array()).To(HaveLen(1))
		Expect(u.Post(ctx, "/todos/mark_as_done")).To(HaveStatus(http.StatusNoContent))
		Expect(u.Get(ctx, "/todos").JSON().Array()).To(BeEmpty())
		Expect(other.Get(ctx, "/todos").JSON().Array()).To(HaveLen(1))
	})
})
