package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/v4cert/v4cert/reference/access"
	"github.com/v4cert/v4cert/reference/store"
)

// viewsWorld is a world holding every variant of the views the lists encode
// once between writes (Data.Memo): projects with and without a description,
// default branch, topics, a parent group, a share that expires; groups top
// level and below one, shared or not, with custom attributes; memberships
// direct, inherited and through an invited group, with and without an
// expiry and an adder; jobs finished with a runner, finished without one,
// and pending (whose durations run on with the clock).
type viewsWorld struct {
	srv       *Server
	st        *store.Store
	now       *time.Time
	top, sub  *store.Group
	invited   *store.Group
	proj, sp  *store.Project
	pipeline  *store.Pipeline
	plainUser *store.User
}

const (
	viewsRootToken  = "views-root-token"
	viewsPlainToken = "views-plain-token"
)

func newViewsWorld(t *testing.T) *viewsWorld {
	t.Helper()
	now := store.FixedTime
	w := &viewsWorld{now: &now}
	w.st = store.New(func() time.Time { return *w.now })
	err := w.st.Write(func(d *store.Data) error {
		root, err := d.CreateUser(store.NewUser{Username: "root", Name: "Root <Admin> & Co", Email: "root@example.com", Admin: true, SkipConfirmation: true})
		if err != nil {
			return err
		}
		plain, err := d.CreateUser(store.NewUser{Username: "plain", Name: "Plain User", Email: "plain@example.com", PublicEmail: "plain@example.com", SkipConfirmation: true})
		if err != nil {
			return err
		}
		other, err := d.CreateUser(store.NewUser{Username: "other", Name: "Other \u2028 User", Email: "other@example.com", SkipConfirmation: true})
		if err != nil {
			return err
		}
		w.plainUser = plain
		if _, err := d.CreateToken(root, "t", []string{"api"}, nil, viewsRootToken); err != nil {
			return err
		}
		if _, err := d.CreateToken(plain, "t", []string{"api"}, nil, viewsPlainToken); err != nil {
			return err
		}
		if w.top, err = d.CreateGroup(store.NewGroup{Name: "Top", Path: "top", Description: "the <top>", Visibility: "public", CreatorID: root.ID}); err != nil {
			return err
		}
		w.top.CustomAttributes = map[string]string{"k": "v"}
		if w.sub, err = d.CreateGroup(store.NewGroup{Name: "Sub", Path: "sub", Visibility: "internal", ParentID: w.top.ID, CreatorID: root.ID}); err != nil {
			return err
		}
		if w.invited, err = d.CreateGroup(store.NewGroup{Name: "Invited", Path: "invited", Visibility: "private", CreatorID: root.ID}); err != nil {
			return err
		}
		name, desc, branch, public := "Alpha", "an \"alpha\" project", "main", "public"
		if w.proj, err = d.CreateProject(root, store.ProjectFields{Name: &name, Description: &desc, DefaultBranch: &branch, Visibility: &public,
			NamespaceID: &w.top.ID, Topics: []string{"go", "ci"}, TopicsGiven: true}); err != nil {
			return err
		}
		w.proj.CustomAttributes = map[string]string{"a": "b"}
		name = "Beta"
		if w.sp, err = d.CreateProject(root, store.ProjectFields{Name: &name, NamespaceID: &w.sub.ID}); err != nil {
			return err
		}
		name = "Gamma"
		if _, err = d.CreateProject(plain, store.ProjectFields{Name: &name}); err != nil {
			return err
		}
		tomorrow := now.Add(24 * time.Hour)
		if _, err := d.ShareWithGroup(store.SourceProject, w.proj.ID, w.invited, access.Reporter, &tomorrow); err != nil {
			return err
		}
		if _, err := d.ShareWithGroup(store.SourceGroup, w.top.ID, w.invited, access.Developer, nil); err != nil {
			return err
		}
		if _, err := d.AddMember(store.SourceGroup, w.top.ID, plain.ID, access.Developer, &tomorrow, root.ID); err != nil {
			return err
		}
		if _, err := d.AddMember(store.SourceGroup, w.invited.ID, other.ID, access.Maintainer, nil, 0); err != nil {
			return err
		}
		if _, err := d.AddMember(store.SourceProject, w.sp.ID, other.ID, access.Guest, nil, root.ID); err != nil {
			return err
		}
		r := d.CreateRunner(&store.Runner{Type: store.InstanceRunner, Description: "runner", TagList: []string{"docker"}})
		sha := strings.Repeat("a", 40)
		jobs := []*store.Job{{Name: "build", Stage: "build"}, {Name: "test", Stage: "build", TagList: []string{"docker"}}, {Name: "wait", Stage: "build"}}
		w.pipeline = d.NewPipeline(&store.Pipeline{ProjectID: w.proj.ID, Ref: "main", SHA: sha, UserID: root.ID,
			Commit: store.JobCommit{ID: sha, ShortID: sha[:8], Title: "T", Message: "T\n", AuthorName: "A", AuthorEmail: "a@example.com", CreatedAt: now}}, jobs)
		start, end := now.Add(time.Second), now.Add(time.Minute)
		jobs[0].Status, jobs[0].StartedAt, jobs[0].FinishedAt, jobs[0].RunnerID = "success", &start, &end, r.ID
		jobs[1].Status, jobs[1].StartedAt, jobs[1].FinishedAt = "failed", &start, &end
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	w.srv, err = New(w.st, Options{ExternalURL: "http://ref.test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.srv.Close() })
	return w
}

func (w *viewsWorld) get(t *testing.T, token, target string) []json.RawMessage {
	t.Helper()
	r := httptest.NewRequest(http.MethodGet, target, nil)
	if token != "" {
		r.Header.Set("PRIVATE-TOKEN", token)
	}
	rec := httptest.NewRecorder()
	w.srv.ServeHTTP(rec, r)
	if rec.Code != http.StatusOK {
		t.Fatalf("%s: %d %s", target, rec.Code, rec.Body)
	}
	var items []json.RawMessage
	if err := json.Unmarshal(rec.Body.Bytes(), &items); err != nil || items == nil {
		t.Fatalf("%s: %s (%v)", target, rec.Body, err)
	}
	return items
}

// TestListViewsEncodeAsMarshal checks that every list whose views are
// encoded once between writes answers, item for item, the bytes
// json.Marshal gives for the view rendered afresh: for each caller
// (anonymous, a user, an administrator) and each form (full, simple,
// statistics, custom attributes, seat info), twice (the second answer is
// the kept one), after a write and after the clock passes an expiry.
func TestListViewsEncodeAsMarshal(t *testing.T) {
	w := newViewsWorld(t)
	type list struct {
		target string
		tokens []string
		// want renders the view of the item with id for the caller.
		want func(v *view, id int) any
	}
	// basicToAnonymous: the list answers a caller without credentials in
	// the basic (simple) form, as GET /projects does (projects.anonymous.1).
	project := func(simple, ca, basicToAnonymous bool) func(v *view, id int) any {
		return func(v *view, id int) any {
			p := v.d.Project(id)
			var attrs []map[string]string
			if ca {
				attrs = customAttributes(p.CustomAttributes)
			}
			if simple || (basicToAnonymous && v.caller == nil) {
				out := v.projectSimple(p)
				out.CustomAttributes = attrs
				return out
			}
			out := v.project(p)
			out.CustomAttributes = attrs
			return out
		}
	}
	group := func(stats, ca bool) func(v *view, id int) any {
		return func(v *view, id int) any {
			g := v.d.Group(id)
			out := v.groupEntry(g, stats)
			if ca {
				attrs := customAttributes(g.CustomAttributes)
				out.CustomAttributes = &attrs
			}
			return out
		}
	}
	member := func(t store.SourceType, src func() int, all, seat bool) func(v *view, id int) any {
		return func(v *view, id int) any {
			var e memberEntry
			if all {
				for _, ug := range v.d.AllGrants(t, src()).Users {
					if ug.User.ID == id {
						e = memberEntry{User: ug.User, Member: ug.Best.Member, Level: ug.Best.Level}
					}
				}
			} else {
				m := v.d.DirectMember(t, src(), id)
				if m == nil {
					return "no direct membership"
				}
				e = memberEntry{User: v.d.User(id), Member: m, Level: m.Access}
			}
			out := MemberSeatJSON{MemberJSON: v.member(e.Member, int(e.Level))}
			if seat {
				b := v.d.SeatHolders(t, src())(e.User)
				out.IsUsingSeat = &b
			}
			return out
		}
	}
	job := func(v *view, id int) any { return v.jobJSON(v.d.Job(id)) }
	anyone := []string{"", viewsPlainToken, viewsRootToken}
	signedIn := []string{viewsPlainToken, viewsRootToken}
	top, sub, proj, sp := func() int { return w.top.ID }, func() int { return w.sub.ID }, func() int { return w.proj.ID }, func() int { return w.sp.ID }
	lists := []list{
		{"/api/v4/projects", anyone, project(false, false, true)},
		{"/api/v4/projects?order_by=name&sort=asc", anyone, project(false, false, true)},
		{fmt.Sprintf("/api/v4/groups/%d/projects?include_subgroups=true", w.top.ID), anyone, project(false, false, false)},
		{fmt.Sprintf("/api/v4/groups/%d/projects?include_subgroups=true&simple=true", w.top.ID), anyone, project(true, false, false)},
		{fmt.Sprintf("/api/v4/groups/%d/projects?with_custom_attributes=true", w.top.ID), []string{viewsRootToken}, project(false, true, false)},
		{"/api/v4/groups", anyone, group(false, false)},
		{"/api/v4/groups?order_by=path&sort=desc", signedIn, group(false, false)},
		{"/api/v4/groups?statistics=true", []string{viewsRootToken}, group(true, false)},
		{"/api/v4/groups?with_custom_attributes=true", []string{viewsRootToken}, group(false, true)},
		{fmt.Sprintf("/api/v4/groups/%d/subgroups", w.top.ID), signedIn, group(false, false)},
		{fmt.Sprintf("/api/v4/groups/%d/subgroups?statistics=true", w.top.ID), []string{viewsRootToken}, group(true, false)},
		{fmt.Sprintf("/api/v4/groups/%d/members", w.top.ID), signedIn, member(store.SourceGroup, top, false, false)},
		{fmt.Sprintf("/api/v4/groups/%d/members?show_seat_info=true", w.top.ID), []string{viewsRootToken}, member(store.SourceGroup, top, false, true)},
		{fmt.Sprintf("/api/v4/groups/%d/members/all", w.sub.ID), signedIn, member(store.SourceGroup, sub, true, false)},
		{fmt.Sprintf("/api/v4/projects/%d/members/all", w.proj.ID), signedIn, member(store.SourceProject, proj, true, false)},
		{fmt.Sprintf("/api/v4/projects/%d/members", w.sp.ID), []string{viewsRootToken}, member(store.SourceProject, sp, false, false)},
		{fmt.Sprintf("/api/v4/projects/%d/jobs", w.proj.ID), signedIn, job},
		{fmt.Sprintf("/api/v4/projects/%d/jobs?scope[]=success&scope[]=pending", w.proj.ID), signedIn, job},
		{fmt.Sprintf("/api/v4/projects/%d/pipelines/%d/jobs", w.proj.ID, w.pipeline.ID), signedIn, job},
	}
	check := func(stage string) {
		for _, l := range lists {
			for _, token := range l.tokens {
				for round := 0; round < 2; round++ {
					items := w.get(t, token, l.target)
					if len(items) == 0 && stage == "at first" {
						t.Errorf("%s as %q: no item to check", l.target, token)
					}
					err := w.st.Read(func(d *store.Data) error {
						c := &Ctx{base: "http://ref.test"}
						if token != "" {
							c.Caller = d.User(map[string]int{viewsRootToken: 1, viewsPlainToken: w.plainUser.ID}[token])
						}
						v := c.view(d)
						for _, it := range items {
							var head struct{ ID int }
							if err := json.Unmarshal(it, &head); err != nil {
								return err
							}
							want, err := json.Marshal(l.want(v, head.ID))
							if err != nil {
								return err
							}
							if !bytes.Equal(it, want) {
								t.Errorf("%s: %s as %q, round %d, item %d:\n got %s\nwant %s", stage, l.target, token, round, head.ID, it, want)
							}
						}
						return nil
					})
					if err != nil {
						t.Fatal(err)
					}
				}
			}
		}
	}
	check("at first")
	// A write drops every kept view: the renamed project and group show.
	if err := w.st.Write(func(d *store.Data) error {
		name := "Alpha Renamed"
		w.top.Name = "Top Renamed"
		return d.UpdateProject(w.proj, store.ProjectFields{Name: &name})
	}); err != nil {
		t.Fatal(err)
	}
	check("after a write")
	// Two days on, with no write between: the project's share and the
	// plain user's membership have expired, and the running clock moves
	// nothing else.
	*w.now = w.now.Add(48 * time.Hour)
	check("after the expiry")
	got := w.get(t, viewsRootToken, fmt.Sprintf("/api/v4/groups/%d/members", w.top.ID))
	if strings.Contains(string(got[len(got)-1]), `"plain"`) {
		t.Errorf("an expired membership is still listed: %s", got)
	}
}
