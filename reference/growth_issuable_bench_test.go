package reference_test

import (
	"fmt"
	"testing"

	"github.com/v4cert/v4cert/reference"
	"github.com/v4cert/v4cert/reference/store"
)

// growthMRs are the sizes of the issuable worlds: merge requests (and as
// many issues) in one project.
var growthMRs = []int{1000, 10000}

// issuableGrowth is BenchmarkListGrowth's cases for the issue and merge
// request lists (issue 21): the project's merge requests, GET
// /merge_requests (scope=all, as an administrator) and the project's issues,
// first and last page of 20 unfiltered in the default order, updated_at
// ascending, and one filter (state=opened) whose page still counts every
// match for X-Total.
func issuableGrowth(b *testing.B) {
	insts := make([]*reference.Instance, len(growthMRs))
	pids := make([]int, len(growthMRs))
	for i, n := range growthMRs {
		insts[i], pids[i] = issuableWorld(b, n)
	}
	cases := []struct {
		name string
		path func(pid int) string
		last bool
	}{
		{"mrs/page1", func(pid int) string { return fmt.Sprintf("/api/v4/projects/%d/merge_requests?per_page=20", pid) }, false},
		{"mrs/offset-last", func(pid int) string { return fmt.Sprintf("/api/v4/projects/%d/merge_requests?per_page=20", pid) }, true},
		{"mrs/updated-asc-last", func(pid int) string {
			return fmt.Sprintf("/api/v4/projects/%d/merge_requests?per_page=20&order_by=updated_at&sort=asc", pid)
		}, true},
		{"mrs/opened-page1", func(pid int) string {
			return fmt.Sprintf("/api/v4/projects/%d/merge_requests?per_page=20&state=opened", pid)
		}, false},
		{"mrs-global/page1", func(int) string { return "/api/v4/merge_requests?scope=all&per_page=20" }, false},
		{"mrs-global/offset-last", func(int) string { return "/api/v4/merge_requests?scope=all&per_page=20" }, true},
		{"issues/page1", func(pid int) string { return fmt.Sprintf("/api/v4/projects/%d/issues?per_page=20", pid) }, false},
		{"issues/offset-last", func(pid int) string { return fmt.Sprintf("/api/v4/projects/%d/issues?per_page=20", pid) }, true},
	}
	for _, c := range cases {
		targets := make([]string, len(insts))
		for i, n := range growthMRs {
			targets[i] = c.path(pids[i])
			if c.last {
				targets[i] += fmt.Sprintf("&page=%d", n/20)
			}
		}
		b.Run(c.name, func(b *testing.B) { growth(b, insts, targets, growthMRs) })
	}
}

// issuableWorld builds a reference with one project of n merge requests
// and n issues, created straight in the store (one version each, with
// made-up commit names: the lists render them, nothing reads git), and
// answers the project's id. Every fifth merge request is closed.
func issuableWorld(b *testing.B, n int) (*reference.Instance, int) {
	b.Helper()
	inst, err := reference.New(reference.Config{RootToken: benchToken, Seed: "none", FixedClock: true})
	if err != nil {
		b.Fatal(err)
	}
	var pid int
	err = inst.Server.Store().Write(func(d *store.Data) error {
		root := d.User(1)
		name := "bench-issuables"
		p, err := d.CreateProject(root, store.ProjectFields{Name: &name})
		if err != nil {
			return err
		}
		pid = p.ID
		sha := func(i, k int) string { return fmt.Sprintf("%032x%08x", i, k) }
		for i := 0; i < n; i++ {
			title, src, tgt := fmt.Sprintf("Change %05d", i), fmt.Sprintf("b%d", i), "main"
			v := &store.MRVersion{HeadSHA: sha(i, 1), BaseSHA: sha(i, 2), StartSHA: sha(i, 2), State: "collected",
				RealSize: "1", Commits: []string{sha(i, 1)}}
			mr, err := d.CreateMergeRequest(p, root, store.MRFields{Title: &title, SourceBranch: &src, TargetBranch: &tgt},
				v, store.MergeCheck{Source: sha(i, 1), Target: sha(i, 2), Status: "can_be_merged"})
			if err != nil {
				return err
			}
			if i%5 == 0 {
				mr.State = store.MRClosed
			}
			d.CreateIssue(p, root, fmt.Sprintf("Issue %05d", i), "seeded", false)
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return inst, pid
}
