package suites

import (
	"fmt"
	"net/http"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// Milestones: the platform's provisioning for the milestone of merge requests.

func milestonesPath(p *Project) string { return fmt.Sprintf("/projects/%d/milestones", p.ID) }

var _ = Describe("POST /projects/:id/milestones", Label("area:milestones", "endpoint:milestones.create"), func() {
	It("creates a milestone the list and the single read show", Label("rule:milestones.create.1"), func(ctx SpecContext) {
		p := NewProject(ctx, api)
		r := api.Post(ctx, milestonesPath(p), Body(map[string]any{"title": "v1", "description": "First", "start_date": "2099-01-01", "due_date": "2099-02-01"}))
		Expect(r).To(HaveStatus(http.StatusCreated))
		Expect(r).To(MatchSchema("milestone", false))
		Expect(r.Get("iid").Int()).To(BeEquivalentTo(1))
		Expect(r.Get("project_id").Int()).To(BeEquivalentTo(p.ID))
		Expect(r.Get("state").String()).To(Equal("active"))
		Expect(r.Get("start_date").String()).To(Equal("2099-01-01"))
		Expect(r.Get("due_date").String()).To(Equal("2099-02-01"))
		second := api.Post(ctx, milestonesPath(p), Body(map[string]any{"title": "v2"}))
		Expect(second.Get("iid").Int()).To(BeEquivalentTo(2))
		Expect(api.Get(ctx, milestonesPath(p)).Strings("title")).To(ConsistOf("v1", "v2"))
		one := api.Get(ctx, fmt.Sprintf("%s/%d", milestonesPath(p), r.Get("id").Int()))
		Expect(one).To(HaveStatus(http.StatusOK))
		Expect(one.Get("title").String()).To(Equal("v1"))
		Expect(api.Get(ctx, fmt.Sprintf("%s/999999999", milestonesPath(p)))).To(HaveStatus(http.StatusNotFound))
	})

	It("refuses a missing or taken title and a due date before the start", Label("rule:milestones.create.2"), func(ctx SpecContext) {
		p := NewProject(ctx, api)
		Expect(api.Post(ctx, milestonesPath(p), Body(map[string]any{"title": "v1"}))).To(HaveStatus(http.StatusCreated))
		missing := api.Post(ctx, milestonesPath(p), Body(map[string]any{}))
		taken := api.Post(ctx, milestonesPath(p), Body(map[string]any{"title": "v1"}))
		backwards := api.Post(ctx, milestonesPath(p), Body(map[string]any{"title": "v2", "start_date": "2099-02-01", "due_date": "2099-01-01"}))
		// The platform answers Grape's {"error":"title is missing"} and, for
		// a model error, render_api_error!("Failed to create milestone
		// {...}", 400): a string naming the attribute, not the validation
		// object (milestones.create.2's platform.does).
		SpecOrPlatform("milestones.create.2", func() {
			Expect(missing).To(BeMissingAttribute("title"))
			Expect(taken).To(BeValidationError("title"))
			Expect(backwards).To(BeValidationError("due_date"))
		}, func() {
			Expect(missing).To(BeMissingAttributeAsPlatform("title"))
			for _, r := range []*Response{taken, backwards} {
				Expect(r).To(HaveStatus(http.StatusBadRequest))
				Expect(r.Get("message").String()).To(HavePrefix("Failed to create milestone "))
			}
			Expect(taken.Get("message").String()).To(ContainSubstring("title"))
			Expect(backwards.Get("message").String()).To(ContainSubstring("due_date"))
		})
		Expect(api.Get(ctx, milestonesPath(p)).Strings("title")).To(Equal([]string{"v1"}))
	})

	It("says expired once the due date has passed", Label("rule:milestones.create.3"), func(ctx SpecContext) {
		p := NewProject(ctx, api)
		past := api.Post(ctx, milestonesPath(p), Body(map[string]any{"title": "old", "due_date": "2000-01-01"}))
		Expect(past.Get("expired").Bool()).To(BeTrue())
		future := api.Post(ctx, milestonesPath(p), Body(map[string]any{"title": "new", "due_date": "2099-01-01"}))
		Expect(future.Get("expired").Bool()).To(BeFalse())
		none := api.Post(ctx, milestonesPath(p), Body(map[string]any{"title": "open"}))
		Expect(none.Get("expired").Bool()).To(BeFalse())
	})
})

var _ = Describe("PUT /projects/:id/milestones/:milestone_id", Label("area:milestones", "endpoint:milestones.update"), func() {
	It("closes and activates a milestone", Label("rule:milestones.update.1"), func(ctx SpecContext) {
		p := NewProject(ctx, api)
		id := api.Post(ctx, milestonesPath(p), Body(map[string]any{"title": "v1"})).Get("id").Int()
		api.Post(ctx, milestonesPath(p), Body(map[string]any{"title": "v2"}))
		r := api.Put(ctx, fmt.Sprintf("%s/%d", milestonesPath(p), id), Body(map[string]any{"state_event": "close"}))
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(r.Get("state").String()).To(Equal("closed"))
		Expect(api.Get(ctx, milestonesPath(p), Q("state", "closed")).Strings("title")).To(Equal([]string{"v1"}))
		Expect(api.Get(ctx, milestonesPath(p), Q("state", "active")).Strings("title")).To(Equal([]string{"v2"}))
		r = api.Put(ctx, fmt.Sprintf("%s/%d", milestonesPath(p), id), Body(map[string]any{"state_event": "activate"}))
		Expect(r.Get("state").String()).To(Equal("active"))
	})
})
