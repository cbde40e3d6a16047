package api

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"

	"github.com/v4cert/v4cert/reference/access"
	"github.com/v4cert/v4cert/reference/store"
)

// source is a group or project resolved from the path, with the caller's role in it.
type source struct {
	Type  store.SourceType
	ID    int
	Role  access.Level
	Group *store.Group
	Proj  *store.Project
}

func (c *Ctx) sourceOf(d *store.Data, t store.SourceType) (*source, error) {
	if t == store.SourceGroup {
		g, err := c.groupOf(d, "id")
		if err != nil {
			return nil, err
		}
		return &source{Type: t, ID: g.ID, Role: c.groupRole(d, g), Group: g}, nil
	}
	p, err := c.projectOf(d, "id")
	if err != nil {
		return nil, err
	}
	return &source{Type: t, ID: p.ID, Role: c.projectRole(d, p), Proj: p}, nil
}

// createMember implements the platform's POST /groups/:id/members and
// /projects/:id/members (provisioning). As on the platform, only Owners
// manage a group's members (admin_group_member is an Owner ability: rule
// { owner } in a mirror of the platform,
// pavankalisetti009/gitlab app/policies/group_policy.rb @488ed79b; POST
// .../members runs Members::CreateService, whose :unauthorized result
// add_single_member turns into Gitlab::Access::AccessDeniedError, a 403:
// gitlabhq/gitlabhq lib/api/helpers/members_helpers.rb @bc7f4d7d,
// skratsch-solutions/gitlabhq lib/api/members.rb @ae464ad4); in a project Maintainers add members up
// to their own role, Owners any role.
func (s *Server) createMember(c *Ctx, t store.SourceType) error {
	userID := c.In().IntOr("user_id", 0)
	lv, err := c.accessLevel("access_level")
	if err != nil {
		return err
	}
	expires := c.In().Date("expires_at")
	if err := c.In().Err(); err != nil {
		return err
	}
	var out MemberJSON
	err = s.store.Write(func(d *store.Data) error {
		src, err := c.sourceOf(d, t)
		if err != nil {
			return err
		}
		if (t == store.SourceGroup && src.Role < access.Owner) || src.Role < access.Maintainer || (*lv > src.Role && src.Role < access.Owner) {
			return forbidden()
		}
		u := d.User(userID)
		if u == nil {
			return notFound("User")
		}
		m, err := d.AddMember(t, src.ID, u.ID, *lv, expires, c.Caller.ID)
		if err != nil {
			return conflict("Member already exists")
		}
		out = c.view(d).member(m, int(m.Access))
		return nil
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, out)
}

// ListMembersOptions are the inputs of GET .../members and .../members/all.
type ListMembersOptions struct {
	Query        *string
	UserIDs      []int
	SkipUsers    []int
	ShowSeatInfo bool
	// State filters .../members/all by membership state (paid tier).
	State *string
}

func (c *Ctx) readListMembersOptions(all bool) (ListMembersOptions, error) {
	in := c.In()
	o := ListMembersOptions{Query: in.String("query"), UserIDs: in.Ints("user_ids"),
		ShowSeatInfo: in.BoolOr("show_seat_info", false)}
	if all {
		o.State = in.String("state")
	} else {
		// skip_users belongs to the direct list only (Members table).
		o.SkipUsers = in.Ints("skip_users")
	}
	return o, in.Err()
}

// matchUserSearch is the platform's user search for members: name or username
// containing the term, ignoring case, or the exact public email.
func matchUserSearch(u *store.User, q string) bool {
	if q == "" {
		return true
	}
	l := strings.ToLower(q)
	return strings.Contains(strings.ToLower(u.Name), l) || strings.Contains(strings.ToLower(u.Username), l) ||
		(u.PublicEmail != "" && strings.EqualFold(u.PublicEmail, q))
}

func (o ListMembersOptions) match(u *store.User) bool {
	if o.Query != nil && !matchUserSearch(u, *o.Query) {
		return false
	}
	if o.UserIDs != nil && !slices.Contains(o.UserIDs, u.ID) {
		return false
	}
	if slices.Contains(o.SkipUsers, u.ID) {
		return false
	}
	// Every membership of the reference is active: none awaits a seat.
	if o.State != nil && *o.State == "awaiting" {
		return false
	}
	return true
}

// memberEntry is one user as a members list shows them: the membership the
// entry comes from and the level it grants there.
type memberEntry struct {
	User   *store.User
	Member *store.Member
	Level  access.Level
}

// allMembers are the entries of GET .../members/all: direct, inherited and
// invited members, the highest level winning per user, in user-id order:
// at(i) is the i-th user of the store's AllGrants. Members of an invited
// group the caller may not see through are left out (rule
// members.visibility.1): their entry has no Member when the user has no
// other way in; seesAll reports that the caller sees through every
// invitation, so every entry has one.
func (c *Ctx) allMembers(d *store.Data, src *source) (at func(int) memberEntry, seesAll bool) {
	sg := d.AllGrants(src.Type, src.ID)
	sees := make(map[*store.Link]bool, len(sg.Links))
	seesAll = true
	for _, l := range sg.Links {
		sees[l] = c.seesInvitedMembers(d, src, l)
		seesAll = seesAll && sees[l]
	}
	return func(i int) memberEntry {
		ug := sg.Users[i]
		best := ug.Best
		if !seesAll {
			kept := ug.Grants[:0:0]
			for _, g := range ug.Grants {
				if g.Via == nil || sees[g.Via] {
					kept = append(kept, g)
				}
			}
			if len(kept) == 0 {
				return memberEntry{User: ug.User}
			}
			best = store.Best(kept)
		}
		return memberEntry{User: ug.User, Member: best.Member, Level: best.Level}
	}, seesAll
}

// seesInvitedMembers applies the Members section: members of an invited
// group are returned when that group is public, or the requester belongs to
// it, or to the shared group or project. Administrators see every member.
func (c *Ctx) seesInvitedMembers(d *store.Data, src *source, l *store.Link) bool {
	if c.Admin() {
		return true
	}
	invited := d.Group(l.GroupID)
	if invited == nil {
		return false
	}
	if invited.Visibility == "public" || d.IsMemberOf(c.Caller, invited) {
		return true
	}
	// src.Role covers inherited access, so belonging to the group the
	// invitation sits on (the source or an ancestor) counts as well.
	return src.Role > access.None
}

// MemberSeatJSON is a member with the is_using_seat flag of show_seat_info.
type MemberSeatJSON struct {
	MemberJSON
	IsUsingSeat *bool `json:"is_using_seat,omitempty"`
}

func (s *Server) listGroupMembers(c *Ctx) error { return s.listMembers(c, store.SourceGroup, false) }

func (s *Server) listProjectMembers(c *Ctx) error {
	return s.listMembers(c, store.SourceProject, false)
}

func (s *Server) listAllGroupMembers(c *Ctx) error { return s.listMembers(c, store.SourceGroup, true) }

func (s *Server) listAllProjectMembers(c *Ctx) error {
	return s.listMembers(c, store.SourceProject, true)
}

// listMembers implements GET /groups/:id/members, /projects/:id/members and
// their /all forms (rules members.list.*, members.list-all.*,
// members.visibility.*, members.access.*, members.fields.*). The members are
// walked in the store's per-source index (members/all: its kept grants),
// stopping at the page's end when no filter applies (issue 21).
func (s *Server) listMembers(c *Ctx, t store.SourceType, all bool) error {
	o, err := c.readListMembersOptions(all)
	if err != nil {
		return err
	}
	filtered := o.Query != nil || o.UserIDs != nil || len(o.SkipUsers) > 0 || o.State != nil
	return s.readPage(c, func(d *store.Data) (*Page, error) {
		src, err := c.sourceOf(d, t)
		if err != nil {
			return nil, err
		}
		var seat func(*store.User) bool
		if o.ShowSeatInfo {
			seat = d.SeatHolders(src.Type, src.ID)
		}
		v, admin := c.view(d), c.Admin()
		render := func(e memberEntry) json.RawMessage {
			if seat != nil {
				b := seat(e.User)
				return encoded(MemberSeatJSON{MemberJSON: v.member(e.Member, int(e.Level)), IsUsingSeat: &b})
			}
			// The level shown (capped for invitations) and the administrator's
			// form (with email) are the view's variant.
			k := store.ViewKey{Kind: viewMember, Variant: int(e.Level)<<1 | flag(admin), ID: e.Member.ID, Base: c.base}
			return d.MemoView(k, func() []byte { return encoded(v.member(e.Member, int(e.Level))) })
		}
		var match func(memberEntry) bool
		if filtered {
			match = func(e memberEntry) bool { return o.match(e.User) }
		}
		if !all {
			ms := d.DirectMembers(t, src.ID)
			at := func(i int) memberEntry {
				m := ms[i]
				return memberEntry{User: d.User(m.UserID), Member: m, Level: m.Access}
			}
			if d.MembersWithoutUser(t, src.ID) {
				keep := match
				match = func(e memberEntry) bool { return e.User != nil && (keep == nil || keep(e)) }
			}
			return PaginateWalk(c, len(ms), at, match, nil, render)
		}
		at, seesAll := c.allMembers(d, src)
		if !seesAll {
			keep := match
			match = func(e memberEntry) bool { return e.Member != nil && (keep == nil || keep(e)) }
		}
		n := len(d.AllGrants(t, src.ID).Users)
		return PaginateWalk(c, n, at, match, nil, render)
	})
}

func (s *Server) getGroupMember(c *Ctx) error { return s.getMember(c, store.SourceGroup, false) }

func (s *Server) getProjectMember(c *Ctx) error { return s.getMember(c, store.SourceProject, false) }

func (s *Server) getAllGroupMember(c *Ctx) error { return s.getMember(c, store.SourceGroup, true) }

func (s *Server) getAllProjectMember(c *Ctx) error { return s.getMember(c, store.SourceProject, true) }

// memberNotFound is the platform's answer for a user who is not a member.
func memberNotFound() *Error { return errorf(http.StatusNotFound, "404 Not found") }

// getMember implements GET .../members/:user_id (direct member, rules
// members.get.*) and GET .../members/all/:user_id (rules members.get-all.*).
func (s *Server) getMember(c *Ctx, t store.SourceType, all bool) error {
	var out any
	err := s.store.Read(func(d *store.Data) error {
		src, err := c.sourceOf(d, t)
		if err != nil {
			return err
		}
		uid, err := c.PathInt("user_id", "Member")
		if err != nil {
			return memberNotFound()
		}
		var e memberEntry
		if all {
			users := d.AllGrants(t, src.ID).Users
			i, found := slices.BinarySearchFunc(users, uid, func(ug store.UserGrants, id int) int { return ug.User.ID - id })
			if found {
				at, _ := c.allMembers(d, src)
				e = at(i)
			}
		} else if m := d.DirectMember(t, src.ID, uid); m != nil {
			e = memberEntry{User: d.User(uid), Member: m, Level: m.Access}
		}
		if e.User == nil || e.Member == nil {
			return memberNotFound()
		}
		out = c.view(d).member(e.Member, int(e.Level))
		return nil
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, out)
}

// recordActivity keeps the caller's last_activity_on current, as the platform
// does for authenticated API requests; it writes at most once a day per user.
func (s *Server) recordActivity(u *store.User) {
	var stale bool
	s.store.Read(func(d *store.Data) error {
		stale = d.NeedsActivity(u)
		return nil
	})
	if stale {
		s.store.Write(func(d *store.Data) error {
			d.RecordActivity(u.ID)
			return nil
		})
	}
}
