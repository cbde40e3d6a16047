package suites

import (
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
})
