package suites

import (
	"fmt"
	"net/http"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// Issues are provisioning for emoji reactions; once labels and milestones
// exist they carry the platform's full shape.

var _ = Describe("POST /projects/:id/issues", Label("area:issues", "endpoint:issues.create"), func() {
	It("carries labels, milestone, assignees, votes, notes count and due date", Label("rule:issues.fields.1"), func(ctx SpecContext) {
		p := NewProject(ctx, api)
		u := NewUser(ctx)
		AddProjectMember(ctx, p, u, GuestLevel)
		ms := api.Post(ctx, milestonesPath(p), Body(map[string]any{"title": "v1"}))
		r := api.Post(ctx, fmt.Sprintf("/projects/%d/issues", p.ID), Body(map[string]any{"title": "Broken", "labels": "bug,urgent",
			"milestone_id": ms.Get("id").Int(), "assignee_ids": []int{u.ID}, "due_date": "2099-12-31"}))
		Expect(r).To(HaveStatus(http.StatusCreated))
		Expect(r.Get("labels").Raw).To(MatchJSON(`["bug","urgent"]`))
		Expect(r.Get("milestone.title").String()).To(Equal("v1"))
		Expect(r.Get("assignees.#.id").Raw).To(MatchJSON(fmt.Sprintf("[%d]", u.ID)))
		Expect(r.Get("assignee.id").Int()).To(BeEquivalentTo(u.ID))
		Expect(r.Get("due_date").String()).To(Equal("2099-12-31"))
		Expect(api.Get(ctx, labelsPath(p)).Strings("name")).To(ConsistOf("bug", "urgent"))
		path := fmt.Sprintf("/projects/%d/issues/%d", p.ID, r.Get("iid").Int())
		Expect(u.Post(ctx, path+"/award_emoji", Body(map[string]any{"name": "thumbsup"}))).To(HaveStatus(http.StatusCreated))
		Expect(api.Post(ctx, path+"/award_emoji", Body(map[string]any{"name": "thumbsdown"}))).To(HaveStatus(http.StatusCreated))
		Expect(api.Post(ctx, path+"/notes", Body(map[string]any{"body": "seen"}))).To(HaveStatus(http.StatusCreated))
		got := api.Get(ctx, path)
		Expect(got.Get("upvotes").Int()).To(BeEquivalentTo(1))
		Expect(got.Get("downvotes").Int()).To(BeEquivalentTo(1))
		Expect(got.Get("user_notes_count").Int()).To(BeEquivalentTo(1))
		plain := api.Post(ctx, fmt.Sprintf("/projects/%d/issues", p.ID), Body(map[string]any{"title": "Plain"}))
		Expect(plain.Get("labels").Raw).To(MatchJSON(`[]`))
		Expect(plain.Get("milestone").Type.String()).To(Equal("Null"))
		Expect(plain.Get("due_date").Type.String()).To(Equal("Null"))
	})
})
