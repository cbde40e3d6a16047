package suites

import (
	"fmt"
	"net/http"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// Blocks, subscriptions, to-do items, time tracking and notes of merge requests.

var _ = Describe("POST /projects/:id/merge_requests/:merge_request_iid/blocks", Label("area:merge_requests", "endpoint:merge_requests.blocks.create"), func() {
	It("records a block that the list then shows", Label("rule:merge_requests.blocks.1"), func(ctx SpecContext) {
		p := NewRepoProject(ctx, api)
		blocked, blocking := p.FeatureMR(ctx, "blocked"), p.FeatureMR(ctx, "blocking")
		r := api.Post(ctx, p.MR(blocked.IID, "/blocks"), Body(map[string]any{"blocking_merge_request_id": blocking.ID}))
		Expect(r).To(HaveStatus(http.StatusCreated))
		Expect(r).To(MatchSchema("merge_request_block", false))
		Expect(r.Get("blocking_merge_request.id").Int()).To(BeEquivalentTo(blocking.ID))
		Expect(r.Get("blocked_merge_request.id").Int()).To(BeEquivalentTo(blocked.ID))
		Expect(r.Get("project_id").Int()).To(BeEquivalentTo(p.ID))
		list := api.Get(ctx, p.MR(blocked.IID, "/blocks"))
		Expect(list).To(HaveStatus(http.StatusOK))
		Expect(list.IDs()).To(Equal([]int{int(r.Get("id").Int())}))
		Expect(api.Get(ctx, p.MR(blocking.IID, "/blocks")).JSON().Array()).To(BeEmpty())
	})

	It("refuses a block that cannot be saved and a missing blocking_merge_request_id", Label("rule:merge_requests.blocks.2"), func(ctx SpecContext) {
		p := NewRepoProject(ctx, api)
		mr := p.FeatureMR(ctx, "topic")
		Expect(api.Post(ctx, p.MR(mr.IID, "/blocks"), Body(map[string]any{"blocking_merge_request_id": mr.ID}))).To(HaveStatus(http.StatusBadRequest))
		Expect(api.Post(ctx, p.MR(mr.IID, "/blocks"), Body(map[string]any{}))).To(BeMissingAttribute("blocking_merge_request_id"))
		Expect(api.Get(ctx, p.MR(mr.IID, "/blocks")).JSON().Array()).To(BeEmpty())
	})

	It("answers 404 for a blocking merge request that does not exist", Label("rule:merge_requests.blocks.3"), func(ctx SpecContext) {
		p := NewRepoProject(ctx, api)
		mr := p.FeatureMR(ctx, "topic")
		Expect(api.Post(ctx, p.MR(mr.IID, "/blocks"), Body(map[string]any{"blocking_merge_request_id": 999999999}))).To(HaveStatus(http.StatusNotFound))
	})

	It("needs read permission on the blocking one and update permission on the blocked one", Label("rule:merge_requests.blocks.4"), func(ctx SpecContext) {
		w := NewMRRoles(ctx, "private")
		dev, rep := w.Members[DeveloperLevel], w.Members[ReporterLevel]
		blocked := w.P.FeatureMR(ctx, "blocked")
		hidden := NewRepoProject(ctx, api)
		secret := hidden.FeatureMR(ctx, "secret")
		visible := w.P.FeatureMR(ctx, "visible")
		Expect(dev.Post(ctx, w.P.MR(blocked.IID, "/blocks"), Body(map[string]any{"blocking_merge_request_id": secret.ID}))).To(HaveStatus(http.StatusForbidden))
		Expect(rep.Post(ctx, w.P.MR(blocked.IID, "/blocks"), Body(map[string]any{"blocking_merge_request_id": visible.ID}))).To(HaveStatus(http.StatusForbidden))
		Expect(api.Get(ctx, w.P.MR(blocked.IID, "/blocks")).JSON().Array()).To(BeEmpty())
		Expect(dev.Post(ctx, w.P.MR(blocked.IID, "/blocks"), Body(map[string]any{"blocking_merge_request_id": visible.ID}))).To(HaveStatus(http.StatusCreated))
	})

	It("answers 409 for a block that exists", Label("rule:merge_requests.blocks.5"), func(ctx SpecContext) {
		p := NewRepoProject(ctx, api)
		blocked, blocking := p.FeatureMR(ctx, "blocked"), p.FeatureMR(ctx, "blocking")
		body := Body(map[string]any{"blocking_merge_request_id": blocking.ID})
		Expect(api.Post(ctx, p.MR(blocked.IID, "/blocks"), body)).To(HaveStatus(http.StatusCreated))
		Expect(api.Post(ctx, p.MR(blocked.IID, "/blocks"), body)).To(HaveStatus(http.StatusConflict))
		Expect(api.Get(ctx, p.MR(blocked.IID, "/blocks")).JSON().Array()).To(HaveLen(1))
	})
})

var _ = Describe("DELETE /projects/:id/merge_requests/:merge_request_iid/blocks/:block_id", Label("area:merge_requests", "endpoint:merge_requests.blocks.delete"), func() {
	It("removes a block, or answers 403 without the permissions", Label("rule:merge_requests.blocks.6"), func(ctx SpecContext) {
		w := NewMRRoles(ctx, "private")
		dev, rep := w.Members[DeveloperLevel], w.Members[ReporterLevel]
		blocked := w.P.FeatureMR(ctx, "blocked")
		hidden := NewRepoProject(ctx, api)
		secret := hidden.FeatureMR(ctx, "secret")
		visible := w.P.FeatureMR(ctx, "visible")
		hiddenBlock := api.Post(ctx, w.P.MR(blocked.IID, "/blocks"), Body(map[string]any{"blocking_merge_request_id": secret.ID})).Get("id").Int()
		block := api.Post(ctx, w.P.MR(blocked.IID, "/blocks"), Body(map[string]any{"blocking_merge_request_id": visible.ID})).Get("id").Int()
		Expect(dev.Delete(ctx, w.P.MR(blocked.IID, fmt.Sprintf("/blocks/%d", hiddenBlock)))).To(HaveStatus(http.StatusForbidden))
		Expect(rep.Delete(ctx, w.P.MR(blocked.IID, fmt.Sprintf("/blocks/%d", block)))).To(HaveStatus(http.StatusForbidden))
		Expect(api.Get(ctx, w.P.MR(blocked.IID, "/blocks")).JSON().Array()).To(HaveLen(2))
		Expect(dev.Delete(ctx, w.P.MR(blocked.IID, fmt.Sprintf("/blocks/%d", block)))).To(HaveStatus(http.StatusNoContent))
		Expect(api.Get(ctx, w.P.MR(blocked.IID, "/blocks")).IDs()).To(Equal([]int{int(hiddenBlock)}))
		Expect(dev.Delete(ctx, w.P.MR(blocked.IID, fmt.Sprintf("/blocks/%d", block)))).To(HaveStatus(http.StatusNotFound))
	})
})

var _ = Describe("GET /projects/:id/merge_requests/:merge_request_iid/blocks", Label("area:merge_requests", "endpoint:merge_requests.blocks.list"), func() {
	It("holds a blocked merge request until its blocking one merges", Label("rule:merge_requests.blocks.7"), func(ctx SpecContext) {
		p := NewRepoProject(ctx, api)
		blocked, blocking := p.FeatureMR(ctx, "blocked"), p.FeatureMR(ctx, "blocking")
		Expect(api.Post(ctx, p.MR(blocked.IID, "/blocks"), Body(map[string]any{"blocking_merge_request_id": blocking.ID}))).To(HaveStatus(http.StatusCreated))
		Expect(p.getMR(ctx, api, blocked.IID).Get("detailed_merge_status").String()).To(Equal("blocked_status"))
		Expect(p.merge(ctx, api, blocked.IID, nil)).To(HaveStatus(http.StatusMethodNotAllowed))
		Expect(p.merge(ctx, api, blocking.IID, nil)).To(HaveStatus(http.StatusOK))
		Expect(p.getMR(ctx, api, blocked.IID).Get("detailed_merge_status").String()).To(Equal("mergeable"))
		Expect(p.merge(ctx, api, blocked.IID, nil)).To(HaveStatus(http.StatusOK))
	})
})

var _ = Describe("POST /projects/:id/merge_requests/:merge_request_iid/subscribe", Label("area:merge_requests", "endpoint:merge_requests.subscribe"), func() {
	It("subscribes the caller, 304 when already subscribed", Label("rule:merge_requests.subscribe.1"), func(ctx SpecContext) {
		p := NewRepoProject(ctx, api)
		u := NewUser(ctx)
		AddProjectMember(ctx, &Project{ID: p.ID}, u, ReporterLevel)
		mr := p.FeatureMR(ctx, "topic")
		Expect(p.getMR(ctx, u.Client, mr.IID).Get("subscribed").Bool()).To(BeFalse())
		r := u.Post(ctx, p.MR(mr.IID, "/subscribe"))
		Expect(r).To(HaveStatus(http.StatusCreated))
		Expect(r).To(MatchSchema("merge_request_detail", false))
		Expect(r.Get("subscribed").Bool()).To(BeTrue())
		again := u.Post(ctx, p.MR(mr.IID, "/subscribe"))
		Expect(again).To(HaveStatus(http.StatusNotModified))
		Expect(again.Body).To(BeEmpty())
		Expect(api.Post(ctx, p.MR(mr.IID, "/subscribe"))).To(HaveStatus(http.StatusNotModified), "the author is subscribed from the start")
	})
})

var _ = Describe("POST /projects/:id/merge_requests/:merge_request_iid/unsubscribe", Label("area:merge_requests", "endpoint:merge_requests.unsubscribe"), func() {
	It("unsubscribes the caller, 304 when not subscribed", Label("rule:merge_requests.subscribe.2"), func(ctx SpecContext) {
		p := NewRepoProject(ctx, api)
		u := NewUser(ctx)
		AddProjectMember(ctx, &Project{ID: p.ID}, u, ReporterLevel)
		mr := p.FeatureMR(ctx, "topic")
		Expect(u.Post(ctx, p.MR(mr.IID, "/unsubscribe"))).To(HaveStatus(http.StatusNotModified))
		r := api.Post(ctx, p.MR(mr.IID, "/unsubscribe"))
		Expect(r).To(HaveStatus(http.StatusCreated))
		Expect(r.Get("subscribed").Bool()).To(BeFalse())
		Expect(p.getMR(ctx, api, mr.IID).Get("subscribed").Bool()).To(BeFalse())
		Expect(api.Post(ctx, p.MR(mr.IID, "/unsubscribe"))).To(HaveStatus(http.StatusNotModified))
	})
})

var _ = Describe("POST /projects/:id/merge_requests/:merge_request_iid/todo", Label("area:merge_requests", "endpoint:merge_requests.todo"), func() {
	It("creates a to-do item the caller's list shows", Label("rule:merge_requests.todo.1"), func(ctx SpecContext) {
		p := NewRepoProject(ctx, api)
		u := NewUser(ctx)
		AddProjectMember(ctx, &Project{ID: p.ID}, u, ReporterLevel)
		mr := p.FeatureMR(ctx, "topic")
		r := u.Post(ctx, p.MR(mr.IID, "/todo"))
		Expect(r).To(HaveStatus(http.StatusCreated))
		Expect(r).To(MatchSchema("todo", false))
		Expect(r.Get("action_name").String()).To(Equal("marked"))
		Expect(r.Get("target_type").String()).To(Equal("MergeRequest"))
		Expect(r.Get("target.id").Int()).To(BeEquivalentTo(mr.ID))
		Expect(r.Get("target_url").String()).To(Equal(mr.Get("web_url").String()))
		Expect(r.Get("state").String()).To(Equal("pending"))
		Expect(r.Get("author.id").Int()).To(BeEquivalentTo(u.ID))
		Expect(r.Get("project.id").Int()).To(BeEquivalentTo(p.ID))
		Expect(r.Get("project.path_with_namespace").String()).To(Equal(p.FullPath))
		list := u.Get(ctx, "/todos")
		Expect(list).To(HaveStatus(http.StatusOK))
		Expect(list.IDs()).To(Equal([]int{int(r.Get("id").Int())}))
	})

	It("answers 304 when the caller has a pending one", Label("rule:merge_requests.todo.2"), func(ctx SpecContext) {
		p := NewRepoProject(ctx, api)
		u := NewUser(ctx)
		AddProjectMember(ctx, &Project{ID: p.ID}, u, ReporterLevel)
		mr := p.FeatureMR(ctx, "topic")
		Expect(u.Post(ctx, p.MR(mr.IID, "/todo"))).To(HaveStatus(http.StatusCreated))
		Expect(u.Post(ctx, p.MR(mr.IID, "/todo"))).To(HaveStatus(http.StatusNotModified))
		Expect(u.Get(ctx, "/todos").JSON().Array()).To(HaveLen(1))
	})

	It("gives assignees and reviewers to-do items, done once merged", Label("rule:merge_requests.todo.3"), func(ctx SpecContext) {
		p := NewRepoProject(ctx, api)
		a, r := NewUser(ctx), NewUser(ctx)
		AddProjectMember(ctx, &Project{ID: p.ID}, a, DeveloperLevel)
		AddProjectMember(ctx, &Project{ID: p.ID}, r, DeveloperLevel)
		mr := p.FeatureMR(ctx, "topic", map[string]any{"assignee_ids": []int{a.ID}, "reviewer_ids": []int{r.ID}})
		at := a.Get(ctx, "/todos")
		Expect(at.Strings("action_name")).To(Equal([]string{"assigned"}))
		Expect(at.Get("0.target.iid").Int()).To(BeEquivalentTo(mr.IID))
		Expect(r.Get(ctx, "/todos").Strings("action_name")).To(Equal([]string{"review_requested"}))
		Expect(p.merge(ctx, api, mr.IID, nil)).To(HaveStatus(http.StatusOK))
		Expect(a.Get(ctx, "/todos").JSON().Array()).To(BeEmpty())
		Expect(a.Get(ctx, "/todos", Q("state", "done")).Strings("action_name")).To(Equal([]string{"assigned"}))
	})
})

var _ = Describe("POST /projects/:id/merge_requests/:merge_request_iid/time_estimate", Label("area:merge_requests", "endpoint:merge_requests.time_estimate"), func() {
	It("sets the estimate from a human duration", Label("rule:merge_requests.time.1"), func(ctx SpecContext) {
		p := NewRepoProject(ctx, api)
		mr := p.FeatureMR(ctx, "topic")
		r := api.Post(ctx, p.MR(mr.IID, "/time_estimate"), Body(map[string]any{"duration": "3h30m"}))
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(r).To(MatchSchema("time_stats", false))
		Expect(r.Body).To(MatchJSON(`{"time_estimate":12600,"total_time_spent":0,"human_time_estimate":"3h 30m","human_total_time_spent":null}`))
		Expect(p.getMR(ctx, api, mr.IID).Get("time_stats").Raw).To(MatchJSON(r.Body))
	})

	It("counts weeks of 5 days and days of 8 hours", Label("rule:merge_requests.time.2"), func(ctx SpecContext) {
		p := NewRepoProject(ctx, api)
		mr := p.FeatureMR(ctx, "topic")
		r := api.Post(ctx, p.MR(mr.IID, "/time_estimate"), Body(map[string]any{"duration": "1w2d"}))
		Expect(r.Get("time_estimate").Int()).To(BeEquivalentTo(56 * 3600))
		Expect(r.Get("human_time_estimate").String()).To(Equal("1w 2d"))
		r = api.Post(ctx, p.MR(mr.IID, "/time_estimate"), Body(map[string]any{"duration": "1d 4h"}))
		Expect(r.Get("time_estimate").Int()).To(BeEquivalentTo(12 * 3600))
	})

	It("refuses a missing or malformed duration", Label("rule:merge_requests.time.3"), func(ctx SpecContext) {
		p := NewRepoProject(ctx, api)
		mr := p.FeatureMR(ctx, "topic")
		Expect(api.Post(ctx, p.MR(mr.IID, "/time_estimate"), Body(map[string]any{"duration": "2h"}))).To(HaveStatus(http.StatusOK))
		expectMissingAttribute("merge_requests.time.3", api.Post(ctx, p.MR(mr.IID, "/time_estimate"), Body(map[string]any{})), "duration")
		for _, bad := range []string{"soon", "3x", "h3", "-1h"} {
			Expect(api.Post(ctx, p.MR(mr.IID, "/time_estimate"), Body(map[string]any{"duration": bad}))).To(HaveStatus(http.StatusBadRequest), bad)
		}
		Expect(p.getMR(ctx, api, mr.IID).Get("time_stats.time_estimate").Int()).To(BeEquivalentTo(7200))
	})

	It("takes the Developer role", Label("rule:merge_requests.time.4"), func(ctx SpecContext) {
		w := NewMRRoles(ctx, "private")
		mr := w.P.FeatureMR(ctx, "topic")
		Expect(w.Members[ReporterLevel].Post(ctx, w.P.MR(mr.IID, "/time_estimate"), Body(map[string]any{"duration": "1h"}))).To(HaveStatus(http.StatusForbidden))
		Expect(w.Members[DeveloperLevel].Post(ctx, w.P.MR(mr.IID, "/time_estimate"), Body(map[string]any{"duration": "1h"}))).To(HaveStatus(http.StatusOK))
	})
})

var _ = Describe("POST /projects/:id/merge_requests/:merge_request_iid/notes", Label("area:merge_requests", "endpoint:merge_requests.notes.create"), func() {
	It("comments on the merge request", Label("rule:merge_requests.notes.1"), func(ctx SpecContext) {
		p := NewRepoProject(ctx, api)
		mr := p.FeatureMR(ctx, "topic")
		first := api.Post(ctx, p.MR(mr.IID, "/notes"), Body(map[string]any{"body": "first"}))
		Expect(first).To(HaveStatus(http.StatusCreated))
		Expect(first.Get("noteable_type").String()).To(Equal("MergeRequest"))
		Expect(first.Get("noteable_id").Int()).To(BeEquivalentTo(mr.ID))
		Expect(first.Get("noteable_iid").Int()).To(BeEquivalentTo(mr.IID))
		Expect(first.Get("attachment").Type.String()).To(Equal("Null"))
		second := api.Post(ctx, p.MR(mr.IID, "/notes"), Body(map[string]any{"body": "second"}))
		list := api.Get(ctx, p.MR(mr.IID, "/notes"))
		Expect(list).To(HaveStatus(http.StatusOK))
		Expect(list.IDs()).To(Equal([]int{int(second.Get("id").Int()), int(first.Get("id").Int())}))
		Expect(api.Get(ctx, p.MR(mr.IID, "/notes"), Q("sort", "asc")).Strings("body")).To(Equal([]string{"first", "second"}))
		one := api.Get(ctx, p.MR(mr.IID, fmt.Sprintf("/notes/%d", first.Get("id").Int())))
		Expect(one.Get("body").String()).To(Equal("first"))
		Expect(api.Post(ctx, p.MR(mr.IID, "/notes"), Body(map[string]any{}))).To(BeMissingAttribute("body"))
	})
})
