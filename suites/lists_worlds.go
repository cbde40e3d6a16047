package suites

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// listFixtures is the registry the table rows read (lists.go), keyed by
// endpoint ID. Each entry names the world that makes the endpoint's rows
// bite, the endpoint's own pagination rule, a row per parameter with a
// default and per filter, and, for every other parameter, why no row here
// checks it (another spec does, or nothing the platform's provisioning can
// build tells it apart).
var listFixtures = map[string]*listFixture{}

// register adds entries to listFixtures at init.
func register(entries map[string]*listFixture) bool {
	for id, fx := range entries {
		if _, dup := listFixtures[id]; dup {
			panic("listFixtures: " + id + " registered twice")
		}
		listFixtures[id] = fx
	}
	return true
}

func itoa(n int) string { return strconv.Itoa(n) }

// idsOf renders ids as item keys.
func idsOf(ids ...int) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = itoa(id)
	}
	return out
}

// nameOf is a fixture name that sorts at position i of n in reverse, so that
// name order and creation order disagree and an order_by row can bite.
func nameOf(prefix string, i, n int) string {
	return fmt.Sprintf("%s %c%02d", prefix, 'a'+rune((n-1-i)%26), i)
}

// Members: a group with twenty members besides its owner, and a project in
// it with twenty-one direct members and a group invited into it; one user
// named for query belongs to both.
var membersWorld = &worldBuilder{Name: "members", Build: func(ctx SpecContext) map[string]*listWorld {
	owner := NewUser(ctx)
	g := NewGroup(ctx, owner.Client)
	p := NewProject(ctx, owner.Client, ProjectOpts{"namespace_id": g.ID})
	prefix := Unique("mbr")
	groupUsers := newBareUsers(ctx, prefix+"-g", listItems-1)
	projectUsers := newBareUsers(ctx, prefix+"-p", listItems)
	for i, id := range groupUsers {
		Expect(api.Post(ctx, fmt.Sprintf("/groups/%d/members", g.ID),
			Body(map[string]any{"user_id": id, "access_level": []int{GuestLevel, ReporterLevel, DeveloperLevel}[i%3]}))).To(HaveStatus(http.StatusCreated))
	}
	for _, id := range projectUsers {
		Expect(api.Post(ctx, fmt.Sprintf("/projects/%d/members", p.ID),
			Body(map[string]any{"user_id": id, "access_level": ReporterLevel}))).To(HaveStatus(http.StatusCreated))
	}
	named := NewUser(ctx, UserOpts{"name": "Quillon " + prefix})
	AddGroupMember(ctx, g, named, GuestLevel)
	AddProjectMember(ctx, p, named, DeveloperLevel)
	invOwner, invMember := NewUser(ctx), NewUser(ctx)
	inv := NewGroup(ctx, invOwner.Client)
	AddGroupMember(ctx, inv, invMember, DeveloperLevel)
	ShareProject(ctx, p, inv, ReporterLevel)

	a, b := groupUsers[0], projectUsers[1]
	world := func(path string, members []int) *listWorld {
		var ab []int
		for _, id := range []int{a, b} {
			if slices.Contains(members, id) {
				ab = append(ab, id)
			}
		}
		return &listWorld{By: owner.Client, Path: path, Items: len(members),
			Vals: map[string]string{"query": "quillon", "a": itoa(a), "b": itoa(b)},
			Sets: map[string][]string{"named": idsOf(named.ID), "ab": idsOf(ab...)}}
	}
	groupMembers := append(append([]int{owner.ID}, groupUsers...), named.ID)
	direct := append(slices.Clone(projectUsers), named.ID)
	all := distinctInts(append(append(slices.Clone(groupMembers), direct...), invOwner.ID, invMember.ID))
	return map[string]*listWorld{
		"members.group.list":       world(groupMembersPath(g, ""), groupMembers),
		"members.group.list-all":   world(groupMembersPath(g, "/all"), groupMembers),
		"members.project.list":     world(projectMembersPath(p, ""), direct),
		"members.project.list-all": world(projectMembersPath(p, "/all"), all),
	}
}}

func membersFixture(filtersRule string, direct bool) *listFixture {
	fx := &listFixture{World: membersWorld, Pagination: "members.list.8",
		Filters: map[string]filterRow{
			"query":    {Rule: filtersRule, Query: "query={query}", Want: "named"},
			"user_ids": {Rule: filtersRule, Query: "user_ids[]={a}&user_ids[]={b}", Want: "ab"},
		},
		Others: map[string]string{"show_seat_info": "adds is_using_seat rather than filtering (members.list.6)"},
	}
	if direct {
		fx.Filters["skip_users"] = filterRow{Rule: "members.list.5", Query: "skip_users[]={a}&skip_users[]={b}", Except: "ab"}
	} else {
		fx.Filters["state"] = filterRow{Rule: "members.list-all.6", Query: "state=awaiting",
			Empty: "no member awaits a seat: seats are a paid-tier limit no provisioning call sets"}
	}
	return fx
}

var _ = register(map[string]*listFixture{
	"members.group.list":       membersFixture("members.list.3", true),
	"members.project.list":     membersFixture("members.list.3", true),
	"members.group.list-all":   membersFixture("members.list-all.5", false),
	"members.project.list-all": membersFixture("members.list-all.5", false),
})

// tokensFor gives each of ids a personal access token and answers their clients.
func tokensFor(ctx SpecContext, ids []int) []*Client {
	GinkgoHelper()
	out := make([]*Client, len(ids))
	for i, id := range ids {
		out[i] = api.As(NewToken(ctx, id, "api"))
	}
	return out
}

// Access requests: a public group and a public project outside it (a
// pending request to a group stands in for requests to its projects), each
// asked to join by the same twenty-one users.
var accessRequestsWorld = &worldBuilder{Name: "access requests", Build: func(ctx SpecContext) map[string]*listWorld {
	owner := NewUser(ctx)
	g := NewGroup(ctx, owner.Client, GroupOpts{"visibility": "public"})
	p := NewProject(ctx, owner.Client, ProjectOpts{"visibility": "public"})
	for _, c := range tokensFor(ctx, newBareUsers(ctx, Unique("req"), listItems)) {
		Expect(c.Post(ctx, requestsPath("groups", g.ID))).To(HaveStatus(http.StatusCreated))
		Expect(c.Post(ctx, requestsPath("projects", p.ID))).To(HaveStatus(http.StatusCreated))
	}
	return map[string]*listWorld{
		"access_requests.group.list":   {By: owner.Client, Path: requestsPath("groups", g.ID), Items: listItems},
		"access_requests.project.list": {By: owner.Client, Path: requestsPath("projects", p.ID), Items: listItems},
	}
}}

// Emoji reactions: an issue, a snippet, a merge request and a note on each
// in a public project (with a repository, for the merge request), each with
// twenty-one reactions of different names.
var awardNames = []string{"thumbsup", "thumbsdown", "smile", "heart", "tada", "rocket", "eyes", "laughing", "confused", "fire",
	"star", "clap", "coffee", "ok_hand", "wave", "100", "sparkles", "bulb", "bug", "zap", "hourglass"}

var reactionsWorld = &worldBuilder{Name: "emoji reactions", Build: func(ctx SpecContext) map[string]*listWorld {
	p := NewProject(ctx, api, ProjectOpts{"visibility": "public", "initialize_with_readme": true})
	out := map[string]*listWorld{}
	for _, f := range awardForms {
		a := newAwardable(ctx, f, p, "public")
		for _, name := range awardNames[:listItems] {
			react(ctx, api, a, name)
		}
		out["award_emoji."+f.stem+"_list"] = &listWorld{By: api.Anonymous(), Path: a.reactions(), Items: listItems}
	}
	return out
}}

// Topics: twenty-one topics named alike, five of them assigned to a project
// and three in another organization (the list shows one organization).
var topicsWorld = &worldBuilder{Name: "topics", Build: func(ctx SpecContext) map[string]*listWorld {
	prefix := Unique("tpc")
	var names, assigned, unassigned, elsewhere []string
	for i := range listItems + 3 {
		fields := map[string]any{"name": fmt.Sprintf("%s-%02d", prefix, i)}
		if i >= listItems {
			fields["organization_id"] = 2
		}
		t := newTopic(ctx, fields)
		switch {
		case i >= listItems:
			elsewhere = append(elsewhere, itoa(t.ID))
		case i < 5:
			names = append(names, t.Name)
			assigned = append(assigned, itoa(t.ID))
		default:
			unassigned = append(unassigned, itoa(t.ID))
		}
	}
	NewProject(ctx, api, ProjectOpts{"topics": names})
	return map[string]*listWorld{"topics.list": {By: api, Path: "/topics", Query: values("search", prefix), Items: listItems,
		Vals: map[string]string{"search": prefix + "-1", "org": "2"},
		Sets: map[string][]string{"unassigned": unassigned, "elsewhere": elsewhere,
			"tens": func() []string {
				var out []string
				for i, id := range append(slices.Clone(assigned), unassigned...) {
					if i >= 10 && i < 20 {
						out = append(out, id)
					}
				}
				return out
			}()}}}
}}

// Package protection rules and push mirrors: twenty-one of each in a project.
var projectSettingsWorld = &worldBuilder{Name: "package protection rules and push mirrors", Build: func(ctx SpecContext) map[string]*listWorld {
	p := NewProject(ctx, api)
	prefix := Unique("pkg")
	for i := range listItems {
		newPackageRule(ctx, api, p, packageRule{Pattern: fmt.Sprintf("%s-%02d-*", prefix, i), Type: "npm", Push: "maintainer"})
		newMirror(ctx, api, p, map[string]any{"url": fmt.Sprintf("https://mirror-%02d.example.com/%s.git", i, prefix)})
	}
	fresh := NewProject(ctx, api)
	mirrors := 0
	return map[string]*listWorld{
		"package_protection_rules.list": {By: api, Path: packageRulesOf(p), Items: listItems},
		"remote_mirrors.list":           {By: api, Path: mirrorsPath(p), Items: listItems},
		"remote_mirrors.create": {By: api, Act: func(ctx SpecContext, params map[string]any) *Response {
			mirrors++
			body := map[string]any{"url": fmt.Sprintf("https://create-%02d.example.com/%s.git", mirrors, prefix)}
			for k, v := range params {
				body[k] = v
			}
			return api.Post(ctx, mirrorsPath(fresh), Body(body))
		}},
	}
}}

// Billable members: a top-level group with twenty billable members besides
// its owner; one of them, M, is also a direct member of twenty projects of
// the group and the owner of twenty-one groups invited into it.
var billableMembersWorld = &worldBuilder{Name: "billable members", Build: func(ctx SpecContext) map[string]*listWorld {
	owner := NewUser(ctx)
	g := NewGroup(ctx, owner.Client)
	prefix := Unique("bil")
	users := newBareUsers(ctx, prefix, listItems-2)
	for i, id := range users {
		Expect(api.Post(ctx, fmt.Sprintf("/groups/%d/members", g.ID),
			Body(map[string]any{"user_id": id, "access_level": []int{GuestLevel, ReporterLevel, DeveloperLevel, MaintainerLevel}[i%4]}))).To(HaveStatus(http.StatusCreated))
	}
	m := NewUser(ctx, UserOpts{"name": "Quillon " + prefix})
	AddGroupMember(ctx, g, m, DeveloperLevel)
	for range listItems - 1 {
		AddProjectMember(ctx, NewProject(ctx, owner.Client, ProjectOpts{"namespace_id": g.ID}), m, ReporterLevel)
	}
	for range listItems {
		ShareGroup(ctx, g, NewGroup(ctx, m.Client), ReporterLevel)
	}
	return map[string]*listWorld{
		"members.billable.list": {By: owner.Client, Path: billablePath(g, ""), Items: listItems,
			Vals: map[string]string{"search": "quillon"}, Sets: map[string][]string{"m": idsOf(m.ID)}},
		"members.billable.memberships": {By: owner.Client, Path: billablePath(g, fmt.Sprintf("/%d/memberships", m.ID)), Items: listItems},
		"members.billable.indirect":    {By: owner.Client, Path: billablePath(g, fmt.Sprintf("/%d/indirect", m.ID)), Items: listItems},
	}
}}

var _ = register(map[string]*listFixture{
	"access_requests.group.list":    {World: accessRequestsWorld, Pagination: "access_requests.list.5"},
	"access_requests.project.list":  {World: accessRequestsWorld, Pagination: "access_requests.list.5"},
	"award_emoji.issue_list":        {World: reactionsWorld, Pagination: "award_emoji.list.2"},
	"award_emoji.snippet_list":      {World: reactionsWorld, Pagination: "award_emoji.list.2"},
	"award_emoji.issue_note_list":   {World: reactionsWorld, Pagination: "award_emoji.list.2"},
	"award_emoji.snippet_note_list": {World: reactionsWorld, Pagination: "award_emoji.list.2"},
	"topics.list": {World: topicsWorld, Pagination: "topics.list.5", Filters: map[string]filterRow{
		"search":           {Rule: "topics.list.3", Query: "search={search}", Want: "tens"},
		"without_projects": {Rule: "topics.list.4", Query: "without_projects=true", Want: "unassigned"},
		"organization_id":  {Rule: "topics.list.7", Query: "organization_id={org}", Want: "elsewhere", Selects: true},
	}},
	"package_protection_rules.list": {World: projectSettingsWorld, Pagination: "package_protection_rules.list.2"},
	"remote_mirrors.list":           {World: projectSettingsWorld, Pagination: "remote_mirrors.list.2"},
	"remote_mirrors.create": {World: projectSettingsWorld, Defaults: map[string]defaultRow{
		"enabled":                 {Rule: "remote_mirrors.create.3", Fields: []string{"enabled"}},
		"only_protected_branches": {Rule: "remote_mirrors.create.3", Fields: []string{"only_protected_branches"}},
		"auth_method":             {Rule: "remote_mirrors.create.4", Other: "ssh_public_key", Fields: []string{"auth_method"}},
	}},
	"members.billable.list": {World: billableMembersWorld, Pagination: "members.billable.15",
		Filters: map[string]filterRow{"search": {Rule: "members.billable.4", Query: "search={search}", Want: "m"}},
		Others:  map[string]string{"sort": "orders rather than filters and has no default (members.billable.5 to 9)"}},
	"members.billable.memberships": {World: billableMembersWorld, Pagination: "members.billable-memberships.6"},
	"members.billable.indirect":    {World: billableMembersWorld, Pagination: "members.billable-indirect.2"},
})

// newNamedUser creates a user without a token, named as given, with extra
// POST /users attributes, and deletes it when the spec (or the Ordered
// container) ends.
func newNamedUser(ctx SpecContext, username, name string, extra map[string]any) int {
	GinkgoHelper()
	body := map[string]any{"username": username, "name": name, "email": username + "@example.com",
		"password": "Secret-" + username, "skip_confirmation": true}
	for k, v := range extra {
		body[k] = v
	}
	r := api.Post(ctx, "/users", Body(body))
	Expect(r).To(HaveStatus(http.StatusCreated), "creating a fixture user")
	id := int(r.Get("id").Int())
	DeferCleanup(func(ctx SpecContext) { api.Delete(ctx, fmt.Sprintf("/users/%d", id), Unchecked()) })
	return id
}

// newProjectBot creates a project access token of p named name, and answers
// its bot user's id; the bot goes when the spec ends.
func newProjectBot(ctx SpecContext, p *Project, name string) int {
	GinkgoHelper()
	r := api.Post(ctx, fmt.Sprintf("/projects/%d/access_tokens", p.ID),
		Body(map[string]any{"name": name, "scopes": []string{"read_api"}, "access_level": DeveloperLevel, "expires_at": futureDate()}))
	Expect(r).To(HaveStatus(http.StatusCreated), "creating a fixture project access token")
	id := int(r.Get("user_id").Int())
	DeferCleanup(func(ctx SpecContext) { api.Delete(ctx, fmt.Sprintf("/users/%d", id), Unchecked()) })
	return id
}

// ghostUser answers the internal user a deleted user's contributions go to,
// deleting a user first so that the platform has made it.
func ghostUser(ctx SpecContext) (id int, username string) {
	GinkgoHelper()
	gone := newNamedUser(ctx, Unique("gone"), "Gone", nil)
	Expect(api.Delete(ctx, fmt.Sprintf("/users/%d", gone))).To(HaveStatus(http.StatusNoContent, http.StatusAccepted))
	r := api.Get(ctx, "/users", Q("search", "ghost"), Q("per_page", 100))
	Expect(r).To(HaveStatus(http.StatusOK))
	for _, e := range r.JSON().Array() {
		if e.Get("name").String() == "Ghost User" {
			return int(e.Get("id").Int()), e.Get("username").String()
		}
	}
	Fail("deleting a user left no Ghost User to hold their contributions:\n" + r.String())
	return 0, ""
}

// Users: twenty-one users whose usernames share a prefix, each made to stand
// out for one filter (blocked, external, auditor, administrator, LDAP and
// SAML identities, two users linked to one extern_uid by different
// providers and a third to another, a custom attribute, a project
// membership), names out of creation order, plus a project bot named with
// the prefix; the ghost user for exclude_internal.
var usersWorld = &worldBuilder{Name: "users", Build: func(ctx SpecContext) map[string]*listWorld {
	prefix := Unique("usr")
	saml := NewGroup(ctx, api)
	uid := prefix + "-uid"
	roles := []struct {
		set   string
		extra map[string]any
	}{
		{"blocked", nil}, {"external", map[string]any{"external": true}}, {"auditor", map[string]any{"auditor": true}},
		{"admin", map[string]any{"admin": true}}, {"ldap", map[string]any{"provider": "ldapmain", "extern_uid": "cn=" + prefix + ",dc=example"}},
		{"linked", map[string]any{"provider": "github", "extern_uid": uid}},
		{"otherProvider", map[string]any{"provider": "bitbucket", "extern_uid": uid}},
		{"otherUID", map[string]any{"provider": "github", "extern_uid": uid + "-2"}},
		{"saml", map[string]any{"provider": "group_saml", "extern_uid": prefix + "-saml", "group_id_for_saml": saml.ID}},
		{"custom", nil}, {"member", nil},
	}
	sets := map[string][]string{}
	var ids []int
	for i := range listItems {
		var extra map[string]any
		set := ""
		if i < len(roles) {
			set, extra = roles[i].set, roles[i].extra
		}
		id := newNamedUser(ctx, fmt.Sprintf("%s-%02d", prefix, i), nameOf(prefix, i, listItems), extra)
		ids = append(ids, id)
		if set != "" {
			sets[set] = idsOf(id)
		}
		if i >= 10 && i < 20 {
			sets["searched"] = append(sets["searched"], itoa(id)) // usernames <prefix>-1N
		}
		if i == 15 {
			sets["byUsername"] = idsOf(id)
		}
	}
	one := func(set string) int { n, _ := strconv.Atoi(sets[set][0]); return n }
	Expect(api.Post(ctx, fmt.Sprintf("/users/%d/block", one("blocked")))).To(HaveStatus(http.StatusCreated))
	Expect(api.Put(ctx, fmt.Sprintf("/users/%d/custom_attributes/team", one("custom")), Body(map[string]any{"value": prefix}))).To(HaveStatus(http.StatusOK))
	p := NewProject(ctx, api)
	Expect(api.Post(ctx, fmt.Sprintf("/projects/%d/members", p.ID), Body(map[string]any{"user_id": one("member"), "access_level": DeveloperLevel}))).
		To(HaveStatus(http.StatusCreated))
	bot := newProjectBot(ctx, p, prefix+" bot")
	ids = append(ids, bot)
	sets["bot"] = idsOf(bot)
	sets["inProjects"] = idsOf(one("member"), bot)
	created := api.Get(ctx, fmt.Sprintf("/users/%d", one("saml")))
	Expect(created).To(HaveStatus(http.StatusOK))
	samlProvider := created.Get(`identities.#(provider=="group_saml").saml_provider_id`)
	Expect(samlProvider.Exists()).To(BeTrue(), "the SAML identity names its provider:\n%s", created)
	ghost, ghostName := ghostUser(ctx)
	sets["internal"] = idsOf(ghost)
	return map[string]*listWorld{"users.list": {By: api, Path: "/users", Query: values("search", prefix), Items: len(ids), Sets: sets,
		Vals: map[string]string{"username": fmt.Sprintf("%s-%02d", prefix, 15), "search": prefix + "-1", "uid": uid,
			"saml": samlProvider.String(), "team": prefix, "ghost": ghostName}}}
}}

var _ = register(map[string]*listFixture{
	"users.list": {World: usersWorld, Pagination: "limits.pagination.1",
		Keyset: keysetRow{Rule: "users.list.14", Query: "pagination=keyset&order_by=username&sort=asc"},
		Defaults: map[string]defaultRow{
			"active":               {Rule: "users.list.4"},
			"blocked":              {Rule: "users.list.4"},
			"external":             {Rule: "users.list.5"},
			"exclude_external":     {Rule: "users.list.5"},
			"humans":               {Rule: "users.list.6"},
			"exclude_humans":       {Rule: "users.list.6"},
			"without_project_bots": {Rule: "users.list.6"},
			"exclude_internal":     {Rule: "users.list.6", Base: "username={ghost}"},
			"exclude_active":       {Rule: "users.list.7"},
			"order_by":             {Rule: "users.list.10", Other: "name"},
			"sort":                 {Rule: "users.list.10", Other: "asc"},
		},
		Filters: map[string]filterRow{
			"username":             {Rule: "users.list.2", Query: "username={username}", Want: "byUsername"},
			"search":               {Rule: "users.list.3", Query: "search={search}", Want: "searched"},
			"active":               {Rule: "users.list.4", Query: "active=true", Except: "blocked"},
			"blocked":              {Rule: "users.list.4", Query: "blocked=true", Want: "blocked"},
			"external":             {Rule: "users.list.5", Query: "external=true", Want: "external"},
			"exclude_external":     {Rule: "users.list.5", Query: "exclude_external=true", Except: "external"},
			"humans":               {Rule: "users.list.6", Query: "humans=true", Except: "bot"},
			"exclude_humans":       {Rule: "users.list.6", Query: "exclude_humans=true", Want: "bot"},
			"without_project_bots": {Rule: "users.list.6", Query: "without_project_bots=true", Except: "bot"},
			"exclude_internal":     {Rule: "users.list.6", Query: "exclude_internal=true", Except: "internal", Base: "username={ghost}"},
			"exclude_active":       {Rule: "users.list.7", Query: "exclude_active=true", Want: "blocked"},
			"extern_uid":           {Rule: "users.list.12", Query: "extern_uid={uid}&provider=github", Want: "linked", Also: []string{"provider"}},
			"without_projects":     {Rule: "users.list.12", Query: "without_projects=true", Except: "inProjects"},
			"admins":               {Rule: "users.list.12", Query: "admins=true", Want: "admin"},
			"custom_attributes":    {Rule: "users.list.12", Query: "custom_attributes[team]={team}", Want: "custom"},
			"auditors":             {Rule: "users.list.17", Query: "auditors=true", Want: "auditor"},
			"saml_provider_id":     {Rule: "users.list.18", Query: "saml_provider_id={saml}", Want: "saml"},
			"skip_ldap":            {Rule: "users.list.19", Query: "skip_ldap=true", Except: "ldap"},
		},
		Others: map[string]string{
			"created_after":          "one run's users cannot be told apart by creation time (a fixed clock stands still); users.list.8 bounds them around a user's own created_at",
			"created_before":         "as created_after",
			"two_factor":             "no provisioning call enables two-factor authentication; users.list.12 checks that enabled lists none of the fixtures",
			"with_custom_attributes": "adds custom_attributes rather than filtering (users.list.15)",
			"pagination":             "selects keyset pagination, which the Keyset row walks (users.list.14, limits.pagination.4)",
			"cursor":                 "the position a keyset link names (users.list.14, limits.pagination.4)",
		}},
})

// Groups: twenty-one groups whose paths share a prefix: fourteen top-level
// ones and a subgroup of the first made by the administrator, five owned by
// a user U who is also a Developer of two of the others and a Maintainer of a
// third; visibilities in turn, one with a custom attribute, names out of path
// order.
var groupsWorld = &worldBuilder{Name: "groups", Build: func(ctx SpecContext) map[string]*listWorld {
	prefix := Unique("grp")
	u := NewUser(ctx)
	visibility := []string{"public", "internal", "private"}
	sets := map[string][]string{}
	add := func(set string, id int) { sets[set] = append(sets[set], itoa(id)) }
	var groups []*Group
	for i := range listItems {
		by, opts := api, GroupOpts{"name": nameOf(prefix, i, listItems), "path": fmt.Sprintf("%s-%02d", prefix, i), "visibility": visibility[i%3]}
		switch {
		case i >= 14 && i < 19:
			by = u.Client
		case i == 19:
			opts["parent_id"] = groups[0].ID
		}
		g := NewGroup(ctx, by, opts)
		groups = append(groups, g)
		switch {
		case i >= 14 && i < 19:
			add("ownedByU", g.ID)
			add("uMaintains", g.ID)
		default:
			add("administrators", g.ID)
		}
		if i%3 == 0 {
			add("public", g.ID)
		}
		if i >= 10 && i < 20 {
			add("searched", g.ID)
		}
	}
	sets["subgroups"] = idsOf(groups[19].ID)
	sets["skipped"] = idsOf(groups[5].ID, groups[6].ID)
	sets["custom"] = idsOf(groups[1].ID)
	AddGroupMember(ctx, groups[2], u, DeveloperLevel)
	AddGroupMember(ctx, groups[3], u, DeveloperLevel)
	AddGroupMember(ctx, groups[4], u, MaintainerLevel)
	add("uMaintains", groups[4].ID)
	Expect(api.Put(ctx, fmt.Sprintf("/groups/%d/custom_attributes/team", groups[1].ID), Body(map[string]any{"value": prefix}))).To(HaveStatus(http.StatusOK))
	withProject := NewGroup(ctx, api)
	NewProject(ctx, api, ProjectOpts{"namespace_id": withProject.ID})
	return map[string]*listWorld{
		"groups.list": {By: api, As: map[string]*Client{"u": u.Client, "anonymous": api.Anonymous()}, Path: "/groups", Query: values("search", prefix), Items: listItems, Sets: sets,
			Vals: map[string]string{"search": prefix + "-1", "a": itoa(groups[5].ID), "b": itoa(groups[6].ID), "team": prefix}},
		"groups.get": {By: api, Path: groupURL(withProject.ID)},
	}
}}

// Group projects: a public group G whose Owner is O, with twenty-one
// projects made by O to stand out for one filter each (visibilities in turn,
// archived, a topic, issues or merge requests off, starred by U, U a
// Maintainer or Owner), names out of creation order; two projects in a
// subgroup and one shared into G. U is a Developer of G.
var groupProjectsWorld = &worldBuilder{Name: "group projects", Build: func(ctx SpecContext) map[string]*listWorld {
	prefix := Unique("gpj")
	owner, u := NewUser(ctx), NewUser(ctx)
	g := NewGroup(ctx, owner.Client, GroupOpts{"visibility": "public"})
	AddGroupMember(ctx, g, u, DeveloperLevel)
	topic := prefix + "-topic"
	visibility := []string{"public", "internal", "private"}
	sets := map[string][]string{}
	add := func(set string, id int) { sets[set] = append(sets[set], itoa(id)) }
	for i := range listItems {
		opts := ProjectOpts{"namespace_id": g.ID, "name": nameOf(prefix, i, listItems), "path": fmt.Sprintf("%s-%02d", prefix, i),
			"visibility": visibility[i%3]}
		switch i {
		case 5, 6:
			opts["issues_enabled"] = false
		case 8:
			opts["merge_requests_enabled"] = false
		}
		if i%4 == 0 {
			opts["topics"] = []string{topic}
		}
		p := NewProject(ctx, owner.Client, opts)
		if i == 0 {
			cleanupTopicNamed(ctx, topic)
		}
		id := p.ID
		switch i {
		case 3, 7:
			Expect(owner.Post(ctx, fmt.Sprintf("/projects/%d/archive", id))).To(HaveStatus(http.StatusCreated))
			add("archived", id)
		case 1, 2:
			starAs(ctx, u, p)
			add("starred", id)
		case 9, 10:
			AddProjectMember(ctx, p, u, MaintainerLevel)
			add("uMaintains", id)
		case 11, 12:
			AddProjectMember(ctx, p, u, OwnerLevel)
			add("uMaintains", id)
			add("ownedByU", id)
		}
		switch i {
		case 5, 6:
			add("issuesOff", id)
		case 8:
			add("mrsOff", id)
		}
		if i%3 == 1 {
			add("internal", id)
		}
		if i%4 == 0 {
			add("topic", id)
		}
		if i >= 10 && i < 20 {
			add("searched", id)
		}
	}
	sub := NewGroup(ctx, owner.Client, GroupOpts{"parent_id": g.ID, "visibility": "public"})
	NewProject(ctx, owner.Client, ProjectOpts{"namespace_id": sub.ID, "path": prefix + "-sub-a"})
	NewProject(ctx, owner.Client, ProjectOpts{"namespace_id": sub.ID, "path": prefix + "-sub-b"})
	elsewhere := NewGroup(ctx, owner.Client)
	shared := NewProject(ctx, owner.Client, ProjectOpts{"namespace_id": elsewhere.ID, "path": prefix + "-shared"})
	ShareProject(ctx, shared, g, DeveloperLevel)
	sets["shared"] = idsOf(shared.ID)
	return map[string]*listWorld{"groups.projects": {By: u.Client, Path: groupProjectsURL(g.ID), Items: listItems + 1, Sets: sets,
		Vals: map[string]string{"search": prefix + "-1", "topic": topic}}}
}}

// Projects: twenty-one projects whose paths share a prefix, seen by a user
// U: six U owns, ten public ones of the administrator, five the
// administrator made U a member of; visibilities in turn, a topic on some.
var projectsWorld = &worldBuilder{Name: "projects", Build: func(ctx SpecContext) map[string]*listWorld {
	prefix := Unique("prj")
	u := NewUser(ctx)
	topic := prefix + "-topic"
	sets := map[string][]string{}
	add := func(set string, id int) { sets[set] = append(sets[set], itoa(id)) }
	for i := range listItems {
		by, vis := api, "public"
		switch {
		case i < 6:
			by, vis = u.Client, []string{"public", "private"}[i%2]
		case i >= 16:
			vis = []string{"private", "internal"}[i%2]
		}
		opts := ProjectOpts{"name": nameOf(prefix, i, listItems), "path": fmt.Sprintf("%s-%02d", prefix, i), "visibility": vis}
		if i%5 == 0 {
			opts["topics"] = []string{topic}
		}
		p := NewProject(ctx, by, opts)
		if i == 0 {
			cleanupTopicNamed(ctx, topic)
		}
		switch {
		case i < 6:
			add("owned", p.ID)
			add("membership", p.ID)
		case i >= 16:
			AddProjectMember(ctx, p, u, ReporterLevel)
			add("membership", p.ID)
		}
		if vis == "public" {
			add("public", p.ID)
		}
		if i%5 == 0 {
			add("topic", p.ID)
		}
		if i >= 10 && i < 20 {
			add("searched", p.ID)
		}
	}
	return map[string]*listWorld{"projects.list": {By: u.Client, Path: "/projects", Query: values("search", prefix), Items: listItems, Sets: sets,
		Vals: map[string]string{"search": prefix + "-1", "topic": topic}}}
}}

var _ = register(map[string]*listFixture{
	"groups.list": {World: groupsWorld, Pagination: "groups.list.22",
		Keyset: keysetRow{Rule: "groups.list.21", Query: "pagination=keyset&order_by=name&sort=asc", As: "anonymous"},
		Defaults: map[string]defaultRow{
			"order_by":   {Rule: "groups.list.10", Other: "path"},
			"sort":       {Rule: "groups.list.10", Other: "desc"},
			"statistics": {Rule: "groups.list.13"},
			"owned":      {Rule: "groups.list.6", As: "u"},
		},
		Filters: map[string]filterRow{
			"skip_groups":       {Rule: "groups.list.8", Query: "skip_groups[]={a}&skip_groups[]={b}", Except: "skipped"},
			"all_available":     {Rule: "groups.list.5", Query: "all_available=false", Want: "administrators"},
			"search":            {Rule: "groups.list.9", Query: "search={search}", Want: "searched"},
			"visibility":        {Rule: "groups.list.15", Query: "visibility=public", Want: "public"},
			"owned":             {Rule: "groups.list.6", Query: "owned=true", As: "u", Want: "ownedByU"},
			"min_access_level":  {Rule: "groups.list.7", Query: "min_access_level=40", As: "u", Want: "uMaintains"},
			"top_level_only":    {Rule: "groups.list.17", Query: "top_level_only=true", Except: "subgroups"},
			"custom_attributes": {Rule: "groups.list.20", Query: "custom_attributes[team]={team}", Want: "custom"},
		},
		Others: map[string]string{
			"with_custom_attributes": "adds custom_attributes rather than filtering (groups.list.16)",
			"repository_storage":     "paid tier: no provisioning call puts a group on another storage, so every group shares one",
			"marked_for_deletion_on": "paid tier: no provisioning call marks a group for deletion without deleting it",
			"pagination":             "selects keyset pagination, which the Keyset row walks (groups.list.21)",
			"cursor":                 "the position a keyset link names (groups.list.21)",
		}},
	"groups.get": {World: groupsWorld, Defaults: map[string]defaultRow{"with_projects": {Rule: "groups.get.7"}}},
	"groups.projects": {World: groupProjectsWorld, Pagination: "groups.projects.20",
		Defaults: map[string]defaultRow{
			"order_by":                    {Rule: "groups.projects.5", Other: "name"},
			"sort":                        {Rule: "groups.projects.5", Other: "asc"},
			"simple":                      {Rule: "groups.projects.9"},
			"owned":                       {Rule: "groups.projects.10"},
			"starred":                     {Rule: "groups.projects.11"},
			"with_issues_enabled":         {Rule: "groups.projects.13"},
			"with_merge_requests_enabled": {Rule: "groups.projects.13"},
			"with_shared":                 {Rule: "groups.projects.14"},
			"include_subgroups":           {Rule: "groups.projects.15"},
			"with_security_reports":       {Rule: "groups.projects.18"},
		},
		Filters: map[string]filterRow{
			"archived":                    {Rule: "groups.projects.3", Query: "archived=true", Want: "archived"},
			"visibility":                  {Rule: "groups.projects.4", Query: "visibility=internal", Want: "internal"},
			"search":                      {Rule: "groups.projects.8", Query: "search={search}", Want: "searched"},
			"owned":                       {Rule: "groups.projects.10", Query: "owned=true", Want: "ownedByU"},
			"starred":                     {Rule: "groups.projects.11", Query: "starred=true", Want: "starred"},
			"topic":                       {Rule: "groups.projects.12", Query: "topic={topic}", Want: "topic"},
			"with_issues_enabled":         {Rule: "groups.projects.13", Query: "with_issues_enabled=true", Except: "issuesOff"},
			"with_merge_requests_enabled": {Rule: "groups.projects.13", Query: "with_merge_requests_enabled=true", Except: "mrsOff"},
			"min_access_level":            {Rule: "groups.projects.16", Query: "min_access_level=40", Want: "uMaintains"},
			"with_security_reports": {Rule: "groups.projects.18", Query: "with_security_reports=true",
				Empty: "no project has security reports: they come from CI report artifacts no provisioning call makes"},
		},
		Others: map[string]string{"with_custom_attributes": "adds custom_attributes rather than filtering (groups.projects.17)"}},
	"projects.list": {World: projectsWorld, Pagination: "projects.list.1",
		Keyset: keysetRow{Rule: "projects.keyset.1", Query: "pagination=keyset&order_by=id&sort=asc"},
		Filters: map[string]filterRow{
			"topic":      {Rule: "projects.topic.1", Query: "topic={topic}", Want: "topic"},
			"search":     {Rule: "projects.list.2", Query: "search={search}", Want: "searched"},
			"visibility": {Rule: "projects.list.3", Query: "visibility=public", Want: "public"},
			"owned":      {Rule: "projects.list.4", Query: "owned=true", Want: "owned"},
			"membership": {Rule: "projects.list.5", Query: "membership=true", Want: "membership"},
		},
		Others: map[string]string{
			"order_by":   "orders rather than filters; the spec states no default for GET /projects (order_by=id orders the Keyset row's pages)",
			"sort":       "orders rather than filters; the spec states no default for GET /projects",
			"pagination": "selects keyset pagination, which the Keyset row walks with the world's search kept (projects.keyset.1)",
			"cursor":     "the position a keyset link names (projects.keyset.1)",
		}},
})

// bodyOf sends params as a JSON body, and nothing when there are none.
func bodyOf(params map[string]any) []Opt {
	if len(params) == 0 {
		return nil
	}
	return []Opt{Body(params)}
}

// merged joins params into a request body.
func merged(body map[string]any, params map[string]any) map[string]any {
	for k, v := range params {
		body[k] = v
	}
	return body
}

// Commits: a repository with twenty commits after its README by two
// authors, every fourth touching docs/guide.md; a branch side at the tenth;
// a branch extra from the tenth with two commits of its own made between
// later ones; ten more branches at the head and eight tags at the fifth.
var commitsWorld = &worldBuilder{Name: "commits", Build: func(ctx SpecContext) map[string]*listWorld {
	p := NewRepoProject(ctx, api)
	prefix := Unique("cmt")
	main := p.DefaultBranch
	sets := map[string][]string{}
	add := func(set, sha string) { sets[set] = append(sets[set], sha) }
	readme := p.head(ctx, main)
	add("side", readme)
	add("all", readme)
	var shas []string
	for i := range listItems - 1 {
		author := map[string]any{"author_name": "Ada " + prefix, "author_email": "ada@example.com"}
		if i%2 == 1 {
			author = map[string]any{"author_name": "Bob " + prefix, "author_email": "bob@example.com"}
		}
		actions := []map[string]any{create(fmt.Sprintf("f-%02d.txt", i), fmt.Sprint(i))}
		if i%4 == 0 {
			path := "docs/guide.md"
			action := create(path, fmt.Sprint(i))
			if i > 0 {
				action = update(path, fmt.Sprint(i))
			}
			actions = append(actions, action)
		}
		r := api.Post(ctx, p.Repo("/commits"), Body(merged(map[string]any{"branch": main, "commit_message": fmt.Sprintf("commit %02d", i),
			"actions": actions}, author)))
		Expect(r).To(HaveStatus(http.StatusCreated))
		sha := r.Get("id").String()
		shas = append(shas, sha)
		add("all", sha)
		if i < 10 {
			add("side", sha)
		}
		if i%2 == 0 {
			add("ada", sha)
		}
		if i%4 == 0 {
			add("guide", sha)
		}
		switch i {
		case 9:
			p.Branch(ctx, "side", main)
			p.Branch(ctx, "extra", main)
		case 12, 15:
			e := p.Commit(ctx, api, "extra", fmt.Sprintf("extra %02d", i), create(fmt.Sprintf("x-%02d.txt", i), "x"))
			add("all", e.Get("id").String())
		}
	}
	// Refs containing the fifth commit: main, side, extra, ten branches, eight tags.
	fifth := shas[4]
	for i := range 10 {
		p.Branch(ctx, fmt.Sprintf("rb-%02d", i), main)
	}
	sets["tags"] = nil
	for i := range 8 {
		name := fmt.Sprintf("tg-%02d", i)
		Expect(api.Post(ctx, p.Repo("/tags"), Body(map[string]any{"tag_name": name, "ref": fifth}))).To(HaveStatus(http.StatusCreated))
		sets["tags"] = append(sets["tags"], name)
	}
	// Writes go to a second repository, so that the read rows of the first
	// see the same world whatever order the rows run in: a commit of
	// twenty-one files commented twenty-one times, a commit on a branch to
	// cherry-pick, one on the default branch to revert.
	q := NewRepoProject(ctx, api)
	var many []map[string]any
	for i := range listItems {
		many = append(many, create(fmt.Sprintf("many/m-%02d.txt", i), fmt.Sprintf("line %d\n", i)))
	}
	wide := q.Commit(ctx, api, q.DefaultBranch, "many files", many...).Get("id").String()
	for i := range listItems {
		Expect(api.Post(ctx, q.Repo("/commits/"+wide+"/comments"), Body(map[string]any{"note": fmt.Sprintf("%s note %02d", prefix, i)}))).
			To(HaveStatus(http.StatusCreated))
	}
	q.Branch(ctx, "source", q.DefaultBranch)
	picked := q.Commit(ctx, api, "source", "to pick", create("picked.txt", "picked")).Get("id").String()
	reverted := q.Commit(ctx, api, q.DefaultBranch, "to revert", create("reverted.txt", "reverted")).Get("id").String()
	picks := 0
	act := func(kind, sha string) func(ctx SpecContext, params map[string]any) *Response {
		return func(ctx SpecContext, params map[string]any) *Response {
			picks++
			branch := fmt.Sprintf("%s-%02d", kind, picks)
			q.Branch(ctx, branch, q.DefaultBranch)
			return api.Post(ctx, q.Repo("/commits/"+sha+"/"+kind), Body(merged(map[string]any{"branch": branch}, params)))
		}
	}
	writes := 0
	return map[string]*listWorld{
		"commits.list": {By: api, Path: p.Repo("/commits"), Items: listItems, Sets: sets,
			Vals: map[string]string{"side": "side", "author": "Ada " + prefix}},
		"commits.refs":          {By: api, Path: p.Repo("/commits/" + fifth + "/refs"), Key: "name", Items: listItems, Sets: sets},
		"commits.diff":          {By: api, Path: q.Repo("/commits/" + wide + "/diff"), Key: "new_path", Items: listItems},
		"commits.comments.list": {By: api, Path: q.Repo("/commits/" + wide + "/comments"), Key: "note", Items: listItems},
		"commits.get":           {By: api, Path: p.Repo("/commits/" + shas[3])},
		"commits.sequence":      {By: api, Path: p.Repo("/commits/" + shas[3] + "/sequence")},
		"commits.cherry-pick":   {By: api, Act: act("cherry_pick", picked)},
		"commits.revert":        {By: api, Act: act("revert", reverted)},
		"commits.create": {By: api, Act: func(ctx SpecContext, params map[string]any) *Response {
			writes++
			return api.Post(ctx, q.Repo("/commits"), Body(merged(map[string]any{"branch": q.DefaultBranch, "commit_message": fmt.Sprintf("write %02d", writes),
				"actions": []map[string]any{create(fmt.Sprintf("w-%02d.txt", writes), "w")}}, params)))
		}, Acts: map[string]func(SpecContext, map[string]any) *Response{
			// A commit to a branch that exists, started from another one:
			// only force=true may overwrite it.
			"force": func(ctx SpecContext, params map[string]any) *Response {
				writes++
				branch := fmt.Sprintf("force-%02d", writes)
				q.Branch(ctx, branch, q.DefaultBranch)
				return api.Post(ctx, q.Repo("/commits"), Body(merged(map[string]any{"branch": branch, "start_branch": "source",
					"commit_message": fmt.Sprintf("force %02d", writes), "actions": []map[string]any{create(fmt.Sprintf("w-%02d.txt", writes), "w")}}, params)))
			},
		}},
	}
}}

var _ = register(map[string]*listFixture{
	"commits.list": {World: commitsWorld, Pagination: "commits.list.11",
		Uncounted: "pavankalisetti009/gitlab lib/api/commits.rb @d87a46ff: paginate(paginated_commits, exclude_total_headers: true, without_count: true)",
		Defaults:  map[string]defaultRow{"order": {Rule: "commits.list.10", Other: "topo", Base: "all=true"}},
		Filters: map[string]filterRow{
			"ref_name": {Rule: "commits.list.2", Query: "ref_name={side}", Want: "side"},
			"path":     {Rule: "commits.list.4", Query: "path=docs/guide.md", Want: "guide"},
			"author":   {Rule: "commits.list.5", Query: "author={author}", Want: "ada"},
			"all":      {Rule: "commits.list.6", Query: "all=true", Want: "all", Widens: true},
		},
		Others: map[string]string{
			"since":        "one run's commits cannot be told apart by date (a fixed clock stands still, git dates have whole seconds); commits.list.3 bounds them around a commit's own date",
			"until":        "as since",
			"with_stats":   "adds stats rather than filtering (commits.list.7)",
			"trailers":     "adds trailers rather than filtering (commits.list.9)",
			"first_parent": "no provisioning call makes a merge commit, and without one first_parent changes nothing (commits.list.8 checks the first-parent chain)",
		}},
	"commits.refs": {World: commitsWorld, Pagination: "commits.refs.2",
		Uncounted: "pavankalisetti009/gitlab lib/api/commits.rb @d87a46ff: paginate(refs, without_count: true)",
		Defaults:  map[string]defaultRow{"type": {Rule: "commits.refs.1", Other: "branch"}},
		Filters:   map[string]filterRow{"type": {Rule: "commits.refs.1", Query: "type=tag", Want: "tags"}}},
	"commits.diff": {World: commitsWorld, Pagination: "commits.diff.3",
		Defaults: map[string]defaultRow{"unidiff": {Rule: "commits.diff.2", Fields: []string{"diff"}}}},
	"commits.comments.list": {World: commitsWorld, Pagination: "commits.comments.3"},
	"commits.get":           {World: commitsWorld, Defaults: map[string]defaultRow{"stats": {Rule: "commits.get.4"}}},
	"commits.sequence": {World: commitsWorld, Others: map[string]string{
		"first_parent": "no provisioning call makes a merge commit, and without one the count is the same (commits.sequence.1)"}},
	"commits.cherry-pick": {World: commitsWorld, Defaults: map[string]defaultRow{"dry_run": {Rule: "commits.cherry-pick.4"}}},
	"commits.revert":      {World: commitsWorld, Defaults: map[string]defaultRow{"dry_run": {Rule: "commits.revert.3"}}},
	"commits.create": {World: commitsWorld, Defaults: map[string]defaultRow{
		"stats": {Rule: "commits.create.1"},
		"force": {Rule: "commits.create.6"},
	}},
})

// Files: a large-file pointer whose object the project holds, for lfs; file
// writes to a second project that a read of the raw file observes, for
// encoding.
var filesWorld = &worldBuilder{Name: "repository files", Build: func(ctx SpecContext) map[string]*listWorld {
	p := NewRepoProject(ctx, api)
	out := map[string]*listWorld{}
	obj := api.Post(ctx, p.Repo("/lfs_objects"), Body(map[string]any{"content": "large " + Unique("content")}), Unchecked())
	if obj.Status == http.StatusNotFound {
		skip := "the target has no provisioning route for large-file objects (the reference's POST /projects/:id/repository/lfs_objects)"
		out["files.raw"], out["files.raw.head"], out["repository.lfs.create"] = &listWorld{Skip: skip}, &listWorld{Skip: skip}, &listWorld{Skip: skip}
	} else {
		Expect(obj).To(HaveStatus(http.StatusCreated))
		p.Put(ctx, p.DefaultBranch, map[string]string{"big.bin": obj.Get("pointer").String()})
		out["files.raw"] = &listWorld{By: api, Path: p.File("big.bin", "/raw"), Query: values("ref", p.DefaultBranch)}
		out["files.raw.head"] = &listWorld{By: api, Path: p.File("big.bin", "/raw"), Query: values("ref", p.DefaultBranch)}
		// The Base64 of eight bytes: stored as sent it is twelve bytes long.
		out["repository.lfs.create"] = &listWorld{By: api, Act: func(ctx SpecContext, params map[string]any) *Response {
			return api.Post(ctx, p.Repo("/lfs_objects"), Body(merged(map[string]any{"content": b64("large 01")}, params)))
		}}
	}
	q := NewRepoProject(ctx, api)
	q.Put(ctx, q.DefaultBranch, map[string]string{"updated.txt": "first\n"})
	writes := 0
	write := func(method string) func(ctx SpecContext, params map[string]any) *Response {
		return func(ctx SpecContext, params map[string]any) *Response {
			writes++
			path := fmt.Sprintf("created-%02d.txt", writes)
			if method == http.MethodPut {
				path = "updated.txt"
			}
			// The Base64 of "hello <n>": text stores it as sent, base64 decodes it.
			content := b64(fmt.Sprintf("hello %02d", writes))
			r := api.Do(ctx, method, q.File(path, ""), Body(merged(map[string]any{"branch": q.DefaultBranch,
				"commit_message": fmt.Sprintf("write %02d", writes), "content": content}, params)))
			Expect(r).To(HaveStatus(http.StatusCreated, http.StatusOK))
			raw := api.Get(ctx, q.File(path, "/raw"), Q("ref", q.DefaultBranch))
			Expect(raw).To(HaveStatus(http.StatusOK))
			// What was stored, as its content relates to what was sent.
			switch string(raw.Body) {
			case content:
				raw.Body = []byte("stored as sent")
			case fmt.Sprintf("hello %02d", writes):
				raw.Body = []byte("stored decoded")
			}
			return raw
		}
	}
	out["files.create"] = &listWorld{By: api, Act: write(http.MethodPost)}
	out["files.update"] = &listWorld{By: api, Act: write(http.MethodPut)}
	return out
}}

// Settings written to fresh projects and groups: integrations, the registry's
// access level, access requests approved.
var settingsWorld = &worldBuilder{Name: "settings", Build: func(ctx SpecContext) map[string]*listWorld {
	owner := NewUser(ctx)
	g := NewGroup(ctx, owner.Client, GroupOpts{"visibility": "public"})
	webhook := "https://hooks.example.com/" + Unique("hook")
	integration := func(ctx SpecContext, params map[string]any) *Response {
		p := NewProject(ctx, owner.Client)
		Expect(owner.Put(ctx, integrationPath(p, "slack"), Body(merged(map[string]any{"webhook": webhook}, params)))).To(HaveStatus(http.StatusOK))
		return owner.Get(ctx, integrationPath(p, "slack"))
	}
	approve := func(kind string) func(ctx SpecContext, params map[string]any) *Response {
		return func(ctx SpecContext, params map[string]any) *Response {
			id := g.ID
			if kind == "projects" {
				id = NewProject(ctx, owner.Client, ProjectOpts{"namespace_id": g.ID, "visibility": "public"}).ID
			}
			u := NewUser(ctx)
			Expect(u.Post(ctx, requestsPath(kind, id))).To(HaveStatus(http.StatusCreated))
			return owner.Put(ctx, approvePath(kind, id, u.ID), bodyOf(params)...)
		}
	}
	// Every kind of integration the platform documents here, set up on one
	// project: four, so the list is shorter than a page.
	all := NewProject(ctx, owner.Client)
	kinds := map[string]map[string]any{
		"custom-issue-tracker": {"issues_url": "https://tracker.example.com/issues/:id", "project_url": "https://tracker.example.com"},
		"pipelines-email":      {"recipients": "ci@example.com"},
		"slack":                {"webhook": webhook},
		"drone-ci":             {"token": "drone-token", "drone_url": "https://drone.example.com"},
	}
	for _, slug := range sortedKeys(kinds) { // one order on every run: a recorded run replays
		Expect(owner.Put(ctx, integrationPath(all, slug), Body(kinds[slug]))).To(HaveStatus(http.StatusOK))
	}
	return map[string]*listWorld{
		"integrations.list": {By: owner.Client, Path: integrationsPath(all), Key: "slug", Items: 4,
			Few: "the spec and the reference know four kinds of integration, and a project has one of each at most"},
		"integrations.set": {By: owner.Client, Act: integration},
		// The default is the level of a project no edit has set it on. Each
		// side is read back with GET: the platform's GET /projects/:id answers
		// more than its PUT (permissions, for a signed-in caller:
		// lib/api/projects.rb presents Entities::ProjectWithAccess), so the
		// two answers' keys differ whatever the level.
		"registry.project.edit": {By: owner.Client, Act: func(ctx SpecContext, params map[string]any) *Response {
			p := NewProject(ctx, owner.Client)
			if len(params) != 0 {
				Expect(owner.Put(ctx, fmt.Sprintf("/projects/%d/", p.ID), Body(params))).To(HaveStatus(http.StatusOK))
			}
			return owner.Get(ctx, fmt.Sprintf("/projects/%d", p.ID))
		}},
		"access_requests.group.approve":   {By: owner.Client, Act: approve("groups")},
		"access_requests.project.approve": {By: owner.Client, Act: approve("projects")},
	}
}}

// Registry: a project with twenty-one repositories, the first with
// twenty-one tags, in a group of its own.
var registryListsWorld = &worldBuilder{Name: "container registry", Build: func(ctx SpecContext) map[string]*listWorld {
	owner := NewUser(ctx)
	g := NewGroup(ctx, owner.Client)
	p := NewProject(ctx, owner.Client, ProjectOpts{"namespace_id": g.ID})
	w := &registryWorld{Project: p, Owner: owner}
	image := func(i int) string { return fmt.Sprintf("%s/img-%02d", p.FullPath, i) }
	// The repositories are pushed at once, each by a registry client of
	// its own; the tags of one repository one after the other, so that
	// its requests (alike from tag to tag) come in the same order on every
	// run and a recorded run replays.
	parallelN(listItems, listItems, func(i int) {
		tags := []string{"v1"}
		if i == 0 {
			tags = nil
			for t := range listItems {
				tags = append(tags, fmt.Sprintf("t-%02d", t))
			}
		}
		for _, tag := range tags {
			pushImage(ctx, owner, image(i), tag, registryOld)
		}
	})
	first := w.repoID(ctx, "img-00")
	return map[string]*listWorld{
		"registry.repositories.list":       {By: owner.Client, Path: w.reposPath(), Items: listItems},
		"registry.repositories.group-list": {By: owner.Client, Path: fmt.Sprintf("/groups/%d/registry/repositories", g.ID), Items: listItems},
		"registry.tags.list":               {By: owner.Client, Path: w.tagsPath(first), Key: "name", Items: listItems},
		"registry.repositories.get":        {By: owner.Client, Path: fmt.Sprintf("/registry/repositories/%d", first)},
	}
}}

var _ = register(map[string]*listFixture{
	"files.raw":      {World: filesWorld, Defaults: map[string]defaultRow{"lfs": {Rule: "files.raw.3"}}},
	"files.raw.head": {World: filesWorld, Defaults: map[string]defaultRow{"lfs": {Rule: "files.raw.4", Headers: []string{"Content-Length"}}}},
	"repository.lfs.create": {World: filesWorld, Defaults: map[string]defaultRow{
		"encoding": {Rule: "repository.lfs.1", Other: "base64", Fields: []string{"size", "oid"}}}},
	"files.create": {World: filesWorld, Defaults: map[string]defaultRow{"encoding": {Rule: "files.create.3", Other: "base64"}}},
	"files.update": {World: filesWorld, Defaults: map[string]defaultRow{"encoding": {Rule: "files.update.4", Other: "base64"}}},
	"files.blame": {Others: map[string]string{
		"ref":          "names the revision rather than filtering (files.blame rules)",
		"range":        "bounds the lines blamed; files.blame rules check the ranges",
		"range[start]": "as range",
		"range[end]":   "as range",
	}},
	"integrations.list": {World: settingsWorld, Pagination: "integrations.list.3"},
	"integrations.set": {World: settingsWorld,
		Defaults: map[string]defaultRow{
			"branches_to_be_notified":        {Rule: "integrations.set.7", Other: "all", Fields: []string{"properties.branches_to_be_notified"}},
			"labels_to_be_notified_behavior": {Rule: "integrations.set.8", Other: "match_all", Fields: []string{"properties.labels_to_be_notified_behavior"}},
		},
		Others: map[string]string{"use_inherited_settings": "no provisioning call sets up a group or instance integration to inherit from, so true changes nothing (integrations.set.11)"}},
	"registry.project.edit": {World: settingsWorld, Defaults: map[string]defaultRow{
		"container_registry_access_level": {Rule: "registry.visibility.3", Other: "private", Fields: []string{"container_registry_access_level"}}}},
	"access_requests.group.approve": {World: settingsWorld, Defaults: map[string]defaultRow{
		"access_level": {Rule: "access_requests.approve.1", Other: ReporterLevel, Fields: []string{"access_level"}}}},
	"access_requests.project.approve": {World: settingsWorld, Defaults: map[string]defaultRow{
		"access_level": {Rule: "access_requests.approve.1", Other: ReporterLevel, Fields: []string{"access_level"}}}},
	"registry.repositories.list": {World: registryListsWorld, Pagination: "registry.repositories.list.4", Defaults: map[string]defaultRow{
		"tags":       {Rule: "registry.repositories.list.2"},
		"tags_count": {Rule: "registry.repositories.list.2"},
	}},
	"registry.repositories.group-list": {World: registryListsWorld, Pagination: "registry.repositories.group-list.3"},
	"registry.tags.list": {World: registryListsWorld, Pagination: "registry.tags.list.1",
		Keyset: keysetRow{Rule: "registry.tags.list.2", Query: "pagination=keyset&order_by=name&sort=desc"},
		Others: map[string]string{
			"pagination": "selects keyset pagination, which the Keyset row walks (registry.tags.list.2)",
			"order_by":   "orders the keyset pages (registry.tags.list.2)",
			"sort":       "orders the keyset pages (registry.tags.list.2)",
		}},
	"registry.repositories.get": {World: registryListsWorld, Defaults: map[string]defaultRow{
		"tags":       {Rule: "registry.repositories.get.1"},
		"tags_count": {Rule: "registry.repositories.get.1"},
		"size":       {Rule: "registry.repositories.get.1"},
	}},
})

// ciJobs is a configuration of n jobs in one stage.
func ciJobs(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "job-%02d:\n  stage: test\n  script: echo %d\n", i, i)
	}
	return b.String()
}

// ciBridges is a configuration of n trigger jobs of the first stage, a job
// that holds that stage open, and one trigger job of the next stage, which
// therefore stays created.
func ciBridges(n int) string {
	var b strings.Builder
	b.WriteString("stages: [build, test]\ngate:\n  stage: build\n  script: make\n")
	for i := range n {
		fmt.Fprintf(&b, "trigger-%02d:\n  stage: build\n  trigger:\n    include: child.yml\n", i)
	}
	b.WriteString("late:\n  stage: test\n  trigger:\n    include: child.yml\n")
	return b.String()
}

// Jobs: a pipeline of twenty-one jobs of which a runner finished one with
// success, failed one (then retried) and runs a third; a pipeline of twenty
// trigger jobs that succeed at once and one that stays created.
var jobsWorld = &worldBuilder{Name: "jobs", Build: func(ctx SpecContext) map[string]*listWorld {
	p := NewCIProject(ctx, api, map[string]string{".gitlab-ci.yml": ciJobs(listItems)})
	pl := RunPipeline(ctx, api, p)
	rn := NewProjectRunner(ctx, p.Project)
	sets := map[string][]string{}
	done := rn.Take(ctx, "m1")
	done.Finish(ctx, "success", "")
	failed := rn.Take(ctx, "m1")
	failed.Finish(ctx, "failed", "")
	retry := api.Post(ctx, jobPath(p, failed.ID)+"/retry")
	Expect(retry).To(HaveStatus(http.StatusCreated))
	running := rn.Take(ctx, "m1")
	sets["success"], sets["running"], sets["retried"] = idsOf(done.ID), idsOf(running.ID), idsOf(failed.ID)

	q := NewCIProject(ctx, api, map[string]string{".gitlab-ci.yml": ciBridges(listItems - 1), "child.yml": ciChild})
	bridges := RunPipeline(ctx, api, q)
	all := api.Get(ctx, pipelineJobsPath(q, bridges, "bridges"), Q("per_page", 100))
	Expect(all).To(HaveStatus(http.StatusOK))
	for _, b := range all.JSON().Array() {
		if b.Get("name").String() == "late" {
			sets["created"] = idsOf(int(b.Get("id").Int()))
		}
	}
	return map[string]*listWorld{
		"jobs.list":             {By: api, Path: jobsPath(p), Items: listItems + 1, Sets: sets},
		"jobs.pipeline_jobs":    {By: api, Path: pipelineJobsPath(p, pl, "jobs"), Items: listItems, Sets: sets},
		"jobs.pipeline_bridges": {By: api, Path: pipelineJobsPath(q, bridges, "bridges"), Items: listItems, Sets: sets},
	}
}}

// Runner jobs: a runner that ran twenty-one jobs from two machines, ten
// succeeding, six failing, two canceled while running, three still running;
// another runner that asked for work from twenty-one machines.
var runnerJobsListWorld = &worldBuilder{Name: "runner jobs", Build: func(ctx SpecContext) map[string]*listWorld {
	p := NewCIProject(ctx, api, map[string]string{".gitlab-ci.yml": ciJobs(listItems)})
	RunPipeline(ctx, api, p)
	rn := NewProjectRunner(ctx, p.Project)
	sets := map[string][]string{}
	for i := range listItems {
		machine := "m1"
		if i >= 11 {
			machine = "m2"
		}
		j := rn.Take(ctx, machine)
		if machine == "m2" {
			sets["m2"] = append(sets["m2"], itoa(j.ID))
		}
		switch {
		case i < 10:
			j.Finish(ctx, "success", "")
		case i < 16:
			j.Finish(ctx, "failed", "")
			sets["failed"] = append(sets["failed"], itoa(j.ID))
		case i < 18:
			Expect(api.Post(ctx, jobPath(p, j.ID)+"/cancel")).To(HaveStatus(http.StatusCreated))
		}
	}
	// A runner that has asked for work from twenty-one machines.
	many := NewProjectRunner(ctx, p.Project, map[string]any{"tag_list": []string{Unique("tag")}, "run_untagged": false})
	for i := range listItems {
		many.contactAs(ctx, fmt.Sprintf("machine-%02d", i), "17.5.1")
	}
	return map[string]*listWorld{
		"runners.jobs":     {By: api, Path: runnerPath(rn.ID) + "/jobs", Items: listItems, Sets: sets},
		"runners.managers": {By: api, Path: runnerPath(many.ID) + "/managers", Key: "system_id", Items: listItems},
	}
}}

// runnerRecord is what the runner world knows of one runner.
type runnerRecord struct {
	id             int
	kind           string // group_type, project_type, instance_type
	group          string // for group runners: the top group or its subgroup
	paused, tagged bool   // paused; carries the second tag
	version        string // the manager version it contacted with, or ""
}

// Runners: a user U owns a group G with eleven runners, its subgroup S with
// ten, and a project of S with three; an instance runner. All carry one tag
// (the base of the lists that also show other specs' runners); some are
// paused, some carry a second tag, some have contacted from runner version
// 17 or 16 (online), the rest never.
var runnersWorld = &worldBuilder{Name: "runners", Build: func(ctx SpecContext) map[string]*listWorld {
	u := NewUser(ctx)
	g := NewGroup(ctx, u.Client)
	sub := NewGroup(ctx, u.Client, GroupOpts{"parent_id": g.ID})
	p := NewProject(ctx, u.Client, ProjectOpts{"namespace_id": sub.ID})
	tag, tag2 := Unique("tag"), Unique("tag")
	var runners []runnerRecord
	for i := range 11 + 10 + 3 + 1 {
		rec := runnerRecord{paused: i%7 == 3, tagged: i%5 == 1}
		tags := []string{tag}
		if rec.tagged {
			tags = append(tags, tag2)
		}
		extra := map[string]any{"tag_list": tags, "paused": rec.paused, "run_untagged": false}
		var rn *CIRunner
		switch {
		case i < 11:
			rec.kind, rec.group = "group_type", "top"
			rn = NewGroupRunner(ctx, u.Client, g, extra)
		case i < 21:
			rec.kind, rec.group = "group_type", "sub"
			rn = NewGroupRunner(ctx, u.Client, sub, extra)
		case i < 24:
			rec.kind = "project_type"
			rn = NewProjectRunner(ctx, p, extra)
		default:
			rec.kind = "instance_type"
			rn = NewInstanceRunner(ctx, extra)
		}
		rec.id = rn.ID
		switch i % 6 {
		case 2:
			rec.version = "17.5.1"
		case 4:
			rec.version = "16.11.0"
		}
		if rec.version != "" {
			rn.contactAs(ctx, fmt.Sprintf("m-%02d", i), rec.version)
		}
		runners = append(runners, rec)
	}
	world := func(by *Client, path string, base url.Values, keep func(runnerRecord) bool) *listWorld {
		sets := map[string][]string{}
		n := 0
		for _, rec := range runners {
			if !keep(rec) {
				continue
			}
			n++
			id := itoa(rec.id)
			sets[rec.kind] = append(sets[rec.kind], id)
			if rec.paused {
				sets["paused"] = append(sets["paused"], id)
			}
			if rec.tagged {
				sets["tagged"] = append(sets["tagged"], id)
			}
			if rec.version != "" {
				sets["online"] = append(sets["online"], id)
			}
			if strings.HasPrefix(rec.version, "16") {
				sets["v16"] = append(sets["v16"], id)
			}
		}
		return &listWorld{By: by, Path: path, Query: base, Items: n, Sets: sets,
			Vals: map[string]string{"tag": tag, "tag2": tag2}}
	}
	tagged := values("tag_list[]", tag)
	return map[string]*listWorld{
		"runners.list": world(u.Client, "/runners", nil, func(r runnerRecord) bool { return r.kind != "instance_type" }),
		"runners.all":  world(api, "/runners/all", tagged, func(runnerRecord) bool { return true }),
		"runners.project": world(u.Client, fmt.Sprintf("/projects/%d/runners", p.ID), tagged,
			func(runnerRecord) bool { return true }),
		"runners.group": world(u.Client, fmt.Sprintf("/groups/%d/runners", sub.ID), tagged,
			func(r runnerRecord) bool { return r.kind != "project_type" }),
	}
}}

// runnerFilters are the filter rows every runner list shares.
func runnerFilters(rule func(param string) string, kind string) map[string]filterRow {
	return map[string]filterRow{
		"type":           {Rule: rule("type"), Query: "type=" + kind, Want: kind},
		"status":         {Rule: rule("status"), Query: "status=online", Want: "online"},
		"paused":         {Rule: rule("paused"), Query: "paused=true", Want: "paused"},
		"tag_list":       {Rule: rule("tag_list"), Query: "tag_list[]={tag}&tag_list[]={tag2}", Want: "tagged"},
		"version_prefix": {Rule: rule("version_prefix"), Query: "version_prefix=16", Want: "v16"},
		"scope":          {Rule: rule("scope"), Query: "scope=paused", Want: "paused"},
	}
}

// sharedRunnerRules names the runners.filters rule of each shared filter.
func sharedRunnerRules(param string) string {
	return map[string]string{"type": "runners.filters.1", "status": "runners.filters.2", "paused": "runners.filters.3",
		"tag_list": "runners.filters.4", "version_prefix": "runners.filters.5", "scope": "runners.filters.6"}[param]
}

var _ = register(map[string]*listFixture{
	"jobs.list": {World: jobsWorld, Pagination: "jobs.list.5",
		Uncounted: "gitlabhq/gitlabhq lib/api/ci/jobs.rb @9f2347fc: paginate_with_strategies(builds, user_project, paginator_params: { without_count: true })",
		Keyset:    keysetRow{Rule: "jobs.list.4", Query: "pagination=keyset&order_by=id&sort=desc"},
		Filters:   map[string]filterRow{"scope": {Rule: "jobs.list.2", Query: "scope=running", Want: "running"}},
		Others: map[string]string{
			"pagination": "selects keyset pagination, which the Keyset row walks (jobs.list.4)", "order_by": "orders the keyset pages (jobs.list.4)",
			"sort": "orders the keyset pages (jobs.list.4)", "cursor": "the position a keyset link names (jobs.list.4)",
		}},
	"jobs.pipeline_jobs": {World: jobsWorld, Pagination: "jobs.pipeline_jobs.4",
		Defaults: map[string]defaultRow{"include_retried": {Rule: "jobs.pipeline_jobs.2"}},
		Filters:  map[string]filterRow{"scope": {Rule: "jobs.pipeline_jobs.3", Query: "scope=success", Want: "success"}}},
	"jobs.pipeline_bridges": {World: jobsWorld, Pagination: "jobs.bridges.3",
		Filters: map[string]filterRow{"scope": {Rule: "jobs.bridges.2", Query: "scope=created", Want: "created"}}},
	"runners.jobs": {World: runnerJobsListWorld, Pagination: "runners.jobs.5",
		Defaults: map[string]defaultRow{"sort": {Rule: "runners.jobs.3", Other: "asc", Base: "order_by=id"}},
		Filters: map[string]filterRow{
			"status":    {Rule: "runners.jobs.2", Query: "status=failed", Want: "failed"},
			"system_id": {Rule: "runners.jobs.2", Query: "system_id=m2", Want: "m2"},
		},
		Others: map[string]string{"order_by": "names the one order there is, id (runners.jobs.3)"}},
	"runners.managers": {World: runnerJobsListWorld, Pagination: "runners.managers.2"},
	"runners.list": {World: runnersWorld, Pagination: "runners.list.2",
		Filters: runnerFilters(sharedRunnerRules, "group_type")},
	"runners.all": {World: runnersWorld, Pagination: "runners.all.2",
		Filters: runnerFilters(sharedRunnerRules, "instance_type")},
	"runners.project": {World: runnersWorld, Pagination: "runners.project.5",
		Filters: runnerFilters(func(param string) string {
			if param == "version_prefix" || param == "scope" {
				return sharedRunnerRules(param)
			}
			return "runners.project.3"
		}, "project_type")},
	"runners.group": {World: runnersWorld, Pagination: "runners.group.1",
		Filters: runnerFilters(func(string) string { return "runners.group.3" }, "instance_type")},
})

// Direct transfer: a user with twenty imports that fail (their source group
// does not exist) and one that finishes, each of one entity; an import of
// twenty failing entities and one that finishes (so the import finishes);
// the one failure of a failed entity.
var bulkImportsWorld = &worldBuilder{Name: "direct transfer", Build: func(ctx SpecContext) map[string]*listWorld {
	w := newBulkWorld(ctx)
	absent := func() map[string]any {
		return groupEntity(w, Unique("dst"), map[string]any{"source_full_path": Unique("absent")})
	}
	good := func() map[string]any { return groupEntity(w, Unique("dst"), map[string]any{"migrate_projects": false}) }
	sets := map[string][]string{}
	var imports []int
	for i := range listItems {
		entity := absent()
		if i == 7 {
			entity = good()
		}
		id := importID(startImport(ctx, w, entity))
		imports = append(imports, id)
		if i == 7 {
			sets["finishedImports"] = idsOf(id)
		}
	}
	var entities []map[string]any
	for i := range listItems {
		if i == 4 {
			entities = append(entities, good())
		} else {
			entities = append(entities, absent())
		}
	}
	many := importID(startImport(ctx, w, entities...))
	// An import whose entities did not all fail finishes.
	sets["finishedImports"] = append(sets["finishedImports"], itoa(many))
	for _, id := range append(imports, many) {
		awaitImport(ctx, w.U.Client, id)
	}
	// The entities that finish are those of the source group that exists.
	finished := itoa(int(onlyEntity(ctx, w.U.Client, imports[7]).Get("id").Int()))
	r := w.U.Get(ctx, bulkPath(many, "entities"), Q("per_page", 100))
	Expect(r).To(HaveStatus(http.StatusOK))
	for _, e := range r.JSON().Array() {
		if e.Get("source_full_path").String() == w.Source.FullPath {
			sets["finishedOfMany"] = idsOf(int(e.Get("id").Int()))
		}
	}
	sets["finishedEntities"] = append([]string{finished}, sets["finishedOfMany"]...)
	failedEntity := onlyEntity(ctx, w.U.Client, imports[0])
	return map[string]*listWorld{
		"bulk_imports.list":         {By: w.U.Client, Path: "/bulk_imports", Items: listItems + 1, Sets: sets},
		"bulk_imports.entities_all": {By: w.U.Client, Path: "/bulk_imports/entities", Items: 2 * listItems, Sets: sets},
		"bulk_imports.entities":     {By: w.U.Client, Path: bulkPath(many, "entities"), Items: listItems, Sets: sets},
		"bulk_imports.failures": {By: w.U.Client, Path: bulkPath(imports[0], "entities", itoa(int(failedEntity.Get("id").Int())), "failures"),
			Key: "exception_message", Items: 1,
			Few: "the reference records one failure per failed entity and no provisioning call makes more; the default per_page shows in x-per-page"},
	}
}}

func bulkFixture(sortRule, statusRule, pagination, finished string) *listFixture {
	return &listFixture{World: bulkImportsWorld, Pagination: pagination,
		Defaults: map[string]defaultRow{"sort": {Rule: sortRule, Other: "asc"}},
		Filters:  map[string]filterRow{"status": {Rule: statusRule, Query: "status=finished", Want: finished}}}
}

var _ = register(map[string]*listFixture{
	"bulk_imports.list":         bulkFixture("bulk_imports.list.1", "bulk_imports.list.2", "bulk_imports.list.3", "finishedImports"),
	"bulk_imports.entities_all": bulkFixture("bulk_imports.entities_all.1", "bulk_imports.entities_all.1", "bulk_imports.entities_all.1", "finishedEntities"),
	"bulk_imports.entities":     bulkFixture("bulk_imports.entities.1", "bulk_imports.entities.1", "bulk_imports.entities.1", "finishedOfMany"),
	"bulk_imports.failures":     {World: bulkImportsWorld, Pagination: "bulk_imports.failures.4"},
})

// Issues: twenty-one issues of one project, titled against their creation
// order; every third labelled bug and assigned, every fourth by another
// member, the first five closed.
var issuesWorld = &worldBuilder{Name: "issues", Build: func(ctx SpecContext) map[string]*listWorld {
	p := NewProject(ctx, api)
	u := NewUser(ctx)
	AddProjectMember(ctx, p, u, DeveloperLevel)
	var bug, byOther, closed []string
	for i := range listItems {
		fields := map[string]any{"title": fmt.Sprintf("issue %c", 'z'-i)}
		by := api
		if i%3 == 0 {
			fields["labels"], fields["assignee_ids"] = "bug", []int{u.ID}
		}
		if i%4 == 0 {
			by = u.Client
		}
		r := by.Post(ctx, issuesPath(p), Body(fields))
		Expect(r).To(HaveStatus(http.StatusCreated), "creating a fixture issue")
		id := itoa(int(r.Get("id").Int()))
		if i%3 == 0 {
			bug = append(bug, id)
		}
		if i%4 == 0 {
			byOther = append(byOther, id)
		}
		if i < 5 {
			Expect(api.Put(ctx, fmt.Sprintf("%s/%d", issuesPath(p), r.Get("iid").Int()), Body(map[string]any{"state_event": "close"}))).To(HaveStatus(http.StatusOK))
			closed = append(closed, id)
		}
	}
	return map[string]*listWorld{"issues.project_list": {By: api, As: map[string]*Client{"u": u.Client}, Path: issuesPath(p), Items: listItems,
		Vals: map[string]string{"u": itoa(u.ID), "username": u.Username},
		Sets: map[string][]string{"bug": bug, "other": byOther, "closed": closed}}}
}}

var _ = register(map[string]*listFixture{
	"issues.project_list": {World: issuesWorld, Pagination: "issues.list.1",
		Defaults: map[string]defaultRow{
			"state":               {Rule: "issues.list.1", Other: "opened"},
			"order_by":            {Rule: "issues.list.1", Other: "title"},
			"sort":                {Rule: "issues.list.1", Other: "asc"},
			"with_labels_details": {Rule: "issues.list.2", Fields: []string{"labels"}},
		},
		Filters: map[string]filterRow{
			"labels":          {Rule: "issues.list.2", Query: "labels=bug", Want: "bug"},
			"assignee_id":     {Rule: "issues.list.2", Query: "assignee_id={u}", Want: "bug"},
			"author_id":       {Rule: "issues.list.2", Query: "author_id={u}", Want: "other"},
			"author_username": {Rule: "issues.list.2", Query: "author_username={username}", Want: "other"},
			"scope":           {Rule: "issues.list.1", Query: "scope=assigned_to_me", As: "u", Want: "bug"},
		},
		Others: map[string]string{
			"milestone":         "a milestone's title, None and Any: the spec of issues.list.2",
			"milestone_id":      "its wildcards: the spec of issues.list.2",
			"iids":              "the spec of issues.list.2",
			"search":            "title and description, and in: the spec of issues.list.2",
			"in":                "the spec of issues.list.2",
			"assignee_username": "the spec of issues.list.2",
			"closed_by_id":      "a closer is the one who closed: the spec of issues.update.2 shows closed_by",
			"my_reaction_emoji": "reactions are award_emoji's; the filter reads them as merge requests' does",
			"confidential":      "the spec of issues.list.3",
			"issue_type":        "the reference makes plain issues only: the spec of issues.list.2",
			"due_date":          "due dates relative to the day the suites run: reference/store TestIssueDueDate",
			"created_after":     "timestamps of one spec's run: the bounds are the merge request lists'",
			"created_before":    "timestamps of one spec's run: the bounds are the merge request lists'",
			"updated_after":     "timestamps of one spec's run: the bounds are the merge request lists'",
			"updated_before":    "timestamps of one spec's run: the bounds are the merge request lists'",
			"not":               "not[labels] and not[author_id]: the spec of issues.list.2",
		},
	},
})
