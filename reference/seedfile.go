package reference

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/v4cert/v4cert/reference/access"
	"github.com/v4cert/v4cert/reference/store"
	"github.com/v4cert/v4cert/reference/workflow/repository"
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
// Every mistake is reported, one a line as "file:line: entry: what is wrong",
// in the order of the file: the shape (unknown keys, with the closest known
// one; a list where text belongs) is read from the YAML node tree, which
// knows the lines, and the meaning (references, levels, dates) from the
// decoded entries.
func ParseSeedFile(path string, data []byte) (*SeedFile, error) {
	sf := &SeedFile{path: path, lines: map[string]int{}}
	var doc yaml.Node
	if err := yaml.NewDecoder(bytes.NewReader(data)).Decode(&doc); err != nil && !errors.Is(err, io.EOF) {
		return nil, yamlSyntaxError(path, err)
	}
	var top *yaml.Node
	if len(doc.Content) == 1 {
		top = doc.Content[0]
	}
	if top == nil || isNull(top) {
		return sf, nil // an empty file is an empty world: root alone
	}
	w := &seedWalker{sf: sf}
	w.value(top, reflect.TypeOf(sf).Elem(), seedPlace{})
	// The walk has named every node the decoder would refuse, so what the
	// decoder says then is said already; without such a mistake it is the
	// last word (it never is: the walk knows every type of the file).
	if err := top.Decode(sf); err != nil && len(w.mistakes) == 0 {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	w.mistakes = append(w.mistakes, sf.check()...)
	if len(w.mistakes) == 0 {
		return sf, nil
	}
	sort.SliceStable(w.mistakes, func(i, j int) bool { return w.mistakes[i].line < w.mistakes[j].line })
	errs := make([]error, len(w.mistakes))
	for i, m := range w.mistakes {
		errs[i] = errors.New(m.text)
	}
	return nil, errors.Join(errs...)
}

// yamlSyntaxError puts a YAML syntax error in the file:line form of the
// other mistakes ("yaml: line 3: mapping values are not allowed" becomes
// "world.yaml:3: mapping values are not allowed").
func yamlSyntaxError(path string, err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if m := yamlLineRe.FindStringSubmatch(msg); m != nil {
		return fmt.Errorf("%s:%s: %s", path, m[1], m[2])
	}
	return fmt.Errorf("%s: %s", path, msg)
}

var yamlLineRe = regexp.MustCompile(`^line (\d+): (.*)$`)

// seedMistake is one mistake of a seed file, with the line it is on for the
// order of the report.
type seedMistake struct {
	line int
	text string
}

// seedPlace is where the walk is: the entry ("users[2] (carol)", empty at
// the top of the file), the place inside it ("tokens[0]"), and the key of
// the lines map ("users[2].tokens[0]").
type seedPlace struct {
	entry, inner, key string
}

// child is the place of a key or an item under p.
func (p seedPlace) child(name string, item bool) seedPlace {
	sep := "."
	if item {
		sep = ""
	}
	c := p
	if c.key == "" {
		c.key = name
	} else {
		c.key += sep + name
	}
	if p.entry != "" {
		if c.inner == "" {
			c.inner = name
		} else {
			c.inner += sep + name
		}
	}
	return c
}

// label is the entry and the place inside it, as a mistake names them.
func (p seedPlace) label() string {
	switch {
	case p.entry == "" && p.inner == "":
		return ""
	case p.inner == "":
		return p.entry + ": "
	}
	return p.entry + ": " + p.inner + ": "
}

// seedWalker checks the shape of a seed file's node tree against the Go
// types it decodes into, which give each kind of entry its keys (the yaml
// tags), and records the line of every entry and key for the checks after.
type seedWalker struct {
	sf       *SeedFile
	mistakes []seedMistake
}

func (w *seedWalker) fail(n *yaml.Node, at seedPlace, format string, a ...any) {
	w.mistakes = append(w.mistakes, seedMistake{n.Line,
		fmt.Sprintf("%s:%d: %s%s", w.sf.path, n.Line, at.label(), fmt.Sprintf(format, a...))})
}

func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.Tag == "!!null" }

// value checks n as a value of type t.
func (w *seedWalker) value(n *yaml.Node, t reflect.Type, at seedPlace) {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	if isNull(n) {
		return // a key with nothing after it: the default
	}
	switch t.Kind() {
	case reflect.Struct:
		w.mapping(n, t, at)
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			w.fail(n, at, "want a list (- item lines, or [a, b]), not %s", describeNode(n))
			return
		}
		for i, item := range n.Content {
			c := at.child(fmt.Sprintf("[%d]", i), true)
			if at.entry == "" && t.Elem().Kind() == reflect.Struct {
				// An item of a top-level list is an entry of its own.
				c = seedPlace{entry: c.key, key: c.key}
				if name := entryName(item); name != "" {
					c.entry += " (" + name + ")"
				}
			}
			w.sf.lines[c.key] = item.Line
			w.value(item, t.Elem(), c)
		}
	case reflect.Map: // files: path -> content
		if n.Kind != yaml.MappingNode {
			w.fail(n, at, "want a mapping of file path to content, not %s", describeNode(n))
			return
		}
		seen := map[string]int{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if first, dup := seen[k.Value]; dup {
				w.fail(k, at, "file %q is given twice (first on line %d)", k.Value, first)
			}
			seen[k.Value] = k.Line
			w.sf.lines[at.key+"."+k.Value] = k.Line
			if v.Kind == yaml.AliasNode && v.Alias != nil {
				v = v.Alias
			}
			if v.Kind != yaml.ScalarNode {
				w.fail(v, at, "file %q: want its content as text (use | for lines), not %s", k.Value, describeNode(v))
			}
		}
	case reflect.String:
		if n.Kind != yaml.ScalarNode {
			w.fail(n, at, "want text, not %s", describeNode(n))
		}
	case reflect.Bool:
		var b bool
		if n.Kind != yaml.ScalarNode || n.Decode(&b) != nil {
			w.fail(n, at, "want true or false, not %s", describeNode(n))
		}
	}
}

// mapping checks n as an entry of struct type t: every key known, none twice.
func (w *seedWalker) mapping(n *yaml.Node, t reflect.Type, at seedPlace) {
	if n.Kind != yaml.MappingNode {
		what := entryKind(t, true)
		if what == "the file" {
			names, _ := yamlKeys(t)
			what = "the keys " + strings.Join(names, ", ")
		}
		w.fail(n, at, "want %s (key: value lines), not %s", what, describeNode(n))
		return
	}
	_, keys := yamlKeys(t)
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind == yaml.ScalarNode && k.Tag == "!!merge" {
			// "<<: *defaults" (or a list of them): the merged mappings'
			// keys are this entry's, checked where they are written.
			merged := []*yaml.Node{v}
			if v.Kind == yaml.SequenceNode {
				merged = v.Content
			}
			for _, m := range merged {
				if m.Kind == yaml.AliasNode && m.Alias != nil {
					m = m.Alias
				}
				w.mapping(m, t, at)
			}
			continue
		}
		field, known := keys[k.Value]
		switch {
		case k.Kind != yaml.ScalarNode:
			w.fail(k, at, "a key must be a word, not %s", describeNode(k))
			continue
		case !known:
			w.fail(k, at, "unknown key %q%s", k.Value, didYouMean(k.Value, t))
			continue
		}
		if first, dup := seen[k.Value]; dup {
			w.fail(k, at, "key %s is given twice (first on line %d)", k.Value, first)
			continue
		}
		seen[k.Value] = k.Line
		c := at.child(k.Value, false)
		w.sf.lines[c.key] = k.Line
		w.value(v, field.Type, c)
	}
}

// entryName is what names an entry in the mistakes: a user's username, a
// group's or a project's path.
func entryName(n *yaml.Node) string {
	if n.Kind != yaml.MappingNode {
		return ""
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k, v := n.Content[i].Value, n.Content[i+1]; (k == "username" || k == "path") && v.Kind == yaml.ScalarNode {
			return v.Value
		}
	}
	return ""
}

// describeNode says what a node is, in the words of a YAML file.
func describeNode(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping (key: value)"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		return strconv.Quote(n.Value)
	}
	return "this"
}

// yamlKeys are the keys an entry of type t takes, in the order of its
// fields: their yaml tags.
func yamlKeys(t reflect.Type) (names []string, fields map[string]reflect.StructField) {
	fields = map[string]reflect.StructField{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if name, _, _ := strings.Cut(f.Tag.Get("yaml"), ","); name != "" && name != "-" && f.IsExported() {
			names = append(names, name)
			fields[name] = f
		}
	}
	return names, fields
}

// entryKind names the kind of entry t is: "a user", "a project"; the file
// itself is "the file".
func entryKind(t reflect.Type, article bool) string {
	kind := strings.ToLower(strings.TrimPrefix(t.Name(), "Seed"))
	switch {
	case kind == "file":
		return "the file"
	case !article:
		return kind
	}
	return "a " + kind // user, token, group, project, branch, member
}

// didYouMean suggests the known key closest to an unknown one (a typo: a
// few letters off, or the start of a longer key) or, when none is close,
// lists the keys the entry takes.
func didYouMean(key string, t reflect.Type) string {
	names, _ := yamlKeys(t)
	best, bestD := "", -1
	lower := strings.ToLower(key)
	for _, n := range names {
		d := levenshtein(lower, n)
		if bestD < 0 || d < bestD {
			best, bestD = n, d
		}
	}
	close := bestD <= 2 || bestD*3 <= len(key)
	for _, n := range names {
		if !close && len(lower) >= 3 && (strings.HasPrefix(n, lower) || strings.HasPrefix(lower, n)) {
			best, close = n, true
		}
	}
	if close {
		return fmt.Sprintf(" (did you mean %q?)", best)
	}
	whose := entryKind(t, true) + "'s keys are"
	if entryKind(t, false) == "the file" {
		whose = "the file's keys are"
	}
	return fmt.Sprintf(" (%s %s)", whose, strings.Join(names, ", "))
}

// levenshtein is the edit distance between a and b: insertions, deletions
// and substitutions of one byte (the keys are ASCII).
func levenshtein(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
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

// line is the line of the most precise place the walk recorded for key
// ("projects[0].members[1].access", else "projects[0].members[1]", else
// "projects[0]"); 0 when none.
func (sf *SeedFile) line(key string) int {
	for key != "" {
		if l, ok := sf.lines[key]; ok {
			return l
		}
		i := strings.LastIndexAny(key, ".[")
		if i < 0 {
			break
		}
		key = key[:i]
	}
	return 0
}

var (
	seedPathRe   = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]*$`)
	seedAccesses = map[string]access.Level{"minimal": access.Minimal, "guest": access.Guest, "reporter": access.Reporter,
		"developer": access.Developer, "maintainer": access.Maintainer, "owner": access.Owner}
)

// check validates what the store would not see before it is too late to name
// the line: references between entries, levels, dates, refs and paths.
func (sf *SeedFile) check() []seedMistake {
	var out []seedMistake
	// entry is the fail of one entry: sub is the place inside it whose line
	// names the mistake ("tokens[0].scopes"), the entry's own line when empty.
	entry := func(kind string, i int, name string) func(sub, format string, a ...any) {
		key := fmt.Sprintf("%s[%d]", kind, i)
		label := key
		if name != "" {
			label += " (" + name + ")"
		}
		return func(sub, format string, a ...any) {
			l := sf.line(key + "." + sub)
			where := sf.path
			if l > 0 {
				where += ":" + strconv.Itoa(l)
			}
			out = append(out, seedMistake{l, fmt.Sprintf("%s: %s: %s", where, label, fmt.Sprintf(format, a...))})
		}
	}
	users := map[string]bool{"root": true}
	tokens := map[string]bool{}
	for i, u := range sf.Users {
		fail := entry("users", i, u.Username)
		switch {
		case u.Username == "":
			fail("username", "username is required")
		case strings.EqualFold(u.Username, "root"):
			fail("username", "root is the administrator every world has; name another user")
		case users[strings.ToLower(u.Username)]:
			fail("username", "username %s is defined twice", u.Username)
		}
		users[strings.ToLower(u.Username)] = true
		if u.State != "" && u.State != "active" && u.State != "blocked" {
			fail("state", "state must be active or blocked, not %q", u.State)
		}
		for j, t := range u.Tokens {
			switch {
			case t.Token == "":
				fail(fmt.Sprintf("tokens[%d].token", j), "tokens[%d]: token (the secret) is required", j)
			case tokens[t.Token]:
				fail(fmt.Sprintf("tokens[%d].token", j), "tokens[%d]: token %s is used twice", j, t.Token)
			}
			tokens[t.Token] = true
			for _, s := range t.Scopes {
				if !store.KnownScope(s) {
					fail(fmt.Sprintf("tokens[%d].scopes", j), "tokens[%d]: unknown scope %q", j, s)
				}
			}
			if _, err := seedDate(t.ExpiresAt); err != nil {
				fail(fmt.Sprintf("tokens[%d].expires_at", j), "tokens[%d]: expires_at: %v", j, err)
			}
		}
	}
	checkMembers := func(fail func(string, string, ...any), ms []SeedMember) {
		for j, m := range ms {
			if !users[strings.ToLower(m.User)] {
				fail(fmt.Sprintf("members[%d].user", j), "members[%d]: user %q is not defined in users", j, m.User)
			}
			if m.Access == "" {
				fail(fmt.Sprintf("members[%d]", j), "members[%d]: access is required", j)
			} else if _, err := seedAccess(m.Access); err != nil {
				fail(fmt.Sprintf("members[%d].access", j), "members[%d]: %v", j, err)
			}
			if _, err := seedDate(m.ExpiresAt); err != nil {
				fail(fmt.Sprintf("members[%d].expires_at", j), "members[%d]: expires_at: %v", j, err)
			}
		}
	}
	checkCreator := func(fail func(string, string, ...any), creator string) {
		if creator != "" && !users[strings.ToLower(creator)] {
			fail("creator", "creator %q is not defined in users", creator)
		}
	}
	checkVisibility := func(fail func(string, string, ...any), v string) {
		if v != "" && !store.ValidVisibility(v) {
			fail("visibility", "visibility must be private, internal or public, not %q", v)
		}
	}
	groups := map[string]bool{}
	for i, g := range sf.Groups {
		fail := entry("groups", i, g.Path)
		parent, last := splitLast(g.Path)
		switch {
		case g.Path == "":
			fail("path", "path is required")
		case !validSeedPath(g.Path):
			fail("path", "path segments may hold only letters, digits, '_', '-' and '.'")
		case groups[strings.ToLower(g.Path)]:
			fail("path", "group %s is defined twice", g.Path)
		case parent != "" && !groups[strings.ToLower(parent)]:
			fail("path", "parent group %s must be defined above it", parent)
		case parent == "" && users[strings.ToLower(last)]:
			fail("path", "path %s is a username: users and top-level groups share one namespace", last)
		}
		groups[strings.ToLower(g.Path)] = true
		checkVisibility(fail, g.Visibility)
		checkCreator(fail, g.Creator)
		checkMembers(fail, g.Members)
	}
	projects := map[string]bool{}
	for i, p := range sf.Projects {
		fail := entry("projects", i, p.Path)
		ns, _ := splitLast(p.Path)
		switch {
		case p.Path == "" || ns == "":
			fail("path", "path must be namespace/project, the namespace a group or a username")
		case !validSeedPath(p.Path):
			fail("path", "path segments may hold only letters, digits, '_', '-' and '.'")
		case !groups[strings.ToLower(ns)] && !users[strings.ToLower(ns)]:
			fail("path", "namespace %s is neither a group nor a user defined in the file", ns)
		case projects[strings.ToLower(p.Path)]:
			fail("path", "project %s is defined twice", p.Path)
		}
		projects[strings.ToLower(p.Path)] = true
		checkVisibility(fail, p.Visibility)
		checkCreator(fail, p.Creator)
		checkMembers(fail, p.Members)
		branches := map[string]bool{p.defaultBranch(): len(p.Files) > 0}
		if p.DefaultBranch != "" && !repository.ValidRefName(p.DefaultBranch) {
			fail("default_branch", "default_branch %q is not a valid branch name", p.DefaultBranch)
		}
		for _, path := range sortedKeys(p.Files) {
			if !validFilePath(path) {
				fail("files."+path, "files: %q is not a file path (relative, no . or .. segments, no .git)", path)
			}
		}
		for j, b := range p.Branches {
			from := b.From
			if from == "" {
				from = p.defaultBranch()
			}
			switch {
			case !repository.ValidRefName(b.Name):
				fail(fmt.Sprintf("branches[%d].name", j), "branches[%d]: %q is not a valid branch name", j, b.Name)
			case branches[b.Name] || b.Name == p.defaultBranch():
				fail(fmt.Sprintf("branches[%d].name", j), "branches[%d]: branch %s is defined twice (the default branch holds files:)", j, b.Name)
			case !branches[from]:
				fail(fmt.Sprintf("branches[%d].from", j), "branches[%d]: from %s names no branch above it (the default branch exists when the project has files)", j, from)
			}
			branches[b.Name] = true
			for _, path := range sortedKeys(b.Files) {
				if !validFilePath(path) {
					fail(fmt.Sprintf("branches[%d].files.%s", j, path), "branches[%d]: files: %q is not a file path", j, path)
				}
			}
		}
	}
	return out
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

// sortedKeys are a files map's paths in order, so its mistakes and its
// commit come out the same every time.
func sortedKeys(files map[string]string) []string {
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	return paths
}
