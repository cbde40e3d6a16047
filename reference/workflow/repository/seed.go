package repository

import (
	"context"
	"sort"

	"github.com/v4cert/v4cert/reference/git"
	"github.com/v4cert/v4cert/reference/store"
)

// SeedBranch is a branch a seeded repository starts with: From's tip (the
// default branch when empty) plus Files committed on top.
type SeedBranch struct {
	Name, From string
	Files      map[string]string
}

// Seed gives a project a repository with files on defaultBranch and then
// branches on top of theirs, committed by creator: the seed file's worlds.
// It writes below the hooks (a world being built has no merge requests to
// follow and its projects' state is the seed's).
func (w *Workflows) Seed(ctx context.Context, projectID int, defaultBranch string, files map[string]string, branches []SeedBranch, creator *store.User) error {
	r, err := w.repos.Create(projectID, defaultBranch)
	if err != nil {
		return err
	}
	sig := git.Signature{Name: creator.Name, Email: creator.Email, When: w.repos.Now()}
	commit := func(base git.Oid, files map[string]string, message string) (git.Oid, error) {
		actions := sortedActions(files)
		if base != "" {
			for k := range actions {
				if _, err := r.Lookup(ctx, base, actions[k].Path); err == nil {
					actions[k].Kind = "update"
				}
			}
		}
		tree, err := r.ApplyActions(ctx, base, actions)
		if err != nil {
			return "", err
		}
		var parents []git.Oid
		if base != "" {
			parents = []git.Oid{base}
		}
		return r.CommitTree(ctx, tree, parents, message, sig, sig)
	}
	heads := map[string]git.Oid{}
	head, err := commit("", files, "Initial commit")
	if err != nil {
		return err
	}
	if err := r.UpdateRef(ctx, "refs/heads/"+defaultBranch, head, git.ZeroOid); err != nil {
		return err
	}
	heads[defaultBranch] = head
	for _, b := range branches {
		tip := heads[b.From]
		if b.From == "" {
			tip = head
		}
		if len(b.Files) > 0 {
			if tip, err = commit(tip, b.Files, "Add "+b.Name); err != nil {
				return err
			}
		}
		if err := r.UpdateRef(ctx, "refs/heads/"+b.Name, tip, git.ZeroOid); err != nil {
			return err
		}
		heads[b.Name] = tip
	}
	return nil
}

// sortedActions turns a files map into commit actions in path order, so the
// same file makes the same commit.
func sortedActions(files map[string]string) []git.Action {
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	out := make([]git.Action, 0, len(paths))
	for _, p := range paths {
		out = append(out, git.Action{Kind: "create", Path: p, Content: []byte(files[p]), HasContent: true})
	}
	return out
}
