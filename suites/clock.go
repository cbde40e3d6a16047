package suites

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"slices"
	"sort"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/tidwall/gjson"

	"github.com/v4cert/v4cert/schemas"
)

// The clock check. A resource an answer has just created carries timestamps
// the target set while serving the request, so they must agree with the
// answer's own Date header, which is the target's clock: no skew between the
// machine running the suites and the target enters. Every answer the shared
// client receives is checked this way, so a time-zone bug (timestamps an hour
// off) fails whichever spec first creates such a resource.
//
// The reference sends a Date from the clock its bodies use, so under
// --clock fixed both stand still at the same instant and the check holds
// there too; no mode is needed, and a target without a Date header fails the
// check instead of passing it unexamined.

// clockTolerance is how far a fresh timestamp may be from the answer's Date.
// Date has whole seconds and is taken when the target starts the request or
// writes the answer; a request that waits for a lock or runs git on a busy
// machine may take some seconds. Time-zone offsets are at least half an hour,
// so the check stays far from them.
const clockTolerance = 10 * time.Second

// freshStamps names, for each endpoint whose successful answer is a resource
// the request created or changed, the timestamps the target set while
// serving it (gjson paths). Absent or null values are left to the schema.
var freshStamps = map[string][]string{
	"access_requests.group.create":          {"created_at", "requested_at"},
	"access_requests.project.create":        {"created_at", "requested_at"},
	"award_emoji.issue_create":              {"created_at", "updated_at"},
	"award_emoji.snippet_create":            {"created_at", "updated_at"},
	"award_emoji.issue_note_create":         {"created_at", "updated_at"},
	"award_emoji.snippet_note_create":       {"created_at", "updated_at"},
	"bulk_imports.create":                   {"created_at", "updated_at"},
	"bulk_imports.cancel":                   {"updated_at"},
	"commits.create":                        {"created_at", "committed_date"},
	"commits.cherry-pick":                   {"created_at", "committed_date"},
	"commits.revert":                        {"created_at", "committed_date"},
	"groups.create":                         {"created_at"},
	"integrations.set":                      {"updated_at"},
	"issues.create":                         {"created_at", "updated_at"},
	"issues.notes_create":                   {"created_at", "updated_at"},
	"issues.update":                         {"updated_at"},
	"jobs.pipeline":                         {"created_at", "updated_at"},
	"jobs.retry":                            {"created_at"},
	"members.group.create":                  {"created_at"},
	"members.project.create":                {"created_at"},
	"projects.create":                       {"created_at"},
	"projects.access-tokens.create":         {"created_at"},
	"repository.tags.create":                {"created_at"},
	"snippets.create":                       {"created_at", "updated_at"},
	"snippets.notes_create":                 {"created_at", "updated_at"},
	"users.create":                          {"created_at"},
	"users.tokens.create":                   {"created_at"},
	"award_emoji.merge_request_create":      {"created_at", "updated_at"},
	"award_emoji.merge_request_note_create": {"created_at", "updated_at"},
	"merge_requests.create":                 {"created_at", "updated_at"},
	"merge_requests.update":                 {"updated_at"},
	"merge_requests.merge":                  {"updated_at", "merged_at"},
	"merge_requests.notes.create":           {"created_at", "updated_at"},
	"merge_requests.todo":                   {"created_at", "updated_at"},
	"milestones.create":                     {"created_at", "updated_at"},
	"milestones.update":                     {"updated_at"},
	"todos.mark_done":                       {"updated_at"},
	"pipelines.statuses.create":             nil, // moving a pending or running status on keeps the created_at it had
	"issues.notes_update":                   nil, // an edit that changes no text keeps updated_at
	"merge_requests.notes.update":           nil, // an edit that changes no text keeps updated_at
	"commits.comments.create":               nil, // author.created_at is the author's account
	"merge_requests.approve":                nil, // answers the merge request's approvals, with its created_at and updated_at
	"merge_requests.unapprove":              nil,
	"merge_requests.blocks.create":          nil, // answers the two merge requests as they were
	"merge_requests.subscribe":              nil, // a subscription changes no timestamp of the merge request
	"merge_requests.unsubscribe":            nil,
	"repository.branches.create":            nil, // commit.created_at is the commit's
	"access_requests.group.approve":         nil, // the membership keeps the request's created_at
	"access_requests.project.approve":       nil,
	"groups.share":                          nil, // answers the sharing group as it was
	"jobs.cancel":                           nil, // answers the existing job
	"jobs.play":                             nil,
	"projects.edit":                         nil, // answers the existing project
	"projects.star":                         nil,
	"projects.archive":                      nil,
	"projects.unarchive":                    nil,
	"registry.project.edit":                 nil,
}

// checkClock compares the fresh timestamps of an answer with its Date.
func checkClock(r *Response) error {
	if r.Endpoint == nil || r.Status < 200 || r.Status > 299 {
		return nil
	}
	paths := freshStamps[r.Endpoint.ID]
	if len(paths) == 0 {
		return nil
	}
	var stamps []string
	for _, p := range paths {
		if v := r.Get(p); v.Exists() && v.Type != gjson.Null {
			stamps = append(stamps, p)
		}
	}
	if len(stamps) == 0 {
		return nil
	}
	date, err := http.ParseTime(r.Header.Get("Date"))
	if err != nil {
		return fmt.Errorf("the answer creates a resource with %s but has no valid Date header (%q) to hold them to the target's clock", strings.Join(stamps, ", "), r.Header.Get("Date"))
	}
	for _, p := range stamps {
		v := r.Get(p).String()
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			return fmt.Errorf("%s %q is not an ISO 8601 datetime", p, v)
		}
		// Date has whole seconds: the instant lies in [Date, Date+1s).
		if off := offset(t, date); off != 0 {
			return fmt.Errorf("%s %s is %s off the target's clock (Date: %s) in the answer that created it", p, v, off, r.Header.Get("Date"))
		}
	}
	return nil
}

// expectOnClock holds a timestamp the exchange r set (a job its pipeline
// created, a job its runner started, an entity its import created) to r's
// Date, for resources the answer that created them does not carry.
func expectOnClock(what, stamp string, r *Response) {
	GinkgoHelper()
	date, err := http.ParseTime(r.Header.Get("Date"))
	Expect(err).NotTo(HaveOccurred(), "the answer that set %s has no valid Date header:\n%s", what, r)
	t, err := time.Parse(time.RFC3339Nano, stamp)
	Expect(err).NotTo(HaveOccurred(), "%s %q is not an ISO 8601 datetime", what, stamp)
	Expect(offset(t, date)).To(BeZero(), "%s %s against the Date of the answer that set it:\n%s", what, stamp, r)
}

// offset is how far t lies outside [date-tolerance, date+1s+tolerance], or 0.
func offset(t, date time.Time) time.Duration {
	if early := date.Add(-clockTolerance).Sub(t); early > 0 {
		return -(early + clockTolerance).Round(time.Second)
	}
	if late := t.Sub(date.Add(time.Second + clockTolerance)); late > 0 {
		return (late + clockTolerance).Round(time.Second)
	}
	return 0
}

// clockTableProblems lists the endpoints that answer a writing request with a
// resource carrying created_at or updated_at but that freshStamps does not
// judge: each must say which timestamps are fresh, or nil with a reason, so a
// new area's creations cannot escape the clock check.
func clockTableProblems() []string {
	var out []string
	for _, e := range book.Endpoints {
		if e.Method != http.MethodPost && e.Method != http.MethodPut && e.Method != http.MethodPatch {
			continue
		}
		if _, ok := freshStamps[e.ID]; ok {
			continue
		}
		if e.Schema == "" {
			continue
		}
		if stamps := schemaStamps(e.Schema, 0); len(stamps) > 0 {
			out = append(out, fmt.Sprintf("endpoint %s (%s %s) answers %s with %s: add it to freshStamps in suites/clock.go, "+
				"naming the timestamps the request sets (%q: {\"created_at\"}) or nil with a comment saying why none is fresh",
				e.ID, e.Method, e.Path, e.Schema, strings.Join(stamps, ", "), e.ID))
		}
	}
	for id := range freshStamps {
		if book.Endpoint(id) == nil {
			out = append(out, "freshStamps in suites/clock.go names unknown endpoint "+id)
		}
	}
	sort.Strings(out)
	return out
}

// schemaStamps lists the created_at and updated_at properties of a schema,
// following $ref and allOf, and one level into nested objects.
func schemaStamps(name string, depth int) []string {
	raw, err := fs.ReadFile(schemas.FS(), name+".json")
	if err != nil {
		return nil
	}
	var doc map[string]any
	if json.Unmarshal(raw, &doc) != nil {
		return nil
	}
	var out []string
	var walk func(node map[string]any, prefix string, depth int)
	walk = func(node map[string]any, prefix string, depth int) {
		if ref, ok := node["$ref"].(string); ok && strings.HasSuffix(ref, ".json") {
			for _, s := range schemaStamps(strings.TrimSuffix(ref, ".json"), depth) {
				out = append(out, prefix+s)
			}
		}
		if all, ok := node["allOf"].([]any); ok {
			for _, a := range all {
				if m, ok := a.(map[string]any); ok {
					walk(m, prefix, depth)
				}
			}
		}
		props, _ := node["properties"].(map[string]any)
		for p, v := range props {
			if p == "created_at" || p == "updated_at" {
				out = append(out, prefix+p)
			} else if m, ok := v.(map[string]any); ok && depth < 1 {
				walk(m, prefix+p+".", depth+1)
			}
		}
	}
	walk(doc, "", depth)
	sort.Strings(out)
	return slices.Compact(out)
}
