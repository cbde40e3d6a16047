package store

import (
	"errors"
	"time"
)

// Errors of billable-member removal; the HTTP layer turns them into 400s.
var (
	ErrNotRemovable = errors.New("the user has no direct membership in the group hierarchy")
	ErrLastOwner    = errors.New("the last owner of the group cannot be removed")
)

// Membership types of a billable member, strongest first: the first that
// applies is the one a billable member shows.
const (
	MembershipGroupMember   = "group_member"
	MembershipProjectMember = "project_member"
	MembershipGroupInvite   = "group_invite"
	MembershipProjectInvite = "project_invite"
)

// BillableMember is a user who takes a seat in a top-level group: a direct
// member of the group, its subgroups or its projects, or a member of a group
// invited into any of them.
type BillableMember struct {
	User *User
	// Type is the strongest way the user takes the seat.
	Type string
	// Removable is true when the user holds a direct membership in the
	// hierarchy; invited users leave only when their group's invitation goes.
	Removable bool
	// Access is the highest level the user holds anywhere in the hierarchy
	// (capped by the invitation for invited members).
	Access Level
	// JoinedAt is when the user first gained access to the hierarchy;
	// JoinSeq, the id of that membership, orders joins at the same instant.
	JoinedAt time.Time
	JoinSeq  int
}

// Hierarchy returns root and every subgroup below it, root first.
func (d *Data) Hierarchy(root *Group) []*Group {
	return append([]*Group{root}, d.Descendants(root)...)
}

// HierarchyProjects returns the projects of root and its subgroups in id order.
func (d *Data) HierarchyProjects(root *Group) []*Project {
	in := map[int]bool{}
	for _, g := range d.Hierarchy(root) {
		in[g.ID] = true
	}
	var out []*Project
	for _, p := range d.Projects() {
		if in[p.NamespaceID] {
			out = append(out, p)
		}
	}
	return out
}

// billable reports whether a user can take a seat: bots and blocked users never do.
func billable(u *User) bool { return u != nil && u.Human() && u.Active() }

// BillableMembers lists the billable members of top-level group root in user-id order.
func (d *Data) BillableMembers(root *Group) []*BillableMember {
	rank := map[string]int{MembershipGroupMember: 0, MembershipProjectMember: 1, MembershipGroupInvite: 2, MembershipProjectInvite: 3}
	byUser := map[int]*BillableMember{}
	add := func(m *Member, kind string, level Level, since time.Time, seq int) {
		u := d.User(m.UserID)
		if !billable(u) {
			return
		}
		b := byUser[u.ID]
		if b == nil {
			b = &BillableMember{User: u, Type: kind, Access: level, JoinedAt: since, JoinSeq: seq}
			byUser[u.ID] = b
		}
		if rank[kind] < rank[b.Type] {
			b.Type = kind
		}
		if kind == MembershipGroupMember || kind == MembershipProjectMember {
			b.Removable = true
		}
		if level > b.Access {
			b.Access = level
		}
		if since.Before(b.JoinedAt) || since.Equal(b.JoinedAt) && seq < b.JoinSeq {
			b.JoinedAt, b.JoinSeq = since, seq
		}
	}
	invited := func(l *Link, kind string) {
		for _, m := range d.invitedMembers(l) {
			// Access through an invitation starts when both the membership
			// and the invitation exist.
			since, seq := m.CreatedAt, m.ID
			if l.CreatedAt.After(since) {
				since = l.CreatedAt
			}
			add(m, kind, min(m.Access, l.Access), since, seq)
		}
	}
	groups := d.Hierarchy(root)
	projects := d.HierarchyProjects(root)
	for _, g := range groups {
		for _, m := range d.DirectMembers(SourceGroup, g.ID) {
			add(m, MembershipGroupMember, m.Access, m.CreatedAt, m.ID)
		}
	}
	for _, p := range projects {
		for _, m := range d.DirectMembers(SourceProject, p.ID) {
			add(m, MembershipProjectMember, m.Access, m.CreatedAt, m.ID)
		}
	}
	for _, g := range groups {
		for _, l := range d.LinksOf(SourceGroup, g.ID) {
			invited(l, MembershipGroupInvite)
		}
	}
	for _, p := range projects {
		for _, l := range d.LinksOf(SourceProject, p.ID) {
			invited(l, MembershipProjectInvite)
		}
	}
	out := make([]*BillableMember, 0, len(byUser))
	for _, b := range byUser {
		out = append(out, b)
	}
	sortByID(out, func(b *BillableMember) int { return b.User.ID })
	return out
}

// BillableMember returns u's entry among root's billable members, or nil.
func (d *Data) BillableMember(root *Group, u *User) *BillableMember {
	for _, b := range d.BillableMembers(root) {
		if b.User.ID == u.ID {
			return b
		}
	}
	return nil
}

// invitedMembers are the memberships an invitation brings in: the direct
// members of the invited group and of its ancestors, as in addInvited.
func (d *Data) invitedMembers(l *Link) []*Member {
	g := d.groups[l.GroupID]
	if g == nil {
		return nil
	}
	var out []*Member
	for _, ig := range append([]*Group{g}, d.Ancestors(g)...) {
		out = append(out, d.DirectMembers(SourceGroup, ig.ID)...)
	}
	return out
}

// BillableMemberships returns u's direct memberships within root's hierarchy
// (its groups and projects), inherited ones excluded, in membership-id order.
func (d *Data) BillableMemberships(root *Group, u *User) []*Member {
	var out []*Member
	for _, g := range d.Hierarchy(root) {
		if m := d.DirectMember(SourceGroup, g.ID, u.ID); m != nil {
			out = append(out, m)
		}
	}
	for _, p := range d.HierarchyProjects(root) {
		if m := d.DirectMember(SourceProject, p.ID, u.ID); m != nil {
			out = append(out, m)
		}
	}
	sortByID(out, func(m *Member) int { return m.ID })
	return out
}

// IndirectMemberships returns u's memberships of groups invited into root's
// hierarchy (into its groups or its projects); memberships inside the
// hierarchy are direct ones and are left out. Membership-id order.
func (d *Data) IndirectMemberships(root *Group, u *User) []*Member {
	inside := map[int]bool{}
	for _, g := range d.Hierarchy(root) {
		inside[g.ID] = true
	}
	var links []*Link
	for _, g := range d.Hierarchy(root) {
		links = append(links, d.LinksOf(SourceGroup, g.ID)...)
	}
	for _, p := range d.HierarchyProjects(root) {
		links = append(links, d.LinksOf(SourceProject, p.ID)...)
	}
	seen := map[int]bool{}
	var out []*Member
	for _, l := range links {
		for _, m := range d.invitedMembers(l) {
			if m.UserID != u.ID || inside[m.SourceID] || seen[m.ID] {
				continue
			}
			seen[m.ID] = true
			out = append(out, m)
		}
	}
	sortByID(out, func(m *Member) int { return m.ID })
	return out
}

// RemoveBillableMember removes u from root, its subgroups and its projects,
// whether or not u is a member of root itself. It refuses when u holds no
// direct membership there, or is the only direct Owner of root.
func (d *Data) RemoveBillableMember(root *Group, u *User) error {
	ms := d.BillableMemberships(root, u)
	if len(ms) == 0 {
		return ErrNotRemovable
	}
	if m := d.DirectMember(SourceGroup, root.ID, u.ID); m != nil && m.Access >= 50 {
		owners := 0
		for _, o := range d.DirectMembers(SourceGroup, root.ID) {
			if o.Access >= 50 {
				owners++
			}
		}
		if owners == 1 {
			return ErrLastOwner
		}
	}
	for _, m := range ms {
		d.RemoveMember(m.Type, m.SourceID, u.ID)
	}
	return nil
}

// SeatHolders returns whether a user takes a seat in the top-level namespace
// of a source: billable in its root group or, outside any group, a human and
// active account. The billable set is computed once for the whole list.
func (d *Data) SeatHolders(t SourceType, source int) func(*User) bool {
	var g *Group
	if t == SourceGroup {
		g = d.groups[source]
	} else if p := d.projects[source]; p != nil {
		g = d.groups[p.NamespaceID]
	}
	if g == nil {
		return billable
	}
	seats := map[int]bool{}
	for _, b := range d.BillableMembers(d.Root(g)) {
		seats[b.User.ID] = true
	}
	return func(u *User) bool { return u != nil && seats[u.ID] }
}

// NeedsActivity reports whether u's last activity date is behind today, so
// that recording it costs a write at most once a day per user.
func (d *Data) NeedsActivity(u *User) bool {
	today := d.Now().UTC().Truncate(24 * time.Hour)
	return u.LastActivityOn == nil || u.LastActivityOn.Before(today)
}

// RecordActivity sets u's last activity date to today, as the platform does
// for every authenticated API request (billable members show it).
func (d *Data) RecordActivity(userID int) {
	if u := d.userByID[userID]; u != nil && d.NeedsActivity(u) {
		today := d.Now().UTC().Truncate(24 * time.Hour)
		d.Touch(u)
		u.LastActivityOn = &today
	}
}
