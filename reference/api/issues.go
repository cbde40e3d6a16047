package api

import (
	"net/http"
	"strings"

	"github.com/v4cert/v4cert/reference/store"
)

// The project issue list and issue edit (provisioning: the spec does not
// cover issues; Renovate reads and edits its Dependency Dashboard with them,
// python-gitlab lists them). Parameters and answers as the platform's
// Issues API, read in mirrors of the platform:
// pavankalisetti009/gitlab lib/api/issues.rb @041340ff and
// skratsch-solutions/gitlabhq lib/api/helpers/issues_helpers.rb @e6938f83, lib/api/helpers.rb @48f07af6.

// issueUpdateParams are the attributes PUT .../issues/:issue_iid takes; at
// least one is needed (IssuesHelpers.update_params_at_least_one_of, less
// created_at, milestone and issue_type, which the reference does not take).
var issueUpdateParams = []string{"assignee_id", "assignee_ids", "confidential", "description", "discussion_locked",
	"due_date", "labels", "add_labels", "remove_labels", "milestone_id", "state_event", "title"}

// issueList is how the issue list takes the issuable attributes
// (issues_params, negatable_issue_filter_params): scope in either spelling
// and every scope by default, opened and closed, iids[], assignee_username[],
// milestone_id's wildcards, in, any order_by; not[...] adds milestone_id and
// iids.
var issueList = issuableList{
	scopes: []string{"created-by-me", "assigned-to-me", "created_by_me", "assigned_to_me", "all"},
	states: []string{"opened", "closed", "all"},
	exclusive: [][2]string{{"author_id", "author_username"}, {"assignee_id", "assignee_username"},
		{"milestone_id", "milestone"}},
	iids: true, milestoneID: true, assigneeName: true, in: true,
	not: issuableNotList{
		exclusive: [][2]string{{"author_id", "author_username"}, {"assignee_id", "assignee_username"},
			{"milestone_id", "milestone"}},
		milestoneID: true, iids: true,
	},
}

// listIssues implements GET /projects/:id/issues (provisioning; rules
// issues.list.*): the project's issues the caller may read, every scope
// unless scope says otherwise, newest first.
func (s *Server) listIssues(c *Ctx) error {
	f, err := c.readIssueFilter()
	if err != nil {
		return err
	}
	details := c.In().BoolOr("with_labels_details", false)
	if err := c.In().Err(); err != nil {
		return err
	}
	var page *Page
	err = s.store.Read(func(d *store.Data) error {
		p, err := c.projectOf(d, "id")
		if err != nil {
			return err
		}
		f.ProjectID, f.Today = p.ID, d.Now()
		v := c.view(d)
		page, err = pageWalk(c, d.IssueWalk(f), func(i *store.Issue) IssueListJSON { return v.issueListed(i, details) })
		return err
	})
	if err != nil {
		return err
	}
	return c.JSONPage(page)
}

// IssueListJSON is an issue of the list: the single issue's shape, with
// label details when with_labels_details asks for them.
type IssueListJSON struct {
	IssueJSON
	Labels any `json:"labels"` // names, or LabelDetailJSON with with_labels_details
}

func (v *view) issueListed(i *store.Issue, details bool) IssueListJSON {
	out := IssueListJSON{IssueJSON: v.issue(i), Labels: v.d.LabelNames(i.ProjectID, i.LabelIDs)}
	if details {
		labels := v.d.LabelsByIDs(i.ProjectID, i.LabelIDs)
		d := make([]LabelDetailJSON, 0, len(labels))
		for _, l := range labels {
			d = append(d, v.labelDetail(l))
		}
		out.Labels = d
	}
	return out
}

// readIssueFilter reads the list's filters as the platform's issues_params
// declare them: the issuable ones, then the issues' own.
func (c *Ctx) readIssueFilter() (store.IssueFilter, error) {
	shared, err := c.readIssuable(issueList)
	if err != nil {
		return store.IssueFilter{}, err
	}
	in := c.In()
	f := store.IssueFilter{IssuableFilter: shared}
	f.ClosedByID = in.Int("closed_by_id")
	f.Confidential = in.Bool("confidential")
	f.IssueType = in.String("issue_type")
	f.DueDate = in.String("due_date")
	return f, in.Err()
}

// updateIssue implements PUT /projects/:id/issues/:issue_iid (provisioning;
// rules issues.update.*): the author, an assignee, or Reporter and above.
func (s *Server) updateIssue(c *Ctx) error {
	given := false
	for _, n := range issueUpdateParams {
		given = given || c.P.Has(n)
	}
	if !given {
		return badRequest(strings.Join(issueUpdateParams, ", ") + " are missing, at least one parameter must be provided")
	}
	if c.P.Has("assignee_id") && c.P.Has("assignee_ids") {
		return mutuallyExclusive("assignee_id", "assignee_ids")
	}
	in := c.In()
	f := store.IssueFields{Title: in.String("title"), Description: in.String("description"),
		StateEvent: in.Enum("state_event", "close", "reopen"), Confidential: in.Bool("confidential"),
		DiscussionLocked: in.Bool("discussion_locked"), MilestoneID: in.Int("milestone_id")}
	if c.P.Has("labels") {
		f.Labels, f.LabelsGiven = in.Strings("labels"), true
	}
	f.AddLabels, f.RemoveLabels = in.Strings("add_labels"), in.Strings("remove_labels")
	switch {
	case c.P.Has("assignee_ids"):
		f.AssigneeIDs, f.AssigneesGiven = in.Ints("assignee_ids"), true
	case c.P.Has("assignee_id"):
		f.AssigneesGiven = true
		if id := in.Int("assignee_id"); id != nil && *id > 0 {
			f.AssigneeIDs = []int{*id}
		}
	}
	if c.P.Has("due_date") {
		// A blank due_date removes it (the platform's due_date is a String
		// the model parses; "" clears the column).
		f.DueGiven = true
		if in.StringOr("due_date", "") != "" {
			f.DueDate = in.Date("due_date")
		}
	}
	if err := in.Err(); err != nil {
		return err
	}
	var out IssueJSON
	err := s.store.Write(func(d *store.Data) error {
		p, i, err := c.issueOf(d)
		if err != nil {
			return err
		}
		if !d.CanUpdateIssue(c.Caller, p, i) {
			return forbidden()
		}
		if err := d.UpdateIssue(p, i, f, c.Caller); err != nil {
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
