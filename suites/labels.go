package suites

import (
	"fmt"
	"net/http"
	"net/url"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// Labels: the platform's provisioning for what merge requests carry.

func labelsPath(p *Project) string { return fmt.Sprintf("/projects/%d/labels", p.ID) }

var _ = Describe("POST /projects/:id/labels", Label("area:labels", "endpoint:labels.create"), func() {
	It("creates a label the list then shows, by name", Label("rule:labels.create.1"), func(ctx SpecContext) {
		p := NewProject(ctx, api)
		r := api.Post(ctx, labelsPath(p), Body(map[string]any{"name": "zeta", "color": "#FF0000", "description": "Last", "priority": 2}))
		Expect(r).To(HaveStatus(http.StatusCreated))
		Expect(r).To(MatchSchema("label", false))
		Expect(r.Get("name").String()).To(Equal("zeta"))
		Expect(r.Get("color").String()).To(Equal("#FF0000"))
		Expect(r.Get("description").String()).To(Equal("Last"))
		Expect(r.Get("priority").Int()).To(BeEquivalentTo(2))
		Expect(r.Get("text_color").String()).NotTo(BeEmpty())
		for _, f := range []string{"subscribed", "is_project_label", "description_html"} {
			Expect(r.Get(f).Exists()).To(BeTrue(), f)
		}
		// The counts come with the list when asked with_counts=true, as the
		// platform's Entities::Label exposes them (labels.create.1's
		// platform.does); an answer that carries them elsewhere is not refused.
		Expect(api.Post(ctx, labelsPath(p), Body(map[string]any{"name": "alpha", "color": "#0f0"}))).To(HaveStatus(http.StatusCreated))
		list := api.Get(ctx, labelsPath(p))
		Expect(list).To(HaveStatus(http.StatusOK))
		Expect(list.Strings("name")).To(Equal([]string{"alpha", "zeta"}))
		counted := api.Get(ctx, labelsPath(p), Q("with_counts", "true"))
		Expect(counted).To(HaveStatus(http.StatusOK))
		Expect(counted.Strings("name")).To(Equal([]string{"alpha", "zeta"}))
		for _, f := range []string{"open_issues_count", "closed_issues_count", "open_merge_requests_count"} {
			Expect(counted.Get("0."+f).Int()).To(BeEquivalentTo(0), f)
			Expect(counted.Get("0."+f).Exists()).To(BeTrue(), f)
		}
	})

	It("refuses a name the project has, a missing name or color and an invalid color", Label("rule:labels.create.2"), func(ctx SpecContext) {
		p := NewProject(ctx, api)
		Expect(api.Post(ctx, labelsPath(p), Body(map[string]any{"name": "bug", "color": "#ff0000"}))).To(HaveStatus(http.StatusCreated))
		Expect(api.Post(ctx, labelsPath(p), Body(map[string]any{"name": "bug", "color": "#00ff00"}))).To(HaveStatus(http.StatusConflict))
		for attr, r := range map[string]*Response{
			"name":  api.Post(ctx, labelsPath(p), Body(map[string]any{"color": "#00ff00"})),
			"color": api.Post(ctx, labelsPath(p), Body(map[string]any{"name": "x"})),
		} {
			// The platform answers Grape's {"error":"name is missing"}
			// (labels.create.2's platform.does), which profile platform accepts.
			SpecOrPlatform("labels.create.2", func() {
				Expect(r).To(BeMissingAttribute(attr))
			}, func() {
				Expect(r).To(BeMissingAttributeAsPlatform(attr))
			})
		}
		Expect(api.Post(ctx, labelsPath(p), Body(map[string]any{"name": "x", "color": "reddish"}))).To(BeValidationError("color"))
		Expect(api.Get(ctx, labelsPath(p)).Strings("name")).To(Equal([]string{"bug"}))
	})

	It("takes the Reporter role", Label("rule:labels.create.3"), func(ctx SpecContext) {
		p := NewProject(ctx, api)
		g, r := NewUser(ctx), NewUser(ctx)
		AddProjectMember(ctx, p, g, GuestLevel)
		AddProjectMember(ctx, p, r, ReporterLevel)
		Expect(g.Post(ctx, labelsPath(p), Body(map[string]any{"name": "g", "color": "#000"}))).To(HaveStatus(http.StatusForbidden))
		Expect(r.Post(ctx, labelsPath(p), Body(map[string]any{"name": "r", "color": "#000"}))).To(HaveStatus(http.StatusCreated))
		Expect(api.Get(ctx, labelsPath(p)).Strings("name")).To(Equal([]string{"r"}))
	})
})

var _ = Describe("GET /projects/:id/labels/:label_id", Label("area:labels", "endpoint:labels.get"), func() {
	It("reads a label by id or name", Label("rule:labels.get.1"), func(ctx SpecContext) {
		p := NewProject(ctx, api)
		id := api.Post(ctx, labelsPath(p), Body(map[string]any{"name": "needs review", "color": "#123456"})).Get("id").Int()
		byID := api.Get(ctx, fmt.Sprintf("%s/%d", labelsPath(p), id))
		Expect(byID).To(HaveStatus(http.StatusOK))
		Expect(byID.Get("name").String()).To(Equal("needs review"))
		byName := api.Get(ctx, labelsPath(p)+"/"+url.PathEscape("needs review"))
		Expect(byName).To(HaveStatus(http.StatusOK))
		Expect(byName.Get("id").Int()).To(Equal(id))
		Expect(api.Get(ctx, labelsPath(p)+"/nope")).To(HaveStatus(http.StatusNotFound))
	})
})
