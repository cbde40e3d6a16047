package api

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"

	"github.com/v4cert/v4cert/reference/access"
	"github.com/v4cert/v4cert/reference/store"
)

// readProjectFields reads POST /projects, PUT /projects/:id and the spec's
// PUT /projects/:id/, whose rulebook entries declare different subsets of
// these fields; the value sets are checked here so that each endpoint checks
// all of them.
func (c *Ctx) readProjectFields() (store.ProjectFields, error) {
	in := c.In()
	f := store.ProjectFields{
		Name: in.String("name"), Path: in.String("path"), Description: in.String("description"),
		NamespaceID: in.Int("namespace_id"), Visibility: in.Enum("visibility", "public", "internal", "private"),
		DefaultBranch: in.String("default_branch"), RequestAccessEnabled: in.Bool("request_access_enabled"),
		InitializeWithReadme:         in.BoolOr("initialize_with_readme", false),
		ContainerRegistryAccessLevel: in.Enum("container_registry_access_level", "enabled", "private", "disabled"),
		IssuesEnabled:                in.Bool("issues_enabled"),
		MergeRequestsEnabled:         in.Bool("merge_requests_enabled"), WikiEnabled: in.Bool("wiki_enabled"),
		MergeMethod: in.Enum("merge_method", store.MergeMethodMerge, store.MergeMethodRebaseMerge, store.MergeMethodFF),
		JobsEnabled: in.Bool("jobs_enabled"), SnippetsEnabled: in.Bool("snippets_enabled"),
		SharedRunnersEnabled: in.Bool("shared_runners_enabled"),
	}
	// tag_list is the deprecated name of topics.
	for _, name := range []string{"tag_list", "topics"} {
		if c.P.Has(name) {
			f.Topics, f.TopicsGiven = in.Strings(name), true
		}
	}
	return f, in.Err()
}

// createProject implements the platform's POST /projects (provisioning).
func (s *Server) createProject(c *Ctx) error {
	f, err := c.readProjectFields()
	if err != nil {
		return err
	}
	if f.Name == nil && f.Path == nil {
		return missing("name")
	}
	var created *store.Project
	var body ProjectJSON
	err = s.store.Write(func(d *store.Data) error {
		if f.NamespaceID != nil {
			ns := d.Namespace(*f.NamespaceID)
			switch {
			case ns == nil, ns.Group != nil && !d.CanSeeGroup(c.Caller, ns.Group):
				return notFound("Namespace")
			case c.Admin():
			case ns.Group != nil && d.GroupAccess(c.Caller, ns.Group) < access.Developer,
				ns.User != nil && ns.User.ID != c.Caller.ID:
				return forbidden()
			}
		}
		if !c.Caller.CanCreateProject {
			return forbidden()
		}
		p, err := d.CreateProject(c.Caller, f)
		if err != nil {
			return asError(err, "Namespace")
		}
		created, body = p, c.view(d).project(p)
		return nil
	})
	if err != nil {
		return err
	}
	// The repository is made outside the store's lock: git takes milliseconds.
	if err := s.repos.Create(c.R.Context(), created, c.Caller, f.InitializeWithReadme); err != nil {
		s.store.Write(func(d *store.Data) error { d.DeleteProject(created); return nil })
		return errorf(http.StatusInternalServerError, "500 Internal Server Error - repository: %v", err)
	}
	return c.JSON(http.StatusCreated, body)
}

// listProjects implements GET /projects with the topic filter (rule projects.topic.1).
func (s *Server) listProjects(c *Ctx) error {
	in := c.In()
	topics := in.Strings("topic")
	search := in.String("search")
	vis := in.String("visibility")
	owned := in.BoolOr("owned", false)
	membership := in.BoolOr("membership", false)
	orderBy := in.String("order_by")
	sortDir := in.String("sort")
	if err := in.Err(); err != nil {
		return err
	}
	var q string
	if search != nil {
		q = strings.ToLower(*search)
	}
	return s.readPage(c, func(d *store.Data) (*Page, error) {
		match := func(p *store.Project) bool {
			if !d.CanSeeProject(c.Caller, p) {
				return false
			}
			if search != nil && !strings.Contains(strings.ToLower(p.Name+" "+p.Path+" "+p.Description), q) {
				return false
			}
			if vis != nil && p.Visibility != *vis {
				return false
			}
			if (owned || membership) && c.Caller == nil {
				return false
			}
			if owned && !(d.Namespace(p.NamespaceID) != nil && d.Namespace(p.NamespaceID).User != nil && d.Namespace(p.NamespaceID).User.ID == c.Caller.ID) {
				return false
			}
			if membership && d.ProjectAccess(c.Caller, p) < access.Guest {
				return false
			}
			for _, t := range topics {
				if !p.HasTopic(strings.TrimSpace(t)) {
					return false
				}
			}
			return true
		}
		// An administrator sees every project: with no filter either, a page
		// is read straight from the store's ordering (issue 21).
		if c.Admin() && search == nil && vis == nil && !owned && !membership && len(topics) == 0 {
			match = nil
		}
		// Keyset pages (Limits 4: projects, order_by=id) walk the projects by id.
		ks := &Keyset[*store.Project]{Sorts: []string{"asc", "desc"}, DefaultOrder: "id", DefaultSort: "desc", Match: match,
			Orders: map[string]KeysetOrder[*store.Project]{
				"id": {Sorted: d.Projects, Key: func(p *store.Project) Cursor { return Cursor{ID: p.ID} }},
			}}
		sorted := d.ProjectsOrdered(deref(orderBy, "created_at"))
		at := orderedAt(sorted, deref(sortDir, "desc") != "asc")
		// The basic form to an anonymous caller (ProjectBasicJSON; a list
		// shows it in its simple fields).
		return PaginateWalk(c, len(sorted), at, match, ks, projectRender(c, d, c.Caller == nil, false))
	})
}

// projectRender renders projects for a list (simple: the simple form;
// withCustomAttributes: with their custom attributes). Each project's view
// is encoded once between writes (Data.Memo); with custom attributes, which
// only administrators ask for, it is encoded afresh.
func projectRender(c *Ctx, d *store.Data, simple, withCustomAttributes bool) func(*store.Project) json.RawMessage {
	v, epoch := c.view(d), d.ExpiryEpoch()
	view := func(p *store.Project, ca []map[string]string) any {
		if simple {
			out := v.projectSimple(p)
			out.CustomAttributes = ca
			return out
		}
		out := v.project(p)
		out.CustomAttributes = ca
		return out
	}
	return func(p *store.Project) json.RawMessage {
		if withCustomAttributes {
			return encoded(view(p, customAttributes(p.CustomAttributes)))
		}
		// Kept as of the expiry epoch: shared_with_groups shows links that expire.
		k := store.ViewKey{Kind: viewProject, Variant: flag(simple), ID: p.ID, Epoch: epoch, Base: c.base}
		return d.MemoView(k, func() []byte { return encoded(view(p, nil)) })
	}
}

// orderedAt reads an ascending ordering forwards, or backwards when desc:
// the descending orders are the exact reverse, ties by id included.
func orderedAt[T any](sorted []T, desc bool) func(int) T {
	if desc {
		return func(i int) T { return sorted[len(sorted)-1-i] }
	}
	return func(i int) T { return sorted[i] }
}

func deref(s *string, def string) string {
	if s == nil {
		return def
	}
	return *s
}

// sortProjects orders projects by field, ties broken by id in the same
// direction (store.ProjectOrder, descending its reverse).
func sortProjects(ps []*store.Project, field, dir string) {
	slices.SortStableFunc(ps, func(a, b *store.Project) int {
		if dir == "asc" {
			return store.ProjectOrder(a, b, field)
		}
		return store.ProjectOrder(b, a, field)
	})
}

// getProject implements the platform's GET /projects/:id (provisioning).
func (s *Server) getProject(c *Ctx) error {
	var out ProjectDetailJSON
	var readCode bool
	err := s.store.Read(func(d *store.Data) error {
		p, err := c.projectOf(d, "id")
		if err != nil {
			return err
		}
		out.ProjectJSON = c.view(d).project(p)
		if c.Caller != nil {
			out.Permissions = projectPermissions(d, c.Caller, p)
		}
		readCode = p.Visibility != "private" || c.projectRole(d, p) >= readCodeLevel
		return nil
	})
	if err != nil {
		return err
	}
	if readCode {
		url, err := s.readmeURL(c.R.Context(), out.ID, out.DefaultBranch, out.WebURL)
		if err != nil {
			return err
		}
		out.ReadmeURL = url
	}
	if c.Caller == nil {
		return c.JSON(http.StatusOK, ProjectBasicJSON{ProjectSimpleJSON: out.ProjectSimpleJSON, ReadmeURL: out.ReadmeURL})
	}
	return c.JSON(http.StatusOK, out)
}

// ProjectBasicJSON is a project as the platform answers a caller without a
// credential: GET /projects and GET /projects/:id present
// Entities::BasicProjectDetails when there is no current_user
// (gitlabhq/gitlabhq lib/api/projects.rb @c2b98d3d;
// lib/api/entities/basic_project_details.rb @cb81e07a), the identity, URLs,
// topics, counts and namespace without the
// visibility, features and settings of the full form. The spec is silent on
// it (schemas/project_basic.json). Only public projects reach an anonymous
// caller, and their code is readable, so default_branch, forks_count and
// readme_url are there.
type ProjectBasicJSON struct {
	ProjectSimpleJSON
	ReadmeURL any `json:"readme_url,omitempty"`
}

// ProjectDetailJSON is GET /projects/:id as the platform answers it, beyond
// the spec's fields: readme_url for a caller who may read the code
// (lib/api/entities/basic_project_details.rb, `with_options if:
// user_has_access_to_project_repository?`), and permissions for an
// authenticated caller (lib/api/projects.rb `get ":id"` presents
// Entities::ProjectWithAccess when there is a current_user). glab shows the
// README through readme_url; semantic-release reads permissions.
type ProjectDetailJSON struct {
	ProjectJSON
	// ReadmeURL is absent for a caller who may not read the code and null
	// where there is no README: a nil *string held in the interface is not
	// empty to omitempty and encodes as null.
	ReadmeURL   any                 `json:"readme_url,omitempty"`
	Permissions *ProjectPermissions `json:"permissions,omitempty"`
}

// ProjectPermissions is the platform's permissions object
// (lib/api/entities/project_with_access.rb): the caller's direct membership
// of the project, and their highest direct membership of the project's
// group or its ancestors (Group#highest_group_member); either is null.
type ProjectPermissions struct {
	ProjectAccess *MemberAccessJSON `json:"project_access"`
	GroupAccess   *MemberAccessJSON `json:"group_access"`
}

// MemberAccessJSON is Entities::MemberAccess: the access level and the
// notification level, the integer of NotificationSetting.levels; members
// here keep the default setting, global (3).
type MemberAccessJSON struct {
	AccessLevel       int `json:"access_level"`
	NotificationLevel int `json:"notification_level"`
}

// notificationGlobal is NotificationSetting.levels[:global], every member's
// default (app/models/notification_setting.rb: disabled 0, participating 1,
// watch 2, global 3, mention 4, custom 5).
const notificationGlobal = 3

func projectPermissions(d *store.Data, u *store.User, p *store.Project) *ProjectPermissions {
	out := &ProjectPermissions{}
	if m := d.DirectMember(store.SourceProject, p.ID, u.ID); m != nil {
		out.ProjectAccess = &MemberAccessJSON{AccessLevel: int(m.Access), NotificationLevel: notificationGlobal}
	}
	if g := d.Group(p.NamespaceID); g != nil {
		var best *store.Member
		for _, a := range append([]*store.Group{g}, d.Ancestors(g)...) {
			if m := d.DirectMember(store.SourceGroup, a.ID, u.ID); m != nil && (best == nil || m.Access > best.Access) {
				best = m
			}
		}
		if best != nil {
			out.GroupAccess = &MemberAccessJSON{AccessLevel: int(best.Access), NotificationLevel: notificationGlobal}
		}
	}
	return out
}

// readmeURL is Project#readme_url: the blob URL of the README at the root
// of the default branch (repository.ReadmeName), or nil.
func (s *Server) readmeURL(ctx context.Context, projectID int, branch *string, webURL string) (*string, error) {
	if branch == nil {
		return nil, nil
	}
	name, err := s.repos.ReadmeName(ctx, projectID, *branch)
	if err != nil {
		return nil, asError(gitError(err, "Repository"), "Repository")
	}
	if name == "" {
		return nil, nil
	}
	url := webURL + "/-/blob/" + *branch + "/" + name
	return &url, nil
}

// editProject implements the platform's PUT /projects/:id (provisioning); the
// spec's PUT /projects/:id/ lands on the same logic with the registry issue.
func (s *Server) editProject(c *Ctx) error {
	f, err := c.readProjectFields()
	if err != nil {
		return err
	}
	var out ProjectJSON
	err = s.store.Write(func(d *store.Data) error {
		p, err := c.projectOf(d, "id")
		if err != nil {
			return err
		}
		if err := c.requireProjectRole(d, p, access.Maintainer); err != nil {
			return err
		}
		if err := d.UpdateProject(p, f); err != nil {
			return err
		}
		out = c.view(d).project(p)
		return nil
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, out)
}

// deleteProject implements the platform's DELETE /projects/:id: 202, removed at once here.
func (s *Server) deleteProject(c *Ctx) error {
	var images []string
	err := s.store.Write(func(d *store.Data) error {
		p, err := c.projectOf(d, "id")
		if err != nil {
			return err
		}
		if err := c.requireProjectRole(d, p, access.Owner); err != nil {
			return err
		}
		images = registryImagesOf(d, p)
		d.DeleteProject(p)
		s.dropRepository(d, p.ID)
		return nil
	})
	if err != nil {
		return err
	}
	s.removeRegistryContent(c, images)
	return c.JSON(http.StatusAccepted, map[string]string{"message": "202 Accepted"})
}

// ProjectGroupLink is the answer of POST /projects/:id/share.
type ProjectGroupLink struct {
	ID          int     `json:"id"`
	ProjectID   int     `json:"project_id"`
	GroupID     int     `json:"group_id"`
	GroupAccess int     `json:"group_access"`
	ExpiresAt   *string `json:"expires_at"`
}

// shareProject implements the platform's POST /projects/:id/share (provisioning).
func (s *Server) shareProject(c *Ctx) error {
	groupID := c.In().IntOr("group_id", 0)
	lv, err := c.accessLevel("group_access")
	if err != nil {
		return err
	}
	expires := c.In().Date("expires_at")
	if err := c.In().Err(); err != nil {
		return err
	}
	var out ProjectGroupLink
	err = s.store.Write(func(d *store.Data) error {
		p, err := c.projectOf(d, "id")
		if err != nil {
			return err
		}
		if err := c.requireProjectRole(d, p, access.Maintainer); err != nil {
			return err
		}
		g := d.Group(groupID)
		if g == nil || !d.CanSeeGroup(c.Caller, g) {
			return notFound("Group")
		}
		l, err := d.ShareWithGroup(store.SourceProject, p.ID, g, *lv, expires)
		if err != nil {
			return conflict("Group already shared with this project")
		}
		out = ProjectGroupLink{ID: l.ID, ProjectID: p.ID, GroupID: g.ID,
			GroupAccess: int(l.Access), ExpiresAt: datePtr(l.ExpiresAt)}
		return nil
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, out)
}

// setArchivedTo serves POST /projects/:id/archive (true) and unarchive (false).
func setArchivedTo(archived bool) handler {
	return func(s *Server, c *Ctx) error { return s.setArchived(c, archived) }
}

// setArchived implements the platform's POST /projects/:id/archive and
// /unarchive (provisioning): Owners and administrators only, 201 with the project.
func (s *Server) setArchived(c *Ctx, archived bool) error {
	var out ProjectJSON
	err := s.store.Write(func(d *store.Data) error {
		p, err := c.projectOf(d, "id")
		if err != nil {
			return err
		}
		if err := c.requireProjectRole(d, p, access.Owner); err != nil {
			return err
		}
		if err := d.UpdateProject(p, store.ProjectFields{Archived: &archived}); err != nil {
			return err
		}
		out = c.view(d).project(p)
		return nil
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, out)
}
