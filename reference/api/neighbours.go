package api

import (
	"errors"
	"net/http"
	"strings"

	"github.com/v4cert/v4cert/reference/access"
	"github.com/v4cert/v4cert/reference/store"
	"github.com/v4cert/v4cert/reference/workflow/repository"
)

// Neighbouring endpoints tools read beside the spec's areas (issue 18,
// provisioning): a merge request's commits and participants, editing a
// note, deleting a branch, a group's subgroups. Shapes and refusals as the
// platform's lib/api/merge_requests.rb, lib/api/notes.rb with
// lib/api/helpers/notes_helpers.rb @017a6c12, lib/api/branches.rb with
// app/services/branches/delete_service.rb, and lib/api/groups.rb.

// mergeRequestCommits implements GET .../merge_requests/:merge_request_iid/commits
// (provisioning): the commits of the merge request's latest version, newest
// first as git logs them (merge_request_diff.merge_request_diff_commits),
// paginated, each as Entities::Commit.
func (s *Server) mergeRequestCommits(c *Ctx) error {
	rc, err := s.mrRepo(c, false)
	if err != nil {
		return err
	}
	var shas []string
	if err := s.withMR(c, func(_ *store.Data, _ *store.Project, mr *store.MergeRequest) error {
		if v := mr.Latest(); v != nil {
			shas = v.Commits
		}
		return nil
	}); err != nil {
		return err
	}
	ctx := c.R.Context()
	page, err := PaginateWindow(c, len(shas), func(start, end int) ([]CommitJSON, error) {
		out := make([]CommitJSON, 0, end-start)
		for _, sha := range shas[start:end] {
			cm, err := rc.Repo.Commit(ctx, repository.Oid(sha))
			if err != nil {
				return nil, gitError(err, "Commit")
			}
			out = append(out, rc.commitJSON(cm, true))
		}
		return out, nil
	})
	if err != nil {
		return err
	}
	return c.JSONPage(page)
}

// mergeRequestParticipants implements GET .../merge_requests/:merge_request_iid/participants
// (provisioning): merge_request.visible_participants, as Participable
// gathers them in the order the models declare them (Issuable: author,
// the authors of its notes, assignees; MergeRequest: reviewers), each once,
// paginated. Users mentioned in text are not gathered here.
func (s *Server) mergeRequestParticipants(c *Ctx) error {
	var page *Page
	err := s.withMR(c, func(d *store.Data, _ *store.Project, mr *store.MergeRequest) error {
		seen := map[int]bool{}
		var users []*store.User
		add := func(id int) {
			if u := d.User(id); u != nil && !seen[id] {
				seen[id] = true
				users = append(users, u)
			}
		}
		add(mr.AuthorID)
		for _, n := range d.NotesOn(store.Awardable{Type: store.AwardableMergeRequest, ID: mr.ID}) {
			add(n.AuthorID)
		}
		for _, id := range mr.AssigneeIDs {
			add(id)
		}
		for _, id := range mr.ReviewerIDs {
			add(id)
		}
		var err error
		page, err = Paginate(c, users, nil, c.view(d).userRef)
		return err
	})
	if err != nil {
		return err
	}
	return c.JSONPage(page)
}

// updateNoteOn adapts updateNote to one kind of noteable.
func updateNoteOn(kind string) handler {
	return func(s *Server, c *Ctx) error { return s.updateNote(c, kind) }
}

// updateNote implements PUT .../issues/:issue_iid/notes/:note_id and
// PUT .../merge_requests/:merge_request_iid/notes/:note_id (provisioning):
// update_note authorizes admin_note on the note, which its author has and,
// through the project, Maintainers and above (app/policies/note_policy.rb
// @05f0ebba); a body that is sent must not be blank.
func (s *Server) updateNote(c *Ctx, kind string) error {
	in := c.In()
	body := in.String("body")
	confidential := in.Bool("confidential")
	if err := in.Err(); err != nil {
		return err
	}
	if body == nil && confidential == nil {
		return grapeError(http.StatusBadRequest, "body, confidential are missing, at least one parameter must be provided")
	}
	if body != nil && strings.TrimSpace(*body) == "" {
		return grapeError(http.StatusBadRequest, "body is empty")
	}
	noteID, err := c.pathID("note_id")
	if err != nil {
		return err
	}
	var out NoteJSON
	err = s.store.Write(func(d *store.Data) error {
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
			mp, mr, err := c.mrOf(d)
			if err != nil {
				return err
			}
			p, on, iid = mp, store.Awardable{Type: store.AwardableMergeRequest, ID: mr.ID}, &mr.IID
		}
		n := d.NoteOn(on, noteID)
		if n == nil {
			return notFound("Note")
		}
		if !c.Admin() && n.AuthorID != c.Caller.ID && c.projectRole(d, p) < access.Maintainer {
			return forbidden()
		}
		if body != nil && *body != n.Body {
			d.Touch(n)
			n.Body, n.UpdatedAt = *body, d.Now()
		}
		out = c.view(d).note(n, iid)
		return nil
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, out)
}

// deleteBranch implements DELETE /projects/:id/repository/branches/:branch
// (provisioning): Developer (authorize_push_project); an unknown branch is
// "404 Branch Not Found" (find_branch!), the default branch 400 with the
// pre-receive check's message; 204 when it is gone.
func (s *Server) deleteBranch(c *Ctx) error {
	rc, err := s.repoOf(c, true)
	if err != nil {
		return err
	}
	err = s.repos.DeleteBranch(c.R.Context(), &rc.Target, c.R.PathValue("branch"))
	switch {
	case errors.Is(err, repository.ErrDefaultBranch):
		// On the platform the refusal is git's, not the service's: the
		// pre-receive BranchCheck raises its delete_default_branch message
		// (shaik1002/biggitlabbomb, a mirror, lib/gitlab/checks/branch_check.rb
		// @177aaee1), rm_branch raises PreReceiveError with the "GitLab:"
		// prefix stripped
		// (gitlabhq/gitlabhq lib/gitlab/git/pre_receive_error.rb @7e29b8f3),
		// Branches::DeleteService turns it into http_status 400
		// (gitlabhq/gitlabhq app/services/branches/delete_service.rb @7881eb30)
		// and the route answers render_api_error!(message, 400)
		// (skratsch-solutions/gitlabhq lib/api/branches.rb @b3aafb52). The
		// spec has no branch deletion; the reference answers as the platform.
		return errorf(http.StatusBadRequest, "The default branch of a project cannot be deleted.")
	case errors.Is(err, repository.ErrNotFound):
		return notFound("Branch")
	case err != nil:
		return workflowError(err)
	}
	return c.NoContent()
}

// listSubgroups implements GET /groups/:id/subgroups (provisioning): the
// group's direct children the caller can see, with the filters and order of
// GET /groups (GroupsFinder with parent: group, lib/api/groups.rb).
func (s *Server) listSubgroups(c *Ctx) error {
	o, err := c.readListGroupsOptions()
	if err != nil {
		return err
	}
	return s.readPage(c, func(d *store.Data) (*Page, error) {
		parent, err := c.groupOf(d, "id")
		if err != nil {
			return nil, err
		}
		// The parent's children from the store's index (issue 21): a
		// page costs what the group's children cost, not the world's groups.
		var items []*store.Group
		for _, g := range d.ChildGroups(parent.ID) {
			if o.match(d, c.Caller, g) {
				items = append(items, g)
			}
		}
		sortGroups(items, o)
		return PaginateOffset(c, items, groupRender(c, d, o))
	})
}
