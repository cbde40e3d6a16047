package suites

import (
	"context"
	"fmt"
	"net/http"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// Direct transfer needs a source instance: the target serves as both source
// and destination, addressed by the URL the suites reach it at, with the
// importing user's own token. A group created in one namespace is imported
// into another group of the same instance.

// bulkWorld is an importing user with a source group (one project, one
// member besides the owner) and a destination group to import into.
type bulkWorld struct {
	U       *User
	Source  *Group
	Project *Project
	Member  *User
	Dest    *Group
}

func newBulkWorld(ctx context.Context) *bulkWorld {
	GinkgoHelper()
	w := &bulkWorld{U: NewUser(ctx), Member: NewUser(ctx)}
	w.Source = NewGroup(ctx, w.U.Client)
	w.Project = NewProject(ctx, w.U.Client, ProjectOpts{"namespace_id": w.Source.ID})
	AddGroupMember(ctx, w.Source, w.Member, 30)
	w.Dest = NewGroup(ctx, w.U.Client)
	return w
}

// bulkConfig is the configuration of an import from the target itself.
func bulkConfig(token string) map[string]any {
	return map[string]any{"url": api.Base, "access_token": token}
}

// groupEntity is an entities[] element importing the source group into dest.
func groupEntity(w *bulkWorld, slug string, extra map[string]any) map[string]any {
	e := map[string]any{"source_type": "group_entity", "source_full_path": w.Source.FullPath,
		"destination_slug": slug, "destination_namespace": w.Dest.FullPath}
	for k, v := range extra {
		e[k] = v
	}
	return e
}

// startImport posts an import as w.U and expects it created.
func startImport(ctx context.Context, w *bulkWorld, entities ...map[string]any) *Response {
	GinkgoHelper()
	r := w.U.Post(ctx, "/bulk_imports", Body(map[string]any{"configuration": bulkConfig(w.U.Token), "entities": entities}))
	Expect(r).To(HaveStatus(http.StatusCreated), "starting a migration")
	return r
}

func bulkPath(id int, rest ...string) string {
	p := fmt.Sprintf("/bulk_imports/%d", id)
	for _, s := range rest {
		p += "/" + s
	}
	return p
}

var bulkStatuses = []string{"created", "started", "finished", "failed", "canceled"}

// awaitImport polls the import until it has ended (the spec shows no other
// transition than cancel, so the platform's background progress is awaited).
func awaitImport(ctx context.Context, by *Client, id int) *Response {
	GinkgoHelper()
	var last *Response
	Eventually(func(g Gomega) {
		last = by.Get(ctx, bulkPath(id))
		g.Expect(last).To(HaveStatus(http.StatusOK))
		g.Expect(last.Get("status").String()).To(BeElementOf("finished", "failed", "canceled"))
	}).WithContext(ctx).WithTimeout(120 * time.Second).WithPolling(time.Second).Should(Succeed())
	return last
}

// onlyEntity returns the single entity of an import.
func onlyEntity(ctx context.Context, by *Client, id int) *Response {
	GinkgoHelper()
	r := by.Get(ctx, bulkPath(id, "entities"))
	Expect(r).To(HaveStatus(http.StatusOK))
	Expect(r.JSON().Array()).To(HaveLen(1))
	e := by.Get(ctx, bulkPath(id, "entities", fmt.Sprint(r.Get("0.id").Int())))
	Expect(e).To(HaveStatus(http.StatusOK))
	return e
}

func importID(r *Response) int { return int(r.Get("id").Int()) }

var _ = Describe("POST /bulk_imports", Label("area:bulk_imports", "endpoint:bulk_imports.create"), func() {
	It("answers 201 with the import, status created", Label("rule:bulk_imports.create.1"), func(ctx SpecContext) {
		w := newBulkWorld(ctx)
		r := startImport(ctx, w, groupEntity(w, Unique("dst"), nil))
		Expect(r).To(MatchSchema("bulk_import", false))
		Expect(r.Get("status").String()).To(Equal("created"))
		Expect(r.Get("source_url").String()).To(Equal(api.Base))
		Expect(r.Get("id").Int()).To(BeNumerically(">", 0))
		Expect(w.U.Get(ctx, bulkPath(importID(r)))).To(HaveStatus(http.StatusOK))
	})

	It("requires configuration with url and access_token", Label("rule:bulk_imports.create.2"), func(ctx SpecContext) {
		w := newBulkWorld(ctx)
		ent := []any{groupEntity(w, Unique("dst"), nil)}
		expectMissingAttributes("bulk_imports.create.2",
			missingAnswer{"configuration", w.U.Post(ctx, "/bulk_imports", Body(map[string]any{"entities": ent}))},
			missingAnswer{"configuration[url]", w.U.Post(ctx, "/bulk_imports", Body(map[string]any{"entities": ent, "configuration": map[string]any{"access_token": w.U.Token}}))},
			missingAnswer{"configuration[access_token]", w.U.Post(ctx, "/bulk_imports", Body(map[string]any{"entities": ent, "configuration": map[string]any{"url": api.Base}}))})
		Expect(w.U.Get(ctx, "/bulk_imports").Body).To(MatchJSON(`[]`))
	})

	It("requires entities", Label("rule:bulk_imports.create.3"), func(ctx SpecContext) {
		w := newBulkWorld(ctx)
		r := w.U.Post(ctx, "/bulk_imports", Body(map[string]any{"configuration": bulkConfig(w.U.Token)}))
		SpecOrPlatform("bulk_imports.create.3", func() {
			Expect(r).To(BeMissingAttribute("entities"))
		}, func() {
			Expect(r).To(BeMissingAttributeAsPlatform("entities"))
		})
		Expect(w.U.Get(ctx, "/bulk_imports").Body).To(MatchJSON(`[]`), "no import is created")
	})

	It("requires each entity attribute and a known source_type", Label("rule:bulk_imports.create.4"), func(ctx SpecContext) {
		w := newBulkWorld(ctx)
		for _, attr := range []string{"source_type", "source_full_path", "destination_slug", "destination_namespace"} {
			e := groupEntity(w, Unique("dst"), nil)
			delete(e, attr)
			r := w.U.Post(ctx, "/bulk_imports", Body(map[string]any{"configuration": bulkConfig(w.U.Token), "entities": []any{e}}))
			Expect(r).To(HaveStatus(http.StatusBadRequest), attr)
			// Named in either envelope: the platform's Grape answers
			// {"error":"entities[0][source_type] is missing"} (bulk_imports.create.4).
			Expect(errorText(r)).To(ContainSubstring(attr))
		}
		r := w.U.Post(ctx, "/bulk_imports", Body(map[string]any{"configuration": bulkConfig(w.U.Token),
			"entities": []any{groupEntity(w, Unique("dst"), map[string]any{"source_type": "snippet_entity"})}}))
		Expect(r).To(HaveStatus(http.StatusBadRequest))
		Expect(w.U.Get(ctx, "/bulk_imports").Body).To(MatchJSON(`[]`))
	})

	It("refuses a destination namespace that does not exist or the caller cannot create in", Label("rule:bulk_imports.create.5"), func(ctx SpecContext) {
		w := newBulkWorld(ctx)
		missingNS := groupEntity(w, Unique("dst"), map[string]any{"destination_namespace": Unique("nowhere")})
		r := w.U.Post(ctx, "/bulk_imports", Body(map[string]any{"configuration": bulkConfig(w.U.Token), "entities": []any{missingNS}}))
		Expect(r.Status).To(BeNumerically(">=", 400))
		Expect(r.Status).To(BeNumerically("<", 500))
		// A group where the importing user is only a Developer: no subgroups may be created there.
		other := NewGroup(ctx, api)
		AddGroupMember(ctx, other, w.U, 30)
		lowRole := groupEntity(w, Unique("dst"), map[string]any{"destination_namespace": other.FullPath})
		r = w.U.Post(ctx, "/bulk_imports", Body(map[string]any{"configuration": bulkConfig(w.U.Token), "entities": []any{lowRole}}))
		Expect(r.Status).To(BeNumerically(">=", 400))
		Expect(r.Status).To(BeNumerically("<", 500))
		Expect(w.U.Get(ctx, "/bulk_imports").Body).To(MatchJSON(`[]`))
	})

	It("answers 401 anonymously", Label("rule:bulk_imports.create.6"), func(ctx SpecContext) {
		w := newBulkWorld(ctx)
		r := api.Anonymous().Post(ctx, "/bulk_imports", Body(map[string]any{"configuration": bulkConfig(w.U.Token),
			"entities": []any{groupEntity(w, Unique("dst"), nil)}}))
		Expect(r).To(HaveStatus(http.StatusUnauthorized))
	})

	It("creates the group at namespace/slug named as the source group", Label("rule:bulk_imports.migrate.1"), func(ctx SpecContext) {
		w := newBulkWorld(ctx)
		slug := Unique("dst")
		r := startImport(ctx, w, groupEntity(w, slug, map[string]any{"destination_name": "Ignored " + slug}))
		Expect(awaitImport(ctx, w.U.Client, importID(r)).Get("status").String()).To(Equal("finished"))
		e := onlyEntity(ctx, w.U.Client, importID(r))
		Expect(e.Get("status").String()).To(Equal("finished"))
		g := w.U.Get(ctx, "/groups/"+PathID(w.Dest.FullPath+"/"+slug))
		Expect(g).To(HaveStatus(http.StatusOK))
		Expect(g.Get("path").String()).To(Equal(slug))
		Expect(g.Get("name").String()).To(Equal(w.Source.Name))
		Expect(g.Get("full_path").String()).To(Equal(w.Dest.FullPath + "/" + slug))
	})

	It("copies the projects unless migrate_projects is false", Label("rule:bulk_imports.migrate.2"), func(ctx SpecContext) {
		w := newBulkWorld(ctx)
		with, without := Unique("dst"), Unique("dst")
		a := startImport(ctx, w, groupEntity(w, with, nil))
		awaitImport(ctx, w.U.Client, importID(a))
		b := startImport(ctx, w, groupEntity(w, without, map[string]any{"migrate_projects": false}))
		awaitImport(ctx, w.U.Client, importID(b))
		r := w.U.Get(ctx, "/groups/"+PathID(w.Dest.FullPath+"/"+with)+"/projects")
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(r.Strings("name")).To(Equal([]string{w.Project.Name}))
		Expect(r.Strings("path")).To(Equal([]string{w.Project.Path}))
		r = w.U.Get(ctx, "/groups/"+PathID(w.Dest.FullPath+"/"+without)+"/projects")
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(r.Body).To(MatchJSON(`[]`))
	})

	It("copies the memberships unless migrate_memberships is false", Label("rule:bulk_imports.migrate.3"), func(ctx SpecContext) {
		w := newBulkWorld(ctx)
		with, without := Unique("dst"), Unique("dst")
		a := startImport(ctx, w, groupEntity(w, with, map[string]any{"migrate_projects": false}))
		awaitImport(ctx, w.U.Client, importID(a))
		b := startImport(ctx, w, groupEntity(w, without, map[string]any{"migrate_projects": false, "migrate_memberships": false}))
		awaitImport(ctx, w.U.Client, importID(b))
		m := w.U.Get(ctx, fmt.Sprintf("/groups/%s/members/%d", PathID(w.Dest.FullPath+"/"+with), w.Member.ID))
		Expect(m).To(HaveStatus(http.StatusOK))
		Expect(m.Get("access_level").Int()).To(BeEquivalentTo(30))
		m = w.U.Get(ctx, fmt.Sprintf("/groups/%s/members/%d", PathID(w.Dest.FullPath+"/"+without), w.Member.ID))
		Expect(m).To(HaveStatus(http.StatusNotFound))
	})

	It("creates a project entity at namespace/slug named as the source project", Label("rule:bulk_imports.migrate.4"), func(ctx SpecContext) {
		w := newBulkWorld(ctx)
		slug := Unique("dst")
		r := startImport(ctx, w, map[string]any{"source_type": "project_entity", "source_full_path": w.Project.FullPath,
			"destination_slug": slug, "destination_namespace": w.Dest.FullPath})
		awaitImport(ctx, w.U.Client, importID(r))
		e := onlyEntity(ctx, w.U.Client, importID(r))
		Expect(e.Get("entity_type").String()).To(Equal("project"))
		Expect(e.Get("status").String()).To(Equal("finished"))
		p := w.U.Get(ctx, "/projects/"+PathID(w.Dest.FullPath+"/"+slug))
		Expect(p).To(HaveStatus(http.StatusOK))
		Expect(p.Get("name").String()).To(Equal(w.Project.Name))
		Expect(p.Get("path").String()).To(Equal(slug))
	})
})

var _ = Describe("GET /bulk_imports/:id/entities/:entity_id", Label("area:bulk_imports", "endpoint:bulk_imports.entity"), func() {
	It("carries every field as given", Label("rule:bulk_imports.entity.1"), func(ctx SpecContext) {
		w := newBulkWorld(ctx)
		slug := Unique("dst")
		r := startImport(ctx, w, groupEntity(w, slug, nil))
		e := onlyEntity(ctx, w.U.Client, importID(r))
		Expect(e).To(MatchSchema("bulk_import_entity", false))
		Expect(e.Get("bulk_import_id").Int()).To(BeEquivalentTo(importID(r)))
		Expect(e.Get("entity_type").String()).To(Equal("group"))
		Expect(e.Get("source_full_path").String()).To(Equal(w.Source.FullPath))
		Expect(e.Get("destination_slug").String()).To(Equal(slug))
		Expect(e.Get("destination_namespace").String()).To(Equal(w.Dest.FullPath))
		Expect(e.Get("destination_full_path").String()).To(Equal(w.Dest.FullPath + "/" + slug))
		Expect(e.Get("failures").IsArray()).To(BeTrue())
		Expect(e.Get("stats").IsObject()).To(BeTrue())
		expectOnClock("the entity's created_at", e.Get("created_at").String(), r)
	})

	It("defaults migrate_projects and migrate_memberships to true", Label("rule:bulk_imports.entity.2"), func(ctx SpecContext) {
		w := newBulkWorld(ctx)
		e := onlyEntity(ctx, w.U.Client, importID(startImport(ctx, w, groupEntity(w, Unique("dst"), nil))))
		Expect(e.Get("migrate_projects").Bool()).To(BeTrue())
		Expect(e.Get("migrate_memberships").Bool()).To(BeTrue())
		e = onlyEntity(ctx, w.U.Client, importID(startImport(ctx, w, groupEntity(w, Unique("dst"),
			map[string]any{"migrate_projects": false, "migrate_memberships": false}))))
		Expect(e.Get("migrate_projects").Bool()).To(BeFalse())
		Expect(e.Get("migrate_memberships").Bool()).To(BeFalse())
	})

	It("answers 404 for an entity of another import or an unknown one", Label("rule:bulk_imports.entity.3"), func(ctx SpecContext) {
		w := newBulkWorld(ctx)
		a := importID(startImport(ctx, w, groupEntity(w, Unique("dst"), nil)))
		b := importID(startImport(ctx, w, groupEntity(w, Unique("dst"), nil)))
		ea := onlyEntity(ctx, w.U.Client, a).Get("id").Int()
		Expect(w.U.Get(ctx, bulkPath(b, "entities", fmt.Sprint(ea)))).To(HaveStatus(http.StatusNotFound))
		Expect(w.U.Get(ctx, bulkPath(a, "entities", "999999999"))).To(HaveStatus(http.StatusNotFound))
	})
})

// failedImport starts an import that cannot succeed; the platform may refuse
// it at once (ok false) instead of recording the failure.
func failedImport(ctx context.Context, w *bulkWorld, token string, entity map[string]any) (id int, ok bool) {
	GinkgoHelper()
	r := w.U.Post(ctx, "/bulk_imports", Body(map[string]any{"configuration": bulkConfig(token), "entities": []any{entity}}))
	if r.Status == http.StatusUnprocessableEntity {
		return 0, false
	}
	Expect(r).To(HaveStatus(http.StatusCreated))
	id = importID(r)
	Expect(awaitImport(ctx, w.U.Client, id).Get("has_failures").Bool()).To(BeTrue())
	return id, true
}

var _ = Describe("GET /bulk_imports/:id/entities/:entity_id/failures", Label("area:bulk_imports", "endpoint:bulk_imports.failures"), func() {
	It("fails an entity whose source path does not exist, with failures", Label("rule:bulk_imports.failures.1"), func(ctx SpecContext) {
		w := newBulkWorld(ctx)
		id, ok := failedImport(ctx, w, w.U.Token, groupEntity(w, Unique("dst"), map[string]any{"source_full_path": Unique("absent")}))
		if !ok {
			return
		}
		e := onlyEntity(ctx, w.U.Client, id)
		Expect(e.Get("status").String()).To(Equal("failed"))
		Expect(e.Get("has_failures").Bool()).To(BeTrue())
		Expect(e.Get("failures.#").Int()).To(BeNumerically(">=", 1))
		failure := e.Get("failures.0").Map()
		SpecOrPlatform("bulk_imports.failures.1", func() {
			for _, k := range []string{"relation", "step", "exception_message", "exception_class", "correlation_id_value", "created_at", "pipeline_class", "pipeline_step"} {
				Expect(failure).To(HaveKey(k))
			}
		}, func() {
			// The platform presents an entity's failures with
			// Entities::BulkImports::EntityFailure, the failed-record shape.
			for _, k := range []string{"relation", "exception_message", "exception_class", "correlation_id_value", "source_url", "source_title"} {
				Expect(failure).To(HaveKey(k))
			}
		})
	})

	It("fails an entity when the source refuses the token", Label("rule:bulk_imports.failures.2"), func(ctx SpecContext) {
		w := newBulkWorld(ctx)
		id, ok := failedImport(ctx, w, "glpat-not-a-valid-token-00000", groupEntity(w, Unique("dst"), nil))
		if !ok {
			return
		}
		e := onlyEntity(ctx, w.U.Client, id)
		Expect(e.Get("status").String()).To(Equal("failed"))
		Expect(e.Get("failures.#").Int()).To(BeNumerically(">=", 1))
	})

	It("lists the failed records of an entity, none for a clean one", Label("rule:bulk_imports.failures.3"), func(ctx SpecContext) {
		w := newBulkWorld(ctx)
		good := importID(startImport(ctx, w, groupEntity(w, Unique("dst"), nil)))
		awaitImport(ctx, w.U.Client, good)
		ge := onlyEntity(ctx, w.U.Client, good)
		r := w.U.Get(ctx, bulkPath(good, "entities", fmt.Sprint(ge.Get("id").Int()), "failures"))
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(r.Body).To(MatchJSON(`[]`))
		id, ok := failedImport(ctx, w, w.U.Token, groupEntity(w, Unique("dst"), map[string]any{"source_full_path": Unique("absent")}))
		if !ok {
			return
		}
		e := onlyEntity(ctx, w.U.Client, id)
		r = w.U.Get(ctx, bulkPath(id, "entities", fmt.Sprint(e.Get("id").Int()), "failures"))
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(r).To(MatchSchema("bulk_import_failure", true))
		Expect(r.JSON().Array()).NotTo(BeEmpty())
		Expect(r.Get("0").Map()).To(HaveKey("exception_message"))
	})
})

var _ = Describe("GET /bulk_imports/:id", Label("area:bulk_imports", "endpoint:bulk_imports.get"), func() {
	It("keeps import and entity status within the value set", Label("rule:bulk_imports.states.1"), func(ctx SpecContext) {
		w := newBulkWorld(ctx)
		r := startImport(ctx, w, groupEntity(w, Unique("dst"), nil))
		Expect(r.Get("status").String()).To(BeElementOf(bulkStatuses))
		done := awaitImport(ctx, w.U.Client, importID(r))
		Expect(done.Get("status").String()).To(BeElementOf(bulkStatuses))
		Expect(onlyEntity(ctx, w.U.Client, importID(r)).Get("status").String()).To(BeElementOf(bulkStatuses))
	})

	It("answers the import, 404 for an unknown id, 401 anonymously", Label("rule:bulk_imports.get.1"), func(ctx SpecContext) {
		w := newBulkWorld(ctx)
		id := importID(startImport(ctx, w, groupEntity(w, Unique("dst"), nil)))
		r := w.U.Get(ctx, bulkPath(id))
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(r.Get("id").Int()).To(BeEquivalentTo(id))
		Expect(r.Get("source_url").String()).To(Equal(api.Base))
		Expect(w.U.Get(ctx, bulkPath(999999999))).To(HaveStatus(http.StatusNotFound))
		Expect(api.Anonymous().Get(ctx, bulkPath(id))).To(HaveStatus(http.StatusUnauthorized))
	})

	It("shows an import to its creator, and to no other user", Label("rule:bulk_imports.get.2"), func(ctx SpecContext) {
		w := newBulkWorld(ctx)
		id := importID(startImport(ctx, w, groupEntity(w, Unique("dst"), nil)))
		eid := fmt.Sprint(onlyEntity(ctx, w.U.Client, id).Get("id").Int())
		Expect(w.U.Get(ctx, bulkPath(id))).To(HaveStatus(http.StatusOK))
		// The spec says nothing on who sees an import; the platform shows
		// each user only their own, administrators included
		// (bulk_imports.get.2's platform.does), so an administrator reads
		// it or gets 404.
		if r := api.Get(ctx, bulkPath(id)); r.Status != http.StatusNotFound {
			Expect(r).To(HaveStatus(http.StatusOK))
			Expect(r.Get("id").Int()).To(BeEquivalentTo(id))
		}
		other := NewUser(ctx)
		for _, p := range []string{bulkPath(id), bulkPath(id, "entities"), bulkPath(id, "entities", eid), bulkPath(id, "entities", eid, "failures")} {
			Expect(other.Get(ctx, p)).To(HaveStatus(http.StatusNotFound), p)
		}
		Expect(other.Get(ctx, "/bulk_imports").Body).To(MatchJSON(`[]`))
		Expect(other.Get(ctx, "/bulk_imports/entities").Body).To(MatchJSON(`[]`))
	})
})

// threeImports starts three imports as w.U and returns their ids in creation order.
func threeImports(ctx context.Context, w *bulkWorld) []int {
	GinkgoHelper()
	var ids []int
	for range 3 {
		r := startImport(ctx, w, groupEntity(w, Unique("dst"), map[string]any{"migrate_projects": false}))
		ids = append(ids, importID(r))
		awaitImport(ctx, w.U.Client, importID(r))
	}
	return ids
}

var _ = Describe("GET /bulk_imports", Label("area:bulk_imports", "endpoint:bulk_imports.list"), func() {
	It("lists the caller's imports newest first, oldest first with sort=asc", Label("rule:bulk_imports.list.1"), func(ctx SpecContext) {
		w := newBulkWorld(ctx)
		ids := threeImports(ctx, w)
		r := w.U.Get(ctx, "/bulk_imports")
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(r).To(MatchSchema("bulk_import", true))
		Expect(r.IDs()).To(Equal([]int{ids[2], ids[1], ids[0]}))
		Expect(w.U.Get(ctx, "/bulk_imports", Q("sort", "asc")).IDs()).To(Equal(ids))
	})

	It("filters by status and refuses unknown status and sort values", Label("rule:bulk_imports.list.2"), func(ctx SpecContext) {
		w := newBulkWorld(ctx)
		ok := importID(startImport(ctx, w, groupEntity(w, Unique("dst"), map[string]any{"migrate_projects": false})))
		awaitImport(ctx, w.U.Client, ok)
		bad, recorded := failedImport(ctx, w, w.U.Token, groupEntity(w, Unique("dst"), map[string]any{"source_full_path": Unique("absent")}))
		Expect(w.U.Get(ctx, "/bulk_imports", Q("status", "finished")).IDs()).To(Equal([]int{ok}))
		if recorded {
			Expect(w.U.Get(ctx, "/bulk_imports", Q("status", "failed")).IDs()).To(Equal([]int{bad}))
		}
		Expect(w.U.Get(ctx, "/bulk_imports", Q("status", "created")).Body).To(MatchJSON(`[]`))
		Expect(w.U.Get(ctx, "/bulk_imports", Q("status", "sleeping"))).To(HaveStatus(http.StatusBadRequest))
		Expect(w.U.Get(ctx, "/bulk_imports", Q("sort", "sideways"))).To(HaveStatus(http.StatusBadRequest))
	})

	It("paginates with page and per_page", Label("rule:bulk_imports.list.3"), func(ctx SpecContext) {
		w := newBulkWorld(ctx)
		ids := threeImports(ctx, w)
		r := w.U.Get(ctx, "/bulk_imports", Q("per_page", 2), Q("page", 2))
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(r.IDs()).To(Equal([]int{ids[0]}))
		Expect(r).To(HaveHeader("X-Page", "2"))
		Expect(r).To(HaveHeader("X-Per-Page", "2"))
		Expect(r).To(HaveHeader("X-Prev-Page", "1"))
	})

	It("answers 401 anonymously", Label("rule:bulk_imports.list.4"), func(ctx SpecContext) {
		Expect(api.Anonymous().Get(ctx, "/bulk_imports")).To(HaveStatus(http.StatusUnauthorized))
	})
})

var _ = Describe("GET /bulk_imports/entities", Label("area:bulk_imports", "endpoint:bulk_imports.entities_all"), func() {
	It("lists the entities of the caller's imports, sorted, filtered, paginated", Label("rule:bulk_imports.entities_all.1"), func(ctx SpecContext) {
		w := newBulkWorld(ctx)
		ids := threeImports(ctx, w)
		var eids []int
		for _, id := range ids {
			eids = append(eids, int(onlyEntity(ctx, w.U.Client, id).Get("id").Int()))
		}
		r := w.U.Get(ctx, "/bulk_imports/entities")
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(r).To(MatchSchema("bulk_import_entity", true))
		Expect(r.IDs()).To(Equal([]int{eids[2], eids[1], eids[0]}))
		Expect(w.U.Get(ctx, "/bulk_imports/entities", Q("sort", "asc")).IDs()).To(Equal(eids))
		Expect(w.U.Get(ctx, "/bulk_imports/entities", Q("status", "finished")).IDs()).To(Equal([]int{eids[2], eids[1], eids[0]}))
		Expect(w.U.Get(ctx, "/bulk_imports/entities", Q("status", "failed")).Body).To(MatchJSON(`[]`))
		p := w.U.Get(ctx, "/bulk_imports/entities", Q("per_page", 1), Q("page", 2))
		Expect(p.IDs()).To(Equal([]int{eids[1]}))
		Expect(p).To(HaveHeader("X-Total", "3"))
	})
})

var _ = Describe("GET /bulk_imports/:id/entities", Label("area:bulk_imports", "endpoint:bulk_imports.entities"), func() {
	It("lists only the import's entities, sorted, filtered, paginated", Label("rule:bulk_imports.entities.1"), func(ctx SpecContext) {
		w := newBulkWorld(ctx)
		other := importID(startImport(ctx, w, groupEntity(w, Unique("dst"), nil)))
		awaitImport(ctx, w.U.Client, other)
		r := startImport(ctx, w, groupEntity(w, Unique("dst"), map[string]any{"migrate_projects": false}),
			map[string]any{"source_type": "project_entity", "source_full_path": w.Project.FullPath,
				"destination_slug": Unique("dst"), "destination_namespace": w.Dest.FullPath})
		id := importID(r)
		awaitImport(ctx, w.U.Client, id)
		l := w.U.Get(ctx, bulkPath(id, "entities"), Q("sort", "asc"))
		Expect(l).To(HaveStatus(http.StatusOK))
		Expect(l).To(MatchSchema("bulk_import_entity", true))
		Expect(l.Strings("entity_type")).To(Equal([]string{"group", "project"}))
		asc := l.IDs()
		Expect(w.U.Get(ctx, bulkPath(id, "entities")).IDs()).To(Equal([]int{asc[1], asc[0]}))
		Expect(w.U.Get(ctx, bulkPath(id, "entities"), Q("status", "failed")).Body).To(MatchJSON(`[]`))
		p := w.U.Get(ctx, bulkPath(id, "entities"), Q("per_page", 1), Q("sort", "asc"))
		Expect(p.IDs()).To(Equal([]int{asc[0]}))
		Expect(p).To(HaveHeader("X-Total", "2"))
	})
})

var _ = Describe("POST /bulk_imports/:id/cancel", Label("area:bulk_imports", "endpoint:bulk_imports.cancel"), func() {
	It("cancels an existing import for an administrator", Label("rule:bulk_imports.cancel.1"), func(ctx SpecContext) {
		w := newBulkWorld(ctx)
		id := importID(startImport(ctx, w, groupEntity(w, Unique("dst"), nil)))
		r := api.Post(ctx, bulkPath(id, "cancel"))
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(r).To(MatchSchema("bulk_import", false))
		Expect(r.Get("id").Int()).To(BeEquivalentTo(id))
		Expect(r.Get("status").String()).To(Equal("canceled"))
		Expect(w.U.Get(ctx, bulkPath(id)).Get("status").String()).To(Equal("canceled"))
	})

	// The spec says only "caller authorized"; on the platform the import's
	// creator may cancel it too (rulebook, bulk_imports.cancel.2).
	It("answers 401 anonymously, 403 to other non-administrators, 404 for an unknown import", Label("rule:bulk_imports.cancel.2"), func(ctx SpecContext) {
		w := newBulkWorld(ctx)
		id := importID(startImport(ctx, w, groupEntity(w, Unique("dst"), nil)))
		before := awaitImport(ctx, w.U.Client, id).Get("status").String()
		Expect(api.Anonymous().Post(ctx, bulkPath(id, "cancel"))).To(HaveStatus(http.StatusUnauthorized))
		Expect(NewUser(ctx).Post(ctx, bulkPath(id, "cancel"))).To(HaveStatus(http.StatusForbidden))
		Expect(w.U.Get(ctx, bulkPath(id)).Get("status").String()).To(Equal(before), "the refused cancels changed nothing")
		Expect(api.Post(ctx, bulkPath(999999999, "cancel"))).To(HaveStatus(http.StatusNotFound))
		Expect(NewUser(ctx).Post(ctx, bulkPath(999999999, "cancel"))).To(HaveStatus(http.StatusNotFound))
		if r := w.U.Post(ctx, bulkPath(id, "cancel")); r.Status == http.StatusOK {
			Expect(r.Get("status").String()).To(Equal("canceled"), "the creator canceled it")
			Expect(w.U.Get(ctx, bulkPath(id)).Get("status").String()).To(Equal("canceled"))
		} else {
			Expect(r).To(HaveStatus(http.StatusForbidden), "the creator cancels, or is refused")
			Expect(w.U.Get(ctx, bulkPath(id)).Get("status").String()).To(Equal(before))
		}
	})
})
