package api

import (
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/v4cert/v4cert/reference/access"
	"github.com/v4cert/v4cert/reference/store"
	"github.com/v4cert/v4cert/reference/workflow/mergerequests"
	"github.com/v4cert/v4cert/reference/workflow/repository"
)

// The spec's merge requests (Endpoints, Merge requests) and the platform's
// provisioning around them: create, read, update, merge, delete, notes,
// approvals. The git side lives in merge_requests_git.go, rendering and
// permissions in merge_requests_view.go.

// subscribeMergeRequestAs serves subscribe (true) and unsubscribe (false).
func subscribeMergeRequestAs(on bool) handler {
	return func(s *Server, c *Ctx) error { return s.subscribeMergeRequest(c, on) }
}

// approveMergeRequestAs serves approve (true) and unapprove (false).
func approveMergeRequestAs(approve bool) handler {
	return func(s *Server, c *Ctx) error { return s.approveMergeRequest(c, approve) }
}

// mutuallyExclusive is the platform's 400 for two parameters given together.
func mutuallyExclusive(a, b string) *Error {
	msg := a + ", " + b + " are mutually exclusive"
	e := badRequest(msg)
	e.Body["error"] = msg
	return e
}

// readMRFields reads the attributes POST and PUT .../merge_requests share.
func (c *Ctx) readMRFields(create bool) (store.MRFields, error) {
	in := c.In()
	f := store.MRFields{Title: in.String("title"), Description: in.String("description"),
		RemoveSourceBranch: in.Bool("remove_source_branch"), Squash: in.Bool("squash"),
		AllowCollaboration: in.Bool("allow_collaboration"), ApprovalsBeforeMerge: in.Int("approvals_before_merge")}
	if f.AllowCollaboration == nil {
		f.AllowCollaboration = in.Bool("allow_maintainer_to_push")
	}
	if create {
		f.SourceBranch, f.TargetBranch = in.String("source_branch"), in.String("target_branch")
	} else {
		f.TargetBranch = in.String("target_branch")
		f.DiscussionLocked = in.Bool("discussion_locked")
		f.StateEvent = in.Enum("state_event", "close", "reopen")
		f.AddLabels, f.RemoveLabels = in.Strings("add_labels"), in.Strings("remove_labels")
	}
	// As the platform: convert_parameters_from_legacy_format puts a given
	// assignee_id in place of assignee_ids, so with both assignee_id wins
	// (gitlabhq/gitlabhq lib/api/helpers/common_helpers.rb @4555e1b2; rule
	// merge_requests.create.6). assignee_ids is still type-checked.
	switch {
	case c.P.Has("assignee_id"):
		if c.P.Has("assignee_ids") {
			in.Ints("assignee_ids")
		}
		f.AssigneesGiven = true
		if id := in.Int("assignee_id"); id != nil && *id > 0 {
			f.AssigneeIDs = []int{*id}
		}
	case c.P.Has("assignee_ids"):
		f.AssigneeIDs, f.AssigneesGiven = in.Ints("assignee_ids"), true
	}
	if c.P.Has("reviewer_ids") {
		f.ReviewerIDs, f.ReviewersGiven = in.Ints("reviewer_ids"), true
	}
	if c.P.Has("labels") {
		f.Labels, f.LabelsGiven = in.Strings("labels"), true
	}
	f.MilestoneID = in.Int("milestone_id")
	if f.ApprovalsBeforeMerge != nil && *f.ApprovalsBeforeMerge < 0 {
		return f, invalidParam("approvals_before_merge")
	}
	return f, in.Err()
}

// branchError is the validation shape for a branch a merge request cannot use.
func branchError(field, msg string) *Error { return validation(map[string][]string{field: {msg}}) }

// sameBranchError is the platform's answer to a merge request whose source
// and target are one branch: MergeRequest#validate_branches adds the error
// under :branch_conflict, which handle_merge_request_errors! answers with
// unprocessable_entity!(errors[:branch_conflict]), 422 {"message":[...]}
// (gitlabhq/gitlabhq lib/api/helpers/merge_requests_helpers.rb @d72ae08a).
// Create and update are not shown by the spec (rule merge_requests.create.3).
func sameBranchError() *Error {
	return &Error{Status: http.StatusUnprocessableEntity,
		Body: map[string]any{"message": []string{"You can't use same project/branch for source and target"}}}
}

// createMergeRequest implements the platform's POST /projects/:id/merge_requests
// (provisioning; rules merge_requests.create.*): Developer and above, two
// existing different branches, no other open merge request between them.
func (s *Server) createMergeRequest(c *Ctx) error {
	c.In().Require("source_branch", "target_branch", "title")
	f, err := c.readMRFields(true)
	if err != nil {
		return err
	}
	targetProject := c.In().Int("target_project_id")
	if err := c.In().Err(); err != nil {
		return err
	}
	rc, err := s.mrRepo(c, true)
	if err != nil {
		return err
	}
	if targetProject != nil && *targetProject != rc.ProjectID {
		// The reference has no forks: a merge request stays in its project.
		return errorf(http.StatusUnprocessableEntity, "Source project is not a fork of the target project")
	}
	src, tgt := *f.SourceBranch, *f.TargetBranch
	if src == tgt {
		return sameBranchError()
	}
	ctx := c.R.Context()
	l := s.mr.Lock(rc.ProjectID)
	l.Lock()
	defer l.Unlock()
	srcHead, tgtHead, err := mergerequests.BranchHeads(ctx, rc.Repo, src, tgt)
	if err != nil {
		return gitError(err, "Branch")
	}
	switch {
	case srcHead == "":
		return branchError("source_branch", "Source branch \""+src+"\" does not exist")
	case tgtHead == "":
		return branchError("target_branch", "Target branch \""+tgt+"\" does not exist")
	}
	st, err := s.mr.Evaluate(ctx, rc.ProjectID, rc.Repo, src, tgt, "", true)
	if errors.Is(err, repository.ErrUnrelated) {
		return branchError("base", "The source and target branches have no common history")
	}
	if err != nil {
		return gitError(err, "Commit")
	}
	var body MergeRequestDetailJSON
	var iid int
	err = s.store.Write(func(d *store.Data) error {
		p, err := c.mrProjectOf(d)
		if err != nil {
			return err
		}
		if projectRole(d, c.Caller, p) < access.Developer {
			return forbidden()
		}
		mr, err := d.CreateMergeRequest(p, c.Caller, f, st.Version, st.Check)
		if err != nil {
			return mrStoreError(err)
		}
		iid, body = mr.IID, c.view(d).mergeRequestDetail(mr, p, false)
		return nil
	})
	if err != nil {
		return err
	}
	rc.Repo.SetRef(ctx, mergerequests.HeadRef(iid), srcHead)
	return c.JSON(http.StatusCreated, body)
}

// mrStoreError maps what the store refuses to the platform's answers.
func mrStoreError(err error) error {
	var dup *store.DuplicateMRError
	if errors.As(err, &dup) {
		return errorf(http.StatusConflict, "%s", dup.Error())
	}
	return err
}

// mrRepo resolves the project's repository for the merge request endpoints;
// with write the caller must be able to push (Developer and above).
func (s *Server) mrRepo(c *Ctx, write bool) (*repoCtx, error) {
	if err := s.store.Read(func(d *store.Data) error {
		_, err := c.mrProjectOf(d)
		return err
	}); err != nil {
		return nil, err
	}
	return s.repoOf(c, write)
}

// getMergeRequest implements GET /projects/:id/merge_requests/:merge_request_iid
// (provisioning; rules merge_requests.get.*).
func (s *Server) getMergeRequest(c *Ctx) error {
	details := c.In().BoolOr("with_labels_details", false)
	c.In().Bool("render_html")
	diverged := c.In().BoolOr("include_diverged_commits_count", false)
	c.In().Bool("include_rebase_in_progress")
	if err := c.In().Err(); err != nil {
		return err
	}
	var body MergeRequestDetailJSON
	err := s.store.Read(func(d *store.Data) error {
		p, mr, err := c.mrOf(d)
		if err != nil {
			return err
		}
		body = c.view(d).mergeRequestDetail(mr, p, details)
		if diverged {
			n := mr.Check.Diverged
			body.DivergedCommitsCount = &n
		}
		return nil
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, body)
}

// updateParams are the attributes PUT .../merge_requests/:iid takes; at least one is needed.
var updateParams = []string{"add_labels", "allow_collaboration", "allow_maintainer_to_push", "assignee_id", "assignee_ids",
	"description", "discussion_locked", "labels", "milestone_id", "remove_labels", "remove_source_branch", "reviewer_ids",
	"squash", "state_event", "target_branch", "title"}

// updateMergeRequest implements PUT /projects/:id/merge_requests/:merge_request_iid
// (provisioning; rules merge_requests.update.*): the author or Developer and
// above; a new target branch makes a new version.
func (s *Server) updateMergeRequest(c *Ctx) error {
	given := false
	for _, n := range updateParams {
		given = given || c.P.Has(n)
	}
	if !given {
		return badRequest(strings.Join(updateParams, ", ") + " are missing, at least one parameter must be provided")
	}
	f, err := c.readMRFields(false)
	if err != nil {
		return err
	}
	if f.TargetBranch != nil && *f.TargetBranch == "" {
		return branchError("target_branch", "can't be blank")
	}
	rc, err := s.mrRepo(c, false)
	if err != nil {
		return err
	}
	ctx := c.R.Context()
	l := s.mr.Lock(rc.ProjectID)
	l.Lock()
	defer l.Unlock()
	// A new target branch must exist and differ from the source; the
	// comparison is then made again.
	var retarget *mergerequests.State
	if f.TargetBranch != nil {
		var source string
		var same bool
		err := s.store.Read(func(d *store.Data) error {
			_, mr, err := c.mrOf(d)
			if err == nil {
				source, same = mr.SourceBranch, mr.TargetBranch == *f.TargetBranch || !mr.Open()
			}
			return err
		})
		if err != nil {
			return err
		}
		if !same {
			if source == *f.TargetBranch {
				return sameBranchError()
			}
			if _, err := rc.Repo.Branch(ctx, *f.TargetBranch); err != nil {
				return branchError("target_branch", "Target branch \""+*f.TargetBranch+"\" does not exist")
			}
			st, err := s.mr.Evaluate(ctx, rc.ProjectID, rc.Repo, source, *f.TargetBranch, "", true)
			if err != nil && !errors.Is(err, repository.ErrUnrelated) {
				return gitError(err, "Commit")
			}
			retarget = &st
		}
	}
	var body MergeRequestDetailJSON
	var reopened bool
	var mrSource, mrTarget string
	err = s.store.Write(func(d *store.Data) error {
		p, mr, err := c.mrOf(d)
		if err != nil {
			return err
		}
		if !canUpdateMR(d, c.Caller, p, mr) {
			return forbidden()
		}
		wasClosed := mr.State == store.MRClosed
		if err := d.UpdateMergeRequest(p, mr, f, c.Caller); err != nil {
			return mrStoreError(err)
		}
		if retarget != nil && mr.Open() {
			d.AddVersion(mr, retarget.Version, retarget.Check)
		}
		reopened, mrSource, mrTarget = wasClosed && mr.State == store.MROpened, mr.SourceBranch, mr.TargetBranch
		body = c.view(d).mergeRequestDetail(mr, p, false)
		return nil
	})
	if err != nil {
		return err
	}
	if reopened {
		// A reopened merge request is compared again: its branches may have
		// moved while it was closed.
		s.mr.RefreshLocked(ctx, rc.ProjectID, rc.Repo, mrSource, mrTarget)
		if err := s.store.Read(func(d *store.Data) error {
			p, mr, err := c.mrOf(d)
			if err == nil {
				body = c.view(d).mergeRequestDetail(mr, p, false)
			}
			return err
		}); err != nil {
			return err
		}
	}
	return c.JSON(http.StatusOK, body)
}

// deleteMergeRequest implements DELETE /projects/:id/merge_requests/:merge_request_iid
// (provisioning; rule merge_requests.delete.*): project Owners and administrators.
func (s *Server) deleteMergeRequest(c *Ctx) error {
	err := s.store.Write(func(d *store.Data) error {
		p, mr, err := c.mrOf(d)
		if err != nil {
			return err
		}
		if projectRole(d, c.Caller, p) < access.Owner {
			return forbidden()
		}
		d.DeleteMergeRequest(mr)
		return nil
	})
	if err != nil {
		return err
	}
	return c.NoContent()
}

// mergeMergeRequest implements PUT /projects/:id/merge_requests/:merge_request_iid/merge
// (provisioning; rules merge_requests.merge.*). The merge request is locked
// while git works, so nothing else changes its state meanwhile; the answers
// are the spec's 403 without the right to merge (the platform's 401 is a
// recorded divergence), and the platform's 405 when it cannot merge now,
// 409 when sha is not the source head, 422 when writing fails.
func (s *Server) mergeMergeRequest(c *Ctx) error {
	in := c.In()
	mergeMsg, squashMsg := in.String("merge_commit_message"), in.String("squash_commit_message")
	squash := in.Bool("squash")
	removeSource := in.Bool("should_remove_source_branch")
	sha := in.String("sha")
	in.Bool("merge_when_pipeline_succeeds")
	in.Bool("auto_merge")
	if err := in.Err(); err != nil {
		return err
	}
	rc, err := s.mrRepo(c, false)
	if err != nil {
		return err
	}
	var m mergerequests.Merge
	var mrID int
	err = s.store.Write(func(d *store.Data) error {
		p, mr, err := c.mrOf(d)
		if err != nil {
			return err
		}
		if !canMerge(d, c.Caller, p) {
			// Authentication 8: insufficient permission answers 403. The
			// platform answers 401 here (unauthorized! unless
			// can_be_merged_by?), a divergence the rulebook records
			// (merge_requests.merge.8).
			return forbidden()
		}
		if mr.State != store.MROpened || mr.Draft() || d.Blocked(mr) || mr.Check.BranchMissing ||
			(mr.ApprovalsBeforeMerge != nil && len(mr.ApprovedBy) < *mr.ApprovalsBeforeMerge) {
			return mergeNotAllowed()
		}
		author := d.User(mr.AuthorID)
		m = mergerequests.Merge{ProjectID: p.ID, Title: mr.Title, Ref: d.ProjectFullPath(p) + "!" + strconv.Itoa(mr.IID),
			Source: mr.SourceBranch, Target: mr.TargetBranch, Method: p.MergeMethod, Squash: mr.Squash,
			RemoveSource: mr.ForceRemoveSourceBranch, MergeMsg: mergeMsg, SquashMsg: squashMsg, SHA: sha}
		if author != nil {
			m.Author = repository.Signature{Name: author.Name, Email: author.Email}
		} else {
			m.Author = repository.Signature{Name: "Ghost User", Email: "ghost@example.com"}
		}
		if squash != nil {
			m.Squash = *squash
		}
		if removeSource != nil {
			m.RemoveSource = *removeSource
		}
		mrID = mr.ID
		d.LockForMerge(mr)
		return nil
	})
	if err != nil {
		return err
	}
	ctx := c.R.Context()
	now := s.repos.Now()
	m.Author.When = now
	out, mergeErr := s.mr.MergeBranches(ctx, &rc.Target, m, rc.Signature(now))
	var body MergeRequestDetailJSON
	err = s.store.Write(func(d *store.Data) error {
		mr := d.MergeRequest(mrID)
		if mr == nil {
			return notFound("Merge Request")
		}
		if mergeErr != nil {
			d.UnlockMerge(mr)
			return workflowError(mergeErr)
		}
		d.MarkMerged(mr, c.Caller, out.MergeCommit, out.SquashCommit, removeSource)
		body = c.view(d).mergeRequestDetail(mr, d.Project(mr.ProjectID), false)
		return nil
	})
	if err != nil {
		return err
	}
	// The target moved (and the source may be gone): the other merge
	// requests on those branches are compared again.
	s.mr.Refresh(ctx, rc.ProjectID, rc.Repo, m.Target, m.Source)
	return c.JSON(http.StatusOK, body)
}

// mergeRequestList is how the project's merge request list takes the
// issuable attributes (Endpoints, Merge requests): every scope by default
// (reviews_for_me among them), the states locked and merged too, iids[],
// order_by among created_at, title and updated_at; not[...] adds
// my_reaction_emoji and takes None / Any for assignee_id.
var mergeRequestList = issuableList{
	scopes:       []string{"created_by_me", "assigned_to_me", "reviews_for_me", "all"},
	defaultScope: "all",
	states:       []string{"all", "opened", "closed", "locked", "merged"},
	exclusive: [][2]string{{"author_id", "author_username"}, {"reviewer_id", "reviewer_username"},
		{"merge_user_id", "merge_user_username"}},
	iids:   true,
	orders: []string{"created_at", "title", "updated_at"},
	not: issuableNotList{
		exclusive: [][2]string{{"author_id", "author_username"}, {"reviewer_id", "reviewer_username"}},
		reaction:  true, assigneePredefined: true,
	},
}

// globalMergeRequestList is GET /merge_requests's: created_by_me by
// default, no iids[], in for search, and merged_at among the orders.
var globalMergeRequestList = func() issuableList {
	l := mergeRequestList
	l.defaultScope, l.iids, l.in = "created_by_me", false, true
	l.orders = append(slices.Clone(l.orders), "merged_at")
	return l
}()

// readMRFilter reads the list attributes (Endpoints, Merge requests): the
// issuable ones as the list declares them, then the merge requests' own;
// global reads the global list's (deployed_*).
func (c *Ctx) readMRFilter(global bool) (store.MRFilter, error) {
	l := mergeRequestList
	if global {
		l = globalMergeRequestList
	}
	shared, err := c.readIssuable(l)
	if err != nil {
		return store.MRFilter{}, err
	}
	in := c.In()
	f := store.MRFilter{IssuableFilter: shared}
	if f.Reviewer, err = userMatch(c, "reviewer_id", "reviewer_username", true); err != nil {
		return f, err
	}
	if f.MergeUser, err = userMatch(c, "merge_user_id", "merge_user_username", false); err != nil {
		return f, err
	}
	if f.ApprovedBy, err = idsMatch(c, "approved_by_ids"); err != nil {
		return f, err
	}
	if f.Approver, err = idsMatch(c, "approver_ids"); err != nil {
		return f, err
	}
	if a := in.Enum("approved", "yes", "no"); a != nil {
		yes := *a == "yes"
		f.Approved = &yes
	}
	f.Environment = in.String("environment")
	if global {
		f.DeployedAfter, f.DeployedBefore = in.Time("deployed_after"), in.Time("deployed_before")
	}
	f.SourceBranch, f.TargetBranch = in.String("source_branch"), in.String("target_branch")
	if w := in.Enum("wip", "yes", "no"); w != nil {
		yes := *w == "yes"
		f.Draft = &yes
	}
	if f.Draft == nil {
		f.Draft = in.Bool("draft")
	}
	if err := in.Err(); err != nil {
		return f, err
	}
	// not[reviewer_id] and not[reviewer_username], with None / Any.
	if na, err := notAttrs(c); err != nil || na == nil {
		return f, err
	} else if f.NotReviewer, err = na.user("reviewer_id", "reviewer_username", true); err != nil {
		return f, err
	}
	return f, nil
}

// maxApprovedBy is the Limits section's cap: approved_by_ids accepts up to 5 users.
const maxApprovedBy = 5

// idsMatch reads approved_by_ids and approver_ids: up to five user ids, or None / Any.
func idsMatch(c *Ctx, name string) (*store.IDsMatch, error) {
	if !c.P.Has(name) {
		return nil, nil
	}
	if s, ok := c.P.Raw(name).(string); ok {
		if k, ok := store.Predefined(s); ok {
			return &store.IDsMatch{Kind: k}, nil
		}
	}
	ids := c.In().Ints(name)
	if err := c.In().Err(); err != nil {
		return nil, err
	}
	if len(ids) > maxApprovedBy {
		return nil, invalidParam(name)
	}
	return &store.IDsMatch{Kind: "ids", IDs: ids}, nil
}

// listMergeRequests implements GET /merge_requests (rules merge_requests.list.*):
// the merge requests the caller may read, created_by_me unless scope says
// otherwise; anonymous callers may ask only for scope=all.
func (s *Server) listMergeRequests(c *Ctx) error {
	if c.Caller == nil && c.In().StringOr("scope", "") != "all" {
		return unauthorized()
	}
	return s.listMRs(c, true)
}

// listProjectMergeRequests implements GET /projects/:id/merge_requests
// (rules merge_requests.list.*): every merge request of the project by default.
func (s *Server) listProjectMergeRequests(c *Ctx) error { return s.listMRs(c, false) }

func (s *Server) listMRs(c *Ctx, global bool) error {
	f, err := c.readMRFilter(global)
	if err != nil {
		return err
	}
	in := c.In()
	simple := in.Enum("view", "simple") != nil
	details := in.BoolOr("with_labels_details", false)
	recheck := in.BoolOr("with_merge_status_recheck", false)
	if err := in.Err(); err != nil {
		return err
	}
	if recheck && !simple {
		return s.listRechecked(c, f, global, details)
	}
	var page *Page
	err = s.store.Read(func(d *store.Data) error {
		var from *store.Project
		if !global {
			p, err := c.mrProjectOf(d)
			if err != nil {
				return err
			}
			f.ProjectID, from = p.ID, p
		}
		v := c.view(d)
		if simple {
			page, err = pageWalk(c, d.MergeRequestWalk(f), v.mergeRequestSimple)
		} else {
			page, err = pageWalk(c, d.MergeRequestWalk(f), func(mr *store.MergeRequest) MergeRequestJSON { return v.mergeRequest(mr, from, details) })
		}
		return err
	})
	if err != nil {
		return err
	}
	return c.JSONPage(page)
}

// listRechecked answers a list with with_merge_status_recheck=true: the open
// merge requests of the page are checked again against their branches'
// current heads before they render. A GET changes nothing stored: the fresh
// check shows in this answer, and the store learns of moved branches when
// they are written.
func (s *Server) listRechecked(c *Ctx, f store.MRFilter, global, details bool) error {
	var items []*store.MergeRequest
	var from *store.Project
	err := s.store.Read(func(d *store.Data) error {
		if !global {
			p, err := c.mrProjectOf(d)
			if err != nil {
				return err
			}
			f.ProjectID, from = p.ID, p
		}
		items = d.FindMergeRequests(f)
		return nil
	})
	if err != nil {
		return err
	}
	page, err := PaginateWindow(c, len(items), func(start, end int) ([]MergeRequestJSON, error) {
		type snap struct {
			projectID      int
			source, target string
		}
		snaps := map[int]snap{}
		s.store.Read(func(d *store.Data) error {
			for _, mr := range items[start:end] {
				if mr.Open() {
					snaps[mr.ID] = snap{mr.ProjectID, mr.SourceBranch, mr.TargetBranch}
				}
			}
			return nil
		})
		// git runs outside the lock.
		fresh := map[int]store.MergeCheck{}
		for id, sn := range snaps {
			r, err := s.repos.Get(sn.projectID)
			if err != nil {
				continue
			}
			if st, err := s.mr.Evaluate(c.R.Context(), sn.projectID, r, sn.source, sn.target, "", false); err == nil {
				fresh[id] = st.Check
			}
		}
		out := make([]MergeRequestJSON, 0, end-start)
		s.store.Read(func(d *store.Data) error {
			v := c.view(d)
			for _, mr := range items[start:end] {
				if chk, ok := fresh[mr.ID]; ok {
					cp := *mr
					cp.Check = chk
					mr = &cp
				}
				out = append(out, v.mergeRequest(mr, from, details))
			}
			return nil
		})
		return out, nil
	})
	if err != nil {
		return err
	}
	return c.JSONPage(page)
}

// withMR runs fn on the merge request of the path under the store's read lock.
func (s *Server) withMR(c *Ctx, fn func(d *store.Data, p *store.Project, mr *store.MergeRequest) error) error {
	return s.store.Read(func(d *store.Data) error {
		p, mr, err := c.mrOf(d)
		if err != nil {
			return err
		}
		return fn(d, p, mr)
	})
}
