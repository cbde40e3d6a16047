package api

import (
	"cmp"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/v4cert/v4cert/reference/access"
	"github.com/v4cert/v4cert/reference/store"
)

// createGroup implements the platform's POST /groups (provisioning): any user
// allowed to create groups may, and becomes the group's Owner.
func (s *Server) createGroup(c *Ctx) error {
	in := c.In()
	n := store.NewGroup{
		Name: in.StringOr("name", ""), Path: in.StringOr("path", ""), Description: in.StringOr("description", ""),
		Visibility: deref(in.String("visibility"), ""),
		ParentID:   in.IntOr("parent_id", 0), RequestAccessEnabled: in.Bool("request_access_enabled"),
		CreatorID: c.Caller.ID,
	}
	if err := in.Err(); err != nil {
		return err
	}
	var out GroupJSON
	err := s.store.Write(func(d *store.Data) error {
		if n.ParentID != 0 {
			parent := d.Group(n.ParentID)
			if parent == nil || !d.CanSeeGroup(c.Caller, parent) {
				return notFound("Parent Group")
			}
			if err := c.requireGroupRole(d, parent, access.Maintainer); err != nil {
				return err
			}
		} else if !c.Admin() && !c.Caller.CanCreateGroup {
			return forbidden()
		}
		g, err := d.CreateGroup(n)
		if err != nil {
			return asError(err, "Parent Group")
		}
		out = c.view(d).group(g, true)
		return nil
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, out)
}

// deleteGroup implements the platform's DELETE /groups/:id: 202, removed at once here.
func (s *Server) deleteGroup(c *Ctx) error {
	var images []string
	err := s.store.Write(func(d *store.Data) error {
		g, err := c.groupOf(d, "id")
		if err != nil {
			return err
		}
		if err := c.requireGroupRole(d, g, access.Owner); err != nil {
			return err
		}
		images = registryImagesOf(d, d.GroupProjects(g, true)...)
		d.DeleteGroup(g)
		return nil
	})
	if err != nil {
		return err
	}
	s.removeRegistryContent(c, images)
	return c.JSON(http.StatusAccepted, map[string]string{"message": "202 Accepted"})
}

// shareGroup implements the platform's POST /groups/:id/share (provisioning):
// invites group_id into :id with access capped at group_access.
func (s *Server) shareGroup(c *Ctx) error {
	groupID := c.In().IntOr("group_id", 0)
	lv, err := c.accessLevel("group_access")
	if err != nil {
		return err
	}
	expires := c.In().Date("expires_at")
	if err := c.In().Err(); err != nil {
		return err
	}
	var out GroupJSON
	err = s.store.Write(func(d *store.Data) error {
		g, err := c.groupOf(d, "id")
		if err != nil {
			return err
		}
		if err := c.requireGroupRole(d, g, access.Owner); err != nil {
			return err
		}
		invited := d.Group(groupID)
		if invited == nil || !d.CanSeeGroup(c.Caller, invited) {
			return notFound("Group")
		}
		if invited.ID == g.ID {
			return validation(map[string][]string{"group_id": {"cannot be shared with itself"}})
		}
		if _, err := d.ShareWithGroup(store.SourceGroup, g.ID, invited, *lv, expires); err != nil {
			return conflict("Group already shared with this group")
		}
		out = c.view(d).group(g, true)
		return nil
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, out)
}

// setGroupCustomAttribute implements the platform's PUT
// /groups/:id/custom_attributes/:key (provisioning for custom_attributes filters).
func (s *Server) setGroupCustomAttribute(c *Ctx) error {
	key, value, err := c.customAttribute()
	if err != nil {
		return err
	}
	err = s.store.Write(func(d *store.Data) error {
		g, err := c.groupOf(d, "id")
		if err != nil {
			return err
		}
		d.Touch(g)
		g.CustomAttributes[key] = value
		return nil
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]string{"key": key, "value": value})
}

// getGroup implements GET /groups/:id (rules groups.get.*): anonymous callers
// reach public groups, hidden groups are 404, runners_token and
// enabled_git_access_protocol go to administrators and Owners only
// (Authentication 7).
func (s *Server) getGroup(c *Ctx) error {
	in := c.In()
	withCA := in.BoolOr("with_custom_attributes", false)
	withProjects := in.BoolOr("with_projects", true)
	if err := in.Err(); err != nil {
		return err
	}
	var out GroupJSON
	err := s.store.Read(func(d *store.Data) error {
		g, err := c.groupOf(d, "id")
		if err != nil {
			return err
		}
		out = c.view(d).groupDetail(g, c.groupRole(d, g) >= access.Owner, withProjects)
		if withCA && c.Admin() {
			ca := customAttributes(g.CustomAttributes)
			out.CustomAttributes = &ca
		}
		return nil
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, out)
}

// ListGroupsOptions are the filters and orderings of GET /groups.
type ListGroupsOptions struct {
	SkipGroups           []int
	AllAvailable         bool
	Search               *string
	OrderBy, Sort        string
	Statistics           bool
	Visibility           *string
	WithCustomAttributes bool
	Owned                bool
	MinAccessLevel       *access.Level
	TopLevelOnly         bool
	RepositoryStorage    *string
	MarkedForDeletionOn  *time.Time
	CustomAttributes     map[string]string
}

func (c *Ctx) readListGroupsOptions() (ListGroupsOptions, error) {
	in := c.In()
	o := ListGroupsOptions{
		SkipGroups: in.Ints("skip_groups"), Search: in.String("search"),
		OrderBy:    deref(in.String("order_by"), "name"),
		Sort:       deref(in.String("sort"), "asc"),
		Statistics: in.BoolOr("statistics", false), Visibility: in.String("visibility"),
		WithCustomAttributes: in.BoolOr("with_custom_attributes", false), Owned: in.BoolOr("owned", false),
		TopLevelOnly: in.BoolOr("top_level_only", false), RepositoryStorage: in.String("repository_storage"),
		MarkedForDeletionOn: in.Date("marked_for_deletion_on"), CustomAttributes: in.Hash("custom_attributes"),
	}
	// all_available defaults to true for administrators only.
	o.AllAvailable = in.BoolOr("all_available", c.Admin())
	if err := in.Err(); err != nil {
		return o, err
	}
	min, err := c.accessLevel("min_access_level")
	if err != nil {
		return o, err
	}
	o.MinAccessLevel = min
	if !c.Admin() {
		// Administrator options are read (and type-checked) but have no effect.
		o.Statistics, o.WithCustomAttributes, o.RepositoryStorage, o.CustomAttributes = false, false, nil, nil
	}
	return o, nil
}

// match applies every filter of GET /groups to g for caller u.
func (o ListGroupsOptions) match(d *store.Data, u *store.User, g *store.Group) bool {
	if !d.CanSeeGroup(u, g) {
		return false
	}
	// owned and min_access_level take precedence over all_available; without a
	// signed-in caller only public groups remain (CanSeeGroup saw to that).
	switch {
	case o.Owned:
		if d.GroupAccess(u, g) < access.Owner {
			return false
		}
	case o.MinAccessLevel != nil:
		if d.GroupAccess(u, g) < *o.MinAccessLevel {
			return false
		}
	case u != nil && !o.AllAvailable:
		if d.GroupAccess(u, g) == access.None {
			return false
		}
	}
	if slices.Contains(o.SkipGroups, g.ID) {
		return false
	}
	if o.Search != nil && *o.Search != "" {
		q := strings.ToLower(*o.Search)
		if !strings.Contains(strings.ToLower(d.FullPath(g)), q) && !strings.Contains(strings.ToLower(d.FullName(g)), q) {
			return false
		}
	}
	if o.Visibility != nil && g.Visibility != *o.Visibility {
		return false
	}
	if o.TopLevelOnly && g.ParentID != 0 {
		return false
	}
	if o.RepositoryStorage != nil && *o.RepositoryStorage != store.GroupStorage {
		return false
	}
	// Deletion is immediate in the reference, so no group is ever marked for
	// deletion on any date.
	if o.MarkedForDeletionOn != nil {
		return false
	}
	for k, want := range o.CustomAttributes {
		if g.CustomAttributes[k] != want {
			return false
		}
	}
	return true
}

// sortGroups orders groups as GET /groups does: by the field with ties broken
// by id ascending; similarity ranks the closest path (then name) to search
// first, then subgroups before top-level groups, then newer first, and falls
// back to name order when there is no search.
func sortGroups(gs []*store.Group, o ListGroupsOptions) {
	if o.OrderBy == "similarity" && o.Search != nil && *o.Search != "" {
		score := map[int]float64{}
		for _, g := range gs {
			score[g.ID] = store.Similarity(g.Path, *o.Search) + 0.7*store.Similarity(g.Name, *o.Search)
		}
		slices.SortStableFunc(gs, func(a, b *store.Group) int {
			if c := cmp.Compare(score[b.ID], score[a.ID]); c != 0 {
				return c
			}
			if c := cmp.Compare(b.ParentID, a.ParentID); c != 0 {
				return c
			}
			return cmp.Compare(b.ID, a.ID)
		})
		return
	}
	_, order := groupOrder(o)
	slices.SortStableFunc(gs, order)
}

// groupOrder is GET /groups' ordering by a field (similarity without a
// search is by name): descending reverses the field, never the id that
// breaks ties. name names the ordering (GroupsOrdered keeps it under it):
// a field the list does not order by leaves id order.
func groupOrder(o ListGroupsOptions) (name string, order func(a, b *store.Group) int) {
	field := o.OrderBy
	switch field {
	case "similarity":
		field = "name"
	case "name", "path", "id":
	default:
		field = "none"
	}
	name = field + " asc"
	if o.Sort == "desc" {
		name = field + " desc"
	}
	return name, func(a, b *store.Group) int {
		var c int
		switch field {
		case "name":
			c = strings.Compare(a.Name, b.Name)
		case "path":
			c = strings.Compare(a.Path, b.Path)
		case "id":
			c = cmp.Compare(a.ID, b.ID)
		}
		if o.Sort == "desc" {
			c = -c
		}
		if c == 0 {
			c = cmp.Compare(a.ID, b.ID)
		}
		return c
	}
}

// unfiltered reports whether match keeps every group for caller: an
// administrator (who sees every group) listing all of them, no filter.
func (o ListGroupsOptions) unfiltered(u *store.User) bool {
	return u != nil && u.Admin && o.AllAvailable && !o.Owned && o.MinAccessLevel == nil && len(o.SkipGroups) == 0 &&
		(o.Search == nil || *o.Search == "") && o.Visibility == nil && !o.TopLevelOnly && o.RepositoryStorage == nil &&
		o.MarkedForDeletionOn == nil && len(o.CustomAttributes) == 0
}

// groupRender renders the entries of GET /groups and of a group's
// subgroups, each encoded once between writes (Data.MemoView) unless custom
// attributes are asked for.
func groupRender(c *Ctx, d *store.Data, o ListGroupsOptions) func(*store.Group) json.RawMessage {
	v, epoch := c.view(d), d.ExpiryEpoch()
	return func(g *store.Group) json.RawMessage {
		if o.WithCustomAttributes {
			out := v.groupEntry(g, o.Statistics)
			ca := customAttributes(g.CustomAttributes)
			out.CustomAttributes = &ca
			return encoded(out)
		}
		// Kept as of the expiry epoch: shared_with_groups shows links that expire.
		return d.MemoView(store.ViewKey{Kind: viewGroup, Variant: flag(o.Statistics), ID: g.ID, Epoch: epoch, Base: c.base}, func() []byte {
			return encoded(v.groupEntry(g, o.Statistics))
		})
	}
}

// listGroups implements GET /groups (rules groups.list.*, limits.pagination.5):
// offset pagination, and keyset pagination ordered by name ascending for
// unauthenticated callers. The groups are walked in the store's ordering,
// stopping at the page's end (issue 21); similarity ranks every match, so
// it gathers them first.
func (s *Server) listGroups(c *Ctx) error {
	o, err := c.readListGroupsOptions()
	if err != nil {
		return err
	}
	return s.readPage(c, func(d *store.Data) (*Page, error) {
		render := groupRender(c, d, o)
		match := func(g *store.Group) bool { return o.match(d, c.Caller, g) }
		byName := ListGroupsOptions{OrderBy: "name", Sort: "asc"}
		ks := &Keyset[*store.Group]{Sorts: []string{"asc"}, DefaultOrder: "name", DefaultSort: "asc", Match: match,
			Orders: map[string]KeysetOrder[*store.Group]{
				"name": {Sorted: func() []*store.Group { return d.GroupsOrdered(groupOrder(byName)) },
					Key: func(g *store.Group) Cursor { return Cursor{V: g.Name, ID: g.ID} }},
			}}
		var sorted []*store.Group
		if o.OrderBy == "similarity" && o.Search != nil && *o.Search != "" {
			for _, g := range d.Groups() {
				if match(g) {
					sorted = append(sorted, g)
				}
			}
			sortGroups(sorted, o)
			match = nil
		} else {
			sorted = d.GroupsOrdered(groupOrder(o))
			if o.unfiltered(c.Caller) {
				match = nil
			}
		}
		at := orderedAt(sorted, false)
		if c.Caller != nil {
			// Limits 4 lists groups keyset as "(order_by=name, sort=asc,
			// unauthenticated)"; the platform pages GET /groups by keyset
			// for unauthenticated callers only and answers the others with
			// offset pages whatever they ask (present_groups_with_pagination_strategies,
			// lib/api/groups.rb, skratsch-solutions/gitlabhq @4300d840).
			return PaginateWalkOffset(c, len(sorted), at, match, render)
		}
		return PaginateWalk(c, len(sorted), at, match, ks, render)
	})
}

// ListGroupProjectsOptions are the filters and orderings of GET /groups/:id/projects.
type ListGroupProjectsOptions struct {
	Archived                 *bool
	Visibility, Search       *string
	OrderBy, Sort            string
	Simple, Owned, Starred   bool
	Topics                   []string
	WithIssuesEnabled        bool
	WithMergeRequestsEnabled bool
	WithShared               bool
	IncludeSubgroups         bool
	MinAccessLevel           *access.Level
	WithCustomAttributes     bool
	WithSecurityReports      bool
}

func (c *Ctx) readListGroupProjectsOptions() (ListGroupProjectsOptions, error) {
	in := c.In()
	o := ListGroupProjectsOptions{
		Archived: in.Bool("archived"), Visibility: in.String("visibility"),
		Search:  in.String("search"),
		OrderBy: deref(in.String("order_by"), "created_at"),
		Sort:    deref(in.String("sort"), "desc"),
		Simple:  in.BoolOr("simple", false), Owned: in.BoolOr("owned", false), Starred: in.BoolOr("starred", false),
		Topics:                   in.Strings("topic"),
		WithIssuesEnabled:        in.BoolOr("with_issues_enabled", false),
		WithMergeRequestsEnabled: in.BoolOr("with_merge_requests_enabled", false),
		WithShared:               in.BoolOr("with_shared", true), IncludeSubgroups: in.BoolOr("include_subgroups", false),
		WithCustomAttributes: in.BoolOr("with_custom_attributes", false),
		WithSecurityReports:  in.BoolOr("with_security_reports", false),
	}
	if err := in.Err(); err != nil {
		return o, err
	}
	min, err := c.accessLevel("min_access_level")
	if err != nil {
		return o, err
	}
	o.MinAccessLevel = min
	if !c.Admin() {
		o.WithCustomAttributes = false
	}
	return o, nil
}

// match applies the filters of GET /groups/:id/projects to p for caller u.
func (o ListGroupProjectsOptions) match(d *store.Data, u *store.User, p *store.Project) bool {
	// owned and min_access_level count the caller's own access, for
	// administrators too; otherwise visibility decides.
	switch {
	case u == nil:
		if p.Visibility != "public" {
			return false
		}
	case o.Owned:
		if d.ProjectAccess(u, p) < access.Owner {
			return false
		}
	case o.MinAccessLevel != nil:
		if d.ProjectAccess(u, p) < *o.MinAccessLevel {
			return false
		}
	default:
		if !d.CanSeeProject(u, p) {
			return false
		}
	}
	if o.Archived != nil && p.Archived != *o.Archived {
		return false
	}
	if o.Visibility != nil && p.Visibility != *o.Visibility {
		return false
	}
	if o.Search != nil && *o.Search != "" {
		q := strings.ToLower(*o.Search)
		if !strings.Contains(strings.ToLower(p.Name), q) && !strings.Contains(strings.ToLower(p.Path), q) &&
			!strings.Contains(strings.ToLower(p.Description), q) {
			return false
		}
	}
	if o.Starred && u != nil && !p.StarredBy(u) {
		return false
	}
	for _, t := range o.Topics {
		if t = strings.TrimSpace(t); t != "" && !p.HasTopic(t) {
			return false
		}
	}
	if o.WithIssuesEnabled && !p.IssuesEnabled || o.WithMergeRequestsEnabled && !p.MergeRequestsEnabled {
		return false
	}
	// No pipeline of the reference produces security report artifacts.
	if o.WithSecurityReports {
		return false
	}
	return true
}

// sortGroupProjects orders GET /groups/:id/projects; similarity ignores sort:
// with a search the closest path, name (then description) comes first, and
// without one the order is by name ascending.
func sortGroupProjects(ps []*store.Project, o ListGroupProjectsOptions) {
	if o.OrderBy != "similarity" {
		sortProjects(ps, o.OrderBy, o.Sort)
		return
	}
	if o.Search == nil || *o.Search == "" {
		sortProjects(ps, "name", "asc")
		return
	}
	score := map[int]float64{}
	for _, p := range ps {
		score[p.ID] = store.Similarity(p.Path, *o.Search) + store.Similarity(p.Name, *o.Search) +
			0.5*store.Similarity(p.Description, *o.Search)
	}
	slices.SortStableFunc(ps, func(a, b *store.Project) int {
		if c := cmp.Compare(score[b.ID], score[a.ID]); c != 0 {
			return c
		}
		return cmp.Compare(b.ID, a.ID)
	})
}

// listGroupProjects implements GET /groups/:id/projects (rules groups.projects.*).
func (s *Server) listGroupProjects(c *Ctx) error {
	o, err := c.readListGroupProjectsOptions()
	if err != nil {
		return err
	}
	return s.readPage(c, func(d *store.Data) (*Page, error) {
		g, err := c.groupOf(d, "id")
		if err != nil {
			return nil, err
		}
		render := projectRender(c, d, o.Simple, o.WithCustomAttributes)
		match := func(p *store.Project) bool { return o.match(d, c.Caller, p) }
		if o.OrderBy == "similarity" {
			// Similarity scores every match against the search: gathered first.
			var items []*store.Project
			for _, p := range groupProjectCandidates(d, g, o) {
				if match(p) {
					items = append(items, p)
				}
			}
			sortGroupProjects(items, o)
			return Paginate(c, items, nil, render)
		}
		// The group's own projects in the order asked for, from the store's
		// ordering; the projects shared into it (few, read from the links)
		// merged in when there are any (issue 21).
		sorted := d.GroupProjectsOrdered(g, o.IncludeSubgroups, o.OrderBy)
		if o.WithShared {
			if shared := d.SharedProjects(g); len(shared) > 0 {
				merged := slices.Clone(sorted)
				for _, p := range shared {
					pg := d.ProjectGroup(p)
					if pg == nil || !(pg.ID == g.ID || o.IncludeSubgroups && d.IsAncestor(g, pg)) {
						merged = append(merged, p)
					}
				}
				sortProjects(merged, o.OrderBy, "asc")
				sorted = merged
			}
		}
		if o.unfiltered(c.Caller) {
			match = nil
		}
		return PaginateWalk(c, len(sorted), orderedAt(sorted, o.Sort != "asc"), match, nil, render)
	})
}

// groupProjectCandidates are the projects GET /groups/:id/projects chooses
// from: the group's own (with subgroups, theirs too), then with with_shared
// those shared into it, in that order.
func groupProjectCandidates(d *store.Data, g *store.Group, o ListGroupProjectsOptions) []*store.Project {
	candidates := d.GroupProjects(g, o.IncludeSubgroups)
	if o.WithShared {
		own := make(map[*store.Project]bool, len(candidates))
		for _, p := range candidates {
			own[p] = true
		}
		for _, p := range d.SharedProjects(g) {
			if !own[p] {
				candidates = append(candidates, p)
			}
		}
	}
	return candidates
}

// unfiltered reports whether match keeps every project for caller: an
// administrator (who sees every project) with no filter.
func (o ListGroupProjectsOptions) unfiltered(u *store.User) bool {
	if u == nil || !u.Admin || o.Owned || o.MinAccessLevel != nil || o.Archived != nil || o.Visibility != nil ||
		o.Search != nil && *o.Search != "" || o.Starred || o.WithIssuesEnabled || o.WithMergeRequestsEnabled || o.WithSecurityReports {
		return false
	}
	for _, t := range o.Topics {
		if strings.TrimSpace(t) != "" {
			return false
		}
	}
	return true
}

// starProject implements the platform's POST /projects/:id/star (provisioning
// for the starred filter of GET /groups/:id/projects): 201 with the project,
// 304 when the caller had already starred it.
func (s *Server) starProject(c *Ctx) error {
	var out ProjectJSON
	starred := false
	err := s.store.Write(func(d *store.Data) error {
		p, err := c.projectOf(d, "id")
		if err != nil {
			return err
		}
		if starred = d.StarProject(p, c.Caller); starred {
			out = c.view(d).project(p)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if !starred {
		return notModified(c)
	}
	return c.JSON(http.StatusCreated, out)
}

// setProjectCustomAttribute implements the platform's PUT
// /projects/:id/custom_attributes/:key (provisioning for with_custom_attributes
// of GET /groups/:id/projects).
func (s *Server) setProjectCustomAttribute(c *Ctx) error {
	key, value, err := c.customAttribute()
	if err != nil {
		return err
	}
	err = s.store.Write(func(d *store.Data) error {
		p, err := c.projectOf(d, "id")
		if err != nil {
			return err
		}
		d.Touch(p)
		if p.CustomAttributes == nil {
			p.CustomAttributes = map[string]string{}
		}
		p.CustomAttributes[key] = value
		return nil
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]string{"key": key, "value": value})
}
