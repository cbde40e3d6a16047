package suites

import (
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	gtypes "github.com/onsi/ginkgo/v2/types"

	"github.com/v4cert/v4cert/reference"
	"github.com/v4cert/v4cert/reference/store"
)

// A mutation breaks the reference in one of the quiet ways real servers do,
// through a reverse proxy that rewrites requests or answers, and names the
// specs that must then fail.
type mutation struct {
	name    string
	filter  string   // Ginkgo label filter of the specs to run against the broken target
	fails   []string // rules at least one spec of which must fail
	env     []string // extra environment of the run
	request func(r *http.Request)
	answer  func(r *http.Response) error
}

// TestMutations shows that the suites notice quiet wrong behaviour: each
// mutation's specs run against the broken target in a child process of this
// test binary (V4CERT_TARGET is the proxy) and must fail, without a panic;
// the same specs pass against the reference itself. make suites-mutations
// runs it (V4CERT_MUTATIONS=1).
func TestMutations(t *testing.T) {
	if os.Getenv("V4CERT_MUTATIONS") == "" {
		t.Skip("set V4CERT_MUTATIONS=1 to break the reference on purpose and see the suites fail")
	}
	token := store.NewSecret("glpat-")
	inst, err := reference.New(reference.Config{RootToken: token, Seed: "none"})
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := inst.HTTPServer()
	go srv.Serve(ln)
	defer srv.Close()
	upstream, _ := url.Parse("http://" + ln.Addr().String())

	var filters []string
	for _, m := range mutations {
		filters = append(filters, "("+m.filter+")")
	}
	t.Run("the reference itself", func(t *testing.T) {
		report := runAgainst(t, upstream, token, mutation{filter: strings.Join(filters, " || ")})
		for _, s := range report.SpecReports {
			if s.LeafNodeType == gtypes.NodeTypeIt && s.State.Is(gtypes.SpecStateFailureStates) {
				t.Errorf("fails against the unbroken reference: %s\n%s", s.FullText(), s.Failure.Message)
			}
		}
	})
	for _, m := range mutations {
		t.Run(m.name, func(t *testing.T) {
			report := runAgainst(t, upstream, token, m)
			failed := map[string]bool{}
			for _, s := range report.SpecReports {
				if s.State == gtypes.SpecStatePanicked {
					t.Errorf("panics instead of failing: %s\n%s", s.FullText(), s.Failure.Message)
				}
				if s.State.Is(gtypes.SpecStateFailureStates) {
					t.Logf("fails as it should: %s", s.FullText())
					for _, l := range s.Labels() {
						failed[strings.TrimPrefix(l, "rule:")] = true
					}
				}
			}
			for _, rule := range m.fails {
				if !failed[rule] {
					t.Errorf("no spec of %s failed against the broken target (failed: %v)", rule, slices.Sorted(mapKeys(failed)))
				}
			}
		})
	}
}

// runAgainst runs the specs of m.filter against upstream broken by m and
// returns Ginkgo's report of the run.
func runAgainst(t *testing.T, upstream *url.URL, token string, m mutation) gtypes.Report {
	t.Helper()
	proxy := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(upstream)
			pr.Out.Host = pr.In.Host // links name the proxy, as a client sees them
			if m.request != nil {
				m.request(pr.Out)
			}
		},
		ModifyResponse: m.answer,
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: proxy, ReadHeaderTimeout: 10 * time.Second, MaxHeaderBytes: reference.MaxHeaderBytes}
	go srv.Serve(ln)
	defer srv.Close()

	out := filepath.Join(t.TempDir(), "report.json")
	cmd := exec.Command(os.Args[0], "-test.run=^TestSuites$", "-test.timeout=10m", "-ginkgo.no-color", "-ginkgo.silence-skips",
		"-ginkgo.label-filter="+m.filter, "-ginkgo.json-report="+out)
	cmd.Env = append(os.Environ(), "V4CERT_TARGET=http://"+ln.Addr().String(), "V4CERT_TOKEN="+token, treeEnv+"=1", "V4CERT_MUTATIONS=")
	cmd.Env = append(cmd.Env, m.env...)
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	runErr := cmd.Run()
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("no report (%v, %v):\n%s", runErr, err, log.String())
	}
	var reports []gtypes.Report
	if err := json.Unmarshal(b, &reports); err != nil || len(reports) != 1 {
		t.Fatalf("reading the report: %v", err)
	}
	ran := 0
	for _, s := range reports[0].SpecReports {
		if s.LeafNodeType == gtypes.NodeTypeIt && !s.State.Is(gtypes.SpecStateSkipped|gtypes.SpecStatePending) {
			ran++
		}
	}
	if ran == 0 {
		t.Fatalf("the filter %q ran no spec:\n%s", m.filter, log.String())
	}
	return reports[0]
}

var (
	membersPath      = regexp.MustCompile(`^/api/v4/(groups|projects)/[^/]+/members(/all)?$`)
	groupProjects    = regexp.MustCompile(`^/api/v4/groups/[^/]+/projects$`)
	pipelineJobs     = regexp.MustCompile(`^/api/v4/projects/[^/]+/pipelines/[^/]+/jobs$`)
	singleJob        = regexp.MustCompile(`^/api/v4/projects/[^/]+/jobs/[0-9]+$`)
	mirrorList       = regexp.MustCompile(`^/api/v4/projects/[^/]+/remote_mirrors$`)
	clockedResources = regexp.MustCompile(`^/api/v4/(users|user/|projects/[^/]+/(pipeline|jobs/)|bulk_imports|.*/award_emoji)`)
)

// setDefault adds name=value to a GET of a path matching re that does not send name.
func setDefault(re *regexp.Regexp, name, value string) func(*http.Request) {
	return func(r *http.Request) {
		q := r.URL.Query()
		if r.Method == http.MethodGet && re.MatchString(r.URL.EscapedPath()) && !q.Has(name) {
			q.Set(name, value)
			r.URL.RawQuery = q.Encode()
		}
	}
}

// ignore drops the named parameters from GETs of paths matching re.
func ignore(re *regexp.Regexp, names ...string) func(*http.Request) {
	return func(r *http.Request) {
		q := r.URL.Query()
		if r.Method != http.MethodGet || !re.MatchString(r.URL.EscapedPath()) {
			return
		}
		changed := false
		for _, name := range names {
			if q.Has(name) {
				q.Del(name)
				changed = true
			}
		}
		if changed {
			r.URL.RawQuery = q.Encode()
		}
	}
}

// laxBooleans reads the named query parameters of GETs of paths matching re
// as a lax server does (v == "true"): any value but true becomes false, so
// the server sees neither the platform's other words (yes, on, TRUE) as
// true nor a word it should refuse (maybe) as an error.
func laxBooleans(re *regexp.Regexp, names ...string) func(*http.Request) {
	return func(r *http.Request) {
		q := r.URL.Query()
		if r.Method != http.MethodGet || !re.MatchString(r.URL.EscapedPath()) {
			return
		}
		changed := false
		for _, name := range names {
			if v := q.Get(name); q.Has(name) && v != "true" && v != "false" {
				q.Set(name, "false")
				changed = true
			}
		}
		if changed {
			r.URL.RawQuery = q.Encode()
		}
	}
}

// rewriteJSON replaces the JSON body of answers to requests matching match.
func rewriteJSON(match func(*http.Request) bool, edit func(any) any) func(*http.Response) error {
	return func(res *http.Response) error {
		if !match(res.Request) || !strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
			return nil
		}
		b, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil {
			return err
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		var v any
		if dec.Decode(&v) == nil {
			if nb, err := json.Marshal(edit(v)); err == nil {
				b = nb
			}
		}
		res.Body = io.NopCloser(bytes.NewReader(b))
		res.ContentLength = int64(len(b))
		res.Header.Set("Content-Length", strconv.Itoa(len(b)))
		return nil
	}
}

// hourOff moves every created_at and updated_at of a body an hour ahead, as
// a server that renders local time as UTC would.
func hourOff(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if s, ok := e.(string); ok && (k == "created_at" || k == "updated_at") {
				if ts, err := time.Parse(time.RFC3339Nano, s); err == nil {
					x[k] = ts.Add(time.Hour).Format("2006-01-02T15:04:05.000Z07:00")
				}
				continue
			}
			x[k] = hourOff(e)
		}
	case []any:
		for i := range x {
			x[i] = hourOff(x[i])
		}
	}
	return v
}

var linkURL = regexp.MustCompile(`<([^>]+)>`)

// editLinks rewrites the query of every Link of answers to GETs of paths matching re.
func editLinks(re *regexp.Regexp, edit func(url.Values) url.Values) func(*http.Response) error {
	return func(res *http.Response) error {
		if !re.MatchString(res.Request.URL.EscapedPath()) || res.Header.Get("Link") == "" {
			return nil
		}
		res.Header.Set("Link", linkURL.ReplaceAllStringFunc(res.Header.Get("Link"), func(m string) string {
			u, err := url.Parse(m[1 : len(m)-1])
			if err != nil {
				return m
			}
			u.RawQuery = edit(u.Query()).Encode()
			return "<" + u.String() + ">"
		}))
		return nil
	}
}

// keepLinkParams keeps only the named parameters in the links.
func keepLinkParams(re *regexp.Regexp, names ...string) func(*http.Response) error {
	return editLinks(re, func(q url.Values) url.Values {
		out := url.Values{}
		for _, n := range names {
			if v := q.Get(n); v != "" {
				out.Set(n, v)
			}
		}
		return out
	})
}

// dropLinkParams drops the named parameters from the links.
func dropLinkParams(re *regexp.Regexp, names ...string) func(*http.Response) error {
	return editLinks(re, func(q url.Values) url.Values {
		for _, n := range names {
			q.Del(n)
		}
		return q
	})
}

var mutations = []mutation{
	{
		// Booleans are class 2 (suites/booleans.go): the rules accept the
		// platform's other words, and still catch a server that misreads them.
		name:    "user, runner and project lists read any boolean but true as false",
		filter:  "rule:users.list.9 || rule:runners.filters.3 || rule:errors.params.3",
		fails:   []string{"users.list.9", "runners.filters.3", "errors.params.3"},
		request: laxBooleans(regexp.MustCompile(`^/api/v4/(users|runners/all|projects)$`), "external", "exclude_external", "paused", "membership"),
	},
	{
		name:    "member lists default to 10 per page",
		filter:  "endpoint:members.group.list && rule:members.list.8",
		fails:   []string{"members.list.8"},
		request: setDefault(membersPath, "per_page", "10"),
	},
	{
		name:   "the group list's Link rels drop the request's filters",
		filter: "endpoint:groups.list && rule:groups.list.22",
		fails:  []string{"groups.list.22"},
		answer: keepLinkParams(regexp.MustCompile(`^/api/v4/groups$`), "page", "per_page"),
	},
	{
		name:   "the project list's keyset links drop the request's filters",
		filter: "endpoint:projects.list && rule:projects.keyset.1",
		fails:  []string{"projects.keyset.1"},
		answer: dropLinkParams(regexp.MustCompile(`^/api/v4/projects$`), "search"),
	},
	{
		name:    "GET /groups computes statistics for administrators when not asked",
		filter:  "endpoint:groups.list && rule:groups.list.13",
		fails:   []string{"groups.list.13"},
		request: setDefault(regexp.MustCompile(`^/api/v4/groups$`), "statistics", "true"),
	},
	{
		name:   "timestamps an hour off on users, jobs, emoji reactions and direct transfer",
		filter: "rule:users.list.1 || rule:jobs.fields.1 || rule:award_emoji.create.1 || rule:bulk_imports.create.1",
		fails:  []string{"users.list.1", "jobs.fields.1", "award_emoji.create.1", "bulk_imports.create.1"},
		answer: rewriteJSON(func(r *http.Request) bool { return clockedResources.MatchString(r.URL.EscapedPath()) }, hourOff),
	},
	{
		name:    "GET /projects ignores visibility",
		filter:  "endpoint:projects.list && rule:projects.list.3",
		fails:   []string{"projects.list.3"},
		request: ignore(regexp.MustCompile(`^/api/v4/projects$`), "visibility"),
	},
	{
		name:    "GET /users ignores exclude_internal",
		filter:  "endpoint:users.list && rule:users.list.6",
		fails:   []string{"users.list.6"},
		request: ignore(regexp.MustCompile(`^/api/v4/users$`), "exclude_internal"),
	},
	{
		name:    "GET /users ignores without_project_bots and humans",
		filter:  "endpoint:users.list && rule:users.list.6",
		fails:   []string{"users.list.6"},
		request: ignore(regexp.MustCompile(`^/api/v4/users$`), "without_project_bots", "humans"),
	},
	{
		name:    "GET /users ignores the administrator filters auditors, saml_provider_id and skip_ldap",
		filter:  "endpoint:users.list && (rule:users.list.17 || rule:users.list.18 || rule:users.list.19)",
		fails:   []string{"users.list.17", "users.list.18", "users.list.19"},
		request: ignore(regexp.MustCompile(`^/api/v4/users$`), "auditors", "saml_provider_id", "skip_ldap"),
	},
	{
		name:    "GET /users takes extern_uid without its provider",
		filter:  "endpoint:users.list && rule:users.list.12",
		fails:   []string{"users.list.12"},
		request: ignore(regexp.MustCompile(`^/api/v4/users$`), "provider"),
	},
	{
		name:    "group runners ignore status",
		filter:  "endpoint:runners.group && rule:runners.group.3",
		fails:   []string{"runners.group.3"},
		request: ignore(regexp.MustCompile(`^/api/v4/groups/[^/]+/runners$`), "status"),
	},
	{
		name:    "project members/all ignores user_ids",
		filter:  "endpoint:members.project.list-all && rule:members.list-all.5",
		fails:   []string{"members.list-all.5"},
		request: ignore(regexp.MustCompile(`^/api/v4/projects/[^/]+/members/all$`), "user_ids[]"),
	},
	{
		name:    "GET /topics ignores organization_id",
		filter:  "endpoint:topics.list && rule:topics.list.7",
		fails:   []string{"topics.list.7"},
		request: ignore(regexp.MustCompile(`^/api/v4/topics$`), "organization_id"),
	},
	{
		name:    "project merge requests ignore not[labels]",
		filter:  "endpoint:merge_requests.project_list && rule:merge_requests.list.16",
		fails:   []string{"merge_requests.list.16"},
		request: ignore(regexp.MustCompile(`^/api/v4/projects/[^/]+/merge_requests$`), "not[labels]"),
	},
	{
		name:    "pipeline jobs include retried jobs by default",
		filter:  "endpoint:jobs.pipeline_jobs && rule:jobs.pipeline_jobs.2",
		fails:   []string{"jobs.pipeline_jobs.2"},
		request: setDefault(pipelineJobs, "include_retried", "true"),
	},
	{
		name:    "group projects leave shared projects out by default",
		filter:  "endpoint:groups.projects && rule:groups.projects.14",
		fails:   []string{"groups.projects.14"},
		request: setDefault(groupProjects, "with_shared", "false"),
	},
	{
		name:   "a Guest reads a single job of a private project",
		filter: "rule:jobs.access.2",
		fails:  []string{"jobs.access.2"},
		answer: func(res *http.Response) error {
			if singleJob.MatchString(res.Request.URL.EscapedPath()) && res.StatusCode == http.StatusForbidden {
				res.StatusCode, res.Status = http.StatusOK, "200 OK"
			}
			return nil
		},
	},
	{
		name:   "the mirror list is empty",
		filter: "rule:remote_mirrors.get.1",
		fails:  []string{"remote_mirrors.get.1"},
		answer: rewriteJSON(func(r *http.Request) bool { return mirrorList.MatchString(r.URL.EscapedPath()) },
			func(any) any { return []any{} }),
	},
	{
		name:   "a target without the declared rate limit",
		filter: "rule:errors.ratelimit.1",
		fails:  []string{"errors.ratelimit.1"},
		env:    []string{"V4CERT_RATE_LIMIT=20"},
	},
}
