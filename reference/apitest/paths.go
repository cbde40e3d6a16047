package apitest

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/v4cert/v4cert/specs"
)

// Path is e's path from the server root with every placeholder filled from
// the world, escaped as the spec wants (Endpoints convention 2): the project
// for a project's `:id`, the reaction of the awardable the path names for
// `:award_id`, and so on.
func (w *World) Path(e *specs.Endpoint) string {
	segs := strings.Split(e.Path, "/")
	issue := strings.Contains(e.Path, "/issues/")
	mr := strings.Contains(e.Path, "/merge_requests/")
	note := strings.Contains(e.Path, "/notes/")
	registry := strings.Contains(e.Path, "/registry/")
	for i, s := range segs {
		if !strings.HasPrefix(s, ":") && !strings.HasPrefix(s, "*") {
			continue
		}
		prev := ""
		if i > 0 {
			prev = segs[i-1]
		}
		segs[i] = w.value(s[1:], segs[1], prev, issue, mr, note, registry, strings.HasSuffix(e.Path, "/indirect"))
	}
	return e.Prefix() + strings.Join(segs, "/")
}

// value is the world's value for placeholder name, which follows the segment
// prev in a path under the resource root (users, groups, projects, …).
func (w *World) value(name, root, prev string, issue, mr, note, registry, indirect bool) string {
	n := func(i int) string { return strconv.Itoa(i) }
	pick := func(onIssue, onSnippet int) string {
		if mr {
			return ""
		}
		if issue {
			return n(onIssue)
		}
		return n(onSnippet)
	}
	switch name {
	case "id":
		switch prev {
		case "projects":
			return n(w.Project.ID)
		case "groups":
			return n(w.Group.ID)
		case "topics":
			return n(w.Topic)
		case "runners":
			return n(w.Runner)
		case "bulk_imports":
			return n(w.Import)
		case "users":
			return n(w.Users["alice"])
		case "repositories":
			return n(w.RegistryRepo)
		case "jobs":
			return n(w.Job)
		case "todos":
			return n(w.Todo)
		}
	case "user_id":
		switch {
		case prev == "access_requests" && root == "groups":
			return n(w.Users["carol"])
		case prev == "access_requests":
			return n(w.Users["frank"])
		case root == "projects":
			return n(w.Users["bob"]) // the project's direct member
		case indirect:
			return n(w.Users["erin"]) // a member of the invited group
		}
		return n(w.Users["alice"]) // the group's direct member, a user, a billable member
	case "issue_iid":
		return n(w.Issue)
	case "snippet_id":
		return n(w.Snippet)
	case "merge_request_iid":
		return n(w.MergeRequest)
	case "block_id":
		return n(w.Block)
	case "version_id":
		return n(w.Version)
	case "label_id":
		return n(w.Label)
	case "milestone_id":
		return n(w.Milestone)
	case "note_id":
		if mr {
			return n(w.MRNote)
		}
		return pick(w.IssueNote, w.SnippetNote)
	case "award_id":
		switch {
		case mr && note:
			return n(w.MRNoteAward)
		case mr:
			return n(w.MRAward)
		case note:
			return pick(w.IssueNoteAward, w.SnippetNoteAward)
		}
		return pick(w.IssueAward, w.SnippetAward)
	case "pipeline_id":
		return n(w.Pipeline)
	case "job_id":
		return n(w.Job)
	case "mirror_id":
		return n(w.Mirror)
	case "package_protection_rule_id":
		return n(w.ProtectionRule)
	case "repository_id":
		return n(w.RegistryRepo)
	case "entity_id":
		return n(w.Entity)
	case "tag_name":
		if registry {
			return w.RegistryTg
		}
		return w.RepositoryTags[0]
	case "tag", "reference":
		return w.RegistryTg
	case "file_path":
		return "README.md"
	case "sha":
		return w.CommitSHA
	case "branch":
		return "main"
	case "slug":
		return "pipelines-email"
	case "key":
		return map[string]string{"users": "team", "groups": "tier", "projects": "stage"}[root]
	case "name":
		return w.RegistryImage // *name: one or more segments, unescaped
	case "uuid":
		return "00000000-0000-0000-0000-000000000000"
	}
	panic(fmt.Sprintf("apitest: no world value for :%s after %q", name, prev))
}

// Target is Path with the query that gives every required parameter of a
// read a value that names something in the world (ref=main), so that the
// answer shows data rather than a missing-attribute error.
func (w *World) Target(e *specs.Endpoint) string {
	var q []string
	for _, p := range e.Params {
		if !p.Required || e.InPath(p.Name) {
			continue
		}
		switch p.Name {
		case "ref":
			q = append(q, "ref=main")
		case "from": // the repository compare: what feature adds to main
			q = append(q, "from=main")
		case "to":
			q = append(q, "to=feature")
		}
	}
	if len(q) == 0 {
		return w.Path(e)
	}
	return w.Path(e) + "?" + strings.Join(q, "&")
}

// GroupPath and ProjectPath are the encoded full-path forms of `:id`.
func (w *World) GroupPath() string   { return url.PathEscape(w.Group.Path) }
func (w *World) ProjectPath() string { return url.PathEscape(w.Project.Path) }
