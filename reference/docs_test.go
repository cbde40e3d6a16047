package reference

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// TestCIExamplesAreValid: every example of docs/ci.md is YAML; the GitHub
// Actions workflow and the GitLab CI job of the fake-server section start the
// reference with a seed file, wait for readiness, reset between test groups
// and keep the reports; those of the certify section shard and merge.
func TestCIExamplesAreValid(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "ci.md"))
	if err != nil {
		t.Fatal(err)
	}
	fake, certify, ok := strings.Cut(string(doc), "\n## Certifying")
	if !ok {
		t.Fatal("docs/ci.md has no certify section")
	}
	for _, sec := range []struct {
		name, text string
		want       []string
	}{
		{"fake server", fake, []string{"serve --addr", "--seed-file", "/-/readiness", "-X POST", "/-/reset", "reports/"}},
		{"certify", certify, []string{"certify", "--shard", "report merge"}},
	} {
		blocks := strings.Split(sec.text, "```yaml\n")[1:]
		if len(blocks) != 2 {
			t.Fatalf("the %s section of docs/ci.md has %d yaml examples, want 2", sec.name, len(blocks))
		}
		for i, b := range blocks {
			b, _, _ = strings.Cut(b, "```")
			var v map[string]any
			if err := yaml.Unmarshal([]byte(b), &v); err != nil {
				t.Errorf("%s example %d is not YAML: %v", sec.name, i+1, err)
			}
			for _, want := range sec.want {
				if !strings.Contains(b, want) {
					t.Errorf("%s example %d lacks %q", sec.name, i+1, want)
				}
			}
		}
	}
}
