package api_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/v4cert/v4cert/reference/git"
	"github.com/v4cert/v4cert/reference/store"
)

// seedMergeRequests stores n merge requests of project id straight into the
// store (through the store's own CreateMergeRequest, with one real version
// reused), so the list benchmarks measure listing, not provisioning. Every
// second one carries the label bug, every third the milestone v1, every
// fifth is closed.
func seedMergeRequests(b *testing.B, br *benchRepo, n int) {
	b.Helper()
	br.a.must(201, "POST", fmt.Sprintf("/projects/%d/repository/branches", br.id), map[string]any{"branch": "seed", "ref": "main"})
	br.a.must(201, "POST", fmt.Sprintf("/projects/%d/repository/commits", br.id), map[string]any{"branch": "seed", "commit_message": "seed",
		"actions": []map[string]any{{"action": "create", "file_path": "seed.txt", "content": "seed\n"}}})
	first := br.a.must(201, "POST", fmt.Sprintf("/projects/%d/merge_requests", br.id), map[string]any{"source_branch": "seed",
		"target_branch": "main", "title": "seed", "labels": "bug"})
	ms := br.a.must(201, "POST", fmt.Sprintf("/projects/%d/milestones", br.id), map[string]any{"title": "v1"})
	msID := int(ms["id"].(float64))
	err := br.a.inst.Server.Store().Write(func(d *store.Data) error {
		p := d.Project(br.id)
		root := d.UserByUsername("root")
		tmpl := d.MergeRequestByIID(br.id, int(first["iid"].(float64)))
		for i := 1; i < n; i++ {
			f := store.MRFields{Title: ptr(fmt.Sprintf("Change %05d", i)), SourceBranch: ptr(fmt.Sprintf("b%d", i)),
				TargetBranch: ptr("main"), Description: ptr("seeded")}
			if i%2 == 0 {
				f.Labels, f.LabelsGiven = []string{"bug"}, true
			}
			if i%3 == 0 {
				f.MilestoneID = &msID
			}
			v := *tmpl.Latest()
			mr, err := d.CreateMergeRequest(p, root, f, &v, tmpl.Check)
			if err != nil {
				return err
			}
			if i%5 == 0 {
				mr.State = store.MRClosed
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
}

func ptr[T any](v T) *T { return &v }

// BenchmarkMergeRequestList is GET /projects/:id/merge_requests over 1,000
// and 10,000 merge requests: unfiltered (the plain read) against three
// filters (state, labels, milestone), first and last page of 20.
func BenchmarkMergeRequestList(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		br := newBenchRepo(b)
		seedMergeRequests(b, br, n)
		base := fmt.Sprintf("/projects/%d/merge_requests?per_page=20", br.id)
		filters := "&state=opened&labels=bug&milestone=v1"
		// opened, labelled and in v1: i%2 == 0, i%3 == 0, i%5 != 0 (and the template).
		matching := 1
		for i := 1; i < n; i++ {
			if i%6 == 0 && i%5 != 0 {
				matching++
			}
		}
		lastAll, lastFiltered := (n+19)/20, (matching+19)/20
		for _, c := range []struct{ name, query string }{
			{"unfiltered/first", ""},
			{"unfiltered/last", fmt.Sprintf("&page=%d", lastAll)},
			{"filtered/first", filters},
			{"filtered/last", filters + fmt.Sprintf("&page=%d", lastFiltered)},
		} {
			b.Run(fmt.Sprintf("n=%d/%s", n, c.name), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					br.serve(b, "GET", base+c.query, nil, 200)
				}
			})
		}
	}
}

// BenchmarkMergeRequestGet is GET .../merge_requests/:merge_request_iid
// (the single form) against GET /projects/:id, a plain read of the same
// project, over a project with 1,000 merge requests.
func BenchmarkMergeRequestGet(b *testing.B) {
	br := newBenchRepo(b)
	seedMergeRequests(b, br, 1000)
	b.Run("merge_request", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			br.serve(b, "GET", fmt.Sprintf("/projects/%d/merge_requests/500", br.id), nil, 200)
		}
	})
	b.Run("project", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			br.serve(b, "GET", fmt.Sprintf("/projects/%d", br.id), nil, 200)
		}
	})
}

// BenchmarkMergeRequestDiffs200 is GET .../diffs (per_page=100) of a merge
// request touching 200 files, with its diff first computed (cold) and
// cached (warm), against the floor: git's diff of the same two commits.
func BenchmarkMergeRequestDiffs200(b *testing.B) {
	br := newBenchRepo(b)
	p := fmt.Sprintf("/projects/%d", br.id)
	br.a.must(201, "POST", p+"/repository/branches", map[string]any{"branch": "wide", "ref": "main"})
	actions := make([]map[string]any, 0, 200)
	for i := 0; i < 200; i++ {
		actions = append(actions, map[string]any{"action": "create", "file_path": fmt.Sprintf("src/f%03d.go", i),
			"content": fmt.Sprintf("package src\n\n// F%d is file %d.\nfunc F%d() int { return %d }\n", i, i, i, i)})
	}
	br.a.must(201, "POST", p+"/repository/commits", map[string]any{"branch": "wide", "commit_message": "200 files", "actions": actions})
	mr := br.a.must(201, "POST", p+"/merge_requests", map[string]any{"source_branch": "wide", "target_branch": "main", "title": "Wide"})
	refs := mr["diff_refs"].(map[string]any)
	from, to := git.Oid(refs["base_sha"].(string)), git.Oid(refs["head_sha"].(string))
	path := fmt.Sprintf("%s/merge_requests/%v/diffs?per_page=100", p, mr["iid"])
	b.Run("api-cold", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			br.a.inst.Server.ForgetMergeRequestDiffs()
			br.serve(b, "GET", path, nil, 200)
		}
	})
	b.Run("api-warm", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			br.serve(b, "GET", path, nil, 200)
		}
	})
	b.Run("floor-git-diff", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := br.repo.DiffCommits(context.Background(), from, to, false); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkMergeRequestVersion is a commit through POST .../repository/commits
// to the source branch of an open merge request, which makes a new version
// (merge base, commits, diff, patch ID, mergeability), against the same
// commit to a branch no merge request uses.
func BenchmarkMergeRequestVersion(b *testing.B) {
	br := newBenchRepo(b)
	p := fmt.Sprintf("/projects/%d", br.id)
	for _, branch := range []string{"with-mr", "plain"} {
		br.a.must(201, "POST", p+"/repository/branches", map[string]any{"branch": branch, "ref": "main"})
		br.a.must(201, "POST", p+"/repository/commits", map[string]any{"branch": branch, "commit_message": "start",
			"actions": []map[string]any{{"action": "create", "file_path": branch + ".txt", "content": "0\n"}}})
	}
	br.a.must(201, "POST", p+"/merge_requests", map[string]any{"source_branch": "with-mr", "target_branch": "main", "title": "Versions"})
	for _, branch := range []string{"with-mr", "plain"} {
		b.Run(branch, func(b *testing.B) {
			i := 0
			b.ReportAllocs()
			for b.Loop() {
				i++
				br.serve(b, "POST", p+"/repository/commits", map[string]any{"branch": branch, "commit_message": fmt.Sprintf("push %d", i),
					"actions": []map[string]any{{"action": "update", "file_path": branch + ".txt", "content": fmt.Sprintf("%d\n", i)}}}, 201)
			}
		})
	}
}
