package store

import (
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"
)

// readCache holds what lists derive from the state between two writes, so a
// page costs what the page holds rather than what the world holds (issue 21):
// the projects in id order, each namespace's projects, orderings, and the
// users' search index. Readers hold only the store's shared lock, so it has a
// lock of its own. It is used only while Data.cached is set: the Store sets
// it outside its writes (Store.Write clears it for the write and drops
// everything after), so a write never reads what it has itself made stale,
// and Data used without a Store (tests, loading) computes afresh every time.
type readCache struct {
	mu           sync.Mutex
	projects     []*Project                   // ascending id
	nsProjects   map[int][]*Project           // by namespace id, ascending id
	projOrdered  map[string][]*Project        // by order_by field, ascending (ties by id)
	groupOrdered map[groupOrderKey][]*Project // a group's own projects by field, ascending
	userSearch   *userSearchIndex             // lower-cased copies and trigrams of names and usernames
	projMember   map[int]bool                 // users with a direct project membership
	userOrdered  map[string][]*User           // users by field, ascending (ties by id)
	memo         map[any]any                  // Memo's values, at most memoLimit
	views        map[ViewKey][]byte           // MemoView's values, at most memoLimit
	members      map[sourceKey]*memberList    // direct memberships by source, ascending id
	deadlines    []time.Time                  // every membership's and link's expiry, ascending
	grants       map[grantsKey]*SourceGrants  // members/all entries by source and expiry epoch
	groupsByID   []*Group                     // ascending id
	groupsSorted map[string][]*Group          // by ordering name (GroupsOrdered)
	children     map[int][]*Group             // groups by parent id, ascending id
	jobs         *jobIndex                    // jobs by project and pipeline, pipelines by parent
}

type groupOrderKey struct {
	group     int
	subgroups bool
	field     string
}

// drop forgets everything (a write may have changed anything).
func (c *readCache) drop() {
	c.mu.Lock()
	c.projects, c.nsProjects, c.projOrdered, c.groupOrdered = nil, nil, nil, nil
	c.userSearch, c.projMember, c.userOrdered, c.memo = nil, nil, nil, nil
	c.members, c.deadlines, c.grants, c.groupsByID, c.groupsSorted, c.jobs = nil, nil, nil, nil, nil, nil
	c.views, c.children = nil, nil
	c.mu.Unlock()
}

// cachedValue returns get's value from the cache while d.cached, computing it
// with compute (and keeping it with put) the first time; without d.cached it
// computes afresh. compute runs without the cache's lock, since it may read
// other cached values; two readers that miss at once both compute the same
// value (no write can run between them: they hold the store's shared lock).
func cachedValue[V any](d *Data, get func(*readCache) (V, bool), put func(*readCache, V), compute func() V) V {
	if !d.cached {
		return compute()
	}
	c := &d.cache
	c.mu.Lock()
	v, ok := get(c)
	c.mu.Unlock()
	if ok {
		return v
	}
	v = compute()
	c.mu.Lock()
	put(c, v)
	c.mu.Unlock()
	return v
}

// memoLimit bounds how many values Memo keeps between two writes, so paging
// through a large world does not keep an answer for every record.
const memoLimit = 5000

// Memo returns compute's value for key, kept until the next write: what the
// HTTP layer derives from the state alone (a record's encoded view) is then
// computed once between writes. key must name everything the value depends
// on besides the state. Past memoLimit values, or within a write, it
// computes afresh.
func (d *Data) Memo(key any, compute func() any) any {
	if !d.cached {
		return compute()
	}
	c := &d.cache
	c.mu.Lock()
	v, ok := c.memo[key]
	c.mu.Unlock()
	if ok {
		return v
	}
	v = compute()
	c.mu.Lock()
	if c.memo == nil {
		c.memo = map[any]any{}
	}
	if len(c.memo) < memoLimit {
		c.memo[key] = v
	}
	c.mu.Unlock()
	return v
}

// Projects returns every project in id order. Between writes the slice is
// kept, so callers must not change it.
func (d *Data) Projects() []*Project {
	return cachedValue(d,
		func(c *readCache) ([]*Project, bool) { return c.projects, c.projects != nil },
		func(c *readCache, v []*Project) { c.projects = v },
		func() []*Project {
			out := make([]*Project, 0, len(d.projects))
			for _, p := range d.projects {
				out = append(out, p)
			}
			sortByID(out, func(p *Project) int { return p.ID })
			return out
		})
}

// NamespaceProjects returns the projects that live in namespace ns, in id
// order; callers must not change the slice.
func (d *Data) NamespaceProjects(ns int) []*Project {
	return d.nsIndex()[ns]
}

func (d *Data) nsIndex() map[int][]*Project {
	return cachedValue(d,
		func(c *readCache) (map[int][]*Project, bool) { return c.nsProjects, c.nsProjects != nil },
		func(c *readCache, v map[int][]*Project) { c.nsProjects = v },
		func() map[int][]*Project {
			m := map[int][]*Project{}
			for _, p := range d.Projects() { // id order, so each list is too
				m[p.NamespaceID] = append(m[p.NamespaceID], p)
			}
			return m
		})
}

// ProjectsOrdered returns every project ascending by field (ProjectOrder),
// ties broken by id; callers must not change the slice.
func (d *Data) ProjectsOrdered(field string) []*Project {
	field = projectOrderField(field)
	return cachedValue(d,
		func(c *readCache) ([]*Project, bool) { v, ok := c.projOrdered[field]; return v, ok },
		func(c *readCache, v []*Project) {
			if c.projOrdered == nil {
				c.projOrdered = map[string][]*Project{}
			}
			c.projOrdered[field] = v
		},
		func() []*Project { return sortedProjects(d.Projects(), field) })
}

// GroupProjectsOrdered returns GroupProjects(g, subgroups) ascending by
// field (ProjectOrder), ties broken by id; callers must not change the slice.
func (d *Data) GroupProjectsOrdered(g *Group, subgroups bool, field string) []*Project {
	field = projectOrderField(field)
	k := groupOrderKey{g.ID, subgroups, field}
	return cachedValue(d,
		func(c *readCache) ([]*Project, bool) { v, ok := c.groupOrdered[k]; return v, ok },
		func(c *readCache, v []*Project) {
			if c.groupOrdered == nil {
				c.groupOrdered = map[groupOrderKey][]*Project{}
			}
			c.groupOrdered[k] = v
		},
		func() []*Project { return sortedProjects(d.GroupProjects(g, subgroups), field) })
}

// projectOrderField is field when ProjectOrder orders by it, else id (the
// order ProjectOrder leaves for a field it does not know), so the cache keeps
// one ordering per field whatever callers ask.
func projectOrderField(field string) string {
	switch field {
	case "name", "path", "created_at", "updated_at", "last_activity_at", "star_count":
		return field
	}
	return "id"
}

// sortedProjects returns a sorted copy of ps.
func sortedProjects(ps []*Project, field string) []*Project {
	out := slices.Clone(ps)
	if field == "id" {
		return out // ps is in id order
	}
	// Lower-cased once per project, not once per comparison.
	var keys map[*Project]string
	if field == "name" || field == "path" {
		keys = make(map[*Project]string, len(out))
		for _, p := range out {
			if field == "name" {
				keys[p] = strings.ToLower(p.Name)
			} else {
				keys[p] = strings.ToLower(p.Path)
			}
		}
	}
	slices.SortStableFunc(out, func(a, b *Project) int {
		if keys != nil {
			if c := strings.Compare(keys[a], keys[b]); c != 0 {
				return c
			}
			return a.ID - b.ID
		}
		return ProjectOrder(a, b, field)
	})
	return out
}

// ProjectOrder orders two projects ascending by field (name and path
// case-insensitively), ties broken by id: the orderings of GET /projects and
// GET /groups/:id/projects. Descending is its exact reverse.
func ProjectOrder(a, b *Project, field string) int {
	var c int
	switch field {
	case "name":
		c = strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name))
	case "path":
		c = strings.Compare(strings.ToLower(a.Path), strings.ToLower(b.Path))
	case "created_at":
		c = a.CreatedAt.Compare(b.CreatedAt)
	case "updated_at":
		c = a.UpdatedAt.Compare(b.UpdatedAt)
	case "last_activity_at":
		c = a.LastActivityAt.Compare(b.LastActivityAt)
	case "star_count":
		c = a.StarCount - b.StarCount
	}
	if c == 0 {
		c = a.ID - b.ID
	}
	return c
}

// HasProjectMembership reports whether u is a direct member of any project.
func (d *Data) HasProjectMembership(u *User) bool {
	return cachedValue(d,
		func(c *readCache) (map[int]bool, bool) { return c.projMember, c.projMember != nil },
		func(c *readCache, v map[int]bool) { c.projMember = v },
		func() map[int]bool {
			m := map[int]bool{}
			for k := range d.members {
				if k.Type == SourceProject {
					m[k.User] = true
				}
			}
			return m
		})[u.ID]
}

// UsersOrdered returns every user ordered by field (id, name, username,
// created_at, updated_at) ascending with id as the tie-breaker. Orderings are
// kept until the next write so a keyset page costs the same at any depth;
// callers must not change the slice.
func (d *Data) UsersOrdered(field string) []*User {
	if field == "id" || field == "" {
		return d.users
	}
	return cachedValue(d,
		func(c *readCache) ([]*User, bool) { v, ok := c.userOrdered[field]; return v, ok },
		func(c *readCache, v []*User) {
			if c.userOrdered == nil {
				c.userOrdered = map[string][]*User{}
			}
			c.userOrdered[field] = v
		},
		func() []*User {
			out := slices.Clone(d.users)
			slices.SortStableFunc(out, func(a, b *User) int { return CompareUsers(a, b, field) })
			return out
		})
}

// userSearchIndex serves GET /users?search= and ?username= without touching
// every user: lower-cased copies of names and usernames made once, the
// positions (in d.users) of the users whose lower-cased name or username
// holds each byte trigram, and the users by simple-folded username, email
// and public email.
type userSearchIndex struct {
	lowerName, lowerUsername []string
	grams                    map[uint32][]int32 // ascending positions
	byUsername, byEmail      map[string][]int32
	byPublicEmail            map[string][]int32
}

func (d *Data) userIndex() *userSearchIndex {
	return cachedValue(d,
		func(c *readCache) (*userSearchIndex, bool) { return c.userSearch, c.userSearch != nil },
		func(c *readCache, v *userSearchIndex) { c.userSearch = v },
		func() *userSearchIndex {
			n := len(d.users)
			x := &userSearchIndex{lowerName: make([]string, n), lowerUsername: make([]string, n),
				grams: map[uint32][]int32{}, byUsername: map[string][]int32{}, byEmail: map[string][]int32{},
				byPublicEmail: map[string][]int32{}}
			for i, u := range d.users {
				pos := int32(i)
				x.lowerName[i], x.lowerUsername[i] = strings.ToLower(u.Name), strings.ToLower(u.Username)
				for _, s := range [2]string{x.lowerName[i], x.lowerUsername[i]} {
					for j := 0; j+3 <= len(s); j++ {
						g := gram(s[j:])
						if l := x.grams[g]; len(l) == 0 || l[len(l)-1] != pos {
							x.grams[g] = append(l, pos)
						}
					}
				}
				x.byUsername[FoldKey(u.Username)] = append(x.byUsername[FoldKey(u.Username)], pos)
				x.byEmail[FoldKey(u.Email)] = append(x.byEmail[FoldKey(u.Email)], pos)
				if u.PublicEmail != "" {
					x.byPublicEmail[FoldKey(u.PublicEmail)] = append(x.byPublicEmail[FoldKey(u.PublicEmail)], pos)
				}
			}
			return x
		})
}

func gram(s string) uint32 { return uint32(s[0])<<16 | uint32(s[1])<<8 | uint32(s[2]) }

// SearchUsers returns, in id order, the users GET /users?search=q finds: q
// (lower-cased by the caller) within the lower-cased name or username, or
// equal to the public email ignoring case, or with withEmail to the email.
// It follows the platform's User.search (pavankalisetti009/gitlab, a
// mirror of gitlabhq/gitlabhq, app/models/user.rb @f6a63bb5:
// search lower-cases the query, then ORs with_public_email, or for
// administrators with_primary_or_secondary_email, with
// search_by_name_or_username, a case-insensitive ILIKE pattern on name and
// username; read in the stored copy of the current file, whose commit the
// search tool does not give; @00124398 matched the primary email instead),
// as the reference answered before the index: the whole query as one
// substring rather than the platform's word-by-word fuzzy_arel_match.
//
// A query of three bytes or more reads the trigram lists of its bytes and
// checks only the users on the shortest of them; a shorter one reads the
// lower-cased copies, never lowering a name per request.
func (d *Data) SearchUsers(q string, withEmail bool) []*User {
	x := d.userIndex()
	hit := map[int32]bool{}
	check := func(pos int32) {
		if strings.Contains(x.lowerName[pos], q) || strings.Contains(x.lowerUsername[pos], q) {
			hit[pos] = true
		}
	}
	if len(q) >= 3 {
		var shortest []int32
		found := true
		for j := 0; j+3 <= len(q); j++ {
			l, ok := x.grams[gram(q[j:])]
			if !ok {
				found = false
				break
			}
			if shortest == nil || len(l) < len(shortest) {
				shortest = l
			}
		}
		if found {
			for _, pos := range shortest {
				check(pos)
			}
		}
	} else {
		for pos := range x.lowerName {
			check(int32(pos))
		}
	}
	k := FoldKey(q)
	for _, pos := range x.byPublicEmail[k] {
		hit[pos] = true
	}
	if withEmail {
		for _, pos := range x.byEmail[k] {
			hit[pos] = true
		}
	}
	return d.usersAt(hit)
}

// UsersByUsernameFold returns, in id order, the users whose username equals
// name ignoring case (strings.EqualFold).
func (d *Data) UsersByUsernameFold(name string) []*User {
	hit := map[int32]bool{}
	for _, pos := range d.userIndex().byUsername[FoldKey(name)] {
		hit[pos] = true
	}
	return d.usersAt(hit)
}

func (d *Data) usersAt(hit map[int32]bool) []*User {
	pos := make([]int, 0, len(hit))
	for p := range hit {
		pos = append(pos, int(p))
	}
	sort.Ints(pos)
	out := make([]*User, len(pos))
	for i, p := range pos {
		out[i] = d.users[p]
	}
	return out
}

// FoldKey maps s to a key two strings share exactly when strings.EqualFold
// holds between them: each rune replaced by the least rune of its simple
// case-folding orbit (invalid bytes decode to U+FFFD, as EqualFold reads them).
func FoldKey(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		m := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			if f < m {
				m = f
			}
		}
		if m < utf8.RuneSelf {
			b.WriteByte(byte(m))
		} else {
			b.WriteRune(m)
		}
	}
	return b.String()
}

// sourceKey names a group or project that memberships belong to.
type sourceKey struct {
	t  SourceType
	id int
}

// memberList is one source's direct memberships, expired ones too, in id
// order: an index that does not depend on the clock, read through
// DirectMembers, which leaves the expired out.
type memberList struct {
	all      []*Member
	deadline time.Time // the earliest moment one of them expires; zero: none does
	orphans  bool      // a membership whose user is gone
}

func (d *Data) memberIndex() map[sourceKey]*memberList {
	return cachedValue(d,
		func(c *readCache) (map[sourceKey]*memberList, bool) { return c.members, c.members != nil },
		func(c *readCache, v map[sourceKey]*memberList) { c.members = v },
		func() map[sourceKey]*memberList {
			m := map[sourceKey]*memberList{}
			for k, mb := range d.members {
				sk := sourceKey{k.Type, k.Source}
				l := m[sk]
				if l == nil {
					l = &memberList{}
					m[sk] = l
				}
				l.all = append(l.all, mb)
				if mb.ExpiresAt != nil {
					if dl := mb.ExpiresAt.Add(24 * time.Hour); l.deadline.IsZero() || dl.Before(l.deadline) {
						l.deadline = dl
					}
				}
				if d.userByID[k.User] == nil {
					l.orphans = true
				}
			}
			for _, l := range m {
				sortByID(l.all, func(m *Member) int { return m.ID })
			}
			return m
		})
}

// DirectMembers returns the direct members of a source in membership-id
// order; callers must not change the slice. Between writes it is read from
// the per-source index, copied only when one of them has expired.
func (d *Data) DirectMembers(t SourceType, source int) []*Member {
	now := d.Now()
	if !d.cached {
		var out []*Member
		for k, m := range d.members {
			if k.Type == t && k.Source == source && !m.expired(now) {
				out = append(out, m)
			}
		}
		sortByID(out, func(m *Member) int { return m.ID })
		return out
	}
	l := d.memberIndex()[sourceKey{t, source}]
	if l == nil {
		return nil
	}
	if l.deadline.IsZero() || now.Before(l.deadline) {
		return l.all
	}
	var out []*Member
	for _, m := range l.all {
		if !m.expired(now) {
			out = append(out, m)
		}
	}
	return out
}

// MembersWithoutUser reports whether a direct membership of the source
// names a user who is gone (lists leave such memberships out).
func (d *Data) MembersWithoutUser(t SourceType, source int) bool {
	if !d.cached {
		for k := range d.members {
			if k.Type == t && k.Source == source && d.userByID[k.User] == nil {
				return true
			}
		}
		return false
	}
	l := d.memberIndex()[sourceKey{t, source}]
	return l != nil && l.orphans
}

// ExpiryEpoch names which memberships and links have expired by now: how
// many of their expiry moments have passed. Two readings between the same
// writes with the same epoch see the same memberships and links, so a value
// derived from them (a members/all list, a view showing shared_with_groups)
// may be kept under a key holding the epoch.
func (d *Data) ExpiryEpoch() int {
	dl := cachedValue(d,
		func(c *readCache) ([]time.Time, bool) { return c.deadlines, c.deadlines != nil },
		func(c *readCache, v []time.Time) { c.deadlines = v },
		func() []time.Time {
			out := []time.Time{}
			for _, m := range d.members {
				if m.ExpiresAt != nil {
					out = append(out, m.ExpiresAt.Add(24*time.Hour))
				}
			}
			for _, l := range d.links {
				if l.ExpiresAt != nil {
					out = append(out, l.ExpiresAt.Add(24*time.Hour))
				}
			}
			slices.SortFunc(out, time.Time.Compare)
			return out
		})
	now := d.Now()
	return sort.Search(len(dl), func(i int) bool { return dl[i].After(now) })
}

// SourceGrants is what GET .../members/all starts from: every user who
// reaches a source (whose user record exists), in user-id order, with every
// way they reach it, and the invitations (links) any of those ways come
// through, so a caller who sees through all of them can take Best as it is.
type SourceGrants struct {
	Users []UserGrants
	Links []*Link
}

// UserGrants is one user's ways into a source and the best of them.
type UserGrants struct {
	User   *User
	Grants []Grant
	Best   Grant
}

type grantsKey struct {
	src   sourceKey
	epoch int
}

// AllGrants returns Grants(t, source) by user, kept between writes for the
// memberships and links that have not expired (ExpiryEpoch); callers must
// not change it.
func (d *Data) AllGrants(t SourceType, source int) *SourceGrants {
	k := grantsKey{sourceKey{t, source}, d.ExpiryEpoch()}
	return cachedValue(d,
		func(c *readCache) (*SourceGrants, bool) { v, ok := c.grants[k]; return v, ok },
		func(c *readCache, v *SourceGrants) {
			if c.grants == nil {
				c.grants = map[grantsKey]*SourceGrants{}
			}
			c.grants[k] = v
		},
		func() *SourceGrants {
			out := &SourceGrants{}
			seen := map[*Link]bool{}
			for uid, gs := range d.Grants(t, source) {
				u := d.userByID[uid]
				if u == nil {
					continue
				}
				for _, g := range gs {
					if g.Via != nil && !seen[g.Via] {
						seen[g.Via] = true
						out.Links = append(out.Links, g.Via)
					}
				}
				out.Users = append(out.Users, UserGrants{User: u, Grants: gs, Best: Best(gs)})
			}
			slices.SortFunc(out.Users, func(a, b UserGrants) int { return a.User.ID - b.User.ID })
			sortByID(out.Links, func(l *Link) int { return l.ID })
			return out
		})
}

// Groups returns every group in id order; callers must not change the slice.
func (d *Data) Groups() []*Group {
	return cachedValue(d,
		func(c *readCache) ([]*Group, bool) { return c.groupsByID, c.groupsByID != nil },
		func(c *readCache, v []*Group) { c.groupsByID = v },
		func() []*Group {
			out := make([]*Group, 0, len(d.groups))
			for _, g := range d.groups {
				out = append(out, g)
			}
			sortByID(out, func(g *Group) int { return g.ID })
			return out
		})
}

// ChildGroups returns the groups whose parent is id, in id order; callers
// must not change the slice.
func (d *Data) ChildGroups(id int) []*Group {
	return cachedValue(d,
		func(c *readCache) (map[int][]*Group, bool) { return c.children, c.children != nil },
		func(c *readCache, v map[int][]*Group) { c.children = v },
		func() map[int][]*Group {
			m := map[int][]*Group{}
			for _, g := range d.Groups() { // id order, so each list is too
				if g.ParentID != 0 {
					m[g.ParentID] = append(m[g.ParentID], g)
				}
			}
			return m
		})[id]
}

// GroupsOrdered returns every group sorted (stably, from id order) by cmp,
// kept between writes under name, which must name the ordering cmp gives;
// callers must not change the slice.
func (d *Data) GroupsOrdered(name string, cmp func(a, b *Group) int) []*Group {
	return cachedValue(d,
		func(c *readCache) ([]*Group, bool) { v, ok := c.groupsSorted[name]; return v, ok },
		func(c *readCache, v []*Group) {
			if c.groupsSorted == nil {
				c.groupsSorted = map[string][]*Group{}
			}
			c.groupsSorted[name] = v
		},
		func() []*Group {
			out := slices.Clone(d.Groups())
			slices.SortStableFunc(out, cmp)
			return out
		})
}

// jobIndex holds the jobs by project (trigger jobs left out) and by
// pipeline, and the pipelines by parent, each in id order.
type jobIndex struct {
	byProject  map[int][]*Job
	byPipeline map[int][]*Job
	children   map[int][]*Pipeline
}

func (d *Data) jobIdx() *jobIndex {
	return cachedValue(d,
		func(c *readCache) (*jobIndex, bool) { return c.jobs, c.jobs != nil },
		func(c *readCache, v *jobIndex) { c.jobs = v },
		func() *jobIndex {
			x := &jobIndex{byProject: map[int][]*Job{}, byPipeline: map[int][]*Job{}, children: map[int][]*Pipeline{}}
			for _, j := range d.jobs {
				x.byPipeline[j.PipelineID] = append(x.byPipeline[j.PipelineID], j)
				if !j.Bridge && !j.External {
					x.byProject[j.ProjectID] = append(x.byProject[j.ProjectID], j)
				}
			}
			for _, pl := range d.pipelines {
				if pl.ParentID != 0 {
					x.children[pl.ParentID] = append(x.children[pl.ParentID], pl)
				}
			}
			for _, l := range x.byProject {
				sortByID(l, func(j *Job) int { return j.ID })
			}
			for _, l := range x.byPipeline {
				sortByID(l, func(j *Job) int { return j.ID })
			}
			for _, l := range x.children {
				sortByID(l, func(p *Pipeline) int { return p.ID })
			}
			return x
		})
}

// ViewKey names one record's encoded view kept by MemoView: what kind of
// record and view (Kind, the caller's constant), the record's id, the
// variant of the view (a form, a level shown, whether the caller is an
// administrator), the expiry epoch when the view shows what expires
// (ExpiryEpoch), and the base of its URLs. A plain comparable key: a lookup
// allocates nothing (Memo's interface key is boxed on every call).
type ViewKey struct {
	Kind      uint8
	Variant   int
	ID, Epoch int
	Base      string
}

// MemoView returns compute's bytes for k, kept until the next write, as
// Memo does (at most memoLimit views; computed afresh within a write).
func (d *Data) MemoView(k ViewKey, compute func() []byte) []byte {
	if !d.cached {
		return compute()
	}
	c := &d.cache
	c.mu.Lock()
	v, ok := c.views[k]
	c.mu.Unlock()
	if ok {
		return v
	}
	v = compute()
	c.mu.Lock()
	if c.views == nil {
		c.views = map[ViewKey][]byte{}
	}
	if len(c.views) < memoLimit {
		c.views[k] = v
	}
	c.mu.Unlock()
	return v
}
