// Package importer reads a group or a project from a source instance of the
// platform over its own REST API, with the access token a direct-transfer
// migration was given (Endpoints, Group and project migration). It only
// reads; the reference writes the destination objects into its store.
package importer

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// Source is the instance an import reads from.
type Source struct {
	URL   string // base URL of the instance, without /api/v4
	Token string
	HTTP  *http.Client
}

// Member is a direct member of a source group or project.
type Member struct {
	Username    string `json:"username"`
	AccessLevel int    `json:"access_level"`
}

// Project is a source project with what a migration copies.
type Project struct {
	ID          int    `json:"id"`
	Name        string `json:"name"`
	Path        string `json:"path"`
	Description string `json:"description"`
	Visibility  string `json:"visibility"`
	FullPath    string `json:"path_with_namespace"`
	Members     []Member
}

// Group is a source group with what a migration copies.
type Group struct {
	ID          int    `json:"id"`
	Name        string `json:"name"`
	Path        string `json:"path"`
	Description string `json:"description"`
	Visibility  string `json:"visibility"`
	FullPath    string `json:"full_path"`
	Members     []Member
	Projects    []*Project
}

// Error is a failed read: the relation (pipeline) it belongs to and the
// platform's words for the exception.
type Error struct {
	Relation string
	Class    string
	Message  string
	URL      string
}

func (e *Error) Error() string { return e.Relation + ": " + e.Message }

// maxPages bounds a paginated read, so a misbehaving source cannot keep an import going forever.
const maxPages = 100

// Group reads the group at fullPath, its projects and members as asked.
func (s Source) Group(ctx context.Context, fullPath string, projects, members bool) (*Group, error) {
	g := &Group{}
	if err := s.get(ctx, "group", "/groups/"+url.PathEscape(fullPath), nil, g); err != nil {
		return nil, err
	}
	id := strconv.Itoa(g.ID)
	if members {
		if err := s.list(ctx, "members", "/groups/"+id+"/members", func(raw json.RawMessage) error {
			return appendMember(&g.Members, raw)
		}); err != nil {
			return nil, err
		}
	}
	if projects {
		err := s.list(ctx, "projects", "/groups/"+id+"/projects", func(raw json.RawMessage) error {
			p := &Project{}
			if err := json.Unmarshal(raw, p); err != nil {
				return err
			}
			g.Projects = append(g.Projects, p)
			return nil
		})
		if err != nil {
			return nil, err
		}
		if members {
			for _, p := range g.Projects {
				if err := s.projectMembers(ctx, p); err != nil {
					return nil, err
				}
			}
		}
	}
	return g, nil
}

// Project reads the project at fullPath and, if asked, its members.
func (s Source) Project(ctx context.Context, fullPath string, members bool) (*Project, error) {
	p := &Project{}
	if err := s.get(ctx, "project", "/projects/"+url.PathEscape(fullPath), nil, p); err != nil {
		return nil, err
	}
	if members {
		if err := s.projectMembers(ctx, p); err != nil {
			return nil, err
		}
	}
	return p, nil
}

func (s Source) projectMembers(ctx context.Context, p *Project) error {
	return s.list(ctx, "members", "/projects/"+strconv.Itoa(p.ID)+"/members", func(raw json.RawMessage) error {
		return appendMember(&p.Members, raw)
	})
}

func appendMember(to *[]Member, raw json.RawMessage) error {
	var m Member
	if err := json.Unmarshal(raw, &m); err != nil {
		return err
	}
	*to = append(*to, m)
	return nil
}

// list reads every page of a list endpoint, following x-next-page.
func (s Source) list(ctx context.Context, relation, path string, each func(json.RawMessage) error) error {
	page := "1"
	for range maxPages {
		var items []json.RawMessage
		h := http.Header{}
		q := url.Values{"per_page": {"100"}, "page": {page}}
		if err := s.get(ctx, relation, path+"?"+q.Encode(), h, &items); err != nil {
			return err
		}
		for _, raw := range items {
			if err := each(raw); err != nil {
				return &Error{Relation: relation, Class: "JSON::ParserError", Message: err.Error(), URL: s.URL + "/api/v4" + path}
			}
		}
		page = h.Get("X-Next-Page")
		if page == "" {
			return nil
		}
	}
	return nil
}

// get reads one resource into v; header, when given, receives the response headers.
func (s Source) get(ctx context.Context, relation, path string, header http.Header, v any) error {
	u := strings.TrimSuffix(s.URL, "/") + "/api/v4" + path
	fail := func(class, format string, args ...any) error {
		return &Error{Relation: relation, Class: class, Message: fmt.Sprintf(format, args...), URL: u}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return fail("URI::InvalidURIError", "invalid source URL")
	}
	req.Header.Set("PRIVATE-TOKEN", s.Token)
	resp, err := s.HTTP.Do(req)
	if err != nil {
		if strings.Contains(err.Error(), "loopback addresses only") {
			// Say why, so whoever needs a remote source learns of the flag.
			return fail("BulkImports::NetworkError", "source instance unreachable: the reference imports from loopback addresses only (serve --import-from-any lifts this)")
		}
		return fail("BulkImports::NetworkError", "source instance unreachable")
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return fail("BulkImports::NetworkError", "source instance unreachable")
	}
	switch {
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return fail("BulkImports::NetworkError", "Unsuccessful response %d from %s. Check the access token.", resp.StatusCode, path)
	case resp.StatusCode == http.StatusNotFound:
		return fail("BulkImports::NetworkError", "Unsuccessful response 404 from %s: source not found", path)
	case resp.StatusCode != http.StatusOK:
		return fail("BulkImports::NetworkError", "Unsuccessful response %d from %s", resp.StatusCode, path)
	}
	for k, vs := range resp.Header {
		for _, x := range vs {
			if header != nil {
				header.Add(k, x)
			}
		}
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fail("JSON::ParserError", "source answered something other than the expected JSON")
	}
	return nil
}
