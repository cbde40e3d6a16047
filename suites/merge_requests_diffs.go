package suites

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// Diffs, changes, versions and pipelines of merge requests, from git.

// manyFiles makes branch with n new files in one commit (through the commits
// API) and a merge request from it.
func (p *RepoProject) manyFiles(ctx context.Context, branch string, n int) *MergeRequest {
	GinkgoHelper()
	p.Branch(ctx, branch, p.DefaultBranch)
	actions := make([]map[string]any, 0, n)
	for i := 0; i < n; i++ {
		actions = append(actions, create(fmt.Sprintf("many/f%04d.txt", i), fmt.Sprintf("%d\n", i)))
	}
	p.Commit(ctx, p.Owner, branch, fmt.Sprintf("%d files", n), actions...)
	return p.OpenMR(ctx, api, branch, fmt.Sprintf("%d files", n))
}

// overflowing is the number of files past the platform's default limit of 1,000.
const overflowing = 1001

// skipUnlessOverflow skips on a target whose diff limits lie above the
// fixture: the spec leaves the numbers open. The reference's limits are the
// platform's (1,000 files), so against it the fixture must overflow: a
// reference that stopped cutting diffs fails rather than skips.
func skipUnlessOverflow(ctx context.Context, p *RepoProject, mr *MergeRequest) {
	GinkgoHelper()
	v := api.Get(ctx, p.MR(mr.IID, "/versions"))
	if target.InProcess {
		Expect(v.Get("0.state").String()).To(Equal("overflow"), "the reference cuts a diff past 1,000 files: %s", v)
	}
	if v.Get("0.state").String() != "overflow" {
		Skip(fmt.Sprintf("the target's diff limits are above %d files (version state %q)", overflowing, v.Get("0.state").String()))
	}
}

var _ = Describe("GET /projects/:id/merge_requests/:merge_request_iid/diffs", Label("area:merge_requests", "endpoint:merge_requests.diffs"), func() {
	It("answers the latest version's changed files as git diffs them", Label("rule:merge_requests.diffs.1"), func(ctx SpecContext) {
		p := NewRepoProject(ctx, api)
		p.Put(ctx, p.DefaultBranch, map[string]string{"gone.txt": "bye\n", "old.txt": "same content\nfor the rename\n", "edit.txt": "1\n2\n"})
		p.Branch(ctx, "topic", p.DefaultBranch)
		p.Commit(ctx, p.Owner, "topic", "many kinds",
			map[string]any{"action": "delete", "file_path": "gone.txt"},
			map[string]any{"action": "move", "file_path": "new.txt", "previous_path": "old.txt"},
			update("edit.txt", "1\ntwo\n"), create("added.txt", "hi\n"))
		mr := p.OpenMR(ctx, api, "topic", "Kinds")
		r := api.Get(ctx, p.MR(mr.IID, "/diffs"))
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(r).To(MatchSchema("merge_request_diff", true))
		byPath := map[string]int{}
		for i, e := range r.JSON().Array() {
			byPath[e.Get("new_path").String()] = i
		}
		Expect(byPath).To(HaveLen(4))
		added := r.Get(fmt.Sprintf("%d", byPath["added.txt"]))
		Expect(added.Get("new_file").Bool()).To(BeTrue())
		Expect(added.Get("a_mode").String()).To(Equal("0"))
		Expect(added.Get("b_mode").String()).To(Equal("100644"))
		Expect(added.Get("diff").String()).To(ContainSubstring("+hi"))
		gone := r.Get(fmt.Sprintf("%d", byPath["gone.txt"]))
		Expect(gone.Get("deleted_file").Bool()).To(BeTrue())
		moved := r.Get(fmt.Sprintf("%d", byPath["new.txt"]))
		Expect(moved.Get("renamed_file").Bool()).To(BeTrue())
		Expect(moved.Get("old_path").String()).To(Equal("old.txt"))
		edit := r.Get(fmt.Sprintf("%d", byPath["edit.txt"]))
		Expect(edit.Get("diff").String()).To(ContainSubstring("-2\n+two"))
		Expect(edit.Get("generated_file").Bool()).To(BeFalse())
	})

	It("paginates and adds the header lines with unidiff", Label("rule:merge_requests.diffs.2"), func(ctx SpecContext) {
		p := NewRepoProject(ctx, api)
		p.Feature(ctx, "topic", "a.txt", "a\n", "b.txt", "b\n", "c.txt", "c\n")
		mr := p.OpenMR(ctx, api, "topic", "Three")
		first := api.Get(ctx, p.MR(mr.IID, "/diffs"), Q("per_page", 2))
		Expect(first.JSON().Array()).To(HaveLen(2))
		Expect(first).To(HaveHeader("X-Total", "3"))
		Expect(first).To(HaveHeader("X-Next-Page", "2"))
		second := api.Get(ctx, p.MR(mr.IID, "/diffs"), Q("per_page", 2), Q("page", 2))
		Expect(append(first.Strings("new_path"), second.Strings("new_path")...)).To(ConsistOf("a.txt", "b.txt", "c.txt"))
		Expect(first.Get("0.diff").String()).NotTo(ContainSubstring("+++ "))
		uni := api.Get(ctx, p.MR(mr.IID, "/diffs"), Q("unidiff", true))
		Expect(uni.Get("0.diff").String()).To(HavePrefix("--- /dev/null\n+++ b/"))
	})

	It("marks generated files", Label("rule:merge_requests.diffs.3"), func(ctx SpecContext) {
		p := NewRepoProject(ctx, api)
		p.Feature(ctx, "topic", ".gitattributes", "*.gen.go gitlab-generated\ngo.sum -gitlab-generated\n",
			"api.gen.go", "package api\n", "package-lock.json", "{}\n", "go.sum", "x\n", "main.go", "package main\n")
		mr := p.OpenMR(ctx, api, "topic", "Generated")
		r := api.Get(ctx, p.MR(mr.IID, "/diffs"))
		gen := map[string]bool{}
		for _, e := range r.JSON().Array() {
			gen[e.Get("new_path").String()] = e.Get("generated_file").Bool()
		}
		Expect(gen).To(Equal(map[string]bool{".gitattributes": false, "api.gen.go": true, "package-lock.json": true,
			"go.sum": false, "main.go": false}))
	})

	It("cuts a diff past the limits", Label("rule:merge_requests.limits.1"), func(ctx SpecContext) {
		p := NewRepoProject(ctx, api)
		mr := p.manyFiles(ctx, "many", overflowing)
		skipUnlessOverflow(ctx, p, mr)
		v := api.Get(ctx, p.MR(mr.IID, "/versions"))
		Expect(v.Get("0.real_size").String()).To(Equal("1000+"))
		r := api.Get(ctx, p.MR(mr.IID, "/diffs"), Q("per_page", 100), Q("page", 11))
		Expect(r).To(HaveHeader("X-Total", "1000"))
		Expect(r.JSON().Array()).To(BeEmpty())
	})
})

var _ = Describe("GET /projects/:id/merge_requests/:merge_request_iid/changes", Label("area:merge_requests", "endpoint:merge_requests.changes"), func() {
	It("answers the merge request with its changes", Label("rule:merge_requests.changes.1"), func(ctx SpecContext) {
		p := NewRepoProject(ctx, api)
		p.Feature(ctx, "topic", "a.txt", "a\n", "b.txt", "b\n")
		mr := p.OpenMR(ctx, api, "topic", "Changes")
		r := api.Get(ctx, p.MR(mr.IID, "/changes"))
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(r).To(MatchSchema("merge_request_changes", false))
		Expect(r.Get("iid").Int()).To(BeEquivalentTo(mr.IID))
		Expect(r.Get("overflow").Bool()).To(BeFalse())
		var paths []string
		for _, c := range r.Get("changes").Array() {
			paths = append(paths, c.Get("new_path").String())
		}
		Expect(paths).To(ConsistOf("a.txt", "b.txt"))
		uni := api.Get(ctx, p.MR(mr.IID, "/changes"), Q("unidiff", true))
		Expect(uni.Get("changes.0.diff").String()).To(HavePrefix("--- "))
	})

	It("limits the changes with overflow, unless access_raw_diffs", Label("rule:merge_requests.changes.2"), func(ctx SpecContext) {
		p := NewRepoProject(ctx, api)
		mr := p.manyFiles(ctx, "many", overflowing)
		skipUnlessOverflow(ctx, p, mr)
		r := api.Get(ctx, p.MR(mr.IID, "/changes"))
		Expect(r.Get("overflow").Bool()).To(BeTrue())
		Expect(r.Get("changes").Array()).To(HaveLen(1000))
		raw := api.Get(ctx, p.MR(mr.IID, "/changes"), Q("access_raw_diffs", true))
		Expect(raw.Get("overflow").Bool()).To(BeFalse())
		Expect(raw.Get("changes").Array()).To(HaveLen(overflowing))
	})
})

var _ = Describe("GET /projects/:id/merge_requests/:merge_request_iid/versions", Label("area:merge_requests", "endpoint:merge_requests.versions"), func() {
	It("lists the versions newest first", Label("rule:merge_requests.versions.1"), func(ctx SpecContext) {
		p := NewRepoProject(ctx, api)
		mr := p.FeatureMR(ctx, "topic")
		p.Put(ctx, "topic", map[string]string{"second.txt": "2\n"})
		r := api.Get(ctx, p.MR(mr.IID, "/versions"))
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(r).To(MatchSchema("merge_request_version", true))
		vs := r.JSON().Array()
		Expect(vs).To(HaveLen(2))
		Expect(vs[0].Get("id").Int()).To(BeNumerically(">", vs[1].Get("id").Int()))
		for _, v := range vs {
			Expect(v.Get("merge_request_id").Int()).To(BeEquivalentTo(mr.ID))
			Expect(v.Get("real_size").Type.String()).To(Equal("String"))
			Expect(v.Get("state").String()).To(Equal("collected"))
			Expect(v.Get("patch_id_sha").Exists()).To(BeTrue())
		}
		Expect(vs[0].Get("real_size").String()).To(Equal("2"))
		Expect(vs[1].Get("real_size").String()).To(Equal("1"))
	})

	It("takes base, head and start from git", Label("rule:merge_requests.versions.2"), func(ctx SpecContext) {
		p := NewRepoProject(ctx, api)
		base := p.head(ctx, p.DefaultBranch)
		head := p.Feature(ctx, "topic", "t.txt", "t\n")
		start := p.Put(ctx, p.DefaultBranch, map[string]string{"m.txt": "m\n"})
		mr := p.OpenMR(ctx, api, "topic", "Refs")
		v := api.Get(ctx, p.MR(mr.IID, "/versions")).Get("0")
		Expect(v.Get("base_commit_sha").String()).To(Equal(base))
		Expect(v.Get("head_commit_sha").String()).To(Equal(head))
		Expect(v.Get("start_commit_sha").String()).To(Equal(start))
	})

	It("adds a version for each commit to the source; older ones keep their SHAs", Label("rule:merge_requests.versions.3"), func(ctx SpecContext) {
		p := NewRepoProject(ctx, api)
		mr := p.FeatureMR(ctx, "topic")
		first := api.Get(ctx, p.MR(mr.IID, "/versions")).Get("0")
		// One commit through the files API, one through the commits API.
		viaFiles := api.Post(ctx, p.File("via-files.txt", ""), writeBody("topic", "via files", "f\n"))
		Expect(viaFiles).To(HaveStatus(http.StatusCreated))
		viaCommits := p.Commit(ctx, api, "topic", "via commits", create("via-commits.txt", "c\n")).Get("id").String()
		vs := api.Get(ctx, p.MR(mr.IID, "/versions")).JSON().Array()
		Expect(vs).To(HaveLen(3))
		Expect(vs[0].Get("head_commit_sha").String()).To(Equal(viaCommits))
		Expect(vs[2].Get("id").Int()).To(Equal(first.Get("id").Int()))
		Expect(vs[2].Get("head_commit_sha").String()).To(Equal(first.Get("head_commit_sha").String()))
		Expect(vs[2].Get("base_commit_sha").String()).To(Equal(first.Get("base_commit_sha").String()))
		Expect(p.getMR(ctx, api, mr.IID).Get("sha").String()).To(Equal(viaCommits))
		old := api.Get(ctx, p.MR(mr.IID, fmt.Sprintf("/versions/%d", first.Get("id").Int())))
		Expect(old.Get("diffs").Array()).To(HaveLen(1), "an older version keeps its own diff")
	})

	It("adds no version for a commit to the target", Label("rule:merge_requests.versions.4"), func(ctx SpecContext) {
		p := NewRepoProject(ctx, api)
		mr := p.FeatureMR(ctx, "topic")
		before := api.Get(ctx, p.MR(mr.IID, "/versions")).Get("0")
		p.Put(ctx, p.DefaultBranch, map[string]string{"target-only.txt": "t\n"})
		vs := api.Get(ctx, p.MR(mr.IID, "/versions")).JSON().Array()
		Expect(vs).To(HaveLen(1))
		Expect(vs[0].Get("start_commit_sha").String()).To(Equal(before.Get("start_commit_sha").String()))
	})
})

var _ = Describe("GET /projects/:id/merge_requests/:merge_request_iid/versions/:version_id", Label("area:merge_requests", "endpoint:merge_requests.version"), func() {
	It("adds the version's commits and diffs", Label("rule:merge_requests.version.1"), func(ctx SpecContext) {
		p := NewRepoProject(ctx, api)
		c1 := p.Feature(ctx, "topic", "one.txt", "1\n")
		c2 := p.Put(ctx, "topic", map[string]string{"two.txt": "2\n"})
		mr := p.OpenMR(ctx, api, "topic", "Two commits")
		id := api.Get(ctx, p.MR(mr.IID, "/versions")).Get("0.id").Int()
		r := api.Get(ctx, p.MR(mr.IID, fmt.Sprintf("/versions/%d", id)))
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(r).To(MatchSchema("merge_request_version_detail", false))
		Expect(r.Get("commits.#.id").Raw).To(MatchJSON(fmt.Sprintf(`[%q,%q]`, c2, c1)))
		Expect(r.Get("commits.0.parent_ids").Raw).To(MatchJSON(fmt.Sprintf(`[%q]`, c1)))
		for _, f := range []string{"short_id", "created_at", "title", "message", "author_name", "author_email", "authored_date",
			"committer_name", "committer_email", "committed_date", "trailers", "extended_trailers", "web_url"} {
			Expect(r.Get("commits.0."+f).Exists()).To(BeTrue(), f)
		}
		var paths []string
		for _, d := range r.Get("diffs").Array() {
			paths = append(paths, d.Get("new_path").String())
		}
		Expect(paths).To(ConsistOf("one.txt", "two.txt"))
	})

	It("answers 404 for another merge request's version and adds headers with unidiff", Label("rule:merge_requests.version.2"), func(ctx SpecContext) {
		p := NewRepoProject(ctx, api)
		a := p.FeatureMR(ctx, "a")
		b := p.FeatureMR(ctx, "b")
		bv := api.Get(ctx, p.MR(b.IID, "/versions")).Get("0.id").Int()
		Expect(api.Get(ctx, p.MR(a.IID, fmt.Sprintf("/versions/%d", bv)))).To(HaveStatus(http.StatusNotFound))
		Expect(api.Get(ctx, p.MR(a.IID, "/versions/999999999"))).To(HaveStatus(http.StatusNotFound))
		av := api.Get(ctx, p.MR(a.IID, "/versions")).Get("0.id").Int()
		plain := api.Get(ctx, p.MR(a.IID, fmt.Sprintf("/versions/%d", av)))
		Expect(plain.Get("diffs.0.diff").String()).NotTo(HavePrefix("--- "))
		uni := api.Get(ctx, p.MR(a.IID, fmt.Sprintf("/versions/%d", av)), Q("unidiff", true))
		Expect(uni.Get("diffs.0.diff").String()).To(HavePrefix("--- /dev/null"))
	})

	It("says collected, or without_files when nothing changed", Label("rule:merge_requests.version.3"), func(ctx SpecContext) {
		p := NewRepoProject(ctx, api)
		mr := p.FeatureMR(ctx, "topic")
		Expect(api.Get(ctx, p.MR(mr.IID, "/versions")).Get("0.state").String()).To(Equal("collected"))
		p.Branch(ctx, "empty", p.DefaultBranch)
		empty := p.OpenMR(ctx, api, "empty", "Nothing yet")
		v := api.Get(ctx, p.MR(empty.IID, "/versions")).Get("0")
		Expect(v.Get("state").String()).To(Equal("without_files"))
		Expect(v.Get("real_size").String()).To(Equal("0"))
		Expect(p.getMR(ctx, api, empty.IID).Get("changes_count").String()).To(Equal("0"))
	})
})

var _ = Describe("GET /projects/:id/merge_requests/:merge_request_iid/pipelines", Label("area:merge_requests", "endpoint:merge_requests.pipelines"), func() {
	It("lists the source branch's pipelines at the merge request's commits", Label("rule:merge_requests.pipelines.1"), func(ctx SpecContext) {
		p := NewRepoProject(ctx, api)
		p.Put(ctx, p.DefaultBranch, map[string]string{".gitlab-ci.yml": "test:\n  script: echo ok\n"})
		p.Feature(ctx, "topic", "t.txt", "t\n")
		mr := p.OpenMR(ctx, api, "topic", "CI")
		run := func(ref string) int64 {
			r := api.Post(ctx, fmt.Sprintf("/projects/%d/pipeline", p.ID), Body(map[string]any{"ref": ref}))
			Expect(r).To(HaveStatus(http.StatusCreated))
			return r.Get("id").Int()
		}
		first := run("topic")
		run(p.DefaultBranch)
		p.Put(ctx, "topic", map[string]string{"u.txt": "u\n"})
		second := run("topic")
		r := api.Get(ctx, p.MR(mr.IID, "/pipelines"))
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(r).To(MatchSchema("pipeline_basic", true))
		Expect(r.Get("#.id").Raw).To(MatchJSON(fmt.Sprintf("[%d,%d]", second, first)))
		Expect(r.Get("0.ref").String()).To(Equal("topic"))
		page := api.Get(ctx, p.MR(mr.IID, "/pipelines"), Q("per_page", 1))
		Expect(page).To(HaveHeader("X-Total", "2"))
		Expect(strings.Join(linkRels(page), ",")).To(ContainSubstring("next"))
	})
})
