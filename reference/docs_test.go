package reference

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// TestCIExamplesAreValid: the GitHub Actions workflow and the GitLab CI job
// of docs/ci.md are YAML, and each starts the reference with a seed file,
// waits for readiness, resets between test groups and keeps the reports.
func TestCIExamplesAreValid(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "ci.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := strings.Split(string(doc), "```yaml\n")[1:]
	if len(blocks) != 2 {
		t.Fatalf("docs/ci.md has %d yaml examples, want 2", len(blocks))
	}
	for i, b := range blocks {
		b, _, _ = strings.Cut(b, "```")
		var v map[string]any
		if err := yaml.Unmarshal([]byte(b), &v); err != nil {
			t.Errorf("example %d is not YAML: %v", i+1, err)
		}
		for _, want := range []string{"serve --addr", "--seed-file", "/-/readiness", "-X POST", "/-/reset", "reports/"} {
			if !strings.Contains(b, want) {
				t.Errorf("example %d lacks %q", i+1, want)
			}
		}
	}
}
