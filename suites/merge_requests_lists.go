package suites

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/tidwall/gjson"
)

// The two merge request lists and every attribute of the spec's table.

// listIIDs lists a project's merge requests with opts as the administrator and returns their iids.
func (p *RepoProject) listIIDs(ctx SpecContext, opts ...Opt) []int {
	GinkgoHelper()
	r := api.Get(ctx, p.MRs(), append(opts, Q("per_page", 100))...)
	Expect(r).To(HaveStatus(http.StatusOK))
	return iids(r)
}

// globalIDs lists GET /merge_requests as by and returns the ids.
func globalIDs(ctx SpecContext, by *Client, opts ...Opt) []int {
	GinkgoHelper()
	r := by.Get(ctx, "/merge_requests", append(opts, Q("per_page", 100))...)
	Expect(r).To(HaveStatus(http.StatusOK))
	return r.IDs()
}

// expectOrdered checks that a list answer is ordered by key then id, in the direction asked.
func expectOrdered(r *Response, key func(gjson.Result) string, desc bool) {
	GinkgoHelper()
	items := r.JSON().Array()
	for i := 0; i+1 < len(items); i++ {
		a, b := items[i], items[i+1]
		ka, kb := key(a), key(b)
		c := strings.Compare(ka, kb)
		if c == 0 {
			c = int(a.Get("id").Int() - b.Get("id").Int())
		}
		if desc {
			Expect(c).To(BeNumerically(">", 0), "item %d (%s, id %d) before item %d (%s, id %d)", i, ka, a.Get("id").Int(), i+1, kb, b.Get("id").Int())
		} else {
			Expect(c).To(BeNumerically("<", 0), "item %d (%s, id %d) before item %d (%s, id %d)", i, ka, a.Get("id").Int(), i+1, kb, b.Get("id").Int())
		}
	}
}

var _ = Describe("GET /merge_requests", Label("area:merge_requests", "endpoint:merge_requests.list"), func() {
	It("lists the caller's own by default, then by scope", Label("rule:merge_requests.list.1"), func(ctx SpecContext) {
		u := NewUser(ctx)
		tag := Unique("scope")
		p := NewRepoProject(ctx, api)
		AddProjectMember(ctx, &Project{ID: p.ID}, u, DeveloperLevel)
		p.Feature(ctx, "mine")
		mine := p.OpenMR(ctx, u.Client, "mine", "Mine "+tag)
		theirs := p.FeatureMR(ctx, "theirs", map[string]any{"title": "Theirs " + tag, "assignee_ids": []int{u.ID}})
		other := p.FeatureMR(ctx, "other", map[string]any{"title": "Other " + tag})
		Expect(globalIDs(ctx, u.Client)).To(Equal([]int{mine.ID}))
		Expect(globalIDs(ctx, u.Client, Q("scope", "created_by_me"))).To(Equal([]int{mine.ID}))
		Expect(globalIDs(ctx, u.Client, Q("scope", "assigned_to_me"))).To(Equal([]int{theirs.ID}))
		Expect(globalIDs(ctx, u.Client, Q("scope", "all"), Q("search", tag))).To(ConsistOf(mine.ID, theirs.ID, other.ID))
	})

	It("needs credentials unless scope=all, which lists public projects' merge requests", Label("rule:merge_requests.list.2"), func(ctx SpecContext) {
		tag := Unique("anon")
		pub := NewRepoProject(ctx, api, ProjectOpts{"visibility": "public"})
		priv := NewRepoProject(ctx, api)
		open := pub.FeatureMR(ctx, "topic", map[string]any{"title": "Public " + tag})
		priv.FeatureMR(ctx, "topic", map[string]any{"title": "Private " + tag})
		Expect(api.Anonymous().Get(ctx, "/merge_requests")).To(HaveStatus(http.StatusUnauthorized))
		Expect(api.Anonymous().Get(ctx, "/merge_requests", Q("scope", "created_by_me"))).To(HaveStatus(http.StatusUnauthorized))
		Expect(globalIDs(ctx, api.Anonymous(), Q("scope", "all"), Q("search", tag))).To(Equal([]int{open.ID}))
	})

	It("filters deployments on the global list only", Label("rule:merge_requests.list.8"), func(ctx SpecContext) {
		tag := Unique("deploy")
		p := NewRepoProject(ctx, api)
		mr := p.FeatureMR(ctx, "topic", map[string]any{"title": "Never deployed " + tag})
		// Fixed instants, so a recorded run replays the same requests.
		far, long := "2100-01-01T00:00:00Z", "1970-01-01T00:00:00Z"
		Expect(globalIDs(ctx, api, Q("scope", "all"), Q("search", tag))).To(Equal([]int{mr.ID}))
		Expect(globalIDs(ctx, api, Q("scope", "all"), Q("search", tag), Q("deployed_before", far))).To(BeEmpty())
		Expect(globalIDs(ctx, api, Q("scope", "all"), Q("search", tag), Q("deployed_after", long))).To(BeEmpty())
		Expect(p.listIIDs(ctx, Q("deployed_before", far))).To(Equal([]int{mr.IID}), "the project list ignores deployed_*")
	})

	It("searches where in says, on the global list only", Label("rule:merge_requests.list.10"), func(ctx SpecContext) {
		tag := Unique("where")
		p := NewRepoProject(ctx, api)
		inTitle := p.FeatureMR(ctx, "t", map[string]any{"title": "Title " + tag, "description": "nothing"})
		inDesc := p.FeatureMR(ctx, "d", map[string]any{"title": "Plain", "description": "About " + tag})
		all := func(opts ...Opt) []int {
			return globalIDs(ctx, api, append(opts, Q("scope", "all"), Q("search", tag))...)
		}
		Expect(all()).To(ConsistOf(inTitle.ID, inDesc.ID))
		Expect(all(Q("in", "title"))).To(Equal([]int{inTitle.ID}))
		Expect(all(Q("in", "description"))).To(Equal([]int{inDesc.ID}))
		Expect(all(Q("in", "title,description"))).To(ConsistOf(inTitle.ID, inDesc.ID))
		Expect(api.Get(ctx, "/merge_requests", Q("scope", "all"), Q("search", tag), Q("in", "body"))).To(HaveStatus(http.StatusBadRequest))
		Expect(p.listIIDs(ctx, Q("search", tag), Q("in", "title"))).To(ConsistOf(inTitle.IID, inDesc.IID), "the project list has no in")
	})

	It("takes the scopes and refuses others", Label("rule:merge_requests.list.28"), func(ctx SpecContext) {
		u := NewUser(ctx)
		p := NewRepoProject(ctx, api)
		AddProjectMember(ctx, &Project{ID: p.ID}, u, DeveloperLevel)
		assigned := p.FeatureMR(ctx, "a", map[string]any{"assignee_ids": []int{u.ID}})
		p.Feature(ctx, "own")
		own := p.OpenMR(ctx, u.Client, "own", "Own")
		p.FeatureMR(ctx, "neither")
		list := func(scope string) []int {
			r := u.Get(ctx, p.MRs(), Q("scope", scope))
			Expect(r).To(HaveStatus(http.StatusOK))
			return iids(r)
		}
		Expect(list("assigned_to_me")).To(Equal([]int{assigned.IID}))
		Expect(list("created_by_me")).To(Equal([]int{own.IID}))
		Expect(list("all")).To(HaveLen(3))
		Expect(api.Get(ctx, p.MRs(), Q("scope", "everything"))).To(HaveStatus(http.StatusBadRequest))
		Expect(api.Get(ctx, "/merge_requests", Q("scope", "everything"))).To(HaveStatus(http.StatusBadRequest))
	})
})

var _ = Describe("GET /projects/:id/merge_requests", Label("area:merge_requests", "endpoint:merge_requests.project_list"), func() {
	It("lists the project's merge requests to those who may read them", Label("rule:merge_requests.list.3"), func(ctx SpecContext) {
		w := NewMRRoles(ctx, "private")
		tag := Unique("visible")
		a := w.P.FeatureMR(ctx, "a", map[string]any{"title": "A " + tag})
		b := w.P.FeatureMR(ctx, "b", map[string]any{"title": "B " + tag})
		other := NewRepoProject(ctx, api)
		other.FeatureMR(ctx, "x")
		Expect(w.P.listIIDs(ctx)).To(ConsistOf(a.IID, b.IID))
		r := w.Members[ReporterLevel].Get(ctx, w.P.MRs())
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(iids(r)).To(ConsistOf(a.IID, b.IID))
		Expect(w.Members[GuestLevel].Get(ctx, w.P.MRs())).To(HaveStatus(http.StatusForbidden))
		Expect(w.Outsider.Get(ctx, w.P.MRs())).To(HaveStatus(http.StatusNotFound))
		Expect(globalIDs(ctx, w.Outsider.Client, Q("scope", "all"), Q("search", tag))).To(BeEmpty())
		Expect(globalIDs(ctx, w.Members[GuestLevel].Client, Q("scope", "all"), Q("search", tag))).To(BeEmpty())
		Expect(globalIDs(ctx, w.Members[ReporterLevel].Client, Q("scope", "all"), Q("search", tag))).To(ConsistOf(a.ID, b.ID))
	})

	It("filters by state", Label("rule:merge_requests.list.4"), func(ctx SpecContext) {
		p := NewRepoProject(ctx, api)
		open := p.FeatureMR(ctx, "open")
		closed := p.FeatureMR(ctx, "closed")
		merged := p.FeatureMR(ctx, "merged")
		api.Put(ctx, p.MR(closed.IID, ""), Body(map[string]any{"state_event": "close"}))
		Expect(p.merge(ctx, api, merged.IID, nil)).To(HaveStatus(http.StatusOK))
		Expect(p.listIIDs(ctx, Q("state", "opened"))).To(Equal([]int{open.IID}))
		Expect(p.listIIDs(ctx, Q("state", "closed"))).To(Equal([]int{closed.IID}))
		Expect(p.listIIDs(ctx, Q("state", "merged"))).To(Equal([]int{merged.IID}))
		Expect(p.listIIDs(ctx, Q("state", "all"))).To(ConsistOf(open.IID, closed.IID, merged.IID))
		Expect(p.listIIDs(ctx)).To(ConsistOf(open.IID, closed.IID, merged.IID))
		Expect(api.Get(ctx, p.MRs(), Q("state", "stale"))).To(HaveStatus(http.StatusBadRequest))
	})

	It("filters by assignee, None and Any", Label("rule:merge_requests.list.5"), func(ctx SpecContext) {
		w := NewMRRoles(ctx, "private")
		dev, rep := w.Members[DeveloperLevel], w.Members[ReporterLevel]
		toDev := w.P.FeatureMR(ctx, "dev", map[string]any{"assignee_ids": []int{dev.ID}})
		toRep := w.P.FeatureMR(ctx, "rep", map[string]any{"assignee_ids": []int{rep.ID}})
		nobody := w.P.FeatureMR(ctx, "nobody")
		Expect(w.P.listIIDs(ctx, Q("assignee_id", dev.ID))).To(Equal([]int{toDev.IID}))
		Expect(w.P.listIIDs(ctx, Q("assignee_id", "None"))).To(Equal([]int{nobody.IID}))
		Expect(w.P.listIIDs(ctx, Q("assignee_id", "Any"))).To(ConsistOf(toDev.IID, toRep.IID))
		Expect(w.P.listIIDs(ctx, Q("assignee_id", "none"))).To(Equal([]int{nobody.IID}), "predefined names in any case")
		Expect(api.Get(ctx, w.P.MRs(), Q("assignee_id", "someone"))).To(HaveStatus(http.StatusBadRequest))
	})

	It("filters by author_id or author_username, not both", Label("rule:merge_requests.list.6"), func(ctx SpecContext) {
		w := NewMRRoles(ctx, "private")
		dev := w.Members[DeveloperLevel]
		w.P.Feature(ctx, "dev")
		byDev := w.P.OpenMR(ctx, dev.Client, "dev", "By dev")
		byOwner := w.P.FeatureMR(ctx, "owner")
		Expect(w.P.listIIDs(ctx, Q("author_id", dev.ID))).To(Equal([]int{byDev.IID}))
		Expect(w.P.listIIDs(ctx, Q("author_username", w.Owner.Username))).To(Equal([]int{byOwner.IID}))
		Expect(api.Get(ctx, w.P.MRs(), Q("author_id", dev.ID), Q("author_username", dev.Username))).To(HaveStatus(http.StatusBadRequest))
	})

	It("bounds created_at and updated_at inclusively", Label("rule:merge_requests.list.7"), func(ctx SpecContext) {
		p := NewRepoProject(ctx, api)
		mr := p.FeatureMR(ctx, "topic")
		r := p.getMR(ctx, api, mr.IID)
		for _, f := range []string{"created", "updated"} {
			at, err := time.Parse(time.RFC3339Nano, r.Get(f+"_at").String())
			Expect(err).NotTo(HaveOccurred())
			exact := at.UTC().Format(time.RFC3339Nano)
			Expect(p.listIIDs(ctx, Q(f+"_after", exact))).To(Equal([]int{mr.IID}), "%s_after is inclusive", f)
			Expect(p.listIIDs(ctx, Q(f+"_before", exact))).To(Equal([]int{mr.IID}), "%s_before is inclusive", f)
			Expect(p.listIIDs(ctx, Q(f+"_after", at.Add(time.Second).UTC().Format(time.RFC3339)))).To(BeEmpty())
			Expect(p.listIIDs(ctx, Q(f+"_before", at.Add(-time.Second).UTC().Format(time.RFC3339)))).To(BeEmpty())
		}
		Expect(api.Get(ctx, p.MRs(), Q("created_after", "yesterday"))).To(HaveStatus(http.StatusBadRequest))
	})

	It("keeps only what was deployed to environment", Label("rule:merge_requests.list.9"), func(ctx SpecContext) {
		p := NewRepoProject(ctx, api)
		mr := p.FeatureMR(ctx, "topic")
		Expect(p.listIIDs(ctx)).To(Equal([]int{mr.IID}))
		Expect(p.listIIDs(ctx, Q("environment", "production"))).To(BeEmpty())
	})

	It("selects iids on the project list only", Label("rule:merge_requests.list.11"), func(ctx SpecContext) {
		tag := Unique("iids")
		p := NewRepoProject(ctx, api)
		a := p.FeatureMR(ctx, "a", map[string]any{"title": "A " + tag})
		p.FeatureMR(ctx, "b", map[string]any{"title": "B " + tag})
		c := p.FeatureMR(ctx, "c", map[string]any{"title": "C " + tag})
		Expect(p.listIIDs(ctx, Q("iids[]", a.IID), Q("iids[]", c.IID))).To(ConsistOf(a.IID, c.IID))
		Expect(globalIDs(ctx, api, Q("scope", "all"), Q("search", tag), Q("iids[]", a.IID))).To(HaveLen(3), "the global list has no iids[]")
	})

	It("filters by labels, None and Any in any case", Label("rule:merge_requests.list.12"), func(ctx SpecContext) {
		p := NewRepoProject(ctx, api)
		a := p.FeatureMR(ctx, "a", map[string]any{"labels": "bug"})
		ab := p.FeatureMR(ctx, "ab", map[string]any{"labels": "bug,ui"})
		none := p.FeatureMR(ctx, "none")
		Expect(p.listIIDs(ctx, Q("labels", "bug"))).To(ConsistOf(a.IID, ab.IID))
		Expect(p.listIIDs(ctx, Q("labels", "bug,ui"))).To(Equal([]int{ab.IID}))
		Expect(p.listIIDs(ctx, Q("labels", "ui,missing"))).To(BeEmpty())
		for _, v := range []string{"None", "none", "NONE"} {
			Expect(p.listIIDs(ctx, Q("labels", v))).To(Equal([]int{none.IID}), v)
		}
		for _, v := range []string{"Any", "any", "ANY"} {
			Expect(p.listIIDs(ctx, Q("labels", v))).To(ConsistOf(a.IID, ab.IID), v)
		}
	})

	It("filters by the merging user, by id or username but not both", Label("rule:merge_requests.list.13"), func(ctx SpecContext) {
		w := NewMRRoles(ctx, "private")
		dev := w.Members[DeveloperLevel]
		byDev := w.P.FeatureMR(ctx, "dev")
		byOwner := w.P.FeatureMR(ctx, "own")
		w.P.FeatureMR(ctx, "open")
		Expect(w.P.merge(ctx, dev.Client, byDev.IID, nil)).To(HaveStatus(http.StatusOK))
		Expect(w.P.merge(ctx, w.Owner.Client, byOwner.IID, nil)).To(HaveStatus(http.StatusOK))
		Expect(w.P.listIIDs(ctx, Q("merge_user_id", dev.ID))).To(Equal([]int{byDev.IID}))
		Expect(w.P.listIIDs(ctx, Q("merge_user_username", w.Owner.Username))).To(Equal([]int{byOwner.IID}))
		Expect(api.Get(ctx, w.P.MRs(), Q("merge_user_id", dev.ID), Q("merge_user_username", dev.Username))).To(HaveStatus(http.StatusBadRequest))
	})

	It("filters by milestone title, None and Any", Label("rule:merge_requests.list.14"), func(ctx SpecContext) {
		p := NewRepoProject(ctx, api)
		v1 := api.Post(ctx, fmt.Sprintf("/projects/%d/milestones", p.ID), Body(map[string]any{"title": "v1"})).Get("id").Int()
		v2 := api.Post(ctx, fmt.Sprintf("/projects/%d/milestones", p.ID), Body(map[string]any{"title": "v2"})).Get("id").Int()
		a := p.FeatureMR(ctx, "a", map[string]any{"milestone_id": v1})
		b := p.FeatureMR(ctx, "b", map[string]any{"milestone_id": v2})
		none := p.FeatureMR(ctx, "none")
		Expect(p.listIIDs(ctx, Q("milestone", "v1"))).To(Equal([]int{a.IID}))
		Expect(p.listIIDs(ctx, Q("milestone", "None"))).To(Equal([]int{none.IID}))
		Expect(p.listIIDs(ctx, Q("milestone", "any"))).To(ConsistOf(a.IID, b.IID))
	})

	It("filters by the caller's reaction, None and Any", Label("rule:merge_requests.list.15"), func(ctx SpecContext) {
		p := NewRepoProject(ctx, api)
		up := p.FeatureMR(ctx, "up")
		party := p.FeatureMR(ctx, "party")
		none := p.FeatureMR(ctx, "none")
		u := NewUser(ctx)
		AddProjectMember(ctx, &Project{ID: p.ID}, u, ReporterLevel)
		Expect(api.Post(ctx, p.MR(up.IID, "/award_emoji"), Body(map[string]any{"name": "thumbsup"}))).To(HaveStatus(http.StatusCreated))
		Expect(api.Post(ctx, p.MR(party.IID, "/award_emoji"), Body(map[string]any{"name": "tada"}))).To(HaveStatus(http.StatusCreated))
		Expect(u.Post(ctx, p.MR(none.IID, "/award_emoji"), Body(map[string]any{"name": "thumbsup"}))).To(HaveStatus(http.StatusCreated))
		Expect(p.listIIDs(ctx, Q("my_reaction_emoji", "thumbsup"))).To(Equal([]int{up.IID}))
		Expect(p.listIIDs(ctx, Q("my_reaction_emoji", "None"))).To(Equal([]int{none.IID}), "another user's reaction is not mine")
		Expect(p.listIIDs(ctx, Q("my_reaction_emoji", "Any"))).To(ConsistOf(up.IID, party.IID))
	})

	It("negates filters with not[...]", Label("rule:merge_requests.list.16"), func(ctx SpecContext) {
		w := NewMRRoles(ctx, "private")
		dev, rep := w.Members[DeveloperLevel], w.Members[ReporterLevel]
		v1 := api.Post(ctx, fmt.Sprintf("/projects/%d/milestones", w.P.ID), Body(map[string]any{"title": "v1"})).Get("id").Int()
		w.P.Feature(ctx, "a")
		a := w.P.OpenMR(ctx, dev.Client, "a", "A", map[string]any{"labels": "bug", "milestone_id": v1,
			"assignee_ids": []int{dev.ID}, "reviewer_ids": []int{rep.ID}})
		b := w.P.FeatureMR(ctx, "b", map[string]any{"assignee_ids": []int{rep.ID}, "reviewer_ids": []int{dev.ID}})
		Expect(api.Post(ctx, w.P.MR(a.IID, "/award_emoji"), Body(map[string]any{"name": "thumbsup"}))).To(HaveStatus(http.StatusCreated))
		both := []int{a.IID, b.IID}
		Expect(w.P.listIIDs(ctx)).To(ConsistOf(both))
		for _, c := range []struct {
			key, value string
			want       int
		}{
			{"not[labels]", "bug", b.IID},
			{"not[milestone]", "v1", b.IID},
			{"not[author_id]", fmt.Sprint(dev.ID), b.IID},
			{"not[author_username]", w.Owner.Username, a.IID},
			{"not[assignee_id]", fmt.Sprint(dev.ID), b.IID},
			{"not[assignee_username][]", rep.Username, a.IID},
			{"not[reviewer_id]", fmt.Sprint(rep.ID), b.IID},
			{"not[reviewer_username]", dev.Username, a.IID},
			{"not[my_reaction_emoji]", "thumbsup", b.IID},
		} {
			Expect(w.P.listIIDs(ctx, Q(c.key, c.value))).To(Equal([]int{c.want}), "%s=%s", c.key, c.value)
		}
	})

	It("orders by created_at (default), title or updated_at, descending unless sort=asc", Label("rule:merge_requests.list.17"), func(ctx SpecContext) {
		tag := Unique("order")
		p := NewRepoProject(ctx, api)
		b := p.FeatureMR(ctx, "b", map[string]any{"title": "b " + tag})
		a := p.FeatureMR(ctx, "a", map[string]any{"title": "A " + tag})
		c := p.FeatureMR(ctx, "c", map[string]any{"title": "c " + tag})
		api.Put(ctx, p.MR(b.IID, ""), Body(map[string]any{"description": "touched"}))
		Expect(p.listIIDs(ctx, Q("order_by", "title"), Q("sort", "asc"))).To(Equal([]int{a.IID, b.IID, c.IID}))
		Expect(p.listIIDs(ctx, Q("order_by", "title"))).To(Equal([]int{c.IID, b.IID, a.IID}))
		created := func(e gjson.Result) string { return e.Get("created_at").String() }
		updated := func(e gjson.Result) string { return e.Get("updated_at").String() }
		expectOrdered(api.Get(ctx, p.MRs()), created, true)
		expectOrdered(api.Get(ctx, p.MRs(), Q("sort", "asc")), created, false)
		Expect(p.listIIDs(ctx)).To(Equal([]int{c.IID, a.IID, b.IID}), "created_at then id, newest first")
		expectOrdered(api.Get(ctx, p.MRs(), Q("order_by", "updated_at")), updated, true)
		expectOrdered(api.Get(ctx, p.MRs(), Q("order_by", "updated_at"), Q("sort", "asc")), updated, false)
		Expect(p.merge(ctx, api, a.IID, nil)).To(HaveStatus(http.StatusOK))
		merged := api.Get(ctx, "/merge_requests", Q("scope", "all"), Q("search", tag), Q("order_by", "merged_at"))
		Expect(merged).To(HaveStatus(http.StatusOK))
		Expect(merged.Get("0.iid").Int()).To(BeEquivalentTo(a.IID), "the merged one before the unmerged")
		Expect(api.Get(ctx, p.MRs(), Q("order_by", "merged_at"))).To(HaveStatus(http.StatusBadRequest))
		Expect(api.Get(ctx, p.MRs(), Q("sort", "up"))).To(HaveStatus(http.StatusBadRequest))
	})

	It("filters by reviewer, None and Any, by id or username but not both", Label("rule:merge_requests.list.18"), func(ctx SpecContext) {
		w := NewMRRoles(ctx, "private")
		dev, rep := w.Members[DeveloperLevel], w.Members[ReporterLevel]
		byDev := w.P.FeatureMR(ctx, "dev", map[string]any{"reviewer_ids": []int{dev.ID}})
		byRep := w.P.FeatureMR(ctx, "rep", map[string]any{"reviewer_ids": []int{rep.ID}})
		none := w.P.FeatureMR(ctx, "none")
		Expect(w.P.listIIDs(ctx, Q("reviewer_id", dev.ID))).To(Equal([]int{byDev.IID}))
		Expect(w.P.listIIDs(ctx, Q("reviewer_username", rep.Username))).To(Equal([]int{byRep.IID}))
		Expect(w.P.listIIDs(ctx, Q("reviewer_id", "None"))).To(Equal([]int{none.IID}))
		Expect(w.P.listIIDs(ctx, Q("reviewer_id", "Any"))).To(ConsistOf(byDev.IID, byRep.IID))
		Expect(api.Get(ctx, w.P.MRs(), Q("reviewer_id", dev.ID), Q("reviewer_username", dev.Username))).To(HaveStatus(http.StatusBadRequest))
	})

	It("searches title and description in any case", Label("rule:merge_requests.list.19"), func(ctx SpecContext) {
		p := NewRepoProject(ctx, api)
		t := p.FeatureMR(ctx, "t", map[string]any{"title": "Fix the Frobnicator"})
		d := p.FeatureMR(ctx, "d", map[string]any{"title": "Other", "description": "frobnicator again"})
		p.FeatureMR(ctx, "n", map[string]any{"title": "Unrelated"})
		Expect(p.listIIDs(ctx, Q("search", "FROBNICATOR"))).To(ConsistOf(t.IID, d.IID))
	})

	It("filters by source and target branch", Label("rule:merge_requests.list.20"), func(ctx SpecContext) {
		p := NewRepoProject(ctx, api)
		p.Branch(ctx, "release", p.DefaultBranch)
		a := p.FeatureMR(ctx, "a")
		p.Feature(ctx, "b")
		b := p.OpenMR(ctx, api, "b", "To release", map[string]any{"target_branch": "release"})
		Expect(p.listIIDs(ctx, Q("source_branch", "a"))).To(Equal([]int{a.IID}))
		Expect(p.listIIDs(ctx, Q("target_branch", "release"))).To(Equal([]int{b.IID}))
		Expect(p.listIIDs(ctx, Q("target_branch", p.DefaultBranch))).To(Equal([]int{a.IID}))
	})

	It("answers the simple view", Label("rule:merge_requests.list.21"), func(ctx SpecContext) {
		p := NewRepoProject(ctx, api)
		mr := p.FeatureMR(ctx, "topic")
		r := api.Get(ctx, p.MRs(), Q("view", "simple"))
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(r).To(MatchSchema("merge_request_simple", true))
		e := r.Get("0")
		Expect(e.Get("iid").Int()).To(BeEquivalentTo(mr.IID))
		for _, f := range []string{"id", "iid", "project_id", "title", "description", "state", "created_at", "updated_at", "web_url"} {
			Expect(e.Get(f).Exists()).To(BeTrue(), f)
		}
		for _, f := range []string{"author", "labels", "sha", "source_branch", "merge_status"} {
			Expect(e.Get(f).Exists()).To(BeFalse(), "the simple view has no %s", f)
		}
		Expect(api.Get(ctx, p.MRs(), Q("view", "full"))).To(HaveStatus(http.StatusBadRequest))
	})

	It("details labels with with_labels_details", Label("rule:merge_requests.list.22"), func(ctx SpecContext) {
		p := NewRepoProject(ctx, api)
		p.FeatureMR(ctx, "topic", map[string]any{"labels": "bug"})
		Expect(api.Get(ctx, p.MRs()).Get("0.labels").Raw).To(MatchJSON(`["bug"]`))
		r := api.Get(ctx, p.MRs(), Q("with_labels_details", true))
		Expect(r.Get("0.labels.0.name").String()).To(Equal("bug"))
		for _, f := range []string{"color", "description", "description_html", "text_color"} {
			Expect(r.Get("0.labels.0."+f).Exists()).To(BeTrue(), f)
		}
		// Booleans (suites/booleans.go): with_labels_details=yes details the
		// labels as true does; a word the platform does not read answers 400.
		expectBooleanWords(boolProbe{
			send:    func(v string) *Response { return api.Get(ctx, p.MRs(), RawQ("with_labels_details="+v)) },
			meaning: func(r *Response) any { return r.Get("0.labels.0").IsObject() },
		})
	})

	It("keeps drafts with wip=yes and the others with wip=no", Label("rule:merge_requests.list.23"), func(ctx SpecContext) {
		p := NewRepoProject(ctx, api)
		draft := p.FeatureMR(ctx, "draft", map[string]any{"title": "Draft: soon"})
		ready := p.FeatureMR(ctx, "ready")
		Expect(p.listIIDs(ctx, Q("wip", "yes"))).To(Equal([]int{draft.IID}))
		Expect(p.listIIDs(ctx, Q("wip", "no"))).To(Equal([]int{ready.IID}))
		Expect(api.Get(ctx, p.MRs(), Q("wip", "maybe"))).To(HaveStatus(http.StatusBadRequest))
	})

	It("paginates with page and per_page", Label("rule:merge_requests.list.24"), func(ctx SpecContext) {
		p := NewRepoProject(ctx, api)
		var all []int
		for _, b := range []string{"a", "b", "c"} {
			all = append(all, p.FeatureMR(ctx, b).IID)
		}
		first := api.Get(ctx, p.MRs(), Q("per_page", 2))
		Expect(iids(first)).To(HaveLen(2))
		Expect(first).To(HaveHeader("X-Page", "1"))
		Expect(first).To(HaveHeader("X-Per-Page", "2"))
		Expect(first).To(HaveHeader("X-Next-Page", "2"))
		Expect(first).To(HaveHeader("X-Total", "3"))
		Expect(first).To(HaveHeader("X-Total-Pages", "2"))
		Expect(linkRels(first)).To(ContainElements("next", "first", "last"))
		second := api.Get(ctx, p.MRs(), Q("per_page", 2), Q("page", 2))
		Expect(second).To(HaveHeader("X-Prev-Page", "1"))
		Expect(append(iids(first), iids(second)...)).To(ConsistOf(all))
		def := api.Get(ctx, p.MRs())
		Expect(def).To(HaveHeader("X-Page", "1"))
		Expect(def).To(HaveHeader("X-Per-Page", "20"))
	})

	It("filters by the users who approved, None and Any", Label("rule:merge_requests.list.25", "paid"), func(ctx SpecContext) {
		w := NewMRRoles(ctx, "private")
		dev, mnt := w.Members[DeveloperLevel], w.Members[MaintainerLevel]
		byDev := w.P.FeatureMR(ctx, "dev")
		byBoth := w.P.FeatureMR(ctx, "both")
		none := w.P.FeatureMR(ctx, "none")
		for _, a := range []struct {
			u  *User
			mr *MergeRequest
		}{{dev, byDev}, {dev, byBoth}, {mnt, byBoth}} {
			Expect(a.u.Post(ctx, w.P.MR(a.mr.IID, "/approve"), Body(map[string]any{}))).To(HaveStatus(http.StatusCreated))
		}
		Expect(w.P.listIIDs(ctx, Q("approved_by_ids[]", dev.ID))).To(ConsistOf(byDev.IID, byBoth.IID))
		Expect(w.P.listIIDs(ctx, Q("approved_by_ids[]", dev.ID), Q("approved_by_ids[]", mnt.ID))).To(Equal([]int{byBoth.IID}))
		Expect(w.P.listIIDs(ctx, Q("approved_by_ids", "None"))).To(Equal([]int{none.IID}))
		Expect(w.P.listIIDs(ctx, Q("approved_by_ids", "Any"))).To(ConsistOf(byDev.IID, byBoth.IID))
	})

	It("takes approver_ids with None and Any", Label("rule:merge_requests.list.26", "paid"), func(ctx SpecContext) {
		p := NewRepoProject(ctx, api)
		a := p.FeatureMR(ctx, "a")
		Expect(p.listIIDs(ctx, Q("approver_ids", "None"))).To(Equal([]int{a.IID}))
		Expect(p.listIIDs(ctx, Q("approver_ids", "Any"))).To(BeEmpty())
		Expect(p.listIIDs(ctx, Q("approver_ids[]", 1))).To(BeEmpty())
	})

	It("filters by approved yes or no", Label("rule:merge_requests.list.27", "paid"), func(ctx SpecContext) {
		p := NewRepoProject(ctx, api)
		approved := p.FeatureMR(ctx, "approved")
		open := p.FeatureMR(ctx, "open")
		Expect(api.Post(ctx, p.MR(approved.IID, "/approve"), Body(map[string]any{}))).To(HaveStatus(http.StatusCreated))
		Expect(p.listIIDs(ctx, Q("approved", "yes"))).To(Equal([]int{approved.IID}))
		Expect(p.listIIDs(ctx, Q("approved", "no"))).To(Equal([]int{open.IID}))
		Expect(api.Get(ctx, p.MRs(), Q("approved", "maybe"))).To(HaveStatus(http.StatusBadRequest))
	})

	It("accepts up to 5 users in approved_by_ids", Label("rule:merge_requests.limits.2", "paid"), func(ctx SpecContext) {
		p := NewRepoProject(ctx, api)
		p.FeatureMR(ctx, "a")
		five := []Opt{}
		for i := 1; i <= 5; i++ {
			five = append(five, Q("approved_by_ids[]", i))
		}
		Expect(api.Get(ctx, p.MRs(), five...)).To(HaveStatus(http.StatusOK))
		Expect(api.Get(ctx, p.MRs(), append(five, Q("approved_by_ids[]", 6))...)).To(HaveStatus(http.StatusBadRequest))
	})
})
