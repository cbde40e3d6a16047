package suites

import (
	"fmt"
	"net/http"
	"net/url"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// The worlds of the neighbouring lists tools read beside the spec's areas
// (issue 18, provisioning): the project's pipelines and a commit's statuses.

// Pipelines: twenty-two pipelines of one job each, on main, on a branch
// side (its own commit) and on a tag v1, made in turn so that ordering by
// ref differs from ordering by id; a runner takes the job of one, which is
// then running.
var pipelinesWorld = &worldBuilder{Name: "pipelines", Build: func(ctx SpecContext) map[string]*listWorld {
	p := NewCIProject(ctx, api, map[string]string{".gitlab-ci.yml": "only:\n  script: make\n"})
	p.Branch(ctx, "side", p.DefaultBranch)
	sideSHA := p.Put(ctx, "side", map[string]string{"side.txt": "side\n"})
	Expect(api.Post(ctx, p.Repo("/tags"), Body(map[string]any{"tag_name": "v1", "ref": p.DefaultBranch}))).To(HaveStatus(http.StatusCreated))
	sets := map[string][]string{}
	refs := []string{p.DefaultBranch, "side", "v1"}
	for i := range listItems + 1 {
		ref := refs[i%len(refs)]
		r := api.Post(ctx, fmt.Sprintf("/projects/%d/pipeline", p.ID), Body(map[string]any{"ref": ref}))
		ExpectFixture(r).To(HaveStatus(http.StatusCreated), "creating a fixture pipeline")
		sets[ref] = append(sets[ref], r.Get("id").String())
	}
	rn := NewProjectRunner(ctx, p.Project)
	job := rn.Take(ctx, "m1")
	sets["running"] = []string{api.Get(ctx, jobPath(p, job.ID)).Get("pipeline.id").String()}
	return map[string]*listWorld{
		"pipelines.list": {By: api, Path: fmt.Sprintf("/projects/%d/pipelines", p.ID), Items: listItems + 1, Sets: sets,
			Vals: map[string]string{"side_sha": sideSHA}},
	}
}}

// Commit statuses: twenty-one statuses of distinct names on the default
// branch's head, one of them posted twice (its first status retried), and
// one for another ref (another pipeline, made between the others so that
// ordering by pipeline_id differs from ordering by id).
var commitStatusesWorld = &worldBuilder{Name: "commit statuses", Build: func(ctx SpecContext) map[string]*listWorld {
	p := NewRepoProject(ctx, api)
	p.Branch(ctx, "side", p.DefaultBranch)
	sha := api.Get(ctx, p.Repo("/commits/"+p.DefaultBranch)).Get("id").String()
	post := func(body map[string]any) *Response {
		GinkgoHelper()
		r := api.Post(ctx, fmt.Sprintf("/projects/%d/statuses/%s", p.ID, sha), Body(body))
		ExpectFixture(r).To(HaveStatus(http.StatusCreated), "posting a fixture commit status")
		return r
	}
	sets := map[string][]string{}
	post(map[string]any{"state": "success", "name": "check-00", "ref": p.DefaultBranch})
	side := post(map[string]any{"state": "success", "name": "side", "ref": "side"})
	sets["side"] = []string{side.Get("id").String()}
	for i := 1; i < listItems-1; i++ {
		post(map[string]any{"state": "success", "name": fmt.Sprintf("check-%02d", i), "ref": p.DefaultBranch})
	}
	again := post(map[string]any{"state": "failed", "name": "check-01", "ref": p.DefaultBranch})
	sets["check-01"] = []string{again.Get("id").String()}
	return map[string]*listWorld{
		"pipelines.statuses.list": {By: api, Path: p.Repo("/commits/" + sha + "/statuses"), Items: listItems, Sets: sets,
			Vals: map[string]string{"side_pipeline": side.Get("pipeline_id").String()}},
	}
}}

var _ = register(map[string]*listFixture{
	"pipelines.list": {World: pipelinesWorld, Pagination: "pipelines.list.1",
		Defaults: map[string]defaultRow{
			"order_by": {Rule: "pipelines.list.3", Other: "ref"},
			"sort":     {Rule: "pipelines.list.3", Other: "asc"},
		},
		Filters: map[string]filterRow{
			"ref":    {Rule: "pipelines.list.2", Query: "ref=side", Want: "side"},
			"sha":    {Rule: "pipelines.list.2", Query: "sha={side_sha}", Want: "side"},
			"scope":  {Rule: "pipelines.list.2", Query: "scope=running", Want: "running"},
			"status": {Rule: "pipelines.list.2", Query: "status=running", Want: "running"},
		},
		Others: map[string]string{
			"yaml_errors":    "a pipeline whose configuration has errors is refused, never saved, by POST /projects/:id/pipeline (the platform's save_on_errors: false), so no world holds one",
			"username":       "every pipeline a world can make in one project is made by the caller who may write there; reference/api TestPipelinesListGetLatest checks username",
			"source":         "POST /projects/:id/pipeline makes api pipelines only; the reference's TestPipelinesListGetLatest checks source=parent_pipeline and TestCommitStatuses external",
			"name":           "no provisioning call names a pipeline (workflow:name is outside the CI subset)",
			"updated_before": "a world's pipelines are made within one second, which the filter's datetime cannot split; reference/api TestPipelinesListGetLatest checks the filter",
			"updated_after":  "a world's pipelines are made within one second, which the filter's datetime cannot split; reference/api TestPipelinesListGetLatest checks the filter",
			"created_before": "a world's pipelines are made within one second, which the filter's datetime cannot split",
			"created_after":  "a world's pipelines are made within one second, which the filter's datetime cannot split",
		}},
	"pipelines.statuses.list": {World: commitStatusesWorld, Pagination: "pipelines.statuses.1",
		Defaults: map[string]defaultRow{
			"all":      {Rule: "pipelines.statuses.2"},
			"order_by": {Rule: "pipelines.statuses.2", Other: "pipeline_id"},
			"sort":     {Rule: "pipelines.statuses.2", Other: "desc"},
		},
		Filters: map[string]filterRow{
			"ref":         {Rule: "pipelines.statuses.2", Query: "ref=side", Want: "side"},
			"name":        {Rule: "pipelines.statuses.2", Query: "name=check-01", Want: "check-01"},
			"pipeline_id": {Rule: "pipelines.statuses.2", Query: "pipeline_id={side_pipeline}", Want: "side"},
		},
		Others: map[string]string{
			"stage": "every posted status sits in the external stage; reference/api TestCommitStatusJoinsCIPipeline lists a job's stage beside it",
		}},
})

// Merge request commits and participants: a merge request of twenty-one
// commits, which its author asked twenty members to review (twenty-one
// participants).
var mrNeighboursWorld = &worldBuilder{Name: "merge request commits and participants", Build: func(ctx SpecContext) map[string]*listWorld {
	p := NewRepoProject(ctx, api)
	p.Branch(ctx, "topic", p.DefaultBranch)
	for i := range listItems {
		p.Put(ctx, "topic", map[string]string{fmt.Sprintf("f%02d.txt", i): "x\n"})
	}
	var reviewers []int
	for range listItems - 1 {
		u := NewUser(ctx)
		AddProjectMember(ctx, p.Project, u, 30)
		reviewers = append(reviewers, u.ID)
	}
	mr := api.Post(ctx, fmt.Sprintf("/projects/%d/merge_requests", p.ID), Body(map[string]any{"source_branch": "topic",
		"target_branch": p.DefaultBranch, "title": "Many commits", "reviewer_ids": reviewers}))
	ExpectFixture(mr).To(HaveStatus(http.StatusCreated), "creating a fixture merge request")
	path := fmt.Sprintf("/projects/%d/merge_requests/%d", p.ID, mr.Get("iid").Int())
	return map[string]*listWorld{
		"merge_requests.commits":      {By: api, Path: path + "/commits", Items: listItems},
		"merge_requests.participants": {By: api, Path: path + "/participants", Items: listItems},
	}
}}

// Subgroups: a public group with twenty-one public subgroups, and a
// subgroup below one of them (not a direct child).
var subgroupsWorld = &worldBuilder{Name: "subgroups", Build: func(ctx SpecContext) map[string]*listWorld {
	g := NewGroup(ctx, api, GroupOpts{"visibility": "public"})
	var first *Group
	for range listItems {
		sg := NewGroup(ctx, api, GroupOpts{"visibility": "public", "parent_id": g.ID})
		if first == nil {
			first = sg
		}
	}
	NewGroup(ctx, api, GroupOpts{"visibility": "public", "parent_id": first.ID})
	return map[string]*listWorld{
		"groups.subgroups": {By: api, Path: fmt.Sprintf("/groups/%d/subgroups", g.ID), Items: listItems,
			Query: url.Values{"all_available": {"true"}}},
	}
}}

var _ = register(map[string]*listFixture{
	"merge_requests.commits":      {World: mrNeighboursWorld, Pagination: "merge_requests.commits.1"},
	"merge_requests.participants": {World: mrNeighboursWorld, Pagination: "merge_requests.participants.1"},
	"groups.subgroups": {World: subgroupsWorld, Pagination: "groups.subgroups.1",
		Others: map[string]string{
			"skip_groups":            "GET /groups has the same filter (groups.list rows); the subgroups reuse its finder",
			"all_available":          "the world asks for every available subgroup; GET /groups checks all_available (groups.list rows)",
			"search":                 "GET /groups checks search with the same finder (groups.list rows)",
			"order_by":               "GET /groups checks order_by with the same finder (groups.list rows)",
			"sort":                   "GET /groups checks sort with the same finder (groups.list rows)",
			"statistics":             "an administrator option GET /groups checks (groups.list rows)",
			"with_custom_attributes": "an administrator option GET /groups checks (groups.list rows)",
			"owned":                  "GET /groups checks owned with the same finder (groups.list rows)",
			"min_access_level":       "GET /groups checks min_access_level with the same finder (groups.list rows)",
		}},
})

// Repository tree: twenty files and a directory holding one more at the
// root of the default branch (with the README, twenty-two entries).
var treeWorld = &worldBuilder{Name: "repository tree", Build: func(ctx SpecContext) map[string]*listWorld {
	p := NewRepoProject(ctx, api)
	files := map[string]string{"dir/inner.txt": "inner\n"}
	for i := range listItems - 1 {
		files[fmt.Sprintf("f%02d.txt", i)] = fmt.Sprintf("%d\n", i)
	}
	p.Put(ctx, p.DefaultBranch, files)
	return map[string]*listWorld{
		"repository.tree": {By: api, Path: p.Repo("/tree"), Key: "path", Items: listItems + 1},
	}
}}

var _ = register(map[string]*listFixture{
	"repository.tree": {World: treeWorld, Pagination: "repository.tree.1",
		Defaults: map[string]defaultRow{"recursive": {Rule: "repository.tree.1"}},
		Others: map[string]string{
			"ref":        "names the commit whose tree is listed: the default branch without it; reference/api TestRepositoryTree reads another branch",
			"path":       "selects another directory's entries, none of the root's; reference/api TestRepositoryTree reads one",
			"pagination": "keyset pages hold the same entries as offset pages; reference/api TestRepositoryTree follows Link rel=next through them",
			"page_token": "keyset pagination's cursor; reference/api TestRepositoryTree follows it",
		}},
})

var _ = register(map[string]*listFixture{
	"repository.compare": {Others: map[string]string{
		"straight": "compares from itself instead of the merge base; reference/api TestRepositoryCompare checks both on diverged branches",
		"unidiff":  "the diff format the merge request diffs share (merge_requests.diffs rows)",
	}},
})
