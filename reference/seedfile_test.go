package reference

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/v4cert/v4cert/reference/store"
)

// TestSeedFileErrorsNameTheLine: a seed file with mistakes is refused with
// every mistake named by file, line and entry.
func TestSeedFileErrorsNameTheLine(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		want       []string
	}{
		{"unknown key", "users:\n  - username: a\n    nmae: A\n", []string{`w.yaml:3: users[0] (a): unknown key "nmae" (did you mean "name"?)`}},
		{"missing references", `users:
  - username: alice
groups:
  - path: acme/tools
projects:
  - path: nowhere/web
    creator: bob
    members: [{user: carol, access: boss}]
`, []string{
			"w.yaml:4: groups[0] (acme/tools): parent group acme must be defined above it",
			"w.yaml:6: projects[0] (nowhere/web): namespace nowhere is neither a group nor a user defined in the file",
			`creator "bob" is not defined in users`,
			`members[0]: user "carol" is not defined in users`,
			`access "boss" is not one of`,
		}},
		{"tokens and branches", `users:
  - username: root
  - username: alice
    tokens: [{token: ""}, {token: t1, scopes: [everything]}]
projects:
  - path: alice/web
    branches: [{name: feature, files: {"../x": "no"}}]
`, []string{
			"users[0] (root): root is the administrator every world has",
			"tokens[0]: token (the secret) is required",
			`tokens[1]: unknown scope "everything"`,
			"branches[0]: from main names no branch above it",
			`branches[0]: files: "../x" is not a file path`,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseSeedFile("w.yaml", []byte(tc.yaml))
			if err != nil && strings.Contains(err.Error(), "reference.Seed") {
				t.Errorf("the error names Go types:\n%v", err)
			}
			if err == nil {
				t.Fatal("accepted")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%v", w, err)
				}
			}
		})
	}
}

// TestSeedFileReportsEveryMistake: a file with many mistakes of every kind
// (shape, unknown keys, references, values) is refused with all of them, one
// a line, in the order of the file, each as "file:line: entry: what is
// wrong"; no yaml or Go type name reaches the user.
func TestSeedFileReportsEveryMistake(t *testing.T) {
	const world = `usres: []
users:
  - username: alice
    nmae: Alice
    admin: maybe
    tokens:
      - token: t1
        scope: [api]
      - token: t1
        expires_at: tomorrow
  - username: bob
    emial: bob@example.com
    state: asleep
  - usernme: carol
groups:
  - path: acme
    visibility: secret
    members:
      - {user: alice, acess: owner}
      - {user: zed, access: boss}
    colour: red
  - path: acme
projects:
  - path: acme/web
    default-branch: main
    topics: web
    files:
      README.md: [not, text]
      ../escape: x
    branches:
      - {name: dev, form: main}
  - path: nowhere/app
    creator: nobody
`
	_, err := ParseSeedFile("w.yaml", []byte(world))
	if err == nil {
		t.Fatal("accepted")
	}
	want := []string{
		`w.yaml:1: unknown key "usres" (did you mean "users"?)`,
		`w.yaml:4: users[0] (alice): unknown key "nmae" (did you mean "name"?)`,
		`w.yaml:5: users[0] (alice): admin: want true or false, not "maybe"`,
		`w.yaml:8: users[0] (alice): tokens[0]: unknown key "scope" (did you mean "scopes"?)`,
		`w.yaml:9: users[0] (alice): tokens[1]: token t1 is used twice`,
		`w.yaml:10: users[0] (alice): tokens[1]: expires_at: "tomorrow" is not a date (YYYY-MM-DD)`,
		`w.yaml:12: users[1] (bob): unknown key "emial" (did you mean "email"?)`,
		`w.yaml:13: users[1] (bob): state must be active or blocked, not "asleep"`,
		`w.yaml:14: users[2]: unknown key "usernme" (did you mean "username"?)`,
		`w.yaml:14: users[2]: username is required`,
		`w.yaml:17: groups[0] (acme): visibility must be private, internal or public, not "secret"`,
		`w.yaml:19: groups[0] (acme): members[0]: unknown key "acess" (did you mean "access"?)`,
		`w.yaml:19: groups[0] (acme): members[0]: access is required`,
		`w.yaml:20: groups[0] (acme): members[1]: user "zed" is not defined in users`,
		`w.yaml:20: groups[0] (acme): members[1]: access "boss" is not one of`,
		`w.yaml:21: groups[0] (acme): unknown key "colour" (a group's keys are path, name, description, visibility, creator, members)`,
		`w.yaml:22: groups[1] (acme): group acme is defined twice`,
		`w.yaml:25: projects[0] (acme/web): unknown key "default-branch" (did you mean "default_branch"?)`,
		`w.yaml:26: projects[0] (acme/web): topics: want a list (- item lines, or [a, b]), not "web"`,
		`w.yaml:28: projects[0] (acme/web): files: file "README.md": want its content as text (use | for lines), not a list`,
		`w.yaml:29: projects[0] (acme/web): files: "../escape" is not a file path`,
		`w.yaml:31: projects[0] (acme/web): branches[0]: unknown key "form" (did you mean "from"?)`,
		`w.yaml:32: projects[1] (nowhere/app): namespace nowhere is neither a group nor a user defined in the file`,
		`w.yaml:33: projects[1] (nowhere/app): creator "nobody" is not defined in users`,
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != len(want) {
		t.Errorf("%d mistakes reported, want %d:\n%v", len(lines), len(want), err)
	}
	for i, w := range want {
		if i >= len(lines) || !strings.HasPrefix(lines[i], w) {
			t.Errorf("mistake %d: want %q", i+1, w)
		}
	}
	for _, no := range []string{"reference.", "!!", "unmarshal", "[]string", "yaml: "} {
		if strings.Contains(err.Error(), no) {
			t.Errorf("the mistakes say %q:\n%v", no, err)
		}
	}
}

// TestSeedFileShapeMistakes: a file that is not the shape of a world, or
// not YAML at all, is refused with the file and the line.
func TestSeedFileShapeMistakes(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{"- alice\n- bob\n", `w.yaml:1: want the keys users, groups, projects (key: value lines), not a list`},
		{"users:\n  username: alice\n", `w.yaml:2: want a list (- item lines, or [a, b]), not a mapping (key: value)`},
		{"users:\n  - alice\n", `w.yaml:2: users[0]: want a user (key: value lines), not "alice"`},
		{"users:\n  - username: a\n    username: b\n", `w.yaml:3: users[0] (a): key username is given twice (first on line 2)`},
		{"users:\n  - username: [a, b]\n", `w.yaml:2: users[0]: username: want text, not a list`},
		{"users:\n  - username: a\n\tname: b\n", `w.yaml:2: found a tab character that violates indentation`},
		{"users:\n  - username: a\n    favourite_colour: red\n", `(a user's keys are username, name, email, admin, external, state, tokens)`},
	} {
		_, err := ParseSeedFile("w.yaml", []byte(tc.yaml))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: want %q, got %v", tc.yaml, tc.want, err)
		}
	}
	// YAML's anchors and merge keys are YAML: an entry may share keys.
	merged := `users:
  - &base {username: alice, state: active}
  - <<: *base
    username: bob
groups:
  - path: acme
    members:
      - &dev {user: alice, access: developer}
      - *dev
`
	if sf, err := ParseSeedFile("w.yaml", []byte(merged)); err != nil {
		t.Errorf("anchors and merge keys refused: %v", err)
	} else if len(sf.Users) != 2 || sf.Users[1].Username != "bob" || sf.Users[1].State != "active" {
		t.Errorf("merged users: %+v", sf.Users)
	}
	if _, err := ParseSeedFile("w.yaml", []byte("x: &bad {nmae: a}\nusers:\n  - <<: *bad\n    username: a\n")); err == nil ||
		!strings.Contains(err.Error(), `unknown key "x"`) || !strings.Contains(err.Error(), `w.yaml:1: users[0] (a): unknown key "nmae"`) {
		t.Errorf("a merged mapping's unknown key: %v", err)
	}
	// Empty files and files of comments are the empty world: root alone.
	for _, empty := range []string{"", "# nothing yet\n", "users:\n"} {
		if _, err := ParseSeedFile("w.yaml", []byte(empty)); err != nil {
			t.Errorf("%q refused: %v", empty, err)
		}
	}
}

func TestLevenshtein(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"name", "name", 0}, {"nmae", "name", 2}, {"emial", "email", 2}, {"", "abc", 3}, {"kitten", "sitting", 3}} {
		if got := levenshtein(tc.a, tc.b); got != tc.d {
			t.Errorf("levenshtein(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.d)
		}
	}
}

// TestSeedFileExampleBuilds: the documented example (docs/seed-file.md)
// loads and builds, with its tokens working and its repositories written.
func TestSeedFileExampleBuilds(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "seed-file.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), "```yaml\n")
	example, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatal("docs/seed-file.md has no yaml example")
	}
	path := filepath.Join(t.TempDir(), "world.yaml")
	os.WriteFile(path, []byte(example), 0o644)
	inst, err := New(Config{RootToken: "glpat-example-root", SeedFile: path, FixedClock: true})
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Close()
	if len(inst.Accounts) == 0 {
		t.Fatal("the example names no token")
	}
	inst.Server.Store().Read(func(d *store.Data) error {
		for _, a := range inst.Accounts {
			tok := d.TokenBySecret(a.Token)
			if tok == nil || d.User(tok.UserID).Username != a.Username {
				t.Errorf("token of %s does not sign in as them", a.Username)
			}
		}
		if len(d.Projects()) == 0 {
			t.Error("the example makes no project")
		}
		return nil
	})
	// Every project has its repository, and a reset rebuilds them.
	for i := 0; i < 2; i++ {
		inst.Server.Store().Read(func(d *store.Data) error {
			for _, p := range d.Projects() {
				if _, err := inst.Server.Repositories().Get(p.ID); err != nil {
					t.Errorf("project %s has no repository: %v", d.ProjectFullPath(p), err)
				}
			}
			return nil
		})
		if err := inst.Reset(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
}
