package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/v4cert/v4cert/reference/params"
	"github.com/v4cert/v4cert/reference/store"
	"github.com/v4cert/v4cert/reference/workflow/repository"
)

// resolveRange turns ref_name into rev-list arguments: a branch, tag or SHA,
// or a range a..b (b's history without a's) or a...b; every name is resolved
// first, so only object names reach repository.
func resolveRange(ctx context.Context, rc *repoCtx, ref string) ([]string, error) {
	resolve := func(name string) (repository.Oid, error) {
		if name == "" {
			return rc.head(ctx)
		}
		return rc.Repo.Resolve(ctx, name)
	}
	for _, sep := range []string{"...", ".."} {
		a, b, ok := strings.Cut(ref, sep)
		if !ok {
			continue
		}
		from, err := resolve(a)
		if err != nil {
			return nil, err
		}
		to, err := resolve(b)
		if err != nil {
			return nil, err
		}
		if sep == "..." {
			return []string{string(from) + "..." + string(to)}, nil
		}
		return []string{"^" + string(from), string(to)}, nil
	}
	oid, err := resolve(ref)
	if err != nil {
		return nil, err
	}
	return []string{string(oid)}, nil
}

// listCommits implements GET /projects/:id/repository/commits (rules commits.list.*).
func (s *Server) listCommits(c *Ctx) error {
	in := c.In()
	refName := in.String("ref_name")
	since, until := in.Time("since"), in.Time("until")
	pathFilter := in.StringOr("path", "")
	author := in.StringOr("author", "")
	all := in.BoolOr("all", false)
	withStats := in.BoolOr("with_stats", false)
	firstParent := in.BoolOr("first_parent", false)
	trailers := in.BoolOr("trailers", false)
	order := in.String("order")
	if err := in.Err(); err != nil {
		return err
	}
	rc, err := s.repoOf(c, false)
	if err != nil {
		return err
	}
	ctx := c.R.Context()
	opts := repository.LogOptions{All: all, Since: since, Until: until, Author: author, FirstParent: firstParent,
		Topo: order != nil && *order == "topo"}
	if pathFilter != "" {
		opts.Path = strings.Trim(pathFilter, "/")
	}
	var oids []repository.Oid
	empty := false // an empty repository: an empty page
	if !all {
		ref := ""
		if refName != nil {
			ref = *refName
		}
		opts.Revs, err = resolveRange(ctx, rc, ref)
		empty = errors.Is(err, repository.ErrNotFound) && ref == ""
		if err != nil && !empty {
			return gitError(err, "Reference")
		}
	}
	if !empty {
		oids, err = rc.Repo.Log(ctx, opts)
		if errors.Is(err, repository.ErrBadPattern) {
			return invalidParam("author")
		}
		if err != nil {
			return gitError(err, "Reference")
		}
	}
	// Only the page's commits are read and rendered.
	page, err := PaginateWindow(c, len(oids), func(start, end int) ([]CommitJSON, error) {
		cms := make([]*repository.Commit, 0, end-start)
		for _, oid := range oids[start:end] {
			cm, err := rc.Repo.Commit(ctx, oid)
			if err != nil {
				return nil, gitError(err, "Commit")
			}
			cms = append(cms, cm)
		}
		var stats map[repository.Oid]repository.Stats
		if withStats {
			var err error
			if stats, err = rc.Repo.StatsOf(ctx, cms); err != nil {
				return nil, gitError(err, "Commit")
			}
		}
		out := make([]CommitJSON, 0, len(cms))
		for _, cm := range cms {
			j := rc.commitJSON(cm, trailers)
			if withStats {
				j.Stats = statsJSON(stats[cm.ID])
			}
			out = append(out, j)
		}
		return out, nil
	})
	if err != nil {
		return err
	}
	return c.JSONPage(page)
}

// commitOf resolves the :sha path parameter: a SHA, a branch or a tag name.
// commitIn resolves, for reading, the project's repository and the commit
// that `:sha` names; handlers read their own parameters first.
func (s *Server) commitIn(c *Ctx) (*repoCtx, *repository.Commit, error) {
	rc, err := s.repoOf(c, false)
	if err != nil {
		return nil, nil, err
	}
	cm, err := commitOf(c, rc)
	if err != nil {
		return nil, nil, err
	}
	return rc, cm, nil
}

func commitOf(c *Ctx, rc *repoCtx) (*repository.Commit, error) {
	ctx := c.R.Context()
	oid, err := rc.Repo.Resolve(ctx, c.R.PathValue("sha"))
	if err != nil {
		return nil, gitError(err, "Commit")
	}
	cm, err := rc.Repo.Commit(ctx, oid)
	if err != nil {
		return nil, gitError(err, "Commit")
	}
	return cm, nil
}

// getCommit implements GET .../repository/commits/:sha (rules commits.get.*).
func (s *Server) getCommit(c *Ctx) error {
	withStats := c.In().BoolOr("stats", true)
	if err := c.In().Err(); err != nil {
		return err
	}
	rc, cm, err := s.commitIn(c)
	if err != nil {
		return err
	}
	d, err := rc.commitDetail(c.R.Context(), cm, withStats)
	if err != nil {
		return gitError(err, "Commit")
	}
	// status and last_pipeline: the newest pipeline at the commit
	// (Entities::CommitDetail: status_for, lazy_latest_pipeline; the
	// pipeline only to who may read pipelines), null without one.
	err = s.store.Read(func(data *store.Data) error {
		p := data.Project(rc.ProjectID)
		if p == nil {
			return notFound("Project")
		}
		if pl := data.LatestPipelineFor(p.ID, string(cm.ID), ""); pl != nil {
			status := pl.Status
			d.Status = &status
			if c.canReadPipelines(data, p) {
				d.LastPipeline = &PipelineJSON{ID: pl.ID, IID: pl.ID, ProjectID: pl.ProjectID, Ref: pl.Ref, SHA: pl.SHA,
					Status: pl.Status, Source: pl.PipelineSource(), CreatedAt: ts(pl.CreatedAt), UpdatedAt: ts(pl.UpdatedAt),
					WebURL: c.view(data).pipelineWebURL(pl)}
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, d)
}

// CommitRef is one branch or tag containing a commit.
type CommitRef struct {
	Type string `json:"type"`
	Name string `json:"name"`
}

// commitRefs implements GET .../commits/:sha/refs (rules commits.refs.*).
func (s *Server) commitRefs(c *Ctx) error {
	kind := c.In().String("type")
	if err := c.In().Err(); err != nil {
		return err
	}
	rc, cm, err := s.commitIn(c)
	if err != nil {
		return err
	}
	branches, tags, err := rc.Repo.RefsContaining(c.R.Context(), cm.ID)
	if err != nil {
		return gitError(err, "Commit")
	}
	var refs []CommitRef
	if kind == nil || *kind != "tag" {
		for _, b := range branches {
			refs = append(refs, CommitRef{Type: "branch", Name: b})
		}
	}
	if kind == nil || *kind != "branch" {
		for _, t := range tags {
			refs = append(refs, CommitRef{Type: "tag", Name: t})
		}
	}
	page, err := Paginate(c, refs, nil, func(r CommitRef) CommitRef { return r })
	if err != nil {
		return err
	}
	return c.JSONPage(page)
}

// commitSequence implements GET .../commits/:sha/sequence (rule commits.sequence.1).
func (s *Server) commitSequence(c *Ctx) error {
	firstParent := c.In().BoolOr("first_parent", false)
	if err := c.In().Err(); err != nil {
		return err
	}
	rc, cm, err := s.commitIn(c)
	if err != nil {
		return err
	}
	n, err := rc.Repo.Count(c.R.Context(), cm.ID, firstParent)
	if err != nil {
		return gitError(err, "Commit")
	}
	return c.JSON(http.StatusOK, map[string]int{"count": n})
}

// CommitDiff is one changed file of a commit.
type CommitDiff struct {
	Diff        string `json:"diff"`
	NewPath     string `json:"new_path"`
	OldPath     string `json:"old_path"`
	AMode       string `json:"a_mode"`
	BMode       string `json:"b_mode"`
	NewFile     bool   `json:"new_file"`
	RenamedFile bool   `json:"renamed_file"`
	DeletedFile bool   `json:"deleted_file"`
}

// gitMode prints a mode as the platform does: "0" for no file.
func gitMode(m string) string {
	if strings.Trim(m, "0") == "" {
		return "0"
	}
	return m
}

// commitDiff implements GET .../commits/:sha/diff (rule commits.diff.*).
func (s *Server) commitDiff(c *Ctx) error {
	unidiff := c.In().BoolOr("unidiff", false)
	if err := c.In().Err(); err != nil {
		return err
	}
	rc, cm, err := s.commitIn(c)
	if err != nil {
		return err
	}
	files, err := rc.Repo.Diff(c.R.Context(), cm, unidiff)
	if err != nil {
		return gitError(err, "Commit")
	}
	page, err := Paginate(c, files, nil, func(f repository.FileDiff) CommitDiff {
		return CommitDiff{Diff: f.Patch, NewPath: f.NewPath, OldPath: f.OldPath, AMode: gitMode(f.AMode), BMode: gitMode(f.BMode),
			NewFile: f.NewFile, RenamedFile: f.Renamed, DeletedFile: f.Deleted}
	})
	if err != nil {
		return err
	}
	return c.JSONPage(page)
}

// CommitComment is the spec's commit comment.
type CommitComment struct {
	Note      string        `json:"note"`
	Path      *string       `json:"path"`
	Line      *int          `json:"line"`
	LineType  *string       `json:"line_type"`
	Author    CommentAuthor `json:"author"`
	CreatedAt string        `json:"created_at"`
}

// CommentAuthor is the author of a commit comment: {id, username, email, name, state, created_at}.
type CommentAuthor struct {
	ID        int     `json:"id"`
	Username  string  `json:"username"`
	Email     string  `json:"email"`
	Name      string  `json:"name"`
	State     string  `json:"state"`
	CreatedAt string  `json:"created_at"`
	AvatarURL *string `json:"avatar_url"`
	WebURL    string  `json:"web_url"`
}

func (v *view) commitComment(cc *store.CommitComment) CommitComment {
	out := CommitComment{Note: cc.Note, Line: cc.Line, CreatedAt: ts(cc.CreatedAt)}
	if cc.Path != "" {
		out.Path = &cc.Path
	}
	if cc.LineType != "" {
		out.LineType = &cc.LineType
	}
	if u := v.d.User(cc.AuthorID); u != nil {
		// Only the public email is shown; the private one stays private.
		out.Author = CommentAuthor{ID: u.ID, Username: u.Username, Email: u.PublicEmail, Name: u.Name, State: u.State,
			CreatedAt: ts(u.CreatedAt), WebURL: v.base + "/" + u.Username}
	}
	return out
}

// listCommitComments implements GET .../commits/:sha/comments (rule commits.comments.2).
func (s *Server) listCommitComments(c *Ctx) error {
	rc, cm, err := s.commitIn(c)
	if err != nil {
		return err
	}
	return s.readPage(c, func(d *store.Data) (*Page, error) {
		v := c.view(d)
		return Paginate(c, d.CommitComments(rc.ProjectID, string(cm.ID)), nil, v.commitComment)
	})
}

// createCommitComment implements POST .../commits/:sha/comments (rule commits.comments.1).
func (s *Server) createCommitComment(c *Ctx) error {
	in := c.In()
	note := in.StringOr("note", "")
	p := in.StringOr("path", "")
	line := in.Int("line")
	lineType := in.String("line_type")
	if err := in.Err(); err != nil {
		return err
	}
	rc, cm, err := s.commitIn(c)
	if err != nil {
		return err
	}
	if strings.TrimSpace(note) == "" {
		return validation(map[string][]string{"note": {"can't be blank"}})
	}
	cc := &store.CommitComment{ProjectID: rc.ProjectID, SHA: string(cm.ID), Note: note, AuthorID: c.Caller.ID}
	// A line comment needs the file and the line; the line type defaults to new.
	if p != "" && line != nil {
		cc.Path, cc.Line, cc.LineType = p, line, "new"
		if lineType != nil {
			cc.LineType = *lineType
		}
	}
	var out CommitComment
	err = s.store.Write(func(d *store.Data) error {
		d.AddCommitComment(cc)
		out = c.view(d).commitComment(cc)
		return nil
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, out)
}

// pickCommitAs serves cherry-pick (false) or revert (true).
func pickCommitAs(revert bool) handler {
	return func(s *Server, c *Ctx) error { return s.pickCommit(c, revert) }
}

// pickCommit implements POST .../commits/:sha/cherry_pick and .../revert
// (rules commits.cherry-pick.*, commits.revert.*): git's three-way merge of
// the commit's change (or its inverse) onto the branch.
func (s *Server) pickCommit(c *Ctx, revert bool) error {
	in := c.In()
	branch := in.StringOr("branch", "")
	dryRun := in.BoolOr("dry_run", false)
	var message *string
	if !revert {
		message = in.String("message")
	}
	if err := in.Err(); err != nil {
		return err
	}
	rc, err := s.repoOf(c, true)
	if err != nil {
		return err
	}
	cm, err := commitOf(c, rc)
	if err != nil {
		return err
	}
	ctx := c.R.Context()
	id, err := s.repos.Pick(ctx, &rc.Target, repository.PickRequest{Commit: cm, Branch: branch, Revert: revert,
		DryRun: dryRun, Message: message})
	if err != nil {
		return workflowError(err)
	}
	if dryRun {
		return c.JSON(http.StatusOK, map[string]string{"dry_run": "success"})
	}
	picked, err := rc.Repo.Commit(ctx, id)
	if err != nil {
		return gitError(err, "Commit")
	}
	return c.JSON(http.StatusCreated, rc.commitJSON(picked, true))
}

// createCommit implements POST /projects/:id/repository/commits (rules commits.create.*).
func (s *Server) createCommit(c *Ctx) error {
	in := c.In()
	branch := in.StringOr("branch", "")
	msg := in.StringOr("commit_message", "")
	raw := in.Objects("actions")
	startBranch, startSHA := in.StringOr("start_branch", ""), in.StringOr("start_sha", "")
	authorEmail, authorName := in.String("author_email"), in.String("author_name")
	withStats := in.BoolOr("stats", true)
	force := in.BoolOr("force", false)
	var startProject *string
	if c.P.Has("start_project") {
		startProject = in.String("start_project")
	}
	if err := in.Err(); err != nil {
		return err
	}
	actions, lasts, verr := readActions(raw)
	if verr != nil {
		return verr
	}
	if startBranch != "" && startSHA != "" {
		return validation(map[string][]string{"start_branch": {"start_branch, start_sha are mutually exclusive"}})
	}
	rc, err := s.repoOf(c, true)
	if err != nil {
		return err
	}
	req := &repository.CommitRequest{Branch: branch, Message: msg, Actions: actions, LastCommitIDs: lasts, Force: force,
		StartBranch: startBranch, StartSHA: startSHA, Author: rc.Signature(s.repos.Now())}
	if authorName != nil {
		req.Author.Name = *authorName
	}
	if authorEmail != nil {
		req.Author.Email = *authorEmail
	}
	if startProject != nil {
		from, err := s.startProject(c, *startProject)
		if err != nil {
			return err
		}
		if from.ProjectID != rc.ProjectID {
			req.StartRepo = from.Repo
			if req.StartBranch == "" && req.StartSHA == "" {
				req.StartBranch = branch
			}
		}
	}
	if force && req.StartBranch == "" && req.StartSHA == "" {
		return commitFailed("force needs start_branch or start_sha")
	}
	cm, err := s.repos.Commit(c.R.Context(), &rc.Target, req)
	if err != nil {
		return workflowError(err)
	}
	d, err := rc.commitDetail(c.R.Context(), cm, withStats)
	if err != nil {
		return gitError(err, "Commit")
	}
	return c.JSON(http.StatusCreated, d)
}

// startProject resolves start_project (an ID or a full path) to a repository
// the caller may read.
func (s *Server) startProject(c *Ctx, ref string) (*repoCtx, error) {
	var id int
	err := s.store.Read(func(d *store.Data) error {
		var p *store.Project
		if n, err := strconv.Atoi(ref); err == nil {
			p = d.Project(n)
		} else {
			p = d.ProjectByPath(ref)
		}
		if p == nil || !d.CanSeeProject(c.Caller, p) ||
			p.Visibility == "private" && c.projectRole(d, p) < readCodeLevel {
			return notFound("Project")
		}
		id = p.ID
		return nil
	})
	if err != nil {
		return nil, err
	}
	r, err := s.repos.Get(id)
	if err != nil {
		return nil, notFound("Project")
	}
	return &repoCtx{Target: repository.Target{ProjectID: id, Repo: r}}, nil
}

// readActions validates actions[] (rule commits.create.8): an invalid action
// answers the validation shape naming it, actions[<i>][<field>].
func readActions(raw []map[string]any) ([]repository.Action, map[int]string, error) {
	if len(raw) == 0 {
		return nil, nil, validation(map[string][]string{"actions": {"can't be blank"}})
	}
	fields := map[string][]string{}
	bad := func(i int, field, msg string) {
		k := fmt.Sprintf("actions[%d][%s]", i, field)
		fields[k] = append(fields[k], msg)
	}
	str := func(m map[string]any, k string) (string, bool, bool) {
		v, ok := m[k]
		if !ok || v == nil {
			return "", false, true
		}
		switch x := v.(type) {
		case string:
			return x, true, true
		case json.Number:
			return x.String(), true, true
		}
		return "", true, false
	}
	var out []repository.Action
	lasts := map[int]string{}
	for i, m := range raw {
		kind, _, _ := str(m, "action")
		p, hasPath, okPath := str(m, "file_path")
		prev, hasPrev, _ := str(m, "previous_path")
		content, hasContent, okContent := str(m, "content")
		enc, hasEnc, _ := str(m, "encoding")
		last, hasLast, _ := str(m, "last_commit_id")
		a := repository.Action{Kind: kind, Path: p, PreviousPath: prev}
		switch kind {
		case "create", "update", "delete", "move", "chmod":
		default:
			bad(i, "action", "does not have a valid value")
		}
		if !hasPath || !okPath || p == "" {
			bad(i, "file_path", "is missing")
		} else if strings.Contains("/"+p+"/", "/../") || !repository.ValidPath(p) {
			bad(i, "file_path", "should be a valid file path")
		}
		if kind == "move" && (!hasPrev || prev == "") {
			bad(i, "previous_path", "is missing")
		}
		if (kind == "create" || kind == "update") && !hasContent {
			bad(i, "content", "is missing")
		}
		if !okContent {
			bad(i, "content", "is invalid")
		}
		if hasEnc && enc != "text" && enc != "base64" {
			bad(i, "encoding", "does not have a valid value")
		}
		if hasContent && okContent && kind != "delete" && kind != "chmod" {
			e := enc
			b, ok := decodeContent(content, &e)
			if !hasEnc {
				b, ok = []byte(content), true
			}
			if !ok {
				bad(i, "content", "is not valid base64")
			}
			a.Content, a.HasContent = b, true
		}
		if v, ok := m["execute_filemode"]; ok && v != nil {
			// A Boolean of the platform's actions[] params, coerced as every boolean.
			b, ok := params.AsBool(v)
			if !ok {
				bad(i, "execute_filemode", "is invalid")
			}
			a.Executable = &b
		}
		if kind == "chmod" && a.Executable == nil {
			bad(i, "execute_filemode", "is missing")
		}
		if hasLast && last != "" {
			lasts[i] = last
		}
		out = append(out, a)
	}
	if len(fields) > 0 {
		return nil, nil, validation(fields)
	}
	return out, lasts, nil
}
