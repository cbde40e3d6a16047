package api

import (
	"context"
	"net/http"

	"github.com/v4cert/v4cert/reference/params"
	"github.com/v4cert/v4cert/reference/store"
)

// RequestInfo is what the API tells the request log about a request it
// served: who called, by username, after sudo.
type RequestInfo struct {
	Caller string
	// Unrouted: no endpoint has this method and path (the catch-all 404).
	Unrouted bool
}

type requestInfoKey struct{}

// WithRequestInfo returns ctx carrying info, which the API fills in.
func WithRequestInfo(ctx context.Context, info *RequestInfo) context.Context {
	return context.WithValue(ctx, requestInfoKey{}, info)
}

// noteCaller records the caller of r for the request log, when one is kept.
func noteCaller(r *http.Request, u *store.User) {
	if info, ok := r.Context().Value(requestInfoKey{}).(*RequestInfo); ok && u != nil {
		info.Caller = u.Username
	}
}

// Administrator authenticates r as an administrator with a personal access
// token carrying the api scope, in any of the places a personal token may
// come (Authentication 1): the operator hooks outside /api/v4 (POST /-/reset)
// use it. It answers the spec's 401 and 403 errors.
func (s *Server) Administrator(r *http.Request) (*store.User, error) {
	p, err := params.FromRequest(r)
	if err != nil {
		return nil, err
	}
	cr := credentials(r, p)
	if cr.secret == "" || cr.kind == credJob {
		return nil, unauthorized()
	}
	var u *store.User
	var tok *store.Token
	s.store.Read(func(d *store.Data) error {
		if t := d.TokenBySecret(cr.secret); t != nil && t.Active(d.Now()) {
			tok, u = t, d.User(t.UserID)
		}
		return nil
	})
	switch {
	case u == nil:
		return nil, unauthorized()
	case !u.Active():
		return nil, forbiddenMsg("Your account has been blocked.")
	case !u.Admin:
		return nil, forbidden()
	case !tok.HasScope("api"):
		return nil, insufficientScope("api")
	}
	noteCaller(r, u)
	return u, nil
}

// WriteError answers err in the spec's error shape, for handlers outside the
// route table (the operator hooks).
func WriteError(w http.ResponseWriter, err error) { writeError(w, asError(err, "Resource")) }

// WriteJSON answers v as JSON with status.
func WriteJSON(w http.ResponseWriter, status int, v any) { writeJSON(w, status, v) }

// InvalidParam is the spec's 400 for a parameter of an operator hook that
// fails its type or value set ({"error": "NAME is invalid"}, as Grape says it).
func InvalidParam(name string) error { return invalidParam(name) }

// NotFound is the spec's 404 for something an operator hook names that does
// not exist ({"message": "404 WHAT Not Found"}).
func NotFound(what string) error { return notFound(what) }

// Conflict is the spec's 409 ({"message": "409 Conflict - MSG"}).
func Conflict(msg string) error { return conflict(msg) }

// StatusError is an answer of status in the spec's error shape
// ({"message": "503 Service Unavailable"}): what an injected fault answers.
func StatusError(status int) error {
	return errorf(status, "%d %s", status, http.StatusText(status))
}

// noteUnrouted marks r, for the request journal, as a request no endpoint
// matched (the catch-all 404): a near-miss.
func noteUnrouted(r *http.Request) {
	if info, ok := r.Context().Value(requestInfoKey{}).(*RequestInfo); ok {
		info.Unrouted = true
	}
}

// RouteNotFound is the catch-all 404 ({"error": "404 Not Found"}), for a
// path under an operator hook that names nothing.
func RouteNotFound() error { return routeNotFound() }
