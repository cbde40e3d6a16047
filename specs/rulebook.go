// Package specs holds the rulebook: the spec's endpoints and observable rules as data.
package specs

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"
)

//go:embed *.yaml
var files embed.FS

// Param is one documented parameter of an endpoint.
// The reference binds these declarations: a request that misses a required
// parameter, or gives one of another type or outside Values, is refused
// before any handler runs.
type Param struct {
	Name string `yaml:"name" json:"name"`
	Type string `yaml:"type" json:"type"` // string, integer, boolean, datetime, date, array, hash, file
	// Items is the element type of an array: string (the default), integer, or hash.
	Items    string `yaml:"items,omitempty" json:"items,omitempty"`
	Required bool   `yaml:"required,omitempty" json:"required,omitempty"`
	// RequiredUnless names an alternative that stands in for a required
	// parameter when given (a deprecated alias such as name_regex).
	RequiredUnless string   `yaml:"required_unless,omitempty" json:"required_unless,omitempty"`
	Default        any      `yaml:"default,omitempty" json:"default,omitempty"`
	Values         []string `yaml:"values,omitempty" json:"values,omitempty"`
	Admin          bool     `yaml:"admin,omitempty" json:"admin,omitempty"` // honoured for administrators only
	Paid           bool     `yaml:"paid,omitempty" json:"paid,omitempty"`
	// Deprecated marks a parameter the spec deprecates (Versioning 6), such
	// as name_regex; ReplacedBy names its successor when there is one.
	Deprecated bool   `yaml:"deprecated,omitempty" json:"deprecated,omitempty"`
	ReplacedBy string `yaml:"replaced_by,omitempty" json:"replaced_by,omitempty"`
	// DeprecatedValues are values of Values the spec deprecates (the runner
	// status filter's active and paused).
	DeprecatedValues []string `yaml:"deprecated_values,omitempty" json:"deprecated_values,omitempty"`
}

// Endpoint is one method and path of the API, in the spec's own path syntax.
type Endpoint struct {
	ID     string `yaml:"id" json:"id"`
	Area   string `yaml:"-" json:"area"`
	Method string `yaml:"method" json:"method"`
	Path   string `yaml:"path" json:"path"` // under /api/v4, e.g. /groups/:id/members/all
	// Who is anonymous, authenticated, admin, a role name, or runner: the
	// runner API, whose credential is the runner's or the job's own token
	// (a parameter or the JOB-TOKEN header), never a user's.
	Who      string  `yaml:"who" json:"who"`
	Params   []Param `yaml:"params,omitempty" json:"params,omitempty"`
	Status   int     `yaml:"status" json:"status"`                         // success status
	Statuses []int   `yaml:"statuses,omitempty" json:"statuses,omitempty"` // other statuses it may answer
	Schema   string  `yaml:"schema,omitempty" json:"schema,omitempty"`     // schema of the success body
	Array    bool    `yaml:"array,omitempty" json:"array,omitempty"`       // success body is an array of Schema
	// Variants are parameters that select another schema for the success body.
	Variants     []Variant `yaml:"variants,omitempty" json:"variants,omitempty"`
	Pagination   string    `yaml:"pagination,omitempty" json:"pagination,omitempty"`
	Provisioning bool      `yaml:"provisioning,omitempty" json:"provisioning,omitempty"`
	Deprecated   bool      `yaml:"deprecated,omitempty" json:"deprecated,omitempty"`
	// JobToken marks the endpoints that accept a CI job token (Authentication 2).
	JobToken bool `yaml:"job_token,omitempty" json:"job_token,omitempty"`
	// Base says which host serves the endpoint: empty (or api) for {base_url}/api/v4,
	// auth for the token issuer {auth_url}, registry for {registry_url}. Paths of
	// auth and registry endpoints are absolute, and a segment `*name` stands for
	// one or more segments (an image name such as group/project/image).
	Base string `yaml:"base,omitempty" json:"base,omitempty"`

	segments []string
}

// Rule is one statement of the spec a client can observe.
type Rule struct {
	ID       string `yaml:"id" json:"id"`
	Area     string `yaml:"-" json:"area"`
	Endpoint string `yaml:"endpoint,omitempty" json:"endpoint,omitempty"`
	Says     string `yaml:"says" json:"says"`
	Source   string `yaml:"source" json:"source"`
	Paid     bool   `yaml:"paid,omitempty" json:"paid,omitempty"`
	// Platform is what the platform the spec describes does where this rule
	// speaks, read in its source (the rule of precedence, docs/rulebook.md).
	Platform *Platform `yaml:"platform,omitempty" json:"platform,omitempty"`
}

// Platform is the evidence of the platform's own behaviour for one rule.
//
// A rule whose Platform is nil has not been reviewed against the platform
// yet. Diverges false: the rule asserts what the platform does (the spec
// states it, or the spec is silent and the rule accepts the platform's
// behaviour). Diverges true: the spec's text states X, the platform does Y;
// the rule keeps asserting X and Does says Y, so a report can label a
// failure that matches the platform as a known divergence.
type Platform struct {
	// Does says what the platform does, in a sentence.
	Does string `yaml:"does" json:"does"`
	// Source is where that was read: repository, path and version
	// (e.g. "gitlab-org/gitlab lib/api/helpers.rb v17.5.0").
	Source string `yaml:"source" json:"source"`
	// Diverges marks a known platform divergence (class 3).
	Diverges bool `yaml:"diverges,omitempty" json:"diverges,omitempty"`
}

// DivergencePrefix starts every label of a known platform divergence, so a
// reader (and a grep) finds them in any report.
const DivergencePrefix = "known platform divergence"

// Divergence is how every report labels a finding or a failure under a
// class-3 rule: what the platform itself does and where that was read. It
// is "" for a rule that does not diverge. The label says only that the
// platform does this, not that the target did: a failure under the rule is
// still a failure of the spec's text.
func (r *Rule) Divergence() string {
	if r == nil || r.Platform == nil || !r.Platform.Diverges {
		return ""
	}
	return DivergencePrefix + ": the platform does this: " + r.Platform.Does + " (" + r.Platform.Source + ")"
}

type areaFile struct {
	Area      string     `yaml:"area"`
	Endpoints []Endpoint `yaml:"endpoints"`
	Rules     []Rule     `yaml:"rules"`
}

// Rulebook is the whole rulebook, indexed.
type Rulebook struct {
	Endpoints []*Endpoint
	Rules     []*Rule
	Digest    string

	endpoints map[string]*Endpoint
	rules     map[string]*Rule
}

// paramTypes are the spec's parameter types (Resources: "Types"); itemTypes
// the element types an array may declare.
var (
	paramTypes = []string{"string", "integer", "boolean", "datetime", "date", "array", "hash", "file"}
	itemTypes  = []string{"string", "integer", "hash"}
)

// idPattern keeps IDs usable as Ginkgo labels, which reject &|!,()/ and spaces.
var idPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*(\.[a-z0-9_-]+)+$`)

var (
	defaultOnce sync.Once
	defaultBook *Rulebook
	defaultErr  error
)

// Default returns the embedded rulebook, loaded once; it panics on a malformed
// rulebook because every caller needs it at init and a broken one is a build defect.
func Default() *Rulebook {
	defaultOnce.Do(func() { defaultBook, defaultErr = Load(files) })
	if defaultErr != nil {
		panic(defaultErr)
	}
	return defaultBook
}

// Load reads every *.yaml file of fsys as one area of the rulebook.
func Load(fsys fs.FS) (*Rulebook, error) {
	names, err := fs.Glob(fsys, "*.yaml")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	b := &Rulebook{endpoints: map[string]*Endpoint{}, rules: map[string]*Rule{}}
	h := sha256.New()
	for _, name := range names {
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		h.Write([]byte(name))
		h.Write(data)
		var af areaFile
		dec := yaml.NewDecoder(strings.NewReader(string(data)))
		dec.KnownFields(true)
		if err := dec.Decode(&af); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if af.Area == "" {
			return nil, fmt.Errorf("%s: no area", name)
		}
		for i := range af.Endpoints {
			e := &af.Endpoints[i]
			e.Area = af.Area
			if err := b.addEndpoint(e); err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
		}
		for i := range af.Rules {
			r := &af.Rules[i]
			r.Area = af.Area
			if !idPattern.MatchString(r.ID) {
				return nil, fmt.Errorf("%s: rule id %q is not of the form area.topic.n", name, r.ID)
			}
			if _, dup := b.rules[r.ID]; dup {
				return nil, fmt.Errorf("%s: rule %s defined twice", name, r.ID)
			}
			if r.Says == "" || r.Source == "" {
				return nil, fmt.Errorf("%s: rule %s needs says and source", name, r.ID)
			}
			if p := r.Platform; p != nil && (p.Does == "" || p.Source == "") {
				return nil, fmt.Errorf("%s: rule %s: platform needs does and source", name, r.ID)
			}
			b.rules[r.ID] = r
			b.Rules = append(b.Rules, r)
		}
	}
	for _, r := range b.Rules {
		if r.Endpoint != "" && b.endpoints[r.Endpoint] == nil {
			return nil, fmt.Errorf("rule %s names unknown endpoint %s", r.ID, r.Endpoint)
		}
	}
	b.Digest = "sha256:" + hex.EncodeToString(h.Sum(nil))
	return b, nil
}

func (b *Rulebook) addEndpoint(e *Endpoint) error {
	if !idPattern.MatchString(e.ID) {
		return fmt.Errorf("endpoint id %q is not of the form area.name", e.ID)
	}
	if _, dup := b.endpoints[e.ID]; dup {
		return fmt.Errorf("endpoint %s defined twice", e.ID)
	}
	switch e.Method {
	case "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE":
	default:
		return fmt.Errorf("endpoint %s: method %q", e.ID, e.Method)
	}
	if !strings.HasPrefix(e.Path, "/") {
		return fmt.Errorf("endpoint %s: path %q must start with /", e.ID, e.Path)
	}
	if e.Status == 0 {
		return fmt.Errorf("endpoint %s: no success status", e.ID)
	}
	switch e.Pagination {
	case "", "none", "offset", "keyset":
	default:
		return fmt.Errorf("endpoint %s: pagination %q", e.ID, e.Pagination)
	}
	switch e.Base {
	case "", "api", "auth", "registry":
	default:
		return fmt.Errorf("endpoint %s: base %q", e.ID, e.Base)
	}
	for _, v := range e.Variants {
		byParam := v.Param != "" && e.Param(v.Param) != nil && v.Caller == ""
		byCaller := v.Param == "" && v.Value == "" && v.Caller == CallerAnonymous
		if !byParam && !byCaller || v.Schema == "" {
			return fmt.Errorf("endpoint %s: variant %+v needs a declared parameter (or caller: anonymous) and a schema", e.ID, v)
		}
	}
	for _, p := range e.Params {
		if !slices.Contains(paramTypes, p.Type) {
			return fmt.Errorf("endpoint %s: parameter %s: type %q", e.ID, p.Name, p.Type)
		}
		if p.Items != "" && (p.Type != "array" || !slices.Contains(itemTypes, p.Items)) {
			return fmt.Errorf("endpoint %s: parameter %s: items %q", e.ID, p.Name, p.Items)
		}
		if p.RequiredUnless != "" && (!p.Required || e.Param(p.RequiredUnless) == nil) {
			return fmt.Errorf("endpoint %s: parameter %s: required_unless needs required and a declared alternative", e.ID, p.Name)
		}
	}
	e.segments = splitPath(e.Path)
	b.endpoints[e.ID] = e
	b.Endpoints = append(b.Endpoints, e)
	return nil
}

// Endpoint returns the endpoint with the given ID, or nil.
func (b *Rulebook) Endpoint(id string) *Endpoint { return b.endpoints[id] }

// Rule returns the rule with the given ID, or nil.
func (b *Rulebook) Rule(id string) *Rule { return b.rules[id] }

// Match finds the endpoint for a method and an escaped path under /api/v4
// (for example /groups/a%2Fb/members). Placeholders match one escaped segment,
// which is how the spec makes un-encoded paths match nothing. Literal segments
// win over placeholders so /users/:id never shadows a longer literal route.
func (b *Rulebook) Match(method, escapedPath string) *Endpoint {
	segs := splitPath(escapedPath)
	var best *Endpoint
	bestScore := -1
	for _, e := range b.Endpoints {
		if e.Method != method || len(e.segments) != len(segs) || !e.UnderAPI() {
			continue
		}
		score, ok := 0, true
		for i, s := range e.segments {
			if strings.HasPrefix(s, ":") {
				if segs[i] == "" {
					ok = false
					break
				}
				continue
			}
			if s != segs[i] {
				ok = false
				break
			}
			score++
		}
		if !ok {
			continue
		}
		// /projects/:id/ and /projects/:id are two endpoints; the trailing
		// slash decides between them, and a path with a trailing slash no
		// endpoint has names no endpoint (the server answers 404 there).
		if strings.HasSuffix(e.Path, "/") != (strings.HasSuffix(escapedPath, "/") && len(segs) > 0) {
			continue
		}
		if score > bestScore {
			best, bestScore = e, score
		}
	}
	return best
}

// Pattern returns the endpoint path in net/http ServeMux syntax ({name} wildcards).
func (e *Endpoint) Pattern() string {
	segs := make([]string, len(e.segments))
	for i, s := range e.segments {
		if strings.HasPrefix(s, ":") || strings.HasPrefix(s, "*") {
			s = "{" + s[1:] + "}"
		}
		segs[i] = s
	}
	p := "/" + strings.Join(segs, "/")
	if strings.HasSuffix(e.Path, "/") && len(segs) > 0 {
		p += "/{$}"
	}
	return p
}

// Param returns the named parameter, or nil.
func (e *Endpoint) Param(name string) *Param {
	for i := range e.Params {
		if e.Params[i].Name == name {
			return &e.Params[i]
		}
	}
	return nil
}

// InPath reports whether name is one of the endpoint's path placeholders
// (`:name`, or `*name` on the registry host): the router matches those, and
// the other parameters travel in the query or the body.
func (e *Endpoint) InPath(name string) bool {
	for _, s := range e.segments {
		if (strings.HasPrefix(s, ":") || strings.HasPrefix(s, "*")) && s[1:] == name {
			return true
		}
	}
	return false
}

// Allows reports whether status is one the endpoint may answer.
func (e *Endpoint) Allows(status int) bool {
	if status == e.Status {
		return true
	}
	for _, s := range e.Statuses {
		if s == status {
			return true
		}
	}
	return false
}

// RulesOf returns the rules attached to an endpoint.
func (b *Rulebook) RulesOf(endpointID string) []*Rule {
	var out []*Rule
	for _, r := range b.Rules {
		if r.Endpoint == endpointID {
			out = append(out, r)
		}
	}
	return out
}

func splitPath(p string) []string {
	p = strings.TrimPrefix(p, "/")
	p = strings.TrimSuffix(p, "/")
	if p == "" {
		return nil
	}
	return strings.Split(p, "/")
}

// UnderAPI reports whether the endpoint lives under {base_url}/api/v4.
func (e *Endpoint) UnderAPI() bool { return e.Base == "" || e.Base == "api" }

// ErrorSchema names the schema of the endpoint's error bodies: the registry
// protocol's envelope for the token issuer and the registry host, the API's
// error shape (Errors rules 2 to 6) for the rest.
func (e *Endpoint) ErrorSchema() string {
	if e.UnderAPI() {
		return "error"
	}
	return "registry_error"
}

// Prefix is what precedes Path on the wire: /api/v4 for the API, nothing for
// the token issuer and the registry host, whose paths are absolute.
func (e *Endpoint) Prefix() string {
	if e.UnderAPI() {
		return "/api/v4"
	}
	return ""
}

// MatchRoot finds the endpoint of a method and an escaped path taken from the
// server root: under /api/v4 as Match does, elsewhere among the token issuer's
// and registry host's endpoints, where `*name` takes one or more segments.
func (b *Rulebook) MatchRoot(method, escapedPath string) *Endpoint {
	if p, ok := strings.CutPrefix(escapedPath, "/api/v4"); ok && (p == "" || p[0] == '/') {
		return b.Match(method, p)
	}
	segs := splitPath(escapedPath)
	var best *Endpoint
	bestScore := -1
	for _, e := range b.Endpoints {
		if e.Method != method || e.UnderAPI() {
			continue
		}
		if score, ok := matchGlob(e.segments, segs); ok && score > bestScore {
			best, bestScore = e, score
		}
	}
	return best
}

// matchGlob matches segments where `:x` takes one segment and `*x` one or
// more; the score counts literal segments so literals win.
func matchGlob(pat, segs []string) (int, bool) {
	if len(pat) == 0 {
		return 0, len(segs) == 0
	}
	s := pat[0]
	switch {
	case strings.HasPrefix(s, "*"):
		best, found := -1, false
		for n := 1; n <= len(segs); n++ {
			if sc, ok := matchGlob(pat[1:], segs[n:]); ok && sc > best {
				best, found = sc, true
			}
		}
		return best, found
	case len(segs) == 0:
		return 0, false
	case strings.HasPrefix(s, ":"):
		if segs[0] == "" {
			return 0, false
		}
		return matchGlob(pat[1:], segs[1:])
	case s == segs[0]:
		sc, ok := matchGlob(pat[1:], segs[1:])
		return sc + 1, ok
	}
	return 0, false
}
