package suites

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// awardForm is one of the paths reactions live under (Endpoints, Emoji
// reactions): an issue, a snippet, or a note on either. Every rule holds for
// each form, so each form gets the same specs.
type awardForm struct {
	stem     string // endpoint id stem
	specPath string // the awardable's path in the spec's syntax
	typ      string // awardable_type of its reactions
	kind     string // issue, snippet or merge_request
	note     bool
	// reader is the lowest role that reads the awardable in a private
	// project: Guest, but Reporter for merge requests, which compare code.
	reader int
}

var awardForms = []awardForm{
	{"issue", "/projects/:id/issues/:issue_iid", "Issue", "issue", false, GuestLevel},
	{"snippet", "/projects/:id/snippets/:snippet_id", "Snippet", "snippet", false, GuestLevel},
	{"merge_request", "/projects/:id/merge_requests/:merge_request_iid", "MergeRequest", "merge_request", false, ReporterLevel},
	{"issue_note", "/projects/:id/issues/:issue_iid/notes/:note_id", "Note", "issue", true, GuestLevel},
	{"snippet_note", "/projects/:id/snippets/:snippet_id/notes/:note_id", "Note", "snippet", true, GuestLevel},
	{"merge_request_note", "/projects/:id/merge_requests/:merge_request_iid/notes/:note_id", "Note", "merge_request", true, ReporterLevel},
}

// awardable is one awardable of a spec: its path below the project and the
// global id its reactions carry as awardable_id.
type awardable struct {
	p   *Project
	rel string // e.g. "issues/3/notes/7"
	id  int
}

// reactions is the reactions collection, with the project addressed by pid
// (its integer ID or URL-encoded full path).
func (a *awardable) reactionsAt(pid string) string {
	return "/projects/" + pid + "/" + a.rel + "/award_emoji"
}

func (a *awardable) reactions() string { return a.reactionsAt(fmt.Sprint(a.p.ID)) }

func (a *awardable) reaction(id any) string { return fmt.Sprintf("%s/%v", a.reactions(), id) }

// newAwardable creates, as the administrator, an awardable of form f in p
// through the platform's Issues, Project snippets and Notes APIs.
func newAwardable(ctx context.Context, f awardForm, p *Project, visibility string) *awardable {
	GinkgoHelper()
	var rel string
	var id int
	switch f.kind {
	case "snippet":
		r := api.Post(ctx, fmt.Sprintf("/projects/%d/snippets", p.ID), Body(map[string]any{
			"title": Unique("snippet"), "visibility": visibility,
			"files": []map[string]any{{"file_path": "hello.txt", "content": "hello"}}}))
		ExpectFixture(r).To(HaveStatus(http.StatusCreated), "creating a fixture snippet")
		id = int(r.Get("id").Int())
		rel = fmt.Sprintf("snippets/%d", id)
	case "merge_request":
		rp := &RepoProject{Project: p, Owner: api, DefaultBranch: "main"}
		mr := rp.FeatureMR(ctx, Unique("b"))
		id = mr.ID
		rel = fmt.Sprintf("merge_requests/%d", mr.IID)
	default:
		r := api.Post(ctx, fmt.Sprintf("/projects/%d/issues", p.ID), Body(map[string]any{"title": Unique("issue")}))
		ExpectFixture(r).To(HaveStatus(http.StatusCreated), "creating a fixture issue")
		id = int(r.Get("id").Int())
		rel = fmt.Sprintf("issues/%d", r.Get("iid").Int())
	}
	if f.note {
		r := api.Post(ctx, fmt.Sprintf("/projects/%d/%s/notes", p.ID, rel), Body(map[string]any{"body": Unique("note")}))
		ExpectFixture(r).To(HaveStatus(http.StatusCreated), "creating a fixture note")
		id = int(r.Get("id").Int())
		rel += fmt.Sprintf("/notes/%d", id)
	}
	return &awardable{p: p, rel: rel, id: id}
}

// awardWorld is a project owned by a user, with a member of the lowest role
// that reads the awardable (Reader), a signed-in outsider and one awardable
// of the form under test; merge requests get a repository to compare.
type awardWorld struct {
	Owner, Reader, Outsider *User
	P                       *Project
	A                       *awardable
}

func newAwardWorld(ctx context.Context, f awardForm, visibility string) *awardWorld {
	GinkgoHelper()
	users := newUsers(ctx, 3)
	w := &awardWorld{Owner: users[0], Reader: users[1], Outsider: users[2]}
	w.P = NewProject(ctx, w.Owner.Client, ProjectOpts{"visibility": visibility, "initialize_with_readme": f.kind == "merge_request"})
	// The Reader's membership and the awardable need only the project, not
	// each other: both at once, a round trip less per world.
	parallelN(2, 2, func(i int) {
		if i == 0 {
			AddProjectMember(ctx, w.P, w.Reader, f.reader)
		} else {
			w.A = newAwardable(ctx, f, w.P, visibility)
		}
	})
	ExpectFixture(w.A).NotTo(BeNil(), "creating the fixture awardable")
	return w
}

// react adds the reaction name to a as by and returns its id.
func react(ctx context.Context, by *Client, a *awardable, name string) int {
	GinkgoHelper()
	r := by.Post(ctx, a.reactions(), Body(map[string]any{"name": name}))
	ExpectFixture(r).To(HaveStatus(http.StatusCreated), "creating a fixture reaction")
	return int(r.Get("id").Int())
}

// reactionIDs reads a's reactions as the administrator.
func reactionIDs(ctx context.Context, a *awardable) []int {
	GinkgoHelper()
	r := api.Get(ctx, a.reactions(), Q("per_page", 100))
	Expect(r).To(HaveStatus(http.StatusOK))
	return r.IDs()
}

var _ = func() bool {
	for _, f := range awardForms {
		describeAwardEmoji(f)
	}
	return true
}()

func describeAwardEmoji(f awardForm) {
	labels := func(op string) Labels {
		return Label("area:award_emoji", "endpoint:award_emoji."+f.stem+"_"+op)
	}
	collection := f.specPath + "/award_emoji"
	single := collection + "/:award_id"

	Describe("GET "+collection, labels("list"), func() {
		It("lists all the awardable's reactions and no other awardable's", Label("rule:award_emoji.list.1"), func(ctx SpecContext) {
			w := newAwardWorld(ctx, f, "private")
			other := newAwardable(ctx, f, w.P, "private")
			a1 := react(ctx, api, w.A, "thumbsup")
			a2 := react(ctx, w.Reader.Client, w.A, "thumbsup")
			react(ctx, api, other, "tada")
			r := api.Get(ctx, w.A.reactions())
			Expect(r).To(HaveStatus(http.StatusOK))
			Expect(r).To(MatchSchema("award_emoji", true))
			Expect(r.IDs()).To(ConsistOf(a1, a2))
			Expect(r.Strings("awardable_type")).To(HaveEach(f.typ))
		})

		It("paginates with page (default 1) and per_page (default 20)", Label("rule:award_emoji.list.2"), func(ctx SpecContext) {
			w := newAwardWorld(ctx, f, "private")
			ids := []int{react(ctx, api, w.A, "smile"), react(ctx, api, w.A, "rocket"), react(ctx, api, w.A, "100")}
			first := api.Get(ctx, w.A.reactions(), Q("per_page", 2))
			Expect(first).To(HaveStatus(http.StatusOK))
			Expect(first.IDs()).To(HaveLen(2))
			Expect(first).To(HaveHeader("X-Page", "1"))
			Expect(first).To(HaveHeader("X-Per-Page", "2"))
			Expect(first).To(HaveHeader("X-Next-Page", "2"))
			Expect(first).To(HaveHeader("X-Total", "3"))
			Expect(first).To(HaveHeader("X-Total-Pages", "2"))
			second := api.Get(ctx, w.A.reactions(), Q("per_page", 2), Q("page", 2))
			Expect(second).To(HaveStatus(http.StatusOK))
			Expect(second).To(HaveHeader("X-Prev-Page", "1"))
			Expect(append(first.IDs(), second.IDs()...)).To(ConsistOf(ids))
			defaults := api.Get(ctx, w.A.reactions())
			Expect(defaults).To(HaveHeader("X-Page", "1"))
			Expect(defaults).To(HaveHeader("X-Per-Page", "20"))
			Expect(defaults.IDs()).To(ConsistOf(ids))
		})

		It("answers anonymous callers on a public project and hides a private one", Label("rule:award_emoji.list.3"), func(ctx SpecContext) {
			pub := newAwardWorld(ctx, f, "public")
			id := react(ctx, pub.Reader.Client, pub.A, "thumbsup")
			r := api.Anonymous().Get(ctx, pub.A.reactions())
			Expect(r).To(HaveStatus(http.StatusOK))
			Expect(r.IDs()).To(ConsistOf(id))
			priv := newAwardWorld(ctx, f, "private")
			react(ctx, priv.Reader.Client, priv.A, "thumbsup")
			Expect(api.Anonymous().Get(ctx, priv.A.reactions())).To(HaveStatus(http.StatusNotFound))
		})

		It("lets the lowest reader of a private project read the list and hides it from non-members", Label("rule:award_emoji.list.4"), func(ctx SpecContext) {
			w := newAwardWorld(ctx, f, "private")
			id := react(ctx, api, w.A, "thumbsup")
			r := w.Reader.Get(ctx, w.A.reactions())
			Expect(r).To(HaveStatus(http.StatusOK))
			Expect(r.IDs()).To(ConsistOf(id))
			Expect(w.Outsider.Get(ctx, w.A.reactions())).To(HaveStatus(http.StatusNotFound))
		})

		It("answers 404 for an awardable or project that does not exist", Label("rule:award_emoji.awardable.1"), func(ctx SpecContext) {
			w := newAwardWorld(ctx, f, "private")
			other := newAwardable(ctx, f, w.P, "private")
			parts := strings.Split(w.A.rel, "/")
			if f.note {
				// A note of another issue or snippet is not this awardable's note.
				parts[1] = strings.Split(other.rel, "/")[1]
				Expect(api.Get(ctx, "/projects/"+fmt.Sprint(w.P.ID)+"/"+strings.Join(parts, "/")+"/award_emoji")).
					To(HaveStatus(http.StatusNotFound))
				parts = strings.Split(w.A.rel, "/")
				parts[3] = "999999999"
			} else {
				parts[1] = "999999999"
			}
			Expect(api.Get(ctx, "/projects/"+fmt.Sprint(w.P.ID)+"/"+strings.Join(parts, "/")+"/award_emoji")).
				To(HaveStatus(http.StatusNotFound))
			Expect(api.Get(ctx, w.A.reactionsAt("999999999"))).To(HaveStatus(http.StatusNotFound))
		})

		It("takes the project's integer ID or its URL-encoded full path", Label("rule:award_emoji.awardable.2"), func(ctx SpecContext) {
			w := newAwardWorld(ctx, f, "private")
			id := react(ctx, api, w.A, "eyes")
			r := api.Get(ctx, w.A.reactionsAt(PathID(w.P.FullPath)))
			Expect(r).To(HaveStatus(http.StatusOK))
			Expect(r.IDs()).To(ConsistOf(id))
		})
	})

	Describe("GET "+single, labels("get"), func() {
		It("answers one reaction with every field of the resource", Label("rule:award_emoji.get.1", "rule:award_emoji.fields.1"), func(ctx SpecContext) {
			w := newAwardWorld(ctx, f, "private")
			id := react(ctx, w.Reader.Client, w.A, "thumbsup")
			r := api.Get(ctx, w.A.reaction(id))
			Expect(r).To(HaveStatus(http.StatusOK))
			Expect(r).To(MatchSchema("award_emoji", false))
			Expect(r.Get("id").Int()).To(BeEquivalentTo(id))
			Expect(r.Get("name").String()).To(Equal("thumbsup"))
			Expect(r.Get("user.id").Int()).To(BeEquivalentTo(w.Reader.ID))
			Expect(r.Get("user.username").String()).To(Equal(w.Reader.Username))
			Expect(r.Get("awardable_id").Int()).To(BeEquivalentTo(w.A.id))
			Expect(r.Get("awardable_type").String()).To(Equal(f.typ))
			Expect(r.Get("created_at").String()).NotTo(BeEmpty())
			Expect(r.Get("updated_at").String()).NotTo(BeEmpty())
		})

		It("answers 404 for an unknown reaction or another awardable's", Label("rule:award_emoji.get.2"), func(ctx SpecContext) {
			w := newAwardWorld(ctx, f, "private")
			other := newAwardable(ctx, f, w.P, "private")
			react(ctx, api, w.A, "thumbsup")
			foreign := react(ctx, api, other, "thumbsup")
			Expect(api.Get(ctx, w.A.reaction(foreign))).To(HaveStatus(http.StatusNotFound))
			Expect(api.Get(ctx, w.A.reaction(999999999))).To(HaveStatus(http.StatusNotFound))
		})

		It("answers anonymous callers on public awardables, hides private projects from non-members and answers the lowest reader", Label("rule:award_emoji.get.3"), func(ctx SpecContext) {
			pub := newAwardWorld(ctx, f, "public")
			pubID := react(ctx, api, pub.A, "thumbsup")
			anon := api.Anonymous().Get(ctx, pub.A.reaction(pubID))
			Expect(anon).To(HaveStatus(http.StatusOK))
			Expect(anon.Get("id").Int()).To(BeEquivalentTo(pubID))
			Expect(pub.Outsider.Get(ctx, pub.A.reaction(pubID))).To(HaveStatus(http.StatusOK))
			w := newAwardWorld(ctx, f, "private")
			id := react(ctx, api, w.A, "thumbsup")
			Expect(w.Outsider.Get(ctx, w.A.reaction(id))).To(HaveStatus(http.StatusNotFound))
			Expect(w.Reader.Get(ctx, w.A.reaction(id))).To(HaveStatus(http.StatusOK))
		})
	})

	Describe("POST "+collection, labels("create"), func() {
		It("creates the reaction as the caller and lists it", Label("rule:award_emoji.create.1"), func(ctx SpecContext) {
			w := newAwardWorld(ctx, f, "private")
			r := w.Reader.Post(ctx, w.A.reactions(), Body(map[string]any{"name": "tada"}))
			Expect(r).To(HaveStatus(http.StatusCreated))
			Expect(r).To(MatchSchema("award_emoji", false))
			Expect(r.Get("name").String()).To(Equal("tada"))
			Expect(r.Get("user.id").Int()).To(BeEquivalentTo(w.Reader.ID))
			Expect(r.Get("awardable_id").Int()).To(BeEquivalentTo(w.A.id))
			Expect(r.Get("awardable_type").String()).To(Equal(f.typ))
			Expect(reactionIDs(ctx, w.A)).To(ConsistOf(int(r.Get("id").Int())))
		})

		It("requires name", Label("rule:award_emoji.create.2"), func(ctx SpecContext) {
			w := newAwardWorld(ctx, f, "private")
			expectMissingAttribute("award_emoji.create.2", api.Post(ctx, w.A.reactions(), Body(map[string]any{})), "name")
			Expect(reactionIDs(ctx, w.A)).To(BeEmpty())
		})

		It("refuses names outside the emoji list and names in colons with 404", Label("rule:award_emoji.create.3"), func(ctx SpecContext) {
			w := newAwardWorld(ctx, f, "private")
			for _, name := range []string{"not_an_emoji_at_all", ":thumbsup:"} {
				Expect(api.Post(ctx, w.A.reactions(), Body(map[string]any{"name": name}))).
					To(HaveStatus(http.StatusNotFound), name)
			}
			Expect(reactionIDs(ctx, w.A)).To(BeEmpty())
		})

		It("refuses the same reaction twice by one user but not by another or with another name", Label("rule:award_emoji.create.4"), func(ctx SpecContext) {
			w := newAwardWorld(ctx, f, "private")
			first := react(ctx, w.Reader.Client, w.A, "thumbsup")
			again := w.Reader.Post(ctx, w.A.reactions(), Body(map[string]any{"name": "thumbsup"}))
			Expect(again).To(HaveStatus(http.StatusNotFound))
			Expect(again.Get("message").String()).To(ContainSubstring("has already been taken"))
			byOther := react(ctx, w.Owner.Client, w.A, "thumbsup")
			another := react(ctx, w.Reader.Client, w.A, "thumbsdown")
			Expect(reactionIDs(ctx, w.A)).To(ConsistOf(first, byOther, another))
		})

		It("lets whoever sees the awardable react, hides private projects and needs credentials", Label("rule:award_emoji.create.5"), func(ctx SpecContext) {
			pub := newAwardWorld(ctx, f, "public")
			Expect(pub.Outsider.Post(ctx, pub.A.reactions(), Body(map[string]any{"name": "smile"}))).
				To(HaveStatus(http.StatusCreated))
			Expect(api.Anonymous().Post(ctx, pub.A.reactions(), Body(map[string]any{"name": "rocket"}))).
				To(HaveStatus(http.StatusUnauthorized))
			w := newAwardWorld(ctx, f, "private")
			Expect(w.Outsider.Post(ctx, w.A.reactions(), Body(map[string]any{"name": "smile"}))).
				To(HaveStatus(http.StatusNotFound))
			// A private project is hidden from anonymous callers: the platform's
			// 404 is admitted beside 401 (rulebook, award_emoji.create.5).
			Expect(api.Anonymous().Post(ctx, w.A.reactions(), Body(map[string]any{"name": "smile"}))).
				To(HaveStatus(http.StatusUnauthorized, http.StatusNotFound))
			Expect(w.Reader.Post(ctx, w.A.reactions(), Body(map[string]any{"name": "smile"}))).
				To(HaveStatus(http.StatusCreated))
			Expect(reactionIDs(ctx, w.A)).To(HaveLen(1))
		})
	})

	Describe("DELETE "+single, labels("delete"), func() {
		It("lets the reaction's author delete it", Label("rule:award_emoji.delete.1"), func(ctx SpecContext) {
			w := newAwardWorld(ctx, f, "private")
			id := react(ctx, w.Reader.Client, w.A, "thumbsup")
			keep := react(ctx, api, w.A, "thumbsup")
			Expect(w.Reader.Delete(ctx, w.A.reaction(id))).To(HaveStatus(http.StatusNoContent))
			Expect(reactionIDs(ctx, w.A)).To(ConsistOf(keep))
			Expect(api.Get(ctx, w.A.reaction(id))).To(HaveStatus(http.StatusNotFound))
		})

		It("lets an administrator delete any user's reaction", Label("rule:award_emoji.delete.2"), func(ctx SpecContext) {
			w := newAwardWorld(ctx, f, "private")
			id := react(ctx, w.Reader.Client, w.A, "thumbsup")
			Expect(api.Delete(ctx, w.A.reaction(id))).To(HaveStatus(http.StatusNoContent))
			Expect(reactionIDs(ctx, w.A)).To(BeEmpty())
		})

		It("refuses everyone else, the project's Owner included", Label("rule:award_emoji.delete.3"), func(ctx SpecContext) {
			pub := newAwardWorld(ctx, f, "public")
			id := react(ctx, pub.Reader.Client, pub.A, "thumbsup")
			Expect(pub.Owner.Delete(ctx, pub.A.reaction(id))).To(HaveStatus(http.StatusForbidden))
			Expect(pub.Outsider.Delete(ctx, pub.A.reaction(id))).To(HaveStatus(http.StatusForbidden))
			Expect(api.Anonymous().Delete(ctx, pub.A.reaction(id))).To(HaveStatus(http.StatusUnauthorized))
			Expect(reactionIDs(ctx, pub.A)).To(ConsistOf(id))
			w := newAwardWorld(ctx, f, "private")
			byOwner := react(ctx, w.Owner.Client, w.A, "thumbsup")
			Expect(w.Reader.Delete(ctx, w.A.reaction(byOwner))).To(HaveStatus(http.StatusForbidden))
			Expect(reactionIDs(ctx, w.A)).To(ConsistOf(byOwner))
		})

		It("answers 404 for an unknown reaction or another awardable's", Label("rule:award_emoji.delete.4"), func(ctx SpecContext) {
			w := newAwardWorld(ctx, f, "private")
			other := newAwardable(ctx, f, w.P, "private")
			mine := react(ctx, api, w.A, "thumbsup")
			foreign := react(ctx, api, other, "thumbsup")
			Expect(api.Delete(ctx, w.A.reaction(foreign))).To(HaveStatus(http.StatusNotFound))
			Expect(api.Delete(ctx, w.A.reaction(999999999))).To(HaveStatus(http.StatusNotFound))
			Expect(reactionIDs(ctx, w.A)).To(ConsistOf(mine))
			Expect(reactionIDs(ctx, other)).To(ConsistOf(foreign))
		})
	})
}
