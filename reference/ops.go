package reference

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/v4cert/v4cert/reference/api"
	"github.com/v4cert/v4cert/specs"
)

// Handler serves an instance: the hooks a CI job needs, outside /api/v4 and
// outside the rulebook (they are operations of the fake, not of the API),
// then everything else through the API, with the request log around it all.
//
//	GET  /-/readiness  200 {"status":"ok","master_check":[{"status":"ok"}]} once the world is built
//	GET  /-/liveness   200 {"status":"ok"} while the process serves
//	POST /-/reset      204 after the world is back to its start (administrator token)
//	GET  /-/requests   200 the request journal (administrator; journal.go); DELETE clears it
//	GET  /-/faults     200 the faults declared (administrator; faults.go); POST adds, DELETE removes
//	POST /-/snapshots/NAME[/restore]  the world saved or restored (administrator; snapshots.go)
type Handler struct {
	inst *Instance
	mu   sync.Mutex // one log line at a time
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	rec := &statusWriter{ResponseWriter: w}
	info := &api.RequestInfo{}
	r = r.WithContext(api.WithRequestInfo(r.Context(), info))
	hook := true
	var tap *bodyTap
	var fault *Fault
	var epoch uint64
	switch path := r.URL.EscapedPath(); {
	case path == "/-/liveness":
		h.health(rec, r, map[string]any{"status": "ok"})
	case path == "/-/readiness":
		// Ready means the world is built: a reset in progress holds it.
		h.inst.gate.RLock()
		h.health(rec, r, map[string]any{"status": "ok", "master_check": []map[string]string{{"status": "ok"}}})
		h.inst.gate.RUnlock()
	case path == "/-/reset":
		h.reset(rec, r)
	case path == "/-/requests":
		h.requests(rec, r)
	case path == "/-/faults":
		h.faultsHook(rec, r, "")
	case strings.HasPrefix(path, "/-/faults/"):
		h.faultsHook(rec, r, strings.TrimPrefix(path, "/-/faults/"))
	case path == "/-/snapshots":
		h.snapshotsHook(rec, r, "")
	case strings.HasPrefix(path, "/-/snapshots/"):
		h.snapshotsHook(rec, r, strings.TrimPrefix(path, "/-/snapshots/"))
	default:
		hook = false
		if h.inst.journal != nil && r.Body != nil && r.Body != http.NoBody {
			tap = &bodyTap{ReadCloser: r.Body}
			r.Body = tap
		}
		// A fault's latency runs before the gate, so a slowed request
		// never holds up a reset.
		if h.inst.journal != nil {
			epoch = h.inst.journal.currentEpoch()
		}
		if fault = h.inst.faults.pick(r.Method, path); fault != nil && h.inject(rec, r, fault) {
			break
		}
		h.inst.gate.RLock()
		if h.inst.journal != nil {
			// Read again under the gate: a reset that ran while this
			// request waited for it belongs before the request.
			epoch = h.inst.journal.currentEpoch()
		}
		h.inst.Server.ServeHTTP(rec, r)
		h.inst.gate.RUnlock()
	}
	took := time.Since(start)
	status := rec.code()
	if fault != nil && fault.Drop {
		status = 0 // no answer: the connection was closed
	}
	if !hook && h.inst.journal != nil {
		note := ""
		if fault != nil {
			note = fault.describe()
		}
		h.record(r, tap, status, took, info, note, start, epoch)
	}
	if h.inst.cfg.RequestLog != nil {
		h.log(r, status, took, info.Caller)
	}
}

func (h *Handler) health(w http.ResponseWriter, r *http.Request, body any) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		api.WriteJSON(w, http.StatusMethodNotAllowed, map[string]string{"message": "405 Method Not Allowed"})
		return
	}
	api.WriteJSON(w, http.StatusOK, body)
}

// reset implements POST /-/reset: an administrator's personal access token
// (PRIVATE-TOKEN, Authorization: Bearer or private_token), then the world as
// the server started, answered 204 once it is whole again.
func (h *Handler) reset(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		api.WriteJSON(w, http.StatusMethodNotAllowed, map[string]string{"message": "405 Method Not Allowed"})
		return
	}
	if _, err := h.inst.Server.Administrator(r); err != nil {
		api.WriteError(w, err)
		return
	}
	if err := h.inst.Reset(r.Context()); err != nil {
		if h.inst.cfg.Log != nil {
			h.inst.cfg.Log.Printf("reset: %v", err)
		}
		api.WriteJSON(w, http.StatusInternalServerError, map[string]string{"message": "500 Internal Server Error - reset: " + err.Error()})
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// log writes one line per request (--log requests), logfmt so that both a
// person and a log tool read it:
//
//	time=2026-01-01T00:00:00.000Z method=GET path=/api/v4/projects/acme%2Fweb?private_token=[REDACTED] status=200 duration=1.234ms caller=alice
//
// The path stays escaped as it came (encoded :id values are kept apart from
// path separators) and secret query parameters are redacted; the caller is
// the user the request acted as (after sudo), "-" when anonymous.
func (h *Handler) log(r *http.Request, status int, took time.Duration, caller string) {
	if caller == "" {
		caller = "-"
	}
	target := specs.RedactText(r.URL.EscapedPath())
	if r.URL.RawQuery != "" {
		target += "?" + redactQuery(r.URL.RawQuery)
	}
	line := fmt.Sprintf("time=%s method=%s path=%s status=%d duration=%s caller=%s\n",
		time.Now().UTC().Format("2006-01-02T15:04:05.000Z"), r.Method, quoteIfNeeded(target), status,
		fmt.Sprintf("%.3fms", float64(took.Microseconds())/1000), quoteIfNeeded(caller))
	h.mu.Lock()
	defer h.mu.Unlock()
	fmt.Fprint(h.inst.cfg.RequestLog, line)
}

func quoteIfNeeded(s string) string {
	if strings.ContainsAny(s, " \"=\t\n") {
		return fmt.Sprintf("%q", s)
	}
	return s
}

// redactQuery hides the values of secret query parameters by the one secret
// policy (specs/secrets.go) the proxy's cassettes and the reports follow,
// keeping every other pair byte for byte, and prefixed tokens wherever they
// stand.
func redactQuery(raw string) string {
	parts := strings.Split(raw, "&")
	for i, p := range parts {
		name, value, hasValue := strings.Cut(p, "=")
		if !hasValue {
			continue
		}
		n, err := url.QueryUnescape(name)
		v, verr := url.QueryUnescape(value)
		if err == nil && verr == nil && specs.IsSecretName(n) && specs.IsSecretValue(n, v) {
			parts[i] = name + "=" + url.QueryEscape(specs.Redacted)
		}
	}
	return specs.RedactText(strings.Join(parts, "&"))
}

// statusWriter remembers the status a handler answered, for the log.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (s *statusWriter) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusWriter) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	return s.ResponseWriter.Write(b)
}

func (s *statusWriter) code() int {
	if s.status == 0 {
		return http.StatusOK
	}
	return s.status
}

// Flush passes through, for answers that stream.
func (s *statusWriter) Flush() {
	if f, ok := s.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection.
func (s *statusWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }
