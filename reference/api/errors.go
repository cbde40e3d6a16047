package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"

	"github.com/v4cert/v4cert/reference/params"
	"github.com/v4cert/v4cert/reference/store"
)

// Error is an answer other than success, in one of the platform's two
// envelopes. Its helpers (lib/api/helpers.rb render_api_error!, bad_request!,
// not_found!...) answer {"message": ...}, a string or the property map of
// Errors rule 3: errorf builds those. Grape's own refusals (a parameter
// that fails its type or value set, lib/api/api.rb rescue_from
// Grape::Exceptions::Base) and the catch-all route (error!('404 Not Found'))
// answer {"error": "..."}: grapeError builds those. The spec fixes the body
// of Errors rules 2 to 6 only ("Body format of errors other than those in
// rules 2 to 6: not shown"), so where it is silent the reference answers
// as the platform does (docs/rulebook.md).
type Error struct {
	Status int
	Body   map[string]any
	Header http.Header
}

func (e *Error) Error() string {
	if m, ok := e.Body["message"]; ok {
		return fmt.Sprintf("%d %v", e.Status, m)
	}
	return fmt.Sprintf("%d %v", e.Status, e.Body["error"])
}

func errorf(status int, format string, args ...any) *Error {
	return &Error{Status: status, Body: map[string]any{"message": fmt.Sprintf(format, args...)}}
}

// grapeError is an answer in Grape's envelope {"error": msg}.
func grapeError(status int, msg string) *Error {
	return &Error{Status: status, Body: map[string]any{"error": msg}}
}

// routeNotFound is the platform's catch-all route (lib/api/api.rb, route
// :any, '*path' ... error!('404 Not Found', 404)): a path no endpoint has.
func routeNotFound() *Error { return grapeError(http.StatusNotFound, "404 Not Found") }

// missing is Errors rule 2. The platform quotes the attribute.
func missing(attr string) *Error {
	return errorf(http.StatusBadRequest, "400 (Bad request) %q not given", attr)
}

// invalidParam is a parameter of the wrong type or out of its set: Grape's
// coercion or values validator fails, and its ValidationErrors answer
// {"error":"<attr> is invalid"} or {"error":"<attr> does not have a valid
// value"} (grape 2.0.0 lib/grape/locale/en.yml; lib/grape/error_formatter/
// json.rb wraps a string message as {error: message}).
func invalidParam(attr string) *Error { return paramError(&params.Error{Name: attr}) }

// paramError answers a parameter error of the reader or the binder: Errors
// rule 2 for a missing one, Grape's envelope for the others.
func paramError(pe *params.Error) *Error {
	if pe.Missing {
		return missing(pe.Name)
	}
	return grapeError(http.StatusBadRequest, pe.Error())
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
		return paramError(pe)
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
	buf := bodyPool.Get().(*bytes.Buffer)
	buf.Reset()
	defer func() {
		if buf.Cap() <= maxPooledBody {
			bodyPool.Put(buf)
		}
	}()
	if err := encodeJSON(buf, v); err != nil {
		status = http.StatusInternalServerError
		buf.Reset()
		buf.WriteString(`{"message":"500 Internal Server Error"}`)
	}
	h := w.Header()
	vals := make([]string, 2) // one allocation for both values
	vals[0], vals[1] = "application/json", strconv.Itoa(buf.Len())
	h["Content-Type"], h["Content-Length"] = vals[0:1:1], vals[1:2:2]
	w.WriteHeader(status)
	w.Write(buf.Bytes()) // one write per answer
}

// bodyPool holds the buffers answers are encoded into (issue 21): a page of
// administrator views is tens of kilobytes, which json.Marshal allocated
// afresh for every answer. Buffers grown past maxPooledBody (a large
// export) are left to the collector.
var bodyPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

const maxPooledBody = 1 << 20

// encodeJSON appends v's encoding to buf, byte for byte what json.Marshal
// gives. A page of views already encoded (json.RawMessage items, from
// Data.Memo) is joined as it is: encoding/json would scan every item again.
func encodeJSON(buf *bytes.Buffer, v any) error {
	if items, ok := v.([]json.RawMessage); ok && items != nil {
		buf.WriteByte('[')
		for i, it := range items {
			if i > 0 {
				buf.WriteByte(',')
			}
			buf.Write(it)
		}
		buf.WriteByte(']')
		return nil
	}
	enc := json.NewEncoder(buf) // escapes HTML as json.Marshal does
	if err := enc.Encode(v); err != nil {
		return err
	}
	buf.Truncate(buf.Len() - 1) // Encode ends with a newline Marshal does not write
	return nil
}
