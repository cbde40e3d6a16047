package suites

import (
	"fmt"
	"net/http"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("GET /projects", Label("area:projects", "endpoint:projects.list"), func() {
	It("filters by topic", Label("rule:projects.topic.1"), func(ctx SpecContext) {
		name, other := Unique("topic"), Unique("topic")
		tagged := NewProject(ctx, api, ProjectOpts{"topics": []string{name}})
		cleanupTopicNamed(ctx, name)
		both := NewProject(ctx, api, ProjectOpts{"visibility": "public", "topics": []string{other, name}})
		cleanupTopicNamed(ctx, other)
		untagged := NewProject(ctx, api, ProjectOpts{"topics": []string{other}})
		NewProject(ctx, api)

		r := api.Get(ctx, "/projects", Q("topic", name))
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(r.IDs()).To(ConsistOf(tagged.ID, both.ID))
		Expect(api.Get(ctx, "/projects", Q("topic", other)).IDs()).To(ConsistOf(both.ID, untagged.ID))
		Expect(api.Get(ctx, "/projects", Q("topic", Unique("none"))).IDs()).To(BeEmpty())
	})

	It("pages by keyset ordered by id, both ways", Label("rule:projects.keyset.1"), func(ctx SpecContext) {
		prefix := Unique("ksp")
		var ids []int
		for i := range 3 {
			ids = append(ids, NewProject(ctx, api, ProjectOpts{"name": fmt.Sprintf("%s-%d", prefix, i)}).ID)
		}
		for _, dir := range []string{"asc", "desc"} {
			want := sortedAsc(ids)
			if dir == "desc" {
				want = sortedDesc(ids)
			}
			r := api.Get(ctx, "/projects", Q("pagination", "keyset"), Q("order_by", "id"), Q("sort", dir), Q("per_page", 2), Q("search", prefix))
			var seen []int
			for pages := 0; ; pages++ {
				Expect(pages).To(BeNumerically("<", 3), "keyset pagination must end")
				Expect(r).To(HaveStatus(http.StatusOK))
				seen = append(seen, r.IDs()...)
				next := linkRel(r, "next")
				if next == "" {
					Expect(r.Header.Get("Link")).To(BeEmpty(), "at the end there is no Link header")
					break
				}
				Expect(linkRels(r)).To(Equal([]string{"next"}), "keyset pages link only to the next page")
				r = api.Get(ctx, "!"+stripBase(next))
			}
			Expect(seen).To(Equal(want), "sort=%s: every project once, in id order", dir)
		}
	})

	It("answers an anonymous caller the public projects in the basic form", Label("rule:projects.anonymous.1", "endpoint:projects.get"), func(ctx SpecContext) {
		prefix := Unique("anonp")
		owner := NewUser(ctx)
		public := NewProject(ctx, owner.Client, ProjectOpts{"name": prefix + "-pub", "visibility": "public", "topics": []string{prefix}})
		cleanupTopicNamed(ctx, prefix)
		hidden := NewProject(ctx, owner.Client, ProjectOpts{"name": prefix + "-priv"})
		anon := api.Anonymous()
		full := owner.Client.Get(ctx, fmt.Sprintf("/projects/%d", public.ID))
		Expect(full).To(HaveStatus(http.StatusOK))

		one := anon.Get(ctx, fmt.Sprintf("/projects/%d", public.ID))
		Expect(one).To(HaveStatus(http.StatusOK))
		Expect(one).To(MatchSchema("project_basic", false))
		list := anon.Get(ctx, "/projects", Q("search", prefix))
		Expect(list).To(HaveStatus(http.StatusOK))
		Expect(list.IDs()).To(Equal([]int{public.ID}), "only the public project")
		Expect(list).To(MatchSchema("project_basic", true))
		for _, got := range []*Response{one, list} {
			at := ""
			if got == list {
				at = "0."
			}
			for _, f := range []string{"id", "name", "path", "path_with_namespace", "name_with_namespace", "description", "created_at",
				"web_url", "http_url_to_repo", "ssh_url_to_repo", "topics", "star_count", "namespace.id", "namespace.full_path"} {
				Expect(got.Get(at+f).Raw).To(Equal(full.Get(f).Raw), "%s as the owner reads it", f)
			}
		}
		Expect(anon.Get(ctx, fmt.Sprintf("/projects/%d", hidden.ID))).To(HaveStatus(http.StatusNotFound))
	})
})
