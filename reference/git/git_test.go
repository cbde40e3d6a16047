package git

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func newRepo(t testing.TB) *Repo {
	t.Helper()
	if _, err := Check(); err != nil {
		t.Skip(err)
	}
	m := NewManager("", func() time.Time { return t0 })
	t.Cleanup(func() { m.Close() })
	r, err := m.Create(1, "main")
	if err != nil {
		t.Fatal(err)
	}
	return r
}

var sig = Signature{Name: "Ada", Email: "ada@example.com", When: t0}

// commit applies actions on branch and moves it, as the API does.
func commit(t testing.TB, r *Repo, branch, msg string, actions ...Action) Oid {
	t.Helper()
	ctx := context.Background()
	old, err := r.Branch(ctx, branch)
	if err != nil && !errors.Is(err, ErrNotFound) {
		t.Fatal(err)
	}
	var parents []Oid
	if old != "" {
		parents = []Oid{old}
	} else {
		old = ZeroOid
	}
	base := Oid("")
	if len(parents) > 0 {
		base = parents[0]
	}
	tree, err := r.ApplyActions(ctx, base, actions)
	if err != nil {
		t.Fatal(err)
	}
	c, err := r.CommitTree(ctx, tree, parents, msg, sig, sig)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.UpdateRef(ctx, "refs/heads/"+branch, c, old); err != nil {
		t.Fatal(err)
	}
	return c
}

func create(p, content string) Action {
	return Action{Kind: "create", Path: p, Content: []byte(content), HasContent: true}
}

func update(p, content string) Action {
	return Action{Kind: "update", Path: p, Content: []byte(content), HasContent: true}
}

func gitOut(t testing.TB, r *Repo, args ...string) string {
	t.Helper()
	out, err := r.Git(context.Background(), nil, args...)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

func TestWriteReadAndFsck(t *testing.T) {
	r := newRepo(t)
	ctx := context.Background()
	c1 := commit(t, r, "main", "first\n", create("README.md", "# hi\n"), create("src/a.go", "package a\n"))
	yes := true
	c2 := commit(t, r, "main", "second\n", update("src/a.go", "package a\n\nvar X = 1\n"),
		Action{Kind: "chmod", Path: "README.md", Executable: &yes},
		Action{Kind: "move", Path: "docs/readme.txt", PreviousPath: "README.md"},
		Action{Kind: "create", Path: "bin/run", Content: []byte("#!/bin/sh\n"), HasContent: true})
	c3 := commit(t, r, "main", "third\n", Action{Kind: "delete", Path: "bin/run"}, create("bin", "now a file\n"))

	e, err := r.Lookup(ctx, c2, "docs/readme.txt")
	if err != nil || !e.Executable() {
		t.Fatalf("moved file keeps chmod: %+v %v", e, err)
	}
	if b, _ := r.Blob(ctx, e.ID); string(b) != "# hi\n" {
		t.Fatalf("move without content keeps it: %q", b)
	}
	if _, err := r.Lookup(ctx, c2, "README.md"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("moved away: %v", err)
	}
	if last, _ := r.LastCommit(ctx, c3, "src/a.go"); last != c2 {
		t.Fatalf("last commit of src/a.go = %s, want %s", last, c2)
	}
	if last, _ := r.LastCommit(ctx, c3, "bin"); last != c3 {
		t.Fatalf("last commit of bin = %s, want %s", last, c3)
	}
	log, err := r.Log(ctx, LogOptions{Revs: []string{string(c3)}})
	if err != nil || len(log) != 3 || log[0] != c3 || log[2] != c1 {
		t.Fatalf("log = %v %v", log, err)
	}
	if got := strings.Fields(gitOut(t, r, "log", "--format=%H", "main")); strings.Join(got, " ") != string(c3+" "+c2+" "+c1) {
		t.Fatalf("git log = %v", got)
	}
	if out, err := r.Git(ctx, nil, "fsck", "--strict", "--no-dangling"); err != nil || strings.TrimSpace(string(out)) != "" {
		t.Fatalf("git fsck: %s %v", out, err)
	}
	st, err := r.StatsOf(ctx, []*Commit{mustCommit(t, r, c1), mustCommit(t, r, c2)})
	if err != nil || st[c1] != (Stats{2, 0}) || st[c2] != (Stats{4, 1}) {
		t.Fatalf("stats = %v %v", st, err)
	}
	diff, err := r.Diff(ctx, mustCommit(t, r, c2), false)
	if err != nil || len(diff) != 3 {
		t.Fatalf("diff = %+v %v", diff, err)
	}
	var renamed bool
	for _, d := range diff {
		if d.Renamed && d.OldPath == "README.md" && d.NewPath == "docs/readme.txt" && d.BMode == "100755" {
			renamed = true
		}
	}
	if !renamed {
		t.Fatalf("no rename in %+v", diff)
	}
	if n, _ := r.Count(ctx, c3, true); n != 3 {
		t.Fatalf("count = %d", n)
	}
}

func mustCommit(t testing.TB, r *Repo, id Oid) *Commit {
	t.Helper()
	c, err := r.Commit(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestActionErrors(t *testing.T) {
	r := newRepo(t)
	ctx := context.Background()
	c := commit(t, r, "main", "m\n", create("a/b.txt", "x"), create("c.txt", "y"))
	for _, tc := range []struct {
		a      Action
		reason string
	}{
		{create("c.txt", "z"), ReasonExists},
		{create("a", "z"), ReasonExists},         // a directory
		{create("c.txt/d", "z"), ReasonExists},   // under a file
		{update("nope.txt", "z"), ReasonMissing}, //
		{Action{Kind: "delete", Path: "a"}, ReasonMissing},
		{Action{Kind: "move", Path: "n.txt", PreviousPath: "nope"}, ReasonMissing},
		{Action{Kind: "move", Path: "a/b.txt", PreviousPath: "c.txt"}, ReasonExists},
		{create("a/../c.txt", "z"), ReasonInvalidPath},
		{create(".git/config", "z"), ReasonInvalidPath},
		{create("/abs", "z"), ReasonInvalidPath},
	} {
		_, err := r.ApplyActions(ctx, c, []Action{tc.a})
		var ae *ActionError
		if !errors.As(err, &ae) || ae.Reason != tc.reason {
			t.Errorf("%+v: err = %v, want %s", tc.a, err, tc.reason)
		}
	}
}

func TestMerge3IsLineLevel(t *testing.T) {
	r := newRepo(t)
	ctx := context.Background()
	lines := func(edit map[int]string) string {
		var b strings.Builder
		for i := 1; i <= 12; i++ {
			if s, ok := edit[i]; ok {
				b.WriteString(s + "\n")
			} else {
				b.WriteString("line " + string(rune('a'+i)) + "\n")
			}
		}
		return b.String()
	}
	base := commit(t, r, "main", "base\n", create("f.txt", lines(nil)))
	ours := commit(t, r, "main", "ours\n", update("f.txt", lines(map[int]string{10: "ours ten"})))
	tree := func(c Oid) Oid { return mustCommit(t, r, c).Tree }
	theirsTree, err := r.ApplyActions(ctx, base, []Action{update("f.txt", lines(map[int]string{1: "theirs one"}))})
	if err != nil {
		t.Fatal(err)
	}
	merged, conflict, err := r.Merge3(ctx, tree(base), tree(ours), theirsTree)
	if err != nil || conflict {
		t.Fatalf("merge: %v conflict=%v", err, conflict)
	}
	out := gitOut(t, r, "cat-file", "-p", string(merged)+":f.txt")
	if out != lines(map[int]string{1: "theirs one", 10: "ours ten"}) {
		t.Fatalf("merged content:\n%s", out)
	}
	clash, err := r.ApplyActions(ctx, base, []Action{update("f.txt", lines(map[int]string{10: "theirs ten"}))})
	if err != nil {
		t.Fatal(err)
	}
	if _, conflict, err := r.Merge3(ctx, tree(base), tree(ours), clash); err != nil || !conflict {
		t.Fatalf("same lines changed: err=%v conflict=%v", err, conflict)
	}
}

func TestUpdateRefIsCompareAndSwap(t *testing.T) {
	r := newRepo(t)
	ctx := context.Background()
	c1 := commit(t, r, "main", "one\n", create("a", "1"))
	tree, _ := r.ApplyActions(ctx, c1, []Action{update("a", "2")})
	var wins, stale atomic.Int32
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			c, err := r.CommitTree(ctx, tree, []Oid{c1}, "racer "+string(rune('a'+i))+"\n", sig, sig)
			if err != nil {
				t.Error(err)
				return
			}
			switch err := r.UpdateRef(ctx, "refs/heads/main", c, c1); {
			case err == nil:
				wins.Add(1)
			case errors.Is(err, ErrStale):
				stale.Add(1)
			default:
				t.Error(err)
			}
		}(i)
	}
	wg.Wait()
	if wins.Load() != 1 || stale.Load() != 7 {
		t.Fatalf("wins=%d stale=%d, want 1 and 7", wins.Load(), stale.Load())
	}
	if err := r.UpdateRef(ctx, "refs/heads/main", c1, ZeroOid); !errors.Is(err, ErrExists) {
		t.Fatalf("creating an existing ref: %v", err)
	}
	// A ref is a file: refs/heads/main/x cannot exist beside refs/heads/main, nor the reverse.
	if err := r.UpdateRef(ctx, "refs/heads/main/x", c1, ZeroOid); !errors.Is(err, ErrRefClash) {
		t.Fatalf("a ref under a ref: %v", err)
	}
	if err := r.UpdateRef(ctx, "refs/heads/f/g/h", c1, ZeroOid); err != nil {
		t.Fatal(err)
	}
	for _, ref := range []string{"refs/heads/f", "refs/heads/f/g"} {
		if err := r.UpdateRef(ctx, ref, c1, ZeroOid); !errors.Is(err, ErrRefClash) {
			t.Fatalf("%s beside refs/heads/f/g/h: %v", ref, err)
		}
	}
	if err := r.UpdateRef(ctx, "refs/heads/f/g2", c1, ZeroOid); err != nil {
		t.Fatalf("a sibling: %v", err)
	}
}

func TestBlame(t *testing.T) {
	r := newRepo(t)
	ctx := context.Background()
	c1 := commit(t, r, "main", "one\n", create("f", "a\nb\nc\n"))
	c2 := commit(t, r, "main", "two\n", update("f", "a\nB\nc\n"))
	lines, err := r.Blame(ctx, c2, "f", 0, 0)
	if err != nil || len(lines) != 3 {
		t.Fatalf("blame = %v %v", lines, err)
	}
	want := []BlameLine{{c1, "a"}, {c2, "B"}, {c1, "c"}}
	for i := range want {
		if lines[i] != want[i] {
			t.Fatalf("line %d = %+v, want %+v", i, lines[i], want[i])
		}
	}
	lines, _ = r.Blame(ctx, c2, "f", 2, 3)
	if len(lines) != 2 || lines[0].Text != "B" {
		t.Fatalf("range blame = %+v", lines)
	}
}

func TestValidRefNameAgreesWithGit(t *testing.T) {
	if _, err := Check(); err != nil {
		t.Skip(err)
	}
	for _, name := range []string{"main", "feature/x", "a.b", "v1.0", "-x", "a..b", "a b", "a~", "a^", "a:b",
		"a?", "a*", "a[", "a\\b", "/a", "a/", "a//b", "a.", ".a", "a/.b", "a.lock", "a/b.lock", "a@{b",
		"a@b", "ü", "a\tb", "x/y/z"} {
		err := exec.Command("git", "check-ref-format", "--branch", name).Run()
		gitOK := err == nil && !strings.HasPrefix(name, "-")
		if got := ValidRefName(name); got != gitOK {
			t.Errorf("ValidRefName(%q) = %v, git says %v", name, got, gitOK)
		}
	}
}

func TestTagsAndRefs(t *testing.T) {
	r := newRepo(t)
	ctx := context.Background()
	c1 := commit(t, r, "main", "one\n", create("a", "1"))
	if err := r.CreateTag(ctx, "v1", c1, "release one", sig); err != nil {
		t.Fatal(err)
	}
	if err := r.CreateTag(ctx, "light", c1, "", sig); err != nil {
		t.Fatal(err)
	}
	if got, err := r.Resolve(ctx, "v1"); err != nil || got != c1 {
		t.Fatalf("resolve annotated tag: %s %v", got, err)
	}
	tags, err := r.Tags(ctx)
	if err != nil || len(tags) != 2 || tags[1].Name != "v1" || tags[1].Commit != c1 || tags[1].Message != "release one\n" || tags[0].Tagger != nil {
		t.Fatalf("tags = %+v %v", tags, err)
	}
	b, tg, err := r.RefsContaining(ctx, c1)
	if err != nil || strings.Join(b, ",") != "main" || strings.Join(tg, ",") != "light,v1" {
		t.Fatalf("refs containing = %v %v %v", b, tg, err)
	}
	if got, _ := r.Resolve(ctx, string(c1[:7])); got != c1 {
		t.Fatalf("short sha: %s", got)
	}
	if _, err := r.Resolve(ctx, "--all"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("option-like ref: %v", err)
	}
}

func TestLFSPointer(t *testing.T) {
	r := newRepo(t)
	p, err := r.StoreLFS([]byte("large content"))
	if err != nil {
		t.Fatal(err)
	}
	got, ok := ParseLFSPointer(p.Pointer())
	if !ok || got != p {
		t.Fatalf("pointer round trip: %+v %v", got, ok)
	}
	if b, err := r.LFSObject(got); err != nil || string(b) != "large content" {
		t.Fatalf("object = %q %v", b, err)
	}
	if _, err := r.LFSObject(LFSPointer{Oid: strings.Repeat("0", 64), Size: 1}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("missing object: %v", err)
	}
}

func TestTrailersAgreeWithGit(t *testing.T) {
	if _, err := Check(); err != nil {
		t.Skip(err)
	}
	for _, msg := range []string{
		"title\n\nbody\n\nSigned-off-by: A <a@x>\nReviewed-by: B\nSigned-off-by: C\n",
		"title only: not a trailer\n",
		"title\n\nKey: folded\n  value\n",
		"title\n\nnot a trailer line\nKey: v\n",
	} {
		cmd := exec.Command("git", "interpret-trailers", "--parse")
		cmd.Stdin = strings.NewReader(msg)
		cmd.Env = []string{"GIT_CONFIG_NOSYSTEM=1", "HOME=/nonexistent"}
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			if l != "" {
				want = append(want, l)
			}
		}
		var got []string
		for _, kv := range Trailers(msg) {
			got = append(got, kv[0]+": "+kv[1])
		}
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("%q: trailers %q, git says %q", msg, got, want)
		}
	}
}

// Resolve answers what git resolves to a commit beyond branch, tag and SHA,
// as the platform's Gitaly does (HEAD, ancestry, full ref names, short SHAs),
// and refuses what the platform refuses before asking git (':', white space).
func TestResolveRevisions(t *testing.T) {
	r := newRepo(t)
	ctx := context.Background()
	c1 := commit(t, r, "main", "one\n", create("a", "1"))
	c2 := commit(t, r, "main", "two\n", create("b", "2"))
	if err := r.CreateTag(ctx, "v1", c1, "release one", sig); err != nil {
		t.Fatal(err)
	}
	for rev, want := range map[string]Oid{"HEAD": c2, "main": c2, "HEAD~1": c1, "main^": c1, "refs/heads/main": c2,
		"v1^{}": c1, "refs/tags/v1": c1, string(c2[:5]): c2, strings.ToUpper(string(c2)): c2} {
		if got, err := r.Resolve(ctx, rev); err != nil || got != want {
			t.Errorf("Resolve(%q) = %s %v, want %s", rev, got, err, want)
		}
	}
	for _, rev := range []string{"main:a", "HEAD~9", "HEAD ", "main\tx", "-p", "nothing", "HEAD~1\x00", string(c2[:3])} {
		if got, err := r.Resolve(ctx, rev); !errors.Is(err, ErrNotFound) {
			t.Errorf("Resolve(%q) = %s %v, want not found", rev, got, err)
		}
	}
}
