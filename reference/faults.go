package reference

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/v4cert/v4cert/reference/api"
	"github.com/v4cert/v4cert/specs"
)

// Faults on demand (POST /-/faults, serve --faults FILE): a request that
// matches a fault's method and path is slowed, answered with a chosen
// status in the spec's error shape, or dropped (its connection closed with
// no answer), so a client's retry and timeout code meets what WireMock's
// delays and connection resets, Prism's Prefer: code=500 and Hoverfly's
// middleware give. There are none until some are declared; the hooks under
// /-/ are never faulted. A reset keeps the faults of --faults FILE (the
// fake's configuration, not the world), their counts restarted as at
// start-up, and removes those added through POST /-/faults (a test's own
// arrangement), as WireMock's reset keeps the stubs loaded from files and
// drops those added at run time.

// Fault is one declared fault. Path is a rulebook template from the server
// root (/api/v4/projects/:id: a :name takes one segment, a *name one or
// more) or, without placeholders, a prefix of whole segments
// (/api/v4/projects takes /api/v4/projects/1/issues too); Endpoint, instead,
// names a rulebook endpoint by ID. Latency delays the answer; Status answers
// instead of the API; Drop closes the connection unanswered (after the
// latency, if both). Nth faults only the Nth matching request; Probability
// a share of them, drawn from Seed so that a run repeats; neither: every one.
type Fault struct {
	ID          string  `json:"id" yaml:"-"`
	Method      string  `json:"method,omitempty" yaml:"method"`
	Path        string  `json:"path,omitempty" yaml:"path"`
	Endpoint    string  `json:"endpoint,omitempty" yaml:"endpoint"`
	Latency     string  `json:"latency,omitempty" yaml:"latency"`
	Status      int     `json:"status,omitempty" yaml:"status"`
	Drop        bool    `json:"drop,omitempty" yaml:"drop"`
	Nth         int     `json:"nth,omitempty" yaml:"nth"`
	Probability float64 `json:"probability,omitempty" yaml:"probability"`
	Seed        uint64  `json:"seed,omitempty" yaml:"seed"`
	// Matched counts the requests that matched; Injected those faulted.
	Matched  int `json:"matched" yaml:"-"`
	Injected int `json:"injected" yaml:"-"`
	// FromFile marks a fault of serve --faults FILE, which a reset keeps.
	FromFile bool `json:"from_file,omitempty" yaml:"-"`

	latency time.Duration
	segs    []string
	glob    bool
	rng     *rand.Rand
}

// check validates f and readies it; a fault that fails says which field.
func (f *Fault) check() error {
	f.Method = strings.ToUpper(f.Method)
	switch {
	case f.Path == "" && f.Endpoint == "", f.Path != "" && f.Endpoint != "":
		return api.InvalidParam("path")
	case f.Path != "" && !strings.HasPrefix(f.Path, "/"):
		return api.InvalidParam("path")
	case f.Endpoint != "" && specs.Default().Endpoint(f.Endpoint) == nil:
		return api.InvalidParam("endpoint")
	case f.Status != 0 && (f.Status < 400 || f.Status > 599):
		return api.InvalidParam("status")
	case f.Nth < 0:
		return api.InvalidParam("nth")
	case f.Probability < 0 || f.Probability > 1:
		return api.InvalidParam("probability")
	case f.Nth > 0 && f.Probability > 0:
		return api.InvalidParam("probability") // one selection at a time
	}
	if f.Latency != "" {
		d, err := time.ParseDuration(f.Latency)
		if err != nil || d < 0 || d > 10*time.Minute {
			return api.InvalidParam("latency")
		}
		f.latency = d
	}
	if f.latency == 0 && f.Status == 0 && !f.Drop {
		return api.InvalidParam("status") // a fault that does nothing
	}
	if f.Path != "" {
		f.segs = splitSegments(f.Path)
		for _, s := range f.segs {
			f.glob = f.glob || strings.HasPrefix(s, ":") || strings.HasPrefix(s, "*")
		}
	}
	f.rng = rand.New(rand.NewPCG(f.Seed, f.Seed^0x9e3779b97f4a7c15))
	f.Matched, f.Injected = 0, 0
	return nil
}

func (f *Fault) matches(method, escapedPath string) bool {
	if f.Method != "" && f.Method != method && !(f.Method == http.MethodGet && method == http.MethodHead) {
		return false
	}
	if f.Endpoint != "" {
		e := specs.Default().MatchRoot(method, escapedPath)
		if e == nil && method == http.MethodHead {
			e = specs.Default().MatchRoot(http.MethodGet, escapedPath)
		}
		return e != nil && e.ID == f.Endpoint
	}
	segs := splitSegments(escapedPath)
	if f.glob {
		_, ok := globMatch(f.segs, segs)
		return ok
	}
	if len(segs) < len(f.segs) {
		return false
	}
	for i, s := range f.segs {
		if segs[i] != s {
			return false
		}
	}
	return true
}

// globMatch matches segments where :x takes one non-empty segment and *x
// one or more (the rulebook's templates).
func globMatch(pat, segs []string) (int, bool) {
	if len(pat) == 0 {
		return 0, len(segs) == 0
	}
	switch s := pat[0]; {
	case strings.HasPrefix(s, "*"):
		for n := 1; n <= len(segs); n++ {
			if _, ok := globMatch(pat[1:], segs[n:]); ok {
				return 0, true
			}
		}
		return 0, false
	case len(segs) == 0:
		return 0, false
	case strings.HasPrefix(s, ":") && segs[0] != "", s == segs[0]:
		return globMatch(pat[1:], segs[1:])
	}
	return 0, false
}

func (f *Fault) describe() string {
	var parts []string
	if f.latency > 0 {
		parts = append(parts, "latency "+f.latency.String())
	}
	if f.Status != 0 {
		parts = append(parts, "status "+strconv.Itoa(f.Status))
	}
	if f.Drop {
		parts = append(parts, "drop")
	}
	return "fault " + f.ID + ": " + strings.Join(parts, ", ")
}

type faults struct {
	mu   sync.Mutex
	list []*Fault
	seq  int
	// some is len(list) > 0, read without the lock on every request, so
	// a server without faults pays one atomic load.
	some atomic.Bool
}

// add validates every fault first, so a refused declaration adds none.
func (fs *faults) add(list []Fault, fromFile bool) ([]Fault, error) {
	for i := range list {
		if err := list[i].check(); err != nil {
			return nil, err
		}
	}
	fs.mu.Lock()
	defer fs.mu.Unlock()
	out := make([]Fault, len(list))
	for i := range list {
		fs.seq++
		f := list[i]
		f.ID = strconv.Itoa(fs.seq)
		f.FromFile = fromFile
		fs.list = append(fs.list, &f)
		out[i] = f
	}
	fs.some.Store(len(fs.list) > 0)
	return out, nil
}

func (fs *faults) snapshot() []Fault {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	out := make([]Fault, len(fs.list))
	for i, f := range fs.list {
		out[i] = *f
	}
	return out
}

func (fs *faults) remove(id string) bool {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	for i, f := range fs.list {
		if f.ID == id {
			fs.list = append(fs.list[:i], fs.list[i+1:]...)
			fs.some.Store(len(fs.list) > 0)
			return true
		}
	}
	return false
}

func (fs *faults) clear() {
	fs.mu.Lock()
	fs.list = nil
	fs.some.Store(false)
	fs.mu.Unlock()
}

// restart is a reset's: the faults of --faults FILE stay, counted from
// zero and drawn from their seed again, so a run after a reset faults the
// same requests as after a start; the others go.
func (fs *faults) restart() {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	kept := fs.list[:0]
	for _, f := range fs.list {
		if f.FromFile {
			f.check() // cannot fail: it passed when it was loaded
			kept = append(kept, f)
		}
	}
	clear(fs.list[len(kept):])
	fs.list = kept
	fs.some.Store(len(fs.list) > 0)
}

// pick returns the fault to inject into a request, if any: the first
// declared fault that matches and whose selection takes this request. Every
// matching fault counts the request, so Nth means the Nth request it saw.
func (fs *faults) pick(method, escapedPath string) *Fault {
	if !fs.some.Load() {
		return nil
	}
	fs.mu.Lock()
	defer fs.mu.Unlock()
	var hit *Fault
	for _, f := range fs.list {
		if !f.matches(method, escapedPath) {
			continue
		}
		f.Matched++
		take := true
		switch {
		case f.Nth > 0:
			take = f.Matched == f.Nth
		case f.Probability > 0:
			take = f.rng.Float64() < f.Probability
		}
		if take && hit == nil {
			f.Injected++
			c := *f
			hit = &c
		}
	}
	return hit
}

// inject carries out f on a request; it reports whether the request was
// answered (a status) or dropped, so the API must not serve it.
func (h *Handler) inject(w http.ResponseWriter, r *http.Request, f *Fault) (done bool) {
	if f.latency > 0 {
		t := time.NewTimer(f.latency)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return true // the client gave up: nothing to answer
		}
	}
	switch {
	case f.Drop:
		conn, _, err := http.NewResponseController(w).Hijack()
		if err != nil {
			// HTTP/2 has no connection to take: the stream is reset instead.
			panic(http.ErrAbortHandler)
		}
		conn.Close()
		return true
	case f.Status != 0:
		api.WriteError(w, api.StatusError(f.Status))
		return true
	}
	return false
}

// faultsHook implements /-/faults and /-/faults/ID (administrator):
//
//	GET    /-/faults      200 the declared faults, with what they matched and injected
//	POST   /-/faults      201 the faults added (body: one fault or a list, JSON or YAML)
//	DELETE /-/faults      204 every fault gone
//	DELETE /-/faults/ID   204 that one gone (404 when there is none)
func (h *Handler) faultsHook(w http.ResponseWriter, r *http.Request, id string) {
	allow := "GET, HEAD, POST, DELETE"
	if id != "" {
		allow = "DELETE"
	}
	if !allows(allow, r.Method) {
		notAllowed(w, allow)
		return
	}
	// The body is the faults (JSON or YAML, one or a list), not the API's
	// parameters: credentials come from the headers and the query alone.
	data, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		api.WriteError(w, api.InvalidParam("faults"))
		return
	}
	if _, err := h.inst.Server.Administrator(withoutBody(r)); err != nil {
		api.WriteError(w, err)
		return
	}
	fs := &h.inst.faults
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		api.WriteJSON(w, http.StatusOK, fs.snapshot())
	case http.MethodPost:
		list, err := parseFaults(data)
		if err != nil {
			api.WriteError(w, api.InvalidParam("faults"))
			return
		}
		added, err := fs.add(list, false)
		if err != nil {
			api.WriteError(w, err)
			return
		}
		api.WriteJSON(w, http.StatusCreated, added)
	case http.MethodDelete:
		if id == "" {
			fs.clear()
		} else if !fs.remove(id) {
			api.WriteError(w, api.NotFound("Fault"))
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}
}

// parseFaults reads one fault or a list, in JSON or YAML.
func parseFaults(data []byte) ([]Fault, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return nil, fmt.Errorf("no fault declared")
	}
	var list []Fault
	var err error
	if data[0] == '{' || data[0] == '[' {
		if data[0] == '{' {
			var f Fault
			err = strictJSON(data, &f)
			list = []Fault{f}
		} else {
			err = strictJSON(data, &list)
		}
	} else {
		var node yaml.Node
		if err = yaml.Unmarshal(data, &node); err == nil && len(node.Content) == 1 && node.Content[0].Kind == yaml.MappingNode {
			var f Fault
			err = node.Content[0].Decode(&f)
			list = []Fault{f}
		} else if err == nil {
			err = node.Decode(&list)
		}
	}
	return list, err
}

func strictJSON(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// LoadFaults declares the faults of a file (serve --faults FILE): a list in
// YAML or JSON.
func (i *Instance) LoadFaults(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("--faults: %w", err)
	}
	list, err := parseFaults(data)
	if err == nil {
		_, err = i.faults.add(list, true)
	}
	if err != nil {
		return fmt.Errorf("--faults %s: %v", path, err)
	}
	return nil
}

// withoutBody is r without its body, for authenticating a hook whose body
// is not the API's parameters.
func withoutBody(r *http.Request) *http.Request {
	c := r.Clone(r.Context())
	c.Body, c.ContentLength = http.NoBody, 0
	c.Header.Del("Content-Type")
	return c
}
