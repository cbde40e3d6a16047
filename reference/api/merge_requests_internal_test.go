package api

import (
	"strings"
	"testing"

	"v4cert/reference/git"
)

func TestParseDuration(t *testing.T) {
	for in, want := range map[string]int{
		"3h30m": 12600, "1w2d": 56 * 3600, "1w 2d": 56 * 3600, "1d 4h": 12 * 3600, "90m": 5400, "1.5h": 5400,
		"2": 7200, "1mo": 160 * 3600, "45s": 45, "2 hours 5 minutes": 7500, "-1h": -3600, "1H": 3600,
	} {
		got, ok := parseDuration(in)
		if !ok || got != want {
			t.Errorf("parseDuration(%q) = %d %v, want %d", in, got, ok, want)
		}
	}
	for _, in := range []string{"", "soon", "3x", "h3", "1h-", "--1h", "1hh"} {
		if got, ok := parseDuration(in); ok {
			t.Errorf("parseDuration(%q) = %d, want a refusal", in, got)
		}
	}
}

func TestHumanDuration(t *testing.T) {
	for secs, want := range map[int]string{12600: "3h 30m", 56 * 3600: "1w 2d", 160*3600 + 61: "1mo 1m 1s", 59: "59s"} {
		if got := humanDuration(secs); got == nil || *got != want {
			t.Errorf("humanDuration(%d) = %v, want %q", secs, got, want)
		}
	}
	if humanDuration(0) != nil {
		t.Error("no time is null")
	}
}

func TestLimitDiff(t *testing.T) {
	files := make([]mrFile, diffMaxFiles+5)
	kept, over := limitDiff(files, false)
	if len(kept) != diffMaxFiles || !over {
		t.Fatalf("files limit: %d %v", len(kept), over)
	}
	if kept, over := limitDiff(files, true); len(kept) != len(files) || over {
		t.Fatalf("raw diffs have no limit: %d %v", len(kept), over)
	}
	lines := []mrFile{{Lines: diffMaxLines - 10}, {Lines: 10}, {Lines: 1}}
	if kept, over := limitDiff(lines, false); len(kept) != 2 || !over {
		t.Fatalf("lines limit: %d %v", len(kept), over)
	}
	big := mrFile{FileDiff: git.FileDiff{Patch: strings.Repeat("+x\n", diffMaxPatchBytes/3+1)}}
	if j := big.json(); !j.TooLarge || j.Diff != "" {
		t.Fatalf("a patch past %d bytes is too_large and empty", diffMaxPatchBytes)
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
