package store

import (
	"time"
)

// Member is a direct membership of a user in a group or project.
type Member struct {
	ID          int
	Type        SourceType
	SourceID    int
	UserID      int
	Access      Level
	ExpiresAt   *time.Time
	CreatedAt   time.Time
	CreatedByID int
}

// Link shares a source (group or project) with an invited group, capped at Access.
type Link struct {
	ID         int
	SourceType SourceType
	SourceID   int
	GroupID    int // the invited group
	Access     Level
	ExpiresAt  *time.Time
	CreatedAt  time.Time
}

func (d *Data) putMember(t SourceType, source, user int, level Level, expires *time.Time, by int) *Member {
	k := memberKey{t, source, user}
	if m := d.members[k]; m != nil {
		d.Touch(m)
		m.Access, m.ExpiresAt = level, expires
		return m
	}
	m := &Member{ID: d.next("member"), Type: t, SourceID: source, UserID: user, Access: level,
		ExpiresAt: expires, CreatedAt: d.Now(), CreatedByID: by}
	d.members[k] = m
	d.Touch(m)
	d.touchKey(tRequests, k)
	delete(d.requests, k)
	return m
}

// AddMember adds a direct member; a user who is already one is a conflict.
func (d *Data) AddMember(t SourceType, source, user int, level Level, expires *time.Time, by int) (*Member, error) {
	if d.members[memberKey{t, source, user}] != nil {
		return nil, ErrConflict
	}
	return d.putMember(t, source, user, level, expires, by), nil
}

// SetMemberAccess changes a direct membership's level and expiry.
func (d *Data) SetMemberAccess(m *Member, level Level, expires *time.Time) {
	d.Touch(m)
	m.Access, m.ExpiresAt = level, expires
}

// DirectMember returns u's direct membership of the source, or nil.
func (d *Data) DirectMember(t SourceType, source, user int) *Member {
	m := d.members[memberKey{t, source, user}]
	if m != nil && m.expired(d.Now()) {
		return nil
	}
	return m
}

// RemoveMember deletes a direct membership.
func (d *Data) RemoveMember(t SourceType, source, user int) {
	d.touchKey(tMembers, memberKey{t, source, user})
	delete(d.members, memberKey{t, source, user})
}

func (m *Member) expired(now time.Time) bool {
	return m.ExpiresAt != nil && !now.Before(m.ExpiresAt.Add(24*time.Hour))
}

// ShareWithGroup invites group into a source with access capped at level.
func (d *Data) ShareWithGroup(t SourceType, source int, group *Group, level Level, expires *time.Time) (*Link, error) {
	for _, l := range d.links {
		if l.SourceType == t && l.SourceID == source && l.GroupID == group.ID {
			return nil, ErrConflict
		}
	}
	l := &Link{ID: d.next("link"), SourceType: t, SourceID: source, GroupID: group.ID,
		Access: level, ExpiresAt: expires, CreatedAt: d.Now()}
	d.links = append(d.links, l)
	d.Touch(l)
	return l, nil
}

// LinksOf returns the links of one source (the groups it is shared with).
func (d *Data) LinksOf(t SourceType, source int) []*Link {
	var out []*Link
	now := d.Now()
	for _, l := range d.links {
		if l.SourceType == t && l.SourceID == source && (l.ExpiresAt == nil || now.Before(l.ExpiresAt.Add(24*time.Hour))) {
			out = append(out, l)
		}
	}
	return out
}

// LinksTo returns the links that invite group into something.
func (d *Data) LinksTo(group int) []*Link {
	var out []*Link
	for _, l := range d.links {
		if l.GroupID == group {
			out = append(out, l)
		}
	}
	return out
}

// Grant is one way a user holds access to a source, for members/all and billing views.
type Grant struct {
	Member  *Member // the membership the access comes from
	Level   Level   // effective level (capped for invites)
	Via     *Link   // set when the access comes through an invited group
	Source  SourceType
	OwnerID int // the group or project the membership belongs to
}

// groupGrants lists, per user, how they reach group g: direct, inherited from
// ancestors, and through groups invited to g or its ancestors (capped).
func (d *Data) groupGrants(g *Group) map[int][]Grant {
	out := map[int][]Grant{}
	chain := append([]*Group{g}, d.Ancestors(g)...)
	for _, a := range chain {
		for _, m := range d.DirectMembers(SourceGroup, a.ID) {
			out[m.UserID] = append(out[m.UserID], Grant{Member: m, Level: m.Access, Source: SourceGroup, OwnerID: a.ID})
		}
	}
	for _, a := range chain {
		for _, l := range d.LinksOf(SourceGroup, a.ID) {
			d.addInvited(out, l)
		}
	}
	return out
}

func (d *Data) addInvited(out map[int][]Grant, l *Link) {
	invited := d.groups[l.GroupID]
	if invited == nil {
		return
	}
	// Members of the invited group count with their own inherited access, capped by the link.
	for _, ig := range append([]*Group{invited}, d.Ancestors(invited)...) {
		for _, m := range d.DirectMembers(SourceGroup, ig.ID) {
			lv := m.Access
			if l.Access < lv {
				lv = l.Access
			}
			out[m.UserID] = append(out[m.UserID], Grant{Member: m, Level: lv, Via: l, Source: SourceGroup, OwnerID: ig.ID})
		}
	}
}

// projectGrants lists, per user, how they reach project p.
func (d *Data) projectGrants(p *Project) map[int][]Grant {
	out := map[int][]Grant{}
	for _, m := range d.DirectMembers(SourceProject, p.ID) {
		out[m.UserID] = append(out[m.UserID], Grant{Member: m, Level: m.Access, Source: SourceProject, OwnerID: p.ID})
	}
	if g := d.groups[p.NamespaceID]; g != nil {
		for u, gs := range d.groupGrants(g) {
			out[u] = append(out[u], gs...)
		}
	}
	for _, l := range d.LinksOf(SourceProject, p.ID) {
		d.addInvited(out, l)
	}
	return out
}

// Grants returns how each user reaches a group or project.
func (d *Data) Grants(t SourceType, source int) map[int][]Grant {
	if t == SourceGroup {
		if g := d.groups[source]; g != nil {
			return d.groupGrants(g)
		}
		return nil
	}
	if p := d.projects[source]; p != nil {
		return d.projectGrants(p)
	}
	return nil
}

// Best returns the grant with the highest level; the spec's "highest access wins".
func Best(gs []Grant) Grant {
	best := gs[0]
	for _, g := range gs[1:] {
		if g.Level > best.Level || (g.Level == best.Level && g.Via == nil && best.Via != nil) {
			best = g
		}
	}
	return best
}

// GroupAccess is u's effective level in g (0 when none). Administrators are not
// special here; callers decide what an administrator may do.
func (d *Data) GroupAccess(u *User, g *Group) Level {
	if u == nil {
		return 0
	}
	var best Level
	chain := append([]*Group{g}, d.Ancestors(g)...)
	for _, a := range chain {
		if m := d.DirectMember(SourceGroup, a.ID, u.ID); m != nil && m.Access > best {
			best = m.Access
		}
	}
	for _, a := range chain {
		for _, l := range d.LinksOf(SourceGroup, a.ID) {
			if lv := d.invitedLevel(u, l); lv > best {
				best = lv
			}
		}
	}
	return best
}

func (d *Data) invitedLevel(u *User, l *Link) Level {
	invited := d.groups[l.GroupID]
	if invited == nil {
		return 0
	}
	var lv Level
	for _, ig := range append([]*Group{invited}, d.Ancestors(invited)...) {
		if m := d.DirectMember(SourceGroup, ig.ID, u.ID); m != nil && m.Access > lv {
			lv = m.Access
		}
	}
	if l.Access < lv {
		lv = l.Access
	}
	return lv
}

// ProjectAccess is u's effective level in p.
func (d *Data) ProjectAccess(u *User, p *Project) Level {
	if u == nil {
		return 0
	}
	var best Level
	if m := d.DirectMember(SourceProject, p.ID, u.ID); m != nil {
		best = m.Access
	}
	if g := d.groups[p.NamespaceID]; g != nil {
		if lv := d.GroupAccess(u, g); lv > best {
			best = lv
		}
	}
	for _, l := range d.LinksOf(SourceProject, p.ID) {
		if lv := d.invitedLevel(u, l); lv > best {
			best = lv
		}
	}
	return best
}

// IsMemberOf reports whether u belongs to group g directly or by inheritance
// (not through invitations).
func (d *Data) IsMemberOf(u *User, g *Group) bool {
	if u == nil {
		return false
	}
	for _, a := range append([]*Group{g}, d.Ancestors(g)...) {
		if d.DirectMember(SourceGroup, a.ID, u.ID) != nil {
			return true
		}
	}
	return false
}

// CanSeeGroup applies visibility: public to all, internal to signed-in users,
// private to members of the group, its hierarchy below, or its projects.
func (d *Data) CanSeeGroup(u *User, g *Group) bool {
	switch {
	case g.Visibility == "public":
		return true
	case u == nil:
		return false
	case u.Admin:
		return true
	case g.Visibility == "internal" && !u.External:
		return true
	}
	if d.GroupAccess(u, g) > 0 {
		return true
	}
	for _, c := range d.Descendants(g) {
		if d.GroupAccess(u, c) > 0 {
			return true
		}
	}
	for _, p := range d.projects {
		if pg := d.groups[p.NamespaceID]; pg != nil && d.IsAncestor(g, pg) && d.DirectMember(SourceProject, p.ID, u.ID) != nil {
			return true
		}
	}
	return false
}

// CanSeeProject applies project visibility.
func (d *Data) CanSeeProject(u *User, p *Project) bool {
	switch {
	case p.Visibility == "public":
		return true
	case u == nil:
		return false
	case u.Admin:
		return true
	case p.Visibility == "internal" && !u.External:
		return true
	}
	return d.ProjectAccess(u, p) >= 10
}
