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

// issuesPath is the project's issue list.
func issuesPath(p *Project) string { return fmt.Sprintf("/projects/%d/issues", p.ID) }

var _ = Describe("GET /projects/:id/issues", Label("area:issues", "endpoint:issues.project_list"), func() {
	It("lists the project's issues newest first, all states and scopes unless asked, a page at a time", Label("rule:issues.list.1"), func(ctx SpecContext) {
		p := NewProject(ctx, api)
		u := NewUser(ctx)
		AddProjectMember(ctx, p, u, ReporterLevel)
		var iids []int64
		for _, t := range []string{"First", "Second", "Third"} {
			by := api
			if t == "Second" {
				by = u.Client
			}
			iids = append(iids, by.Post(ctx, issuesPath(p), Body(map[string]any{"title": t})).Get("iid").Int())
		}
		Expect(api.Put(ctx, fmt.Sprintf("%s/%d", issuesPath(p), iids[0]), Body(map[string]any{"state_event": "close"}))).To(HaveStatus(http.StatusOK))
		r := api.Get(ctx, issuesPath(p))
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(r).To(MatchSchema("issue", true))
		Expect(r.Strings("title")).To(Equal([]string{"Third", "Second", "First"}))
		Expect(api.Get(ctx, issuesPath(p), Q("state", "opened")).Strings("title")).To(Equal([]string{"Third", "Second"}))
		Expect(api.Get(ctx, issuesPath(p), Q("state", "closed")).Strings("title")).To(Equal([]string{"First"}))
		Expect(api.Get(ctx, issuesPath(p), Q("sort", "asc")).Strings("title")).To(Equal([]string{"First", "Second", "Third"}))
		Expect(api.Get(ctx, issuesPath(p), Q("order_by", "title"), Q("sort", "asc")).Strings("title")).To(Equal([]string{"First", "Second", "Third"}))
		page := api.Get(ctx, issuesPath(p), Q("per_page", 2), Q("page", 2))
		Expect(page.Strings("title")).To(Equal([]string{"First"}))
		Expect(page.Header.Get("X-Total")).To(Equal("3"))
		// Either spelling of a scope; the list of another member is the same project's list.
		Expect(u.Get(ctx, issuesPath(p), Q("scope", "created_by_me")).Strings("title")).To(Equal([]string{"Second"}))
		Expect(u.Get(ctx, issuesPath(p), Q("scope", "created-by-me")).Strings("title")).To(Equal([]string{"Second"}))
		Expect(u.Get(ctx, issuesPath(p)).Strings("title")).To(HaveLen(3))
		Expect(api.Get(ctx, issuesPath(p), Q("state", "merged"))).To(HaveStatus(http.StatusBadRequest))
		Expect(api.Get(ctx, issuesPath(p), Q("scope", "mine"))).To(HaveStatus(http.StatusBadRequest))
		Expect(api.Get(ctx, "/projects/999999999/issues")).To(HaveStatus(http.StatusNotFound))
	})

	It("filters by labels, milestone, author, assignee, search, iids and their negations", Label("rule:issues.list.2"), func(ctx SpecContext) {
		p := NewProject(ctx, api)
		u := NewUser(ctx)
		AddProjectMember(ctx, p, u, DeveloperLevel)
		ms := api.Post(ctx, milestonesPath(p), Body(map[string]any{"title": "v1"}))
		a := api.Post(ctx, issuesPath(p), Body(map[string]any{"title": "Crash on start", "labels": "bug,urgent",
			"milestone_id": ms.Get("id").Int(), "assignee_ids": []int{u.ID}}))
		b := u.Post(ctx, issuesPath(p), Body(map[string]any{"title": "Docs", "description": "the crash is documented", "labels": "docs"}))
		c := api.Post(ctx, issuesPath(p), Body(map[string]any{"title": "Plain"}))
		titles := func(opts ...Opt) []string { return api.Get(ctx, issuesPath(p), opts...).Strings("title") }
		Expect(titles(Q("labels", "bug,urgent"))).To(Equal([]string{"Crash on start"}))
		Expect(titles(Q("labels", "bug,docs"))).To(BeEmpty(), "every named label")
		Expect(titles(Q("labels", "None"))).To(Equal([]string{"Plain"}))
		Expect(titles(Q("labels", "Any"))).To(Equal([]string{"Docs", "Crash on start"}))
		Expect(titles(Q("milestone", "v1"))).To(Equal([]string{"Crash on start"}))
		Expect(titles(Q("milestone", "None"))).To(Equal([]string{"Plain", "Docs"}))
		Expect(titles(Q("milestone_id", "Any"))).To(Equal([]string{"Crash on start"}))
		Expect(titles(Q("author_id", u.ID))).To(Equal([]string{"Docs"}))
		Expect(titles(Q("author_username", u.Username))).To(Equal([]string{"Docs"}))
		Expect(titles(Q("assignee_id", u.ID))).To(Equal([]string{"Crash on start"}))
		Expect(titles(Q("assignee_id", "None"))).To(Equal([]string{"Plain", "Docs"}))
		Expect(titles(Q("assignee_username[]", u.Username))).To(Equal([]string{"Crash on start"}))
		Expect(titles(Q("search", "crash"))).To(Equal([]string{"Docs", "Crash on start"}), "title or description")
		Expect(titles(Q("search", "crash"), Q("in", "title"))).To(Equal([]string{"Crash on start"}))
		Expect(titles(Q("iids[]", a.Get("iid").Int()), Q("iids[]", c.Get("iid").Int()))).To(Equal([]string{"Plain", "Crash on start"}))
		Expect(titles(Q("not[labels]", "bug"))).To(Equal([]string{"Plain", "Docs"}))
		Expect(titles(Q("not[author_id]", u.ID))).To(Equal([]string{"Plain", "Crash on start"}))
		Expect(titles(Q("issue_type", "incident"))).To(BeEmpty())
		Expect(titles(Q("issue_type", "issue"))).To(HaveLen(3))
		Expect(titles(Q("with_labels_details", true), Q("labels", "docs"))).To(Equal([]string{"Docs"}))
		detailed := api.Get(ctx, issuesPath(p), Q("with_labels_details", true), Q("labels", "docs"))
		Expect(detailed.Get("0.labels.0.name").String()).To(Equal("docs"))
		Expect(detailed.Get("0.labels.0.color").String()).To(HavePrefix("#"))
		Expect(b.Get("iid").Int()).To(BeNumerically(">", 0))
		Expect(api.Get(ctx, issuesPath(p), Q("author_id", u.ID), Q("author_username", u.Username))).To(HaveStatus(http.StatusBadRequest))
		Expect(api.Get(ctx, issuesPath(p), Q("assignee_id", "nobody"))).To(HaveStatus(http.StatusBadRequest))
		Expect(api.Get(ctx, issuesPath(p), Q("order_by", "weight"))).To(HaveStatus(http.StatusBadRequest))
	})

	It("shows a confidential issue to its author, its assignees, Reporters and above only", Label("rule:issues.list.3"), func(ctx SpecContext) {
		p := NewProject(ctx, api, ProjectOpts{"visibility": "public"})
		guest, author, rep, outsider := NewUser(ctx), NewUser(ctx), NewUser(ctx), NewUser(ctx)
		AddProjectMember(ctx, p, guest, GuestLevel)
		AddProjectMember(ctx, p, author, GuestLevel)
		AddProjectMember(ctx, p, rep, ReporterLevel)
		secret := author.Post(ctx, issuesPath(p), Body(map[string]any{"title": "Secret", "confidential": true}))
		Expect(secret).To(HaveStatus(http.StatusCreated))
		api.Post(ctx, issuesPath(p), Body(map[string]any{"title": "Open"}))
		Expect(author.Get(ctx, issuesPath(p)).Strings("title")).To(Equal([]string{"Open", "Secret"}))
		Expect(rep.Get(ctx, issuesPath(p)).Strings("title")).To(Equal([]string{"Open", "Secret"}))
		Expect(guest.Get(ctx, issuesPath(p)).Strings("title")).To(Equal([]string{"Open"}))
		Expect(outsider.Get(ctx, issuesPath(p)).Strings("title")).To(Equal([]string{"Open"}))
		Expect(api.As("").Get(ctx, issuesPath(p)).Strings("title")).To(Equal([]string{"Open"}))
		Expect(guest.Get(ctx, fmt.Sprintf("%s/%d", issuesPath(p), secret.Get("iid").Int()))).To(HaveStatus(http.StatusNotFound))
		Expect(api.Get(ctx, issuesPath(p), Q("confidential", true)).Strings("title")).To(Equal([]string{"Secret"}))
	})
})

var _ = Describe("PUT /projects/:id/issues/:issue_iid", Label("area:issues", "endpoint:issues.update"), func() {
	It("changes title, description, labels, assignees, milestone and confidentiality", Label("rule:issues.update.1"), func(ctx SpecContext) {
		p := NewProject(ctx, api)
		u := NewUser(ctx)
		AddProjectMember(ctx, p, u, DeveloperLevel)
		ms := api.Post(ctx, milestonesPath(p), Body(map[string]any{"title": "v2"}))
		i := api.Post(ctx, issuesPath(p), Body(map[string]any{"title": "Old", "labels": "a,b"}))
		path := fmt.Sprintf("%s/%d", issuesPath(p), i.Get("iid").Int())
		r := api.Put(ctx, path, Body(map[string]any{"title": "New", "description": "Body text", "assignee_ids": []int{u.ID},
			"milestone_id": ms.Get("id").Int(), "confidential": true, "due_date": "2099-01-02"}))
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(r).To(MatchSchema("issue", false))
		Expect(r.Get("title").String()).To(Equal("New"))
		Expect(r.Get("description").String()).To(Equal("Body text"))
		Expect(r.Get("assignees.#.id").Raw).To(MatchJSON(fmt.Sprintf("[%d]", u.ID)))
		Expect(r.Get("milestone.title").String()).To(Equal("v2"))
		Expect(r.Get("confidential").Bool()).To(BeTrue())
		Expect(r.Get("due_date").String()).To(Equal("2099-01-02"))
		Expect(api.Put(ctx, path, Body(map[string]any{"add_labels": "c", "remove_labels": "a"})).Get("labels").Value()).To(ConsistOf("b", "c"))
		Expect(api.Put(ctx, path, Body(map[string]any{"labels": []string{"x", "y"}})).Get("labels").Value()).To(ConsistOf("x", "y"))
		// Renovate's own form: labels joined by commas, an empty string for none.
		Expect(api.Put(ctx, path, Body(map[string]any{"labels": ""})).Get("labels").Raw).To(MatchJSON(`[]`))
		r = api.Put(ctx, path, Body(map[string]any{"milestone_id": 0, "assignee_ids": []int{}, "due_date": ""}))
		Expect(r.Get("milestone").Type.String()).To(Equal("Null"))
		Expect(r.Get("assignees").Raw).To(MatchJSON(`[]`))
		Expect(r.Get("due_date").Type.String()).To(Equal("Null"))
		Expect(api.Get(ctx, path).Get("title").String()).To(Equal("New"))
	})

	It("closes and reopens, with closed_at and closed_by", Label("rule:issues.update.2"), func(ctx SpecContext) {
		p := NewProject(ctx, api)
		i := api.Post(ctx, issuesPath(p), Body(map[string]any{"title": "Done soon"}))
		Expect(i.Get("closed_at").Type.String()).To(Equal("Null"))
		path := fmt.Sprintf("%s/%d", issuesPath(p), i.Get("iid").Int())
		r := api.Put(ctx, path, Body(map[string]any{"state_event": "close"}))
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(r.Get("state").String()).To(Equal("closed"))
		Expect(r.Get("closed_at").String()).NotTo(BeEmpty())
		Expect(r.Get("closed_by.username").String()).To(Equal(r.Get("author.username").String()))
		Expect(api.Put(ctx, path, Body(map[string]any{"state_event": "close"})).Get("state").String()).To(Equal("closed"))
		r = api.Put(ctx, path, Body(map[string]any{"state_event": "reopen"}))
		Expect(r.Get("state").String()).To(Equal("opened"))
		Expect(r.Get("closed_at").Type.String()).To(Equal("Null"))
		Expect(r.Get("closed_by").Type.String()).To(Equal("Null"))
		Expect(api.Put(ctx, path, Body(map[string]any{"state_event": "resolve"}))).To(HaveStatus(http.StatusBadRequest))
	})

	It("needs an attribute, the author, an assignee or a Reporter, and an issue that exists", Label("rule:issues.update.3"), func(ctx SpecContext) {
		p := NewProject(ctx, api, ProjectOpts{"visibility": "public"})
		author, guest, rep, outsider := NewUser(ctx), NewUser(ctx), NewUser(ctx), NewUser(ctx)
		AddProjectMember(ctx, p, author, GuestLevel)
		AddProjectMember(ctx, p, guest, GuestLevel)
		AddProjectMember(ctx, p, rep, ReporterLevel)
		i := author.Post(ctx, issuesPath(p), Body(map[string]any{"title": "Mine"}))
		path := fmt.Sprintf("%s/%d", issuesPath(p), i.Get("iid").Int())
		Expect(api.Put(ctx, path, Body(map[string]any{}))).To(HaveStatus(http.StatusBadRequest))
		Expect(api.Put(ctx, path, Body(map[string]any{"title": " "}))).To(HaveStatus(http.StatusBadRequest))
		Expect(guest.Put(ctx, path, Body(map[string]any{"title": "Theirs"}))).To(HaveStatus(http.StatusForbidden))
		Expect(outsider.Put(ctx, path, Body(map[string]any{"title": "Theirs"}))).To(HaveStatus(http.StatusForbidden))
		Expect(api.As("").Put(ctx, path, Body(map[string]any{"title": "Theirs"}))).To(HaveStatus(http.StatusUnauthorized))
		Expect(api.Get(ctx, path).Get("title").String()).To(Equal("Mine"), "a refused edit changes nothing")
		Expect(author.Put(ctx, path, Body(map[string]any{"title": "Still mine"}))).To(HaveStatus(http.StatusOK))
		Expect(rep.Put(ctx, path, Body(map[string]any{"title": "Triaged"}))).To(HaveStatus(http.StatusOK))
		Expect(api.Put(ctx, fmt.Sprintf("%s/%d", issuesPath(p), 999999), Body(map[string]any{"title": "x"}))).To(HaveStatus(http.StatusNotFound))
	})
})
