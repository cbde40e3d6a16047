package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/v4cert/v4cert/reference/git"
)

// benchRepo is a project with an initialised repository, served in-process.
type benchRepo struct {
	a    *apiClient
	id   int
	repo *git.Repo
}

func newBenchRepo(b *testing.B) *benchRepo {
	b.Helper()
	a := newAPI(b)
	id, r := a.project("bench")
	return &benchRepo{a: a, id: id, repo: r}
}

// serve runs one request through the handler alone (no network), as the
// other reference benchmarks do.
func (br *benchRepo) serve(b *testing.B, method, path string, body any, want int) *httptest.ResponseRecorder {
	var rd *bytes.Reader
	if body != nil {
		data, _ := json.Marshal(body)
		rd = bytes.NewReader(data)
	} else {
		rd = bytes.NewReader(nil)
	}
	req := httptest.NewRequest(method, "/api/v4"+path, rd)
	req.Header.Set("PRIVATE-TOKEN", repoRootToken)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	w := httptest.NewRecorder()
	br.a.inst.Server.ServeHTTP(w, req)
	if w.Code != want {
		b.Fatalf("%s %s: %d %s", method, path, w.Code, w.Body.String())
	}
	return w
}

// fastImport appends commits to main in one git fast-import process; each
// commit sets the files edit returns for it.
func (br *benchRepo) fastImport(b *testing.B, n int, edit func(i int) map[string]string) {
	b.Helper()
	ctx := context.Background()
	head, err := br.repo.Branch(ctx, "main")
	if err != nil {
		b.Fatal(err)
	}
	var s strings.Builder
	for i := 0; i < n; i++ {
		when := 1767225600 + i
		msg := fmt.Sprintf("commit %d", i)
		fmt.Fprintf(&s, "commit refs/heads/main\nauthor Bench <bench@example.com> %d +0000\ncommitter Bench <bench@example.com> %d +0000\ndata %d\n%s\n", when, when, len(msg), msg)
		if i == 0 {
			fmt.Fprintf(&s, "from %s\n", head)
		}
		for path, content := range edit(i) {
			fmt.Fprintf(&s, "M 100644 inline %s\ndata %d\n%s\n", path, len(content), content)
		}
	}
	if _, err := br.repo.Git(ctx, strings.NewReader(s.String()), "fast-import", "--quiet", "--force"); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkFileRead is GET .../files/:file_path (JSON, Base64 content) for a
// small and a 1 MB file, with the floor beside it: the same blob read
// straight through the git layer (the long-lived cat-file --batch).
func BenchmarkFileRead(b *testing.B) {
	br := newBenchRepo(b)
	large := strings.Repeat("0123456789abcdef", 1<<16) // 1 MiB
	br.a.must(201, "POST", fmt.Sprintf("/projects/%d/repository/commits", br.id), map[string]any{"branch": "main", "commit_message": "files",
		"actions": []map[string]any{{"action": "create", "file_path": "small.txt", "content": "hello, world\n"},
			{"action": "create", "file_path": "large.bin", "content": large}}})
	ctx := context.Background()
	head, _ := br.repo.Branch(ctx, "main")
	for _, f := range []struct{ name, path string }{{"small", "small.txt"}, {"1MB", "large.bin"}} {
		e, err := br.repo.Lookup(ctx, head, f.path)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(f.name+"/api", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				br.serve(b, "GET", fmt.Sprintf("/projects/%d/repository/files/%s?ref=main", br.id, f.path), nil, 200)
			}
		})
		b.Run(f.name+"/raw", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				br.serve(b, "GET", fmt.Sprintf("/projects/%d/repository/files/%s/raw?ref=main", br.id, f.path), nil, 200)
			}
		})
		b.Run(f.name+"/floor-blob", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := br.repo.Blob(ctx, e.ID); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkCommit10Actions is POST .../repository/commits with ten actions.
func BenchmarkCommit10Actions(b *testing.B) {
	br := newBenchRepo(b)
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		var actions []map[string]any
		for j := 0; j < 10; j++ {
			actions = append(actions, map[string]any{"action": "create", "file_path": fmt.Sprintf("d%d/f%d.txt", i, j), "content": fmt.Sprintf("file %d %d\n", i, j)})
		}
		br.serve(b, "POST", fmt.Sprintf("/projects/%d/repository/commits", br.id), map[string]any{"branch": "main", "commit_message": fmt.Sprintf("ten %d", i), "actions": actions}, 201)
		i++
	}
}

// BenchmarkListCommits1000 is the first page of GET .../repository/commits
// on a 1,000-commit history.
func BenchmarkListCommits1000(b *testing.B) {
	br := newBenchRepo(b)
	br.fastImport(b, 1000, func(i int) map[string]string {
		return map[string]string{fmt.Sprintf("f%d.txt", i%50): fmt.Sprintf("%d\n", i)}
	})
	b.ReportAllocs()
	for b.Loop() {
		br.serve(b, "GET", fmt.Sprintf("/projects/%d/repository/commits", br.id), nil, 200)
	}
}

// BenchmarkBlame1000Lines is blame of a 1,000-line file touched by 100 commits.
func BenchmarkBlame1000Lines(b *testing.B) {
	br := newBenchRepo(b)
	lines := make([]string, 1000)
	for i := range lines {
		lines[i] = fmt.Sprintf("line %d", i)
	}
	br.fastImport(b, 100, func(i int) map[string]string {
		for j := 0; j < 10; j++ { // each commit rewrites 10 lines spread over the file
			lines[(j*100+i*7)%1000] = fmt.Sprintf("line %d edited by commit %d", (j*100+i*7)%1000, i)
		}
		return map[string]string{"blame.txt": strings.Join(lines, "\n") + "\n"}
	})
	w := br.serve(b, "GET", fmt.Sprintf("/projects/%d/repository/files/blame.txt/blame?ref=main", br.id), nil, 200)
	var ranges []map[string]any
	json.Unmarshal(w.Body.Bytes(), &ranges)
	b.ReportMetric(float64(len(ranges)), "ranges")
	b.ReportAllocs()
	for b.Loop() {
		br.serve(b, "GET", fmt.Sprintf("/projects/%d/repository/files/blame.txt/blame?ref=main", br.id), nil, http.StatusOK)
	}
}

// BenchmarkCreateProject is POST /projects with and without a README commit:
// what a repository adds to provisioning.
func BenchmarkCreateProject(b *testing.B) {
	br := newBenchRepo(b)
	for _, readme := range []bool{false, true} {
		b.Run(fmt.Sprintf("readme=%v", readme), func(b *testing.B) {
			i := 0
			for b.Loop() {
				br.serve(b, "POST", "/projects", map[string]any{"name": fmt.Sprintf("p-%v-%d", readme, i), "initialize_with_readme": readme}, 201)
				i++
			}
		})
	}
}
