package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"v4cert/reference/params"
	"v4cert/reference/store"
)

// Error is an answer other than success. Every error body carries `message`
// (a string, or the property map of Errors rule 3); parameter errors also carry
// the platform's `error` string. This is the one documented error shape.
type Error struct {
	Status int
	Body   map[string]any
	Header http.Header
}

func (e *Error) Error() string { return fmt.Sprintf("%d %v", e.Status, e.Body["message"]) }

func errorf(status int, format string, args ...any) *Error {
	return &Error{Status: status, Body: map[string]any{"message": fmt.Sprintf(format, args...)}}
}

// missing is Errors rule 2. The platform quotes the attribute.
func missing(attr string) *Error {
	return errorf(http.StatusBadRequest, "400 (Bad request) %q not given", attr)
}

// invalidParam is a parameter of the wrong type or out of its set.
func invalidParam(attr string) *Error {
	e := errorf(http.StatusBadRequest, "400 (Bad request) %q is invalid", attr)
	e.Body["error"] = attr + " is invalid"
	return e
}

func badRequest(msg string) *Error { return errorf(http.StatusBadRequest, "400 (Bad request) %s", msg) }

// validation is Errors rule 3.
func validation(fields map[string][]string) *Error {
	return &Error{Status: http.StatusBadRequest, Body: map[string]any{"message": fields}}
}

func unauthorized() *Error { return errorf(http.StatusUnauthorized, "401 Unauthorized") }

func forbidden() *Error { return errorf(http.StatusForbidden, "403 Forbidden") }

func forbiddenMsg(msg string) *Error { return errorf(http.StatusForbidden, "403 Forbidden - %s", msg) }

// notFound names what was not found, as the platform does ("404 Group Not Found").
func notFound(what string) *Error { return errorf(http.StatusNotFound, "404 %s Not Found", what) }

func conflict(msg string) *Error { return errorf(http.StatusConflict, "409 Conflict - %s", msg) }

func methodNotAllowed(allow string) *Error {
	e := errorf(http.StatusMethodNotAllowed, "405 Method Not Allowed")
	if allow != "" {
		e.Header = http.Header{"Allow": {allow}}
	}
	return e
}

// apiV3Gone is the platform's answer to any path under /api/v3: its
// error! with a string renders {"error": ...}.
func apiV3Gone() *Error {
	const msg = "API V3 is no longer supported. Use API V4 instead."
	e := errorf(http.StatusGone, "410 Gone - %s", msg)
	e.Body["error"] = msg
	return e
}

func uriTooLong() *Error { return errorf(http.StatusRequestURITooLong, "414 Request-URI Too Large") }

func tooManyRequests(retry int) *Error {
	e := errorf(http.StatusTooManyRequests, "429 Too Many Requests - Retry later")
	e.Header = http.Header{"Retry-After": {strconv.Itoa(retry)}}
	return e
}

// asError maps what handlers, the parameter reader and the store return to an answer.
func asError(err error, notFoundWhat string) *Error {
	var e *Error
	var pe *params.Error
	var de *params.DecodeError
	var ve *store.ValidationError
	switch {
	case errors.As(err, &e):
		return e
	case errors.As(err, &pe):
		if pe.Missing {
			return missing(pe.Name)
		}
		return invalidParam(pe.Name)
	case errors.As(err, &de):
		return badRequest(de.Reason)
	case errors.Is(err, params.ErrTooLarge):
		return errorf(http.StatusRequestEntityTooLarge, "413 Request Entity Too Large")
	case errors.As(err, &ve):
		return validation(ve.Fields)
	case errors.Is(err, store.ErrNotFound):
		return notFound(notFoundWhat)
	case errors.Is(err, store.ErrConflict):
		return conflict("already exists")
	case errors.Is(err, store.ErrPersist):
		// The data dir could not be written (--data-dir): the spec's 503.
		return errorf(http.StatusServiceUnavailable, "503 Service Unavailable - %s", err)
	}
	return errorf(http.StatusInternalServerError, "500 Internal Server Error")
}

func writeError(w http.ResponseWriter, e *Error) {
	for k, v := range e.Header {
		w.Header()[k] = v
	}
	writeJSON(w, e.Status, e.Body)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		body = []byte(`{"message":"500 Internal Server Error"}`)
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	w.Write(body)
}
