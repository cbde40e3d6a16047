package reference

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"v4cert/reference/store"
)

// TestSeedFileErrorsNameTheLine: a seed file with mistakes is refused with
// every mistake named by file, line and entry.
func TestSeedFileErrorsNameTheLine(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		want       []string
	}{
		{"unknown key", "users:\n  - username: a\n    nmae: A\n", []string{"line 3", "field nmae not found"}},
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
