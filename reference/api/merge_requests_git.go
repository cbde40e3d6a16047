package api

import "github.com/v4cert/v4cert/reference/workflow/mergerequests"

// mrFile is one changed file of a merge request diff (the merge-request
// workflow computes them, reference/workflow/mergerequests).
type mrFile = mergerequests.File

// mergeNotAllowed is the platform's 405 for a merge request that cannot merge
// now (not open, a draft, blocked); one that conflicts or needs a rebase, or
// a merge that fails while writing, is 422, and a failed sha guard 409.
func mergeNotAllowed() *Error { return methodNotAllowed("") }

// ForgetMergeRequestDiffs empties the caches of diffs and mergeability
// checks, so benchmarks can measure the path a first read takes.
func (s *Server) ForgetMergeRequestDiffs() { s.mr.Forget() }

// MRDiffJSON is a diff entry of merge request diffs, changes and versions:
// the commit diff entry plus generated_file, collapsed and too_large.
type MRDiffJSON struct {
	OldPath       string `json:"old_path"`
	NewPath       string `json:"new_path"`
	AMode         string `json:"a_mode"`
	BMode         string `json:"b_mode"`
	Diff          string `json:"diff"`
	NewFile       bool   `json:"new_file"`
	RenamedFile   bool   `json:"renamed_file"`
	DeletedFile   bool   `json:"deleted_file"`
	GeneratedFile bool   `json:"generated_file"`
	Collapsed     bool   `json:"collapsed"`
	TooLarge      bool   `json:"too_large"`
}

func diffJSON(f mrFile) MRDiffJSON {
	j := MRDiffJSON{OldPath: f.OldPath, NewPath: f.NewPath, AMode: gitMode(f.AMode), BMode: gitMode(f.BMode), Diff: f.Patch,
		NewFile: f.NewFile, RenamedFile: f.Renamed, DeletedFile: f.Deleted, GeneratedFile: f.Generated}
	if len(f.Patch) > mergerequests.MaxPatchBytes {
		j.Diff, j.TooLarge = "", true
	}
	return j
}
