package apitest

import (
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/v4cert/v4cert/specs"
)

// Snapshot is everything the world holds as the API shows it to the
// administrator: the answer of every GET endpoint of the rulebook for the
// world's objects (every page of the lists), and for every project, group
// and user the administrator can list, their detail, members, branches and
// tags. Two snapshots are equal when no request in between changed anything
// stored, since the clock stands still (--clock fixed).
type Snapshot map[string]string

// Take reads the snapshot through root (an administrator's client). Without
// repos it leaves out what lives in git (files, commits, branches, tags):
// each such read runs git, which a fuzz target cannot afford per input, and
// it checks the repositories' refs on disk instead (RefsOf).
func Take(w *World, root *Client, repos bool) (Snapshot, error) {
	s := Snapshot{}
	get := func(target string) (*Response, error) {
		r, err := root.Do("GET", target, nil)
		if err != nil {
			return nil, fmt.Errorf("snapshot %s: %w", target, err)
		}
		return r, nil
	}
	// every reads all pages of a list (or a single answer) into s.
	every := func(target string) ([]byte, error) {
		var pages []string
		var last []byte
		for page := 1; ; page++ {
			sep := "?"
			if strings.Contains(target, "?") {
				sep = "&"
			}
			r, err := get(fmt.Sprintf("%s%spage=%d&per_page=100", target, sep, page))
			if err != nil {
				return nil, err
			}
			pages = append(pages, fmt.Sprintf("%d %s", r.Status, r.Body))
			last = r.Body
			if r.Status != http.StatusOK || r.Header.Get("X-Next-Page") == "" || page > 200 {
				break
			}
		}
		s[target] = strings.Join(pages, "\n")
		return last, nil
	}
	for _, e := range specs.Default().Endpoints {
		if e.Method != http.MethodGet || !e.UnderAPI() || (!repos && strings.Contains(e.Path, "/repository/")) {
			continue
		}
		if _, err := every(w.Target(e)); err != nil {
			return nil, err
		}
	}
	// Everything the administrator can list, not just the world's own objects.
	ids := func(target string) ([]int, error) {
		var out []int
		for page := 1; ; page++ {
			sep := "?"
			if strings.Contains(target, "?") {
				sep = "&"
			}
			r, err := get(fmt.Sprintf("%s%sper_page=100&page=%d", target, sep, page))
			if err != nil {
				return nil, err
			}
			var items []struct{ ID int }
			if err := r.JSON(&items); err != nil {
				return nil, fmt.Errorf("snapshot %s: %s", target, r)
			}
			for _, it := range items {
				out = append(out, it.ID)
			}
			if r.Header.Get("X-Next-Page") == "" {
				return out, nil
			}
		}
	}
	projects, err := ids("/api/v4/projects")
	if err != nil {
		return nil, err
	}
	for _, id := range projects {
		for _, sub := range []string{"", "/members/all", "/repository/branches", "/repository/tags", "/integrations", "/remote_mirrors"} {
			if !repos && strings.HasPrefix(sub, "/repository/") {
				continue
			}
			if _, err := every(fmt.Sprintf("/api/v4/projects/%d%s", id, sub)); err != nil {
				return nil, err
			}
		}
	}
	groups, err := ids("/api/v4/groups?all_available=true")
	if err != nil {
		return nil, err
	}
	for _, id := range groups {
		for _, sub := range []string{"", "/members/all", "/projects"} {
			if _, err := every(fmt.Sprintf("/api/v4/groups/%d%s", id, sub)); err != nil {
				return nil, err
			}
		}
	}
	users, err := ids("/api/v4/users")
	if err != nil {
		return nil, err
	}
	for _, id := range users {
		if _, err := every(fmt.Sprintf("/api/v4/users/%d", id)); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Diff describes how b differs from a, or "" when they are equal.
func (a Snapshot) Diff(b Snapshot) string {
	var keys []string
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var out []string
	for _, k := range keys {
		if a[k] != b[k] {
			out = append(out, fmt.Sprintf("%s:\n  before: %.400s\n  after:  %.400s", k, a[k], b[k]))
		}
	}
	return strings.Join(out, "\n")
}

// RefsOf reads the refs of the bare repository at dir straight from disk
// (loose refs and packed-refs), with HEAD: what a repository shows is fixed
// by its refs, since objects never change. It costs no git process.
func RefsOf(dir string) (string, error) {
	var out []string
	for _, f := range []string{"HEAD", "packed-refs"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		out = append(out, f+": "+string(b))
	}
	err := filepath.WalkDir(filepath.Join(dir, "refs"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out = append(out, rel+": "+strings.TrimSpace(string(b)))
		return nil
	})
	return strings.Join(out, "\n"), err
}
