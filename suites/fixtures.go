package suites

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/v4cert/v4cert/specs"
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
	return newUserNamed(ctx, Unique("u"), Unique("t"), opts...)
}

// newUserNamed is NewUser with the user's and the token's names given, so
// that users created concurrently get the same names on every run whatever
// order they end in (a recorded run replays).
func newUserNamed(ctx context.Context, name, tokenName string, opts ...UserOpts) *User {
	GinkgoHelper()
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
	deleteAtEnd(usersWave, fmt.Sprintf("/users/%d", u.ID))
	u.Client = api.As(newTokenNamed(ctx, u.ID, tokenName, "api"))
	return u
}

// newUsers creates n users at once (NewUser each), in the order of their
// names: n round trips of creation cost two.
func newUsers(ctx context.Context, n int) []*User {
	GinkgoHelper()
	users := make([]*User, n)
	names := make([][2]string, n)
	for i := range names {
		names[i] = [2]string{Unique("u"), Unique("t")}
	}
	openTeardown() // registered here, in the node's own goroutine
	parallelN(n, n, func(i int) { users[i] = newUserNamed(ctx, names[i][0], names[i][1]) })
	for _, u := range users {
		ExpectFixture(u).NotTo(BeNil(), "creating a fixture user")
	}
	return users
}

// NewToken issues a personal access token with scopes for a user.
func NewToken(ctx context.Context, userID int, scopes ...string) string {
	GinkgoHelper()
	return newTokenNamed(ctx, userID, Unique("t"), scopes...)
}

func newTokenNamed(ctx context.Context, userID int, name string, scopes ...string) string {
	GinkgoHelper()
	r := api.Post(ctx, fmt.Sprintf("/users/%d/personal_access_tokens", userID),
		Body(map[string]any{"name": name, "scopes": scopes}))
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
	deleteAtEnd(groupsWave, fmt.Sprintf("/groups/%d", g.ID))
	return g
}

// Project is a project created for one spec.
type Project struct {
	ID       int
	Name     string
	Path     string
	FullPath string
	// createdBranch is the default_branch the creating answer named
	// (empty for a project created without a repository).
	createdBranch string
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
		FullPath: r.Get("path_with_namespace").String(), createdBranch: r.Get("default_branch").String()}
	deleteAtEnd(projectsWave, fmt.Sprintf("/projects/%d", p.ID))
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
// Its six users are created at once, and its four members added at once.
func NewRoleWorld(ctx context.Context, visibility string) *RoleWorld {
	GinkgoHelper()
	users := newUsers(ctx, 6)
	w := &RoleWorld{Members: map[int]*User{}, Outsider: users[0], Owner: users[1]}
	w.Group = NewGroup(ctx, w.Owner.Client, GroupOpts{"visibility": visibility})
	w.Members[OwnerLevel] = w.Owner
	levels := []int{GuestLevel, ReporterLevel, DeveloperLevel, MaintainerLevel}
	for i, lv := range levels {
		w.Members[lv] = users[2+i]
	}
	parallelN(len(levels), len(levels), func(i int) { AddGroupMember(ctx, w.Group, w.Members[levels[i]], levels[i]) })
	return w
}

// The fixtures of a node (NewUser, NewGroup, NewProject) are deleted when
// it ends, as DeferCleanup would delete them one after the other, but in
// three waves of concurrent deletions: projects, then groups, then users
// (what lives in a group or a user's namespace goes before its holder, a
// group's owner after the group). Across a network a spec's teardown costs
// three round trips, not one per fixture. The waves run where the node's
// first fixture registered them: after the cleanups the spec registered
// later, as its first fixture's deletion did.
//
// The waves are detached from the spec (detachTeardown): they go on while
// the worker's next spec begins, so that a worker does not wait three round
// trips after each spec. No spec can tell: every fixture has a name of its
// own spec (Unique), other workers delete theirs at any moment of any spec,
// and the platform itself deletes in the background after answering
// (lib/api/users.rb @0045970352e8, DELETE /users/:id: user.delete_async).
const (
	projectsWave = iota
	groupsWave
	usersWave
	waves
)

type teardown struct {
	mu    sync.Mutex
	paths [waves][]string
	gen   uint64
	done  bool
}

var teardowns = struct {
	sync.Mutex
	cur *teardown
	gen uint64 // bumped before each spec's body (JustBeforeEach)
}{}

// A spec's body gets a teardown of its own: a container's BeforeAll
// fixtures (deleted when the container ends) and the spec's (deleted when
// the spec ends) are never deleted together. JustBeforeEach runs after
// every BeforeAll and BeforeEach and before the It.
var _ = JustBeforeEach(func() {
	teardowns.Lock()
	teardowns.gen++
	teardowns.Unlock()
})

// openTeardown returns the current node's teardown, registering a new one
// with DeferCleanup if the node has none yet.
func openTeardown() *teardown {
	teardowns.Lock()
	defer teardowns.Unlock()
	t := teardowns.cur
	if t == nil || t.gen != teardowns.gen || t.isDone() {
		t = &teardown{gen: teardowns.gen}
		teardowns.cur = t
		DeferCleanup(t.run)
	}
	return t
}

// deleteAtEnd deletes path (as the administrator, whatever the answer) in
// wave when the current node ends.
func deleteAtEnd(wave int, path string) {
	t := openTeardown()
	t.mu.Lock()
	defer t.mu.Unlock()
	t.paths[wave] = append(t.paths[wave], path)
}

func (t *teardown) isDone() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.done
}

func (t *teardown) run(ctx SpecContext) {
	t.mu.Lock()
	t.done = true
	all := t.paths
	t.mu.Unlock()
	if !detachTeardown() {
		for _, paths := range all {
			parallelN(len(paths), bulkWidth, func(i int) { api.Delete(ctx, paths[i], Unchecked()) })
		}
		return
	}
	awaitTeardown() // one teardown in flight per worker at most
	done := make(chan struct{})
	detached.Lock()
	detached.done = done
	detached.Unlock()
	go func() {
		defer close(done)
		ctx, cancel := context.WithTimeout(context.Background(), detachedTimeout)
		defer cancel()
		for _, paths := range all {
			var wg sync.WaitGroup
			slots := make(chan struct{}, bulkWidth)
			for _, path := range paths {
				wg.Add(1)
				slots <- struct{}{}
				go func() {
					defer func() { <-slots; wg.Done() }()
					deleteDetached(ctx, path)
				}()
			}
			wg.Wait()
		}
	}()
}

// detached is the teardown in flight, if any, and the endpoints its
// deletions reached, which no spec's coverage holds yet.
var detached = struct {
	sync.Mutex
	done chan struct{}
	seen *coverageLog
}{seen: &coverageLog{m: map[string]map[int]int{}}}

// detachedTimeout bounds a detached teardown, as the spec's own timeout
// bounded it when it ran inside the spec.
const detachedTimeout = 5 * time.Minute

// detachTeardown says whether teardowns may outlive their spec: not where a
// proxy judges each spec's traffic (its findings fail or are reported
// against the spec they came from, and a teardown's are its spec's) or
// records one order of requests to replay (V4CERT_PROXY).
func detachTeardown() bool {
	if inproc != nil {
		return false
	}
	w := worker.Load()
	return w == nil || w.proxy == nil
}

// awaitTeardown waits for the teardown in flight, if any: before another
// starts, before a Serial spec (which runs alone, every other spec's
// fixtures gone) and before the worker ends.
func awaitTeardown() {
	detached.Lock()
	done := detached.done
	detached.Unlock()
	if done != nil {
		<-done
	}
}

// deleteDetached deletes path as the administrator, whatever the answer,
// outside any spec: no assertion (a failure would land in whichever spec
// runs), a 429 sent again as RateLimitRetries allows, and the answer
// counted in detached.seen for the report's endpoint coverage.
func deleteDetached(ctx context.Context, path string) {
	full := api.Base + "/api/v4" + path
	for attempt := 0; ; attempt++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodDelete, full, nil)
		if err != nil {
			return
		}
		req.Header.Set("PRIVATE-TOKEN", api.Token)
		res, err := api.HTTP.Do(req)
		if err != nil {
			return
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusTooManyRequests || attempt >= int(RateLimitRetries.Load()) {
			detached.seen.add(&Response{Method: http.MethodDelete, URL: full, Status: res.StatusCode,
				Endpoint: specs.Default().MatchRequest(http.MethodDelete, "/api/v4"+path)})
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(retryAfter(res.Header, time.Now())):
		}
	}
}

// Before a Serial spec the worker's last teardown has ended (Ginkgo runs
// Serial specs once the other workers have ended, their teardowns with them).
var _ = BeforeEach(func() {
	if CurrentSpecReport().IsSerial {
		awaitTeardown()
	}
})
