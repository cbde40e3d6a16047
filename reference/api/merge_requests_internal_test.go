package api

import (
	"strings"
	"testing"

	"github.com/v4cert/v4cert/reference/workflow/mergerequests"
	"github.com/v4cert/v4cert/reference/workflow/repository"
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

// TestDiffTooLarge: a patch past the per-file limit is shown empty with
// too_large (the limits themselves are the merge-request workflow's,
// reference/workflow/mergerequests).
func TestDiffTooLarge(t *testing.T) {
	big := mrFile{FileDiff: repository.FileDiff{Patch: strings.Repeat("+x\n", mergerequests.MaxPatchBytes/3+1)}}
	if j := diffJSON(big); !j.TooLarge || j.Diff != "" {
		t.Fatalf("a patch past %d bytes is too_large and empty", mergerequests.MaxPatchBytes)
	}
}
