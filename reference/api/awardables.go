package api

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/v4cert/v4cert/reference/access"
	"github.com/v4cert/v4cert/reference/store"
)

// Provisioning of the awardables emoji reactions need: issues, project
// snippets and notes on them, with the shapes the platform documents (Issues,
// Project snippets and Notes APIs). They are outside the certified surface.

// IssueJSON is the issue as the platform answers it: what fixtures use,
// with the labels, milestone, assignees and votes the platform shows.
type IssueJSON struct {
	ID             int            `json:"id"`
	IID            int            `json:"iid"`
	ProjectID      int            `json:"project_id"`
	Title          string         `json:"title"`
	Description    *string        `json:"description"`
	State          string         `json:"state"`
	Author         UserRef        `json:"author"`
	Confidential   bool           `json:"confidential"`
	Labels         []string       `json:"labels"`
	Milestone      *MilestoneJSON `json:"milestone"`
	Assignees      []UserRef      `json:"assignees"`
	Assignee       *UserRef       `json:"assignee"`
	Upvotes        int            `json:"upvotes"`
	Downvotes      int            `json:"downvotes"`
	UserNotesCount int            `json:"user_notes_count"`
	DueDate        *string        `json:"due_date"`
	CreatedAt      string         `json:"created_at"`
	UpdatedAt      string         `json:"updated_at"`
	WebURL         string         `json:"web_url"`
	// IssueType and Type are the platform's work item type, twice
	// (lib/api/entities/issue_basic.rb: `expose :issue_type` and `expose
	// :issue_type, as: :type, format_with: :upcase`); the reference makes
	// plain issues only. glab reads issue_type.
	IssueType string `json:"issue_type"`
	Type      string `json:"type"`
	// ClosedAt, ClosedBy and DiscussionLocked as the platform's issue entity
	// shows them (lib/api/entities/issue_basic.rb, issue.rb): null while open.
	ClosedAt         *string  `json:"closed_at"`
	ClosedBy         *UserRef `json:"closed_by"`
	DiscussionLocked *bool    `json:"discussion_locked"`
}

func (v *view) issue(i *store.Issue) IssueJSON {
	p := v.d.Project(i.ProjectID)
	on := store.Awardable{Type: store.AwardableIssue, ID: i.ID}
	up, down := v.d.Votes(on)
	j := IssueJSON{ID: i.ID, IID: i.IID, ProjectID: i.ProjectID, Title: i.Title, Description: strOrNil(i.Description),
		State: i.State, Author: v.authorRef(i.AuthorID), Confidential: i.Confidential,
		Labels: v.d.LabelNames(i.ProjectID, i.LabelIDs), Milestone: v.milestone(v.d.MilestoneOf(i.ProjectID, i.MilestoneID)),
		Assignees: v.userRefs(i.AssigneeIDs), Upvotes: up, Downvotes: down, UserNotesCount: v.d.UserNotesCount(on),
		DueDate: datePtr(i.DueDate), CreatedAt: ts(i.CreatedAt),
		UpdatedAt: ts(i.UpdatedAt), WebURL: fmt.Sprintf("%s/%s/-/issues/%d", v.base, v.d.ProjectFullPath(p), i.IID),
		IssueType: "issue", Type: "ISSUE"}
	if len(j.Assignees) > 0 {
		j.Assignee = &j.Assignees[0]
	}
	if i.ClosedAt != nil {
		at := ts(*i.ClosedAt)
		j.ClosedAt = &at
	}
	if i.ClosedByID != 0 {
		u := v.authorRef(i.ClosedByID)
		j.ClosedBy = &u
	}
	// The platform's column is null until the discussion was locked or unlocked once.
	j.DiscussionLocked = i.DiscussionLocked
	return j
}

// SnippetFileJSON is one file of a snippet.
type SnippetFileJSON struct {
	Path   string `json:"path"`
	RawURL string `json:"raw_url"`
}

// SnippetJSON is the project snippet as the platform answers it.
type SnippetJSON struct {
	ID          int               `json:"id"`
	Title       string            `json:"title"`
	Description *string           `json:"description"`
	FileName    *string           `json:"file_name"`
	Visibility  string            `json:"visibility"`
	ProjectID   int               `json:"project_id"`
	Author      UserRef           `json:"author"`
	CreatedAt   string            `json:"created_at"`
	UpdatedAt   string            `json:"updated_at"`
	WebURL      string            `json:"web_url"`
	RawURL      string            `json:"raw_url"`
	Files       []SnippetFileJSON `json:"files"`
}

func (v *view) snippet(s *store.Snippet) SnippetJSON {
	web := fmt.Sprintf("%s/%s/-/snippets/%d", v.base, v.d.ProjectFullPath(v.d.Project(s.ProjectID)), s.ID)
	out := SnippetJSON{ID: s.ID, Title: s.Title, Description: strOrNil(s.Description), Visibility: s.Visibility,
		ProjectID: s.ProjectID, Author: v.authorRef(s.AuthorID), CreatedAt: ts(s.CreatedAt), UpdatedAt: ts(s.UpdatedAt),
		WebURL: web, RawURL: web + "/raw", Files: []SnippetFileJSON{}}
	for i, f := range s.Files {
		if i == 0 {
			out.FileName = &f.Path
		}
		out.Files = append(out.Files, SnippetFileJSON{Path: f.Path, RawURL: web + "/raw/main/" + f.Path})
	}
	return out
}

// NoteJSON is the note as the platform answers it.
type NoteJSON struct {
	ID           int     `json:"id"`
	Type         *string `json:"type"`
	Body         string  `json:"body"`
	Attachment   *string `json:"attachment"`
	Author       UserRef `json:"author"`
	CreatedAt    string  `json:"created_at"`
	UpdatedAt    string  `json:"updated_at"`
	System       bool    `json:"system"`
	NoteableID   int     `json:"noteable_id"`
	NoteableType string  `json:"noteable_type"`
	NoteableIID  *int    `json:"noteable_iid"`
	ProjectID    int     `json:"project_id"`
	Confidential bool    `json:"confidential"`
	Internal     bool    `json:"internal"`
	Resolvable   bool    `json:"resolvable"`
	Imported     bool    `json:"imported"`
	ImportedFrom string  `json:"imported_from"`
}

func (v *view) note(n *store.Note, iid *int) NoteJSON {
	return NoteJSON{ID: n.ID, Body: n.Body, Author: v.authorRef(n.AuthorID), CreatedAt: ts(n.CreatedAt),
		UpdatedAt: ts(n.UpdatedAt), NoteableID: n.NoteableID, NoteableType: n.NoteableType, NoteableIID: iid,
		ProjectID: n.ProjectID, ImportedFrom: "none"}
}

// authorRef renders a user who may since have been deleted; the platform
// then shows its ghost user, which this placeholder stands for.
func (v *view) authorRef(id int) UserRef {
	if r := v.userRefByID(id); r != nil {
		return *r
	}
	return UserRef{ID: 0, Username: "ghost", Name: "Ghost User", State: "active", WebURL: v.base + "/ghost"}
}

// pathID reads an integer path parameter the platform types Integer: anything
// else is invalid input (400), not a missing resource.
func (c *Ctx) pathID(name string) (int, error) {
	n, err := strconv.Atoi(c.R.PathValue(name))
	if err != nil {
		return 0, invalidParam(name)
	}
	return n, nil
}

// issueOf resolves :id and :issue_iid; issues of visible projects are
// visible, confidential ones to those store.CanReadIssue names (the
// platform's find_project_issue goes through IssuesFinder, which applies
// the same policy: lib/api/helpers.rb).
func (c *Ctx) issueOf(d *store.Data) (*store.Project, *store.Issue, error) {
	iid, err := c.pathID("issue_iid")
	if err != nil {
		return nil, nil, err
	}
	p, err := c.projectOf(d, "id")
	if err != nil {
		return nil, nil, err
	}
	i := d.IssueByIID(p.ID, iid)
	if i == nil || !d.CanReadIssue(c.Caller, p, i) {
		return nil, nil, notFound("Issue")
	}
	return p, i, nil
}

// snippetOf resolves :id and :snippet_id; a snippet the caller may not see is not found.
func (c *Ctx) snippetOf(d *store.Data) (*store.Project, *store.Snippet, error) {
	id, err := c.pathID("snippet_id")
	if err != nil {
		return nil, nil, err
	}
	p, err := c.projectOf(d, "id")
	if err != nil {
		return nil, nil, err
	}
	s := d.ProjectSnippet(p.ID, id)
	if s == nil || !d.CanSeeSnippet(c.Caller, p, s) {
		return nil, nil, notFound("Snippet")
	}
	return p, s, nil
}

// createIssue implements POST /projects/:id/issues (provisioning): anyone who
// can see the project may open an issue (Guest+, any signed-in user when public).
func (s *Server) createIssue(c *Ctx) error {
	in := c.In()
	title, desc := in.String("title"), in.StringOr("description", "")
	labels := in.Strings("labels")
	milestone := in.Int("milestone_id")
	assignees := in.Ints("assignee_ids")
	if id := in.Int("assignee_id"); id != nil && assignees == nil {
		assignees = []int{*id}
	}
	due := in.Date("due_date")
	confidential := in.BoolOr("confidential", false)
	if err := in.Err(); err != nil {
		return err
	}
	if *title == "" {
		return validation(map[string][]string{"title": {"can't be blank"}})
	}
	for _, l := range labels {
		if strings.TrimSpace(l) != "" && !store.ValidLabelName(l) {
			return validation(map[string][]string{"labels": {"is invalid"}})
		}
	}
	var body IssueJSON
	err := s.store.Write(func(d *store.Data) error {
		p, err := c.projectOf(d, "id")
		if err != nil {
			return err
		}
		i := d.CreateIssue(p, c.Caller, *title, desc, confidential)
		d.SetIssueLinks(p, i, labels, milestone, assignees, due)
		body = c.view(d).issue(i)
		return nil
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, body)
}

// getIssue implements GET /projects/:id/issues/:issue_iid (provisioning).
func (s *Server) getIssue(c *Ctx) error {
	var out IssueJSON
	err := s.store.Read(func(d *store.Data) error {
		_, i, err := c.issueOf(d)
		if err != nil {
			return err
		}
		out = c.view(d).issue(i)
		return nil
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, out)
}

// createSnippet implements POST /projects/:id/snippets (provisioning):
// Reporter or higher; the content comes as file_name+content or as files[].
func (s *Server) createSnippet(c *Ctx) error {
	in := c.In()
	title, desc := in.String("title"), in.StringOr("description", "")
	vis := in.String("visibility")
	fileName, content := in.StringOr("file_name", ""), in.String("content")
	objs := in.Objects("files")
	if err := in.Err(); err != nil {
		return err
	}
	if (content == nil) == (objs == nil) {
		return badRequest("content, files are missing, exactly one parameter must be provided")
	}
	var files []store.SnippetFile
	if content != nil {
		files = []store.SnippetFile{{Path: fileName, Content: *content}}
	}
	for _, o := range objs {
		path, _ := o["file_path"].(string)
		body, _ := o["content"].(string)
		if path == "" {
			return missing("files[file_path]")
		}
		files = append(files, store.SnippetFile{Path: path, Content: body})
	}
	if *title == "" {
		return validation(map[string][]string{"title": {"can't be blank"}})
	}
	visibility := "private"
	if vis != nil {
		visibility = *vis
	}
	var out SnippetJSON
	err := s.store.Write(func(d *store.Data) error {
		p, err := c.projectOf(d, "id")
		if err != nil {
			return err
		}
		if err := c.requireProjectRole(d, p, access.Reporter); err != nil {
			return err
		}
		out = c.view(d).snippet(d.CreateSnippet(p, c.Caller, *title, desc, visibility, files))
		return nil
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, out)
}

// createNoteOn serves POST .../notes of one kind of noteable.
func createNoteOn(kind string) handler {
	return func(s *Server, c *Ctx) error { return s.createNote(c, kind) }
}

// createNote implements POST /projects/:id/issues/:issue_iid/notes and
// POST /projects/:id/snippets/:snippet_id/notes (provisioning): whoever can
// see the noteable may comment.
func (s *Server) createNote(c *Ctx, kind string) error {
	in := c.In()
	body := in.String("body")
	if err := in.Err(); err != nil {
		return err
	}
	if *body == "" {
		return validation(map[string][]string{"note": {"can't be blank"}})
	}
	var out NoteJSON
	err := s.store.Write(func(d *store.Data) error {
		var p *store.Project
		var on store.Awardable
		var iid *int
		if kind == store.AwardableIssue {
			ip, i, err := c.issueOf(d)
			if err != nil {
				return err
			}
			p, on, iid = ip, store.Awardable{Type: store.AwardableIssue, ID: i.ID}, &i.IID
		} else {
			sp, sn, err := c.snippetOf(d)
			if err != nil {
				return err
			}
			p, on = sp, store.Awardable{Type: store.AwardableSnippet, ID: sn.ID}
		}
		out = c.view(d).note(d.CreateNote(p.ID, on, c.Caller, *body), iid)
		return nil
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, out)
}
