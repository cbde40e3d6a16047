package reference

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"v4cert/reference/access"
	"v4cert/reference/git"
	"v4cert/reference/store"
)

// SeedFile is a declarative starting world (`v4cert serve --seed-file
// world.yaml`): users with their tokens, groups, projects with files and
// branches, and members. docs/seed-file.md documents it with an example.
// Everything is created as the platform would create it through its API, by
// the administrator root unless a creator is named, so a test suite gets the
// same world, the same IDs and the same tokens on every start and after every
// POST /-/reset.
type SeedFile struct {
	Users    []SeedUser    `yaml:"users"`
	Groups   []SeedGroup   `yaml:"groups"`
	Projects []SeedProject `yaml:"projects"`

	path  string
	lines map[string]int // "users[2]" -> line, for errors
}

// SeedUser is one user and the tokens the tests sign in with.
type SeedUser struct {
	Username string      `yaml:"username"`
	Name     string      `yaml:"name"`  // default: the username
	Email    string      `yaml:"email"` // default: <username>@example.com
	Admin    bool        `yaml:"admin"`
	External bool        `yaml:"external"`
	State    string      `yaml:"state"` // active (default) or blocked
	Tokens   []SeedToken `yaml:"tokens"`
}

// SeedToken is a personal access token with a fixed secret.
type SeedToken struct {
	Name      string   `yaml:"name"`  // default: seed
	Token     string   `yaml:"token"` // the secret, required
	Scopes    []string `yaml:"scopes"`
	ExpiresAt string   `yaml:"expires_at"` // YYYY-MM-DD, optional
}

// SeedGroup is a group, a subgroup when its path has a slash.
type SeedGroup struct {
	Path        string       `yaml:"path"` // full path: parent/child
	Name        string       `yaml:"name"` // default: the last path segment
	Description string       `yaml:"description"`
	Visibility  string       `yaml:"visibility"` // private (default), internal, public
	Creator     string       `yaml:"creator"`    // becomes Owner; default root
	Members     []SeedMember `yaml:"members"`
}

// SeedProject is a project with the content of its repository.
type SeedProject struct {
	Path          string            `yaml:"path"` // namespace/path; the namespace is a group or a username
	Name          string            `yaml:"name"` // default: the last path segment
	Description   string            `yaml:"description"`
	Visibility    string            `yaml:"visibility"`     // private (default), internal, public
	DefaultBranch string            `yaml:"default_branch"` // default main
	Topics        []string          `yaml:"topics"`
	Creator       string            `yaml:"creator"` // default root
	Files         map[string]string `yaml:"files"`   // committed to the default branch in one commit
	Branches      []SeedBranch      `yaml:"branches"`
	Members       []SeedMember      `yaml:"members"`
}

// SeedBranch is a branch made from another one, with files committed on top.
type SeedBranch struct {
	Name  string            `yaml:"name"`
	From  string            `yaml:"from"` // default: the default branch
	Files map[string]string `yaml:"files"`
}

// SeedMember is a direct membership.
type SeedMember struct {
	User      string `yaml:"user"`
	Access    string `yaml:"access"`     // guest, reporter, developer, maintainer, owner, minimal, or the number
	ExpiresAt string `yaml:"expires_at"` // YYYY-MM-DD, optional
}

// LoadSeedFile reads and checks a seed file: unknown keys, missing or invalid
// values and references to users, groups or branches it does not define are
// refused with the file, the line and the entry named.
func LoadSeedFile(path string) (*SeedFile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--seed-file: %w", err)
	}
	return ParseSeedFile(path, data)
}

// ParseSeedFile is LoadSeedFile on data already read; path names it in errors.
func ParseSeedFile(path string, data []byte) (*SeedFile, error) {
	sf := &SeedFile{path: path, lines: map[string]int{}}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(sf); err != nil && !errors.Is(err, errEOF(err)) {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err == nil && len(root.Content) == 1 {
		top := root.Content[0]
		for i := 0; i+1 < len(top.Content); i += 2 {
			key, list := top.Content[i].Value, top.Content[i+1]
			for j, item := range list.Content {
				sf.lines[fmt.Sprintf("%s[%d]", key, j)] = item.Line
			}
		}
	}
	if err := sf.check(); err != nil {
		return nil, err
	}
	return sf, nil
}

// errEOF lets an empty file through: it is an empty world (root alone).
func errEOF(err error) error {
	if err != nil && err.Error() == "EOF" {
		return err
	}
	return nil
}

// at names an entry of the file in an error: "world.yaml:12: projects[1] (acme/web)".
func (sf *SeedFile) at(kind string, i int, name string) string {
	where := sf.path
	if l := sf.lines[fmt.Sprintf("%s[%d]", kind, i)]; l > 0 {
		where += ":" + strconv.Itoa(l)
	}
	if name != "" {
		return fmt.Sprintf("%s: %s[%d] (%s)", where, kind, i, name)
	}
	return fmt.Sprintf("%s: %s[%d]", where, kind, i)
}

var (
	seedPathRe   = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]*$`)
	seedAccesses = map[string]access.Level{"minimal": access.Minimal, "guest": access.Guest, "reporter": access.Reporter,
		"developer": access.Developer, "maintainer": access.Maintainer, "owner": access.Owner}
)

// check validates what the store would not see before it is too late to name
// the line: references between entries, levels, dates, refs and paths.
func (sf *SeedFile) check() error {
	var errs []error
	fail := func(where, format string, a ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", where, fmt.Sprintf(format, a...)))
	}
	users := map[string]bool{"root": true}
	tokens := map[string]bool{}
	for i, u := range sf.Users {
		at := sf.at("users", i, u.Username)
		switch {
		case u.Username == "":
			fail(at, "username is required")
		case strings.EqualFold(u.Username, "root"):
			fail(at, "root is the administrator every world has; name another user")
		case users[strings.ToLower(u.Username)]:
			fail(at, "username %s is defined twice", u.Username)
		}
		users[strings.ToLower(u.Username)] = true
		if u.State != "" && u.State != "active" && u.State != "blocked" {
			fail(at, "state must be active or blocked, not %q", u.State)
		}
		for j, t := range u.Tokens {
			switch {
			case t.Token == "":
				fail(at, "tokens[%d]: token (the secret) is required", j)
			case tokens[t.Token]:
				fail(at, "tokens[%d]: token %s is used twice", j, t.Token)
			}
			tokens[t.Token] = true
			for _, s := range t.Scopes {
				if !store.KnownScope(s) {
					fail(at, "tokens[%d]: unknown scope %q", j, s)
				}
			}
			if _, err := seedDate(t.ExpiresAt); err != nil {
				fail(at, "tokens[%d]: expires_at: %v", j, err)
			}
		}
	}
	checkMembers := func(at string, ms []SeedMember) {
		for j, m := range ms {
			if !users[strings.ToLower(m.User)] {
				fail(at, "members[%d]: user %q is not defined in users", j, m.User)
			}
			if _, err := seedAccess(m.Access); err != nil {
				fail(at, "members[%d]: %v", j, err)
			}
			if _, err := seedDate(m.ExpiresAt); err != nil {
				fail(at, "members[%d]: expires_at: %v", j, err)
			}
		}
	}
	checkCreator := func(at, creator string) {
		if creator != "" && !users[strings.ToLower(creator)] {
			fail(at, "creator %q is not defined in users", creator)
		}
	}
	checkVisibility := func(at, v string) {
		if v != "" && !store.ValidVisibility(v) {
			fail(at, "visibility must be private, internal or public, not %q", v)
		}
	}
	groups := map[string]bool{}
	for i, g := range sf.Groups {
		at := sf.at("groups", i, g.Path)
		parent, last := splitLast(g.Path)
		switch {
		case g.Path == "":
			fail(at, "path is required")
		case !validSeedPath(g.Path):
			fail(at, "path segments may hold only letters, digits, '_', '-' and '.'")
		case groups[strings.ToLower(g.Path)]:
			fail(at, "group %s is defined twice", g.Path)
		case parent != "" && !groups[strings.ToLower(parent)]:
			fail(at, "parent group %s must be defined above it", parent)
		case parent == "" && users[strings.ToLower(last)]:
			fail(at, "path %s is a username: users and top-level groups share one namespace", last)
		}
		groups[strings.ToLower(g.Path)] = true
		checkVisibility(at, g.Visibility)
		checkCreator(at, g.Creator)
		checkMembers(at, g.Members)
	}
	projects := map[string]bool{}
	for i, p := range sf.Projects {
		at := sf.at("projects", i, p.Path)
		ns, _ := splitLast(p.Path)
		switch {
		case p.Path == "" || ns == "":
			fail(at, "path must be namespace/project, the namespace a group or a username")
		case !validSeedPath(p.Path):
			fail(at, "path segments may hold only letters, digits, '_', '-' and '.'")
		case !groups[strings.ToLower(ns)] && !users[strings.ToLower(ns)]:
			fail(at, "namespace %s is neither a group nor a user defined in the file", ns)
		case projects[strings.ToLower(p.Path)]:
			fail(at, "project %s is defined twice", p.Path)
		}
		projects[strings.ToLower(p.Path)] = true
		checkVisibility(at, p.Visibility)
		checkCreator(at, p.Creator)
		checkMembers(at, p.Members)
		branches := map[string]bool{p.defaultBranch(): len(p.Files) > 0}
		if p.DefaultBranch != "" && !git.ValidRefName(p.DefaultBranch) {
			fail(at, "default_branch %q is not a valid branch name", p.DefaultBranch)
		}
		for path := range p.Files {
			if !validFilePath(path) {
				fail(at, "files: %q is not a file path (relative, no . or .. segments, no .git)", path)
			}
		}
		for j, b := range p.Branches {
			from := b.From
			if from == "" {
				from = p.defaultBranch()
			}
			switch {
			case !git.ValidRefName(b.Name):
				fail(at, "branches[%d]: %q is not a valid branch name", j, b.Name)
			case branches[b.Name] || b.Name == p.defaultBranch():
				fail(at, "branches[%d]: branch %s is defined twice (the default branch holds files:)", j, b.Name)
			case !branches[from]:
				fail(at, "branches[%d]: from %s names no branch above it (the default branch exists when the project has files)", j, from)
			}
			branches[b.Name] = true
			for path := range b.Files {
				if !validFilePath(path) {
					fail(at, "branches[%d]: files: %q is not a file path", j, path)
				}
			}
		}
	}
	return errors.Join(errs...)
}

func (p *SeedProject) defaultBranch() string {
	if p.DefaultBranch == "" {
		return "main"
	}
	return p.DefaultBranch
}

func splitLast(path string) (parent, last string) {
	i := strings.LastIndexByte(path, '/')
	if i < 0 {
		return "", path
	}
	return path[:i], path[i+1:]
}

func validSeedPath(path string) bool {
	for _, seg := range strings.Split(path, "/") {
		if !seedPathRe.MatchString(seg) || strings.HasSuffix(seg, ".git") || strings.HasSuffix(seg, ".") {
			return false
		}
	}
	return true
}

func validFilePath(path string) bool {
	if path == "" || strings.HasPrefix(path, "/") || strings.HasSuffix(path, "/") {
		return false
	}
	for _, seg := range strings.Split(path, "/") {
		if seg == "" || seg == "." || seg == ".." || seg == ".git" {
			return false
		}
	}
	return true
}

func seedAccess(s string) (access.Level, error) {
	if l, ok := seedAccesses[strings.ToLower(s)]; ok {
		return l, nil
	}
	if n, err := strconv.Atoi(s); err == nil && access.Level(n).Assignable() {
		return access.Level(n), nil
	}
	return 0, fmt.Errorf("access %q is not one of minimal, guest, reporter, developer, maintainer, owner (or 5, 10, 20, 30, 40, 50)", s)
}

func seedDate(s string) (*time.Time, error) {
	if s == "" {
		return nil, nil
	}
	t, err := time.Parse("2006-01-02", s)
	if err != nil {
		return nil, fmt.Errorf("%q is not a date (YYYY-MM-DD)", s)
	}
	return &t, nil
}

// build creates the file's world in d, after root exists. It answers the
// accounts with a token, to print at start-up.
func (sf *SeedFile) build(d *store.Data, root *store.User) ([]Account, error) {
	var accounts []Account
	byName := func(name string) *store.User {
		if name == "" {
			return root
		}
		return d.UserByUsername(name)
	}
	for i, su := range sf.Users {
		at := sf.at("users", i, su.Username)
		name, email := su.Name, su.Email
		if name == "" {
			name = su.Username
		}
		if email == "" {
			email = su.Username + "@example.com"
		}
		u, err := d.CreateUser(store.NewUser{Username: su.Username, Name: name, Email: email, Admin: su.Admin,
			External: su.External, SkipConfirmation: true, CreatedByID: root.ID})
		if err != nil {
			return nil, fmt.Errorf("%s: %v", at, err)
		}
		for j, st := range su.Tokens {
			scopes := st.Scopes
			if len(scopes) == 0 {
				scopes = []string{"api"}
			}
			tn := st.Name
			if tn == "" {
				tn = "seed"
			}
			exp, _ := seedDate(st.ExpiresAt)
			if _, err := d.CreateToken(u, tn, scopes, exp, st.Token); err != nil {
				return nil, fmt.Errorf("%s: tokens[%d]: %v", at, j, err)
			}
			role := "user"
			if su.Admin {
				role = "administrator"
			}
			accounts = append(accounts, Account{Role: role, Username: u.Username, Token: st.Token})
		}
		if su.State == "blocked" {
			d.SetUserState(u, "blocked")
		}
	}
	addMembers := func(at string, t store.SourceType, source int, ms []SeedMember, by int) error {
		for j, m := range ms {
			level, _ := seedAccess(m.Access)
			exp, _ := seedDate(m.ExpiresAt)
			u := byName(m.User)
			if dm := d.DirectMember(t, source, u.ID); dm != nil {
				// The creator is already a member; the file's level wins.
				d.SetMemberAccess(dm, level, exp)
				continue
			}
			if _, err := d.AddMember(t, source, u.ID, level, exp, by); err != nil {
				return fmt.Errorf("%s: members[%d]: %v", at, j, err)
			}
		}
		return nil
	}
	for i, sg := range sf.Groups {
		at := sf.at("groups", i, sg.Path)
		parentPath, last := splitLast(sg.Path)
		parent := 0
		if parentPath != "" {
			parent = d.GroupByPath(parentPath).ID
		}
		name := sg.Name
		if name == "" {
			name = last
		}
		creator := byName(sg.Creator)
		g, err := d.CreateGroup(store.NewGroup{Name: name, Path: last, Description: sg.Description,
			Visibility: sg.Visibility, ParentID: parent, CreatorID: creator.ID})
		if err != nil {
			return nil, fmt.Errorf("%s: %v", at, err)
		}
		if err := addMembers(at, store.SourceGroup, g.ID, sg.Members, creator.ID); err != nil {
			return nil, err
		}
	}
	for i, sp := range sf.Projects {
		at := sf.at("projects", i, sp.Path)
		nsPath, last := splitLast(sp.Path)
		ns := d.NamespaceByPath(nsPath)
		name := sp.Name
		if name == "" {
			name = last
		}
		creator := byName(sp.Creator)
		branch := sp.defaultBranch()
		f := store.ProjectFields{Name: &name, Path: &last, NamespaceID: &ns.ID, Description: &sp.Description,
			DefaultBranch: &branch, InitializeWithReadme: len(sp.Files) > 0}
		if sp.Visibility != "" {
			f.Visibility = &sp.Visibility
		}
		if sp.Topics != nil {
			f.Topics, f.TopicsGiven = sp.Topics, true
		}
		p, err := d.CreateProject(creator, f)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", at, err)
		}
		if err := addMembers(at, store.SourceProject, p.ID, sp.Members, creator.ID); err != nil {
			return nil, err
		}
	}
	return accounts, nil
}

// repository returns the commits a seeded project's repository starts with,
// or nil when the file gives it no files.
func (sf *SeedFile) repository(fullPath string) *SeedProject {
	if sf == nil {
		return nil
	}
	for i := range sf.Projects {
		if strings.EqualFold(sf.Projects[i].Path, fullPath) && len(sf.Projects[i].Files) > 0 {
			return &sf.Projects[i]
		}
	}
	return nil
}

// sortedActions turns a files map into commit actions in path order, so the
// same file makes the same commit.
func sortedActions(files map[string]string) []git.Action {
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	out := make([]git.Action, 0, len(paths))
	for _, p := range paths {
		out = append(out, git.Action{Kind: "create", Path: p, Content: []byte(files[p]), HasContent: true})
	}
	return out
}
