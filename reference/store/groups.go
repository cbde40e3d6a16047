package store

import (
	"cmp"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Group is a group namespace.
type Group struct {
	ID                      int
	Name                    string
	Path                    string
	Description             string
	Visibility              string
	ParentID                int
	RequestAccessEnabled    bool
	CreatedAt               time.Time
	AvatarURL               string
	ShareWithGroupLock      bool
	RequireTwoFactor        bool
	TwoFactorGracePeriod    int
	ProjectCreationLevel    string
	SubgroupCreationLevel   string
	EmailsEnabled           bool
	MentionsDisabled        bool
	LFSEnabled              bool
	DefaultBranch           string
	DefaultBranchProtection int
	RunnersToken            string
	CustomAttributes        map[string]string
	PreventSharingOutside   bool
}

// UserNamespace is a user's personal namespace.
type UserNamespace struct {
	ID     int
	UserID int
}

// NewGroup holds what POST /groups accepts.
type NewGroup struct {
	Name, Path, Description string
	Visibility              string
	ParentID                int
	RequestAccessEnabled    *bool
	CreatorID               int
}

var pathRe = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]*$`)

// ValidVisibility reports whether v is a visibility level of the spec.
func ValidVisibility(v string) bool {
	return v == "public" || v == "internal" || v == "private"
}

var visibilityRank = map[string]int{"private": 0, "internal": 10, "public": 20}

// CreateGroup validates and stores a group; the creator becomes its Owner.
func (d *Data) CreateGroup(n NewGroup) (*Group, error) {
	v := &ValidationError{Fields: map[string][]string{}}
	if n.Name == "" {
		v.Fields["name"] = []string{"can't be blank"}
	}
	if n.Path == "" {
		v.Fields["path"] = []string{"can't be blank"}
	} else if !pathRe.MatchString(n.Path) || strings.HasSuffix(n.Path, ".git") {
		v.Fields["path"] = []string{"can contain only letters, digits, '_', '-' and '.'. Cannot start with '-' or end in '.', '.git' or '.atom'."}
	}
	var parent *Group
	if n.ParentID != 0 {
		parent = d.groups[n.ParentID]
		if parent == nil {
			return nil, ErrNotFound
		}
	}
	if n.Visibility == "" {
		n.Visibility = "private"
	}
	if !ValidVisibility(n.Visibility) {
		v.Fields["visibility_level"] = []string{"is not included in the list"}
	} else if parent != nil && visibilityRank[n.Visibility] > visibilityRank[parent.Visibility] {
		v.Fields["visibility_level"] = []string{"private is not allowed since the parent group has a private visibility."}
		if parent.Visibility == "internal" {
			v.Fields["visibility_level"] = []string{"public is not allowed since the parent group has a internal visibility."}
		}
	}
	if n.Path != "" && d.namespacePathTaken(n.Path, n.ParentID) {
		v.Fields["path"] = append(v.Fields["path"], "has already been taken")
	}
	v.checkLength("name", n.Name, MaxName)
	v.checkLength("path", n.Path, MaxName)
	v.checkLength("description", n.Description, MaxGroupDescription)
	if len(v.Fields) > 0 {
		return nil, v
	}
	g := &Group{
		ID: d.next("namespace"), Name: n.Name, Path: n.Path, Description: n.Description,
		Visibility: n.Visibility, ParentID: n.ParentID, RequestAccessEnabled: true,
		CreatedAt: d.Now(), ProjectCreationLevel: "developer", SubgroupCreationLevel: "maintainer",
		EmailsEnabled: true, LFSEnabled: true, DefaultBranchProtection: 2,
		RunnersToken: NewSecret("GR1348941"), CustomAttributes: map[string]string{},
	}
	if n.RequestAccessEnabled != nil {
		g.RequestAccessEnabled = *n.RequestAccessEnabled
	}
	d.groups[g.ID] = g
	d.Touch(g)
	if n.CreatorID != 0 {
		d.putMember(SourceGroup, g.ID, n.CreatorID, 50, nil, n.CreatorID)
	}
	return g, nil
}

// namespacePathTaken reports whether a top-level path (parent 0: users and
// top-level groups share it) or a subgroup path under parent is in use.
func (d *Data) namespacePathTaken(path string, parent int) bool {
	for _, g := range d.groups {
		if g.ParentID == parent && strings.EqualFold(g.Path, path) {
			return true
		}
	}
	if parent == 0 {
		return d.userByName[strings.ToLower(path)] != nil
	}
	return false
}

// Group returns the group with id.
func (d *Data) Group(id int) *Group { return d.groups[id] }

// GroupByPath returns the group with the full path, case-insensitively.
func (d *Data) GroupByPath(full string) *Group {
	parts := strings.Split(full, "/")
	parent := 0
	var g *Group
	for _, p := range parts {
		g = nil
		for _, c := range d.groups {
			if c.ParentID == parent && strings.EqualFold(c.Path, p) {
				g = c
				break
			}
		}
		if g == nil {
			return nil
		}
		parent = g.ID
	}
	return g
}

// Ancestors returns g's ancestors, nearest first.
func (d *Data) Ancestors(g *Group) []*Group {
	var out []*Group
	for p := d.groups[g.ParentID]; p != nil; p = d.groups[p.ParentID] {
		out = append(out, p)
	}
	return out
}

// Root returns g's top-level group.
func (d *Data) Root(g *Group) *Group {
	for g.ParentID != 0 {
		g = d.groups[g.ParentID]
	}
	return g
}

// Descendants returns every subgroup below g (not g itself).
func (d *Data) Descendants(g *Group) []*Group {
	var out []*Group
	for _, c := range d.groups {
		if c.ID != g.ID && d.IsAncestor(g, c) {
			out = append(out, c)
		}
	}
	sortByID(out, func(g *Group) int { return g.ID })
	return out
}

// IsAncestor reports whether a is c or one of c's ancestors.
func (d *Data) IsAncestor(a, c *Group) bool {
	for x := c; x != nil; x = d.groups[x.ParentID] {
		if x.ID == a.ID {
			return true
		}
		if x.ParentID == 0 {
			break
		}
	}
	return false
}

// FullPath is the group's path from the top.
func (d *Data) FullPath(g *Group) string {
	if g.ParentID == 0 {
		return g.Path
	}
	return d.FullPath(d.groups[g.ParentID]) + "/" + g.Path
}

// FullName is the group's name from the top, joined with " / ".
func (d *Data) FullName(g *Group) string {
	if g.ParentID == 0 {
		return g.Name
	}
	return d.FullName(d.groups[g.ParentID]) + " / " + g.Name
}

// DeleteGroup removes a group with its subgroups, projects, memberships, links and requests.
func (d *Data) DeleteGroup(g *Group) {
	for _, c := range d.Descendants(g) {
		d.deleteGroupOnly(c)
	}
	d.deleteGroupOnly(g)
}

func (d *Data) deleteGroupOnly(g *Group) {
	for _, p := range d.projects {
		if p.NamespaceID == g.ID {
			d.deleteProject(p)
		}
	}
	d.dropSource(SourceGroup, g.ID)
	d.dropLinks(func(l *Link) bool { return l.GroupID == g.ID || (l.SourceType == SourceGroup && l.SourceID == g.ID) })
	d.Touch(g)
	delete(d.groups, g.ID)
}

func (d *Data) dropSource(t SourceType, id int) {
	for k := range d.members {
		if k.Type == t && k.Source == id {
			d.touchKey(tMembers, k)
			delete(d.members, k)
		}
	}
	for k := range d.requests {
		if k.Type == t && k.Source == id {
			d.touchKey(tRequests, k)
			delete(d.requests, k)
		}
	}
}

// dropLinks removes the links drop chooses.
func (d *Data) dropLinks(drop func(*Link) bool) {
	d.links = slices.DeleteFunc(d.links, func(l *Link) bool {
		if drop(l) {
			d.Touch(l)
			return true
		}
		return false
	})
}

func sortByID[T any](s []T, id func(T) int) {
	slices.SortFunc(s, func(a, b T) int { return cmp.Compare(id(a), id(b)) })
}
