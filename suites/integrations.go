package suites

import (
	"context"
	"fmt"
	"net/http"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// Settings that set up each kind with its required parameters only. The
// addresses are placeholders: setting up an integration sends nothing.
var (
	pipelinesEmailSettings = map[string]any{"recipients": "dev@example.com,ops@example.com"}
	issueTrackerSettings   = map[string]any{"issues_url": "https://tracker.example.com/issues/:id",
		"project_url": "https://tracker.example.com/project"}
	slackSettings = map[string]any{"webhook": "https://hooks.example.com/services/T0/B0/hook"}
	droneSettings = map[string]any{"token": "drone-ci-token", "drone_url": "https://drone.example.com"}
)

// integrationEventFlags are the event switches every integration carries
// (Resources, Integration; Events).
var integrationEventFlags = []string{"commit_events", "push_events", "issues_events", "alert_events",
	"confidential_issues_events", "merge_requests_events", "tag_push_events", "deployment_events", "note_events",
	"confidential_note_events", "pipeline_events", "wiki_page_events", "job_events"}

// integrationWorld is a public group with a member at every role, and a public
// and a private project in it.
type integrationWorld struct {
	*RoleWorld
	Public, Private *Project
}

func newIntegrationWorld(ctx context.Context) *integrationWorld {
	GinkgoHelper()
	w := &integrationWorld{RoleWorld: NewRoleWorld(ctx, "public")}
	w.Public = NewProject(ctx, w.Owner.Client, ProjectOpts{"namespace_id": w.Group.ID, "visibility": "public"})
	w.Private = NewProject(ctx, w.Owner.Client, ProjectOpts{"namespace_id": w.Group.ID, "visibility": "private"})
	return w
}

func (w *integrationWorld) maintainer() *Client { return w.Members[MaintainerLevel].Client }

func integrationsPath(p *Project) string { return fmt.Sprintf("/projects/%d/integrations", p.ID) }

func integrationPath(p *Project, slug string) string { return integrationsPath(p) + "/" + slug }

// with returns base with extra settings added; JSON bodies marshal maps in key
// order, so requests stay the same from run to run.
func with(base map[string]any, extra map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range base {
		out[k] = v
	}
	for k, v := range extra {
		out[k] = v
	}
	return out
}

// setIntegration sets up slug on p as by and expects success.
func setIntegration(ctx context.Context, by *Client, p *Project, slug string, settings map[string]any) *Response {
	GinkgoHelper()
	r := by.Put(ctx, integrationPath(p, slug), Body(settings))
	Expect(r).To(HaveStatus(http.StatusOK), "setting up %s", slug)
	return r
}

// expectNotSetUp checks that slug was never set up on p.
func expectNotSetUp(ctx context.Context, p *Project, slug string) {
	GinkgoHelper()
	Expect(api.Get(ctx, integrationPath(p, slug))).To(HaveStatus(http.StatusNotFound), "%s is not set up", slug)
}

func activeSlugs(ctx context.Context, by *Client, p *Project) []string {
	GinkgoHelper()
	r := by.Get(ctx, integrationsPath(p))
	Expect(r).To(HaveStatus(http.StatusOK))
	slugs := []string{}
	for _, e := range r.JSON().Array() {
		slugs = append(slugs, e.Get("slug").String())
	}
	return slugs
}

// checkIntegrationRoles runs call at every role level of Authentication 7 and 8:
// prepare readies the project before each call, done checks a success.
func checkIntegrationRoles(ctx context.Context, w *integrationWorld, ok int,
	call func(c *Client, p *Project) *Response, prepare func(p *Project), after func(p *Project, succeeded bool)) {
	GinkgoHelper()
	try := func(c *Client, p *Project, want int, who string) {
		GinkgoHelper()
		prepare(p)
		Expect(call(c, p)).To(HaveStatus(want), who)
		after(p, want == ok)
	}
	try(api.Anonymous(), w.Public, http.StatusUnauthorized, "anonymous")
	try(w.Outsider.Client, w.Private, http.StatusNotFound, "a non-member of a private project")
	try(w.Outsider.Client, w.Public, http.StatusForbidden, "a non-member of a public project")
	for _, lv := range []int{GuestLevel, ReporterLevel, DeveloperLevel} {
		try(w.Members[lv].Client, w.Public, http.StatusForbidden, fmt.Sprintf("access level %d", lv))
		try(w.Members[lv].Client, w.Private, http.StatusForbidden, fmt.Sprintf("access level %d (private)", lv))
	}
	for _, lv := range []int{MaintainerLevel, OwnerLevel} {
		try(w.Members[lv].Client, w.Public, ok, fmt.Sprintf("access level %d", lv))
		try(w.Members[lv].Client, w.Private, ok, fmt.Sprintf("access level %d (private)", lv))
	}
	try(api, w.Private, ok, "an administrator")
}

var _ = Describe("GET /projects/:id/integrations", Label("area:integrations", "endpoint:integrations.list"), func() {
	It("answers only to Maintainer, Owner and administrators", Label("rule:integrations.access.1"), func(ctx SpecContext) {
		w := newIntegrationWorld(ctx)
		checkIntegrationRoles(ctx, w, http.StatusOK,
			func(c *Client, p *Project) *Response { return c.Get(ctx, integrationsPath(p)) },
			func(*Project) {}, func(*Project, bool) {})
	})

	It("lists exactly the active integrations with their fields", Label("rule:integrations.list.1"), func(ctx SpecContext) {
		w := newIntegrationWorld(ctx)
		set1 := setIntegration(ctx, w.maintainer(), w.Private, "pipelines-email", pipelinesEmailSettings)
		set2 := setIntegration(ctx, w.maintainer(), w.Private, "custom-issue-tracker", issueTrackerSettings)
		r := w.maintainer().Get(ctx, integrationsPath(w.Private))
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(r.IDs()).To(ConsistOf(int(set1.Get("id").Int()), int(set2.Get("id").Int())))
		Expect(activeSlugs(ctx, w.maintainer(), w.Private)).To(ConsistOf("pipelines-email", "custom-issue-tracker"))
		for _, e := range r.JSON().Array() {
			Expect(e.Get("active").Bool()).To(BeTrue())
			Expect(e.Get("inherited").IsBool()).To(BeTrue())
			for _, k := range append([]string{"title", "created_at", "updated_at", "comment_on_event_enabled"}, integrationEventFlags...) {
				Expect(e.Get(k).Exists()).To(BeTrue(), "field %s", k)
			}
		}
	})

	It("leaves out integrations never set up or disabled", Label("rule:integrations.list.2"), func(ctx SpecContext) {
		w := newIntegrationWorld(ctx)
		Expect(activeSlugs(ctx, w.maintainer(), w.Private)).To(BeEmpty())
		setIntegration(ctx, w.maintainer(), w.Private, "slack", slackSettings)
		setIntegration(ctx, w.maintainer(), w.Private, "pipelines-email", pipelinesEmailSettings)
		Expect(w.maintainer().Delete(ctx, integrationPath(w.Private, "slack"))).To(HaveStatus(http.StatusNoContent))
		Expect(activeSlugs(ctx, w.maintainer(), w.Private)).To(Equal([]string{"pipelines-email"}))
		Expect(w.maintainer().Delete(ctx, integrationPath(w.Private, "pipelines-email"))).To(HaveStatus(http.StatusNoContent))
		Expect(activeSlugs(ctx, w.maintainer(), w.Private)).To(BeEmpty())
	})

	It("paginates with page and per_page", Label("rule:integrations.list.3"), func(ctx SpecContext) {
		w := newIntegrationWorld(ctx)
		setIntegration(ctx, w.maintainer(), w.Private, "slack", slackSettings)
		setIntegration(ctx, w.maintainer(), w.Private, "pipelines-email", pipelinesEmailSettings)
		all := activeSlugs(ctx, w.maintainer(), w.Private)
		Expect(all).To(HaveLen(2))
		first := w.maintainer().Get(ctx, integrationsPath(w.Private), Q("per_page", 1))
		second := w.maintainer().Get(ctx, integrationsPath(w.Private), Q("per_page", 1), Q("page", 2))
		defaults := w.maintainer().Get(ctx, integrationsPath(w.Private))
		// The platform does not paginate this list (integrations.list.3's
		// platform.does): profile platform accepts the whole list.
		SpecOrPlatform("integrations.list.3", func() {
			Expect(first).To(HaveStatus(http.StatusOK))
			Expect(first.JSON().Array()).To(HaveLen(1))
			Expect(first).To(HaveHeader("X-Page", "1"))
			Expect(first).To(HaveHeader("X-Per-Page", "1"))
			Expect(first).To(HaveHeader("X-Next-Page", "2"))
			Expect(first).To(HaveHeader("X-Total", "2"))
			Expect(first).To(HaveHeader("X-Total-Pages", "2"))
			Expect(linkRels(first)).To(ContainElements("next", "first", "last"))
			Expect(second).To(HaveHeader("X-Prev-Page", "1"))
			Expect(append(first.Strings("slug"), second.Strings("slug")...)).To(ConsistOf(all))
			Expect(defaults).To(HaveHeader("X-Per-Page", "20"))
		}, func() {
			for _, r := range []*Response{first, second, defaults} {
				expectUnpaginated(r, r.Strings("slug"), all)
			}
		})
	})
})

var _ = Describe("PUT /projects/:id/integrations/:slug", Label("area:integrations", "endpoint:integrations.set"), func() {
	It("answers only to Maintainer, Owner and administrators", Label("rule:integrations.access.2"), func(ctx SpecContext) {
		w := newIntegrationWorld(ctx)
		checkIntegrationRoles(ctx, w, http.StatusOK,
			func(c *Client, p *Project) *Response {
				return c.Put(ctx, integrationPath(p, "pipelines-email"), Body(pipelinesEmailSettings))
			},
			func(p *Project) {
				api.Delete(ctx, integrationPath(p, "pipelines-email"), Unchecked())
			},
			func(p *Project, succeeded bool) {
				Expect(activeSlugs(ctx, api, p)).To(HaveLen(map[bool]int{true: 1, false: 0}[succeeded]),
					"the integration is set up only on success")
			})
	})

	It("sets up the integration and answers it with its properties", Label("rule:integrations.set.1"), func(ctx SpecContext) {
		w := newIntegrationWorld(ctx)
		r := setIntegration(ctx, w.maintainer(), w.Private, "pipelines-email", pipelinesEmailSettings)
		Expect(r.Get("active").Bool()).To(BeTrue())
		Expect(r.Get("slug").String()).To(Equal("pipelines-email"))
		Expect(r.Get("inherited").Type.String()).To(Equal("False"))
		Expect(r.Get("properties").IsObject()).To(BeTrue())
		Expect(r.Get("title").String()).NotTo(BeEmpty())
		Expect(activeSlugs(ctx, w.maintainer(), w.Private)).To(Equal([]string{"pipelines-email"}))
	})

	It("requires issues_url and project_url of custom-issue-tracker, not new_issue_url", Label("rule:integrations.set.2"), func(ctx SpecContext) {
		w := newIntegrationWorld(ctx)
		path := integrationPath(w.Private, "custom-issue-tracker")
		expectMissingAttributes("integrations.set.2",
			missingAnswer{"issues_url", w.maintainer().Put(ctx, path, Body(map[string]any{"project_url": "https://tracker.example.com/project"}))},
			missingAnswer{"project_url", w.maintainer().Put(ctx, path, Body(map[string]any{"issues_url": "https://tracker.example.com/issues/:id"}))})
		expectNotSetUp(ctx, w.Private, "custom-issue-tracker")
		r := setIntegration(ctx, w.maintainer(), w.Private, "custom-issue-tracker", issueTrackerSettings)
		Expect(r.Get("active").Bool()).To(BeTrue(), "new_issue_url is optional")
	})

	It("requires recipients of pipelines-email", Label("rule:integrations.set.3"), func(ctx SpecContext) {
		w := newIntegrationWorld(ctx)
		expectMissingAttributes("integrations.set.3", missingAnswer{"recipients", w.maintainer().Put(ctx, integrationPath(w.Private, "pipelines-email"),
			Body(map[string]any{"notify_only_broken_pipelines": true}))})
		expectNotSetUp(ctx, w.Private, "pipelines-email")
	})

	It("requires webhook of slack", Label("rule:integrations.set.4"), func(ctx SpecContext) {
		w := newIntegrationWorld(ctx)
		expectMissingAttributes("integrations.set.4", missingAnswer{"webhook", w.maintainer().Put(ctx, integrationPath(w.Private, "slack"),
			Body(map[string]any{"username": "bot", "channel": "general"}))})
		expectNotSetUp(ctx, w.Private, "slack")
	})

	It("requires token and drone_url of drone-ci", Label("rule:integrations.set.5"), func(ctx SpecContext) {
		w := newIntegrationWorld(ctx)
		path := integrationPath(w.Private, "drone-ci")
		expectMissingAttributes("integrations.set.5",
			missingAnswer{"token", w.maintainer().Put(ctx, path, Body(map[string]any{"drone_url": "https://drone.example.com"}))},
			missingAnswer{"drone_url", w.maintainer().Put(ctx, path, Body(map[string]any{"token": "drone-ci-token"}))})
		expectNotSetUp(ctx, w.Private, "drone-ci")
		setIntegration(ctx, w.maintainer(), w.Private, "drone-ci", droneSettings)
	})

	It("refuses issue-tracker URLs that are not http or https URLs", Label("rule:integrations.set.6"), func(ctx SpecContext) {
		w := newIntegrationWorld(ctx)
		path := integrationPath(w.Private, "custom-issue-tracker")
		for _, bad := range []map[string]any{{"project_url": "not a url"}, {"issues_url": "ftp://tracker.example.com/:id"}} {
			Expect(w.maintainer().Put(ctx, path, Body(with(issueTrackerSettings, bad)))).To(HaveStatus(http.StatusBadRequest), "%v", bad)
		}
		expectNotSetUp(ctx, w.Private, "custom-issue-tracker")
	})

	It("takes the four values of branches_to_be_notified, default default", Label("rule:integrations.set.7"), func(ctx SpecContext) {
		w := newIntegrationWorld(ctx)
		path := integrationPath(w.Private, "pipelines-email")
		Expect(w.maintainer().Put(ctx, path, Body(with(pipelinesEmailSettings, map[string]any{"branches_to_be_notified": "develop"})))).
			To(HaveStatus(http.StatusBadRequest))
		expectNotSetUp(ctx, w.Private, "pipelines-email")
		r := setIntegration(ctx, w.maintainer(), w.Private, "pipelines-email", pipelinesEmailSettings)
		Expect(r.Get("properties.branches_to_be_notified").String()).To(Equal("default"))
		for _, v := range []string{"all", "protected", "default_and_protected", "default"} {
			r := setIntegration(ctx, w.maintainer(), w.Private, "pipelines-email",
				with(pipelinesEmailSettings, map[string]any{"branches_to_be_notified": v}))
			Expect(r.Get("properties.branches_to_be_notified").String()).To(Equal(v))
		}
		r = setIntegration(ctx, w.maintainer(), w.Private, "slack", slackSettings)
		Expect(r.Get("properties.branches_to_be_notified").String()).To(Equal("default"), "chat kinds too")
		Expect(w.maintainer().Put(ctx, integrationPath(w.Private, "slack"),
			Body(with(slackSettings, map[string]any{"branches_to_be_notified": "everything"})))).To(HaveStatus(http.StatusBadRequest))
	})

	It("takes match_any or match_all as labels_to_be_notified_behavior, default match_any", Label("rule:integrations.set.8"), func(ctx SpecContext) {
		w := newIntegrationWorld(ctx)
		path := integrationPath(w.Private, "slack")
		Expect(w.maintainer().Put(ctx, path, Body(with(slackSettings, map[string]any{"labels_to_be_notified_behavior": "match_some"})))).
			To(HaveStatus(http.StatusBadRequest))
		expectNotSetUp(ctx, w.Private, "slack")
		r := setIntegration(ctx, w.maintainer(), w.Private, "slack", slackSettings)
		Expect(r.Get("properties.labels_to_be_notified_behavior").String()).To(Equal("match_any"))
		r = setIntegration(ctx, w.maintainer(), w.Private, "slack", with(slackSettings, map[string]any{"labels_to_be_notified_behavior": "match_all"}))
		Expect(r.Get("properties.labels_to_be_notified_behavior").String()).To(Equal("match_all"))
	})

	// Booleans (suites/booleans.go): a word the platform does not read
	// answers 400 and sets nothing up; push_events=yes sets the flag as
	// true does.
	It("reads the platform's boolean words for settings and refuses the rest", Label("rule:integrations.set.9"), func(ctx SpecContext) {
		w := newIntegrationWorld(ctx)
		cases := []struct {
			slug string
			body map[string]any
		}{
			{"pipelines-email", with(pipelinesEmailSettings, map[string]any{"use_inherited_settings": "maybe"})},
			{"pipelines-email", with(pipelinesEmailSettings, map[string]any{"notify_only_broken_pipelines": "2"})},
			{"slack", with(slackSettings, map[string]any{"push_events": "truee"})},
			{"drone-ci", with(droneSettings, map[string]any{"enable_ssl_verification": "tRuE"})},
		}
		for _, c := range cases {
			Expect(w.maintainer().Put(ctx, integrationPath(w.Private, c.slug), Body(c.body))).To(HaveStatus(http.StatusBadRequest), "%s %v", c.slug, c.body)
			expectNotSetUp(ctx, w.Private, c.slug)
		}
		expectBooleanWords(boolProbe{
			send: func(v string) *Response {
				return w.maintainer().Put(ctx, integrationPath(w.Public, "slack"), Body(with(slackSettings, map[string]any{"push_events": v})))
			},
			meaning: func(r *Response) any { return r.Get("push_events").Bool() },
		})
	})

	It("sets the event flags from the per-event booleans", Label("rule:integrations.set.10"), func(ctx SpecContext) {
		w := newIntegrationWorld(ctx)
		r := setIntegration(ctx, w.maintainer(), w.Private, "slack", with(slackSettings, map[string]any{
			"push_events": false, "note_events": false, "pipeline_events": true, "deployment_events": true}))
		check := func(r *Response) {
			GinkgoHelper()
			Expect(r.Get("push_events").Type.String()).To(Equal("False"))
			Expect(r.Get("note_events").Type.String()).To(Equal("False"))
			Expect(r.Get("pipeline_events").Type.String()).To(Equal("True"))
			Expect(r.Get("deployment_events").Type.String()).To(Equal("True"))
		}
		check(r)
		check(w.maintainer().Get(ctx, integrationPath(w.Private, "slack")))
		r = setIntegration(ctx, w.maintainer(), w.Private, "slack", with(slackSettings, map[string]any{"push_events": true}))
		Expect(r.Get("push_events").Type.String()).To(Equal("True"))
		r = setIntegration(ctx, w.maintainer(), w.Private, "pipelines-email", with(pipelinesEmailSettings, map[string]any{"pipeline_events": false}))
		Expect(r.Get("pipeline_events").Type.String()).To(Equal("False"))
	})

	It("accepts use_inherited_settings on every kind", Label("rule:integrations.set.11"), func(ctx SpecContext) {
		w := newIntegrationWorld(ctx)
		for _, k := range []struct {
			slug string
			body map[string]any
		}{{"custom-issue-tracker", issueTrackerSettings}, {"drone-ci", droneSettings},
			{"pipelines-email", pipelinesEmailSettings}, {"slack", slackSettings}} {
			r := setIntegration(ctx, w.maintainer(), w.Private, k.slug, with(k.body, map[string]any{"use_inherited_settings": false}))
			Expect(r.Get("inherited").Type.String()).To(Equal("False"), k.slug)
		}
		r := setIntegration(ctx, w.maintainer(), w.Private, "pipelines-email", with(pipelinesEmailSettings, map[string]any{"use_inherited_settings": true}))
		Expect(r.Get("inherited").Type.String()).To(Equal("False"), "there are no group or instance settings to inherit")
	})

	It("reads the settings given back in properties", Label("rule:integrations.set.12"), func(ctx SpecContext) {
		w := newIntegrationWorld(ctx)
		r := setIntegration(ctx, w.maintainer(), w.Private, "custom-issue-tracker",
			with(issueTrackerSettings, map[string]any{"new_issue_url": "https://tracker.example.com/new"}))
		Expect(r.Get("properties.issues_url").String()).To(Equal("https://tracker.example.com/issues/:id"))
		Expect(r.Get("properties.project_url").String()).To(Equal("https://tracker.example.com/project"))
		Expect(r.Get("properties.new_issue_url").String()).To(Equal("https://tracker.example.com/new"))

		r = setIntegration(ctx, w.maintainer(), w.Private, "pipelines-email", with(pipelinesEmailSettings, map[string]any{
			"notify_only_broken_pipelines": false, "notify_only_default_branch": true, "branches_to_be_notified": "protected"}))
		g := w.maintainer().Get(ctx, integrationPath(w.Private, "pipelines-email"))
		for _, got := range []*Response{r, g} {
			Expect(got.Get("properties.recipients").String()).To(Equal("dev@example.com,ops@example.com"))
			Expect(got.Get("properties.notify_only_broken_pipelines").Type.String()).To(Equal("False"))
			Expect(got.Get("properties.notify_only_default_branch").Type.String()).To(Equal("True"))
			Expect(got.Get("properties.branches_to_be_notified").String()).To(Equal("protected"))
		}

		r = setIntegration(ctx, w.maintainer(), w.Private, "slack", with(slackSettings, map[string]any{
			"username": "notifier", "channel": "general", "labels_to_be_notified": "bug,urgent",
			"push_channel": "pushes", "pipeline_channel": "builds"}))
		Expect(r.Get("properties.username").String()).To(Equal("notifier"))
		Expect(r.Get("properties.channel").String()).To(Equal("general"))
		Expect(r.Get("properties.labels_to_be_notified").String()).To(Equal("bug,urgent"))
		Expect(r.Get("properties.push_channel").String()).To(Equal("pushes"))
		Expect(r.Get("properties.pipeline_channel").String()).To(Equal("builds"))
	})

	It("updates the same integration on a second PUT", Label("rule:integrations.set.13"), func(ctx SpecContext) {
		w := newIntegrationWorld(ctx)
		first := setIntegration(ctx, w.maintainer(), w.Private, "slack", with(slackSettings, map[string]any{
			"username": "notifier", "channel": "general"}))
		second := setIntegration(ctx, w.maintainer(), w.Private, "slack", with(slackSettings, map[string]any{"channel": "random"}))
		Expect(second.Get("id").Int()).To(Equal(first.Get("id").Int()))
		Expect(second.Get("properties.channel").String()).To(Equal("random"))
		Expect(second.Get("properties.username").String()).To(Equal("notifier"), "settings not given keep their value")
		Expect(activeSlugs(ctx, w.maintainer(), w.Private)).To(Equal([]string{"slack"}))
	})

	It("answers 404 to a slug that names no kind", Label("rule:integrations.set.14"), func(ctx SpecContext) {
		w := newIntegrationWorld(ctx)
		Expect(w.maintainer().Put(ctx, integrationPath(w.Private, "no-such-integration"), Body(pipelinesEmailSettings))).
			To(HaveStatus(http.StatusNotFound))
		Expect(activeSlugs(ctx, w.maintainer(), w.Private)).To(BeEmpty())
	})
})

var _ = Describe("GET /projects/:id/integrations/:slug", Label("area:integrations", "endpoint:integrations.get"), func() {
	It("answers only to Maintainer, Owner and administrators", Label("rule:integrations.access.3"), func(ctx SpecContext) {
		w := newIntegrationWorld(ctx)
		setIntegration(ctx, api, w.Public, "pipelines-email", pipelinesEmailSettings)
		setIntegration(ctx, api, w.Private, "pipelines-email", pipelinesEmailSettings)
		checkIntegrationRoles(ctx, w, http.StatusOK,
			func(c *Client, p *Project) *Response { return c.Get(ctx, integrationPath(p, "pipelines-email")) },
			func(*Project) {}, func(*Project, bool) {})
	})

	It("answers the integration once set up, 404 before", Label("rule:integrations.get.1"), func(ctx SpecContext) {
		w := newIntegrationWorld(ctx)
		Expect(w.maintainer().Get(ctx, integrationPath(w.Private, "custom-issue-tracker"))).To(HaveStatus(http.StatusNotFound))
		set := setIntegration(ctx, w.maintainer(), w.Private, "custom-issue-tracker", issueTrackerSettings)
		r := w.maintainer().Get(ctx, integrationPath(w.Private, "custom-issue-tracker"))
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(r.Get("id").Int()).To(Equal(set.Get("id").Int()))
		Expect(r.Get("slug").String()).To(Equal("custom-issue-tracker"))
		Expect(r.Get("active").Bool()).To(BeTrue())
		Expect(r.Get("properties").IsObject()).To(BeTrue())
	})

	It("never reads back secret settings", Label("rule:integrations.get.2"), func(ctx SpecContext) {
		w := newIntegrationWorld(ctx)
		for _, c := range []struct {
			slug   string
			body   map[string]any
			secret string
		}{{"drone-ci", droneSettings, "token"}, {"slack", slackSettings, "webhook"}} {
			slug := c.slug
			r := setIntegration(ctx, w.maintainer(), w.Private, slug, c.body)
			Expect(r.Get("properties").IsObject()).To(BeTrue())
			Expect(r.Get("properties").Get(c.secret).Exists()).To(BeFalse(), "%s %s in the PUT answer", slug, c.secret)
			g := w.maintainer().Get(ctx, integrationPath(w.Private, slug))
			Expect(g).To(HaveStatus(http.StatusOK))
			Expect(g.Get("properties").Get(c.secret).Exists()).To(BeFalse(), "%s %s on GET", slug, c.secret)
		}
	})

	It("answers 400 to a slug that names no kind, on GET and DELETE", Label("rule:integrations.get.3"), func(ctx SpecContext) {
		w := newIntegrationWorld(ctx)
		path := integrationPath(w.Private, "no-such-integration")
		for _, r := range []*Response{w.maintainer().Get(ctx, path), w.maintainer().Delete(ctx, path)} {
			Expect(r).To(HaveStatus(http.StatusBadRequest))
			Expect(string(r.Body)).To(ContainSubstring("slug"))
		}
	})

	It("exposes one boolean switch per event kind", Label("rule:integrations.events.1"), func(ctx SpecContext) {
		w := newIntegrationWorld(ctx)
		setIntegration(ctx, w.maintainer(), w.Private, "slack", slackSettings)
		r := w.maintainer().Get(ctx, integrationPath(w.Private, "slack"))
		Expect(r).To(HaveStatus(http.StatusOK))
		for _, k := range append([]string{"comment_on_event_enabled"}, integrationEventFlags...) {
			Expect(r.Get(k).IsBool()).To(BeTrue(), "%s is a boolean", k)
		}
	})
})

var _ = Describe("DELETE /projects/:id/integrations/:slug", Label("area:integrations", "endpoint:integrations.disable"), func() {
	It("answers only to Maintainer, Owner and administrators", Label("rule:integrations.access.4"), func(ctx SpecContext) {
		w := newIntegrationWorld(ctx)
		checkIntegrationRoles(ctx, w, http.StatusNoContent,
			func(c *Client, p *Project) *Response { return c.Delete(ctx, integrationPath(p, "pipelines-email")) },
			func(p *Project) { setIntegration(ctx, api, p, "pipelines-email", pipelinesEmailSettings) },
			func(p *Project, succeeded bool) {
				r := api.Get(ctx, integrationPath(p, "pipelines-email"))
				Expect(r).To(HaveStatus(http.StatusOK))
				Expect(r.Get("active").Bool()).To(Equal(!succeeded), "active unless disabled")
			})
	})

	It("disables the integration", Label("rule:integrations.disable.1"), func(ctx SpecContext) {
		w := newIntegrationWorld(ctx)
		setIntegration(ctx, w.maintainer(), w.Private, "pipelines-email", pipelinesEmailSettings)
		r := w.maintainer().Delete(ctx, integrationPath(w.Private, "pipelines-email"))
		Expect(r).To(HaveStatus(http.StatusNoContent))
		Expect(activeSlugs(ctx, w.maintainer(), w.Private)).To(BeEmpty())
		g := w.maintainer().Get(ctx, integrationPath(w.Private, "pipelines-email"))
		Expect(g).To(HaveStatus(http.StatusOK))
		Expect(g.Get("active").Type.String()).To(Equal("False"))
	})

	It("resets the settings", Label("rule:integrations.disable.2"), func(ctx SpecContext) {
		w := newIntegrationWorld(ctx)
		setIntegration(ctx, w.maintainer(), w.Private, "custom-issue-tracker",
			with(issueTrackerSettings, map[string]any{"new_issue_url": "https://tracker.example.com/new"}))
		Expect(w.maintainer().Delete(ctx, integrationPath(w.Private, "custom-issue-tracker"))).To(HaveStatus(http.StatusNoContent))
		g := w.maintainer().Get(ctx, integrationPath(w.Private, "custom-issue-tracker"))
		Expect(g).To(HaveStatus(http.StatusOK))
		for k, v := range map[string]string{"issues_url": "https://tracker.example.com/issues/:id",
			"project_url": "https://tracker.example.com/project", "new_issue_url": "https://tracker.example.com/new"} {
			Expect(g.Get("properties").Get(k).String()).NotTo(Equal(v), "%s is reset", k)
		}
		Expect(w.maintainer().Put(ctx, integrationPath(w.Private, "custom-issue-tracker"),
			Body(map[string]any{"project_url": "https://tracker.example.com/project"}))).To(BeMissingAttribute("issues_url"))
	})

	It("answers 404 for an integration never set up", Label("rule:integrations.disable.3"), func(ctx SpecContext) {
		w := newIntegrationWorld(ctx)
		Expect(w.maintainer().Delete(ctx, integrationPath(w.Private, "pipelines-email"))).To(HaveStatus(http.StatusNotFound))
	})
})
