package git

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// branchAt creates branch at commit.
func branchAt(t testing.TB, r *Repo, branch string, at Oid) {
	t.Helper()
	if err := r.UpdateRef(context.Background(), "refs/heads/"+branch, at, ZeroOid); err != nil {
		t.Fatal(err)
	}
}

func TestMergeBaseAncestryAndRange(t *testing.T) {
	r := newRepo(t)
	ctx := context.Background()
	base := commit(t, r, "main", "base\n", create("a.txt", "1\n2\n3\n"))
	branchAt(t, r, "topic", base)
	t1 := commit(t, r, "topic", "t1\n", create("t.txt", "t\n"))
	t2 := commit(t, r, "topic", "t2\n", update("t.txt", "tt\n"))
	m1 := commit(t, r, "main", "m1\n", create("m.txt", "m\n"))

	if mb, err := r.MergeBase(ctx, t2, m1); err != nil || mb != base {
		t.Fatalf("merge-base = %s %v, want %s", mb, err, base)
	}
	if ok, err := r.IsAncestor(ctx, base, t2); err != nil || !ok {
		t.Fatalf("base is an ancestor of t2: %v %v", ok, err)
	}
	if ok, err := r.IsAncestor(ctx, m1, t2); err != nil || ok {
		t.Fatalf("m1 is not an ancestor of t2: %v %v", ok, err)
	}
	got, err := r.Range(ctx, base, t2)
	if err != nil || len(got) != 2 || got[0] != t2 || got[1] != t1 {
		t.Fatalf("range = %v %v", got, err)
	}
	if n, err := r.CountRange(ctx, t2, m1); err != nil || n != 1 {
		t.Fatalf("diverged = %d %v, want 1", n, err)
	}
	diff, err := r.DiffCommits(ctx, base, t2, false)
	if err != nil || len(diff) != 1 || diff[0].NewPath != "t.txt" || !diff[0].NewFile || !strings.Contains(diff[0].Patch, "+tt") {
		t.Fatalf("diff = %+v %v", diff, err)
	}
}

func TestMergeCommitsConflictsAndPatchID(t *testing.T) {
	r := newRepo(t)
	ctx := context.Background()
	base := commit(t, r, "main", "base\n", create("a.txt", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n"))
	branchAt(t, r, "ok", base)
	branchAt(t, r, "clash", base)
	ok := commit(t, r, "ok", "ok\n", update("a.txt", "one\n2\n3\n4\n5\n6\n7\n8\n9\n10\n"))
	clash := commit(t, r, "clash", "clash\n", update("a.txt", "1\n2\n3\n4\n5\n6\n7\n8\n9\nTEN\n"))
	main := commit(t, r, "main", "main\n", update("a.txt", "1\n2\n3\n4\n5\n6\n7\n8\n9\nten\n"))

	tree, conflict, _, err := r.MergeCommits(ctx, main, ok)
	if err != nil || conflict {
		t.Fatalf("clean merge: %v %v", conflict, err)
	}
	merged, err := r.CommitTree(ctx, tree, []Oid{main, ok}, "Merge\n", sig, sig)
	if err != nil {
		t.Fatal(err)
	}
	e, _ := r.Lookup(ctx, merged, "a.txt")
	if b, _ := r.Blob(ctx, e.ID); string(b) != "one\n2\n3\n4\n5\n6\n7\n8\n9\nten\n" {
		t.Fatalf("merged content %q keeps both changes", b)
	}
	_, conflict, paths, err := r.MergeCommits(ctx, main, clash)
	if err != nil || !conflict || len(paths) != 1 || paths[0] != "a.txt" {
		t.Fatalf("conflicting merge: %v %v %v", conflict, paths, err)
	}

	// The same change on two bases has one patch ID.
	branchAt(t, r, "again", main)
	again := commit(t, r, "again", "again\n", create("n.txt", "new\n"))
	twin := commit(t, r, "ok", "twin\n", create("n.txt", "new\n"))
	p1, err1 := r.PatchID(ctx, main, again)
	p2, err2 := r.PatchID(ctx, ok, twin)
	if err1 != nil || err2 != nil || p1 == "" || p1 != p2 {
		t.Fatalf("patch ids %q %q (%v %v)", p1, p2, err1, err2)
	}
	if p, err := r.PatchID(ctx, main, main); err != nil || p != "" {
		t.Fatalf("empty change patch id %q %v", p, err)
	}
	if out, err := r.Git(ctx, nil, "fsck", "--strict", "--no-dangling"); err != nil || strings.TrimSpace(string(out)) != "" {
		t.Fatalf("git fsck: %s %v", out, err)
	}
}

func TestDeleteRefIsCompareAndSwap(t *testing.T) {
	r := newRepo(t)
	ctx := context.Background()
	c1 := commit(t, r, "main", "one\n", create("a", "1"))
	branchAt(t, r, "gone", c1)
	c2 := commit(t, r, "gone", "two\n", create("b", "2"))
	if err := r.DeleteRef(ctx, "refs/heads/gone", c1); !errors.Is(err, ErrStale) {
		t.Fatalf("delete at a stale value: %v", err)
	}
	if err := r.DeleteRef(ctx, "refs/heads/gone", c2); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Branch(ctx, "gone"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("branch still there: %v", err)
	}
}

func TestAttributeFromTheCommitsTree(t *testing.T) {
	r := newRepo(t)
	ctx := context.Background()
	c := commit(t, r, "main", "attrs\n", create(".gitattributes", "*.pb.go gitlab-generated\nkeep.pb.go -gitlab-generated\n"),
		create("a.pb.go", "x"), create("keep.pb.go", "y"), create("b.go", "z"))
	got, err := r.Attribute(ctx, c, "gitlab-generated", []string{"a.pb.go", "keep.pb.go", "b.go"})
	if err != nil || got["a.pb.go"] != "set" || got["keep.pb.go"] != "unset" || got["b.go"] != "unspecified" {
		t.Fatalf("attributes = %v %v", got, err)
	}
}
