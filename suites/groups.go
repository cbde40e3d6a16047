package suites

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func groupURL(id int) string { return fmt.Sprintf("/groups/%d", id) }

func groupProjectsURL(id int) string { return fmt.Sprintf("/groups/%d/projects", id) }

// searchGroups is a search that finds exactly the given groups of this spec
// (and their subgroups, whose full paths start the same way).
func searchGroups(gs ...*Group) Opt {
	paths := make([]string, 0, len(gs))
	for _, g := range gs {
		paths = append(paths, g.Path)
	}
	return Q("search", commonPrefix(paths...))
}

// publicGroup creates a public group owned by a new user and returns both.
func newPublicGroup(ctx context.Context, opts ...GroupOpts) (*Group, *User) {
	GinkgoHelper()
	owner := NewUser(ctx)
	return NewGroup(ctx, owner.Client, append([]GroupOpts{{"visibility": "public"}}, opts...)...), owner
}

// projectIn creates a project in group g as the administrator.
func newGroupProject(ctx context.Context, g *Group, visibility string, opts ...ProjectOpts) *Project {
	GinkgoHelper()
	return NewProject(ctx, api, append([]ProjectOpts{{"namespace_id": g.ID, "visibility": visibility}}, opts...)...)
}

func projectIDsOf(ps ...*Project) []int {
	out := make([]int, 0, len(ps))
	for _, p := range ps {
		out = append(out, p.ID)
	}
	return out
}

func groupIDsOf(gs ...*Group) []int {
	out := make([]int, 0, len(gs))
	for _, g := range gs {
		out = append(out, g.ID)
	}
	return out
}

// fieldIDs returns the id of every element of an array field of the body.
func nestedIDs(r *Response, field string) []int {
	out := []int{}
	for _, e := range r.Get(field).Array() {
		out = append(out, int(e.Get("id").Int()))
	}
	return out
}

func starAs(ctx context.Context, u *User, p *Project) {
	GinkgoHelper()
	Expect(u.Post(ctx, fmt.Sprintf("/projects/%d/star", p.ID))).To(HaveStatus(http.StatusCreated))
}

var _ = Describe("GET /groups/:id", Label("area:groups", "endpoint:groups.get"), func() {
	It("answers the group, public ones to anonymous callers too", Label("rule:groups.get.1"), func(ctx SpecContext) {
		parent, owner := newPublicGroup(ctx)
		sub := NewGroup(ctx, owner.Client, GroupOpts{"visibility": "public", "parent_id": parent.ID})
		r := api.Anonymous().Get(ctx, groupURL(sub.ID))
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(r.Get("id").Int()).To(BeEquivalentTo(sub.ID))
		Expect(r.Get("name").String()).To(Equal(sub.Name))
		Expect(r.Get("path").String()).To(Equal(sub.Path))
		Expect(r.Get("visibility").String()).To(Equal("public"))
		Expect(r.Get("full_path").String()).To(Equal(parent.Path + "/" + sub.Path))
		Expect(r.Get("full_name").String()).To(Equal(parent.Name + " / " + sub.Name))
		Expect(r.Get("parent_id").Int()).To(BeEquivalentTo(parent.ID))
		top := owner.Get(ctx, groupURL(parent.ID))
		Expect(top).To(HaveStatus(http.StatusOK))
		Expect(top.Get("parent_id").Type.String()).To(Equal("Null"), "a top-level group has no parent")
	})

	It("answers 404 to callers who may not see the group, at every role level", Label("rule:groups.get.2"), func(ctx SpecContext) {
		w := NewRoleWorld(ctx, "private")
		path := groupURL(w.Group.ID)
		Expect(api.Anonymous().Get(ctx, path)).To(HaveStatus(http.StatusNotFound), "anonymous caller, private group")
		Expect(w.Outsider.Get(ctx, path)).To(HaveStatus(http.StatusNotFound), "non-member, private group")
		for lv, u := range w.Members {
			Expect(u.Get(ctx, path)).To(HaveStatus(http.StatusOK), "member with access level %d", lv)
		}
		Expect(api.Get(ctx, path)).To(HaveStatus(http.StatusOK), "administrator")

		internal := NewGroup(ctx, w.Owner.Client, GroupOpts{"visibility": "internal"})
		Expect(api.Anonymous().Get(ctx, groupURL(internal.ID))).To(HaveStatus(http.StatusNotFound), "anonymous caller, internal group")
		Expect(w.Outsider.Get(ctx, groupURL(internal.ID))).To(HaveStatus(http.StatusOK), "signed-in caller, internal group")
	})

	It("accepts the URL-encoded full path and answers 404 to the un-encoded one", Label("rule:groups.get.3"), func(ctx SpecContext) {
		parent, owner := newPublicGroup(ctx)
		sub := NewGroup(ctx, owner.Client, GroupOpts{"visibility": "public", "parent_id": parent.ID})
		full := parent.Path + "/" + sub.Path
		r := owner.Get(ctx, "/groups/"+PathID(full))
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(r.Get("id").Int()).To(BeEquivalentTo(sub.ID))
		Expect(owner.Get(ctx, "/groups/"+full)).To(HaveStatus(http.StatusNotFound))
	})

	It("shows runners_token and enabled_git_access_protocol only to administrators and Owners", Label("rule:groups.get.4"), func(ctx SpecContext) {
		w := NewRoleWorld(ctx, "public")
		path := groupURL(w.Group.ID)
		hidden := func(r *Response, who string) {
			GinkgoHelper()
			Expect(r).To(HaveStatus(http.StatusOK), who)
			Expect(r.Get("runners_token").Exists()).To(BeFalse(), "%s must not see runners_token", who)
			Expect(r.Get("enabled_git_access_protocol").Exists()).To(BeFalse(), "%s must not see enabled_git_access_protocol", who)
		}
		hidden(api.Anonymous().Get(ctx, path), "an anonymous caller")
		hidden(w.Outsider.Get(ctx, path), "a non-member")
		for _, lv := range []int{GuestLevel, ReporterLevel, DeveloperLevel, MaintainerLevel} {
			hidden(w.Members[lv].Get(ctx, path), fmt.Sprintf("a member with access level %d", lv))
		}
		shown := func(r *Response, who string) {
			GinkgoHelper()
			Expect(r).To(HaveStatus(http.StatusOK), who)
			Expect(r.Get("runners_token").String()).NotTo(BeEmpty(), "%s sees runners_token", who)
		}
		shown(w.Owner.Get(ctx, path), "the Owner")
		shown(api.Get(ctx, path), "an administrator")
		sub := NewGroup(ctx, w.Owner.Client, GroupOpts{"visibility": "public", "parent_id": w.Group.ID})
		shown(w.Owner.Get(ctx, groupURL(sub.ID)), "the Owner of the parent group")
		hidden(w.Members[MaintainerLevel].Get(ctx, groupURL(sub.ID)), "a Maintainer of the parent group")
	})

	It("lists the group's own projects the caller may see in projects", Label("rule:groups.get.5"), func(ctx SpecContext) {
		g, _ := newPublicGroup(ctx)
		private := newGroupProject(ctx, g, "private")
		public := newGroupProject(ctx, g, "public")
		sub := NewGroup(ctx, api, GroupOpts{"visibility": "public", "parent_id": g.ID})
		newGroupProject(ctx, sub, "public")
		other := NewGroup(ctx, api, GroupOpts{"visibility": "public"})
		shared := newGroupProject(ctx, other, "public")
		ShareProject(ctx, shared, g, DeveloperLevel)
		member := NewUser(ctx)
		AddGroupMember(ctx, g, member, ReporterLevel)

		r := member.Get(ctx, groupURL(g.ID))
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(nestedIDs(r, "projects")).To(ConsistOf(private.ID, public.ID))
		r = api.Anonymous().Get(ctx, groupURL(g.ID))
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(nestedIDs(r, "projects")).To(ConsistOf(public.ID), "an anonymous caller sees public projects only")
	})

	It("lists projects shared into the group in shared_projects", Label("rule:groups.get.6"), func(ctx SpecContext) {
		g, _ := newPublicGroup(ctx)
		own := newGroupProject(ctx, g, "public")
		other := NewGroup(ctx, api, GroupOpts{"visibility": "public"})
		sharedPrivate := newGroupProject(ctx, other, "private")
		sharedPublic := newGroupProject(ctx, other, "public")
		ShareProject(ctx, sharedPrivate, g, DeveloperLevel)
		ShareProject(ctx, sharedPublic, g, ReporterLevel)

		r := api.Get(ctx, groupURL(g.ID))
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(nestedIDs(r, "shared_projects")).To(ConsistOf(sharedPrivate.ID, sharedPublic.ID))
		Expect(nestedIDs(r, "shared_projects")).NotTo(ContainElement(own.ID))
		for _, p := range r.Get("shared_projects").Array() {
			Expect(p.Get("namespace.id").Int()).To(BeEquivalentTo(other.ID), "a shared project keeps its own namespace")
			Expect(p.Get("namespace.id").Int()).NotTo(BeEquivalentTo(g.ID))
		}
		anon := api.Anonymous().Get(ctx, groupURL(g.ID))
		Expect(anon).To(HaveStatus(http.StatusOK))
		Expect(nestedIDs(anon, "shared_projects")).To(ConsistOf(sharedPublic.ID), "only shared projects the caller may see")
	})

	It("includes projects by default and leaves them out with with_projects=false", Label("rule:groups.get.7"), func(ctx SpecContext) {
		g, owner := newPublicGroup(ctx)
		p := newGroupProject(ctx, g, "public")
		r := owner.Get(ctx, groupURL(g.ID))
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(nestedIDs(r, "projects")).To(ConsistOf(p.ID))
		Expect(r.Get("shared_projects").IsArray()).To(BeTrue())
		r = owner.Get(ctx, groupURL(g.ID), Q("with_projects", true))
		Expect(nestedIDs(r, "projects")).To(ConsistOf(p.ID))
		r = owner.Get(ctx, groupURL(g.ID), Q("with_projects", false))
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(r.Get("projects").Exists()).To(BeFalse())
		Expect(r.Get("shared_projects").Exists()).To(BeFalse())
	})

	It("lists invited groups in shared_with_groups", Label("rule:groups.get.8"), func(ctx SpecContext) {
		g, owner := newPublicGroup(ctx)
		invited := NewGroup(ctx, owner.Client)
		Expect(owner.Get(ctx, groupURL(g.ID)).Get("shared_with_groups").Array()).To(BeEmpty())
		Expect(api.Post(ctx, fmt.Sprintf("/groups/%d/share", g.ID), Body(map[string]any{
			"group_id": invited.ID, "group_access": DeveloperLevel, "expires_at": "2099-12-31",
		}))).To(HaveStatus(http.StatusCreated))
		r := owner.Get(ctx, groupURL(g.ID))
		Expect(r).To(HaveStatus(http.StatusOK))
		links := r.Get("shared_with_groups").Array()
		Expect(links).To(HaveLen(1))
		Expect(links[0].Get("group_id").Int()).To(BeEquivalentTo(invited.ID))
		Expect(links[0].Get("group_name").String()).To(Equal(invited.Name))
		Expect(links[0].Get("group_full_path").String()).To(Equal(invited.FullPath))
		Expect(links[0].Get("group_access_level").Int()).To(BeEquivalentTo(DeveloperLevel))
		Expect(links[0].Get("expires_at").String()).To(Equal("2099-12-31"))
	})

	It("adds custom_attributes for administrators only", Label("rule:groups.get.9"), func(ctx SpecContext) {
		g, owner := newPublicGroup(ctx)
		Expect(api.Put(ctx, groupURL(g.ID)+"/custom_attributes/team", Body(map[string]any{"value": "blue"}))).To(HaveStatus(http.StatusOK))
		r := api.Get(ctx, groupURL(g.ID), Q("with_custom_attributes", true))
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(r.Get(`custom_attributes.#(key=="team").value`).String()).To(Equal("blue"))
		Expect(api.Get(ctx, groupURL(g.ID)).Get("custom_attributes").Exists()).To(BeFalse(), "only when asked for")
		r = owner.Get(ctx, groupURL(g.ID), Q("with_custom_attributes", true))
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(r.Get("custom_attributes").Exists()).To(BeFalse(), "an Owner who is not an administrator")
	})

	It("shows prevent_sharing_groups_outside_hierarchy on top-level groups only", Label("rule:groups.get.10"), func(ctx SpecContext) {
		parent, owner := newPublicGroup(ctx)
		sub := NewGroup(ctx, owner.Client, GroupOpts{"visibility": "public", "parent_id": parent.ID})
		Expect(owner.Get(ctx, groupURL(parent.ID)).Get("prevent_sharing_groups_outside_hierarchy").Exists()).To(BeTrue())
		Expect(owner.Get(ctx, groupURL(sub.ID)).Get("prevent_sharing_groups_outside_hierarchy").Exists()).To(BeFalse())
	})

	It("returns at most 100 projects", Label("rule:groups.get.11"), func(ctx SpecContext) {
		g := NewGroup(ctx, api)
		openTeardown() // the projects' deletions, registered in the spec's goroutine
		parallelN(101, bulkWidth, func(int) { newGroupProject(ctx, g, "private") })
		r := api.Get(ctx, groupURL(g.ID))
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(r.Get("projects").Array()).To(HaveLen(100))
		Expect(len(nestedIDs(r, "projects"))).To(Equal(len(distinctInts(nestedIDs(r, "projects")))), "no project twice")
	})

	// Booleans (suites/booleans.go): with_projects=yes includes the projects
	// as true does; a word the platform does not read answers 400.
	DescribeTable("reads the platform's boolean words and refuses the rest", Label("rule:groups.get.12"),
		func(ctx SpecContext, probe func(ctx SpecContext) boolProbe) {
			expectBooleanWords(probe(ctx))
		},
		Entry("with_projects", func(ctx SpecContext) boolProbe {
			g, owner := newPublicGroup(ctx)
			newGroupProject(ctx, g, "public")
			return boolProbe{
				send:    func(v string) *Response { return owner.Get(ctx, groupURL(g.ID), RawQ("with_projects="+v)) },
				meaning: func(r *Response) any { return len(nestedIDs(r, "projects")) },
			}
		}),
		Entry("with_custom_attributes", func(ctx SpecContext) boolProbe {
			g, _ := newPublicGroup(ctx)
			Expect(api.Put(ctx, groupURL(g.ID)+"/custom_attributes/team", Body(map[string]any{"value": "blue"}))).To(HaveStatus(http.StatusOK))
			return boolProbe{
				send:    func(v string) *Response { return api.Get(ctx, groupURL(g.ID), RawQ("with_custom_attributes="+v)) },
				meaning: func(r *Response) any { return r.Get("custom_attributes").Exists() },
			}
		}),
	)
})

func distinctInts(xs []int) []int {
	seen := map[int]bool{}
	var out []int
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

var _ = Describe("GET /groups", Label("area:groups", "endpoint:groups.list"), func() {
	It("answers an array of groups in the list form", Label("rule:groups.list.1"), func(ctx SpecContext) {
		g, owner := newPublicGroup(ctx)
		r := owner.Get(ctx, "/groups", searchGroups(g))
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(r).To(MatchSchema("group_list_entry", true))
		Expect(r.IDs()).To(Equal([]int{g.ID}))
		for _, f := range []string{"share_with_group_lock", "require_two_factor_authentication", "two_factor_grace_period",
			"project_creation_level", "subgroup_creation_level", "lfs_enabled", "default_branch_protection",
			"default_branch_protection_defaults.allowed_to_push"} {
			Expect(r.Get("0."+f).Exists()).To(BeTrue(), "list entries carry %s", f)
		}
	})

	It("shows anonymous callers public groups only", Label("rule:groups.list.2"), func(ctx SpecContext) {
		owner := NewUser(ctx)
		public := NewGroup(ctx, owner.Client, GroupOpts{"visibility": "public"})
		internal := NewGroup(ctx, owner.Client, GroupOpts{"visibility": "internal"})
		private := NewGroup(ctx, owner.Client, GroupOpts{"visibility": "private"})
		search := searchGroups(public, internal, private)
		Expect(owner.Get(ctx, "/groups", search).IDs()).To(ConsistOf(public.ID, internal.ID, private.ID))
		anon := api.Anonymous()
		Expect(anon.Get(ctx, "/groups", search).IDs()).To(Equal([]int{public.ID}))
		Expect(anon.Get(ctx, "/groups", search, Q("all_available", true)).IDs()).To(Equal([]int{public.ID}))
		Expect(anon.Get(ctx, "/groups", search, Q("all_available", false)).IDs()).To(Equal([]int{public.ID}))
	})

	It("lists only the caller's groups by default for non-administrators", Label("rule:groups.list.3"), func(ctx SpecContext) {
		owner := NewUser(ctx)
		mine := NewGroup(ctx, owner.Client, GroupOpts{"visibility": "private"})
		public := NewGroup(ctx, owner.Client, GroupOpts{"visibility": "public"})
		internal := NewGroup(ctx, owner.Client, GroupOpts{"visibility": "internal"})
		u := NewUser(ctx)
		AddGroupMember(ctx, mine, u, DeveloperLevel)
		Expect(u.Get(ctx, "/groups").IDs()).To(Equal([]int{mine.ID}))
		Expect(u.Get(ctx, "/groups", searchGroups(mine, public, internal)).IDs()).To(Equal([]int{mine.ID}))
		Expect(u.Get(ctx, "/groups", Q("all_available", false)).IDs()).To(Equal([]int{mine.ID}))
	})

	It("lists every group visible to the caller with all_available=true", Label("rule:groups.list.4"), func(ctx SpecContext) {
		owner := NewUser(ctx)
		mine := NewGroup(ctx, owner.Client, GroupOpts{"visibility": "private"})
		public := NewGroup(ctx, owner.Client, GroupOpts{"visibility": "public"})
		internal := NewGroup(ctx, owner.Client, GroupOpts{"visibility": "internal"})
		hidden := NewGroup(ctx, owner.Client, GroupOpts{"visibility": "private"})
		u := NewUser(ctx)
		AddGroupMember(ctx, mine, u, GuestLevel)
		r := u.Get(ctx, "/groups", searchGroups(mine, public, internal, hidden), Q("all_available", true))
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(r.IDs()).To(ConsistOf(mine.ID, public.ID, internal.ID))
	})

	It("lists every group for administrators by default and their own with all_available=false", Label("rule:groups.list.5", "admin"), func(ctx SpecContext) {
		owner := NewUser(ctx)
		private := NewGroup(ctx, owner.Client, GroupOpts{"visibility": "private"})
		public := NewGroup(ctx, owner.Client, GroupOpts{"visibility": "public"})
		search := searchGroups(private, public)
		Expect(api.Get(ctx, "/groups", search).IDs()).To(ConsistOf(private.ID, public.ID))
		Expect(api.Get(ctx, "/groups", search, Q("all_available", false)).IDs()).To(BeEmpty(), "the administrator belongs to none of them")
	})

	It("lists only owned groups with owned=true, before all_available", Label("rule:groups.list.6"), func(ctx SpecContext) {
		u := NewUser(ctx)
		owned := NewGroup(ctx, u.Client)
		other := NewUser(ctx)
		maintained := NewGroup(ctx, other.Client)
		AddGroupMember(ctx, maintained, u, MaintainerLevel)
		public := NewGroup(ctx, other.Client, GroupOpts{"visibility": "public"})
		search := searchGroups(owned, maintained, public)
		Expect(u.Get(ctx, "/groups", search).IDs()).To(ConsistOf(owned.ID, maintained.ID))
		Expect(u.Get(ctx, "/groups", search, Q("owned", true)).IDs()).To(Equal([]int{owned.ID}))
		Expect(u.Get(ctx, "/groups", search, Q("owned", true), Q("all_available", true)).IDs()).To(Equal([]int{owned.ID}))
	})

	It("lists groups with at least min_access_level, before all_available", Label("rule:groups.list.7"), func(ctx SpecContext) {
		owner := NewUser(ctx)
		guest := NewGroup(ctx, owner.Client)
		developer := NewGroup(ctx, owner.Client)
		maintainer := NewGroup(ctx, owner.Client)
		public := NewGroup(ctx, owner.Client, GroupOpts{"visibility": "public"})
		u := NewUser(ctx)
		AddGroupMember(ctx, guest, u, GuestLevel)
		AddGroupMember(ctx, developer, u, DeveloperLevel)
		AddGroupMember(ctx, maintainer, u, MaintainerLevel)
		search := searchGroups(guest, developer, maintainer, public)
		Expect(u.Get(ctx, "/groups", search, Q("min_access_level", DeveloperLevel)).IDs()).To(ConsistOf(developer.ID, maintainer.ID))
		Expect(u.Get(ctx, "/groups", search, Q("min_access_level", GuestLevel)).IDs()).To(ConsistOf(guest.ID, developer.ID, maintainer.ID))
		Expect(u.Get(ctx, "/groups", search, Q("min_access_level", MaintainerLevel), Q("all_available", true)).IDs()).To(Equal([]int{maintainer.ID}))
		Expect(u.Get(ctx, "/groups", search, Q("min_access_level", 31))).To(HaveStatus(http.StatusBadRequest))
	})

	It("leaves out skip_groups, as an array or comma-joined", Label("rule:groups.list.8"), func(ctx SpecContext) {
		owner := NewUser(ctx)
		a, b, c := NewGroup(ctx, owner.Client), NewGroup(ctx, owner.Client), NewGroup(ctx, owner.Client)
		search := searchGroups(a, b, c)
		r := owner.Get(ctx, "/groups", search, RawQ(fmt.Sprintf("skip_groups%%5B%%5D=%d&skip_groups%%5B%%5D=%d", a.ID, c.ID)))
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(r.IDs()).To(Equal([]int{b.ID}))
		r = owner.Get(ctx, "/groups", search, Q("skip_groups", fmt.Sprintf("%d,%d", a.ID, b.ID)))
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(r.IDs()).To(Equal([]int{c.ID}))
	})

	It("searches group names and paths", Label("rule:groups.list.9"), func(ctx SpecContext) {
		byName := NewGroup(ctx, api, GroupOpts{"name": "Needle " + Unique("name"), "path": Unique("path")})
		byPath := NewGroup(ctx, api, GroupOpts{"name": "Haystack " + Unique("name"), "path": Unique("needle")})
		nameToken := strings.TrimPrefix(byName.Name, "Needle ")
		r := api.Get(ctx, "/groups", Q("search", nameToken))
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(r.IDs()).To(Equal([]int{byName.ID}))
		r = api.Get(ctx, "/groups", Q("search", byPath.Path))
		Expect(r.IDs()).To(Equal([]int{byPath.ID}))
	})

	It("orders by name ascending by default", Label("rule:groups.list.10"), func(ctx SpecContext) {
		base := Unique("ord")
		c := NewGroup(ctx, api, GroupOpts{"name": "Charlie " + base, "path": base + "-1"})
		a := NewGroup(ctx, api, GroupOpts{"name": "Alpha " + base, "path": base + "-2"})
		b := NewGroup(ctx, api, GroupOpts{"name": "Bravo " + base, "path": base + "-3"})
		r := api.Get(ctx, "/groups", Q("search", base))
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(r.IDs()).To(Equal(groupIDsOf(a, b, c)))
	})

	DescribeTable("orders by name, path or id in either direction", Label("rule:groups.list.11"),
		func(ctx SpecContext, orderBy, sort string) {
			base := Unique("ord")
			// name, path and id each give a different order.
			g1 := NewGroup(ctx, api, GroupOpts{"name": "Charlie " + base, "path": base + "-b"})
			g2 := NewGroup(ctx, api, GroupOpts{"name": "Alpha " + base, "path": base + "-c"})
			g3 := NewGroup(ctx, api, GroupOpts{"name": "Bravo " + base, "path": base + "-a"})
			want := map[string][]int{
				"name": groupIDsOf(g2, g3, g1),
				"path": groupIDsOf(g3, g1, g2),
				"id":   groupIDsOf(g1, g2, g3),
			}[orderBy]
			if sort == "desc" {
				want = []int{want[2], want[1], want[0]}
			}
			r := api.Get(ctx, "/groups", Q("search", base), Q("order_by", orderBy), Q("sort", sort))
			Expect(r).To(HaveStatus(http.StatusOK))
			Expect(r.IDs()).To(Equal(want))
		},
		Entry("name asc", "name", "asc"), Entry("name desc", "name", "desc"),
		Entry("path asc", "path", "asc"), Entry("path desc", "path", "desc"),
		Entry("id asc", "id", "asc"), Entry("id desc", "id", "desc"),
	)

	It("orders by similarity to search, and by name without search", Label("rule:groups.list.12"), func(ctx SpecContext) {
		base := Unique("sim")
		far := NewGroup(ctx, api, GroupOpts{"name": "Aaa " + base + " far away words", "path": base + "-far-away-words"})
		exact := NewGroup(ctx, api, GroupOpts{"name": "Zzz " + base, "path": base})
		r := api.Get(ctx, "/groups", Q("search", base), Q("order_by", "similarity"))
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(r.IDs()).To(Equal(groupIDsOf(exact, far)), "the exact path is the closest match")
		u := NewUser(ctx)
		AddGroupMember(ctx, far, u, GuestLevel)
		AddGroupMember(ctx, exact, u, GuestLevel)
		r = u.Get(ctx, "/groups", Q("order_by", "similarity"))
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(r.IDs()).To(Equal(groupIDsOf(far, exact)), "without search the order is by name")
	})

	It("adds statistics for administrators, root_storage_statistics for top-level groups", Label("rule:groups.list.13", "admin"), func(ctx SpecContext) {
		parent := NewGroup(ctx, api)
		sub := NewGroup(ctx, api, GroupOpts{"parent_id": parent.ID})
		r := api.Get(ctx, "/groups", searchGroups(parent), Q("statistics", true))
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(r.IDs()).To(ConsistOf(parent.ID, sub.ID))
		for _, e := range r.JSON().Array() {
			for _, f := range []string{"storage_size", "repository_size", "wiki_size", "lfs_objects_size", "job_artifacts_size",
				"pipeline_artifacts_size", "packages_size", "snippets_size", "uploads_size"} {
				Expect(e.Get("statistics."+f).Type.String()).To(Equal("Number"), "statistics.%s", f)
			}
			top := e.Get("id").Int() == int64(parent.ID)
			Expect(e.Get("root_storage_statistics").IsObject()).To(Equal(top), "root_storage_statistics on top-level groups only")
		}
	})

	It("ignores statistics for other callers", Label("rule:groups.list.14"), func(ctx SpecContext) {
		g, owner := newPublicGroup(ctx)
		r := owner.Get(ctx, "/groups", searchGroups(g), Q("statistics", true))
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(r.IDs()).To(Equal([]int{g.ID}))
		Expect(r.Get("0.statistics").Exists()).To(BeFalse())
		Expect(r.Get("0.root_storage_statistics").Exists()).To(BeFalse())
	})

	It("filters by visibility", Label("rule:groups.list.15"), func(ctx SpecContext) {
		owner := NewUser(ctx)
		public := NewGroup(ctx, owner.Client, GroupOpts{"visibility": "public"})
		internal := NewGroup(ctx, owner.Client, GroupOpts{"visibility": "internal"})
		private := NewGroup(ctx, owner.Client, GroupOpts{"visibility": "private"})
		search := searchGroups(public, internal, private)
		for vis, want := range map[string]int{"public": public.ID, "internal": internal.ID, "private": private.ID} {
			Expect(owner.Get(ctx, "/groups", search, Q("visibility", vis)).IDs()).To(Equal([]int{want}), "visibility=%s", vis)
		}
		Expect(owner.Get(ctx, "/groups", search, Q("visibility", "secret"))).To(HaveStatus(http.StatusBadRequest))
	})

	It("adds custom_attributes for administrators only", Label("rule:groups.list.16"), func(ctx SpecContext) {
		g, owner := newPublicGroup(ctx)
		Expect(api.Put(ctx, groupURL(g.ID)+"/custom_attributes/team", Body(map[string]any{"value": "red"}))).To(HaveStatus(http.StatusOK))
		r := api.Get(ctx, "/groups", searchGroups(g), Q("with_custom_attributes", true))
		Expect(r.IDs()).To(Equal([]int{g.ID}))
		Expect(r.Get(`0.custom_attributes.#(key=="team").value`).String()).To(Equal("red"))
		Expect(api.Get(ctx, "/groups", searchGroups(g)).Get("0.custom_attributes").Exists()).To(BeFalse(), "only when asked for")
		r = owner.Get(ctx, "/groups", searchGroups(g), Q("with_custom_attributes", true))
		Expect(r.IDs()).To(Equal([]int{g.ID}))
		Expect(r.Get("0.custom_attributes").Exists()).To(BeFalse())
	})

	It("leaves subgroups out with top_level_only=true", Label("rule:groups.list.17"), func(ctx SpecContext) {
		parent, owner := newPublicGroup(ctx)
		sub := NewGroup(ctx, owner.Client, GroupOpts{"visibility": "public", "parent_id": parent.ID})
		Expect(owner.Get(ctx, "/groups", searchGroups(parent)).IDs()).To(ConsistOf(parent.ID, sub.ID))
		Expect(owner.Get(ctx, "/groups", searchGroups(parent), Q("top_level_only", true)).IDs()).To(Equal([]int{parent.ID}))
	})

	It("filters by repository_storage for administrators", Label("rule:groups.list.18", "paid", "admin"), func(ctx SpecContext) {
		g := NewGroup(ctx, api)
		storage := api.Get(ctx, groupURL(g.ID)).Get("repository_storage").String()
		Expect(storage).NotTo(BeEmpty())
		Expect(api.Get(ctx, "/groups", searchGroups(g), Q("repository_storage", storage)).IDs()).To(Equal([]int{g.ID}))
		Expect(api.Get(ctx, "/groups", searchGroups(g), Q("repository_storage", Unique("nowhere"))).IDs()).To(BeEmpty())
	})

	It("filters by marked_for_deletion_on", Label("rule:groups.list.19", "paid"), func(ctx SpecContext) {
		g := NewGroup(ctx, api)
		Expect(api.Get(ctx, "/groups", searchGroups(g)).IDs()).To(Equal([]int{g.ID}))
		r := api.Get(ctx, "/groups", searchGroups(g), Q("marked_for_deletion_on", "2099-12-31"))
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(r.IDs()).To(BeEmpty(), "a group not marked for deletion")
		Expect(api.Get(ctx, "/groups", searchGroups(g), Q("marked_for_deletion_on", "someday"))).To(HaveStatus(http.StatusBadRequest))
	})

	It("filters by custom_attributes for administrators only", Label("rule:groups.list.20"), func(ctx SpecContext) {
		owner := NewUser(ctx)
		tagged, plain := NewGroup(ctx, owner.Client), NewGroup(ctx, owner.Client)
		Expect(api.Put(ctx, groupURL(tagged.ID)+"/custom_attributes/tier", Body(map[string]any{"value": "gold"}))).To(HaveStatus(http.StatusOK))
		search := searchGroups(tagged, plain)
		Expect(api.Get(ctx, "/groups", search, RawQ("custom_attributes%5Btier%5D=gold")).IDs()).To(Equal([]int{tagged.ID}))
		Expect(owner.Get(ctx, "/groups", search, RawQ("custom_attributes%5Btier%5D=gold")).IDs()).To(ConsistOf(tagged.ID, plain.ID))
	})

	It("pages by name ascending with keyset pagination, for anonymous callers too", Label("rule:groups.list.21", "rule:limits.pagination.5"), func(ctx SpecContext) {
		base := Unique("ks")
		byName := map[string]int{}
		for i, n := range []string{"Echo", "Alpha", "Delta", "Bravo", "Charlie"} {
			byName[n] = NewGroup(ctx, api, GroupOpts{"name": n + " " + base, "path": fmt.Sprintf("%s-%d", base, i), "visibility": "public"}).ID
		}
		want := []int{byName["Alpha"], byName["Bravo"], byName["Charlie"], byName["Delta"], byName["Echo"]}
		anon := api.Anonymous()
		r := anon.Get(ctx, "/groups", Q("pagination", "keyset"), Q("per_page", 2), Q("order_by", "name"), Q("sort", "asc"), Q("search", base))
		var seen []int
		for pages := 0; ; pages++ {
			Expect(pages).To(BeNumerically("<", 10), "keyset pagination must end")
			Expect(r).To(HaveStatus(http.StatusOK))
			Expect(len(r.IDs())).To(BeNumerically("<=", 2))
			seen = append(seen, r.IDs()...)
			next := linkRel(r, "next")
			if next == "" {
				break
			}
			r = anon.Get(ctx, "!"+stripBase(next))
		}
		Expect(seen).To(Equal(want), "every group once, in name order")
	})

	It("is offset-paginated with page and per_page", Label("rule:groups.list.22"), func(ctx SpecContext) {
		owner := NewUser(ctx)
		a, b, c := NewGroup(ctx, owner.Client), NewGroup(ctx, owner.Client), NewGroup(ctx, owner.Client)
		search := searchGroups(a, b, c)
		first := owner.Get(ctx, "/groups", search, Q("per_page", 2))
		Expect(first).To(HaveStatus(http.StatusOK))
		Expect(first.IDs()).To(HaveLen(2))
		Expect(first).To(HaveHeader("X-Total", "3"))
		Expect(first).To(HaveHeader("X-Total-Pages", "2"))
		Expect(first).To(HaveHeader("X-Page", "1"))
		Expect(first).To(HaveHeader("X-Per-Page", "2"))
		Expect(first).To(HaveHeader("X-Next-Page", "2"))
		Expect(linkRel(first, "next")).NotTo(BeEmpty())
		second := owner.Get(ctx, "/groups", search, Q("per_page", 2), Q("page", 2))
		Expect(second.IDs()).To(HaveLen(1))
		Expect(append(first.IDs(), second.IDs()...)).To(ConsistOf(a.ID, b.ID, c.ID))
	})

	DescribeTable("answers 400 to values outside the listed ones", Label("rule:groups.list.23"),
		func(ctx SpecContext, name, value string) {
			Expect(api.Get(ctx, "/groups", Q(name, value))).To(HaveStatus(http.StatusBadRequest))
		},
		Entry("order_by=created_at", "order_by", "created_at"),
		Entry("sort=up", "sort", "up"),
		Entry("top_level_only=maybe", "top_level_only", "maybe"),
	)

	// Booleans (suites/booleans.go): all_available=yes adds the visible
	// groups the caller is no member of as true does; a word the platform
	// does not read answers 400.
	It("reads the platform's boolean words and refuses the rest", Label("rule:groups.list.23"), func(ctx SpecContext) {
		mine, owner := newPublicGroup(ctx)
		other, _ := newPublicGroup(ctx)
		search := searchGroups(mine, other)
		expectBooleanWords(boolProbe{
			send:    func(v string) *Response { return owner.Get(ctx, "/groups", search, RawQ("all_available="+v)) },
			meaning: func(r *Response) any { return containsEach(r, mine.ID, other.ID) },
		})
	})
})

var _ = Describe("GET /groups/:id/projects", Label("area:groups", "endpoint:groups.projects"), func() {
	It("answers the group's projects, and 404 for a hidden group", Label("rule:groups.projects.1"), func(ctx SpecContext) {
		w := NewRoleWorld(ctx, "private")
		a := newGroupProject(ctx, w.Group, "private")
		b := newGroupProject(ctx, w.Group, "private")
		r := w.Members[GuestLevel].Get(ctx, groupProjectsURL(w.Group.ID))
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(r).To(MatchSchema("project_embedded", true))
		Expect(r.IDs()).To(ConsistOf(a.ID, b.ID))
		Expect(w.Outsider.Get(ctx, groupProjectsURL(w.Group.ID))).To(HaveStatus(http.StatusNotFound))
		Expect(api.Anonymous().Get(ctx, groupProjectsURL(w.Group.ID))).To(HaveStatus(http.StatusNotFound))
	})

	It("lists only projects the caller may see", Label("rule:groups.projects.2"), func(ctx SpecContext) {
		g, _ := newPublicGroup(ctx)
		public := newGroupProject(ctx, g, "public")
		internal := newGroupProject(ctx, g, "internal")
		private := newGroupProject(ctx, g, "private")
		member, outsider := NewUser(ctx), NewUser(ctx)
		AddGroupMember(ctx, g, member, ReporterLevel)
		Expect(api.Anonymous().Get(ctx, groupProjectsURL(g.ID)).IDs()).To(ConsistOf(public.ID))
		Expect(outsider.Get(ctx, groupProjectsURL(g.ID)).IDs()).To(ConsistOf(public.ID, internal.ID))
		Expect(member.Get(ctx, groupProjectsURL(g.ID)).IDs()).To(ConsistOf(public.ID, internal.ID, private.ID))
		Expect(api.Get(ctx, groupProjectsURL(g.ID)).IDs()).To(ConsistOf(public.ID, internal.ID, private.ID))
	})

	It("filters by archived", Label("rule:groups.projects.3"), func(ctx SpecContext) {
		g := NewGroup(ctx, api)
		archived := newGroupProject(ctx, g, "private")
		active := newGroupProject(ctx, g, "private")
		Expect(api.Post(ctx, fmt.Sprintf("/projects/%d/archive", archived.ID))).To(HaveStatus(http.StatusCreated))
		Expect(api.Get(ctx, groupProjectsURL(g.ID), Q("archived", true)).IDs()).To(Equal([]int{archived.ID}))
		Expect(api.Get(ctx, groupProjectsURL(g.ID), Q("archived", false)).IDs()).To(Equal([]int{active.ID}))
		Expect(api.Get(ctx, groupProjectsURL(g.ID)).IDs()).To(ConsistOf(archived.ID, active.ID))
	})

	It("filters by visibility", Label("rule:groups.projects.4"), func(ctx SpecContext) {
		g, _ := newPublicGroup(ctx)
		public := newGroupProject(ctx, g, "public")
		private := newGroupProject(ctx, g, "private")
		Expect(api.Get(ctx, groupProjectsURL(g.ID), Q("visibility", "private")).IDs()).To(Equal([]int{private.ID}))
		Expect(api.Get(ctx, groupProjectsURL(g.ID), Q("visibility", "public")).IDs()).To(Equal([]int{public.ID}))
	})

	It("orders by created_at descending by default", Label("rule:groups.projects.5"), func(ctx SpecContext) {
		g := NewGroup(ctx, api)
		a := newGroupProject(ctx, g, "private")
		b := newGroupProject(ctx, g, "private")
		c := newGroupProject(ctx, g, "private")
		r := api.Get(ctx, groupProjectsURL(g.ID))
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(r.IDs()).To(Equal(projectIDsOf(c, b, a)))
	})

	DescribeTable("orders by the given field in either direction", Label("rule:groups.projects.6"),
		func(ctx SpecContext, orderBy, sort string) {
			g, _ := newPublicGroup(ctx)
			base := Unique("ord")
			p1 := newGroupProject(ctx, g, "public", ProjectOpts{"name": "Charlie " + base, "path": base + "-b"})
			p2 := newGroupProject(ctx, g, "public", ProjectOpts{"name": "Alpha " + base, "path": base + "-c"})
			p3 := newGroupProject(ctx, g, "public", ProjectOpts{"name": "Bravo " + base, "path": base + "-a"})
			byID := projectIDsOf(p1, p2, p3)
			var want []int
			switch orderBy {
			case "id", "created_at", "last_activity_at":
				// Created one after the other; equal times (a fixed clock) tie by id.
				want = byID
			case "name":
				want = projectIDsOf(p2, p3, p1)
			case "path":
				want = projectIDsOf(p3, p1, p2)
			case "star_count":
				a, b := NewUser(ctx), NewUser(ctx)
				starAs(ctx, a, p2)
				starAs(ctx, b, p2)
				starAs(ctx, a, p1)
				want = projectIDsOf(p3, p1, p2)
			case "updated_at":
				// A probe created a moment later tells a moving clock from a
				// fixed one (where every time is equal and ties go by id).
				time.Sleep(20 * time.Millisecond)
				probe := NewProject(ctx, api)
				moving := api.Get(ctx, fmt.Sprintf("/projects/%d", probe.ID)).Get("created_at").String() !=
					api.Get(ctx, fmt.Sprintf("/projects/%d", p3.ID)).Get("created_at").String()
				Expect(api.Put(ctx, fmt.Sprintf("/projects/%d", p1.ID), Body(map[string]any{"description": "edited"}))).To(HaveStatus(http.StatusOK))
				want = byID
				if moving { // the edit made p1 the latest updated
					want = projectIDsOf(p2, p3, p1)
				}
			}
			if sort == "desc" {
				want = []int{want[2], want[1], want[0]}
			}
			r := api.Get(ctx, groupProjectsURL(g.ID), Q("order_by", orderBy), Q("sort", sort))
			Expect(r).To(HaveStatus(http.StatusOK))
			Expect(r.IDs()).To(Equal(want))
		},
		Entry("id asc", "id", "asc"), Entry("id desc", "id", "desc"),
		Entry("name asc", "name", "asc"), Entry("name desc", "name", "desc"),
		Entry("path asc", "path", "asc"), Entry("path desc", "path", "desc"),
		Entry("created_at asc", "created_at", "asc"), Entry("created_at desc", "created_at", "desc"),
		Entry("updated_at asc", "updated_at", "asc"), Entry("updated_at desc", "updated_at", "desc"),
		Entry("star_count asc", "star_count", "asc"), Entry("star_count desc", "star_count", "desc"),
		Entry("last_activity_at asc", "last_activity_at", "asc"), Entry("last_activity_at desc", "last_activity_at", "desc"),
	)

	It("orders by similarity ignoring sort, by name without search", Label("rule:groups.projects.7"), func(ctx SpecContext) {
		g := NewGroup(ctx, api)
		base := Unique("sim")
		far := newGroupProject(ctx, g, "private", ProjectOpts{"name": "Aaa " + base + " far away words", "path": base + "-far-away-words"})
		exact := newGroupProject(ctx, g, "private", ProjectOpts{"name": "Zzz " + base, "path": base})
		for _, sort := range []string{"asc", "desc"} {
			r := api.Get(ctx, groupProjectsURL(g.ID), Q("search", base), Q("order_by", "similarity"), Q("sort", sort))
			Expect(r).To(HaveStatus(http.StatusOK))
			Expect(r.IDs()).To(Equal(projectIDsOf(exact, far)), "closest first, whatever sort=%s says", sort)
		}
		r := api.Get(ctx, groupProjectsURL(g.ID), Q("order_by", "similarity"), Q("sort", "desc"))
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(r.IDs()).To(Equal(projectIDsOf(far, exact)), "without search, name ascending")
	})

	It("searches project names and paths", Label("rule:groups.projects.8"), func(ctx SpecContext) {
		g := NewGroup(ctx, api)
		byName := newGroupProject(ctx, g, "private", ProjectOpts{"name": "Needle " + Unique("nm"), "path": Unique("pt")})
		byPath := newGroupProject(ctx, g, "private", ProjectOpts{"name": "Haystack " + Unique("nm"), "path": Unique("needle")})
		newGroupProject(ctx, g, "private")
		Expect(api.Get(ctx, groupProjectsURL(g.ID), Q("search", strings.TrimPrefix(byName.Name, "Needle "))).IDs()).To(Equal([]int{byName.ID}))
		Expect(api.Get(ctx, groupProjectsURL(g.ID), Q("search", byPath.Path)).IDs()).To(Equal([]int{byPath.ID}))
	})

	It("answers the simple form with simple=true", Label("rule:groups.projects.9"), func(ctx SpecContext) {
		g := NewGroup(ctx, api)
		p := newGroupProject(ctx, g, "private", ProjectOpts{"topics": []string{Unique("topic")}})
		r := api.Get(ctx, groupProjectsURL(g.ID), Q("simple", true))
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(r).To(MatchSchema("project_simple", true))
		Expect(r.IDs()).To(Equal([]int{p.ID}))
		for _, f := range []string{"issues_enabled", "merge_requests_enabled", "creator_id", "open_issues_count", "shared_with_groups"} {
			Expect(r.Get("0."+f).Exists()).To(BeFalse(), "the simple form has no %s", f)
		}
		full := api.Get(ctx, groupProjectsURL(g.ID))
		Expect(full.Get("0.issues_enabled").Exists()).To(BeTrue(), "the full form by default")
	})

	It("lists projects the caller owns with owned=true", Label("rule:groups.projects.10"), func(ctx SpecContext) {
		g, _ := newPublicGroup(ctx)
		owned := newGroupProject(ctx, g, "public")
		developed := newGroupProject(ctx, g, "public")
		newGroupProject(ctx, g, "public")
		u := NewUser(ctx)
		AddProjectMember(ctx, owned, u, OwnerLevel)
		AddProjectMember(ctx, developed, u, DeveloperLevel)
		r := u.Get(ctx, groupProjectsURL(g.ID), Q("owned", true))
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(r.IDs()).To(Equal([]int{owned.ID}))
	})

	It("lists projects the caller starred with starred=true", Label("rule:groups.projects.11"), func(ctx SpecContext) {
		g, _ := newPublicGroup(ctx)
		starred := newGroupProject(ctx, g, "public")
		newGroupProject(ctx, g, "public")
		u := NewUser(ctx)
		starAs(ctx, u, starred)
		Expect(u.Get(ctx, groupProjectsURL(g.ID), Q("starred", true)).IDs()).To(Equal([]int{starred.ID}))
		Expect(u.Get(ctx, groupProjectsURL(g.ID)).IDs()).To(HaveLen(2))
	})

	It("filters by topic", Label("rule:groups.projects.12"), func(ctx SpecContext) {
		g := NewGroup(ctx, api)
		t1, t2 := Unique("topic"), Unique("topic")
		both := newGroupProject(ctx, g, "private", ProjectOpts{"topics": []string{t1, t2}})
		one := newGroupProject(ctx, g, "private", ProjectOpts{"topics": []string{t1}})
		newGroupProject(ctx, g, "private")
		Expect(api.Get(ctx, groupProjectsURL(g.ID), Q("topic", t1)).IDs()).To(ConsistOf(both.ID, one.ID))
		Expect(api.Get(ctx, groupProjectsURL(g.ID), Q("topic", t1+","+t2)).IDs()).To(Equal([]int{both.ID}))
	})

	It("leaves out projects with issues or merge requests disabled when asked", Label("rule:groups.projects.13"), func(ctx SpecContext) {
		g := NewGroup(ctx, api)
		all := newGroupProject(ctx, g, "private")
		noIssues := newGroupProject(ctx, g, "private", ProjectOpts{"issues_enabled": false})
		noMRs := newGroupProject(ctx, g, "private", ProjectOpts{"merge_requests_enabled": false})
		Expect(api.Get(ctx, groupProjectsURL(g.ID)).IDs()).To(ConsistOf(all.ID, noIssues.ID, noMRs.ID))
		Expect(api.Get(ctx, groupProjectsURL(g.ID), Q("with_issues_enabled", false), Q("with_merge_requests_enabled", false)).IDs()).
			To(ConsistOf(all.ID, noIssues.ID, noMRs.ID))
		Expect(api.Get(ctx, groupProjectsURL(g.ID), Q("with_issues_enabled", true)).IDs()).To(ConsistOf(all.ID, noMRs.ID))
		Expect(api.Get(ctx, groupProjectsURL(g.ID), Q("with_merge_requests_enabled", true)).IDs()).To(ConsistOf(all.ID, noIssues.ID))
	})

	It("includes projects shared into the group unless with_shared=false", Label("rule:groups.projects.14"), func(ctx SpecContext) {
		g := NewGroup(ctx, api)
		own := newGroupProject(ctx, g, "private")
		other := NewGroup(ctx, api)
		shared := newGroupProject(ctx, other, "private")
		ShareProject(ctx, shared, g, DeveloperLevel)
		r := api.Get(ctx, groupProjectsURL(g.ID))
		Expect(r.IDs()).To(ConsistOf(own.ID, shared.ID))
		for _, e := range r.JSON().Array() {
			if int(e.Get("id").Int()) == shared.ID {
				Expect(e.Get("namespace.id").Int()).To(BeEquivalentTo(other.ID), "a shared project keeps its namespace")
			} else {
				Expect(e.Get("namespace.id").Int()).To(BeEquivalentTo(g.ID))
			}
		}
		Expect(api.Get(ctx, groupProjectsURL(g.ID), Q("with_shared", true)).IDs()).To(ConsistOf(own.ID, shared.ID))
		Expect(api.Get(ctx, groupProjectsURL(g.ID), Q("with_shared", false)).IDs()).To(Equal([]int{own.ID}))
	})

	It("includes subgroup projects only with include_subgroups=true", Label("rule:groups.projects.15"), func(ctx SpecContext) {
		g := NewGroup(ctx, api)
		sub := NewGroup(ctx, api, GroupOpts{"parent_id": g.ID})
		own := newGroupProject(ctx, g, "private")
		nested := newGroupProject(ctx, sub, "private")
		Expect(api.Get(ctx, groupProjectsURL(g.ID)).IDs()).To(Equal([]int{own.ID}))
		Expect(api.Get(ctx, groupProjectsURL(g.ID), Q("include_subgroups", false)).IDs()).To(Equal([]int{own.ID}))
		Expect(api.Get(ctx, groupProjectsURL(g.ID), Q("include_subgroups", true)).IDs()).To(ConsistOf(own.ID, nested.ID))
	})

	It("filters by the caller's min_access_level", Label("rule:groups.projects.16"), func(ctx SpecContext) {
		g, _ := newPublicGroup(ctx)
		reporter := newGroupProject(ctx, g, "public")
		maintainer := newGroupProject(ctx, g, "public")
		newGroupProject(ctx, g, "public")
		u := NewUser(ctx)
		AddProjectMember(ctx, reporter, u, ReporterLevel)
		AddProjectMember(ctx, maintainer, u, MaintainerLevel)
		Expect(u.Get(ctx, groupProjectsURL(g.ID), Q("min_access_level", MaintainerLevel)).IDs()).To(Equal([]int{maintainer.ID}))
		Expect(u.Get(ctx, groupProjectsURL(g.ID), Q("min_access_level", ReporterLevel)).IDs()).To(ConsistOf(reporter.ID, maintainer.ID))
		Expect(u.Get(ctx, groupProjectsURL(g.ID)).IDs()).To(HaveLen(3))
	})

	It("adds custom_attributes for administrators only", Label("rule:groups.projects.17"), func(ctx SpecContext) {
		g, owner := newPublicGroup(ctx)
		p := newGroupProject(ctx, g, "public")
		Expect(api.Put(ctx, fmt.Sprintf("/projects/%d/custom_attributes/team", p.ID), Body(map[string]any{"value": "green"}))).To(HaveStatus(http.StatusOK))
		r := api.Get(ctx, groupProjectsURL(g.ID), Q("with_custom_attributes", true))
		Expect(r.IDs()).To(Equal([]int{p.ID}))
		Expect(r.Get(`0.custom_attributes.#(key=="team").value`).String()).To(Equal("green"))
		Expect(api.Get(ctx, groupProjectsURL(g.ID)).Get("0.custom_attributes").Exists()).To(BeFalse(), "only when asked for")
		r = owner.Get(ctx, groupProjectsURL(g.ID), Q("with_custom_attributes", true))
		Expect(r.IDs()).To(Equal([]int{p.ID}))
		Expect(r.Get("0.custom_attributes").Exists()).To(BeFalse())
	})

	It("lists only projects with security reports with with_security_reports=true", Label("rule:groups.projects.18", "paid"), func(ctx SpecContext) {
		g := NewGroup(ctx, api)
		p := newGroupProject(ctx, g, "private")
		Expect(api.Get(ctx, groupProjectsURL(g.ID), Q("with_security_reports", false)).IDs()).To(Equal([]int{p.ID}))
		r := api.Get(ctx, groupProjectsURL(g.ID), Q("with_security_reports", true))
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(r.IDs()).To(BeEmpty(), "a project without pipelines has no security reports")
	})

	DescribeTable("answers 400 to values outside the listed ones", Label("rule:groups.projects.19"),
		func(ctx SpecContext, name, value string) {
			g := NewGroup(ctx, api)
			Expect(api.Get(ctx, groupProjectsURL(g.ID), Q(name, value))).To(HaveStatus(http.StatusBadRequest))
		},
		Entry("order_by=stars", "order_by", "stars"),
		Entry("sort=up", "sort", "up"),
		Entry("visibility=secret", "visibility", "secret"),
		Entry("archived=maybe", "archived", "maybe"),
		Entry("min_access_level=31", "min_access_level", "31"),
	)

	// Booleans (suites/booleans.go): include_subgroups=yes lists the
	// subgroup's projects as true does; simple=1 answers the simple form;
	// a word the platform does not read answers 400.
	DescribeTable("reads the platform's boolean words and refuses the rest", Label("rule:groups.projects.19"),
		func(ctx SpecContext, probe func(ctx SpecContext) boolProbe) {
			expectBooleanWords(probe(ctx))
		},
		Entry("include_subgroups", func(ctx SpecContext) boolProbe {
			g := NewGroup(ctx, api)
			sub := NewGroup(ctx, api, GroupOpts{"parent_id": g.ID})
			top, nested := newGroupProject(ctx, g, "private"), newGroupProject(ctx, sub, "private")
			return boolProbe{
				send:    func(v string) *Response { return api.Get(ctx, groupProjectsURL(g.ID), RawQ("include_subgroups="+v)) },
				meaning: func(r *Response) any { return containsEach(r, top.ID, nested.ID) },
			}
		}),
		Entry("simple", func(ctx SpecContext) boolProbe {
			g := NewGroup(ctx, api)
			newGroupProject(ctx, g, "private")
			return boolProbe{
				send: func(v string) *Response { return api.Get(ctx, groupProjectsURL(g.ID), RawQ("simple="+v)) },
				// The simple form leaves out the other project fields (groups.projects.9).
				meaning: func(r *Response) any { return r.Get("0.visibility").Exists() },
			}
		}),
	)
})
