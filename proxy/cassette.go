package proxy

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/dnaeon/go-vcr/v2/cassette"
	"gopkg.in/yaml.v3"
)

// A cassette is written in one of go-vcr's two formats, so cassette.Load and
// go-vcr's recorder read it in a user's own tests:
//
//   - format 1, go-vcr v2's (github.com/dnaeon/go-vcr/v2 v2.1.0): version 1,
//     interactions of request {body, form, headers, url, method} and response
//     {body, headers, status, code, duration};
//   - format 2, go-vcr v3's and v4's (gopkg.in/dnaeon/go-vcr.v4), which refuse
//     version 1: version 2, and each interaction also carries its id, the
//     protocol, content_length and host its default matcher compares.
//
// Unlike go-vcr, which holds every interaction in memory until Stop, the
// proxy streams: the header once, then each interaction appended as it
// completes. interactions is the last key of the document, so the file is a
// valid cassette after every interaction.

// The cassette formats (the version key of the file).
const (
	Format1 = 1 // go-vcr v2
	Format2 = 2 // go-vcr v3 and v4
)

func cassetteHeader(format int) string {
	return "---\nversion: " + strconv.Itoa(format) + "\ninteractions:\n"
}

// ErrNotCassette is returned for a file that is not a cassette of a format
// this proxy reads: empty, another YAML or JSON document, an unknown version,
// or an interaction without a request.
var ErrNotCassette = errors.New("not a go-vcr cassette")

// ExistingPolicy says what record does with a cassette that already exists.
type ExistingPolicy int

// What to do with an existing cassette file.
const (
	Refuse    ExistingPolicy = iota // fail: nothing recorded is ever overwritten by accident
	Append                          // add the new interactions after the recorded ones
	Overwrite                       // start the file afresh
)

// ErrCassetteExists is returned when record meets an existing cassette and
// neither Append nor Overwrite was chosen.
var ErrCassetteExists = errors.New("cassette exists")

type cassetteWriter struct {
	mu     sync.Mutex
	path   string
	policy ExistingPolicy
	f      *os.File // nil until the first interaction: a recording of nothing leaves the file as it was
	w      *bufio.Writer
	n      int // interactions written
	format int
	nextID int    // format 2: the id of the next interaction
	indent string // of the list items, when appending to a cassette indented otherwise
	failed error  // from opening the file at the first interaction
	err    error  // the first write error, which fails the run at Close
	// onError hears of the first write error as it happens (the proxy logs it).
	onError func(error)

	// Entries are encoded by the workers, in parallel and out of order; the
	// writer puts them in the file in the order of the traffic. next is the
	// index of the exchange to write next; ready holds those that came early.
	next  int
	ready map[int]*entry
	// seen finds bodies written before, so a repeated one is written as a
	// YAML alias of the first (bodies stored once; dedup.go).
	seen dedup

	// The buffer goes to the file flushDelay after the queue runs dry.
	flushTimer *time.Timer
	flushArmed bool
	closed     bool
}

// openCassette prepares the cassette record writes. format is Format1 or
// Format2, or 0 for the default (format 1, or the existing file's format
// when appending); appending in another format than the file's is refused,
// since one file holds one format.
//
// Everything that can be refused is refused here, before any traffic, but
// the file itself is created, truncated or appended to only when the first
// interaction arrives: a recording that captures nothing writes nothing, so
// it never leaves behind a cassette without interactions (which validate and
// replay refuse) nor destroys the one --overwrite would have replaced.
func openCassette(path string, policy ExistingPolicy, format int) (*cassetteWriter, error) {
	if format != 0 && format != Format1 && format != Format2 {
		return nil, fmt.Errorf("cassette format %d (want %d, go-vcr v2's, or %d, go-vcr v3's and v4's)", format, Format1, Format2)
	}
	_, err := os.Stat(path)
	exists := err == nil
	c := &cassetteWriter{path: path, policy: policy, format: format, ready: map[int]*entry{}}
	switch {
	case exists && policy == Refuse:
		return nil, fmt.Errorf("%w: %s (choose --append to add to it or --overwrite to replace it)", ErrCassetteExists, path)
	case exists && policy == Append:
		old, err := LoadCassette(path)
		if err != nil {
			return nil, fmt.Errorf("refusing to append: %w", err)
		}
		if format != 0 && format != old.Version {
			return nil, fmt.Errorf("%s is a format %d cassette; refusing to append in format %d", path, old.Version, format)
		}
		c.format, c.nextID = old.Version, len(old.Interactions)
		return c, writable(path, false)
	case exists:
		c.policy = Overwrite
		if c.format == 0 {
			c.format = Format1
		}
		return c, writable(path, false)
	}
	c.policy = Refuse // a new file: created at the first interaction, never over one that appeared meanwhile
	if c.format == 0 {
		c.format = Format1
	}
	return c, writable(path, true)
}

// writable makes sure the first interaction can be written: an existing
// file opens for writing (unchanged), and a new one can be created in its
// folder (the probe is removed at once).
func writable(path string, create bool) error {
	if !create {
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		return f.Close()
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	f.Close()
	return os.Remove(path)
}

// begin opens the file for the first interaction, under c.mu.
func (c *cassetteWriter) begin() error {
	if c.policy == Append {
		f, err := os.OpenFile(c.path, os.O_RDWR, 0)
		if err != nil {
			return err
		}
		indent, err := prepareAppend(f)
		if err != nil {
			f.Close()
			return fmt.Errorf("%s: %w", c.path, err)
		}
		c.f, c.w, c.indent = f, bufio.NewWriterSize(f, 256<<10), indent
		return nil
	}
	flags := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	if c.policy == Refuse {
		flags = os.O_WRONLY | os.O_CREATE | os.O_EXCL
	}
	f, err := os.OpenFile(c.path, flags, 0o644)
	if err != nil {
		return err
	}
	c.f, c.w = f, bufio.NewWriterSize(f, 256<<10)
	_, err = c.w.WriteString(cassetteHeader(c.format))
	return err
}

// prepareAppend positions f at the end of its interaction list, accepting
// cassettes this proxy wrote and those go-vcr saved (which end with the
// interactions key too, or "interactions: []" when empty, and indent the
// list by four spaces), and returns the indentation new items must take.
// The caller has loaded the file already, so its version is known good.
func prepareAppend(f *os.File) (string, error) {
	head := make([]byte, 64<<10)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	indent := ""
	if m := listIndent.FindSubmatch(head); m != nil {
		indent = string(m[1])
	}
	size, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		return "", err
	}
	tailLen := min(size, 4096)
	tail := make([]byte, tailLen)
	if _, err := f.ReadAt(tail, size-tailLen); err != nil {
		return "", err
	}
	if i := bytes.LastIndex(tail, []byte("interactions: []\n")); i >= 0 && i+len("interactions: []\n") == len(tail) {
		if err := f.Truncate(size - tailLen + int64(i)); err != nil {
			return "", err
		}
		if _, err := f.Seek(0, io.SeekEnd); err != nil {
			return "", err
		}
		_, err := f.WriteString("interactions:\n")
		return "", err
	}
	if len(tail) > 0 && tail[len(tail)-1] != '\n' {
		_, err := f.WriteString("\n")
		return indent, err
	}
	return indent, nil
}

var listIndent = regexp.MustCompile(`(?m)^interactions:\n( *)- `)

// deliver hands the writer the encoded entry of exchange index (nil for an
// exchange that is not recorded: every index is delivered exactly once) and
// writes every entry whose turn has come. idle says the queue has run dry,
// so what is buffered goes to the file within flushDelay: it trails the
// traffic by moments, not by a session.
func (c *cassetteWriter) deliver(index int, e *entry, idle bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if index != c.next {
		c.ready[index] = e
		return
	}
	c.emit(e)
	c.next++
	for {
		e, ok := c.ready[c.next]
		if !ok {
			break
		}
		delete(c.ready, c.next)
		c.emit(e)
		c.next++
	}
	if idle && c.w != nil && c.w.Buffered() > 0 && !c.flushArmed {
		// Once per flushDelay at most, not once per exchange: a write to the
		// file for every exchange cost a system call each.
		c.flushArmed = true
		if c.flushTimer == nil {
			c.flushTimer = time.AfterFunc(flushDelay, c.flushLater)
		} else {
			c.flushTimer.Reset(flushDelay)
		}
	}
}

// flushDelay is how long what is buffered may wait for the file once the
// workers have run dry: the cassette trails the traffic by moments, and a
// busy recorder writes to the file a few dozen times a second.
const flushDelay = 20 * time.Millisecond

func (c *cassetteWriter) flushLater() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.flushArmed = false
	if c.w != nil && !c.closed {
		c.note(c.w.Flush())
	}
}

func (c *cassetteWriter) note(err error) {
	if err != nil && c.err == nil {
		c.err = err
		if c.onError != nil {
			c.onError(err)
		}
	}
}

// emit writes one entry as the next list item, under c.mu.
func (c *cassetteWriter) emit(e *entry) {
	if e == nil {
		return
	}
	defer e.free()
	if c.f == nil {
		if c.failed == nil {
			c.failed = c.begin()
		}
		if c.failed != nil {
			c.note(c.failed) // opened once: a file that cannot be written fails every interaction alike
			return
		}
	}
	id := c.nextID
	c.nextID++
	b := getBuf()
	defer putBuf(b)
	if c.format == Format2 {
		b.WriteString("- id: ")
		b.WriteString(strconv.Itoa(id))
		b.WriteString("\n  ")
	} else {
		b.WriteString("- ")
	}
	// The bodies: the first time as written, with an anchor when they are
	// worth sharing; again, as an alias of that anchor.
	last := 0
	for _, sp := range e.bodies {
		b.Write(e.buf.Bytes()[last:sp.start])
		if anchor, ok := c.seen.find(sp.raw, sp.hash); ok {
			b.WriteByte('*')
			b.WriteString(anchor)
		} else {
			if anchor := c.seen.add(sp.raw, sp.hash, id, sp.which); anchor != "" {
				b.WriteByte('&')
				b.WriteString(anchor)
				b.WriteByte(' ')
			}
			if sp.start == sp.end {
				writeBody(b, sp.raw) // the worker left it to the writer, taking it for known
			} else {
				b.Write(e.buf.Bytes()[sp.start:sp.end])
			}
		}
		last = sp.end
	}
	b.Write(e.buf.Bytes()[last:])
	out := b.Bytes()
	if c.indent != "" {
		// Every scalar is on one line, so indenting each line keeps the item intact.
		out = append([]byte(c.indent), bytes.ReplaceAll(bytes.TrimSuffix(out, []byte("\n")), []byte("\n"), []byte("\n"+c.indent))...)
		out = append(out, '\n')
	}
	if _, err := c.w.Write(out); err != nil {
		c.note(err)
		return
	}
	c.n++
}

// write appends one interaction at once, each body written out in full,
// for a single writer that numbers nothing itself (the platform corpus's
// generator, whose files are read by people, one answer at a time).
func (c *cassetteWriter) write(in *cassette.Interaction) error {
	c.mu.Lock()
	next := c.next
	c.mu.Unlock()
	c.deliver(next, encodeEntry(in, c.format, nil), false)
	_, err := c.written()
	return err
}

// written is how many interactions are in the file, and the first error.
func (c *cassetteWriter) written() (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n, c.err
}

func (c *cassetteWriter) flush() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.w == nil {
		return nil
	}
	err := c.w.Flush()
	c.note(err)
	return err
}

// close writes out the file; when no interaction came, there is no file to
// write (see openCassette).
func (c *cassetteWriter) close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	if c.flushTimer != nil {
		c.flushTimer.Stop()
	}
	if len(c.ready) > 0 {
		// Never expected: an exchange was numbered and never delivered.
		c.note(fmt.Errorf("%d recorded interactions were waiting for exchange %d, which never arrived", len(c.ready), c.next))
	}
	if c.f == nil {
		return c.err
	}
	c.note(c.w.Flush()) // logged as it happens, as the flushes before were
	err := c.err
	if e := c.f.Sync(); err == nil {
		err = e
	}
	if e := c.f.Close(); err == nil {
		err = e
	}
	return err
}

// entry is one interaction encoded for the cassette, all but its list
// item's opening ("- " or "- id: N\n  "), which the writer adds in the
// traffic's order. bodies are where the encoded bodies sit in buf, so the
// writer can write a body seen before as an alias instead.
type entry struct {
	buf    *bytes.Buffer
	bodies []bodySpan
	seen   *dedup
	// held are the exchange's body buffers, which the bodies' raw strings
	// may borrow (buildInteraction): freed with the entry, once written.
	held [2]*bytes.Buffer
}

type bodySpan struct {
	start, end int // empty when the body was not encoded, being in the file already
	raw        string
	hash       uint64
	which      byte // 'q' request, 's' response: part of the anchor's name
}

func (e *entry) free() {
	putBuf(e.buf)
	e.buf = nil
	for i, b := range e.held {
		putBuf(b)
		e.held[i] = nil
	}
	e.bodies = nil
}

// encodeEntry encodes an interaction in the layout yaml.v3 reads into
// cassette.Interaction (format 1), or go-vcr v4's YAML reads into its own
// (format 2). Strings are double-quoted with escapes so any text survives;
// bodies that are not UTF-8 go as !!binary, which both YAML libraries decode
// back to the same bytes.
//
// Format 2's protocol fields are HTTP/1.1 on both sides because the proxy
// speaks nothing else: its listener serves HTTP/1.1 and its transport never
// attempts HTTP/2. content_length is the recorded body's, so a replayed
// answer is consistent with its body after redaction.
//
// seen, when not nil, is the cassette's record of bodies written: a body
// worth sharing is marked for the writer, and one in the file already is
// not encoded at all.
func encodeEntry(in *cassette.Interaction, format int, seen *dedup) *entry {
	e := &entry{buf: getBuf(), seen: seen}
	b := e.buf
	if format == Format2 {
		b.WriteString("request:\n    proto: HTTP/1.1\n    proto_major: 1\n    proto_minor: 1\n    content_length: ")
		b.WriteString(strconv.Itoa(len(in.Request.Body)))
		b.WriteString("\n    host: ")
		writeQuoted(b, hostOf(in.Request.URL))
		b.WriteString("\n    body: ")
	} else {
		b.WriteString("request:\n    body: ")
	}
	e.body(in.Request.Body, 'q')
	b.WriteString("\n    form:")
	writeValues(b, in.Request.Form)
	b.WriteString("\n    headers:")
	writeValues(b, in.Request.Headers)
	b.WriteString("\n    url: ")
	writeQuoted(b, in.Request.URL)
	b.WriteString("\n    method: ")
	writeQuoted(b, in.Request.Method)
	if format == Format2 {
		b.WriteString("\n  response:\n    proto: HTTP/1.1\n    proto_major: 1\n    proto_minor: 1\n    content_length: ")
		b.WriteString(strconv.Itoa(len(in.Response.Body)))
		b.WriteString("\n    body: ")
	} else {
		b.WriteString("\n  response:\n    body: ")
	}
	e.body(in.Response.Body, 's')
	b.WriteString("\n    headers:")
	writeValues(b, in.Response.Headers)
	b.WriteString("\n    status: ")
	writeQuoted(b, in.Response.Status)
	b.WriteString("\n    code: ")
	b.WriteString(strconv.Itoa(in.Response.Code))
	b.WriteString("\n    duration: ")
	b.WriteString(in.Response.Duration.String())
	b.WriteString("\n")
	return e
}

// body writes a body and, when it is long enough for an alias to save
// anything, marks where it is.
func (e *entry) body(s string, which byte) {
	if e.seen == nil || len(s) < minShared {
		writeBody(e.buf, s)
		return
	}
	sp := bodySpan{start: e.buf.Len(), raw: s, hash: hashString(s), which: which}
	if !e.seen.known(s, sp.hash) {
		writeBody(e.buf, s)
	}
	sp.end = e.buf.Len()
	e.bodies = append(e.bodies, sp)
}

// writeInteraction emits one whole list item (the writer's work and the
// encoder's in one, without sharing bodies): for tests and benchmarks.
func writeInteraction(b *bytes.Buffer, in *cassette.Interaction, format, id int) {
	if format == Format2 {
		b.WriteString("- id: ")
		b.WriteString(strconv.Itoa(id))
		b.WriteString("\n  ")
	} else {
		b.WriteString("- ")
	}
	e := encodeEntry(in, format, nil)
	b.Write(e.buf.Bytes())
	e.free()
}

// hostOf is the host[:port] a recorded URL addresses, as http.NewRequest
// puts it in Request.Host.
func hostOf(raw string) string {
	if u, err := url.Parse(raw); err == nil {
		return u.Host
	}
	return ""
}

func writeValues[M ~map[string][]string](b *bytes.Buffer, m M) {
	if len(m) == 0 {
		b.WriteString(" {}")
		return
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		b.WriteString("\n      ")
		writeQuoted(b, k)
		b.WriteString(": [")
		for i, v := range m[k] {
			if i > 0 {
				b.WriteString(", ")
			}
			writeQuoted(b, v)
		}
		b.WriteString("]")
	}
}

func writeBody(b *bytes.Buffer, s string) {
	if !utf8.ValidString(s) {
		b.WriteString("!!binary ")
		b.WriteString(base64.StdEncoding.EncodeToString([]byte(s)))
		return
	}
	writeQuoted(b, s)
}

const hexDigits = "0123456789abcdef"

// writeQuoted writes a YAML double-quoted scalar of a valid UTF-8 string.
// Everything a YAML reader could fold, normalize or reject is escaped:
// controls, DEL, C1 controls (NEL is a line break), line and paragraph
// separators, the byte-order mark and non-characters.
func writeQuoted(b *bytes.Buffer, s string) {
	b.WriteByte('"')
	start := 0
	for i := 0; i < len(s); {
		// Printable ASCII other than " and \ is the bulk of any body.
		for i < len(s) && yamlPlain[s[i]] {
			i++
		}
		if i >= len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			b.WriteString(s[start:i])
			switch c {
			case '"':
				b.WriteString(`\"`)
			case '\\':
				b.WriteString(`\\`)
			case '\n':
				b.WriteString(`\n`)
			case '\t':
				b.WriteString(`\t`)
			case '\r':
				b.WriteString(`\r`)
			default:
				b.WriteString(`\x`)
				b.WriteByte(hexDigits[c>>4])
				b.WriteByte(hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r >= 0x80 && r <= 0x9f) || r == 0x2028 || r == 0x2029 || r == 0xfeff || r == 0xfffe || r == 0xffff {
			b.WriteString(s[start:i])
			fmt.Fprintf(b, `\u%04x`, r)
			i += size
			start = i
			continue
		}
		i += size
	}
	b.WriteString(s[start:])
	b.WriteByte('"')
}

// yamlPlain marks the ASCII bytes a double-quoted scalar holds as they are.
var yamlPlain = func() (t [256]bool) {
	for c := 0x20; c < 0x7f; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// interactionOf builds the cassette entry of an exchange with every secret
// hidden: credentials in headers and the query, secret fields of bodies,
// user information in URLs, and any value found secret anywhere in the
// request reappearing elsewhere in the exchange.
func interactionOf(ex *Exchange) *cassette.Interaction {
	return buildInteraction(ex, false)
}

// buildInteraction is interactionOf; with borrow, the interaction's bodies
// are the exchange's own bytes (or redaction's copies) seen as strings, not
// copied: the caller keeps those bytes unchanged for as long as the
// interaction and the entry encoded from it live (entryOf hands the
// exchange's buffers to the entry, which frees them once it is written).
func buildInteraction(ex *Exchange, borrow bool) *cassette.Interaction {
	str := func(b []byte) string {
		if borrow {
			return unsafe.String(unsafe.SliceData(b), len(b))
		}
		return string(b)
	}
	var reqSecrets []string
	reqHeader := redactHeader(ex.ReqHeader, &reqSecrets)
	reqHeader.Del("Host")
	u := RedactURLCollect(ex.URL, &reqSecrets)
	reqCT := ex.ReqHeader.Get("Content-Type")
	reqBody := redactBody(ex.ReqBody, reqCT, &reqSecrets)
	reqBody = replaceAll(reqBody, reqSecrets)
	u = replaceAllString(u, reqSecrets)

	respSecrets := append([]string(nil), reqSecrets...)
	respHeader := redactHeader(ex.Header, &respSecrets)
	respBody := redactBodyKnown(ex.Body, ex.Header.Get("Content-Type"), &respSecrets, ex.noSecretNames)
	respBody = replaceAll(respBody, respSecrets)
	replaceInHeader(respHeader, respSecrets)
	replaceInHeader(reqHeader, reqSecrets)
	if len(respBody) != len(ex.Body) && respHeader.Get("Content-Length") != "" {
		// Redaction changed the body's length: keep the recorded answer
		// consistent with itself, as a replaying client reads it.
		respHeader.Set("Content-Length", strconv.Itoa(len(respBody)))
	}
	return &cassette.Interaction{
		Request: cassette.Request{
			Body: str(reqBody), Form: formOf(ex.Method, u, reqCT, reqBody), Headers: reqHeader, URL: u, Method: ex.Method,
		},
		Response: cassette.Response{
			Body: str(respBody), Headers: respHeader, Status: statusText(ex.Status), Code: ex.Status,
			Duration: ex.Duration.Round(time.Microsecond),
		},
	}
}

// RedactURLCollect is RedactURL that also reports the hidden values.
func RedactURLCollect(raw string, found *[]string) string {
	s := raw
	secretsIn(s, found)
	s = redactCredentialsIn(s)
	q := strings.IndexByte(s, '?')
	if q < 0 {
		return s
	}
	return s[:q+1] + redactQuery(s[q+1:], found)
}

func statusText(code int) string {
	if t := http.StatusText(code); t != "" {
		return strconv.Itoa(code) + " " + t
	}
	return strconv.Itoa(code)
}

func mediaType(ct string) string {
	mt, _, _ := strings.Cut(ct, ";")
	return strings.ToLower(strings.TrimSpace(mt))
}

// formOf is what go-vcr's recorder stores as a request's form: the values
// http.Request.ParseForm finds, the form body's first and then the query's,
// here of the redacted URL and body.
func formOf(method, rawURL, contentType string, body []byte) url.Values {
	var form url.Values
	if mediaType(contentType) == "application/x-www-form-urlencoded" && (method == http.MethodPost || method == http.MethodPut || method == http.MethodPatch) {
		form, _ = url.ParseQuery(string(body))
	}
	if _, query, ok := strings.Cut(rawURL, "?"); ok {
		query, _, _ = strings.Cut(query, "#")
		q, _ := url.ParseQuery(query)
		if form == nil {
			form = q
		} else {
			for k, vs := range q {
				form[k] = append(form[k], vs...)
			}
		}
	}
	if len(form) == 0 {
		return nil
	}
	return form
}

// LoadCassette reads a cassette of either format from any file name (go-vcr
// itself insists on a .yaml suffix it adds). A file that is not a cassette —
// empty, another document, an unknown version, an interaction without a
// request method or URL — is refused with ErrNotCassette, so nothing reads
// it as an empty recording.
func LoadCassette(path string) (*cassette.Cassette, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, fmt.Errorf("%s: %w: the file is empty", path, ErrNotCassette)
	}
	c := cassette.New(strings.TrimSuffix(path, ".yaml"))
	c.Version = 0
	if err := yaml.Unmarshal(data, c); err != nil {
		return nil, fmt.Errorf("%s: %w: %v", path, ErrNotCassette, err)
	}
	switch c.Version {
	case Format1, Format2:
	case 0:
		return nil, fmt.Errorf("%s: %w: no version key (go-vcr cassettes start with version: 1 or version: 2)", path, ErrNotCassette)
	default:
		return nil, fmt.Errorf("%s: %w: unknown version %d (this proxy reads versions 1 and 2)", path, ErrNotCassette, c.Version)
	}
	for i, in := range c.Interactions {
		if in == nil || in.Request.Method == "" || in.Request.URL == "" {
			return nil, fmt.Errorf("%s: %w: interaction %d has no request method and URL", path, ErrNotCassette, i)
		}
		if _, err := url.Parse(in.Request.URL); err != nil {
			return nil, fmt.Errorf("%s: %w: interaction %d: %v", path, ErrNotCassette, i, err)
		}
	}
	return c, nil
}
