package repository

import (
	"cmp"
	"context"
	"errors"
	"path"
	"strings"
	"sync"

	"github.com/v4cert/v4cert/reference/git"
)

// readmeCache keeps, by project and branch, the README a branch's root
// holds, against the repository and the generation of its refs it was read
// at: GET /projects/:id shows readme_url on every call, and reading the
// branch's head costs a round trip to git that the answer does not need
// while no ref has moved.
type readmeCache struct {
	mu      sync.Mutex
	entries map[readmeKey]readmeEntry
}

type readmeKey struct {
	project int
	branch  string
}

type readmeEntry struct {
	repo *git.Repo
	gen  uint64
	name string
}

// ReadmeName is the name of the README at the root of branch ("" when the
// branch or a README is missing), as the platform's Tree#readme_path picks
// it (app/models/tree.rb; lib/gitlab/file_detector.rb: a name starting
// "readme", any case): one in a format the platform previews
// (lib/gitlab/markup_helper.rb) before a plain one (README alone or .txt);
// a README of another kind is none.
func (w *Workflows) ReadmeName(ctx context.Context, projectID int, branch string) (string, error) {
	repo, err := w.repos.Get(projectID)
	if err != nil {
		return "", err
	}
	key := readmeKey{projectID, branch}
	// The generation is read before the refs, so a write landing meanwhile
	// leaves an entry that is already out of date, never a stale one.
	gen := repo.RefsGeneration()
	w.readmes.mu.Lock()
	e, ok := w.readmes.entries[key]
	w.readmes.mu.Unlock()
	if ok && e.repo == repo && e.gen == gen {
		return e.name, nil
	}
	name, err := readmeOf(ctx, repo, branch)
	if err != nil {
		return "", err
	}
	w.readmes.mu.Lock()
	if w.readmes.entries == nil {
		w.readmes.entries = map[readmeKey]readmeEntry{}
	}
	w.readmes.entries[key] = readmeEntry{repo: repo, gen: gen, name: name}
	w.readmes.mu.Unlock()
	return name, nil
}

// forgetReadmes drops what the cache holds (a reset; the repository pointer
// already tells a restored or recreated repository apart, this frees them).
func (w *Workflows) forgetReadmes() {
	w.readmes.mu.Lock()
	w.readmes.entries = nil
	w.readmes.mu.Unlock()
}

func readmeOf(ctx context.Context, repo *git.Repo, branch string) (string, error) {
	head, err := repo.Branch(ctx, branch)
	if errors.Is(err, git.ErrNotFound) {
		return "", nil
	} else if err != nil {
		return "", err
	}
	commit, err := repo.Commit(ctx, head)
	if err != nil {
		return "", err
	}
	entries, err := repo.Tree(ctx, commit.Tree)
	if err != nil {
		return "", err
	}
	var markup, plain string
	for _, e := range entries {
		if e.Type != "blob" || !strings.HasPrefix(strings.ToLower(e.Name), "readme") {
			continue
		}
		ext := strings.ToLower(strings.TrimPrefix(path.Ext(e.Name), "."))
		switch {
		case markup == "" && readmeMarkup[ext]:
			markup = e.Name
		case plain == "" && (ext == "txt" || strings.EqualFold(e.Name, "readme")):
			plain = e.Name
		}
	}
	return cmp.Or(markup, plain), nil
}

// readmeMarkup are the extensions the platform previews (lib/gitlab/markup_helper.rb
// markup?, gitlabhq @013260e0: markdown, asciidoc and the github-markup formats).
var readmeMarkup = map[string]bool{"md": true, "markdown": true, "mdown": true, "mkd": true, "mkdn": true,
	"adoc": true, "ad": true, "asciidoc": true, "rdoc": true, "textile": true, "org": true, "creole": true,
	"wiki": true, "mediawiki": true, "rst": true}
