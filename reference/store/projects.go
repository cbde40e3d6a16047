package store

import (
	"strings"
	"time"
)

// Project is a project; its repository arrives with the repository issue.
type Project struct {
	ID                           int
	Name                         string
	Path                         string
	Description                  string
	NamespaceID                  int
	Visibility                   string
	DefaultBranch                string
	Topics                       []string // topic names, in the order given
	RequestAccessEnabled         bool
	Archived                     bool
	CreatedAt                    time.Time
	LastActivityAt               time.Time
	UpdatedAt                    time.Time
	CreatorID                    int
	IssuesEnabled                bool
	MergeRequestsEnabled         bool
	WikiEnabled                  bool
	JobsEnabled                  bool
	SnippetsEnabled              bool
	ContainerRegistryAccessLevel string
	SharedRunnersEnabled         bool
	PublicJobs                   bool
	StarCount                    int
	ForksCount                   int
	OpenIssuesCount              int
	EmptyRepo                    bool
	// MergeMethod is how merge requests merge: merge, rebase_merge or ff.
	MergeMethod      string
	CustomAttributes map[string]string
	Starrers         map[int]bool
}

// ProjectFields holds what POST and PUT /projects accept; nil means not given.
type ProjectFields struct {
	Name, Path, Description      *string
	NamespaceID                  *int
	Visibility                   *string
	DefaultBranch                *string
	Topics                       []string
	TopicsGiven                  bool
	RequestAccessEnabled         *bool
	InitializeWithReadme         bool
	ContainerRegistryAccessLevel *string
	Archived                     *bool
	IssuesEnabled                *bool
	MergeRequestsEnabled         *bool
	MergeMethod                  *string
	WikiEnabled                  *bool
	JobsEnabled                  *bool
	SnippetsEnabled              *bool
	// SharedRunnersEnabled lets the instance runners run the project's jobs.
	SharedRunnersEnabled *bool
}

// NamespaceOf describes the namespace a project lives in.
type NamespaceOf struct {
	ID   int
	Name string
	Path string
	Kind string // user or group
	Full string
	// Group is set for group namespaces.
	Group *Group
	User  *User
}

// Namespace resolves a namespace ID to its description, or nil.
func (d *Data) Namespace(id int) *NamespaceOf {
	if g := d.groups[id]; g != nil {
		return &NamespaceOf{ID: g.ID, Name: g.Name, Path: g.Path, Kind: "group", Full: d.FullPath(g), Group: g}
	}
	if ns := d.userNS[id]; ns != nil {
		u := d.userByID[ns.UserID]
		if u == nil {
			return nil
		}
		return &NamespaceOf{ID: ns.ID, Name: u.Name, Path: u.Username, Kind: "user", Full: u.Username, User: u}
	}
	return nil
}

// NamespaceByPath resolves a full namespace path.
func (d *Data) NamespaceByPath(full string) *NamespaceOf {
	if g := d.GroupByPath(full); g != nil {
		return d.Namespace(g.ID)
	}
	if u := d.UserByUsername(full); u != nil {
		return d.Namespace(u.NamespaceID)
	}
	return nil
}

// CreateProject validates and stores a project in namespace ns for creator.
func (d *Data) CreateProject(creator *User, f ProjectFields) (*Project, error) {
	v := &ValidationError{Fields: map[string][]string{}}
	name, path := deref(f.Name), deref(f.Path)
	if name == "" && path != "" {
		name = path
	}
	if path == "" && name != "" {
		path = slug(name)
	}
	if name == "" {
		v.Fields["name"] = []string{"can't be blank"}
	}
	nsID := creator.NamespaceID
	if f.NamespaceID != nil {
		nsID = *f.NamespaceID
	}
	ns := d.Namespace(nsID)
	if ns == nil {
		return nil, ErrNotFound
	}
	if path != "" && !pathRe.MatchString(path) {
		v.Fields["path"] = []string{"can contain only letters, digits, '_', '-' and '.'. Cannot start with '-' or end in '.', '.git' or '.atom'."}
	}
	for _, p := range d.projects {
		if p.NamespaceID == nsID && (strings.EqualFold(p.Path, path) || strings.EqualFold(p.Name, name)) {
			field := "path"
			if strings.EqualFold(p.Name, name) {
				field = "name"
			}
			v.Fields[field] = append(v.Fields[field], "has already been taken")
		}
	}
	vis := "private"
	if f.Visibility != nil {
		vis = *f.Visibility
	}
	if !ValidVisibility(vis) {
		v.Fields["visibility_level"] = []string{"is not included in the list"}
	} else if ns.Group != nil && visibilityRank[vis] > visibilityRank[ns.Group.Visibility] {
		v.Fields["visibility_level"] = []string{vis + " is not allowed in a " + ns.Group.Visibility + " group."}
	}
	if f.ContainerRegistryAccessLevel != nil && !validFeatureLevel(*f.ContainerRegistryAccessLevel) {
		v.Fields["container_registry_access_level"] = []string{"is not included in the list"}
	}
	v.checkLength("name", name, MaxName)
	v.checkLength("path", path, MaxName)
	v.checkLength("description", deref(f.Description), MaxProjectDescription)
	if len(v.Fields) > 0 {
		return nil, v
	}
	now := d.Now()
	p := &Project{
		ID: d.next("project"), Name: name, Path: path, Description: deref(f.Description),
		NamespaceID: nsID, Visibility: vis, RequestAccessEnabled: true,
		CreatedAt: now, LastActivityAt: now, UpdatedAt: now, CreatorID: creator.ID,
		IssuesEnabled: true, MergeRequestsEnabled: true, WikiEnabled: true, JobsEnabled: true,
		SnippetsEnabled: true, ContainerRegistryAccessLevel: "enabled", SharedRunnersEnabled: true,
		PublicJobs: true, EmptyRepo: !f.InitializeWithReadme, CustomAttributes: map[string]string{}, MergeMethod: MergeMethodMerge,
		Starrers: map[int]bool{},
	}
	if !p.EmptyRepo {
		p.DefaultBranch = "main"
	}
	if f.DefaultBranch != nil && *f.DefaultBranch != "" {
		p.DefaultBranch = *f.DefaultBranch
	}
	d.projects[p.ID] = p
	d.Touch(p)
	d.applyProject(p, f)
	// The creator of a personal project owns it; in a group the creator keeps
	// at least Maintainer, as the platform grants.
	if ns.Kind == "user" {
		d.putMember(SourceProject, p.ID, ns.User.ID, 50, nil, creator.ID)
	} else if d.ProjectAccess(creator, p) < 40 {
		d.putMember(SourceProject, p.ID, creator.ID, 40, nil, creator.ID)
	}
	return p, nil
}

// UpdateProject applies f to p after validating it.
func (d *Data) UpdateProject(p *Project, f ProjectFields) error {
	v := &ValidationError{Fields: map[string][]string{}}
	if f.Name != nil && *f.Name == "" {
		v.Fields["name"] = []string{"can't be blank"}
	}
	if f.Path != nil && !pathRe.MatchString(*f.Path) {
		v.Fields["path"] = []string{"can contain only letters, digits, '_', '-' and '.'. Cannot start with '-' or end in '.', '.git' or '.atom'."}
	}
	if f.Visibility != nil {
		ns := d.Namespace(p.NamespaceID)
		if !ValidVisibility(*f.Visibility) {
			v.Fields["visibility_level"] = []string{"is not included in the list"}
		} else if ns != nil && ns.Group != nil && visibilityRank[*f.Visibility] > visibilityRank[ns.Group.Visibility] {
			v.Fields["visibility_level"] = []string{*f.Visibility + " is not allowed in a " + ns.Group.Visibility + " group."}
		}
	}
	if f.ContainerRegistryAccessLevel != nil && !validFeatureLevel(*f.ContainerRegistryAccessLevel) {
		v.Fields["container_registry_access_level"] = []string{"is not included in the list"}
	}
	// A rename keeps names and paths unique within the namespace, as creation does.
	for _, o := range d.projects {
		if o == p || o.NamespaceID != p.NamespaceID {
			continue
		}
		if f.Path != nil && strings.EqualFold(o.Path, *f.Path) {
			v.Fields["path"] = append(v.Fields["path"], "has already been taken")
		}
		if f.Name != nil && strings.EqualFold(o.Name, *f.Name) {
			v.Fields["name"] = append(v.Fields["name"], "has already been taken")
		}
	}
	v.checkLength("name", deref(f.Name), MaxName)
	v.checkLength("path", deref(f.Path), MaxName)
	v.checkLength("description", deref(f.Description), MaxProjectDescription)
	if len(v.Fields) > 0 {
		return v
	}
	d.Touch(p)
	if f.Name != nil {
		p.Name = *f.Name
	}
	if f.Path != nil {
		p.Path = *f.Path
	}
	if f.Description != nil {
		p.Description = *f.Description
	}
	if f.Visibility != nil {
		p.Visibility = *f.Visibility
	}
	if f.DefaultBranch != nil {
		p.DefaultBranch = *f.DefaultBranch
	}
	d.applyProject(p, f)
	p.UpdatedAt = d.Now()
	p.LastActivityAt = p.UpdatedAt
	return nil
}

func (d *Data) applyProject(p *Project, f ProjectFields) {
	set := func(dst *bool, src *bool) {
		if src != nil {
			*dst = *src
		}
	}
	set(&p.RequestAccessEnabled, f.RequestAccessEnabled)
	set(&p.Archived, f.Archived)
	set(&p.IssuesEnabled, f.IssuesEnabled)
	set(&p.MergeRequestsEnabled, f.MergeRequestsEnabled)
	set(&p.WikiEnabled, f.WikiEnabled)
	set(&p.JobsEnabled, f.JobsEnabled)
	set(&p.SnippetsEnabled, f.SnippetsEnabled)
	set(&p.SharedRunnersEnabled, f.SharedRunnersEnabled)
	if f.ContainerRegistryAccessLevel != nil {
		p.ContainerRegistryAccessLevel = *f.ContainerRegistryAccessLevel
	}
	if f.MergeMethod != nil {
		p.MergeMethod = *f.MergeMethod
	}
	if f.TopicsGiven {
		p.Topics = d.ensureTopics(f.Topics)
	}
}

func validFeatureLevel(s string) bool { return s == "enabled" || s == "private" || s == "disabled" }

// Project returns the project with id.
func (d *Data) Project(id int) *Project { return d.projects[id] }

// ProjectByPath resolves namespace/path, case-insensitively.
func (d *Data) ProjectByPath(full string) *Project {
	i := strings.LastIndexByte(full, '/')
	if i < 0 {
		return nil
	}
	ns := d.NamespaceByPath(full[:i])
	if ns == nil {
		return nil
	}
	for _, p := range d.projects {
		if p.NamespaceID == ns.ID && strings.EqualFold(p.Path, full[i+1:]) {
			return p
		}
	}
	return nil
}

// ProjectFullPath is namespace/path.
func (d *Data) ProjectFullPath(p *Project) string {
	ns := d.Namespace(p.NamespaceID)
	if ns == nil {
		return p.Path
	}
	return ns.Full + "/" + p.Path
}

// ProjectFullName is "Namespace / Name" from the top.
func (d *Data) ProjectFullName(p *Project) string {
	ns := d.Namespace(p.NamespaceID)
	if ns == nil {
		return p.Name
	}
	if ns.Group != nil {
		return d.FullName(ns.Group) + " / " + p.Name
	}
	return ns.Name + " / " + p.Name
}

// ProjectGroup returns the group a project lives in, or nil for personal projects.
func (d *Data) ProjectGroup(p *Project) *Group { return d.groups[p.NamespaceID] }

// DeleteProject removes a project with its memberships, links and requests.
func (d *Data) DeleteProject(p *Project) { d.deleteProject(p) }

func (d *Data) deleteProject(p *Project) {
	d.dropSource(SourceProject, p.ID)
	d.DropIntegrations(p.ID)
	d.dropLinks(func(l *Link) bool { return l.SourceType == SourceProject && l.SourceID == p.ID })
	d.dropPackageProtectionRules(p.ID)
	d.dropRemoteMirrors(p.ID)
	d.dropCI(p.ID)
	d.dropMergeRequests(p.ID)
	d.dropAwardables(p.ID)
	d.dropLabels(p.ID)
	d.dropMilestones(p.ID)
	d.dropRegistry(p.ID)
	d.DropCommitComments(p.ID)
	d.Touch(p)
	delete(d.projects, p.ID)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func slug(name string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '_', r == '.':
			b.WriteRune(r)
		default:
			b.WriteRune('-')
		}
	}
	return strings.Trim(b.String(), "-.")
}
