package api_test

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestHTTPLayerImportsNoGit: the API translates HTTP and calls workflows
// (reference/workflow/...); git is reached only through them (issue 22), so
// a handler that needs a repository asks its workflow, and the suites, in a
// folder of their own, import nothing of the reference.
func TestHTTPLayerImportsNoGit(t *testing.T) {
	for _, c := range []struct{ dir, forbidden string }{
		{".", "github.com/v4cert/v4cert/reference/git"},
		{"../../suites", "github.com/v4cert/v4cert/reference"},
	} {
		files, err := filepath.Glob(filepath.Join(c.dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no Go files in %s: %v", c.dir, err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			file, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range file.Imports {
				p, _ := strconv.Unquote(imp.Path.Value)
				if p == c.forbidden || strings.HasPrefix(p, c.forbidden+"/") {
					t.Errorf("%s imports %s", f, p)
				}
			}
		}
	}
}
