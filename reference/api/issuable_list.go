package api

import (
	"strconv"
	"strings"

	"github.com/v4cert/v4cert/reference/params"
	"github.com/v4cert/v4cert/reference/store"
)

// The issuable lists (GET /projects/:id/issues, GET /merge_requests, GET
// /projects/:id/merge_requests) read their common attributes alike, as the
// platform's do: IssuableFinder's parameters, declared for both in
// lib/api/helpers/issues_helpers.rb and merge_requests_helpers.rb
// (gitlabhq/gitlabhq; read at pavankalisetti009/gitlab @041340ff and
// skratsch-solutions/gitlabhq @48f07af6). readIssuable reads those once;
// each list declares in an issuableList what it takes differently, and reads
// its own attributes after.

// issuableList declares how one list takes the shared attributes.
type issuableList struct {
	scopes       []string    // scope's values
	defaultScope string      // scope when not given
	states       []string    // state's values (all is the default)
	exclusive    [][2]string // attributes refused together, before anything is read
	iids         bool        // iids[]
	milestoneID  bool        // milestone_id's wildcards (Any, None, Upcoming, Started)
	assigneeName bool        // assignee_username[]
	in           bool        // in: where search looks
	orders       []string    // order_by's values; nil takes any word (unknown ones order by created_at)
	not          issuableNotList
}

// issuableNotList declares which negations a list's not[...] takes beyond
// labels, milestone, author_id / author_username and assignee_id /
// assignee_username.
type issuableNotList struct {
	exclusive          [][2]string
	milestoneID, iids  bool
	reaction           bool // not[my_reaction_emoji]
	assigneePredefined bool // not[assignee_id] takes None / Any
}

// readIssuable reads the shared attributes as l declares them.
func (c *Ctx) readIssuable(l issuableList) (store.IssuableFilter, error) {
	in := c.In()
	f := store.IssuableFilter{Caller: c.Caller}
	for _, pair := range l.exclusive {
		if c.P.Has(pair[0]) && c.P.Has(pair[1]) {
			return f, mutuallyExclusive(pair[0], pair[1])
		}
	}
	// The finder takes either spelling (`args[:scope].underscore`).
	f.Scope = strings.ReplaceAll(deref(in.Enum("scope", l.scopes...), l.defaultScope), "-", "_")
	f.State = deref(in.Enum("state", l.states...), "all")
	if l.iids && c.P.Has("iids") {
		f.IIDs = in.Ints("iids")
	}
	var err error
	if f.Author, err = userMatch(c, "author_id", "author_username", false); err != nil {
		return f, err
	}
	if f.Assignee, err = userMatch(c, "assignee_id", "", true); err != nil {
		return f, err
	}
	if l.assigneeName && c.P.Has("assignee_username") {
		f.AssigneeUsername = in.Strings("assignee_username")
	}
	if c.P.Has("labels") {
		f.Labels = in.Strings("labels")
	}
	f.Milestone = in.String("milestone")
	if l.milestoneID {
		f.MilestoneID = in.Enum("milestone_id", "Any", "None", "Upcoming", "Started")
	}
	f.MyReactionEmoji = in.String("my_reaction_emoji")
	f.CreatedAfter, f.CreatedBefore = in.Time("created_after"), in.Time("created_before")
	f.UpdatedAfter, f.UpdatedBefore = in.Time("updated_after"), in.Time("updated_before")
	f.Search = in.String("search")
	if where := inWhere(l, in); where != nil {
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
	if l.orders == nil {
		f.OrderBy = deref(in.String("order_by"), "created_at")
	} else {
		f.OrderBy = deref(in.Enum("order_by", l.orders...), "created_at")
	}
	f.Sort = deref(in.Enum("sort", "asc", "desc"), "desc")
	if err := in.Err(); err != nil {
		return f, err
	}
	if f.Not, err = readIssuableNot(c, l.not); err != nil {
		return f, err
	}
	return f, nil
}

// inWhere reads in where the list takes it (a list without it ignores it).
func inWhere(l issuableList, in *params.Reader) *string {
	if !l.in {
		return nil
	}
	return in.String("in")
}

// readIssuableNot reads not[...] as l declares it (the platform's
// negatable_*_filter_params); a list reads its own negations with
// notAttrs.user.
func readIssuableNot(c *Ctx, l issuableNotList) (store.IssuableNot, error) {
	var n store.IssuableNot
	na, err := notAttrs(c)
	if na == nil || err != nil {
		return n, err
	}
	sub, in := na.sub, na.in
	for _, pair := range l.exclusive {
		if sub.Has(pair[0]) && sub.Has(pair[1]) {
			return n, mutuallyExclusive("not["+pair[0]+"]", "not["+pair[1]+"]")
		}
	}
	if sub.Has("labels") {
		n.Labels = in.Strings("labels")
	}
	n.Milestone = in.String("milestone")
	if l.milestoneID {
		n.MilestoneID = in.Enum("milestone_id", "Any", "None", "Upcoming", "Started")
	}
	if l.iids && sub.Has("iids") {
		n.IIDs = in.Ints("iids")
	}
	if l.reaction {
		n.MyReactionEmoji = in.String("my_reaction_emoji")
	}
	if sub.Has("assignee_username") {
		n.AssigneeUsername = in.Strings("assignee_username")
	}
	if err := in.Err(); err != nil {
		return n, invalidParam("not")
	}
	// In not[...] the platform declares author_id Integer: no None or Any
	// there.
	if n.Author, err = na.user("author_id", "author_username", false); err != nil {
		return n, err
	}
	if n.Assignee, err = na.user("assignee_id", "", l.assigneePredefined); err != nil {
		return n, err
	}
	return n, nil
}

// notReader reads the not[...] hash's entries.
type notReader struct {
	sub *params.Values
	in  *params.Reader
}

// notAttrs is the not[...] hash of the request, nil when it sends none.
func notAttrs(c *Ctx) (*notReader, error) {
	sub, err := notHash(c)
	if sub == nil || err != nil {
		return nil, err
	}
	return &notReader{sub: sub, in: sub.Read()}, nil
}

// user reads a negated user attribute given by id or, failing that, by
// username (usernameKey "" when the list has no username form).
func (n *notReader) user(idKey, usernameKey string, predefined bool) (store.UserMatch, error) {
	for _, k := range []struct {
		key      string
		username bool
	}{{idKey, false}, {usernameKey, true}} {
		if k.key == "" || !n.sub.Has(k.key) {
			continue
		}
		raw := n.in.StringOr(k.key, "")
		if n.in.Err() != nil {
			return store.UserMatch{}, invalidParam("not")
		}
		return parseUserMatch("not["+k.key+"]", raw, predefined, k.username)
	}
	return store.UserMatch{}, nil
}

// notHash is the not[...] hash of the issuable lists as parameters of their
// own (nil when the request sends none), so the negations bind like the
// filters they negate; a not that is no hash is invalid.
func notHash(c *Ctx) (*params.Values, error) {
	if !c.P.Has("not") {
		return nil, nil
	}
	raw, ok := c.P.Raw("not").(map[string]any)
	if !ok {
		return nil, invalidParam("not")
	}
	sub, _ := params.FromQuery("") // an empty tree to hold the hash's entries
	for k, v := range raw {
		sub.Set(k, v)
	}
	return sub, nil
}

// userMatch reads a user-valued filter given by id (or None/Any when
// predefined is allowed) or by username.
func userMatch(c *Ctx, idName, usernameName string, predefined bool) (store.UserMatch, error) {
	if c.P.Has(idName) {
		raw := c.In().StringOr(idName, "")
		return parseUserMatch(idName, raw, predefined, false)
	}
	if usernameName != "" && c.P.Has(usernameName) {
		raw := c.In().StringOr(usernameName, "")
		return parseUserMatch(usernameName, raw, predefined, true)
	}
	return store.UserMatch{}, c.In().Err()
}

func parseUserMatch(name, raw string, predefined, username bool) (store.UserMatch, error) {
	if k, ok := store.Predefined(raw); ok {
		if !predefined {
			return store.UserMatch{}, invalidParam(name)
		}
		return store.UserMatch{Kind: k}, nil
	}
	if username {
		return store.UserMatch{Kind: "username", Username: raw}, nil
	}
	id, err := strconv.Atoi(strings.TrimSpace(raw))
	if err != nil {
		return store.UserMatch{}, invalidParam(name)
	}
	return store.UserMatch{Kind: "id", ID: id}, nil
}

// pageWalk pages a list the store hands over as a walk: an unfiltered
// page reads and renders its own records only (no keyset: the spec offers
// none for these lists).
func pageWalk[T, R any](c *Ctx, w store.Walk[T], render func(T) R) (*Page, error) {
	return PaginateWalk(c, w.N, w.At, w.Match, nil, render)
}
