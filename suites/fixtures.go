package suites

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// Access levels of Authentication rule 6, as the suites use them.
const (
	NoAccess         = 0
	MinimalAccess    = 5
	GuestLevel       = 10
	ReporterLevel    = 20
	DeveloperLevel   = 30
	MaintainerLevel  = 40
	OwnerLevel       = 50
	AdminAccessLevel = 60
)

// names derives fixture names from the spec's own text and a counter within
// the spec, so that names are unique under -p and random order and yet the
// same on every run (record/replay needs that).
var names = struct {
	sync.Mutex
	seq map[string]int
}{seq: map[string]int{}}

// Unique returns a name unique to this spec and call, usable as a username or path.
func Unique(prefix string) string {
	spec := CurrentSpecReport()
	h := sha256.Sum256([]byte(spec.FullText() + "\x00" + spec.LeafNodeLocation.String()))
	key := hex.EncodeToString(h[:])[:8]
	names.Lock()
	names.seq[key]++
	n := names.seq[key]
	names.Unlock()
	name := prefix + "-" + key + "-" + strconv.Itoa(n)
	if target.Salt != "" {
		name += "-" + target.Salt
	}
	return name
}

// User is a user created for one spec, with a token and a client of its own.
type User struct {
	ID       int
	Username string
	Name     string
	Email    string
	Password string // what POST /users was given
	*Client
}

// UserOpts are the extra attributes of NewUser (sent as POST /users parameters).
type UserOpts map[string]any

// NewUser creates a user and an api-scoped token for it, and deletes the user
// when the spec ends.
func NewUser(ctx context.Context, opts ...UserOpts) *User {
	GinkgoHelper()
	name := Unique("u")
	body := map[string]any{"username": name, "name": "User " + name, "email": name + "@example.com",
		"password": "Secret-" + name, "skip_confirmation": true}
	for _, o := range opts {
		for k, v := range o {
			body[k] = v
		}
	}
	r := api.Post(ctx, "/users", Body(body))
	ExpectFixture(r).To(HaveStatus(201), "creating a fixture user")
	u := &User{ID: int(r.Get("id").Int()), Username: r.Get("username").String(), Name: r.Get("name").String(),
		Email: r.Get("email").String()}
	u.Password, _ = body["password"].(string)
	DeferCleanup(func(ctx SpecContext) {
		api.Delete(ctx, fmt.Sprintf("/users/%d", u.ID), Unchecked())
	})
	u.Client = api.As(NewToken(ctx, u.ID, "api"))
	return u
}

// NewToken issues a personal access token with scopes for a user.
func NewToken(ctx context.Context, userID int, scopes ...string) string {
	GinkgoHelper()
	r := api.Post(ctx, fmt.Sprintf("/users/%d/personal_access_tokens", userID),
		Body(map[string]any{"name": Unique("t"), "scopes": scopes}))
	ExpectFixture(r).To(HaveStatus(201), "creating a fixture token")
	tok := r.Get("token").String()
	ExpectFixture(tok).NotTo(BeEmpty(), "the fixture token")
	return tok
}

// Group is a group created for one spec.
type Group struct {
	ID       int
	Name     string
	Path     string
	FullPath string
}

// GroupOpts are extra POST /groups parameters (visibility, parent_id, …).
type GroupOpts map[string]any

// NewGroup creates a group as by (who becomes its Owner) and deletes it when the spec ends.
func NewGroup(ctx context.Context, by *Client, opts ...GroupOpts) *Group {
	GinkgoHelper()
	name := Unique("g")
	body := map[string]any{"name": "Group " + name, "path": name, "visibility": "private"}
	for _, o := range opts {
		for k, v := range o {
			body[k] = v
		}
	}
	r := by.Post(ctx, "/groups", Body(body))
	ExpectFixture(r).To(HaveStatus(201), "creating a fixture group")
	g := &Group{ID: int(r.Get("id").Int()), Name: r.Get("name").String(), Path: r.Get("path").String(), FullPath: r.Get("full_path").String()}
	DeferCleanup(func(ctx SpecContext) {
		api.Delete(ctx, fmt.Sprintf("/groups/%d", g.ID), Unchecked())
	})
	return g
}

// Project is a project created for one spec.
type Project struct {
	ID       int
	Name     string
	Path     string
	FullPath string
}

// ProjectOpts are extra POST /projects parameters (namespace_id, visibility, topics, …).
type ProjectOpts map[string]any

// NewProject creates a project as by and deletes it when the spec ends.
func NewProject(ctx context.Context, by *Client, opts ...ProjectOpts) *Project {
	GinkgoHelper()
	name := Unique("p")
	body := map[string]any{"name": "Project " + name, "path": name, "visibility": "private"}
	for _, o := range opts {
		for k, v := range o {
			body[k] = v
		}
	}
	r := by.Post(ctx, "/projects", Body(body))
	ExpectFixture(r).To(HaveStatus(201), "creating a fixture project")
	p := &Project{ID: int(r.Get("id").Int()), Name: r.Get("name").String(), Path: r.Get("path").String(),
		FullPath: r.Get("path_with_namespace").String()}
	DeferCleanup(func(ctx SpecContext) {
		api.Delete(ctx, fmt.Sprintf("/projects/%d", p.ID), Unchecked())
	})
	return p
}

// AddGroupMember makes u a direct member of group g at level.
func AddGroupMember(ctx context.Context, g *Group, u *User, level int) {
	GinkgoHelper()
	ExpectFixture(api.Post(ctx, fmt.Sprintf("/groups/%d/members", g.ID),
		Body(map[string]any{"user_id": u.ID, "access_level": level}))).To(HaveStatus(201), "adding a fixture group member")
}

// AddProjectMember makes u a direct member of project p at level.
func AddProjectMember(ctx context.Context, p *Project, u *User, level int) {
	GinkgoHelper()
	ExpectFixture(api.Post(ctx, fmt.Sprintf("/projects/%d/members", p.ID),
		Body(map[string]any{"user_id": u.ID, "access_level": level}))).To(HaveStatus(201), "adding a fixture project member")
}

// ShareGroup invites group invited into g with access capped at level.
func ShareGroup(ctx context.Context, g, invited *Group, level int) {
	GinkgoHelper()
	ExpectFixture(api.Post(ctx, fmt.Sprintf("/groups/%d/share", g.ID),
		Body(map[string]any{"group_id": invited.ID, "group_access": level}))).To(HaveStatus(201), "sharing a fixture group")
}

// ShareProject invites group invited into p with access capped at level.
func ShareProject(ctx context.Context, p *Project, invited *Group, level int) {
	GinkgoHelper()
	ExpectFixture(api.Post(ctx, fmt.Sprintf("/projects/%d/share", p.ID),
		Body(map[string]any{"group_id": invited.ID, "group_access": level}))).To(HaveStatus(201), "sharing a fixture project")
}

// RoleWorld is a group with one direct member per role, plus a signed-in
// outsider, for role checks from anonymous to administrator.
type RoleWorld struct {
	Group    *Group
	Owner    *User
	Members  map[int]*User // by access level: Guest … Maintainer, and Owner
	Outsider *User
}

// NewRoleWorld builds a RoleWorld around a new group of the given visibility.
func NewRoleWorld(ctx context.Context, visibility string) *RoleWorld {
	GinkgoHelper()
	w := &RoleWorld{Members: map[int]*User{}, Outsider: NewUser(ctx)}
	w.Owner = NewUser(ctx)
	w.Group = NewGroup(ctx, w.Owner.Client, GroupOpts{"visibility": visibility})
	w.Members[OwnerLevel] = w.Owner
	for _, lv := range []int{GuestLevel, ReporterLevel, DeveloperLevel, MaintainerLevel} {
		u := NewUser(ctx)
		AddGroupMember(ctx, w.Group, u, lv)
		w.Members[lv] = u
	}
	return w
}
