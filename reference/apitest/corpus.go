package apitest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/v4cert/v4cert/specs"
)

// Probe is one malformed request of the hostile corpus and the statuses that
// refuse it properly. Every probe must be refused: an answer outside Want is
// either something clearly invalid accepted or an error of the wrong kind.
type Probe struct {
	What     string
	Endpoint string // the rulebook's endpoint the probe addresses, "" for none
	Method   string
	Target   string // from the server root
	Body     any    // nil, Raw, or sent as JSON
	Token    string // "" anonymous
	Headers  []string
	Want     []int
}

// Corpus is the hostile corpus over the world: for every endpoint under
// /api/v4, bodies that are not one JSON object, non-scalar credentials and
// sudo, broken query strings and multipart bodies, bad tokens; for every
// declared parameter, values of the wrong type or shape or outside the value
// set, and every required parameter left out; writes the repository must
// refuse; names past their limits; paths and methods that name no endpoint.
// It is deterministic: the same world gives the same probes in the same order.
func Corpus(w *World) []Probe {
	root := w.Root.Token
	var out []Probe
	var endpoint string
	add := func(p Probe) {
		p.Endpoint = endpoint
		if p.Token == "" && p.Want == nil {
			p.Token = root
		}
		if p.Want == nil {
			p.Want = []int{http.StatusBadRequest}
		}
		out = append(out, p)
	}
	for _, e := range specs.Default().Endpoints {
		if !e.UnderAPI() {
			continue // the registry host reads no API parameters
		}
		endpoint = e.ID
		path := w.Path(e)
		required := map[string]any{}
		var declared []specs.Param
		for _, p := range e.Params {
			if e.InPath(p.Name) || strings.Contains(p.Name, "[") {
				continue
			}
			declared = append(declared, p)
			if p.Required {
				required[p.Name] = w.ValidParam(p)
			}
		}
		js, _ := json.Marshal(required)
		write := e.Method != http.MethodGet && e.Method != http.MethodHead
		// Bodies that are not exactly one JSON object, whatever the endpoint.
		for _, b := range [][2]string{
			{"trailing }", string(js) + "}"},
			{"trailing ]", string(js) + "]"},
			{"two JSON values", string(js) + " " + string(js)},
			{"a top-level array", "[" + string(js) + "]"},
			{"a top-level string", `"x"`},
			{"an unterminated body", `{"a":`},
		} {
			add(Probe{What: e.ID + ": " + b[0], Method: e.Method, Target: path, Body: Raw{"application/json", []byte(b[1])}})
		}
		// Shapes of what every endpoint reads, and broken encodings.
		for _, q := range [][2]string{
			{"sudo[]", "sudo[]=1"},
			{"sudo[k]", "sudo[k]=1"},
			{"private_token[]", "private_token[]=" + root},
			{"job_token[k]", "job_token[k]=x"},
			{"a broken escape", "search=%zz"},
			{"brackets nine deep", "a[b][c][d][e][f][g][h][i][j]=1"},
			{"a scalar and an array", "a=1&a[]=2"},
		} {
			add(Probe{What: e.ID + ": " + q[0], Method: e.Method, Target: path + "?" + q[1], Body: bodyOf(write, required)})
		}
		if write {
			add(Probe{What: e.ID + ": multipart without boundary", Method: e.Method, Target: path,
				Body: Raw{"multipart/form-data", []byte("--x\r\n\r\n")}})
		}
		unknownToken := []int{http.StatusUnauthorized}
		if e.Who == "runner" {
			// The runner API reads no user credential (lib/api/ci/runner.rb
			// calls no authenticate!): the token in the body, which names
			// no runner or job here, is what refuses it.
			unknownToken = []int{http.StatusForbidden}
		}
		add(Probe{What: e.ID + ": unknown token", Method: e.Method, Target: path, Body: bodyOf(write, required),
			Token: "glpat-no-such-token", Want: unknownToken})
		// Every declared parameter spoiled, every required one left out.
		for _, p := range declared {
			names := make([]string, 0)
			wrong := WrongValues(p)
			for what := range wrong {
				names = append(names, what)
			}
			sort.Strings(names)
			for _, what := range names {
				params := copyOf(required)
				params[p.Name] = wrong[what]
				add(Probe{What: fmt.Sprintf("%s: %s %s", e.ID, p.Name, what), Method: e.Method,
					Target: withQuery(path, write, params), Body: bodyOf(write, params)})
				if write {
					add(Probe{What: fmt.Sprintf("%s: %s %s (form)", e.ID, p.Name, what), Method: e.Method, Target: path,
						Body: Raw{"application/x-www-form-urlencoded", []byte(EncodeQuery(params))}})
				}
			}
			if p.Required {
				params := copyOf(required)
				delete(params, p.Name)
				if p.RequiredUnless != "" {
					delete(params, p.RequiredUnless)
				}
				add(Probe{What: e.ID + ": without " + p.Name, Method: e.Method, Target: withQuery(path, write, params), Body: bodyOf(write, params)})
				params[p.Name] = nil
				add(Probe{What: e.ID + ": " + p.Name + " null", Method: e.Method, Target: path, Body: params})
			}
		}
	}
	out = append(out, w.refusedWrites()...)
	out = append(out, w.pastLimits()...)
	out = append(out, w.unroutable()...)
	return out
}

func copyOf(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// bodyOf is params as a JSON body for a write, nothing for a read.
func bodyOf(write bool, params map[string]any) any {
	if !write || len(params) == 0 {
		return nil
	}
	return params
}

// withQuery puts params in the query of a read.
func withQuery(path string, write bool, params map[string]any) string {
	if write || len(params) == 0 {
		return path
	}
	return path + "?" + EncodeQuery(params)
}

// refusedWrites are writes the repository must refuse (Errors rule 5 and the
// git layer's limits): paths under a file or where a directory is, for the
// files API and every action of POST .../commits, identities git would
// refuse or rewrite, names and messages past their limits, clashing branches.
func (w *World) refusedWrites() []Probe {
	p := API(fmt.Sprintf("/projects/%d/repository", w.Project.ID))
	mib := strings.Repeat("x", 1<<20)
	file := func(extra map[string]any) map[string]any {
		m := map[string]any{"branch": "main", "commit_message": "m", "content": "x\n"}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	commit := func(action map[string]any, extra map[string]any) map[string]any {
		m := map[string]any{"branch": "main", "commit_message": "m", "actions": []map[string]any{action}}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	var out []Probe
	add := func(what, method, target string, body any) {
		out = append(out, Probe{What: "repository: " + what, Method: method, Target: target, Body: body, Token: w.Root.Token,
			Want: []int{http.StatusBadRequest}})
	}
	add("a file under a file", "POST", p+"/files/README.md%2Fchild", file(nil))
	add("a file where a directory is", "POST", p+"/files/src", file(nil))
	add("update under a file", "PUT", p+"/files/README.md%2Fchild", file(nil))
	add("update a directory", "PUT", p+"/files/src", file(nil))
	add("delete a directory", "DELETE", p+"/files/src", map[string]any{"branch": "main", "commit_message": "m"})
	add("a path with ..", "POST", p+"/files/src%2F..%2Fx", file(nil))
	add("a path past 4096 bytes", "POST", p+"/files/"+strings.Repeat("p", 4097), file(nil))
	for _, f := range [][2]string{{"author_name", ""}, {"author_email", " "}, {"commit_message", "a\x00b"}} {
		add("blank or NUL "+f[0], "POST", p+"/files/new.txt", file(map[string]any{f[0]: f[1]}))
		add("commits: blank or NUL "+f[0], "POST", p+"/commits", commit(map[string]any{"action": "create", "file_path": "n.txt", "content": "c"}, map[string]any{f[0]: f[1]}))
	}
	add("an author_name git rewrites", "POST", p+"/files/new.txt", file(map[string]any{"author_name": "a<b>"}))
	add("a 1 MiB author_email", "POST", p+"/files/new.txt", file(map[string]any{"author_email": mib + "@x"}))
	add("a 1 MiB author_name", "POST", p+"/commits", commit(map[string]any{"action": "create", "file_path": "n.txt", "content": "c"}, map[string]any{"author_name": mib}))
	add("a 1 MiB branch", "POST", p+"/files/new.txt", file(map[string]any{"branch": mib, "start_branch": "main"}))
	add("a commit message past 1 MiB", "POST", p+"/files/new.txt", file(map[string]any{"commit_message": mib + "x"}))
	add("a branch under a branch", "POST", p+"/files/new.txt", file(map[string]any{"branch": "main/x", "start_branch": "main"}))
	add("a branch under a branch (branches API)", "POST", p+"/branches", map[string]any{"branch": "main/x", "ref": "main"})
	add("a 256-byte branch (branches API)", "POST", p+"/branches", map[string]any{"branch": strings.Repeat("b", 256), "ref": "main"})
	add("a tag message with NUL", "POST", p+"/tags", map[string]any{"tag_name": "t-nul", "ref": "main", "message": "a\x00b"})
	for _, a := range []map[string]any{
		{"action": "create", "file_path": "README.md/x", "content": "c"},
		{"action": "create", "file_path": "src", "content": "c"},
		{"action": "update", "file_path": "src", "content": "c"},
		{"action": "update", "file_path": "README.md/x", "content": "c"},
		{"action": "delete", "file_path": "src"},
		{"action": "chmod", "file_path": "src", "execute_filemode": true},
		{"action": "move", "file_path": "README.md/x", "previous_path": "src/a.txt"},
		{"action": "move", "file_path": "src", "previous_path": "README.md"},
		{"action": "move", "file_path": "elsewhere", "previous_path": "src"},
		{"action": "move", "file_path": "README.md", "previous_path": "src/a.txt"},
		{"action": "destroy", "file_path": "README.md"},
		{"action": "create", "file_path": "", "content": "c"},
		{"action": "create", "file_path": ".git/config", "content": "c"},
	} {
		add(fmt.Sprintf("commits: %s %s", a["action"], a["file_path"]), "POST", p+"/commits", commit(a, nil))
	}
	return out
}

// pastLimits are names, paths and descriptions past the platform's lengths,
// and blank required attributes (Errors rule 3).
func (w *World) pastLimits() []Probe {
	long := strings.Repeat("n", 256)
	var out []Probe
	add := func(what, method, path string, body map[string]any) {
		out = append(out, Probe{What: "limits: " + what, Method: method, Target: API(path), Body: body, Token: w.Root.Token,
			Want: []int{http.StatusBadRequest}})
	}
	add("a 256-character group name", "POST", "/groups", map[string]any{"name": long, "path": "long-name"})
	add("a 256-character group path", "POST", "/groups", map[string]any{"name": "Long", "path": long})
	add("a 501-character group description", "POST", "/groups", map[string]any{"name": "Long", "path": "long-desc", "description": strings.Repeat("d", 501)})
	add("a 256-character project name", "POST", "/projects", map[string]any{"name": long})
	add("a 2001-character project description", "POST", "/projects", map[string]any{"name": "long-desc", "description": strings.Repeat("d", 2001)})
	add("a project renamed past 255 characters", "PUT", fmt.Sprintf("/projects/%d", w.Project.ID), map[string]any{"name": long})
	add("a project moved onto a taken path", "PUT", fmt.Sprintf("/projects/%d", w.Project.ID), map[string]any{"path": "docs"})
	add("a 256-character user name", "POST", "/users", map[string]any{"name": long, "username": "longname", "email": "long@example.com"})
	add("a 256-character e-mail address", "POST", "/users", map[string]any{"name": "Long", "username": "longmail", "email": long + "@example.com"})
	// On create: the platform validates a topic's title there only
	// (validates :title, presence: true, on: :create), so an edit may blank
	// it (topics rules, platform records).
	add("a blank topic title", "POST", "/topics", map[string]any{"name": "blank-title", "title": "  "})
	add("a blank topic name", "PUT", fmt.Sprintf("/topics/%d", w.Topic), map[string]any{"name": ""})
	add("a 256-character topic name", "POST", "/topics", map[string]any{"name": long, "title": "Long"})
	add("a 1,025-character runner maintenance note", "PUT", fmt.Sprintf("/runners/%d", w.Runner), map[string]any{"maintenance_note": strings.Repeat("m", 1025)})
	return out
}

// unroutable are paths and methods that name no endpoint (Endpoints
// convention 2; Errors 404, 414). As on the platform, a removed version
// answers 410 and a known path with a method it lacks reaches the catch-all
// 404 (errors.paths.2 and .3).
func (w *World) unroutable() []Probe {
	var out []Probe
	add := func(what, method, target string, want int) {
		out = append(out, Probe{What: "routing: " + what, Method: method, Target: target, Token: w.Root.Token, Want: []int{want}})
	}
	add("an un-encoded project path", "GET", "/api/v4/projects/"+w.Project.Path, http.StatusNotFound)
	add("an un-encoded project path, DELETE", "DELETE", "/api/v4/projects/"+w.Project.Path, http.StatusNotFound)
	add("an un-encoded group path, DELETE", "DELETE", "/api/v4/groups/"+w.Group.Path+"/", http.StatusNotFound)
	add("an un-encoded file path, DELETE", "DELETE", fmt.Sprintf("/api/v4/projects/%d/repository/files/src/a.txt?branch=main&commit_message=m", w.Project.ID), http.StatusNotFound)
	add("a dot-dot path", "DELETE", fmt.Sprintf("/api/v4/projects/%d/../%d", w.Project.ID, w.Private.ID), http.StatusNotFound)
	add("a double slash", "DELETE", fmt.Sprintf("/api/v4//projects/%d", w.Project.ID), http.StatusNotFound)
	add("an unknown project", "DELETE", "/api/v4/projects/999999", http.StatusNotFound)
	add("a project id past int64", "DELETE", "/api/v4/projects/99999999999999999999999", http.StatusNotFound)
	add("a negative user id", "DELETE", "/api/v4/users/-1", http.StatusNotFound)
	add("an older API version", "DELETE", fmt.Sprintf("/api/v3/projects/%d", w.Project.ID), http.StatusGone)
	add("PATCH on a user", "PATCH", fmt.Sprintf("/api/v4/users/%d", w.Users["alice"]), http.StatusNotFound)
	add("DELETE on the user list", "DELETE", "/api/v4/users", http.StatusNotFound)
	add("a 9,000-byte query on a DELETE", "DELETE", fmt.Sprintf("/api/v4/projects/%d?x=%s", w.Project.ID, strings.Repeat("q", 9000)), http.StatusRequestURITooLong)
	return out
}
