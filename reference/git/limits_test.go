package git

import (
	"context"
	"strings"
	"testing"
)

// TestLimitsHoldAtTheEdge writes at each limit (a ref of MaxRefName bytes
// with components of MaxRefComponent, a path of MaxPath bytes, an identity of
// MaxIdentity characters, a message of MaxMessage bytes) and checks that one
// past it is refused before git sees it, where git or the system would fail.
func TestLimitsHoldAtTheEdge(t *testing.T) {
	r := newRepo(t)
	ctx := context.Background()

	comp := strings.Repeat("b", MaxRefComponent)
	ref := strings.Repeat("a", MaxRefComponent) + "/" + strings.Repeat("c", MaxRefName-MaxRefComponent-1)
	if len(ref) != MaxRefName || RefNameProblem(ref) != "" {
		t.Fatalf("ref of %d bytes: %q", len(ref), RefNameProblem(ref))
	}
	longPath := strings.Repeat(strings.Repeat("d", MaxPathComponent)+"/", MaxPath/(MaxPathComponent+1)-1) + "e/"
	longPath += strings.Repeat("f", MaxPath-len(longPath))
	if len(longPath) != MaxPath || PathProblem(longPath) != "" {
		t.Fatalf("path of %d bytes: %q", len(longPath), PathProblem(longPath))
	}
	name := strings.Repeat("é", MaxIdentity)
	email := strings.Repeat("e", MaxIdentity-len("@x")) + "@x"
	if NameProblem(name) != "" || EmailProblem(email) != "" {
		t.Fatalf("identity at the limit: %q %q", NameProblem(name), EmailProblem(email))
	}
	msg := strings.Repeat("m", MaxMessage)
	tree, err := r.ApplyActions(ctx, "", []Action{create(longPath, "x")})
	if err != nil {
		t.Fatal(err)
	}
	author := Signature{Name: name, Email: email, When: t0}
	c, err := r.CommitTree(ctx, tree, nil, msg, author, sig)
	if err != nil {
		t.Fatal(err)
	}
	for _, branch := range []string{ref, comp} {
		if err := r.UpdateRef(ctx, "refs/heads/"+branch, c, ZeroOid); err != nil {
			t.Fatalf("branch of %d bytes: %v", len(branch), err)
		}
		if got, err := r.Branch(ctx, branch); err != nil || got != c {
			t.Fatalf("Branch(%d bytes) = %s, %v", len(branch), got, err)
		}
	}
	got, err := r.Commit(ctx, c)
	if err != nil || got.Author.Name != name || got.Author.Email != email {
		t.Fatalf("author read back: %+v, %v", got, err)
	}

	// One past each limit.
	for _, tc := range []struct{ what, problem string }{
		{"ref", RefNameProblem(ref + "x")},
		{"ref component", RefNameProblem(comp + "x")},
		{"path", PathProblem(longPath + "x")},
		{"path component", PathProblem(strings.Repeat("p", MaxPathComponent+1))},
		{"name", NameProblem(name + "x")},
		{"email", EmailProblem("x" + email)},
		{"message", MessageProblem(msg + "x")},
	} {
		if tc.problem == "" {
			t.Errorf("%s one past the limit is accepted", tc.what)
		}
	}
	if ValidRefName(comp+"x") || ValidPath(longPath+"x") {
		t.Error("ValidRefName or ValidPath accepts a name past the limit")
	}
	// What the limits stand in front of: git fails on a ref component whose
	// lock file name is too long, and the system on a 128 KiB identity.
	if err := r.UpdateRef(ctx, "refs/heads/"+strings.Repeat("z", 255), c, ZeroOid); err == nil {
		t.Error("UpdateRef took a 255-byte component")
	}
	huge := Signature{Name: "n", Email: strings.Repeat("e", 128<<10) + "@x", When: t0}
	if _, err := r.CommitTree(ctx, tree, nil, "m", huge, sig); err == nil {
		t.Error("git took a 128 KiB e-mail address through its environment")
	}
	if _, err := r.CommitTree(ctx, tree, nil, "a\x00b", sig, sig); err == nil {
		t.Error("git took a NUL in a message")
	}
}

// TestIdentityProblems: git would drop '<', '>' and newlines from an identity
// and refuse one of nothing but punctuation and spaces; the API refuses both.
func TestIdentityProblems(t *testing.T) {
	for _, tc := range []struct {
		name, email string
		nameOK      bool
		emailOK     bool
	}{
		{"Grace Hopper", "grace@example.com", true, true},
		{"", "", false, false},
		{"   ", " \t", false, false},
		{". ,", "x", false, true},
		{"a<b>", "a<b@x", false, false},
		{"a\nb", "a\nb@x", false, false},
		{"a\x00b", "a\x00b@x", false, false},
		{"\xff", "\xff@x", false, false},
		{"Ünïcødé", "ü@x", true, true},
	} {
		if got := NameProblem(tc.name) == ""; got != tc.nameOK {
			t.Errorf("NameProblem(%q) = %q", tc.name, NameProblem(tc.name))
		}
		if got := EmailProblem(tc.email) == ""; got != tc.emailOK {
			t.Errorf("EmailProblem(%q) = %q", tc.email, EmailProblem(tc.email))
		}
	}
}
