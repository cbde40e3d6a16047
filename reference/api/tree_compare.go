package api

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/v4cert/v4cert/reference/workflow/mergerequests"
	"github.com/v4cert/v4cert/reference/workflow/repository"
)

// The repository tree and compare (provisioning, issue 18), read from git as
// the platform's lib/api/repositories.rb answers them: GET .../tree with the
// Repositories::TreeFinder and Gitlab::Pagination::GitalyKeysetPager, GET
// .../compare with CompareService and Entities::Compare.

// TreeEntryJSON is the platform's Entities::TreeObject.
type TreeEntryJSON struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Type string `json:"type"`
	Path string `json:"path"`
	Mode string `json:"mode"`
}

// repositoryTree implements GET /projects/:id/repository/tree
// (provisioning): the entries of path (the root when absent) at ref (the
// default branch when absent), recursively when asked, trees first, then
// blobs, then submodules, each in git's order (Tree#sorted_entries; Gitaly's
// TREES_FIRST). pagination=legacy (the default) pages by offset;
// pagination=keyset pages after page_token, the id of the last entry of the
// page before, and links the next page by Link rel="next" alone. An unknown
// ref or path answers "404 Tree Not Found".
func (s *Server) repositoryTree(c *Ctx) error {
	in := c.In()
	ref, path := in.StringOr("ref", ""), strings.Trim(in.StringOr("path", ""), "/")
	recursive := in.BoolOr("recursive", false)
	mode := in.StringOr("pagination", "legacy")
	token := in.StringOr("page_token", "")
	if err := in.Err(); err != nil {
		return err
	}
	if mode == "none" && !recursive {
		return grapeError(http.StatusBadRequest, `pagination cannot be "none" unless "recursive" is true`)
	}
	rc, err := s.repoOf(c, false)
	if err != nil {
		return err
	}
	ctx := c.R.Context()
	if ref == "" {
		ref = rc.DefaultBranch
	}
	commit, err := rc.Repo.Resolve(ctx, ref)
	if err != nil {
		return notFound("Tree")
	}
	cm, err := rc.Repo.Commit(ctx, commit)
	if err != nil {
		return notFound("Tree")
	}
	root := cm.Tree
	if path != "" {
		e, err := rc.Repo.Lookup(ctx, commit, path)
		if err != nil || e.Type != "tree" {
			return notFound("Tree")
		}
		root = e.ID
	}
	var trees, blobs, modules []TreeEntryJSON
	var walk func(tree repository.Oid, dir string) error
	walk = func(tree repository.Oid, dir string) error {
		entries, err := rc.Repo.Tree(ctx, tree)
		if err != nil {
			return err
		}
		for _, e := range entries {
			p := e.Name
			if dir != "" {
				p = dir + "/" + e.Name
			}
			j := TreeEntryJSON{ID: string(e.ID), Name: e.Name, Type: e.Type, Path: p, Mode: fmt.Sprintf("%06s", e.Mode)}
			switch e.Type {
			case "tree":
				trees = append(trees, j)
				if recursive {
					if err := walk(e.ID, p); err != nil {
						return err
					}
				}
			case "commit":
				modules = append(modules, j)
			default:
				blobs = append(blobs, j)
			}
		}
		return nil
	}
	if err := walk(root, path); err != nil {
		return gitError(err, "Tree")
	}
	entries := append(append(trees, blobs...), modules...)
	switch mode {
	case "keyset":
		return s.treeKeyset(c, entries, token)
	case "none":
		return c.JSON(http.StatusOK, entries)
	}
	// legacy: offset pages (the pagination parameter's words are the
	// tree's own, so the shared helpers' offset|keyset check is not run).
	page, err := offsetPage(c, len(entries), func(start, end int) ([]TreeEntryJSON, error) { return entries[start:end], nil })
	if err != nil {
		return err
	}
	return c.JSONPage(page)
}

// treeKeyset answers one keyset page of a tree: the entries after the one
// whose id is token (from the start without one), per_page of them, with
// Link rel="next" carrying the last one's id as page_token while entries
// remain (GitalyKeysetPager#keyset_pagination_for_tree). A token that names
// no entry answers 400, as Gitaly's "could not find starting OID".
func (s *Server) treeKeyset(c *Ctx, entries []TreeEntryJSON, token string) error {
	per := 20
	if raw := c.R.URL.Query().Get("per_page"); raw != "" {
		n, err := strconv.Atoi(raw)
		if err != nil {
			return invalidParam("per_page")
		}
		if n > 0 {
			per = min(n, 100)
		}
	}
	start := 0
	if token != "" {
		start = -1
		for i, e := range entries {
			if e.ID == token {
				start = i + 1
				break
			}
		}
		if start < 0 {
			return errorf(http.StatusBadRequest, "400 Bad request - could not find starting OID: %s", token)
		}
	}
	end := min(start+per, len(entries))
	page := entries[start:end]
	if page == nil {
		page = []TreeEntryJSON{}
	}
	if end < len(entries) && end > start {
		q := c.R.URL.Query()
		q.Set("page_token", page[len(page)-1].ID)
		q.Set("pagination", "keyset")
		q.Set("per_page", strconv.Itoa(per))
		u := url.URL{Path: c.R.URL.Path, RawQuery: q.Encode()}
		c.W.Header().Set("Link", fmt.Sprintf(`<%s%s>; rel="next"`, c.base, u.String()))
	}
	return c.JSON(http.StatusOK, page)
}

// CompareJSON is the platform's Entities::Compare.
type CompareJSON struct {
	Commit         *CommitJSON  `json:"commit"`
	Commits        []CommitJSON `json:"commits"`
	Diffs          []MRDiffJSON `json:"diffs"`
	CompareTimeout bool         `json:"compare_timeout"`
	CompareSameRef bool         `json:"compare_same_ref"`
	WebURL         string       `json:"web_url"`
}

// repositoryCompare implements GET /projects/:id/repository/compare
// (provisioning): the commits of to that from lacks, oldest first, and the
// diff from the merge base of from and to (from itself with straight=true)
// to to; commit is the newest of those commits. A ref that resolves to no
// commit answers "404 Ref Not Found"; the same commit on both sides answers
// compare_same_ref true with no commits and no diffs.
func (s *Server) repositoryCompare(c *Ctx) error {
	in := c.In()
	fromRef, toRef := in.StringOr("from", ""), in.StringOr("to", "")
	straight := in.BoolOr("straight", false)
	unidiff := in.BoolOr("unidiff", false)
	if err := in.Err(); err != nil {
		return err
	}
	rc, err := s.repoOf(c, false)
	if err != nil {
		return err
	}
	ctx := c.R.Context()
	from, errFrom := rc.Repo.Resolve(ctx, fromRef)
	to, errTo := rc.Repo.Resolve(ctx, toRef)
	if errFrom != nil || errTo != nil {
		return notFound("Ref")
	}
	out := CompareJSON{Commits: []CommitJSON{}, Diffs: []MRDiffJSON{}, CompareSameRef: from == to,
		WebURL: rc.webBase + "/-/compare/" + fromRef + "..." + toRef}
	if from == to {
		return c.JSON(http.StatusOK, out)
	}
	base := from
	if !straight {
		mb, err := rc.Repo.MergeBase(ctx, from, to)
		if err != nil && !errors.Is(err, repository.ErrNotFound) {
			return gitError(err, "Ref")
		}
		if err == nil {
			base = mb
		}
	}
	shas, err := rc.Repo.Range(ctx, base, to)
	if err != nil {
		return gitError(err, "Ref")
	}
	for i := len(shas) - 1; i >= 0; i-- {
		cm, err := rc.Repo.Commit(ctx, shas[i])
		if err != nil {
			return gitError(err, "Commit")
		}
		out.Commits = append(out.Commits, rc.commitJSON(cm, true))
	}
	if n := len(out.Commits); n > 0 {
		out.Commit = &out.Commits[n-1]
	}
	files, err := s.mr.Diff(ctx, rc.ProjectID, rc.Repo, base, to, unidiff)
	if err != nil {
		return gitError(err, "Ref")
	}
	kept, overflow := mergerequests.LimitDiff(files, false)
	out.Diffs, out.CompareTimeout = diffJSONs(kept), overflow
	return c.JSON(http.StatusOK, out)
}
