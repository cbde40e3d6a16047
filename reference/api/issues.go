package api

import (
	"net/http"
	"strings"

	"github.com/v4cert/v4cert/reference/store"
)

// The project issue list and issue edit (provisioning: the spec does not
// cover issues; Renovate reads and edits its Dependency Dashboard with them,
// python-gitlab lists them). Parameters and answers as the platform's
// Issues API: gitlabhq/gitlabhq lib/api/issues.rb and
// lib/api/helpers/issues_helpers.rb (read at pavankalisetti009/gitlab
// @041340ff and skratsch-solutions/gitlabhq @48f07af6).

// issueUpdateParams are the attributes PUT .../issues/:issue_iid takes; at
// least one is needed (IssuesHelpers.update_params_at_least_one_of, less
// created_at, milestone and issue_type, which the reference does not take).
var issueUpdateParams = []string{"assignee_id", "assignee_ids", "confidential", "description", "discussion_locked",
	"due_date", "labels", "add_labels", "remove_labels", "milestone_id", "state_event", "title"}

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
		items := d.FindIssues(f)
		v := c.view(d)
		page, err = Paginate(c, items, nil, func(i *store.Issue) IssueListJSON { return v.issueListed(i, details) })
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
// declare them.
func (c *Ctx) readIssueFilter() (store.IssueFilter, error) {
	in := c.In()
	f := store.IssueFilter{Caller: c.Caller}
	for _, pair := range [][2]string{{"author_id", "author_username"}, {"assignee_id", "assignee_username"}, {"milestone_id", "milestone"}} {
		if c.P.Has(pair[0]) && c.P.Has(pair[1]) {
			return f, mutuallyExclusive(pair[0], pair[1])
		}
	}
	// The finder takes either spelling (`args[:scope].underscore`).
	if sc := in.Enum("scope", "created-by-me", "assigned-to-me", "created_by_me", "assigned_to_me", "all"); sc != nil {
		f.Scope = strings.ReplaceAll(*sc, "-", "_")
	}
	f.State = deref(in.Enum("state", "opened", "closed", "all"), "all")
	if c.P.Has("iids") {
		f.IIDs = in.Ints("iids")
	}
	var err error
	if f.Author, err = userMatch(c, "author_id", "author_username", false); err != nil {
		return f, err
	}
	if f.Assignee, err = userMatch(c, "assignee_id", "", true); err != nil {
		return f, err
	}
	if c.P.Has("assignee_username") {
		f.AssigneeUsername = in.Strings("assignee_username")
	}
	f.ClosedByID = in.Int("closed_by_id")
	if c.P.Has("labels") {
		f.Labels = in.Strings("labels")
	}
	f.Milestone = in.String("milestone")
	if m := in.Enum("milestone_id", "Any", "None", "Upcoming", "Started"); m != nil {
		f.MilestoneID = m
	}
	f.MyReactionEmoji = in.String("my_reaction_emoji")
	f.Confidential = in.Bool("confidential")
	f.IssueType = in.String("issue_type")
	f.DueDate = in.String("due_date")
	f.CreatedAfter, f.CreatedBefore = in.Time("created_after"), in.Time("created_before")
	f.UpdatedAfter, f.UpdatedBefore = in.Time("updated_after"), in.Time("updated_before")
	f.Search = in.String("search")
	if where := in.String("in"); where != nil {
		for _, w := range strings.Split(*where, ",") {
			switch strings.TrimSpace(w) {
			case "title":
				f.InTitle = true
			case "description":
				f.InDescription = true
			default:
				return f, invalidParam("in")
			}
		}
	}
	f.OrderBy = deref(in.String("order_by"), "created_at")
	f.Sort = deref(in.Enum("sort", "asc", "desc"), "desc")
	if err := in.Err(); err != nil {
		return f, err
	}
	if f.Not, err = readIssueNot(c); err != nil {
		return f, err
	}
	return f, nil
}

// readIssueNot reads not[...] as the platform's negatable_issue_filter_params
// declare it: labels, milestone, milestone_id, iids, author and assignee.
func readIssueNot(c *Ctx) (store.IssueNot, error) {
	var n store.IssueNot
	sub, err := notHash(c)
	if sub == nil || err != nil {
		return n, err
	}
	in := sub.Read()
	for _, pair := range [][2]string{{"author_id", "author_username"}, {"assignee_id", "assignee_username"}, {"milestone_id", "milestone"}} {
		if sub.Has(pair[0]) && sub.Has(pair[1]) {
			return n, mutuallyExclusive("not["+pair[0]+"]", "not["+pair[1]+"]")
		}
	}
	if sub.Has("labels") {
		n.Labels = in.Strings("labels")
	}
	n.Milestone = in.String("milestone")
	n.MilestoneID = in.Enum("milestone_id", "Any", "None", "Upcoming", "Started")
	if sub.Has("iids") {
		n.IIDs = in.Ints("iids")
	}
	if sub.Has("assignee_username") {
		n.AssigneeUsername = in.Strings("assignee_username")
	}
	if err := in.Err(); err != nil {
		return n, invalidParam("not")
	}
	// In not[...] the platform declares author_id and assignee_id Integer:
	// no None or Any there.
	read := func(key string, username bool) (store.UserMatch, error) {
		if !sub.Has(key) {
			return store.UserMatch{}, nil
		}
		raw := in.StringOr(key, "")
		if in.Err() != nil {
			return store.UserMatch{}, invalidParam("not")
		}
		return parseUserMatch("not["+key+"]", raw, false, username)
	}
	if n.Author, err = read("author_id", false); err != nil {
		return n, err
	}
	if !n.Author.Set() {
		if n.Author, err = read("author_username", true); err != nil {
			return n, err
		}
	}
	if n.Assignee, err = read("assignee_id", false); err != nil {
		return n, err
	}
	return n, nil
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
