package repository_test

import (
	"testing"

	"github.com/v4cert/v4cert/reference/workflow/workflowtest"
)

// TestReadmeFollowsTheBranch: the README a branch shows is cached against
// its refs, and every way a ref moves (a commit, a ref update outside the
// commit workflows, as a merge makes) is seen at once.
func TestReadmeFollowsTheBranch(t *testing.T) {
	workflowtest.Run(t, false, func(t *testing.T, w *workflowtest.World) {
		ctx := t.Context()
		tg := w.Target(t)
		name := func(branch string) string {
			t.Helper()
			n, err := w.Repos.ReadmeName(ctx, w.Project.ID, branch)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
		if got := name("main"); got != "" {
			t.Fatalf("an empty repository shows README %q", got)
		}
		plain, err := w.Repos.Commit(ctx, tg, commitReq(w, "main", file("create", "README", "plain\n"), file("create", "readme.zip", "x")))
		if err != nil {
			t.Fatal(err)
		}
		if got := name("main"); got != "README" {
			t.Fatalf("after a plain README: %q", got)
		}
		if got := name("main"); got != "README" { // the cached answer
			t.Fatalf("read again: %q", got)
		}
		marked, err := w.Repos.Commit(ctx, tg, commitReq(w, "main", file("create", "README.md", "# md\n")))
		if err != nil {
			t.Fatal(err)
		}
		if got := name("main"); got != "README.md" {
			t.Fatalf("a markup README comes first: %q", got)
		}
		// A ref moved by git's update-ref directly (what a merge does).
		if err := tg.Repo.UpdateRef(ctx, "refs/heads/main", plain.ID, marked.ID); err != nil {
			t.Fatal(err)
		}
		if got := name("main"); got != "README" {
			t.Fatalf("after the branch moved back: %q", got)
		}
		if got := name("no-such-branch"); got != "" {
			t.Fatalf("a missing branch shows %q", got)
		}
	})
}
