package suites

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/tidwall/gjson"

	"github.com/v4cert/v4cert/schemas"
)

// membersTree is a top-level group owned by a fixture user, a subgroup of it
// and a project in the subgroup: the hierarchy the members specs need.
type membersTree struct {
	Owner   *User
	Root    *Group
	Sub     *Group
	Project *Project
}

func newMembersTree(ctx context.Context, visibility string) *membersTree {
	GinkgoHelper()
	t := &membersTree{Owner: NewUser(ctx)}
	t.Root = NewGroup(ctx, t.Owner.Client, GroupOpts{"visibility": visibility})
	t.Sub = NewGroup(ctx, t.Owner.Client, GroupOpts{"visibility": visibility, "parent_id": t.Root.ID})
	t.Project = NewProject(ctx, t.Owner.Client, ProjectOpts{"visibility": visibility, "namespace_id": t.Sub.ID})
	return t
}

// invitedGroup creates a group owned by a fresh user with one member at level.
func invitedGroup(ctx context.Context, visibility string, level int) (*Group, *User) {
	GinkgoHelper()
	owner := NewUser(ctx)
	g := NewGroup(ctx, owner.Client, GroupOpts{"visibility": visibility})
	m := NewUser(ctx)
	AddGroupMember(ctx, g, m, level)
	return g, m
}

func groupMembersPath(g *Group, rest string) string {
	return fmt.Sprintf("/groups/%d/members%s", g.ID, rest)
}

func projectMembersPath(p *Project, rest string) string {
	return fmt.Sprintf("/projects/%d/members%s", p.ID, rest)
}

func billablePath(g *Group, rest string) string {
	return fmt.Sprintf("/groups/%d/billable_members%s", g.ID, rest)
}

// levels maps the id of every member of an array body to its access_level.
func levels(r *Response) map[int]int {
	out := map[int]int{}
	for _, e := range r.JSON().Array() {
		out[int(e.Get("id").Int())] = int(e.Get("access_level").Int())
	}
	return out
}

// entryOf returns the element of an array body whose id is id.
func entryOf(r *Response, id int) gjson.Result {
	for _, e := range r.JSON().Array() {
		if int(e.Get("id").Int()) == id {
			return e
		}
	}
	return gjson.Result{}
}

// countOf counts the elements of an array body whose id is id.
func countOf(r *Response, id int) int {
	n := 0
	for _, id2 := range r.IDs() {
		if id2 == id {
			n++
		}
	}
	return n
}

// namedUser creates a user whose name starts with first, unique to the spec.
func namedUser(ctx context.Context, first string, extra ...UserOpts) *User {
	GinkgoHelper()
	opts := UserOpts{"name": first + " " + Unique("n")}
	for _, e := range extra {
		for k, v := range e {
			opts[k] = v
		}
	}
	return NewUser(ctx, opts)
}

// futureDate is a membership expiry far enough ahead to hold on any clock.
func futureDate() string { return time.Now().AddDate(1, 0, 0).Format("2006-01-02") }

// memberEndpoints are the four reads of a group's or project's members.
func memberEndpoints(base string, userID int) []string {
	return []string{base, base + "/all", fmt.Sprintf("%s/%d", base, userID), fmt.Sprintf("%s/all/%d", base, userID)}
}

var _ = Describe("GET /groups/:id/members", Label("area:members", "endpoint:members.group.list"), func() {
	It("lists the direct members only", Label("rule:members.list.1"), func(ctx SpecContext) {
		t := newMembersTree(ctx, "private")
		direct, inherited := NewUser(ctx), NewUser(ctx)
		AddGroupMember(ctx, t.Sub, direct, DeveloperLevel)
		AddGroupMember(ctx, t.Root, inherited, ReporterLevel)
		inv, invitedMember := invitedGroup(ctx, "private", DeveloperLevel)
		ShareGroup(ctx, t.Sub, inv, DeveloperLevel)

		r := t.Owner.Get(ctx, groupMembersPath(t.Sub, ""))
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(r.IDs()).To(ContainElement(direct.ID))
		Expect(r.IDs()).NotTo(ContainElement(inherited.ID), "members of an ancestor group are not direct members")
		Expect(r.IDs()).NotTo(ContainElement(invitedMember.ID), "members of an invited group are not direct members")
	})

	It("filters by query on name, username and public email", Label("rule:members.list.3"), func(ctx SpecContext) {
		t := newMembersTree(ctx, "private")
		word := strings.ReplaceAll(Unique("Quill"), "-", "")
		byName := namedUser(ctx, word)
		byEmail := NewUser(ctx, UserOpts{"public_email": Unique("pub") + "@example.org"})
		other := NewUser(ctx)
		for _, u := range []*User{byName, byEmail, other} {
			AddGroupMember(ctx, t.Root, u, DeveloperLevel)
			AddProjectMember(ctx, t.Project, u, DeveloperLevel)
		}
		pub := api.Get(ctx, fmt.Sprintf("/users/%d", byEmail.ID)).Get("public_email").String()
		for _, base := range []string{groupMembersPath(t.Root, ""), projectMembersPath(t.Project, "")} {
			Expect(t.Owner.Get(ctx, base, Q("query", strings.ToLower(word))).IDs()).To(Equal([]int{byName.ID}), "name, ignoring case")
			Expect(t.Owner.Get(ctx, base, Q("query", byName.Username)).IDs()).To(Equal([]int{byName.ID}), "username")
			Expect(t.Owner.Get(ctx, base, Q("query", pub)).IDs()).To(Equal([]int{byEmail.ID}), "public email")
		}
	})

	It("keeps only the users of user_ids, as an array or comma-joined", Label("rule:members.list.4"), func(ctx SpecContext) {
		t := newMembersTree(ctx, "private")
		a, b, c := NewUser(ctx), NewUser(ctx), NewUser(ctx)
		for _, u := range []*User{a, b, c} {
			AddGroupMember(ctx, t.Root, u, DeveloperLevel)
			AddProjectMember(ctx, t.Project, u, DeveloperLevel)
		}
		for _, base := range []string{groupMembersPath(t.Root, ""), projectMembersPath(t.Project, "")} {
			r := t.Owner.Get(ctx, base, RawQ(fmt.Sprintf("user_ids%%5B%%5D=%d&user_ids%%5B%%5D=%d", a.ID, b.ID)))
			Expect(r).To(HaveStatus(http.StatusOK))
			Expect(r.IDs()).To(ConsistOf(a.ID, b.ID))
			Expect(t.Owner.Get(ctx, base, Q("user_ids", fmt.Sprintf("%d,%d", a.ID, c.ID))).IDs()).To(ConsistOf(a.ID, c.ID))
		}
	})

	It("leaves out the users of skip_users", Label("rule:members.list.5"), func(ctx SpecContext) {
		t := newMembersTree(ctx, "private")
		a, b := NewUser(ctx), NewUser(ctx)
		for _, u := range []*User{a, b} {
			AddGroupMember(ctx, t.Root, u, DeveloperLevel)
			AddProjectMember(ctx, t.Project, u, DeveloperLevel)
		}
		for _, base := range []string{groupMembersPath(t.Root, ""), projectMembersPath(t.Project, "")} {
			r := t.Owner.Get(ctx, base, RawQ(fmt.Sprintf("skip_users%%5B%%5D=%d", a.ID)))
			Expect(r).To(HaveStatus(http.StatusOK))
			Expect(r.IDs()).To(ContainElement(b.ID))
			Expect(r.IDs()).NotTo(ContainElement(a.ID))
		}
	})

	It("adds is_using_seat with show_seat_info=true only", Label("rule:members.list.6"), func(ctx SpecContext) {
		t := newMembersTree(ctx, "private")
		m := NewUser(ctx)
		AddGroupMember(ctx, t.Root, m, DeveloperLevel)
		r := t.Owner.Get(ctx, groupMembersPath(t.Root, ""), Q("show_seat_info", true))
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(r.IDs()).To(ConsistOf(t.Owner.ID, m.ID))
		for _, e := range r.JSON().Array() {
			Expect(e.Get("is_using_seat").IsBool()).To(BeTrue(), "every member carries is_using_seat: %s", e.Raw)
		}
		Expect(entryOf(r, m.ID).Get("is_using_seat").Bool()).To(BeTrue(), "a direct member of the top-level group takes a seat")
		plain := t.Owner.Get(ctx, groupMembersPath(t.Root, ""))
		Expect(plain).To(HaveStatus(http.StatusOK))
		Expect(plain.IDs()).To(ConsistOf(t.Owner.ID, m.ID))
		for _, e := range plain.JSON().Array() {
			Expect(e.Get("is_using_seat").Exists()).To(BeFalse(), "without show_seat_info: %s", e.Raw)
		}
	})

	DescribeTable("answers 400 to malformed filters", Label("rule:members.list.7"),
		func(ctx SpecContext, raw string) {
			t := newMembersTree(ctx, "private")
			Expect(t.Owner.Get(ctx, groupMembersPath(t.Root, ""), RawQ(raw))).To(HaveStatus(http.StatusBadRequest))
			Expect(t.Owner.Get(ctx, projectMembersPath(t.Project, ""), RawQ(raw))).To(HaveStatus(http.StatusBadRequest))
		},
		Entry("user_ids=abc", "user_ids=abc"),
		Entry("user_ids[]=1.5", "user_ids%5B%5D=1.5"),
		Entry("skip_users[]=x", "skip_users%5B%5D=x"),
		Entry("show_seat_info=maybe", "show_seat_info=maybe"),
	)

	// Booleans (suites/booleans.go): show_seat_info=yes adds is_using_seat as
	// true does; a word the platform does not read answers 400.
	It("reads the platform's boolean words for show_seat_info and refuses the rest", Label("rule:members.list.7"), func(ctx SpecContext) {
		t := newMembersTree(ctx, "private")
		expectBooleanWords(boolProbe{
			send: func(v string) *Response {
				return t.Owner.Get(ctx, groupMembersPath(t.Root, ""), RawQ("show_seat_info="+v))
			},
			meaning: func(r *Response) any { return r.Get("0.is_using_seat").Exists() },
		})
	})

	It("paginates with offset pagination", Label("rule:members.list.8"), func(ctx SpecContext) {
		t := newMembersTree(ctx, "private")
		for i := 0; i < 3; i++ {
			AddGroupMember(ctx, t.Root, NewUser(ctx), GuestLevel)
		}
		all := t.Owner.Get(ctx, groupMembersPath(t.Root, ""), Q("per_page", 100))
		total := len(all.IDs())
		Expect(total).To(BeNumerically(">=", 4))
		first := t.Owner.Get(ctx, groupMembersPath(t.Root, ""), Q("per_page", 2))
		Expect(first).To(HaveStatus(http.StatusOK))
		Expect(first.IDs()).To(HaveLen(2))
		Expect(first).To(HaveHeader("X-Total", fmt.Sprint(total)))
		Expect(first).To(HaveHeader("X-Per-Page", "2"))
		Expect(first).To(HaveHeader("X-Next-Page", "2"))
		Expect(linkRel(first, "next")).NotTo(BeEmpty())
		second := t.Owner.Get(ctx, "!"+stripBase(linkRel(first, "next")))
		Expect(second.IDs()).To(HaveLen(2))
		Expect(append(first.IDs(), second.IDs()...)).To(Equal(all.IDs()[:4]))
	})

	It("lets every signed-in caller who sees the group read its members", Label("rule:members.access.1"), func(ctx SpecContext) {
		w := NewRoleWorld(ctx, "private")
		r := w.Members[GuestLevel].Get(ctx, groupMembersPath(w.Group, ""))
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(r.IDs()).To(ContainElements(w.Owner.ID, w.Members[MaintainerLevel].ID))
		for _, vis := range []string{"public", "internal"} {
			owner := NewUser(ctx)
			g := NewGroup(ctx, owner.Client, GroupOpts{"visibility": vis})
			p := NewProject(ctx, owner.Client, ProjectOpts{"visibility": vis, "namespace_id": g.ID})
			paths := append(memberEndpoints(groupMembersPath(g, ""), owner.ID),
				projectMembersPath(p, ""), projectMembersPath(p, "/all"), projectMembersPath(p, fmt.Sprintf("/all/%d", owner.ID)))
			for _, path := range paths {
				Expect(w.Outsider.Get(ctx, path)).To(HaveStatus(http.StatusOK), "a non-member of a %s group or project: %s", vis, path)
			}
		}
	})

	It("answers 404 when the group or project is hidden from the caller", Label("rule:members.access.2", "rule:auth.status.3"), func(ctx SpecContext) {
		t := newMembersTree(ctx, "private")
		outsider := NewUser(ctx)
		for _, base := range []string{groupMembersPath(t.Root, ""), projectMembersPath(t.Project, "")} {
			for _, path := range memberEndpoints(base, t.Owner.ID) {
				Expect(outsider.Get(ctx, path)).To(HaveStatus(http.StatusNotFound), path)
			}
		}
	})

	It("answers 401 without credentials, also for public groups and projects", Label("rule:members.access.3", "rule:auth.status.1"), func(ctx SpecContext) {
		t := newMembersTree(ctx, "public")
		anon := api.Anonymous()
		for _, base := range []string{groupMembersPath(t.Root, ""), projectMembersPath(t.Project, "")} {
			for _, path := range memberEndpoints(base, t.Owner.ID) {
				Expect(anon.Get(ctx, path)).To(HaveStatus(http.StatusUnauthorized), path)
			}
		}
	})

	It("describes each member with the fields of the Member resource", Label("rule:members.fields.1"), func(ctx SpecContext) {
		t := newMembersTree(ctx, "private")
		m := NewUser(ctx)
		AddGroupMember(ctx, t.Root, m, DeveloperLevel)
		e := entryOf(t.Owner.Get(ctx, groupMembersPath(t.Root, "")), m.ID)
		Expect(e.Exists()).To(BeTrue())
		Expect(e.Get("username").String()).To(Equal(m.Username))
		Expect(e.Get("name").String()).To(Equal(m.Name))
		Expect(e.Get("state").String()).To(Equal("active"))
		Expect(e.Get("avatar_url").Exists()).To(BeTrue())
		Expect(e.Get("web_url").String()).To(HaveSuffix("/" + m.Username))
		Expect(e.Get("access_level").Int()).To(BeEquivalentTo(DeveloperLevel))
		Expect(e.Get("expires_at").Type).To(Equal(gjson.Null))
		_, err := time.Parse(time.RFC3339, e.Get("created_at").String())
		Expect(err).NotTo(HaveOccurred(), "created_at is a datetime")
	})

	It("shows a member's email to administrators only", Label("rule:members.fields.4"), func(ctx SpecContext) {
		t := newMembersTree(ctx, "private")
		m := NewUser(ctx)
		AddGroupMember(ctx, t.Root, m, DeveloperLevel)
		for _, path := range []string{groupMembersPath(t.Root, ""), groupMembersPath(t.Root, "/all")} {
			Expect(entryOf(t.Owner.Get(ctx, path), m.ID).Get("email").String()).NotTo(Equal(m.Email), "an owner never sees the private email")
			Expect(entryOf(api.Get(ctx, path), m.ID).Get("email").String()).To(Equal(m.Email), "administrators do")
		}
		Expect(t.Owner.Get(ctx, groupMembersPath(t.Root, fmt.Sprintf("/%d", m.ID))).Get("email").String()).NotTo(Equal(m.Email))
	})

	It("never shows a group_saml_identity object for a group without single sign-on", Label("rule:members.fields.5"), func(ctx SpecContext) {
		t := newMembersTree(ctx, "private")
		m := NewUser(ctx)
		AddGroupMember(ctx, t.Root, m, DeveloperLevel)
		for _, c := range []*Client{t.Owner.Client, api} {
			r := c.Get(ctx, groupMembersPath(t.Root, ""))
			Expect(r).To(HaveStatus(http.StatusOK))
			Expect(r.IDs()).To(ConsistOf(t.Owner.ID, m.ID), "the rule is checked on every member")
			one := c.Get(ctx, groupMembersPath(t.Root, fmt.Sprintf("/%d", m.ID)))
			Expect(one).To(HaveStatus(http.StatusOK))
			for _, e := range append(r.JSON().Array(), one.JSON()) {
				id := e.Get("group_saml_identity")
				Expect(!id.Exists() || id.Type == gjson.Null).To(BeTrue(), "group_saml_identity: %s", e.Raw)
			}
		}
	})

	It("gives every member one of the access levels of Authentication 6", Label("rule:auth.levels.1"), func(ctx SpecContext) {
		t := newMembersTree(ctx, "private")
		want := map[int]int{t.Owner.ID: OwnerLevel}
		for _, lv := range []int{GuestLevel, ReporterLevel, DeveloperLevel, MaintainerLevel, OwnerLevel} {
			u := NewUser(ctx)
			AddGroupMember(ctx, t.Root, u, lv)
			want[u.ID] = lv
		}
		got := levels(t.Owner.Get(ctx, groupMembersPath(t.Root, ""), Q("per_page", 100)))
		Expect(got).To(Equal(want))
		for _, lv := range got {
			Expect(lv).To(BeElementOf(NoAccess, MinimalAccess, GuestLevel, ReporterLevel, DeveloperLevel, MaintainerLevel, OwnerLevel, AdminAccessLevel))
		}
	})
})

var _ = Describe("GET /projects/:id/members", Label("area:members", "endpoint:members.project.list"), func() {
	It("lists the project's direct members only", Label("rule:members.list.2"), func(ctx SpecContext) {
		t := newMembersTree(ctx, "private")
		direct, groupMember := NewUser(ctx), NewUser(ctx)
		AddProjectMember(ctx, t.Project, direct, ReporterLevel)
		AddGroupMember(ctx, t.Sub, groupMember, DeveloperLevel)
		inv, invitedMember := invitedGroup(ctx, "private", DeveloperLevel)
		ShareProject(ctx, t.Project, inv, DeveloperLevel)

		r := t.Owner.Get(ctx, projectMembersPath(t.Project, ""))
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(levels(r)).To(HaveKeyWithValue(direct.ID, ReporterLevel))
		Expect(r.IDs()).NotTo(ContainElement(groupMember.ID), "members of the namespace group are not direct members")
		Expect(r.IDs()).NotTo(ContainElement(invitedMember.ID), "members of an invited group are not direct members")
	})
})

var _ = Describe("GET /groups/:id/members/all", Label("area:members", "endpoint:members.group.list-all"), func() {
	It("adds the members of ancestor groups with their own access level", Label("rule:members.list-all.1"), func(ctx SpecContext) {
		t := newMembersTree(ctx, "private")
		direct, inherited := NewUser(ctx), NewUser(ctx)
		AddGroupMember(ctx, t.Sub, direct, DeveloperLevel)
		AddGroupMember(ctx, t.Root, inherited, ReporterLevel)
		r := t.Owner.Get(ctx, groupMembersPath(t.Sub, "/all"))
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(levels(r)).To(And(HaveKeyWithValue(direct.ID, DeveloperLevel), HaveKeyWithValue(inherited.ID, ReporterLevel)))
	})

	It("adds the members of invited groups, capped at the invitation's access", Label("rule:members.list-all.2"), func(ctx SpecContext) {
		t := newMembersTree(ctx, "private")
		inv, capped := invitedGroup(ctx, "private", MaintainerLevel)
		ShareGroup(ctx, t.Sub, inv, ReporterLevel)
		inv2, ownLevel := invitedGroup(ctx, "private", GuestLevel)
		ShareGroup(ctx, t.Root, inv2, MaintainerLevel) // into an ancestor

		r := t.Owner.Get(ctx, groupMembersPath(t.Sub, "/all"), Q("per_page", 100))
		Expect(levels(r)).To(HaveKeyWithValue(capped.ID, ReporterLevel), "Maintainer in the invited group, capped at Reporter")
		Expect(levels(r)).To(HaveKeyWithValue(ownLevel.ID, GuestLevel), "below the cap the member keeps their own level")
	})

	It("lists each user once with the highest access level", Label("rule:members.list-all.4"), func(ctx SpecContext) {
		t := newMembersTree(ctx, "private")
		higherBelow, higherAbove, viaInvite := NewUser(ctx), NewUser(ctx), NewUser(ctx)
		AddGroupMember(ctx, t.Root, higherBelow, ReporterLevel)
		AddGroupMember(ctx, t.Sub, higherBelow, MaintainerLevel)
		AddGroupMember(ctx, t.Root, higherAbove, DeveloperLevel)
		AddGroupMember(ctx, t.Sub, higherAbove, GuestLevel)
		inv, _ := invitedGroup(ctx, "private", GuestLevel)
		AddGroupMember(ctx, inv, viaInvite, MaintainerLevel)
		AddGroupMember(ctx, t.Sub, viaInvite, ReporterLevel)
		ShareGroup(ctx, t.Sub, inv, DeveloperLevel)

		r := t.Owner.Get(ctx, groupMembersPath(t.Sub, "/all"), Q("per_page", 100))
		for _, u := range []*User{higherBelow, higherAbove, viaInvite} {
			Expect(countOf(r, u.ID)).To(Equal(1), "user %d is listed once", u.ID)
		}
		Expect(levels(r)).To(And(HaveKeyWithValue(higherBelow.ID, MaintainerLevel), HaveKeyWithValue(higherAbove.ID, DeveloperLevel),
			HaveKeyWithValue(viaInvite.ID, DeveloperLevel)))
	})

	It("filters with query and user_ids and adds seat information", Label("rule:members.list-all.5"), func(ctx SpecContext) {
		t := newMembersTree(ctx, "private")
		word := strings.ReplaceAll(Unique("Ravel"), "-", "")
		inherited := namedUser(ctx, word)
		other := NewUser(ctx)
		AddGroupMember(ctx, t.Root, inherited, ReporterLevel)
		AddGroupMember(ctx, t.Root, other, ReporterLevel)
		path := groupMembersPath(t.Sub, "/all")
		Expect(t.Owner.Get(ctx, path, Q("query", word)).IDs()).To(Equal([]int{inherited.ID}))
		Expect(t.Owner.Get(ctx, path, Q("user_ids", fmt.Sprintf("%d,%d", inherited.ID, other.ID))).IDs()).To(ConsistOf(inherited.ID, other.ID))
		r := t.Owner.Get(ctx, path, RawQ(fmt.Sprintf("user_ids%%5B%%5D=%d", other.ID)), Q("show_seat_info", true))
		Expect(r.IDs()).To(Equal([]int{other.ID}))
		Expect(r.Get("0.is_using_seat").IsBool()).To(BeTrue())
		Expect(t.Owner.Get(ctx, path, Q("show_seat_info", "maybe"))).To(HaveStatus(http.StatusBadRequest))
	})

	It("filters by membership state", Label("rule:members.list-all.6", "paid"), func(ctx SpecContext) {
		t := newMembersTree(ctx, "private")
		m := NewUser(ctx)
		AddGroupMember(ctx, t.Root, m, DeveloperLevel)
		path := groupMembersPath(t.Root, "/all")
		active := t.Owner.Get(ctx, path, Q("state", "active"))
		Expect(active).To(HaveStatus(http.StatusOK))
		Expect(active.IDs()).To(ContainElements(m.ID, t.Owner.ID))
		awaiting := t.Owner.Get(ctx, path, Q("state", "awaiting"))
		Expect(awaiting).To(HaveStatus(http.StatusOK))
		for _, id := range awaiting.IDs() {
			Expect(active.IDs()).NotTo(ContainElement(id), "a membership is either active or awaiting")
		}
		Expect(t.Owner.Get(ctx, path, Q("state", "pending"))).To(HaveStatus(http.StatusBadRequest))
	})

	It("shows members of a non-public invited group only to those who belong to it or to the shared group", Label("rule:members.visibility.1"), func(ctx SpecContext) {
		owner := NewUser(ctx)
		g := NewGroup(ctx, owner.Client, GroupOpts{"visibility": "public"})
		guest := NewUser(ctx)
		AddGroupMember(ctx, g, guest, GuestLevel)
		for _, vis := range []string{"private"} {
			inv, invMember := invitedGroup(ctx, vis, DeveloperLevel)
			fellow := NewUser(ctx)
			AddGroupMember(ctx, inv, fellow, GuestLevel)
			ShareGroup(ctx, g, inv, ReporterLevel)
			outsider := NewUser(ctx)

			Expect(outsider.Get(ctx, groupMembersPath(g, "/all")).IDs()).NotTo(ContainElement(invMember.ID), "%s invited group, outsider", vis)
			Expect(outsider.Get(ctx, groupMembersPath(g, fmt.Sprintf("/all/%d", invMember.ID)))).To(HaveStatus(http.StatusNotFound))
			Expect(guest.Get(ctx, groupMembersPath(g, "/all")).IDs()).To(ContainElement(invMember.ID), "a member of the shared group")
			Expect(guest.Get(ctx, groupMembersPath(g, fmt.Sprintf("/all/%d", invMember.ID)))).To(HaveStatus(http.StatusOK))
			Expect(fellow.Get(ctx, groupMembersPath(g, "/all")).IDs()).To(ContainElement(invMember.ID), "a member of the invited group")
		}
	})

	It("shows members of a public invited group to every caller", Label("rule:members.visibility.2"), func(ctx SpecContext) {
		owner := NewUser(ctx)
		g := NewGroup(ctx, owner.Client, GroupOpts{"visibility": "public"})
		inv, invMember := invitedGroup(ctx, "public", DeveloperLevel)
		ShareGroup(ctx, g, inv, ReporterLevel)
		outsider := NewUser(ctx)
		Expect(levels(outsider.Get(ctx, groupMembersPath(g, "/all")))).To(HaveKeyWithValue(invMember.ID, ReporterLevel))
	})
})

var _ = Describe("GET /projects/:id/members/all", Label("area:members", "endpoint:members.project.list-all"), func() {
	It("includes direct, namespace-group and invited members", Label("rule:members.list-all.3"), func(ctx SpecContext) {
		t := newMembersTree(ctx, "private")
		direct, rootMember, subMember := NewUser(ctx), NewUser(ctx), NewUser(ctx)
		AddProjectMember(ctx, t.Project, direct, GuestLevel)
		AddGroupMember(ctx, t.Root, rootMember, ReporterLevel)
		AddGroupMember(ctx, t.Sub, subMember, DeveloperLevel)
		invP, viaProject := invitedGroup(ctx, "private", MaintainerLevel)
		ShareProject(ctx, t.Project, invP, DeveloperLevel)
		invR, viaRoot := invitedGroup(ctx, "private", ReporterLevel)
		ShareGroup(ctx, t.Root, invR, MaintainerLevel)

		r := t.Owner.Get(ctx, projectMembersPath(t.Project, "/all"), Q("per_page", 100))
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(levels(r)).To(And(
			HaveKeyWithValue(direct.ID, GuestLevel),
			HaveKeyWithValue(rootMember.ID, ReporterLevel),
			HaveKeyWithValue(subMember.ID, DeveloperLevel),
			HaveKeyWithValue(viaProject.ID, DeveloperLevel), // Maintainer capped at Developer
			HaveKeyWithValue(viaRoot.ID, ReporterLevel),
		))
	})

	It("shows members of a private group invited into the project only to those who belong to it or to the project", Label("rule:members.visibility.1"), func(ctx SpecContext) {
		t := newMembersTree(ctx, "public")
		projectGuest, outsider := NewUser(ctx), NewUser(ctx)
		AddProjectMember(ctx, t.Project, projectGuest, GuestLevel)
		inv, invMember := invitedGroup(ctx, "private", DeveloperLevel)
		ShareProject(ctx, t.Project, inv, ReporterLevel)
		path := projectMembersPath(t.Project, "/all")
		Expect(outsider.Get(ctx, path).IDs()).NotTo(ContainElement(invMember.ID))
		Expect(levels(projectGuest.Get(ctx, path))).To(HaveKeyWithValue(invMember.ID, ReporterLevel))
		Expect(invMember.Get(ctx, path).IDs()).To(ContainElement(invMember.ID))
	})

	It("lists each user once with the highest level", Label("rule:members.list-all.4"), func(ctx SpecContext) {
		t := newMembersTree(ctx, "private")
		u := NewUser(ctx)
		AddGroupMember(ctx, t.Root, u, MaintainerLevel)
		AddProjectMember(ctx, t.Project, u, ReporterLevel)
		r := t.Owner.Get(ctx, projectMembersPath(t.Project, "/all"), Q("per_page", 100))
		Expect(countOf(r, u.ID)).To(Equal(1))
		Expect(levels(r)).To(HaveKeyWithValue(u.ID, MaintainerLevel))
	})
})

var _ = Describe("GET /groups/:id/members/:user_id", Label("area:members", "endpoint:members.group.get"), func() {
	It("answers the direct member", Label("rule:members.get.1"), func(ctx SpecContext) {
		t := newMembersTree(ctx, "private")
		m := NewUser(ctx)
		AddGroupMember(ctx, t.Sub, m, MaintainerLevel)
		AddProjectMember(ctx, t.Project, m, ReporterLevel)
		r := t.Owner.Get(ctx, groupMembersPath(t.Sub, fmt.Sprintf("/%d", m.ID)))
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(r.Get("id").Int()).To(BeEquivalentTo(m.ID))
		Expect(r.Get("access_level").Int()).To(BeEquivalentTo(MaintainerLevel))
		p := t.Owner.Get(ctx, projectMembersPath(t.Project, fmt.Sprintf("/%d", m.ID)))
		Expect(p).To(HaveStatus(http.StatusOK))
		Expect(p.Get("access_level").Int()).To(BeEquivalentTo(ReporterLevel), "the project membership's own level")
	})

	It("answers 404 for inherited, invited and unrelated users", Label("rule:members.get.2"), func(ctx SpecContext) {
		t := newMembersTree(ctx, "private")
		inherited, stranger := NewUser(ctx), NewUser(ctx)
		AddGroupMember(ctx, t.Root, inherited, DeveloperLevel)
		inv, invited := invitedGroup(ctx, "private", DeveloperLevel)
		ShareGroup(ctx, t.Sub, inv, DeveloperLevel)
		for _, u := range []*User{inherited, invited, stranger} {
			Expect(t.Owner.Get(ctx, groupMembersPath(t.Sub, fmt.Sprintf("/%d", u.ID)))).To(HaveStatus(http.StatusNotFound))
			Expect(t.Owner.Get(ctx, projectMembersPath(t.Project, fmt.Sprintf("/%d", u.ID)))).To(HaveStatus(http.StatusNotFound))
		}
	})

	It("names who added the member in created_by", Label("rule:members.fields.2"), func(ctx SpecContext) {
		t := newMembersTree(ctx, "private")
		m := NewUser(ctx)
		Expect(t.Owner.Post(ctx, groupMembersPath(t.Root, ""), Body(map[string]any{"user_id": m.ID, "access_level": DeveloperLevel}))).
			To(HaveStatus(http.StatusCreated))
		r := t.Owner.Get(ctx, groupMembersPath(t.Root, fmt.Sprintf("/%d", m.ID)))
		Expect(r).To(MatchSchema("member", false))
		Expect(r.Get("created_by.id").Int()).To(BeEquivalentTo(t.Owner.ID))
		Expect(r.Get("created_by.username").String()).To(Equal(t.Owner.Username))
		Expect(schemas.Validate("user_reference", []byte(r.Get("created_by").Raw))).To(Succeed(), "created_by is a user reference")
	})

	It("gives the expiry date or null in expires_at", Label("rule:members.fields.3"), func(ctx SpecContext) {
		t := newMembersTree(ctx, "private")
		expiring, permanent := NewUser(ctx), NewUser(ctx)
		day := futureDate()
		Expect(api.Post(ctx, groupMembersPath(t.Root, ""), Body(map[string]any{"user_id": expiring.ID, "access_level": GuestLevel, "expires_at": day}))).
			To(HaveStatus(http.StatusCreated))
		AddGroupMember(ctx, t.Root, permanent, GuestLevel)
		Expect(t.Owner.Get(ctx, groupMembersPath(t.Root, fmt.Sprintf("/%d", expiring.ID))).Get("expires_at").String()).To(Equal(day))
		Expect(t.Owner.Get(ctx, groupMembersPath(t.Root, fmt.Sprintf("/%d", permanent.ID))).Get("expires_at").Type).To(Equal(gjson.Null))
	})
})

var _ = Describe("GET /groups/:id/members/all/:user_id", Label("area:members", "endpoint:members.group.get-all"), func() {
	It("answers inherited and invited members with the highest level", Label("rule:members.get-all.1"), func(ctx SpecContext) {
		t := newMembersTree(ctx, "private")
		inherited, both := NewUser(ctx), NewUser(ctx)
		AddGroupMember(ctx, t.Root, inherited, ReporterLevel)
		AddGroupMember(ctx, t.Root, both, GuestLevel)
		AddGroupMember(ctx, t.Sub, both, MaintainerLevel)
		inv, invited := invitedGroup(ctx, "private", OwnerLevel)
		ShareGroup(ctx, t.Sub, inv, DeveloperLevel)
		want := map[*User]int{inherited: ReporterLevel, both: MaintainerLevel, invited: DeveloperLevel}
		for u, lv := range want {
			r := t.Owner.Get(ctx, groupMembersPath(t.Sub, fmt.Sprintf("/all/%d", u.ID)))
			Expect(r).To(HaveStatus(http.StatusOK))
			Expect(r.Get("id").Int()).To(BeEquivalentTo(u.ID))
			Expect(r.Get("access_level").Int()).To(BeEquivalentTo(lv))
		}
		p := t.Owner.Get(ctx, projectMembersPath(t.Project, fmt.Sprintf("/all/%d", both.ID)))
		Expect(p).To(HaveStatus(http.StatusOK))
		Expect(p.Get("access_level").Int()).To(BeEquivalentTo(MaintainerLevel), "a project inherits from its namespace groups")
	})

	It("answers 404 for a user without access", Label("rule:members.get-all.2"), func(ctx SpecContext) {
		t := newMembersTree(ctx, "private")
		stranger := NewUser(ctx)
		Expect(t.Owner.Get(ctx, groupMembersPath(t.Sub, fmt.Sprintf("/all/%d", stranger.ID)))).To(HaveStatus(http.StatusNotFound))
		Expect(t.Owner.Get(ctx, projectMembersPath(t.Project, fmt.Sprintf("/all/%d", stranger.ID)))).To(HaveStatus(http.StatusNotFound))
	})
})

// billableWorld is a members tree with one billable member of each kind.
type billableWorld struct {
	*membersTree
	GroupMember   *User // direct member of the subgroup
	ProjectMember *User // direct member of the project only
	Invited       *User // member of a group invited into the top-level group
	InvitedOwner  *User // the invited group's creator, billable through it too
	Outsider      *User
}

func newBillableWorld(ctx context.Context) *billableWorld {
	GinkgoHelper()
	tree := newMembersTree(ctx, "private")
	users := newUsers(ctx, 5)
	w := &billableWorld{membersTree: tree,
		GroupMember: users[0], ProjectMember: users[1], Invited: users[2], InvitedOwner: users[3], Outsider: users[4]}
	AddGroupMember(ctx, w.Sub, w.GroupMember, DeveloperLevel)
	AddProjectMember(ctx, w.Project, w.ProjectMember, ReporterLevel)
	inv := NewGroup(ctx, w.InvitedOwner.Client, GroupOpts{"visibility": "private"})
	AddGroupMember(ctx, inv, w.Invited, DeveloperLevel)
	ShareGroup(ctx, w.Root, inv, DeveloperLevel)
	return w
}

// orderedIDs returns the ids of r restricted to want, in r's order.
func orderedIDs(r *Response, want ...*User) []int {
	keep := map[int]bool{}
	for _, u := range want {
		keep[u.ID] = true
	}
	var out []int
	for _, id := range r.IDs() {
		if keep[id] {
			out = append(out, id)
		}
	}
	return out
}

func ids(us ...*User) []int {
	out := make([]int, len(us))
	for i, u := range us {
		out[i] = u.ID
	}
	return out
}

var _ = Describe("GET /groups/:id/billable_members", Label("area:members", "endpoint:members.billable.list"), func() {
	It("lists every billable user of the hierarchy once", Label("rule:members.billable.1"), func(ctx SpecContext) {
		w := newBillableWorld(ctx)
		inv2, viaProject := invitedGroup(ctx, "private", GuestLevel)
		ShareProject(ctx, w.Project, inv2, ReporterLevel)
		r := w.Owner.Get(ctx, billablePath(w.Root, ""), Q("per_page", 100))
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(r.IDs()).To(ContainElements(w.Owner.ID, w.GroupMember.ID, w.ProjectMember.ID, w.Invited.ID, w.InvitedOwner.ID, viaProject.ID))
		Expect(r.IDs()).NotTo(ContainElement(w.Outsider.ID))
		for _, id := range r.IDs() {
			Expect(countOf(r, id)).To(Equal(1), "user %d is listed once", id)
		}
	})

	It("answers 400 on a subgroup", Label("rule:members.billable.2"), func(ctx SpecContext) {
		t := newMembersTree(ctx, "private")
		Expect(t.Owner.Get(ctx, billablePath(t.Sub, ""))).To(HaveStatus(http.StatusBadRequest))
		Expect(api.Get(ctx, billablePath(t.Sub, ""))).To(HaveStatus(http.StatusBadRequest))
	})

	It("is for Owners only", Label("rule:members.billable.3", "rule:auth.roles.1", "rule:auth.status.2"), func(ctx SpecContext) {
		w := NewRoleWorld(ctx, "private")
		path := billablePath(w.Group, "")
		for _, lv := range []int{GuestLevel, ReporterLevel, DeveloperLevel, MaintainerLevel} {
			Expect(w.Members[lv].Get(ctx, path)).To(HaveStatus(http.StatusForbidden), "access level %d", lv)
		}
		Expect(w.Outsider.Get(ctx, path)).To(HaveStatus(http.StatusNotFound))
		Expect(api.Anonymous().Get(ctx, path)).To(HaveStatus(http.StatusUnauthorized))
		Expect(w.Owner.Get(ctx, path)).To(HaveStatus(http.StatusOK))
		Expect(api.Get(ctx, path)).To(HaveStatus(http.StatusOK))
	})

	It("searches name, username and public email", Label("rule:members.billable.4"), func(ctx SpecContext) {
		t := newMembersTree(ctx, "private")
		word := strings.ReplaceAll(Unique("Zephyr"), "-", "")
		byName := namedUser(ctx, word)
		byEmail := NewUser(ctx, UserOpts{"public_email": Unique("pub") + "@example.org"})
		for _, u := range []*User{byName, byEmail} {
			AddGroupMember(ctx, t.Sub, u, DeveloperLevel)
		}
		pub := api.Get(ctx, fmt.Sprintf("/users/%d", byEmail.ID)).Get("public_email").String()
		path := billablePath(t.Root, "")
		Expect(t.Owner.Get(ctx, path, Q("search", word)).IDs()).To(Equal([]int{byName.ID}))
		Expect(t.Owner.Get(ctx, path, Q("search", byEmail.Username)).IDs()).To(Equal([]int{byEmail.ID}))
		Expect(t.Owner.Get(ctx, path, Q("search", pub)).IDs()).To(Equal([]int{byEmail.ID}))
	})

	It("sorts by access level", Label("rule:members.billable.5"), func(ctx SpecContext) {
		t := newMembersTree(ctx, "private")
		guest, dev, maint := NewUser(ctx), NewUser(ctx), NewUser(ctx)
		AddGroupMember(ctx, t.Sub, maint, MaintainerLevel)
		AddGroupMember(ctx, t.Root, guest, GuestLevel)
		AddProjectMember(ctx, t.Project, dev, DeveloperLevel)
		asc := t.Owner.Get(ctx, billablePath(t.Root, ""), Q("sort", "access_level_asc"))
		Expect(orderedIDs(asc, guest, dev, maint, t.Owner)).To(Equal(ids(guest, dev, maint, t.Owner)))
		desc := t.Owner.Get(ctx, billablePath(t.Root, ""), Q("sort", "access_level_desc"))
		Expect(orderedIDs(desc, guest, dev, maint, t.Owner)).To(Equal(ids(t.Owner, maint, dev, guest)))
	})

	It("sorts by name", Label("rule:members.billable.6"), func(ctx SpecContext) {
		t := newMembersTree(ctx, "private")
		for _, first := range []string{"Charlie", "Alpha", "Bravo"} {
			AddGroupMember(ctx, t.Root, namedUser(ctx, first), DeveloperLevel)
		}
		for _, sort := range []string{"name_asc", "name_desc"} {
			r := t.Owner.Get(ctx, billablePath(t.Root, ""), Q("sort", sort))
			Expect(r).To(HaveStatus(http.StatusOK))
			names := r.Strings("name")
			Expect(names).To(HaveLen(4))
			Expect(names).To(Equal(sortedStrings(names, sort == "name_desc")))
		}
	})

	It("sorts by when members joined", Label("rule:members.billable.7"), func(ctx SpecContext) {
		t := newMembersTree(ctx, "private")
		a, b, c := NewUser(ctx), NewUser(ctx), NewUser(ctx)
		for _, u := range []*User{c, a, b} {
			AddGroupMember(ctx, t.Root, u, DeveloperLevel)
			time.Sleep(5 * time.Millisecond) // distinct join times on a real clock
		}
		last := t.Owner.Get(ctx, billablePath(t.Root, ""), Q("sort", "last_joined"))
		Expect(orderedIDs(last, t.Owner, a, b, c)).To(Equal(ids(b, a, c, t.Owner)))
		oldest := t.Owner.Get(ctx, billablePath(t.Root, ""), Q("sort", "oldest_joined"))
		Expect(orderedIDs(oldest, t.Owner, a, b, c)).To(Equal(ids(t.Owner, c, a, b)))
	})

	DescribeTable("sorts by last sign-in, never-signed-in last", Label("rule:members.billable.8"),
		func(ctx SpecContext, sortBy string, newestFirst bool) {
			w := newBillableWorld(ctx)
			r := w.Owner.Get(ctx, billablePath(w.Root, ""), Q("sort", sortBy), Q("per_page", 100))
			Expect(r).To(HaveStatus(http.StatusOK))
			Expect(r.IDs()).To(HaveLen(5))
			var stamps []string
			seenNull := false
			for _, e := range r.JSON().Array() {
				v := e.Get("last_login_at")
				if v.Type == gjson.Null {
					seenNull = true
					continue
				}
				Expect(seenNull).To(BeFalse(), "members who never signed in come last")
				stamps = append(stamps, v.String())
			}
			Expect(stamps).To(Equal(sortedStrings(stamps, newestFirst)))
		},
		Entry("recent_sign_in", "recent_sign_in", true),
		Entry("oldest_sign_in", "oldest_sign_in", false),
	)

	DescribeTable("sorts by last activity date", Label("rule:members.billable.9"),
		func(ctx SpecContext, sortBy string, desc bool) {
			w := newBillableWorld(ctx)
			for _, u := range []*User{w.GroupMember, w.Invited} {
				Expect(u.Get(ctx, "/user")).To(HaveStatus(http.StatusOK)) // activity
			}
			r := w.Owner.Get(ctx, billablePath(w.Root, ""), Q("sort", sortBy), Q("per_page", 100))
			Expect(r).To(HaveStatus(http.StatusOK))
			Expect(r.IDs()).To(HaveLen(5))
			dates := r.Strings("last_activity_on")
			Expect(dates).To(Equal(sortedStrings(dates, desc)))
		},
		Entry("last_activity_on_asc", "last_activity_on_asc", false),
		Entry("last_activity_on_desc", "last_activity_on_desc", true),
	)

	It("answers 400 to an unknown sort", Label("rule:members.billable.10"), func(ctx SpecContext) {
		t := newMembersTree(ctx, "private")
		Expect(t.Owner.Get(ctx, billablePath(t.Root, ""), Q("sort", "id_desc_please"))).To(HaveStatus(http.StatusBadRequest))
	})

	It("describes each billable member with the Billable member fields", Label("rule:members.billable.11"), func(ctx SpecContext) {
		w := newBillableWorld(ctx)
		Expect(w.GroupMember.Get(ctx, "/user")).To(HaveStatus(http.StatusOK))
		r := w.Owner.Get(ctx, billablePath(w.Root, ""), Q("per_page", 100))
		Expect(r).To(MatchSchema("billable_member", true))
		e := entryOf(r, w.GroupMember.ID)
		Expect(e.Get("username").String()).To(Equal(w.GroupMember.Username))
		Expect(e.Get("name").String()).To(Equal(w.GroupMember.Name))
		Expect(e.Get("state").String()).To(Equal("active"))
		Expect(e.Get("web_url").String()).To(HaveSuffix("/" + w.GroupMember.Username))
		_, err := time.Parse("2006-01-02", e.Get("last_activity_on").String())
		Expect(err).NotTo(HaveOccurred(), "last_activity_on is a date")
		Expect(e.Get("removable").IsBool()).To(BeTrue())
		Expect(e.Get("last_login_at").Exists()).To(BeTrue())
		created := api.Get(ctx, fmt.Sprintf("/users/%d", w.GroupMember.ID)).Get("created_at").String()
		Expect(e.Get("created_at").String()).To(Equal(created), "created_at is the account's")
	})

	It("tells direct members from invited ones in membership_type", Label("rule:members.billable.12"), func(ctx SpecContext) {
		w := newBillableWorld(ctx)
		r := w.Owner.Get(ctx, billablePath(w.Root, ""), Q("per_page", 100))
		Expect(entryOf(r, w.GroupMember.ID).Get("membership_type").String()).To(Equal("group_member"))
		Expect(entryOf(r, w.Owner.ID).Get("membership_type").String()).To(Equal("group_member"))
		Expect(entryOf(r, w.Invited.ID).Get("membership_type").String()).To(Equal("group_invite"))
	})

	It("marks direct members removable and invited ones not", Label("rule:members.billable.13"), func(ctx SpecContext) {
		w := newBillableWorld(ctx)
		r := w.Owner.Get(ctx, billablePath(w.Root, ""), Q("per_page", 100))
		Expect(entryOf(r, w.GroupMember.ID).Get("removable").Bool()).To(BeTrue())
		Expect(entryOf(r, w.ProjectMember.ID).Get("removable").Bool()).To(BeTrue())
		Expect(entryOf(r, w.Invited.ID).Get("removable").Bool()).To(BeFalse())
		Expect(entryOf(r, w.Invited.ID).Get("removable").Exists()).To(BeTrue())
	})

	It("shows the private email to administrators only", Label("rule:members.billable.14"), func(ctx SpecContext) {
		w := newBillableWorld(ctx)
		owner := w.Owner.Get(ctx, billablePath(w.Root, ""), Q("per_page", 100))
		Expect(entryOf(owner, w.GroupMember.ID).Get("email").String()).NotTo(Equal(w.GroupMember.Email))
		admin := api.Get(ctx, billablePath(w.Root, ""), Q("per_page", 100))
		Expect(entryOf(admin, w.GroupMember.ID).Get("email").String()).To(Equal(w.GroupMember.Email))
	})

	It("paginates billable members", Label("rule:members.billable.15"), func(ctx SpecContext) {
		w := newBillableWorld(ctx)
		all := w.Owner.Get(ctx, billablePath(w.Root, ""), Q("per_page", 100)).IDs()
		first := w.Owner.Get(ctx, billablePath(w.Root, ""), Q("per_page", 2))
		Expect(first).To(HaveHeader("X-Total", fmt.Sprint(len(all))))
		Expect(first.IDs()).To(Equal(all[:2]))
		second := w.Owner.Get(ctx, "!"+stripBase(linkRel(first, "next")))
		Expect(second.IDs()).To(Equal(all[2:4]))
	})
})

var _ = Describe("GET /groups/:id/billable_members/:user_id/memberships", Label("area:members", "endpoint:members.billable.memberships"), func() {
	It("lists the direct memberships within the hierarchy", Label("rule:members.billable-memberships.1"), func(ctx SpecContext) {
		t := newMembersTree(ctx, "private")
		m := NewUser(ctx)
		day := futureDate()
		Expect(api.Post(ctx, groupMembersPath(t.Sub, ""), Body(map[string]any{"user_id": m.ID, "access_level": DeveloperLevel, "expires_at": day}))).
			To(HaveStatus(http.StatusCreated))
		AddProjectMember(ctx, t.Project, m, MaintainerLevel)
		elsewhere := NewGroup(ctx, api)
		AddGroupMember(ctx, elsewhere, m, OwnerLevel)

		r := t.Owner.Get(ctx, billablePath(t.Root, fmt.Sprintf("/%d/memberships", m.ID)))
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(r.Strings("source_id")).To(ConsistOf(fmt.Sprint(t.Sub.ID), fmt.Sprint(t.Project.ID)),
			"the root (inherited nothing) and groups outside the hierarchy are not listed")
		for _, e := range r.JSON().Array() {
			switch int(e.Get("source_id").Int()) {
			case t.Sub.ID:
				Expect(e.Get("source_full_name").String()).To(Equal(t.Root.Name + " / " + t.Sub.Name))
				Expect(e.Get("source_members_url").String()).To(HaveSuffix("/groups/" + t.Sub.FullPath + "/-/group_members"))
				Expect(e.Get("expires_at").String()).To(Equal(day))
				Expect(e.Get("access_level.integer_value").Int()).To(BeEquivalentTo(DeveloperLevel))
			case t.Project.ID:
				Expect(e.Get("source_full_name").String()).To(Equal(t.Root.Name + " / " + t.Sub.Name + " / " + t.Project.Name))
				Expect(e.Get("source_members_url").String()).To(HaveSuffix("/" + t.Project.FullPath + "/-/project_members"))
				Expect(e.Get("expires_at").Type).To(Equal(gjson.Null))
				Expect(e.Get("access_level.integer_value").Int()).To(BeEquivalentTo(MaintainerLevel))
			}
			_, err := time.Parse(time.RFC3339, e.Get("created_at").String())
			Expect(err).NotTo(HaveOccurred())
		}
		inherited := NewUser(ctx)
		AddGroupMember(ctx, t.Root, inherited, ReporterLevel)
		ri := t.Owner.Get(ctx, billablePath(t.Root, fmt.Sprintf("/%d/memberships", inherited.ID)))
		Expect(ri.Strings("source_id")).To(Equal([]string{fmt.Sprint(t.Root.ID)}), "inherited access to the subgroup and project is not a membership")
	})

	It("names the role of each access level", Label("rule:members.billable-memberships.2", "rule:auth.levels.1"), func(ctx SpecContext) {
		t := newMembersTree(ctx, "private")
		names := map[int]string{GuestLevel: "Guest", ReporterLevel: "Reporter", DeveloperLevel: "Developer", MaintainerLevel: "Maintainer", OwnerLevel: "Owner"}
		for _, lv := range []int{GuestLevel, ReporterLevel, DeveloperLevel, MaintainerLevel, OwnerLevel} { // in order: a recorded run replays
			name := names[lv]
			u := NewUser(ctx)
			AddGroupMember(ctx, t.Sub, u, lv)
			r := t.Owner.Get(ctx, billablePath(t.Root, fmt.Sprintf("/%d/memberships", u.ID)))
			Expect(r.Get("0.access_level.integer_value").Int()).To(BeEquivalentTo(lv))
			Expect(r.Get("0.access_level.string_value").String()).To(Equal(name))
		}
	})

	It("answers 400 on a subgroup", Label("rule:members.billable-memberships.3"), func(ctx SpecContext) {
		t := newMembersTree(ctx, "private")
		m := NewUser(ctx)
		AddGroupMember(ctx, t.Sub, m, DeveloperLevel)
		for _, tail := range []string{"memberships", "indirect"} {
			Expect(t.Owner.Get(ctx, billablePath(t.Sub, fmt.Sprintf("/%d/%s", m.ID, tail)))).To(HaveStatus(http.StatusBadRequest), tail)
		}
	})

	It("is for Owners only", Label("rule:members.billable-memberships.4", "rule:auth.roles.1"), func(ctx SpecContext) {
		w := NewRoleWorld(ctx, "private")
		target := w.Members[DeveloperLevel]
		for _, tail := range []string{"memberships", "indirect"} {
			path := billablePath(w.Group, fmt.Sprintf("/%d/%s", target.ID, tail))
			for _, lv := range []int{GuestLevel, ReporterLevel, DeveloperLevel, MaintainerLevel} {
				Expect(w.Members[lv].Get(ctx, path)).To(HaveStatus(http.StatusForbidden), "%s, access level %d", tail, lv)
			}
			Expect(w.Outsider.Get(ctx, path)).To(HaveStatus(http.StatusNotFound))
			Expect(api.Anonymous().Get(ctx, path)).To(HaveStatus(http.StatusUnauthorized))
			Expect(w.Owner.Get(ctx, path)).To(HaveStatus(http.StatusOK))
			Expect(api.Get(ctx, path)).To(HaveStatus(http.StatusOK))
		}
	})

	It("answers 404 for a user who is not a billable member", Label("rule:members.billable-memberships.5"), func(ctx SpecContext) {
		t := newMembersTree(ctx, "private")
		stranger := NewUser(ctx)
		Expect(t.Owner.Get(ctx, billablePath(t.Root, fmt.Sprintf("/%d/memberships", stranger.ID)))).To(HaveStatus(http.StatusNotFound))
		Expect(t.Owner.Get(ctx, billablePath(t.Root, fmt.Sprintf("/%d/indirect", stranger.ID)))).To(HaveStatus(http.StatusNotFound))
	})
})

var _ = Describe("GET /groups/:id/billable_members/:user_id/indirect", Label("area:members", "endpoint:members.billable.indirect"), func() {
	It("lists memberships of invited groups and no direct ones", Label("rule:members.billable-indirect.1"), func(ctx SpecContext) {
		w := newBillableWorld(ctx)
		invP, viaProject := invitedGroup(ctx, "private", ReporterLevel)
		ShareProject(ctx, w.Project, invP, DeveloperLevel)

		r := w.Owner.Get(ctx, billablePath(w.Root, fmt.Sprintf("/%d/indirect", w.Invited.ID)))
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(r.IDs()).To(HaveLen(1))
		Expect(r.Get("0.access_level.integer_value").Int()).To(BeEquivalentTo(DeveloperLevel))
		Expect(r.Get("0.source_members_url").String()).To(ContainSubstring("/groups/"))
		direct := w.Owner.Get(ctx, billablePath(w.Root, fmt.Sprintf("/%d/memberships", w.Invited.ID)))
		Expect(direct).To(HaveStatus(http.StatusOK))
		Expect(direct.IDs()).To(BeEmpty(), "an invited user has no direct membership in the hierarchy")

		rp := w.Owner.Get(ctx, billablePath(w.Root, fmt.Sprintf("/%d/indirect", viaProject.ID)))
		Expect(rp.Strings("source_id")).To(Equal([]string{fmt.Sprint(invP.ID)}), "a group invited into a project counts too")
		Expect(w.Owner.Get(ctx, billablePath(w.Root, fmt.Sprintf("/%d/indirect", w.GroupMember.ID))).IDs()).To(BeEmpty())
	})
})

var _ = Describe("DELETE /groups/:id/billable_members/:user_id", Label("area:members", "endpoint:members.billable.delete"), func() {
	memberOf := func(ctx context.Context, path string) func() []int {
		return func() []int { return api.Get(ctx, path, Q("per_page", 100)).IDs() }
	}

	It("removes the user from the group, its subgroups and projects", Label("rule:members.billable-delete.1"), func(ctx SpecContext) {
		t := newMembersTree(ctx, "private")
		m := NewUser(ctx)
		AddGroupMember(ctx, t.Root, m, ReporterLevel)
		AddGroupMember(ctx, t.Sub, m, DeveloperLevel)
		AddProjectMember(ctx, t.Project, m, MaintainerLevel)
		r := t.Owner.Delete(ctx, billablePath(t.Root, fmt.Sprintf("/%d", m.ID)))
		Expect(r).To(HaveStatus(http.StatusNoContent))
		for _, path := range []string{groupMembersPath(t.Root, ""), groupMembersPath(t.Sub, ""), projectMembersPath(t.Project, ""),
			projectMembersPath(t.Project, "/all"), billablePath(t.Root, "")} {
			Eventually(ctx, memberOf(ctx, path)).WithTimeout(30*time.Second).ShouldNot(ContainElement(m.ID), path)
		}
	})

	It("removes a user who is a member of a project only", Label("rule:members.billable-delete.2"), func(ctx SpecContext) {
		t := newMembersTree(ctx, "private")
		m := NewUser(ctx)
		AddProjectMember(ctx, t.Project, m, DeveloperLevel)
		Expect(t.Owner.Delete(ctx, billablePath(t.Root, fmt.Sprintf("/%d", m.ID)))).To(HaveStatus(http.StatusNoContent))
		Eventually(ctx, memberOf(ctx, projectMembersPath(t.Project, ""))).WithTimeout(30 * time.Second).ShouldNot(ContainElement(m.ID))
	})

	It("is for Owners only and leaves the memberships otherwise", Label("rule:members.billable-delete.3", "rule:auth.roles.1"), func(ctx SpecContext) {
		w := NewRoleWorld(ctx, "private")
		target := w.Members[GuestLevel]
		path := billablePath(w.Group, fmt.Sprintf("/%d", target.ID))
		for _, lv := range []int{GuestLevel, ReporterLevel, DeveloperLevel, MaintainerLevel} {
			Expect(w.Members[lv].Delete(ctx, path)).To(HaveStatus(http.StatusForbidden), "access level %d", lv)
		}
		Expect(w.Outsider.Delete(ctx, path)).To(HaveStatus(http.StatusNotFound))
		Expect(api.Anonymous().Delete(ctx, path)).To(HaveStatus(http.StatusUnauthorized))
		Expect(api.Get(ctx, groupMembersPath(w.Group, fmt.Sprintf("/%d", target.ID)))).To(HaveStatus(http.StatusOK), "the membership stays")
	})

	It("answers 400 on a subgroup and removes nothing", Label("rule:members.billable-delete.4"), func(ctx SpecContext) {
		t := newMembersTree(ctx, "private")
		m := NewUser(ctx)
		AddGroupMember(ctx, t.Sub, m, DeveloperLevel)
		Expect(t.Owner.Delete(ctx, billablePath(t.Sub, fmt.Sprintf("/%d", m.ID)))).To(HaveStatus(http.StatusBadRequest))
		Expect(api.Get(ctx, groupMembersPath(t.Sub, fmt.Sprintf("/%d", m.ID)))).To(HaveStatus(http.StatusOK))
	})
})
