package proxy

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/textproto"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The corpus of the platform's real answers (testdata/platform, README.md
// there): answers the hosted platform or a self-managed one sent, as other
// projects' test suites recorded them, built into cassettes `make corpus`
// validates. sources.json says where each exchange was taken from; this
// test builds the cassettes from it through the proxy's own recorder
// (interactionOf: the one secret policy of specs/secrets.go), so what is
// committed is what the recorder would have written, and fails when the
// committed files differ from what the sources give.
//
//	go test -run TestPlatformCorpus ./proxy -update-corpus
//
// rewrites them after a source is added or changed.

var updateCorpus = flag.Bool("update-corpus", false, "rewrite testdata/platform's cassettes and PROVENANCE.json from sources.json")

const corpusDir = "testdata/platform"

// corpusCassettes: platform.yaml, which make corpus validates (no error
// allowed); older.yaml, answers recorded before a field the schemas require
// (TestPlatformCorpusOlder holds them to everything else); pending.yaml,
// exchanges whose findings belong to a family another change settles.
var corpusCassettes = []string{"platform.yaml", "older.yaml", "pending.yaml"}

// corpusSource is one public project whose recordings the corpus takes.
type corpusSource struct {
	ID       string `json:"id"`
	Repo     string `json:"repo"`     // owner/name on GitHub
	Dir      string `json:"dir"`      // the folder its recordings are in
	Host     string `json:"host"`     // the platform instance they were recorded against
	Recorded string `json:"recorded"` // date of the recording, and how it is known
	Platform string `json:"platform"` // platform version at recording, and how it is known
	Format   string `json:"format"`   // how the project stores an exchange
	Reduced  string `json:"reduced"`  // what of the recording the raw file leaves out
	// Credential names the credential header the recordings sent and the
	// source's recorder left out ("Private-Token"; how it is known is in
	// Reduced): the cassette carries it with its value [REDACTED], so the
	// checks judge the caller as the platform did (an anonymous caller is
	// answered other forms: specs.Anonymous). Empty: no credential sent.
	Credential string `json:"credential,omitempty"`
}

// corpusExchange is one recorded exchange.
type corpusExchange struct {
	Source string `json:"source"`
	Raw    string `json:"raw"`    // raw/…: the recorded answer, headers, a blank line, the body
	Path   string `json:"path"`   // the recording's path in Source's repository
	Commit string `json:"commit"` // the commit of Source's repository the recording was read at
	Method string `json:"method"`
	URL    string `json:"url"` // the request's path and query, as the file name records it
	Status int    `json:"status"`
	// RequestBody and RequestType are the request's body and its
	// Content-Type, where the source records them.
	RequestBody string `json:"request_body,omitempty"`
	RequestType string `json:"request_type,omitempty"`
	// Pending names a family another change settles (error bodies, boolean
	// parameters, pagination headers, statuses): such an exchange goes to
	// pending.yaml, which make corpus does not run yet.
	Pending string `json:"pending,omitempty"`
	// Predates lists the fields the schemas require that the platform did
	// not render yet when the exchange was recorded: such an exchange goes
	// to older.yaml, held there to every check but those fields.
	Predates []string `json:"predates,omitempty"`
	// Note says what a reader of a finding should know: a field the
	// recording predates, a divergence the rulebook records.
	Note string `json:"note,omitempty"`
	// Anonymous: this request went without the source's credential.
	Anonymous bool `json:"anonymous,omitempty"`
}

type corpusSources struct {
	Sources   []corpusSource   `json:"sources"`
	Exchanges []corpusExchange `json:"exchanges"`
	// LeftOut records the recordings read and not taken, and why, so
	// nobody reads them again unaware.
	LeftOut []struct {
		Repo     string `json:"repo"`
		Path     string `json:"path"`
		Commit   string `json:"commit"`
		Method   string `json:"method"`
		URL      string `json:"url"`
		Recorded string `json:"recorded"`
		Why      string `json:"why"`
	} `json:"left_out,omitempty"`
}

// provenanceEntry is one exchange of a built cassette, by its index there.
type provenanceEntry struct {
	Cassette string   `json:"cassette"`
	Index    int      `json:"index"`
	Method   string   `json:"method"`
	URL      string   `json:"url"`
	Repo     string   `json:"repo"`
	Path     string   `json:"path"`
	Commit   string   `json:"commit"`
	Host     string   `json:"host"`
	Recorded string   `json:"recorded"`
	Platform string   `json:"platform"`
	Pending  string   `json:"pending,omitempty"`
	Predates []string `json:"predates,omitempty"`
	Note     string   `json:"note,omitempty"`
}

// svcHeader renames the platform's X-Gitlab-* headers to the spec's X-Svc-*.
func svcHeader(name string) string {
	if len(name) > len("X-Gitlab-") && strings.EqualFold(name[:len("X-Gitlab-")], "X-Gitlab-") {
		return http.CanonicalHeaderKey("X-Svc-" + name[len("X-Gitlab-"):])
	}
	return http.CanonicalHeaderKey(name)
}

// readRaw parses a raw answer: MIME headers, a blank line, the body as sent.
func readRaw(path string) (http.Header, []byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	head, body, ok := bytes.Cut(data, []byte("\n\n"))
	if !ok {
		return nil, nil, fmt.Errorf("%s: no blank line between the headers and the body", path)
	}
	mh, err := textproto.NewReader(bufio.NewReader(bytes.NewReader(append(head, '\n', '\n')))).ReadMIMEHeader()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %v", path, err)
	}
	h := http.Header{}
	for k, vs := range mh {
		for _, v := range vs {
			h.Add(svcHeader(k), v)
		}
	}
	// The raw files end with the newline an editor adds; the recorded bodies do not.
	return h, bytes.TrimSuffix(body, []byte("\n")), nil
}

// buildCorpus writes the cassettes and PROVENANCE.json of sources into dir.
func buildCorpus(t *testing.T, src corpusSources, dir string) {
	t.Helper()
	bySource := map[string]corpusSource{}
	for _, s := range src.Sources {
		bySource[s.ID] = s
	}
	writers := map[string]*cassetteWriter{}
	counts := map[string]int{}
	var prov []provenanceEntry
	for i, e := range src.Exchanges {
		s, ok := bySource[e.Source]
		if !ok {
			t.Fatalf("exchange %d: unknown source %q", i, e.Source)
		}
		if e.Commit == "" || e.Path == "" || e.Method == "" || e.URL == "" || e.Status == 0 {
			t.Fatalf("exchange %d (%s): path, commit, method, URL and status are all required", i, e.Raw)
		}
		h, body, err := readRaw(filepath.Join(corpusDir, e.Raw))
		if err != nil {
			t.Fatal(err)
		}
		name := "platform.yaml"
		switch {
		case e.Pending != "" && len(e.Predates) > 0:
			t.Fatalf("exchange %d (%s): pending or predating, not both", i, e.Raw)
		case e.Pending != "":
			name = "pending.yaml"
		case len(e.Predates) > 0:
			name = "older.yaml"
		}
		w := writers[name]
		if w == nil {
			if w, err = openCassette(filepath.Join(dir, name), Overwrite, Format1); err != nil {
				t.Fatal(err)
			}
			writers[name] = w
		}
		u := strings.TrimSuffix(s.Host, "/") + e.URL
		ex := &Exchange{Method: e.Method, URL: u, ReqHeader: http.Header{}, ReqBody: []byte(e.RequestBody), Status: e.Status, Header: h, Body: body}
		if e.RequestType != "" {
			ex.ReqHeader.Set("Content-Type", e.RequestType)
		}
		if s.Credential != "" && !e.Anonymous {
			ex.ReqHeader.Set(s.Credential, Redacted)
		}
		if err := w.write(interactionOf(ex)); err != nil {
			t.Fatal(err)
		}
		prov = append(prov, provenanceEntry{Cassette: name, Index: counts[name], Method: e.Method, URL: u,
			Repo: s.Repo, Path: e.Path, Commit: e.Commit, Host: s.Host, Recorded: s.Recorded, Platform: s.Platform,
			Pending: e.Pending, Predates: e.Predates, Note: e.Note})
		counts[name]++
	}
	for _, w := range writers {
		if err := w.close(); err != nil {
			t.Fatal(err)
		}
	}
	out, err := json.MarshalIndent(prov, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "PROVENANCE.json"), append(out, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestPlatformCorpus(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(corpusDir, "sources.json"))
	if err != nil {
		t.Fatal(err)
	}
	var src corpusSources
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&src); err != nil {
		t.Fatalf("sources.json: %v", err)
	}
	dir := t.TempDir()
	if *updateCorpus {
		dir = corpusDir
		for _, name := range corpusCassettes {
			os.Remove(filepath.Join(dir, name))
		}
	}
	buildCorpus(t, src, dir)
	if *updateCorpus {
		return
	}
	for _, name := range append(corpusCassettes, "PROVENANCE.json") {
		want, errW := os.ReadFile(filepath.Join(dir, name))
		got, errG := os.ReadFile(filepath.Join(corpusDir, name))
		if os.IsNotExist(errW) && os.IsNotExist(errG) {
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s/%s is not what sources.json builds (run go test -run TestPlatformCorpus ./proxy -update-corpus)", corpusDir, name)
		}
	}
	// Every raw file is used: nothing sits in the corpus without its provenance.
	used := map[string]bool{}
	for _, e := range src.Exchanges {
		used[filepath.ToSlash(e.Raw)] = true
	}
	filepath.WalkDir(filepath.Join(corpusDir, "raw"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(corpusDir, p)
			if !used[filepath.ToSlash(rel)] {
				t.Errorf("%s has no entry in sources.json", p)
			}
		}
		return nil
	})
}

// TestPlatformCorpusOlder holds the answers recorded before a field existed
// to what existed then: every failing finding must be that field's absence.
func TestPlatformCorpusOlder(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(corpusDir, "PROVENANCE.json"))
	if err != nil {
		t.Fatal(err)
	}
	var prov []provenanceEntry
	if err := json.Unmarshal(data, &prov); err != nil {
		t.Fatal(err)
	}
	predates := map[int][]string{}
	for _, p := range prov {
		if p.Cassette == "older.yaml" {
			predates[p.Index] = p.Predates
		}
	}
	if len(predates) == 0 {
		t.Skip("no exchange recorded before a field")
	}
	seen := map[int]map[string]bool{}
	_, err = ValidateCassette(filepath.Join(corpusDir, "older.yaml"), nil, func(v Violation) {
		if !v.Fails() {
			return
		}
		for _, f := range predates[v.Index] {
			if v.Seen == fmt.Sprintf("missing property %q", f) {
				if seen[v.Index] == nil {
					seen[v.Index] = map[string]bool{}
				}
				seen[v.Index][f] = true
				return
			}
		}
		t.Errorf("older.yaml #%d %s %s: %s (expected %s, seen %s): not a field the recording predates", v.Index, v.Method, v.URL, v.Schema, v.Expected, v.Seen)
	})
	if err != nil {
		t.Fatal(err)
	}
	// A field listed as predating that the checks no longer miss is stale.
	for i, fields := range predates {
		for _, f := range fields {
			if !seen[i][f] {
				t.Errorf("older.yaml #%d: predates %q, but no check misses it: drop it from sources.json", i, f)
			}
		}
	}
}
