package suites

import (
	"context"
	"fmt"
	"net/http"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// requestWorld is a public group with one member per role (a RoleWorld) and a
// public project inside it, so that every role holds the same level on both,
// plus a signed-in user who asks to join.
type requestWorld struct {
	*RoleWorld
	Project   *Project
	Requester *User
}

func newRequestWorld(ctx context.Context) *requestWorld {
	GinkgoHelper()
	w := &requestWorld{RoleWorld: NewRoleWorld(ctx, "public"), Requester: NewUser(ctx)}
	w.Project = NewProject(ctx, w.Owner.Client, ProjectOpts{"namespace_id": w.Group.ID, "visibility": "public"})
	return w
}

// requestsPath is the access-request collection of a group ("groups") or project ("projects").
func requestsPath(kind string, id int) string {
	return fmt.Sprintf("/%s/%d/access_requests", kind, id)
}

// sourceID picks the group or the project of the world.
func (w *requestWorld) sourceID(kind string) int {
	if kind == "groups" {
		return w.Group.ID
	}
	return w.Project.ID
}

// request makes u ask to join the group or project and expects it to succeed.
func (w *requestWorld) request(ctx context.Context, kind string, u *User) {
	GinkgoHelper()
	Expect(u.Post(ctx, requestsPath(kind, w.sourceID(kind)))).To(HaveStatus(http.StatusCreated))
}

// pending lists the user ids with a pending request, as an administrator sees them.
func (w *requestWorld) pending(ctx context.Context, kind string) []int {
	GinkgoHelper()
	r := api.Get(ctx, requestsPath(kind, w.sourceID(kind)), Q("per_page", 100))
	Expect(r).To(HaveStatus(http.StatusOK))
	return r.IDs()
}

var _ = Describe("Access requests without credentials", Label("area:access_requests"), func() {
	It("answers 401 on every access-request endpoint", Label("rule:access_requests.auth.1",
		"endpoint:access_requests.group.list", "endpoint:access_requests.project.list",
		"endpoint:access_requests.group.create", "endpoint:access_requests.project.create",
		"endpoint:access_requests.group.approve", "endpoint:access_requests.project.approve",
		"endpoint:access_requests.group.deny", "endpoint:access_requests.project.deny"), func(ctx SpecContext) {
		w := newRequestWorld(ctx)
		// Projects first: the platform refuses a project request from someone
		// whose request to the project's group is pending.
		for _, kind := range []string{"projects", "groups"} {
			w.request(ctx, kind, w.Requester)
			base := requestsPath(kind, w.sourceID(kind))
			anon := api.Anonymous()
			Expect(anon.Get(ctx, base)).To(HaveStatus(http.StatusUnauthorized))
			Expect(anon.Post(ctx, base)).To(HaveStatus(http.StatusUnauthorized))
			Expect(anon.Put(ctx, fmt.Sprintf("%s/%d/approve", base, w.Requester.ID))).To(HaveStatus(http.StatusUnauthorized))
			Expect(anon.Delete(ctx, fmt.Sprintf("%s/%d", base, w.Requester.ID))).To(HaveStatus(http.StatusUnauthorized))
			Expect(w.pending(ctx, kind)).To(Equal([]int{w.Requester.ID}), "anonymous calls change nothing")
		}
	})
})

var _ = Describe("GET /projects/:id/access_requests", Label("area:access_requests", "endpoint:access_requests.project.list"), func() {
	It("lists the pending requests with the requester's fields, oldest first", Label("rule:access_requests.list.1"), func(ctx SpecContext) {
		w := newRequestWorld(ctx)
		second := NewUser(ctx)
		w.request(ctx, "projects", w.Requester)
		w.request(ctx, "projects", second)
		r := w.Owner.Get(ctx, requestsPath("projects", w.Project.ID))
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(r).To(MatchSchema("access_request", true))
		Expect(r.IDs()).To(Equal([]int{w.Requester.ID, second.ID}))
		Expect(r.Get("0.username").String()).To(Equal(w.Requester.Username))
		Expect(r.Get("0.name").String()).To(Equal(w.Requester.Name))
		Expect(r.Get("0.state").String()).To(Equal("active"))
		Expect(r.Get("0.requested_at").String()).NotTo(BeEmpty())
	})

	It("is viewable by Maintainers, Owners and administrators only", Label("rule:access_requests.list.3"), func(ctx SpecContext) {
		w := newRequestWorld(ctx)
		w.request(ctx, "projects", w.Requester)
		path := requestsPath("projects", w.Project.ID)
		for _, lv := range []int{GuestLevel, ReporterLevel, DeveloperLevel} {
			Expect(w.Members[lv].Get(ctx, path)).To(HaveStatus(http.StatusForbidden), "level %d", lv)
		}
		Expect(w.Outsider.Get(ctx, path)).To(HaveStatus(http.StatusForbidden), "a signed-in outsider")
		Expect(w.Requester.Get(ctx, path)).To(HaveStatus(http.StatusForbidden), "the requester")
		for _, c := range []*Client{w.Members[MaintainerLevel].Client, w.Owner.Client, api} {
			r := c.Get(ctx, path)
			Expect(r).To(HaveStatus(http.StatusOK))
			Expect(r.IDs()).To(Equal([]int{w.Requester.ID}))
		}
	})

	It("paginates with page and per_page", Label("rule:access_requests.list.5"), func(ctx SpecContext) {
		w := newRequestWorld(ctx)
		users := []*User{w.Requester, NewUser(ctx), NewUser(ctx)}
		for _, u := range users {
			w.request(ctx, "projects", u)
		}
		path := requestsPath("projects", w.Project.ID)
		first := w.Owner.Get(ctx, path, Q("per_page", 2))
		Expect(first).To(HaveStatus(http.StatusOK))
		Expect(first.IDs()).To(Equal([]int{users[0].ID, users[1].ID}))
		Expect(first).To(HaveHeader("X-Page", "1"))
		Expect(first).To(HaveHeader("X-Per-Page", "2"))
		Expect(first).To(HaveHeader("X-Next-Page", "2"))
		Expect(first).To(HaveHeader("X-Total", "3"))
		Expect(first).To(HaveHeader("X-Total-Pages", "2"))
		Expect(linkRels(first)).To(ContainElements("next", "first", "last"))
		second := w.Owner.Get(ctx, path, Q("per_page", 2), Q("page", 2))
		Expect(second.IDs()).To(Equal([]int{users[2].ID}))
		Expect(second).To(HaveHeader("X-Prev-Page", "1"))
	})
})

var _ = Describe("GET /groups/:id/access_requests", Label("area:access_requests", "endpoint:access_requests.group.list"), func() {
	It("lists the pending requests with the requester's fields, oldest first", Label("rule:access_requests.list.2"), func(ctx SpecContext) {
		w := newRequestWorld(ctx)
		second := NewUser(ctx)
		w.request(ctx, "groups", w.Requester)
		w.request(ctx, "groups", second)
		r := w.Owner.Get(ctx, requestsPath("groups", w.Group.ID))
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(r).To(MatchSchema("access_request", true))
		Expect(r.IDs()).To(Equal([]int{w.Requester.ID, second.ID}))
		Expect(r.Get("1.username").String()).To(Equal(second.Username))
		Expect(r.Get("1.web_url").String()).NotTo(BeEmpty())
	})

	It("is viewable by Owners and administrators only", Label("rule:access_requests.list.4"), func(ctx SpecContext) {
		w := newRequestWorld(ctx)
		w.request(ctx, "groups", w.Requester)
		path := requestsPath("groups", w.Group.ID)
		for _, lv := range []int{GuestLevel, ReporterLevel, DeveloperLevel, MaintainerLevel} {
			Expect(w.Members[lv].Get(ctx, path)).To(HaveStatus(http.StatusForbidden), "level %d", lv)
		}
		Expect(w.Outsider.Get(ctx, path)).To(HaveStatus(http.StatusForbidden))
		for _, c := range []*Client{w.Owner.Client, api} {
			r := c.Get(ctx, path)
			Expect(r).To(HaveStatus(http.StatusOK))
			Expect(r.IDs()).To(Equal([]int{w.Requester.ID}))
		}
	})

	It("answers 404 for a group or project hidden from the caller", Label("rule:access_requests.list.6"), func(ctx SpecContext) {
		owner, outsider := NewUser(ctx), NewUser(ctx)
		g := NewGroup(ctx, owner.Client)
		p := NewProject(ctx, owner.Client)
		Expect(outsider.Get(ctx, requestsPath("groups", g.ID))).To(HaveStatus(http.StatusNotFound))
		Expect(outsider.Get(ctx, requestsPath("projects", p.ID))).To(HaveStatus(http.StatusNotFound))
		Expect(owner.Get(ctx, requestsPath("groups", g.ID))).To(HaveStatus(http.StatusOK), "the owner sees it")
	})
})

var _ = Describe("POST /projects/:id/access_requests", Label("area:access_requests", "endpoint:access_requests.project.create"), func() {
	It("records the caller's request and answers the requester", Label("rule:access_requests.create.1"), func(ctx SpecContext) {
		w := newRequestWorld(ctx)
		r := w.Requester.Post(ctx, requestsPath("projects", w.Project.ID))
		Expect(r).To(HaveStatus(http.StatusCreated))
		Expect(r).To(MatchSchema("access_request", false))
		Expect(r.Get("id").Int()).To(BeEquivalentTo(w.Requester.ID))
		Expect(r.Get("username").String()).To(Equal(w.Requester.Username))
		Expect(r.Get("requested_at").String()).NotTo(BeEmpty())
		Expect(w.pending(ctx, "projects")).To(Equal([]int{w.Requester.ID}))
		Expect(w.pending(ctx, "groups")).To(BeEmpty(), "a project request is not a group request")
	})

	It("refuses callers who already have access", Label("rule:access_requests.create.3"), func(ctx SpecContext) {
		w := newRequestWorld(ctx)
		direct := NewUser(ctx)
		AddProjectMember(ctx, w.Project, direct, ReporterLevel)
		Expect(direct.Post(ctx, requestsPath("projects", w.Project.ID))).To(HaveStatus(http.StatusForbidden), "a direct member")
		for _, lv := range []int{GuestLevel, DeveloperLevel, MaintainerLevel, OwnerLevel} {
			Expect(w.Members[lv].Post(ctx, requestsPath("projects", w.Project.ID))).To(HaveStatus(http.StatusForbidden), "a group member at level %d", lv)
			Expect(w.Members[lv].Post(ctx, requestsPath("groups", w.Group.ID))).To(HaveStatus(http.StatusForbidden), "a group member at level %d", lv)
		}
		Expect(w.pending(ctx, "projects")).To(BeEmpty())
		Expect(w.pending(ctx, "groups")).To(BeEmpty())
	})

	It("rejects a repeated request and keeps one", Label("rule:access_requests.create.5"), func(ctx SpecContext) {
		w := newRequestWorld(ctx)
		w.request(ctx, "projects", w.Requester)
		again := w.Requester.Post(ctx, requestsPath("projects", w.Project.ID))
		Expect(again).To(BeValidationError())
		Expect(w.pending(ctx, "projects")).To(Equal([]int{w.Requester.ID}))
	})

	It("answers 404 for a project or group hidden from the caller", Label("rule:access_requests.create.6"), func(ctx SpecContext) {
		owner, outsider := NewUser(ctx), NewUser(ctx)
		g := NewGroup(ctx, owner.Client)
		p := NewProject(ctx, owner.Client)
		Expect(outsider.Post(ctx, requestsPath("projects", p.ID))).To(HaveStatus(http.StatusNotFound))
		Expect(outsider.Post(ctx, requestsPath("groups", g.ID))).To(HaveStatus(http.StatusNotFound))
		Expect(api.Get(ctx, requestsPath("projects", p.ID)).IDs()).To(BeEmpty())
	})
})

var _ = Describe("POST /groups/:id/access_requests", Label("area:access_requests", "endpoint:access_requests.group.create"), func() {
	It("records the caller's request and answers the requester", Label("rule:access_requests.create.2"), func(ctx SpecContext) {
		w := newRequestWorld(ctx)
		r := w.Requester.Post(ctx, requestsPath("groups", w.Group.ID))
		Expect(r).To(HaveStatus(http.StatusCreated))
		Expect(r).To(MatchSchema("access_request", false))
		Expect(r.Get("id").Int()).To(BeEquivalentTo(w.Requester.ID))
		Expect(r.Get("name").String()).To(Equal(w.Requester.Name))
		Expect(w.pending(ctx, "groups")).To(Equal([]int{w.Requester.ID}))
	})

	It("refuses requests where request_access_enabled is false", Label("rule:access_requests.create.4"), func(ctx SpecContext) {
		owner, requester := NewUser(ctx), NewUser(ctx)
		g := NewGroup(ctx, owner.Client, GroupOpts{"visibility": "public", "request_access_enabled": false})
		p := NewProject(ctx, owner.Client, ProjectOpts{"visibility": "public", "request_access_enabled": false})
		Expect(requester.Post(ctx, requestsPath("groups", g.ID))).To(HaveStatus(http.StatusForbidden))
		Expect(requester.Post(ctx, requestsPath("projects", p.ID))).To(HaveStatus(http.StatusForbidden))
		Expect(api.Get(ctx, requestsPath("groups", g.ID)).IDs()).To(BeEmpty())
		Expect(api.Get(ctx, requestsPath("projects", p.ID)).IDs()).To(BeEmpty())
		// The same caller may ask where requests are open.
		open := NewProject(ctx, owner.Client, ProjectOpts{"visibility": "public"})
		Expect(requester.Post(ctx, requestsPath("projects", open.ID))).To(HaveStatus(http.StatusCreated))
	})
})

// approvePath is where a request of user is approved.
func approvePath(kind string, id, user int) string {
	return fmt.Sprintf("%s/%d/approve", requestsPath(kind, id), user)
}

var _ = Describe("PUT /projects/:id/access_requests/:user_id/approve", Label("area:access_requests", "endpoint:access_requests.project.approve"), func() {
	It("makes the requester a Developer by default", Label("rule:access_requests.approve.1"), func(ctx SpecContext) {
		w := newRequestWorld(ctx)
		w.request(ctx, "projects", w.Requester)
		r := w.Members[MaintainerLevel].Put(ctx, approvePath("projects", w.Project.ID, w.Requester.ID))
		Expect(r).To(HaveStatus(http.StatusOK, http.StatusCreated))
		Expect(r).To(MatchSchema("member", false))
		Expect(r.Get("id").Int()).To(BeEquivalentTo(w.Requester.ID))
		Expect(r.Get("username").String()).To(Equal(w.Requester.Username))
		Expect(r.Get("access_level").Int()).To(BeEquivalentTo(DeveloperLevel))
		Expect(w.pending(ctx, "projects")).To(BeEmpty())
		// A member has access: a new request is refused, and a Developer still may not manage requests.
		Expect(w.Requester.Post(ctx, requestsPath("projects", w.Project.ID))).To(HaveStatus(http.StatusForbidden))
		Expect(w.Requester.Get(ctx, requestsPath("projects", w.Project.ID))).To(HaveStatus(http.StatusForbidden))
	})

	It("is allowed to Maintainers, Owners and administrators only", Label("rule:access_requests.approve.3"), func(ctx SpecContext) {
		w := newRequestWorld(ctx)
		w.request(ctx, "projects", w.Requester)
		path := approvePath("projects", w.Project.ID, w.Requester.ID)
		for _, lv := range []int{GuestLevel, ReporterLevel, DeveloperLevel} {
			Expect(w.Members[lv].Put(ctx, path)).To(HaveStatus(http.StatusForbidden), "level %d", lv)
		}
		Expect(w.Requester.Put(ctx, path)).To(HaveStatus(http.StatusForbidden), "the requester")
		Expect(w.Outsider.Put(ctx, path)).To(HaveStatus(http.StatusForbidden), "a signed-in outsider")
		Expect(w.pending(ctx, "projects")).To(Equal([]int{w.Requester.ID}))
		for _, c := range []*Client{w.Owner.Client, api} {
			u := NewUser(ctx)
			w.request(ctx, "projects", u)
			Expect(c.Put(ctx, approvePath("projects", w.Project.ID, u.ID))).To(HaveStatus(http.StatusOK, http.StatusCreated))
		}
		Expect(w.pending(ctx, "projects")).To(Equal([]int{w.Requester.ID}))
	})

	It("answers 404 when the user has no pending request", Label("rule:access_requests.approve.5"), func(ctx SpecContext) {
		w := newRequestWorld(ctx)
		Expect(w.Owner.Put(ctx, approvePath("projects", w.Project.ID, w.Requester.ID))).To(HaveStatus(http.StatusNotFound))
		Expect(w.Owner.Put(ctx, approvePath("groups", w.Group.ID, w.Requester.ID))).To(HaveStatus(http.StatusNotFound))
		w.request(ctx, "groups", w.Requester)
		Expect(w.Owner.Put(ctx, approvePath("projects", w.Project.ID, w.Requester.ID))).To(HaveStatus(http.StatusNotFound),
			"a request to the group is no request to the project")
	})
})

var _ = Describe("PUT /groups/:id/access_requests/:user_id/approve", Label("area:access_requests", "endpoint:access_requests.group.approve"), func() {
	It("grants the access_level given", Label("rule:access_requests.approve.2"), func(ctx SpecContext) {
		w := newRequestWorld(ctx)
		w.request(ctx, "groups", w.Requester)
		r := w.Owner.Put(ctx, approvePath("groups", w.Group.ID, w.Requester.ID), Body(map[string]any{"access_level": MaintainerLevel}))
		Expect(r).To(HaveStatus(http.StatusOK, http.StatusCreated))
		Expect(r).To(MatchSchema("member", false))
		Expect(r.Get("access_level").Int()).To(BeEquivalentTo(MaintainerLevel))
		Expect(w.pending(ctx, "groups")).To(BeEmpty())
		// As a Maintainer of the group the new member now manages the project's requests.
		w.request(ctx, "projects", NewUser(ctx))
		Expect(w.Requester.Get(ctx, requestsPath("projects", w.Project.ID))).To(HaveStatus(http.StatusOK))
	})

	It("is allowed to Owners and administrators only", Label("rule:access_requests.approve.4"), func(ctx SpecContext) {
		w := newRequestWorld(ctx)
		w.request(ctx, "groups", w.Requester)
		path := approvePath("groups", w.Group.ID, w.Requester.ID)
		for _, lv := range []int{GuestLevel, ReporterLevel, DeveloperLevel, MaintainerLevel} {
			Expect(w.Members[lv].Put(ctx, path)).To(HaveStatus(http.StatusForbidden), "level %d", lv)
		}
		Expect(w.Requester.Put(ctx, path)).To(HaveStatus(http.StatusForbidden), "the requester")
		Expect(w.pending(ctx, "groups")).To(Equal([]int{w.Requester.ID}))
		Expect(api.Put(ctx, path, Body(map[string]any{"access_level": ReporterLevel}))).To(HaveStatus(http.StatusOK, http.StatusCreated))
		Expect(w.pending(ctx, "groups")).To(BeEmpty())
	})
})

// denyPath is where a request of user is denied or withdrawn.
func denyPath(kind string, id, user int) string {
	return fmt.Sprintf("%s/%d", requestsPath(kind, id), user)
}

var _ = Describe("DELETE /projects/:id/access_requests/:user_id", Label("area:access_requests", "endpoint:access_requests.project.deny"), func() {
	It("denies the request without making the requester a member", Label("rule:access_requests.deny.1"), func(ctx SpecContext) {
		w := newRequestWorld(ctx)
		w.request(ctx, "projects", w.Requester)
		r := w.Members[MaintainerLevel].Delete(ctx, denyPath("projects", w.Project.ID, w.Requester.ID))
		Expect(r).To(HaveStatus(http.StatusNoContent))
		Expect(w.pending(ctx, "projects")).To(BeEmpty())
		// Not a member: the requester may ask again.
		Expect(w.Requester.Post(ctx, requestsPath("projects", w.Project.ID))).To(HaveStatus(http.StatusCreated))
	})

	It("answers 404 when the user has no pending request", Label("rule:access_requests.deny.4"), func(ctx SpecContext) {
		w := newRequestWorld(ctx)
		Expect(w.Owner.Delete(ctx, denyPath("projects", w.Project.ID, w.Requester.ID))).To(HaveStatus(http.StatusNotFound))
		Expect(w.Owner.Delete(ctx, denyPath("groups", w.Group.ID, w.Requester.ID))).To(HaveStatus(http.StatusNotFound))
	})
})

var _ = Describe("DELETE /groups/:id/access_requests/:user_id", Label("area:access_requests", "endpoint:access_requests.group.deny"), func() {
	It("lets the requester withdraw their own request", Label("rule:access_requests.deny.2"), func(ctx SpecContext) {
		w := newRequestWorld(ctx)
		for _, kind := range []string{"groups", "projects"} {
			w.request(ctx, kind, w.Requester)
			Expect(w.Requester.Delete(ctx, denyPath(kind, w.sourceID(kind), w.Requester.ID))).To(HaveStatus(http.StatusNoContent))
			Expect(w.pending(ctx, kind)).To(BeEmpty())
		}
	})

	It("refuses callers who may not approve", Label("rule:access_requests.deny.3"), func(ctx SpecContext) {
		w := newRequestWorld(ctx)
		other := NewUser(ctx)
		for _, kind := range []string{"projects", "groups"} {
			w.request(ctx, kind, w.Requester)
			w.request(ctx, kind, other)
		}
		group := denyPath("groups", w.Group.ID, w.Requester.ID)
		for _, lv := range []int{GuestLevel, ReporterLevel, DeveloperLevel, MaintainerLevel} {
			Expect(w.Members[lv].Delete(ctx, group)).To(HaveStatus(http.StatusForbidden), "group level %d", lv)
		}
		Expect(other.Delete(ctx, group)).To(HaveStatus(http.StatusForbidden), "another requester")
		project := denyPath("projects", w.Project.ID, w.Requester.ID)
		for _, lv := range []int{GuestLevel, ReporterLevel, DeveloperLevel} {
			Expect(w.Members[lv].Delete(ctx, project)).To(HaveStatus(http.StatusForbidden), "project level %d", lv)
		}
		Expect(other.Delete(ctx, project)).To(HaveStatus(http.StatusForbidden), "another requester")
		Expect(w.pending(ctx, "groups")).To(Equal([]int{w.Requester.ID, other.ID}))
		Expect(w.pending(ctx, "projects")).To(Equal([]int{w.Requester.ID, other.ID}))
		Expect(w.Owner.Delete(ctx, group)).To(HaveStatus(http.StatusNoContent), "the Owner may")
	})
})
