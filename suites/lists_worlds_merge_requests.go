package suites

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/tidwall/gjson"
)

// The worlds of the merge request area and of the provisioning lists around
// it (labels, milestones, to-do items, branches and tags), registered in
// listFixtures like those of lists_worlds.go.

// featureBranch makes branch from the default branch with one commit adding
// a file of its own, in one request (the commits API's start_branch).
func (p *RepoProject) featureBranch(ctx SpecContext, branch string) {
	GinkgoHelper()
	r := p.Owner.Post(ctx, p.Repo("/commits"), Body(map[string]any{"branch": branch, "start_branch": p.DefaultBranch,
		"commit_message": "Add " + branch, "actions": []map[string]any{create(branch+".txt", branch+"\n")}}))
	ExpectFixture(r).To(HaveStatus(http.StatusCreated), "creating a fixture branch")
}

// newMilestone creates a milestone of p as the administrator and answers its id.
func newMilestone(ctx SpecContext, p *RepoProject, title string) int {
	GinkgoHelper()
	r := api.Post(ctx, fmt.Sprintf("/projects/%d/milestones", p.ID), Body(map[string]any{"title": title}))
	ExpectFixture(r).To(HaveStatus(http.StatusCreated), "creating a fixture milestone")
	return int(r.Get("id").Int())
}

// expectFixtureStatus requires r, a write that builds a world, to answer one of statuses.
func expectFixtureStatus(r *Response, what string, statuses ...int) {
	GinkgoHelper()
	ExpectFixture(r).To(HaveStatus(statuses...), "%s", what)
}

// timeBounds gives, for the timestamp field of a list's items, an inclusive
// lower and an inclusive upper bound each keeping a non-empty strict subset
// of them, and those subsets; each bound is a timestamp an item carries, so
// a bound that excludes its own instant fails the row. When every item has
// the same instant (a clock that stands still), no bound can keep a strict
// non-empty subset: the bounds then lie a second past either side and keep
// nothing, which still tells a target that ignores them.
func timeBounds(items []gjson.Result, field string) (after, before string, afterSet, beforeSet []string) {
	GinkgoHelper()
	type stamp struct {
		id  string
		raw string
		at  time.Time
	}
	var stamps []stamp
	var instants []time.Time
	for _, e := range items {
		raw := e.Get(field).String()
		at, err := time.Parse(time.RFC3339Nano, raw)
		ExpectFixture(err).NotTo(HaveOccurred(), "%s %q of item %s", field, raw, e.Get("id"))
		stamps = append(stamps, stamp{e.Get("id").String(), raw, at})
		if !slices.ContainsFunc(instants, at.Equal) {
			instants = append(instants, at)
		}
	}
	slices.SortFunc(instants, time.Time.Compare)
	if len(instants) < 2 {
		at := instants[0]
		return at.Add(time.Second).UTC().Format(time.RFC3339), at.Add(-time.Second).UTC().Format(time.RFC3339), []string{}, []string{}
	}
	low, high := instants[len(instants)/2-1], instants[len(instants)/2]
	for _, s := range stamps {
		if s.at.Equal(high) {
			after = s.raw
		}
		if s.at.Equal(low) {
			before = s.raw
		}
		if !s.at.Before(high) {
			afterSet = append(afterSet, s.id)
		}
		if !s.at.After(low) {
			beforeSet = append(beforeSet, s.id)
		}
	}
	return after, before, afterSet, beforeSet
}

// Merge requests: a project P with twenty-one merge requests, each made to
// stand out for one filter of the two lists: assigned (0, 1 to U1, 2 to U2),
// by U1 (3 to 5), reviewed (6, 7 by U2, 8 by U1), labelled (9 bug, 10 bug and
// ui, 11 ui), in a milestone (12, 13), reacted to by the administrator (14
// thumbsup, 15 tada) and by U1 (16), closed (17), merged by U1 (18), a draft
// (19) and one into another branch, merged by the administrator (20);
// approved by U2 (0, 1) and U1 (1); 10 to 16 share a word in their titles,
// 18 to 20 the world's prefix in their descriptions (19 and 20 only there),
// and the titles sort against creation order. A second project Q holds the
// merge requests the sub-resource lists read: one blocked by P's twenty-one
// with twenty-one notes, one changing twenty-one files, one with twenty-one
// versions and one with twenty-one pipelines.
var mergeRequestsWorld = &worldBuilder{Name: "merge requests", Build: func(ctx SpecContext) map[string]*listWorld {
	prefix := Unique("mrq")
	u1, u2 := NewUser(ctx), NewUser(ctx)
	p := NewRepoProject(ctx, api)
	AddProjectMember(ctx, p.Project, u1, DeveloperLevel)
	AddProjectMember(ctx, p.Project, u2, DeveloperLevel)
	p.Branch(ctx, "release", p.DefaultBranch)
	v1, v2 := prefix+"-v1", prefix+"-v2"
	m1, m2 := newMilestone(ctx, p, v1), newMilestone(ctx, p, v2)
	teal := prefix + "-teal"
	sets := map[string][]string{}
	mrs := make([]*MergeRequest, listItems)
	for i := range listItems {
		branch := fmt.Sprintf("mr-%02d", i)
		p.featureBranch(ctx, branch)
		title, by := nameOf(prefix, i, listItems), api
		if i >= 10 && i <= 16 {
			title += " " + teal
		}
		attrs := map[string]any{"description": "plain"}
		switch i {
		case 0, 1:
			attrs["assignee_ids"] = []int{u1.ID}
		case 2:
			attrs["assignee_ids"] = []int{u2.ID}
		case 3, 4, 5:
			by = u1.Client
		case 6, 7:
			attrs["reviewer_ids"] = []int{u2.ID}
		case 8:
			attrs["reviewer_ids"] = []int{u1.ID}
		case 9:
			attrs["labels"] = "bug"
		case 10:
			attrs["labels"] = "bug,ui"
		case 11:
			attrs["labels"] = "ui"
		case 12:
			attrs["milestone_id"] = m1
		case 13:
			attrs["milestone_id"] = m2
		case 18:
			attrs["description"] = "about " + prefix
		case 19:
			title, attrs["description"] = "Draft: quiet change", "about "+prefix
		case 20:
			title, attrs["description"], attrs["target_branch"] = "Quiet change", "about "+prefix, "release"
		}
		mrs[i] = p.OpenMR(ctx, by, branch, title, attrs)
	}
	add := func(set string, is ...int) {
		for _, i := range is {
			sets[set] = append(sets[set], itoa(mrs[i].ID))
		}
	}
	add("assignedU1", 0, 1)
	add("assigned", 0, 1, 2)
	add("assignedU2", 2)
	add("byU1", 3, 4, 5)
	add("reviewedU2", 6, 7)
	add("reviewedU1", 8)
	add("reviewed", 6, 7, 8)
	add("bug", 9, 10)
	add("bugAndUI", 10)
	add("labelled", 9, 10, 11)
	add("v1", 12)
	add("milestoned", 12, 13)
	add("thumbsup", 14)
	add("reacted", 14, 15)
	add("teal", 10, 11, 12, 13, 14, 15, 16)
	add("described", 18, 19, 20)
	add("closed", 17)
	add("merged", 18, 20)
	add("notOpen", 17, 18, 20)
	add("mergedByU1", 18)
	add("draft", 19)
	add("toRelease", 20)
	add("fifth", 5)
	add("iids", 3, 9)
	add("approved", 0, 1)
	add("approvedByBoth", 1)

	react := func(by *Client, i int, name string) {
		expectFixtureStatus(by.Post(ctx, p.MR(mrs[i].IID, "/award_emoji"), Body(map[string]any{"name": name})),
			"a fixture reaction", http.StatusCreated)
	}
	react(api, 14, "thumbsup")
	react(api, 15, "tada")
	react(u1.Client, 16, "thumbsup")
	for _, a := range []struct {
		by *User
		i  int
	}{{u2, 0}, {u2, 1}, {u1, 1}} {
		expectFixtureStatus(a.by.Post(ctx, p.MR(mrs[a.i].IID, "/approve"), Body(map[string]any{})), "a fixture approval", http.StatusCreated)
	}
	expectFixtureStatus(api.Put(ctx, p.MR(mrs[17].IID, ""), Body(map[string]any{"state_event": "close"})), "closing a fixture merge request", http.StatusOK)
	expectFixtureStatus(p.merge(ctx, u1.Client, mrs[18].IID, nil), "merging a fixture merge request", http.StatusOK)
	expectFixtureStatus(p.merge(ctx, api, mrs[20].IID, nil), "merging a fixture merge request", http.StatusOK)

	// Q: the merge requests whose sub-resources are lists. Its default
	// branch carries a CI configuration, so that pipelines can run on the
	// branches made from it.
	q := NewCIProject(ctx, api, map[string]string{".gitlab-ci.yml": "test:\n  script: echo ok\n"})
	q.featureBranch(ctx, "blocked")
	blocked := q.OpenMR(ctx, api, "blocked", "Blocked")
	for _, mr := range mrs {
		expectFixtureStatus(api.Post(ctx, q.MR(blocked.IID, "/blocks"), Body(map[string]any{"blocking_merge_request_id": mr.ID})),
			"a fixture block", http.StatusCreated)
	}
	for i := range listItems {
		expectFixtureStatus(api.Post(ctx, q.MR(blocked.IID, "/notes"), Body(map[string]any{"body": fmt.Sprintf("%s note %02d", prefix, i)})),
			"a fixture note", http.StatusCreated)
	}
	wide := q.manyFiles(ctx, "wide", listItems)
	q.featureBranch(ctx, "versions")
	versioned := q.OpenMR(ctx, api, "versions", "Versions")
	for i := 1; i < listItems; i++ {
		q.Commit(ctx, api, "versions", fmt.Sprintf("version %02d", i), create(fmt.Sprintf("v-%02d.txt", i), "v\n"))
	}
	latest := api.Get(ctx, q.MR(versioned.IID, "/versions"))
	expectFixtureStatus(latest, "reading the fixture versions", http.StatusOK)
	q.featureBranch(ctx, "ci")
	ci := q.OpenMR(ctx, api, "ci", "CI")
	for range listItems {
		expectFixtureStatus(api.Post(ctx, fmt.Sprintf("/projects/%d/pipeline", q.ID), Body(map[string]any{"ref": "ci"})),
			"a fixture pipeline", http.StatusCreated)
	}

	// The timestamps, once every write is done: the rows only read.
	all := api.Get(ctx, p.MRs(), Q("per_page", 100))
	expectFixtureStatus(all, "reading the fixture merge requests", http.StatusOK)
	vals := map[string]string{"u1": itoa(u1.ID), "u2": itoa(u2.ID), "u1name": u1.Username, "u2name": u2.Username,
		"v1": v1, "search": strings.ToUpper(teal), "prefix": prefix, "fifth": "mr-05",
		"iid3": itoa(mrs[3].IID), "iid9": itoa(mrs[9].IID)}
	for _, f := range []string{"created", "updated"} {
		after, before, afterSet, beforeSet := timeBounds(all.JSON().Array(), f+"_at")
		vals[f+"_after"], vals[f+"_before"] = after, before
		sets[f+"_after"], sets[f+"_before"] = afterSet, beforeSet
	}
	as := map[string]*Client{"u1": u1.Client, "u2": u2.Client}
	return map[string]*listWorld{
		"merge_requests.project_list": {By: api, As: as, Path: p.MRs(), Items: listItems, Sets: sets, Vals: vals},
		"merge_requests.list": {By: api, As: as, Path: "/merge_requests", Query: values("scope", "all", "search", prefix),
			Items: listItems, Sets: sets, Vals: vals},
		"merge_requests.get":         {By: api, Path: p.MR(mrs[10].IID, "")},
		"merge_requests.blocks.list": {By: api, Path: q.MR(blocked.IID, "/blocks"), Items: listItems},
		"merge_requests.notes.list":  {By: api, Path: q.MR(blocked.IID, "/notes"), Items: listItems},
		"merge_requests.diffs":       {By: api, Path: q.MR(wide.IID, "/diffs"), Key: "new_path", Items: listItems},
		"merge_requests.changes":     {By: api, Path: q.MR(wide.IID, "/changes")},
		"merge_requests.versions":    {By: api, Path: q.MR(versioned.IID, "/versions"), Items: listItems},
		"merge_requests.version":     {By: api, Path: q.MR(versioned.IID, fmt.Sprintf("/versions/%d", latest.Get("0.id").Int()))},
		"merge_requests.pipelines":   {By: api, Path: q.MR(ci.IID, "/pipelines"), Items: listItems},
	}
}}

// mrListFixture is the rows of one of the two merge request lists; global
// selects the global list's own parameters and defaults.
func mrListFixture(global bool) *listFixture {
	fx := &listFixture{World: mergeRequestsWorld, Pagination: "merge_requests.list.24",
		Defaults: map[string]defaultRow{
			"order_by":            {Rule: "merge_requests.list.17", Other: "title"},
			"sort":                {Rule: "merge_requests.list.17", Other: "asc"},
			"state":               {Rule: "merge_requests.list.4", Other: "opened"},
			"scope":               {Rule: "merge_requests.list.3", Other: "created_by_me"},
			"with_labels_details": {Rule: "merge_requests.list.22", Fields: []string{"labels"}},
		},
		Filters: map[string]filterRow{
			"approved_by_ids":        {Rule: "merge_requests.list.25", Query: "approved_by_ids[]={u1}&approved_by_ids[]={u2}", Want: "approvedByBoth"},
			"approved_by_ids None":   {Rule: "merge_requests.list.25", Query: "approved_by_ids=None", Except: "approved"},
			"approved_by_ids Any":    {Rule: "merge_requests.list.25", Query: "approved_by_ids=Any", Want: "approved"},
			"approved":               {Rule: "merge_requests.list.27", Query: "approved=yes", Want: "approved"},
			"approved no":            {Rule: "merge_requests.list.27", Query: "approved=no", Except: "approved"},
			"approver_ids":           {Rule: "merge_requests.list.26", Query: "approver_ids=Any", Empty: "no provisioning call sets approval rules, so no merge request has approvers (None keeps every one, which is not a strict subset)"},
			"assignee_id":            {Rule: "merge_requests.list.5", Query: "assignee_id={u1}", Want: "assignedU1"},
			"assignee_id None":       {Rule: "merge_requests.list.5", Query: "assignee_id=None", Except: "assigned"},
			"assignee_id Any":        {Rule: "merge_requests.list.5", Query: "assignee_id=Any", Want: "assigned"},
			"author_id":              {Rule: "merge_requests.list.6", Query: "author_id={u1}", Want: "byU1"},
			"author_username":        {Rule: "merge_requests.list.6", Query: "author_username={u1name}", Want: "byU1"},
			"created_after":          {Rule: "merge_requests.list.7", Query: "created_after={created_after}", Want: "created_after"},
			"created_before":         {Rule: "merge_requests.list.7", Query: "created_before={created_before}", Want: "created_before"},
			"updated_after":          {Rule: "merge_requests.list.7", Query: "updated_after={updated_after}", Want: "updated_after"},
			"updated_before":         {Rule: "merge_requests.list.7", Query: "updated_before={updated_before}", Want: "updated_before"},
			"environment":            {Rule: "merge_requests.list.9", Query: "environment=production", Empty: "nothing is ever deployed: no provisioning call deploys a merge request, so no environment holds one"},
			"labels":                 {Rule: "merge_requests.list.12", Query: "labels=bug", Want: "bug"},
			"labels both":            {Rule: "merge_requests.list.12", Query: "labels=bug,ui", Want: "bugAndUI"},
			"labels None":            {Rule: "merge_requests.list.12", Query: "labels=None", Except: "labelled"},
			"labels none":            {Rule: "merge_requests.list.12", Query: "labels=none", Except: "labelled"},
			"labels Any":             {Rule: "merge_requests.list.12", Query: "labels=Any", Want: "labelled"},
			"labels ANY":             {Rule: "merge_requests.list.12", Query: "labels=ANY", Want: "labelled"},
			"merge_user_id":          {Rule: "merge_requests.list.13", Query: "merge_user_id={u1}", Want: "mergedByU1"},
			"merge_user_username":    {Rule: "merge_requests.list.13", Query: "merge_user_username={u1name}", Want: "mergedByU1"},
			"milestone":              {Rule: "merge_requests.list.14", Query: "milestone={v1}", Want: "v1"},
			"milestone None":         {Rule: "merge_requests.list.14", Query: "milestone=None", Except: "milestoned"},
			"milestone Any":          {Rule: "merge_requests.list.14", Query: "milestone=Any", Want: "milestoned"},
			"my_reaction_emoji":      {Rule: "merge_requests.list.15", Query: "my_reaction_emoji=thumbsup", Want: "thumbsup"},
			"my_reaction_emoji None": {Rule: "merge_requests.list.15", Query: "my_reaction_emoji=None", Except: "reacted"},
			"my_reaction_emoji Any":  {Rule: "merge_requests.list.15", Query: "my_reaction_emoji=Any", Want: "reacted"},
			"not labels":             {Rule: "merge_requests.list.16", Query: "not[labels]=bug", Except: "bug"},
			"not milestone":          {Rule: "merge_requests.list.16", Query: "not[milestone]={v1}", Except: "v1"},
			"not author_id":          {Rule: "merge_requests.list.16", Query: "not[author_id]={u1}", Except: "byU1"},
			"not author_username":    {Rule: "merge_requests.list.16", Query: "not[author_username]={u1name}", Except: "byU1"},
			"not assignee_id":        {Rule: "merge_requests.list.16", Query: "not[assignee_id]={u1}", Except: "assignedU1"},
			"not assignee_username":  {Rule: "merge_requests.list.16", Query: "not[assignee_username][]={u2name}", Except: "assignedU2"},
			"not reviewer_id":        {Rule: "merge_requests.list.16", Query: "not[reviewer_id]={u2}", Except: "reviewedU2"},
			"not reviewer_username":  {Rule: "merge_requests.list.16", Query: "not[reviewer_username]={u1name}", Except: "reviewedU1"},
			"not my_reaction_emoji":  {Rule: "merge_requests.list.16", Query: "not[my_reaction_emoji]=thumbsup", Except: "thumbsup"},
			"reviewer_id":            {Rule: "merge_requests.list.18", Query: "reviewer_id={u2}", Want: "reviewedU2"},
			"reviewer_id None":       {Rule: "merge_requests.list.18", Query: "reviewer_id=None", Except: "reviewed"},
			"reviewer_id Any":        {Rule: "merge_requests.list.18", Query: "reviewer_id=Any", Want: "reviewed"},
			"reviewer_username":      {Rule: "merge_requests.list.18", Query: "reviewer_username={u2name}", Want: "reviewedU2"},
			"scope assigned_to_me":   {Rule: "merge_requests.list.28", Query: "scope=assigned_to_me", As: "u1", Want: "assignedU1"},
			"scope reviews_for_me":   {Rule: "merge_requests.list.28", Query: "scope=reviews_for_me", As: "u2", Want: "reviewedU2"},
			"scope created_by_me":    {Rule: "merge_requests.list.28", Query: "scope=created_by_me", As: "u1", Want: "byU1"},
			"search":                 {Rule: "merge_requests.list.19", Query: "search={search}", Want: "teal"},
			"source_branch":          {Rule: "merge_requests.list.20", Query: "source_branch={fifth}", Want: "fifth"},
			"target_branch":          {Rule: "merge_requests.list.20", Query: "target_branch=release", Want: "toRelease"},
			"state":                  {Rule: "merge_requests.list.4", Query: "state=merged", Want: "merged"},
			"state closed":           {Rule: "merge_requests.list.4", Query: "state=closed", Want: "closed"},
			"state opened":           {Rule: "merge_requests.list.4", Query: "state=opened", Except: "notOpen"},
			"wip":                    {Rule: "merge_requests.list.23", Query: "wip=yes", Want: "draft"},
			"wip no":                 {Rule: "merge_requests.list.23", Query: "wip=no", Except: "draft"},
			"draft":                  {Rule: "merge_requests.list.29", Query: "draft=true", Want: "draft"},
			"draft false":            {Rule: "merge_requests.list.29", Query: "draft=false", Except: "draft"},
		},
		Others: map[string]string{
			"view": "selects the simple form rather than filtering (merge_requests.list.21); the rulebook's judge holds it to merge_request_simple",
			"with_merge_status_recheck": "asks for the mergeability to be checked again, which changes an answer only when a branch moved unnoticed; " +
				"the reference learns of every push as it happens, so the answer is the same",
		},
	}
	if global {
		fx.Defaults["scope"] = defaultRow{Rule: "merge_requests.list.1", Other: "all", Base: "search={prefix}"}
		fx.Defaults["in"] = defaultRow{Rule: "merge_requests.list.10", Other: "title"}
		fx.Filters["in"] = filterRow{Rule: "merge_requests.list.10", Query: "in=description", Want: "described"}
		fx.Filters["deployed_after"] = filterRow{Rule: "merge_requests.list.8", Query: "deployed_after=1970-01-01T00:00:00Z",
			Empty: "nothing is ever deployed: no provisioning call deploys a merge request"}
		fx.Filters["deployed_before"] = filterRow{Rule: "merge_requests.list.8", Query: "deployed_before=2100-01-01T00:00:00Z",
			Empty: "nothing is ever deployed: no provisioning call deploys a merge request"}
	} else {
		fx.Filters["iids"] = filterRow{Rule: "merge_requests.list.11", Query: "iids[]={iid3}&iids[]={iid9}", Want: "iids"}
	}
	return fx
}

var _ = register(map[string]*listFixture{
	"merge_requests.list":         mrListFixture(true),
	"merge_requests.project_list": mrListFixture(false),
	"merge_requests.get": {World: mergeRequestsWorld, Defaults: map[string]defaultRow{
		"with_labels_details": {Rule: "merge_requests.fields.4", Fields: []string{"labels"}}}},
	"merge_requests.blocks.list": {World: mergeRequestsWorld, Pagination: "merge_requests.blocks.8"},
	"merge_requests.notes.list": {World: mergeRequestsWorld, Pagination: "merge_requests.notes.2",
		Defaults: map[string]defaultRow{"sort": {Rule: "merge_requests.notes.2", Other: "asc"}},
		Others: map[string]string{
			"order_by": "no provisioning route edits a note, so updated_at orders the notes as created_at does (merge_requests.notes.1 checks the order)"}},
	"merge_requests.diffs": {World: mergeRequestsWorld, Pagination: "merge_requests.diffs.2",
		Defaults: map[string]defaultRow{"unidiff": {Rule: "merge_requests.diffs.2", Fields: []string{"diff"}}}},
	"merge_requests.changes": {World: mergeRequestsWorld,
		Defaults: map[string]defaultRow{"unidiff": {Rule: "merge_requests.changes.3", Fields: []string{"changes.#.diff"}}},
		Others: map[string]string{
			"access_raw_diffs": "changes an answer only past the diff limits, 1,001 files here; merge_requests.changes.2 checks it on such a diff"}},
	"merge_requests.versions":             {World: mergeRequestsWorld, Pagination: "merge_requests.versions.5"},
	"merge_requests.version":              {World: mergeRequestsWorld, Defaults: map[string]defaultRow{"unidiff": {Rule: "merge_requests.version.2", Fields: []string{"diffs.#.diff"}}}},
	"merge_requests.pipelines":            {World: mergeRequestsWorld, Pagination: "merge_requests.pipelines.1"},
	"award_emoji.merge_request_list":      {World: reactionsWorld, Pagination: "award_emoji.list.2"},
	"award_emoji.merge_request_note_list": {World: reactionsWorld, Pagination: "award_emoji.list.2"},
})

// To-do items: a user T with twenty-one pending items and one done: in a
// project A of group GA, five merge requests by the administrator assign T
// and ask T to review (ten items), and T marks three more itself; in a
// project B of group GB, four merge requests by a user U assign T and ask T
// to review (eight); T marks a fourth of A and marks that item done.
var todosWorld = &worldBuilder{Name: "to-do items", Build: func(ctx SpecContext) map[string]*listWorld {
	t, u := NewUser(ctx), NewUser(ctx)
	ga, gb := NewGroup(ctx, api), NewGroup(ctx, api)
	a := NewRepoProject(ctx, api, ProjectOpts{"namespace_id": ga.ID})
	b := NewRepoProject(ctx, api, ProjectOpts{"namespace_id": gb.ID})
	AddProjectMember(ctx, a.Project, t, DeveloperLevel)
	AddProjectMember(ctx, b.Project, t, DeveloperLevel)
	AddProjectMember(ctx, b.Project, u, DeveloperLevel)
	linked := map[string]any{"assignee_ids": []int{t.ID}, "reviewer_ids": []int{t.ID}}
	for i := range 5 {
		branch := fmt.Sprintf("todo-a-%02d", i)
		a.featureBranch(ctx, branch)
		a.OpenMR(ctx, api, branch, "To do "+branch, linked)
	}
	for i := range 4 {
		branch := fmt.Sprintf("todo-b-%02d", i)
		b.featureBranch(ctx, branch)
		b.OpenMR(ctx, u.Client, branch, "To do "+branch, linked)
	}
	var doneID int64
	for i := range 4 {
		branch := fmt.Sprintf("todo-m-%02d", i)
		a.featureBranch(ctx, branch)
		mr := a.OpenMR(ctx, api, branch, "Marked "+branch)
		r := t.Post(ctx, a.MR(mr.IID, "/todo"))
		expectFixtureStatus(r, "marking a fixture to-do item", http.StatusCreated)
		doneID = r.Get("id").Int()
	}
	expectFixtureStatus(t.Post(ctx, fmt.Sprintf("/todos/%d/mark_as_done", doneID)), "marking a fixture to-do item done", http.StatusCreated)
	r := t.Get(ctx, "/todos", Q("per_page", 100))
	expectFixtureStatus(r, "reading the fixture to-do items", http.StatusOK)
	sets := map[string][]string{"done": {fmt.Sprint(doneID)}}
	for _, e := range r.JSON().Array() {
		id := e.Get("id").String()
		if e.Get("action_name").String() == "assigned" {
			sets["assigned"] = append(sets["assigned"], id)
		}
		if e.Get("author.id").Int() == int64(u.ID) {
			sets["byU"] = append(sets["byU"], id)
		}
		switch e.Get("project.id").Int() {
		case int64(a.ID):
			sets["inA"] = append(sets["inA"], id)
		case int64(b.ID):
			sets["inGB"] = append(sets["inGB"], id)
		}
	}
	return map[string]*listWorld{"todos.list": {By: t.Client, Path: "/todos", Items: listItems, Sets: sets,
		Vals: map[string]string{"u": itoa(u.ID), "a": itoa(a.ID), "gb": itoa(gb.ID)}}}
}}

// Labels, milestones, branches and tags: a project with twenty-one of each,
// seven of the labels, milestones and branches named with a shared word;
// three milestones closed.
var projectRecordsWorld = &worldBuilder{Name: "labels, milestones, branches and tags", Build: func(ctx SpecContext) map[string]*listWorld {
	p := NewRepoProject(ctx, api)
	prefix := Unique("rec")
	sets := map[string][]string{}
	word := func(i int) string {
		if i >= 10 && i <= 16 {
			return "-teal"
		}
		return ""
	}
	var milestones []int
	for i := range listItems {
		r := api.Post(ctx, fmt.Sprintf("/projects/%d/labels", p.ID),
			Body(map[string]any{"name": fmt.Sprintf("%s-%02d%s", prefix, i, word(i)), "color": "#428BCA"}))
		expectFixtureStatus(r, "a fixture label", http.StatusCreated)
		if word(i) != "" {
			sets["tealLabels"] = append(sets["tealLabels"], r.Get("id").String())
		}
		title := fmt.Sprintf("%s %02d%s", prefix, i, word(i))
		id := newMilestone(ctx, p, title)
		milestones = append(milestones, id)
		if word(i) != "" {
			sets["tealMilestones"] = append(sets["tealMilestones"], itoa(id))
		}
		if i < listItems-1 { // the default branch is the twenty-first
			name := fmt.Sprintf("b-%02d%s", i, word(i))
			p.Branch(ctx, name, p.DefaultBranch)
			if word(i) != "" {
				sets["tealBranches"] = append(sets["tealBranches"], name)
			}
		}
		expectFixtureStatus(api.Post(ctx, p.Repo("/tags"), Body(map[string]any{"tag_name": fmt.Sprintf("t-%02d", i), "ref": p.DefaultBranch})),
			"a fixture tag", http.StatusCreated)
	}
	for _, i := range []int{2, 5, 8} {
		expectFixtureStatus(api.Put(ctx, fmt.Sprintf("/projects/%d/milestones/%d", p.ID, milestones[i]), Body(map[string]any{"state_event": "close"})),
			"closing a fixture milestone", http.StatusOK)
		sets["closed"] = append(sets["closed"], itoa(milestones[i]))
	}
	list := api.Get(ctx, fmt.Sprintf("/projects/%d/milestones", p.ID), Q("per_page", 100))
	expectFixtureStatus(list, "reading the fixture milestones", http.StatusOK)
	iidOf := map[int64]int64{}
	for _, e := range list.JSON().Array() {
		iidOf[e.Get("id").Int()] = e.Get("iid").Int()
	}
	sets["iids"] = idsOf(milestones[3], milestones[12])
	sets["titled"] = idsOf(milestones[4])
	vals := map[string]string{"teal": "teal", "shout": "TEAL", "title": fmt.Sprintf("%s %02d", prefix, 4),
		"iid3": fmt.Sprint(iidOf[int64(milestones[3])]), "iid12": fmt.Sprint(iidOf[int64(milestones[12])])}
	return map[string]*listWorld{
		"labels.list":              {By: api, Path: fmt.Sprintf("/projects/%d/labels", p.ID), Items: listItems, Sets: sets, Vals: vals},
		"milestones.list":          {By: api, Path: fmt.Sprintf("/projects/%d/milestones", p.ID), Items: listItems, Sets: sets, Vals: vals},
		"repository.branches.list": {By: api, Path: p.Repo("/branches"), Key: "name", Items: listItems, Sets: sets, Vals: vals},
		"repository.tags.list":     {By: api, Path: p.Repo("/tags"), Key: "name", Items: listItems},
	}
}}

var _ = register(map[string]*listFixture{
	"todos.list": {World: todosWorld, Pagination: "todos.list.3",
		Defaults: map[string]defaultRow{"state": {Rule: "todos.list.2", Other: "done"}},
		Filters: map[string]filterRow{
			"action":     {Rule: "todos.list.2", Query: "action=assigned", Want: "assigned"},
			"author_id":  {Rule: "todos.list.2", Query: "author_id={u}", Want: "byU"},
			"project_id": {Rule: "todos.list.2", Query: "project_id={a}", Want: "inA"},
			"group_id":   {Rule: "todos.list.4", Query: "group_id={gb}", Want: "inGB"},
			"state":      {Rule: "todos.list.2", Query: "state=done", Want: "done", Selects: true},
			"type": {Rule: "todos.list.2", Query: "type=Issue",
				Empty: "every to-do item here is about a merge request: no provisioning call assigns an issue or asks for a to-do item on one"},
		}},
	"labels.list": {World: projectRecordsWorld, Pagination: "labels.list.1",
		Filters: map[string]filterRow{"search": {Rule: "labels.list.2", Query: "search={shout}", Want: "tealLabels"}},
		Others: map[string]string{
			"with_counts":             "true adds the three counts to each label and keeps or drops none (labels.create.1)",
			"include_ancestor_groups": "no provisioning route creates a group label, so the ancestors add none and false leaves none out",
		}},
	"milestones.list": {World: projectRecordsWorld, Pagination: "milestones.list.1",
		Filters: map[string]filterRow{
			"state":  {Rule: "milestones.update.1", Query: "state=closed", Want: "closed"},
			"iids":   {Rule: "milestones.list.2", Query: "iids[]={iid3}&iids[]={iid12}", Want: "iids"},
			"title":  {Rule: "milestones.list.2", Query: "title={title}", Want: "titled"},
			"search": {Rule: "milestones.list.2", Query: "search={teal}", Want: "tealMilestones"},
		},
		Others: map[string]string{"include_ancestors": "no provisioning route creates a group milestone, so the ancestors add none"}},
	"repository.branches.list": {World: projectRecordsWorld, Pagination: "repository.branches.1",
		Filters: map[string]filterRow{"search": {Rule: "repository.branches.1", Query: "search={teal}", Want: "tealBranches"}}},
	"repository.tags.list": {World: projectRecordsWorld, Pagination: "repository.tags.1"},
})
