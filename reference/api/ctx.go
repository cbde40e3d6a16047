package api

import (
	"bytes"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/v4cert/v4cert/reference/params"
	"github.com/v4cert/v4cert/reference/store"
	"github.com/v4cert/v4cert/specs"
)

// Ctx is one request as a handler sees it: who calls, what they sent, where to answer.
type Ctx struct {
	W        http.ResponseWriter
	R        *http.Request
	Endpoint *specs.Endpoint
	// Caller is the user the request acts as (after sudo); nil when anonymous.
	Caller *store.User
	// Token is the personal access token presented, nil when anonymous or a job token.
	Token *store.Token
	// JobToken is the CI job token presented, on endpoints that accept one.
	JobToken *store.JobToken
	P        *params.Values
	// read collects typed parameters; handlers check In().Err() once.
	read *params.Reader
	base string
	// Body is the raw request body of the endpoints whose body is data, not
	// parameters (rawBodyEndpoints).
	Body []byte
}

// rawBodyEndpoints take their body as data: the log a runner streams
// (PATCH /jobs/:id/trace, text/plain) is no form, and a '%' in a log must
// not be read as a broken escape. Their parameters come from the query, and
// from the body only when it is declared JSON or a form.
var rawBodyEndpoints = map[string]bool{"jobs.trace_append": true}

// In returns the parameter reader of the request.
func (c *Ctx) In() *params.Reader {
	if c.read == nil {
		c.read = c.P.Read()
	}
	return c.read
}

// Admin reports whether the caller is an administrator.
func (c *Ctx) Admin() bool { return c.Caller != nil && c.Caller.Admin }

// JSON writes v with status.
func (c *Ctx) JSON(status int, v any) error {
	writeJSON(c.W, status, v)
	return nil
}

// NoContent answers 204.
func (c *Ctx) NoContent() error {
	c.W.WriteHeader(http.StatusNoContent)
	return nil
}

// PathInt reads an integer path parameter; anything else is the spec's 404.
func (c *Ctx) PathInt(name, what string) (int, error) {
	n, err := strconv.Atoi(c.R.PathValue(name))
	if err != nil || n <= 0 {
		return 0, notFound(what)
	}
	return n, nil
}

func (s *Server) serveRoute(rt *route) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c := &Ctx{W: w, R: r, Endpoint: rt.endpoint, base: externalBase(r, s.opts.ExternalURL)}
		err := s.prepare(c, rt)
		noteCaller(r, c.Caller) // for the request log, even when refused
		if err != nil {
			writeError(w, asError(err, "Resource"))
			return
		}
		if err := rt.handle(s, c); err != nil {
			writeError(w, asError(err, "Resource"))
		}
	})
}

func readOnly(method string) bool { return method == http.MethodGet || method == http.MethodHead }

// everywhereParams are read on every endpoint (credentials, sudo), so they
// are bound on every endpoint: an array or hash there is a 400, not ignored.
var everywhereParams = []params.Decl{
	{Name: "private_token", Type: "string"},
	{Name: "job_token", Type: "string"},
	{Name: "sudo", Type: "string"},
}

// routeParams are the declarations of an endpoint's parameters that Bind
// checks: every one of the rulebook's except path placeholders, which the
// router matches (an un-encoded or malformed `:id` is a 404, not a 400).
func routeParams(e *specs.Endpoint) []params.Decl {
	var out []params.Decl
	for _, p := range e.Params {
		if e.InPath(p.Name) {
			continue
		}
		out = append(out, params.Decl{Name: p.Name, Type: p.Type, Items: p.Items, Required: p.Required,
			RequiredUnless: p.RequiredUnless, Values: p.Values})
	}
	return out
}

// prepare decodes parameters, authenticates, applies sudo, token scopes and
// the endpoint's `who` (Authentication rules 1, 3, 5 and 8), then binds the
// rulebook's parameter declarations (Errors rule 2, Endpoints conventions 5
// and 7), so handlers read values already known to be of the declared shape.
// Who may call comes first where the platform checks it in a before filter
// (before { authenticate! }): an anonymous caller learns nothing about an
// endpoint's parameters before it learns it needs a token. whoAfterParams
// lists the endpoints where the platform validates the parameters first.
func (s *Server) prepare(c *Ctx, rt *route) error {
	var p *params.Values
	var err error
	if rawBodyEndpoints[c.Endpoint.ID] {
		if c.Body, err = io.ReadAll(io.LimitReader(c.R.Body, params.MaxBody+1)); err != nil {
			return &params.DecodeError{Reason: "could not read the request body"}
		}
		if len(c.Body) > params.MaxBody {
			return params.ErrTooLarge
		}
		// A body declared as JSON or a form is also parameters, as Grape
		// parses it by its content type; any other (the runner's
		// text/plain) is data alone.
		ct, _, _ := mime.ParseMediaType(c.R.Header.Get("Content-Type"))
		if ct == "application/json" || strings.HasSuffix(ct, "+json") || ct == "application/x-www-form-urlencoded" ||
			ct == "multipart/form-data" {
			c.R.Body = io.NopCloser(bytes.NewReader(c.Body))
			p, err = params.FromRequest(c.R)
		} else {
			p, err = params.FromQuery(c.R.URL.RawQuery)
		}
	} else {
		p, err = params.FromRequest(c.R)
	}
	if err != nil {
		return err
	}
	if err := p.Bind(everywhereParams); err != nil {
		return err
	}
	c.P = p
	if whoAfterParams[c.Endpoint.ID] {
		// The platform checks these callers in the route's body, after
		// Grape has validated the parameters (see whoAfterParams).
		if err := s.identify(c); err != nil {
			return err
		}
		if err := p.Bind(rt.params); err != nil {
			return err
		}
		return applyWho(c)
	}
	if err := s.authenticate(c); err != nil {
		return err
	}
	return p.Bind(rt.params)
}

// whoAfterParams are the endpoints where the platform validates the
// declared parameters before it applies `who`, so a request missing one
// answers 400 whoever sends it. The spec is silent on the order (class 2).
//   - Topics apply `who` in the route's body (authenticated_as_admin! as its
//     first statement), not in a before filter:
//     gitlabhq/gitlabhq lib/api/topics.rb @ba0f3164 (post 'topics', put/delete 'topics/:id',
//     post 'topics/merge'; the class has no before { authenticate! }).
//   - API::ProjectPackagesProtectionRules authenticates in
//     `after_validation`, so Grape's coercion and presence errors come before
//     authenticate!'s 401:
//     gitlabhq/gitlabhq lib/api/project_packages_protection_rules.rb @ba0f3164
//     (package_protection_rules.access.3).
var whoAfterParams = map[string]bool{
	"topics.create": true, "topics.edit": true, "topics.delete": true, "topics.merge": true,
	"package_protection_rules.list": true, "package_protection_rules.create": true,
	"package_protection_rules.edit": true, "package_protection_rules.delete": true,
}

// authenticate resolves the caller and applies the endpoint's `who`.
func (s *Server) authenticate(c *Ctx) error {
	if c.Endpoint.Who == "runner" {
		// The runner API authenticates with the runner's or the job's own
		// token in its handlers; a user's credential means nothing there
		// (a mirror of the platform,
		// skratsch-solutions/gitlabhq lib/api/ci/runner.rb @c766c4b0, calls no authenticate!: its routes
		// run authenticate_runner! or authenticate_job! from
		// lib/api/ci/helpers/runner.rb @12c8871d).
		return nil
	}
	if err := s.identify(c); err != nil {
		return err
	}
	return applyWho(c)
}

// identify resolves the caller from the credentials the request presents:
// 401 for a token that names no active user, 403 for a blocked one.
func (s *Server) identify(c *Ctx) error {
	p := c.P
	cr := credentials(c.R, p)
	if cr.secret != "" {
		var blocked bool
		s.store.Read(func(d *store.Data) error {
			var userID int
			if cr.kind != credJob {
				if t := d.TokenBySecret(cr.secret); t != nil && t.Active(d.Now()) {
					c.Token, userID = t, t.UserID
				}
			}
			// A bearer that is no personal token may be a job token (Authentication 2).
			if c.Token == nil && cr.kind != credPersonal && c.Endpoint.JobToken {
				if jt := d.JobTokenBySecret(cr.secret); jt != nil {
					c.JobToken, userID = jt, jt.UserID
				}
			}
			u := d.User(userID)
			if u == nil {
				c.Token, c.JobToken = nil, nil
				return nil
			}
			if !u.Active() {
				blocked = true
				return nil
			}
			c.Caller = u
			return nil
		})
		if blocked {
			return forbiddenMsg("Your account has been blocked.")
		}
		if c.Caller == nil {
			return unauthorized()
		}
		if c.Token != nil {
			if err := checkScope(c); err != nil {
				return err
			}
			if err := s.sudo(c); err != nil {
				return err
			}
		}
		s.recordActivity(c.Caller) // last_activity_on of billable members
	}
	return nil
}

// applyWho refuses a caller the endpoint's `who` does not admit.
func applyWho(c *Ctx) error {
	switch c.Endpoint.Who {
	case "anonymous":
	case "admin":
		if c.Caller == nil {
			return unauthorized()
		}
		if !c.Caller.Admin {
			return forbidden()
		}
	default:
		if c.Caller == nil {
			return unauthorized()
		}
	}
	return nil
}

type credKind int

const (
	credPersonal credKind = iota // PRIVATE-TOKEN, private_token
	credJob                      // JOB-TOKEN, job_token
	credBearer                   // Authorization: Bearer, either kind
)

type credential struct {
	kind   credKind
	secret string
}

// credentials finds the token a request presents, in the places the spec
// names: PRIVATE-TOKEN (Authentication 1), JOB-TOKEN, Authorization: Bearer
// and the job_token parameter (Authentication 2), and private_token.
func credentials(r *http.Request, p *params.Values) credential {
	if t := r.Header.Get("PRIVATE-TOKEN"); t != "" {
		return credential{credPersonal, t}
	}
	if t := r.Header.Get("JOB-TOKEN"); t != "" {
		return credential{credJob, t}
	}
	if b, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		return credential{credBearer, strings.TrimSpace(b)}
	}
	for _, q := range []struct {
		name string
		kind credKind
	}{{"private_token", credPersonal}, {"job_token", credJob}} {
		if p.Has(q.name) {
			if s, ok := p.Raw(q.name).(string); ok && s != "" {
				return credential{q.kind, s}
			}
		}
	}
	return credential{}
}

// checkScope applies Authentication rule 3: `api` may do anything, `read_api`
// reads, and narrower scopes read their own area only.
func checkScope(c *Ctx) error {
	t := c.Token
	if t.HasScope("api") {
		return nil
	}
	// Runner management goes with manage_runner (Authentication 3).
	if t.HasScope("manage_runner") && c.Endpoint.Area == "runners" {
		return nil
	}
	if readOnly(c.R.Method) {
		if t.HasScope("read_api") {
			return nil
		}
		if t.HasScope("read_user") && c.Endpoint.Area == "users" {
			return nil
		}
		if t.HasScope("read_repository") && c.Endpoint.Area == "files" {
			return nil
		}
		return insufficientScope("api read_api")
	}
	return insufficientScope("api")
}

func insufficientScope(need string) *Error {
	e := errorf(http.StatusForbidden, "403 Forbidden - insufficient_scope")
	e.Body["error"] = "insufficient_scope"
	e.Body["error_description"] = "The request requires higher privileges than provided by the access token."
	e.Body["scope"] = need
	return e
}

// sudo lets an administrator whose token has the sudo scope act as another
// user, named by ID or username in the `sudo` parameter or the Sudo header
// (Authentication rule 5).
func (s *Server) sudo(c *Ctx) error {
	who := c.R.Header.Get("Sudo")
	if v := c.In().String("sudo"); v != nil {
		who = strings.TrimSpace(*v) // a scalar: everywhereParams bound it
	}
	if who == "" {
		return nil
	}
	if !c.Caller.Admin {
		return forbiddenMsg("Must be admin to use sudo")
	}
	if !c.Token.HasScope("sudo") {
		return forbiddenMsg("Private token does not have the sudo scope")
	}
	var target *store.User
	s.store.Read(func(d *store.Data) error {
		if id, err := strconv.Atoi(who); err == nil {
			target = d.User(id)
		} else {
			target = d.UserByUsername(who)
		}
		return nil
	})
	if target == nil {
		return errorf(http.StatusNotFound, "404 User with ID or username '%s' Not Found", who)
	}
	c.Caller = target
	return nil
}
