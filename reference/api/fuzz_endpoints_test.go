package api_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/v4cert/v4cert/reference"
	"github.com/v4cert/v4cert/reference/apitest"
	"github.com/v4cert/v4cert/reference/store"
	"github.com/v4cert/v4cert/specs"
)

// fuzzWorld is the world the every-endpoint fuzz target works on. A write the
// server accepts leaves its mark and becomes the new baseline; after
// freshWorldEvery accepted writes the next input takes a fresh world that a
// background builder has made meanwhile. The fuzz engine gives an input ten
// seconds, and building a world takes one or two, more on a busy machine: too
// long to wait for on every accepted write, and the engine repeats an input
// many times when it minimizes one. Each failure message carries the whole
// exchange, since an input may need the writes before it to fail again.
type fuzzWorld struct {
	writes   int // accepted since it was built
	inst     *reference.Instance
	srv      *httptest.Server
	w        *apitest.World
	root     *apitest.Client // in process
	baseline apitest.Snapshot
	refs     string
}

var (
	fuzzMu    sync.Mutex
	fuzzState *fuzzWorld
	// fuzzStats counts, per process, the inputs run by how they were answered.
	fuzzStats = map[string]int{}
)

// freshWorldEvery bounds how far accepted writes may take a world from the
// one Build made (deleted projects, blocked users, archived projects narrow
// what inputs reach).
const freshWorldEvery = 20

func (fw *fuzzWorld) close() { fw.srv.Close(); fw.inst.Close() }

// builtWorld is a world or why it could not be built.
type builtWorld struct {
	fw  *fuzzWorld
	err error
}

// worldBuilder keeps one spare world ready until done is closed.
func worldBuilder(spare chan<- builtWorld, done <-chan struct{}) {
	for {
		fw, err := buildFuzzWorld()
		select {
		case spare <- builtWorld{fw, err}:
		case <-done:
			if fw != nil {
				fw.close()
			}
			return
		}
	}
}

func buildFuzzWorld() (*fuzzWorld, error) {
	inst, err := reference.New(reference.Config{RootToken: repoRootToken, Seed: "none", FixedClock: true})
	if err != nil {
		return nil, err
	}
	srv := httptest.NewServer(inst.Server)
	fw := &fuzzWorld{inst: inst, srv: srv, root: &apitest.Client{Handler: inst.Server, Token: repoRootToken}}
	if fw.w, err = apitest.Build(&apitest.Client{Base: srv.URL, Token: repoRootToken}); err == nil {
		fw.baseline, fw.refs, err = fw.snapshot()
	}
	if err != nil {
		fw.close()
		return nil, err
	}
	return fw, nil
}

// currentWorld returns the pristine world, taking the spare when there is none.
func currentWorld(t *testing.T, spare <-chan builtWorld) *fuzzWorld {
	t.Helper()
	if fuzzState == nil {
		b := <-spare
		if b.err != nil {
			t.Fatal(b.err)
		}
		fuzzState = b.fw
	}
	return fuzzState
}

// snapshot reads the store through the API and the repositories' refs from disk.
func (fw *fuzzWorld) snapshot() (apitest.Snapshot, string, error) {
	s, err := apitest.Take(fw.w, fw.root, false)
	if err != nil {
		return nil, "", err
	}
	// The repositories of the projects there are: a deleted project's files
	// go in the background, after its repository was forgotten.
	var ids []int
	fw.inst.Server.Store().Read(func(d *store.Data) error {
		for _, p := range d.Projects() {
			ids = append(ids, p.ID)
		}
		return nil
	})
	sort.Ints(ids)
	var refs []string
	for _, id := range ids {
		repo, err := fw.inst.Server.Repositories().Get(id)
		if err != nil {
			continue // made on first use
		}
		r, err := apitest.RefsOf(repo.Dir())
		if err != nil {
			return nil, "", err
		}
		refs = append(refs, fmt.Sprintf("project %d\n%s", id, r))
	}
	return s, strings.Join(refs, "\n\n"), nil
}

// fuzzKinds are the ways one declared parameter is spoiled (or, for kind
// "omit", left out).
var fuzzKinds = []string{"wrong type", "out of set", "empty", "huge", "array for scalar", "hash for scalar",
	"scalar for array", "null", "fuzz value", "omit", "fuzz value in array", "deep", "control bytes", "extreme integer"}

// fuzzEncodings are the ways parameters travel (Endpoints convention 4).
var fuzzEncodings = []string{"query", "json", "form", "multipart", "json with trailing data", "json array", "null body"}

// spoil is p's value for kind; ok is false to leave p out.
func spoil(p specs.Param, kind, fuzz string) (v any, ok bool) {
	scalarLike := p.Type != "array" && p.Type != "hash"
	switch kind {
	case "wrong type":
		switch p.Type {
		case "integer":
			return "twelve", true
		case "boolean":
			return "maybe", true
		case "date":
			return "2026-13-45", true
		case "datetime":
			return "yesterday", true
		case "hash":
			return "scalar", true
		case "array":
			return map[string]any{"k": "v"}, true
		case "file":
			return "not a file", true
		}
		return map[string]any{"k": fuzz}, true
	case "out of set":
		if len(p.Values) > 0 {
			return "not-" + p.Values[0], true
		}
		return fuzz, true
	case "empty":
		return "", true
	case "huge":
		if p.Type == "integer" {
			return strings.Repeat("9", 4096), true
		}
		return strings.Repeat("x", 1<<20), true
	case "array for scalar":
		return []any{fuzz}, true
	case "hash for scalar":
		return map[string]any{"k": fuzz}, true
	case "scalar for array":
		if scalarLike {
			return fuzz, true
		}
		return "v", true
	case "null":
		return nil, true
	case "omit":
		return nil, false
	case "fuzz value in array":
		return []any{fuzz, map[string]any{"k": fuzz}}, true
	case "deep":
		var v any = fuzz
		for i := 0; i < 40; i++ {
			v = map[string]any{"a": v}
		}
		return v, true
	case "control bytes":
		return "a\x00b\xff\n\r<>" + fuzz, true
	case "extreme integer":
		return "-9223372036854775809", true
	}
	return fuzz, true
}

// fuzzCaller is the identity of a fuzzed request.
func fuzzCaller(w *apitest.World, who uint8) string {
	switch who % 5 {
	case 0:
		return repoRootToken
	case 1:
		return w.Tokens["alice"] // Developer of the group
	case 2:
		return w.Tokens["bob"] // Maintainer of the project
	case 3:
		return "" // anonymous
	}
	return "glpat-no-such-token"
}

// encodeBody renders params in encoding, adding them to target or the body.
func encodeBody(target string, params map[string]any, encoding string) (string, apitest.Raw) {
	switch encoding {
	case "query":
		if q := apitest.EncodeQuery(params); q != "" {
			sep := "?"
			if strings.Contains(target, "?") {
				sep = "&"
			}
			target += sep + q
		}
		return target, apitest.Raw{}
	case "form":
		return target, apitest.Raw{ContentType: "application/x-www-form-urlencoded", Body: []byte(apitest.EncodeQuery(params))}
	case "multipart":
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		for _, pair := range strings.Split(apitest.EncodeQuery(params), "&") {
			if pair == "" {
				continue
			}
			k, v, _ := strings.Cut(pair, "=")
			k, _ = url.QueryUnescape(k)
			v, _ = url.QueryUnescape(v)
			mw.WriteField(k, v)
		}
		mw.Close()
		return target, apitest.Raw{ContentType: mw.FormDataContentType(), Body: buf.Bytes()}
	case "json with trailing data":
		b, _ := json.Marshal(params)
		return target, apitest.Raw{ContentType: "application/json", Body: append(b, '}')}
	case "json array":
		b, _ := json.Marshal([]any{params})
		return target, apitest.Raw{ContentType: "application/json", Body: b}
	case "null body":
		target, _ = encodeBody(target, params, "query")
		return target, apitest.Raw{ContentType: "application/json", Body: []byte("null")}
	}
	b, _ := json.Marshal(params)
	return target, apitest.Raw{ContentType: "application/json", Body: b}
}

// FuzzEveryEndpoint drives every endpoint of the rulebook through the real
// server with its required parameters valid and one declared parameter (or,
// for endpoints that declare none, the request as a whole) spoiled: of the
// wrong type, out of its value set, empty, huge, an array or hash where a
// scalar is declared and the reverse, null, deeply nested, with control bytes,
// or the fuzzer's own string; sent in the query, JSON, form, multipart, a
// JSON body with trailing data, a JSON array or a null body; by the
// administrator, a Developer, a Maintainer, anonymously or with a bad token.
// It fails on any 5xx (a panic answers 500), and on any change to what the
// world holds by a refused request or by a read.
func FuzzEveryEndpoint(f *testing.F) {
	// The endpoints under /api/v4, whose parameters the rulebook binds; the
	// registry host and token issuer are distribution's and the OCI
	// conformance test's (reference/registry/conformance).
	var endpoints []*specs.Endpoint
	for _, e := range specs.Default().Endpoints {
		if e.UnderAPI() {
			endpoints = append(endpoints, e)
		}
	}
	// Seeds: every endpoint once, each with its own parameter, kind and encoding.
	for i, e := range endpoints {
		for j := range max(1, len(e.Params)) {
			n := i + j
			f.Add(uint16(i), uint8(n), uint8(j), uint8(n%len(fuzzKinds)), uint8(n%len(fuzzEncodings)), "fuzz")
			if j >= 2 {
				break // three parameters per endpoint keep the seed run short
			}
		}
	}
	spare, done := make(chan builtWorld), make(chan struct{})
	go worldBuilder(spare, done)
	f.Cleanup(func() {
		close(done)
		fuzzMu.Lock()
		defer fuzzMu.Unlock()
		f.Logf("inputs by answer: %v", fuzzStats)
		if fuzzState != nil {
			fuzzState.close()
			fuzzState = nil
		}
	})
	f.Fuzz(func(t *testing.T, endpoint uint16, who, param, kind, encoding uint8, fuzz string) {
		fuzzMu.Lock()
		defer fuzzMu.Unlock()
		fw := currentWorld(t, spare)
		e := endpoints[int(endpoint)%len(endpoints)]
		k := fuzzKinds[int(kind)%len(fuzzKinds)]
		enc := fuzzEncodings[int(encoding)%len(fuzzEncodings)]
		params := map[string]any{}
		var spoiled string
		var declared []specs.Param
		for _, p := range e.Params {
			if !e.InPath(p.Name) && !strings.Contains(p.Name, "[") {
				declared = append(declared, p)
			}
		}
		for _, p := range declared {
			if p.Required {
				params[p.Name] = fw.w.ValidParam(p)
			}
		}
		if len(declared) > 0 {
			p := declared[int(param)%len(declared)]
			spoiled = p.Name
			if v, ok := spoil(p, k, fuzz); ok {
				params[p.Name] = v
			} else {
				delete(params, p.Name)
			}
		} else {
			// Nothing declared: spoil what every endpoint reads.
			spoiled = "sudo"
			params["sudo"], _ = spoil(specs.Param{Name: "sudo", Type: "string"}, k, fuzz)
		}
		target, body := encodeBody(fw.w.Path(e), params, enc)
		var b any
		if body.ContentType != "" {
			b = body
		}
		r, err := fw.root.As(fuzzCaller(fw.w, who)).Do(e.Method, target, b)
		if err != nil {
			t.Fatal(err)
		}
		exchange := fmt.Sprintf("%s (%s %s, %s)\n%.2000s", e.ID, spoiled, k, enc, r)
		if r.Status >= 500 || r.Status < 200 {
			t.Fatalf("status %d:\n%s", r.Status, exchange)
		}
		accepted := r.Status < 300 && e.Method != http.MethodGet && e.Method != http.MethodHead
		fuzzStats[fmt.Sprintf("%dxx", r.Status/100)]++
		if accepted {
			fuzzStats["accepted writes"]++
			if fw.writes++; fw.writes >= freshWorldEvery {
				fuzzStats["fresh worlds"]++
				fw.close()
				fuzzState = nil
				return
			}
			// The write is the world now. It is read twice: the registry's
			// asynchronous delete completes on the first read that shows the
			// repository scheduled (store.ReapRegistryRepositories), a read
			// that writes by design, which the second read settles.
			for range 2 {
				if fw.baseline, fw.refs, err = fw.snapshot(); err != nil {
					t.Fatal(err)
				}
			}
			return
		}
		after, refs, err := fw.snapshot()
		if err != nil {
			t.Fatal(err)
		}
		if d := fw.baseline.Diff(after); d != "" || refs != fw.refs {
			what := "a refused request"
			if r.Status < 300 {
				what = "a read"
			}
			t.Fatalf("%s changed what the world holds:\n%s\n%s\nrefs changed: %v", what, exchange, d, refs != fw.refs)
		}
	})
}
