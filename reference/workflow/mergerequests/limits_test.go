package mergerequests

import "testing"

func TestLimitDiff(t *testing.T) {
	files := make([]File, MaxFiles+5)
	kept, over := LimitDiff(files, false)
	if len(kept) != MaxFiles || !over {
		t.Fatalf("files limit: %d %v", len(kept), over)
	}
	if kept, over := LimitDiff(files, true); len(kept) != len(files) || over {
		t.Fatalf("raw diffs have no limit: %d %v", len(kept), over)
	}
	lines := []File{{Lines: MaxLines - 10}, {Lines: 10}, {Lines: 1}}
	if kept, over := LimitDiff(lines, false); len(kept) != 2 || !over {
		t.Fatalf("lines limit: %d %v", len(kept), over)
	}
}

func TestGeneratedByName(t *testing.T) {
	for p, want := range map[string]bool{"web/package-lock.json": true, "a/b/app.min.js": true, "api.pb.go": true,
		"go.sum": true, "main.go": false, "package.json": false, "min.js.txt": false} {
		if got := generatedByName(p); got != want {
			t.Errorf("generatedByName(%q) = %v", p, got)
		}
	}
}
