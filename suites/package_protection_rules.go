package suites

import (
	"context"
	"fmt"
	"net/http"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// packageRulesPath is the rules collection of p, addressed by ID or by any other :id form.
func packageRulesPath(id string) string {
	return "/projects/" + id + "/packages/protection/rules"
}

func packageRulesOf(p *Project) string { return packageRulesPath(fmt.Sprint(p.ID)) }

func packageRuleOf(p *Project, ruleID any) string {
	return fmt.Sprintf("%s/%v", packageRulesOf(p), ruleID)
}

// packageRule is what a spec expects a rule to read back as.
type packageRule struct {
	Pattern, Type, Push string
}

func (r packageRule) body() Opt {
	return Body(map[string]any{"package_name_pattern": r.Pattern, "package_type": r.Type,
		"minimum_access_level_for_push": r.Push})
}

// packagePattern is a package name unique to the spec that every package type
// accepts (npm and PyPI validate names), ending in the wildcard *.
func packagePattern() string { return Unique("pkg") + "-*" }

// newPackageRule creates a rule in p as by and returns its id; the rule goes
// with the project when the spec ends.
func newPackageRule(ctx context.Context, by *Client, p *Project, r packageRule) int {
	GinkgoHelper()
	resp := by.Post(ctx, packageRulesOf(p), r.body())
	ExpectFixture(resp).To(HaveStatus(http.StatusCreated), "creating a fixture package protection rule")
	return int(resp.Get("id").Int())
}

// expectPackageRule checks one rule object against what was sent.
func expectPackageRule(resp *Response, path string, p *Project, want packageRule) {
	GinkgoHelper()
	prefix := ""
	if path != "" {
		prefix = path + "."
	}
	Expect(resp.Get(prefix + "project_id").Int()).To(BeEquivalentTo(p.ID))
	Expect(resp.Get(prefix + "package_name_pattern").String()).To(Equal(want.Pattern))
	Expect(resp.Get(prefix + "package_type").String()).To(Equal(want.Type))
	Expect(resp.Get(prefix + "minimum_access_level_for_push").String()).To(Equal(want.Push))
}

// packageRulesList reads the project's rules as the administrator (all pages).
func packageRulesList(ctx context.Context, p *Project) map[int]packageRule {
	GinkgoHelper()
	resp := api.Get(ctx, packageRulesOf(p), Q("per_page", 100))
	Expect(resp).To(HaveStatus(http.StatusOK))
	out := map[int]packageRule{}
	for _, r := range resp.JSON().Array() {
		out[int(r.Get("id").Int())] = packageRule{r.Get("package_name_pattern").String(),
			r.Get("package_type").String(), r.Get("minimum_access_level_for_push").String()}
	}
	return out
}

// packageRuleTypes are the package types of the platform that a rule may name.
var packageRuleTypes = []string{"conan", "generic", "helm", "maven", "npm", "nuget", "pypi"}

var _ = Describe("GET /projects/:id/packages/protection/rules", Label("area:package_protection_rules", "endpoint:package_protection_rules.list"), func() {
	It("lists all the project's rules with their fields and no other project's", Label("rule:package_protection_rules.list.1"), func(ctx SpecContext) {
		p := NewProject(ctx, api)
		other := NewProject(ctx, api)
		a := packageRule{packagePattern(), "npm", "maintainer"}
		b := packageRule{packagePattern(), "pypi", "owner"}
		aID := newPackageRule(ctx, api, p, a)
		bID := newPackageRule(ctx, api, p, b)
		newPackageRule(ctx, api, other, packageRule{packagePattern(), "npm", "admin"})

		resp := api.Get(ctx, packageRulesOf(p))
		Expect(resp).To(HaveStatus(http.StatusOK))
		Expect(resp).To(MatchSchema("package_protection_rule", true))
		Expect(resp.IDs()).To(ConsistOf(aID, bID))
		for i, r := range resp.JSON().Array() {
			want := map[int]packageRule{aID: a, bID: b}[int(r.Get("id").Int())]
			expectPackageRule(resp, fmt.Sprint(i), p, want)
		}
	})

	It("paginates with page (default 1) and per_page (default 20)", Label("rule:package_protection_rules.list.2"), func(ctx SpecContext) {
		p := NewProject(ctx, api)
		var ids []int
		for range 3 {
			ids = append(ids, newPackageRule(ctx, api, p, packageRule{packagePattern(), "generic", "maintainer"}))
		}
		first := api.Get(ctx, packageRulesOf(p), Q("per_page", 2))
		second := api.Get(ctx, packageRulesOf(p), Q("per_page", 2), Q("page", 2))
		defaults := api.Get(ctx, packageRulesOf(p))
		// The platform does not paginate this list
		// (package_protection_rules.list.2's platform.does).
		SpecOrPlatform("package_protection_rules.list.2", func() {
			Expect(first).To(HaveStatus(http.StatusOK))
			Expect(first.IDs()).To(HaveLen(2))
			Expect(first).To(HaveHeader("X-Page", "1"))
			Expect(first).To(HaveHeader("X-Per-Page", "2"))
			Expect(first).To(HaveHeader("X-Next-Page", "2"))
			Expect(first).To(HaveHeader("X-Total", "3"))
			Expect(first).To(HaveHeader("X-Total-Pages", "2"))
			Expect(second).To(HaveStatus(http.StatusOK))
			Expect(second).To(HaveHeader("X-Prev-Page", "1"))
			Expect(second.IDs()).To(HaveLen(1))
			Expect(append(first.IDs(), second.IDs()...)).To(ConsistOf(ids))
			Expect(defaults).To(HaveHeader("X-Page", "1"))
			Expect(defaults).To(HaveHeader("X-Per-Page", "20"))
			Expect(defaults.IDs()).To(ConsistOf(ids))
		}, func() {
			for _, r := range []*Response{first, second, defaults} {
				expectUnpaginated(r, r.IDs(), ids)
			}
		})
	})

	It("takes the project's integer ID or its URL-encoded full path", Label("rule:package_protection_rules.list.3"), func(ctx SpecContext) {
		p := NewProject(ctx, api)
		id := newPackageRule(ctx, api, p, packageRule{packagePattern(), "maven", "maintainer"})
		Expect(api.Get(ctx, packageRulesPath(fmt.Sprint(p.ID))).IDs()).To(Equal([]int{id}))
		byPath := api.Get(ctx, packageRulesPath(PathID(p.FullPath)))
		Expect(byPath).To(HaveStatus(http.StatusOK))
		Expect(byPath.IDs()).To(Equal([]int{id}))
	})

	It("answers 404 on every endpoint for a missing project or one hidden from the caller", Label("rule:package_protection_rules.ids.3", "rule:auth.status.3"), func(ctx SpecContext) {
		outsider := NewUser(ctx)
		p := NewProject(ctx, api)
		id := newPackageRule(ctx, api, p, packageRule{packagePattern(), "npm", "maintainer"})
		// A full path no namespace has: the project does not exist.
		missing := packageRulesPath(PathID(Unique("nowhere") + "/" + Unique("nothing")))
		for _, tc := range []struct {
			name  string
			who   *Client
			rules string
			rule  int
		}{{"missing project", api, missing, id}, {"hidden project", outsider.Client, packageRulesOf(p), id}} {
			valid := packageRule{packagePattern(), "npm", "owner"}
			one := fmt.Sprintf("%s/%d", tc.rules, tc.rule)
			Expect(tc.who.Get(ctx, tc.rules)).To(HaveStatus(http.StatusNotFound), tc.name)
			Expect(tc.who.Post(ctx, tc.rules, valid.body())).To(HaveStatus(http.StatusNotFound), tc.name)
			Expect(tc.who.Patch(ctx, one, valid.body())).To(HaveStatus(http.StatusNotFound), tc.name)
			Expect(tc.who.Delete(ctx, one)).To(HaveStatus(http.StatusNotFound), tc.name)
		}
		Expect(packageRulesList(ctx, p)).To(HaveLen(1), "the hidden project's rules are untouched")
	})

	It("answers 401 on every endpoint without credentials or with an invalid token, also for a public project", Label("rule:package_protection_rules.access.3", "rule:auth.status.1", "rule:auth.token.2"), func(ctx SpecContext) {
		p := NewProject(ctx, api, ProjectOpts{"visibility": "public"})
		id := newPackageRule(ctx, api, p, packageRule{packagePattern(), "npm", "maintainer"})
		for _, c := range []*Client{api.Anonymous(), api.As("glpat-" + Unique("invalid"))} {
			valid := packageRule{packagePattern(), "npm", "owner"}
			Expect(c.Get(ctx, packageRulesOf(p))).To(HaveStatus(http.StatusUnauthorized))
			Expect(c.Post(ctx, packageRulesOf(p), valid.body())).To(HaveStatus(http.StatusUnauthorized))
			Expect(c.Patch(ctx, packageRuleOf(p, id), valid.body())).To(HaveStatus(http.StatusUnauthorized))
			Expect(c.Delete(ctx, packageRuleOf(p, id))).To(HaveStatus(http.StatusUnauthorized))
		}
		Expect(packageRulesList(ctx, p)).To(HaveLen(1), "nothing changed")
	})

	// The spec does not order its checks. The platform authenticates these
	// routes in after_validation, so invalid parameters are refused with 400
	// before a missing or invalid token is (package_protection_rules.access.3's
	// platform.does): either refusal is accepted, nothing else, and nothing
	// changes.
	It("refuses an anonymous request with invalid parameters with 401, or 400 as the platform checks parameters first", Label("rule:package_protection_rules.access.3"), func(ctx SpecContext) {
		p := NewProject(ctx, api, ProjectOpts{"visibility": "public"})
		id := newPackageRule(ctx, api, p, packageRule{packagePattern(), "npm", "maintainer"})
		refusedEitherWay := func(r *Response, what string) {
			GinkgoHelper()
			if r.Status != http.StatusUnauthorized {
				Expect(r).To(HaveStatus(http.StatusBadRequest), "%s: 401, or 400 as on the platform", what)
			}
		}
		for _, c := range []*Client{api.Anonymous(), api.As("glpat-" + Unique("invalid"))} {
			refusedEitherWay(c.Post(ctx, packageRulesOf(p), packageRule{packagePattern(), "bogus", "owner"}.body()), "an unknown package_type")
			refusedEitherWay(c.Post(ctx, packageRulesOf(p), Body(map[string]any{"package_name_pattern": packagePattern()})), "missing attributes")
			refusedEitherWay(c.Patch(ctx, packageRuleOf(p, "abc"), packageRule{packagePattern(), "npm", "owner"}.body()), "a rule id that is no integer")
			refusedEitherWay(c.Delete(ctx, packageRuleOf(p, "abc")), "a rule id that is no integer")
		}
		Expect(packageRulesList(ctx, p)).To(HaveKey(id))
		Expect(packageRulesList(ctx, p)).To(HaveLen(1), "nothing changed")
	})
})

var _ = Describe("POST /projects/:id/packages/protection/rules", Label("area:package_protection_rules", "endpoint:package_protection_rules.create"), func() {
	It("creates the rule as given and lists it", Label("rule:package_protection_rules.create.1", "rule:errors.success.1"), func(ctx SpecContext) {
		p := NewProject(ctx, api)
		want := packageRule{Unique("pkg"), "npm", "maintainer"}
		resp := api.Post(ctx, packageRulesOf(p), want.body())
		Expect(resp).To(HaveStatus(http.StatusCreated))
		Expect(resp).To(MatchSchema("package_protection_rule", false))
		expectPackageRule(resp, "", p, want)
		id := int(resp.Get("id").Int())
		Expect(packageRulesList(ctx, p)).To(Equal(map[int]packageRule{id: want}))
	})

	It("requires package_name_pattern, package_type and minimum_access_level_for_push", Label("rule:package_protection_rules.create.2"), func(ctx SpecContext) {
		p := NewProject(ctx, api)
		full := map[string]any{"package_name_pattern": packagePattern(), "package_type": "npm",
			"minimum_access_level_for_push": "maintainer"}
		var answers []missingAnswer
		for _, attr := range []string{"package_name_pattern", "package_type", "minimum_access_level_for_push"} {
			body := map[string]any{}
			for k, v := range full {
				if k != attr {
					body[k] = v
				}
			}
			answers = append(answers, missingAnswer{attr, api.Post(ctx, packageRulesOf(p), Body(body))})
		}
		expectMissingAttributes("package_protection_rules.create.2", answers...)
		Expect(packageRulesList(ctx, p)).To(BeEmpty())
	})

	It("keeps the wildcard * in package_name_pattern", Label("rule:package_protection_rules.create.3"), func(ctx SpecContext) {
		p := NewProject(ctx, api)
		for _, want := range []packageRule{
			{"@" + Unique("scope") + "/pkg-*", "npm", "maintainer"},
			{"*-" + Unique("tail"), "generic", "owner"},
			{Unique("mid") + "-*-x", "maven", "admin"},
		} {
			resp := api.Post(ctx, packageRulesOf(p), want.body())
			Expect(resp).To(HaveStatus(http.StatusCreated))
			expectPackageRule(resp, "", p, want)
		}
	})

	It("accepts every package type of the platform and answers 400 to any other", Label("rule:package_protection_rules.create.4"), func(ctx SpecContext) {
		p := NewProject(ctx, api)
		pattern := packagePattern()
		for _, t := range packageRuleTypes {
			resp := api.Post(ctx, packageRulesOf(p), packageRule{pattern, t, "maintainer"}.body())
			Expect(resp).To(HaveStatus(http.StatusCreated), t)
			Expect(resp.Get("package_type").String()).To(Equal(t))
		}
		for _, t := range []string{"not-a-type", "NPM", ""} {
			Expect(api.Post(ctx, packageRulesOf(p), packageRule{packagePattern(), t, "maintainer"}.body())).
				To(HaveStatus(http.StatusBadRequest), "package_type %q", t)
		}
		Expect(packageRulesList(ctx, p)).To(HaveLen(len(packageRuleTypes)), "a refused rule is not created")
	})

	It("takes maintainer, owner or admin for minimum_access_level_for_push and answers 400 to anything else", Label("rule:package_protection_rules.create.5"), func(ctx SpecContext) {
		p := NewProject(ctx, api)
		for _, lv := range []string{"maintainer", "owner", "admin"} {
			resp := api.Post(ctx, packageRulesOf(p), packageRule{packagePattern(), "npm", lv}.body())
			Expect(resp).To(HaveStatus(http.StatusCreated), lv)
			Expect(resp.Get("minimum_access_level_for_push").String()).To(Equal(lv))
		}
		for _, lv := range []string{"developer", "reporter", "guest", "40", "Maintainer", "superuser"} {
			Expect(api.Post(ctx, packageRulesOf(p), packageRule{packagePattern(), "npm", lv}.body())).
				To(HaveStatus(http.StatusBadRequest), "minimum_access_level_for_push %q", lv)
		}
		Expect(packageRulesList(ctx, p)).To(HaveLen(3), "a refused rule is not created")
	})

	It("answers 422 to a pattern already protected for the same type, not for another type or project", Label("rule:package_protection_rules.create.6"), func(ctx SpecContext) {
		p := NewProject(ctx, api)
		other := NewProject(ctx, api)
		pattern := packagePattern()
		first := newPackageRule(ctx, api, p, packageRule{pattern, "npm", "maintainer"})
		Expect(api.Post(ctx, packageRulesOf(p), packageRule{pattern, "npm", "owner"}.body())).
			To(HaveStatus(http.StatusUnprocessableEntity))
		Expect(packageRulesList(ctx, p)).To(Equal(map[int]packageRule{first: {pattern, "npm", "maintainer"}}))
		Expect(api.Post(ctx, packageRulesOf(p), packageRule{pattern, "pypi", "owner"}.body())).
			To(HaveStatus(http.StatusCreated), "the same pattern for another package type")
		Expect(api.Post(ctx, packageRulesOf(other), packageRule{pattern, "npm", "owner"}.body())).
			To(HaveStatus(http.StatusCreated), "the same pattern in another project")
	})

	It("lets Maintainers, Owners and administrators list, create, update and delete rules", Label("rule:package_protection_rules.access.1", "rule:auth.roles.1"), func(ctx SpecContext) {
		w := NewRoleWorld(ctx, "private")
		p := NewProject(ctx, w.Owner.Client, ProjectOpts{"namespace_id": w.Group.ID})
		for _, c := range []struct {
			name string
			*Client
		}{{"Maintainer", w.Members[MaintainerLevel].Client}, {"Owner", w.Owner.Client}, {"administrator", api}} {
			Expect(c.Get(ctx, packageRulesOf(p))).To(HaveStatus(http.StatusOK), c.name)
			resp := c.Post(ctx, packageRulesOf(p), packageRule{packagePattern(), "npm", "maintainer"}.body())
			Expect(resp).To(HaveStatus(http.StatusCreated), c.name)
			id := resp.Get("id").Int()
			Expect(c.Patch(ctx, packageRuleOf(p, id), Body(map[string]any{"minimum_access_level_for_push": "owner"}))).
				To(HaveStatus(http.StatusOK), c.name)
			Expect(c.Delete(ctx, packageRuleOf(p, id))).To(HaveStatus(http.StatusNoContent), c.name)
		}
		Expect(packageRulesList(ctx, p)).To(BeEmpty())
	})

	It("answers 403 on every endpoint to Guests, Reporters, Developers and non-members of a public project", Label("rule:package_protection_rules.access.2", "rule:auth.status.2", "rule:auth.roles.1"), func(ctx SpecContext) {
		w := NewRoleWorld(ctx, "private")
		p := NewProject(ctx, w.Owner.Client, ProjectOpts{"namespace_id": w.Group.ID})
		want := packageRule{packagePattern(), "npm", "maintainer"}
		id := newPackageRule(ctx, api, p, want)
		pub := NewProject(ctx, api, ProjectOpts{"visibility": "public"})
		pubID := newPackageRule(ctx, api, pub, want)
		for _, c := range []struct {
			name string
			who  *Client
			proj *Project
			rule int
		}{
			{"Guest", w.Members[GuestLevel].Client, p, id},
			{"Reporter", w.Members[ReporterLevel].Client, p, id},
			{"Developer", w.Members[DeveloperLevel].Client, p, id},
			{"non-member of a public project", w.Outsider.Client, pub, pubID},
		} {
			other := packageRule{packagePattern(), "pypi", "admin"}
			Expect(c.who.Get(ctx, packageRulesOf(c.proj))).To(HaveStatus(http.StatusForbidden), c.name)
			Expect(c.who.Post(ctx, packageRulesOf(c.proj), other.body())).To(HaveStatus(http.StatusForbidden), c.name)
			Expect(c.who.Patch(ctx, packageRuleOf(c.proj, c.rule), other.body())).To(HaveStatus(http.StatusForbidden), c.name)
			Expect(c.who.Delete(ctx, packageRuleOf(c.proj, c.rule))).To(HaveStatus(http.StatusForbidden), c.name)
		}
		Expect(packageRulesList(ctx, p)).To(Equal(map[int]packageRule{id: want}), "nothing changed")
		Expect(packageRulesList(ctx, pub)).To(Equal(map[int]packageRule{pubID: want}), "nothing changed")
	})
})

var _ = Describe("PATCH /projects/:id/packages/protection/rules/:package_protection_rule_id", Label("area:package_protection_rules", "endpoint:package_protection_rules.edit"), func() {
	It("changes the fields given and keeps the others", Label("rule:package_protection_rules.edit.1", "rule:errors.success.1"), func(ctx SpecContext) {
		p := NewProject(ctx, api)
		want := packageRule{packagePattern(), "npm", "maintainer"}
		id := newPackageRule(ctx, api, p, want)
		renamed := "renamed-" + packagePattern()
		for _, step := range []struct {
			body   map[string]any
			change func(*packageRule)
		}{
			{map[string]any{}, func(*packageRule) {}},
			{map[string]any{"minimum_access_level_for_push": "owner"}, func(r *packageRule) { r.Push = "owner" }},
			{map[string]any{"package_type": "pypi"}, func(r *packageRule) { r.Type = "pypi" }},
			{map[string]any{"package_name_pattern": renamed}, func(r *packageRule) { r.Pattern = renamed }},
			{map[string]any{"package_type": "maven", "minimum_access_level_for_push": "admin"}, func(r *packageRule) { r.Type, r.Push = "maven", "admin" }},
		} {
			step.change(&want)
			resp := api.Patch(ctx, packageRuleOf(p, id), Body(step.body))
			Expect(resp).To(HaveStatus(http.StatusOK), "PATCH %v", step.body)
			Expect(resp).To(MatchSchema("package_protection_rule", false))
			Expect(resp.Get("id").Int()).To(BeEquivalentTo(id))
			expectPackageRule(resp, "", p, want)
			Expect(packageRulesList(ctx, p)).To(Equal(map[int]packageRule{id: want}))
		}
	})

	It("answers 400 to an unknown package_type or push level and keeps the rule", Label("rule:package_protection_rules.edit.2"), func(ctx SpecContext) {
		p := NewProject(ctx, api)
		want := packageRule{packagePattern(), "npm", "maintainer"}
		id := newPackageRule(ctx, api, p, want)
		for _, body := range []map[string]any{
			{"package_type": "not-a-type"},
			{"package_type": "not-a-type", "minimum_access_level_for_push": "owner"},
			{"minimum_access_level_for_push": "developer"},
			{"minimum_access_level_for_push": "guest", "package_name_pattern": packagePattern()},
		} {
			Expect(api.Patch(ctx, packageRuleOf(p, id), Body(body))).To(HaveStatus(http.StatusBadRequest), "PATCH %v", body)
		}
		Expect(packageRulesList(ctx, p)).To(Equal(map[int]packageRule{id: want}))
	})

	It("answers 422 when the rule would duplicate another rule's pattern and type", Label("rule:package_protection_rules.edit.3"), func(ctx SpecContext) {
		p := NewProject(ctx, api)
		a := packageRule{packagePattern(), "npm", "maintainer"}
		b := packageRule{packagePattern(), "npm", "owner"}
		aID := newPackageRule(ctx, api, p, a)
		bID := newPackageRule(ctx, api, p, b)
		Expect(api.Patch(ctx, packageRuleOf(p, bID), Body(map[string]any{"package_name_pattern": a.Pattern}))).
			To(HaveStatus(http.StatusUnprocessableEntity))
		Expect(packageRulesList(ctx, p)).To(Equal(map[int]packageRule{aID: a, bID: b}))
		// The same pattern under another package type is no duplicate; moving back to npm is.
		moved := api.Patch(ctx, packageRuleOf(p, bID), Body(map[string]any{"package_name_pattern": a.Pattern, "package_type": "pypi"}))
		Expect(moved).To(HaveStatus(http.StatusOK))
		Expect(api.Patch(ctx, packageRuleOf(p, bID), Body(map[string]any{"package_type": "npm"}))).
			To(HaveStatus(http.StatusUnprocessableEntity))
		Expect(packageRulesList(ctx, p)).To(Equal(map[int]packageRule{aID: a, bID: {a.Pattern, "pypi", "owner"}}))
	})

	It("answers 404 on PATCH and DELETE for a rule the project does not have", Label("rule:package_protection_rules.ids.1"), func(ctx SpecContext) {
		p := NewProject(ctx, api)
		other := NewProject(ctx, api)
		want := packageRule{packagePattern(), "npm", "maintainer"}
		foreign := newPackageRule(ctx, api, other, want)
		gone := newPackageRule(ctx, api, p, packageRule{packagePattern(), "npm", "maintainer"})
		Expect(api.Delete(ctx, packageRuleOf(p, gone))).To(HaveStatus(http.StatusNoContent))
		for _, id := range []int{foreign, gone} {
			Expect(api.Patch(ctx, packageRuleOf(p, id), Body(map[string]any{"minimum_access_level_for_push": "owner"}))).
				To(HaveStatus(http.StatusNotFound), "PATCH rule %d", id)
			Expect(api.Delete(ctx, packageRuleOf(p, id))).To(HaveStatus(http.StatusNotFound), "DELETE rule %d", id)
		}
		Expect(packageRulesList(ctx, other)).To(Equal(map[int]packageRule{foreign: want}), "the other project's rule is untouched")
	})

	It("answers 400 on PATCH and DELETE when package_protection_rule_id is not an integer", Label("rule:package_protection_rules.ids.2"), func(ctx SpecContext) {
		p := NewProject(ctx, api)
		want := packageRule{packagePattern(), "npm", "maintainer"}
		id := newPackageRule(ctx, api, p, want)
		for _, bad := range []string{"abc", "1.5"} {
			Expect(api.Patch(ctx, packageRuleOf(p, bad), Body(map[string]any{"minimum_access_level_for_push": "owner"}))).
				To(HaveStatus(http.StatusBadRequest), "PATCH %s", bad)
			Expect(api.Delete(ctx, packageRuleOf(p, bad))).To(HaveStatus(http.StatusBadRequest), "DELETE %s", bad)
		}
		Expect(packageRulesList(ctx, p)).To(Equal(map[int]packageRule{id: want}))
	})
})

var _ = Describe("DELETE /projects/:id/packages/protection/rules/:package_protection_rule_id", Label("area:package_protection_rules", "endpoint:package_protection_rules.delete"), func() {
	It("answers 204 and the rule is gone", Label("rule:package_protection_rules.delete.1", "rule:errors.success.1"), func(ctx SpecContext) {
		p := NewProject(ctx, api)
		keep := packageRule{packagePattern(), "npm", "maintainer"}
		keepID := newPackageRule(ctx, api, p, keep)
		id := newPackageRule(ctx, api, p, packageRule{packagePattern(), "npm", "owner"})
		resp := api.Delete(ctx, packageRuleOf(p, id))
		Expect(resp).To(HaveStatus(http.StatusNoContent))
		Expect(resp.Body).To(BeEmpty())
		Expect(packageRulesList(ctx, p)).To(Equal(map[int]packageRule{keepID: keep}))
		Expect(api.Delete(ctx, packageRuleOf(p, id))).To(HaveStatus(http.StatusNotFound))
	})
})
