package store

import (
	"slices"
	"sort"
	"strings"
	"sync"
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
// It follows the platform's User.search (gitlabhq/gitlabhq app/models/user.rb:
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
