package proxy

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/url"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/elazarl/goproxy"

	"github.com/v4cert/v4cert/specs"
)

// Mode is what the proxy does with the traffic.
type Mode string

// The modes of `v4cert proxy --mode`.
const (
	ModeValidate Mode = "validate" // pass traffic on and check it
	ModeRecord   Mode = "record"   // check it and write a cassette
	ModeReplay   Mode = "replay"   // answer from a cassette, no upstream
	// ModeRecordOnce replays a cassette that exists and records one that
	// does not, as go-vcr's ModeRecordOnce (New settles which).
	ModeRecordOnce Mode = "record-once"
)

// Options configure a Proxy.
type Options struct {
	Mode Mode
	// Upstream is the implementation's base URL (scheme://host[:port], an
	// /api/v4 suffix is ignored). Requests in origin form (clients whose
	// base URL is the proxy) go there; requests in absolute form (clients
	// using the proxy through HTTP_PROXY) go where they name. Unused in replay.
	Upstream string
	// PreserveHost sends the client's Host header upstream instead of the
	// upstream's, and exchanges (so recorded URLs) name that host: for an
	// upstream serving by virtual host, or to record under a fixed name.
	// Links naming the upstream reach a reverse-mode client naming the
	// proxy with or without it (links.go).
	PreserveHost bool
	// Cassette is the file record writes or replay reads.
	Cassette string
	// Existing says what record does with a cassette that exists.
	Existing ExistingPolicy
	// CassetteFormat is the format record writes: Format1 (go-vcr v2's, the
	// default) or Format2 (go-vcr v3's and v4's). Appending keeps the
	// existing file's format. Replay reads both.
	CassetteFormat int
	// ReplayRepeat answers a request whose recorded answers are used up with
	// the last of them again, as go-vcr v4's replayable interactions do;
	// without it such a request is a miss.
	ReplayRepeat bool
	// RecordMissing, in replay, sends a request the cassette has no answer
	// for to Upstream and appends the exchange to the same cassette, as
	// go-vcr's ModeReplayWithNewEpisodes: replay what was recorded, record
	// what is new. Each request not answered from the cassette is recorded
	// (two alike, two episodes), and replayed in that order next time.
	RecordMissing bool
	// Violations receives one JSON line per finding; nil writes none.
	Violations io.Writer
	// Rulebook defaults to specs.Default().
	Rulebook *specs.Rulebook
	// Timeout bounds the wait for the upstream's headers and each pause
	// within a body (default 60s); past it the client gets 504.
	Timeout time.Duration
	// MaxBody is the largest body checked and recorded (default 64 MiB);
	// larger ones pass through untouched and are reported.
	MaxBody int
	// Workers check and encode exchanges in parallel (default GOMAXPROCS).
	// Answers never wait for them: an exchange joins a queue and the client
	// has its answer at once. Queue is how many may wait before the proxy
	// reports that it is falling behind (default 1024: logged, and counted
	// in the summary). MaxBacklog bounds the bytes of bodies waiting
	// (default 1 GiB); an exchange arriving past it is passed on unchecked
	// and unrecorded, counted, logged, and Close returns an error, so a
	// recording that is not whole never looks whole.
	Workers    int
	Queue      int
	MaxBacklog int
	// OnViolation, when set, sees every finding as soon as it is made.
	OnViolation func(Violation)
	// Log receives operational messages (tunnels, write errors); nil discards them.
	Log *log.Logger
	// MaxKept bounds the findings kept in memory for Close and Drain (default
	// 10,000); the Violations writer gets them all.
	MaxKept int
}

// Proxy is a checking, recording or replaying proxy. It is an http.Handler;
// Start serves it on a listener of its own.
type Proxy struct {
	opts     Options
	gp       *goproxy.ProxyHttpServer
	tr       *http.Transport
	upstream *url.URL
	// upstreamOrigins are the spellings of the upstream's scheme://host that
	// links may carry (with and without a default port).
	upstreamOrigins []string
	checker         *Checker
	tally           *Tally
	replay          *replayer
	cas             *cassetteWriter
	idle            time.Duration

	q  *workQueue
	wg sync.WaitGroup
	// inflight counts exchanges between roundTrip and finish: Shutdown stops
	// tracking a connection the client dropped while its exchange may still be
	// draining the upstream, and Close must not drop that exchange.
	inflight sync.WaitGroup

	// Flush waits for completed to reach enqueued; completers wake it only
	// when someone waits, so an exchange costs no lock here.
	flushMu   sync.Mutex
	flushCond *sync.Cond
	enqueued  atomic.Int64
	completed atomic.Int64
	waiters   atomic.Int32

	// Back-pressure, reported: exchanges that found the queue past
	// Options.Queue, the longest it grew, and those past MaxBacklog.
	behind     atomic.Int64
	peakQueue  atomic.Int64
	overflowed atomic.Int64
	nextWarn   int // queue length at which the next "falling behind" line is logged (under q.mu)

	vmu        sync.Mutex
	vout       *bufio.Writer
	kept       []Violation
	fresh      []Violation
	writeErr   error
	dropped    atomic.Int64
	replayed   atomic.Int64
	misses     atomic.Int64
	tunnelOnce sync.Once

	srv *http.Server
	ln  net.Listener
}

// New builds a proxy. In record mode it makes sure the cassette can be
// written (the file is written from the first interaction on); in replay
// mode it loads it.
func New(opts Options) (*Proxy, error) {
	if opts.Rulebook == nil {
		opts.Rulebook = specs.Default()
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 60 * time.Second
	}
	if opts.MaxBody <= 0 {
		opts.MaxBody = 64 << 20
	}
	if opts.Workers <= 0 {
		opts.Workers = runtime.GOMAXPROCS(0)
	}
	if opts.Queue <= 0 {
		opts.Queue = 1024
	}
	if opts.MaxBacklog <= 0 {
		opts.MaxBacklog = 1 << 30
	}
	if opts.MaxKept <= 0 {
		opts.MaxKept = 10000
	}
	if opts.Log == nil {
		opts.Log = log.New(io.Discard, "", 0)
	}
	p := &Proxy{opts: opts, checker: NewChecker(opts.Rulebook), tally: NewTally(opts.Rulebook), idle: opts.Timeout, q: newWorkQueue()}
	p.nextWarn = opts.Queue
	p.flushCond = sync.NewCond(&p.flushMu)
	if opts.Mode == ModeRecordOnce {
		if opts.Cassette == "" {
			return nil, errors.New("proxy: record-once needs a cassette")
		}
		if _, err := os.Stat(opts.Cassette); err == nil {
			opts.Mode = ModeReplay
		} else {
			opts.Mode = ModeRecord
		}
		p.opts.Mode = opts.Mode
	}
	if opts.RecordMissing && (opts.Mode != ModeReplay || opts.Upstream == "") {
		return nil, errors.New("proxy: recording what is missing needs replay mode and an upstream")
	}
	switch opts.Mode {
	case ModeValidate, ModeRecord, ModeReplay:
		if opts.Upstream != "" && (opts.Mode != ModeReplay || opts.RecordMissing) {
			u, err := url.Parse(strings.TrimSuffix(strings.TrimSuffix(opts.Upstream, "/"), apiPrefix))
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				return nil, fmt.Errorf("proxy: upstream %q is not an http(s)://host[:port] URL", opts.Upstream)
			}
			if u.Path != "" && u.Path != "/" {
				return nil, fmt.Errorf("proxy: upstream %q has a path; give scheme://host[:port] (the API lives under %s)", opts.Upstream, apiPrefix)
			}
			p.upstream = u
			p.upstreamOrigins = originForms(u.Scheme, u.Host)
		}
	}
	switch opts.Mode {
	case ModeValidate, ModeRecord:
	case ModeReplay:
		if opts.Cassette == "" {
			return nil, errors.New("proxy: replay needs a cassette")
		}
		c, err := LoadCassette(opts.Cassette)
		if err != nil {
			return nil, fmt.Errorf("proxy: loading cassette: %w", err)
		}
		if len(c.Interactions) == 0 {
			opts.Log.Printf("%s holds no interactions: every request will miss", opts.Cassette)
		}
		p.replay = newReplayer(c, opts.ReplayRepeat)
	default:
		return nil, fmt.Errorf("proxy: mode %q (want validate, record, replay or record-once)", opts.Mode)
	}
	if opts.RecordMissing {
		// New episodes go after the recorded ones, in the cassette's format.
		opts.Existing, opts.CassetteFormat = Append, 0
	}
	if opts.Mode == ModeRecord || opts.RecordMissing {
		if opts.Cassette == "" {
			return nil, errors.New("proxy: record needs a cassette")
		}
		c, err := openCassette(opts.Cassette, opts.Existing, opts.CassetteFormat)
		if err != nil {
			return nil, fmt.Errorf("proxy: %w", err)
		}
		c.onError = func(err error) {
			opts.Log.Printf("writing the cassette %s: %v (the run will fail; the checks go on)", opts.Cassette, err)
		}
		p.cas = c
	}
	if opts.Violations != nil {
		p.vout = bufio.NewWriter(opts.Violations)
	}

	// goproxy's default transport keeps two idle connections per host, which
	// costs about a fifth of the throughput with 8 clients; compression is
	// left to the client and the upstream, so bodies pass as they were sent.
	// The read buffer holds a page of answer whole (net/http's 4 KB split a
	// 6 KB page of users into two reads and two pieces written to the
	// client, each a system call): 32 KB, the size of answer's copy buffer,
	// which reads past it directly.
	p.tr = &http.Transport{
		Proxy:                 nil, // never chain to HTTP_PROXY: the proxy may be that very address
		DialContext:           (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:          512,
		MaxIdleConnsPerHost:   256,
		IdleConnTimeout:       90 * time.Second,
		ResponseHeaderTimeout: opts.Timeout,
		DisableCompression:    true,
		ForceAttemptHTTP2:     false,
		ReadBufferSize:        32 << 10,
	}
	gp := goproxy.NewProxyHttpServer()
	gp.Tr = p.tr
	gp.KeepAcceptEncoding = true
	gp.Logger = opts.Log
	gp.NonproxyHandler = http.HandlerFunc(p.reverse)
	trip := goproxy.RoundTripperFunc(p.goproxyTrip)
	gp.OnRequest().DoFunc(func(r *http.Request, ctx *goproxy.ProxyCtx) (*http.Request, *http.Response) {
		ctx.RoundTripper = trip
		return r, nil
	})
	gp.OnRequest().HandleConnectFunc(func(host string, ctx *goproxy.ProxyCtx) (*goproxy.ConnectAction, string) {
		p.tunnelOnce.Do(func() {
			opts.Log.Printf("CONNECT %s: HTTPS through forward mode is tunnelled unchecked; point the client's base URL at the proxy (reverse mode) to check it", host)
		})
		return nil, host
	})
	p.gp = gp

	for range opts.Workers {
		p.wg.Add(1)
		go p.worker()
	}
	return p, nil
}

// ServeHTTP serves one client request: the proxy's own readiness route,
// origin-form requests (reverse mode) itself, and the rest (absolute-form
// requests of HTTP_PROXY clients, CONNECT) through goproxy.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == readinessPath && (r.URL.Host == "" || p.isSelf(r.URL.Host)) {
		p.readiness(w, r)
		return
	}
	if r.Method != http.MethodConnect && !r.URL.IsAbs() {
		// What goproxy does with such a request is hand it to its
		// NonproxyHandler, which is reverse.
		p.reverse(w, r)
		return
	}
	p.gp.ServeHTTP(w, r)
}

// reverse turns an origin-form request (a client whose base URL is the
// proxy) into one for the upstream and carries it: as goproxy carries a
// proxy request (the same hop-by-hop headers dropped, the same answer
// written, streamed piece by piece), without what goproxy spends per
// request on its own machinery (handleHttp run twice, a context, log
// arguments built and discarded, a 32 KB copy buffer allocated per answer
// by net/http's ReadFrom). A protocol switch (Upgrade) still goes through
// goproxy, which hijacks the connection for it.
func (p *Proxy) reverse(w http.ResponseWriter, r *http.Request) {
	if p.upstream == nil && p.replay == nil {
		http.Error(w, "v4cert proxy: no --upstream; use this proxy through HTTP_PROXY, or start it with --upstream", http.StatusBadGateway)
		return
	}
	// The proxy as the client reached it: where links naming the upstream
	// must send the client back to (links.go). A client that addressed the
	// upstream's own name (a transport or a name server routing that name
	// to the proxy) already stays on the proxy by following those links.
	self := r.Host
	if self == "" {
		self = p.Addr()
	}
	base := ""
	if p.upstream == nil || !strings.EqualFold(self, p.upstream.Host) {
		base = "http://" + self
	}
	if p.upstream != nil {
		r.URL.Scheme, r.URL.Host = p.upstream.Scheme, p.upstream.Host
		if !p.opts.PreserveHost {
			r.Host = p.upstream.Host
		}
	} else {
		r.URL.Scheme, r.URL.Host = "http", r.Host
	}
	if r.Header.Get("Upgrade") != "" {
		if base != "" {
			r = withClientBase(r, base)
		}
		p.gp.ServeHTTP(w, r)
		return
	}
	removeProxyHeaders(r)
	resp, from := p.trip(r, base)
	p.answer(w, resp, from, base)
}

// removeProxyHeaders is goproxy's RemoveProxyHeaders for a proxy that keeps
// Accept-Encoding: what concerns only the hop from the client to the proxy
// does not go on to the upstream (nor into the checks and the cassette).
func removeProxyHeaders(r *http.Request) {
	r.RequestURI = ""
	h := r.Header
	for _, k := range [...]string{"Proxy-Connection", "Proxy-Authenticate", "Proxy-Authorization", "Connection"} {
		delete(h, k)
	}
}

// answer writes the upstream's answer (or the proxy's own) to a
// reverse-mode client as goproxy writes one: its header as it came, but
// for the links rebased from the upstream's origins onto the proxy's
// (links.go), trailers announced and passed on, and the body streamed: each
// piece goes to the client as it arrives, flushed unless it is the last.
// The header's value slices are shared, not copied: net/http copies the
// header it writes, and rebaseInto replaces the slices it changes.
func (p *Proxy) answer(w http.ResponseWriter, resp *http.Response, from []string, to string) {
	body := resp.Body
	defer body.Close()
	h := w.Header()
	for k, vs := range resp.Header {
		h[k] = vs
	}
	rebaseInto(h, from, to)
	announced := len(resp.Trailer)
	if announced > 0 {
		keys := make([]string, 0, announced)
		for k := range resp.Trailer {
			keys = append(keys, k)
		}
		h["Trailer"] = []string{strings.Join(keys, ", ")}
	}
	w.WriteHeader(resp.StatusCode)
	flusher, _ := w.(http.Flusher)
	buf := copyBufPool.Get().(*[]byte)
	for {
		n, err := body.Read(*buf)
		if n > 0 {
			if _, werr := w.Write((*buf)[:n]); werr != nil {
				break // the client went away; Close still reads the rest for the record
			}
			if err == nil && flusher != nil {
				flusher.Flush()
			}
		}
		if err != nil {
			break
		}
	}
	copyBufPool.Put(buf)
	body.Close()
	if len(resp.Trailer) > 0 {
		// As goproxy does (after net/http/httputil.ReverseProxy): a flush
		// forces chunking, so trailers go out even after a short body; those
		// announced go under their names, late ones under TrailerPrefix.
		if flusher != nil {
			flusher.Flush()
		}
		for k, vs := range resp.Trailer {
			if len(resp.Trailer) != announced {
				k = http.TrailerPrefix + k
			}
			h[k] = vs
		}
	}
}

var copyBufPool = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// Start serves the proxy on addr (such as 127.0.0.1:0) and returns its base URL.
func (p *Proxy) Start(addr string) (string, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", err
	}
	p.ln = ln
	// Headers may be large: the API answers 414 to over-long query strings
	// itself, and the proxy must let them reach it.
	p.srv = &http.Server{Handler: p, ReadHeaderTimeout: 30 * time.Second, MaxHeaderBytes: 16 << 20}
	go p.srv.Serve(ln)
	return "http://" + ln.Addr().String(), nil
}

// Mode is the mode the proxy runs in: record-once has become record or
// replay by now.
func (p *Proxy) Mode() Mode { return p.opts.Mode }

// Addr is the listening address after Start.
func (p *Proxy) Addr() string {
	if p.ln == nil {
		return ""
	}
	return p.ln.Addr().String()
}

// pending is one exchange on its way through the queue to a worker.
type pending struct {
	ex      Exchange
	reqBuf  *bytes.Buffer
	respBuf *bytes.Buffer
	size    int    // bytes of bodies it holds while queued
	skip    string // why it is neither checked nor recorded (client went away, body too large)
	// replayed: answered from the cassette, so not recorded again (RecordMissing)
	replayed bool
	reqTee   *reqTee
}

var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

func getBuf() *bytes.Buffer {
	b := bufPool.Get().(*bytes.Buffer)
	b.Reset()
	return b
}

func putBuf(b *bytes.Buffer) {
	if b != nil && b.Cap() <= 1<<20 {
		bufPool.Put(b)
	}
}

// goproxyTrip is trip for the requests goproxy carries (forward mode, and
// protocol switches in reverse mode), links rebased onto the base reverse
// put in the request's context.
func (p *Proxy) goproxyTrip(req *http.Request, _ *goproxy.ProxyCtx) (*http.Response, error) {
	base := clientBase(req)
	resp, from := p.trip(req, base)
	if from != nil {
		resp.Header = rebaseHeader(resp.Header, from, base)
	}
	return resp, nil
}

// trip is where checking and recording hook in: the upstream's response
// comes back unchanged (same body object, so Content-Length survives), with
// its body read through a tee that hands the complete exchange to the
// workers once the client has it all. The client's answer never waits for
// a verdict. base is scheme://host of the proxy as a reverse-mode client
// reached it ("" in forward mode); from, when not nil, are the origins whose
// links the client's copy of the header must name base instead.
func (p *Proxy) trip(req *http.Request, base string) (*http.Response, []string) {
	start := time.Now()
	pd := &pending{reqBuf: getBuf()}
	p.inflight.Add(1)
	pd.ex = Exchange{Method: req.Method, URL: exchangeURL(req), Path: req.URL.EscapedPath(), RawQuery: req.URL.RawQuery, ReqHeader: req.Header}
	if p.replay != nil {
		return p.replayTrip(req, pd, start, base)
	}
	if req.Body != nil && req.Body != http.NoBody {
		pd.reqTee = &reqTee{rc: req.Body, buf: pd.reqBuf, max: p.opts.MaxBody}
		req.Body = pd.reqTee
	}
	return p.forward(req, pd, start, base)
}

// forward carries a request to the upstream; its answer reaches the
// client as it streams, and the exchange is finished when the body is.
func (p *Proxy) forward(req *http.Request, pd *pending, start time.Time, base string) (*http.Response, []string) {
	// The upstream call outlives a client that hangs up mid-body, so the
	// answer is still recorded whole; the stall timer below still bounds it.
	ctx, cancel := context.WithCancel(context.WithoutCancel(req.Context()))
	timer := time.AfterFunc(p.idle+p.opts.Timeout, cancel) // headers have their own timeout; this catches stalls after them
	resp, err := p.tr.RoundTrip(req.WithContext(ctx))
	if err != nil {
		timer.Stop()
		cancel()
		pd.ex.Err = upstreamError(err, p.opts.Timeout)
		pd.ex.Duration = time.Since(start)
		pd.ex.ReqBody = pd.reqBuf.Bytes()
		p.finish(pd)
		return gatewayResponse(req, pd.ex.Err, err), nil
	}
	timer.Reset(p.idle)
	pd.ex.Status, pd.ex.Header = resp.StatusCode, resp.Header
	resp.Body = &respTee{rc: resp.Body, p: p, pd: pd, buf: getBuf(), start: start, timer: timer, cancel: cancel}
	if base != "" && p.upstream != nil {
		// The checks and the cassette keep the upstream's header; the client
		// gets links back to the proxy.
		return resp, p.upstreamOrigins
	}
	return resp, nil
}

func (p *Proxy) replayTrip(req *http.Request, pd *pending, start time.Time, base string) (*http.Response, []string) {
	if req.Body != nil {
		io.Copy(pd.reqBuf, req.Body)
		req.Body.Close()
	}
	pd.ex.ReqBody = pd.reqBuf.Bytes()
	e, miss := p.replay.answer(req, pd.ex.ReqBody)
	if miss != nil && p.opts.RecordMissing {
		// A new episode: the upstream answers, and the exchange is checked
		// and appended to the cassette as record mode does.
		req.Body = io.NopCloser(bytes.NewReader(pd.ex.ReqBody))
		req.ContentLength = int64(len(pd.ex.ReqBody))
		return p.forward(req, pd, start, base)
	}
	if miss != nil {
		p.misses.Add(1)
		p.opts.Log.Print(miss.line(req))
		pd.skip = "replay miss"
		p.finish(pd)
		return miss.response(req), nil
	}
	p.replayed.Add(1)
	pd.replayed = true
	resp := e.response(req)
	// Links naming the host the cassette recorded name this listener as the
	// client reached it, whatever port it runs on now; a client addressing
	// the recorded host itself keeps them as they are.
	// With an upstream (RecordMissing) the request names the upstream by
	// now, and the client's own base decides.
	// The checks see the answer as the client gets it, as they always have
	// in replay.
	if base != "" && (p.upstream != nil || !strings.EqualFold(req.Host, e.host)) {
		resp.Header = rebaseHeader(resp.Header, e.origins, base)
	}
	pd.ex.Status, pd.ex.Header = resp.StatusCode, resp.Header
	pd.respBuf = getBuf()
	pd.respBuf.WriteString(e.in.Response.Body)
	pd.ex.Body = pd.respBuf.Bytes()
	pd.ex.Duration = time.Since(start)
	p.finish(pd)
	return resp, nil
}

// exchangeURL is the URL the client asked for: the Host it addressed (the
// upstream's unless the host is preserved) and the path and query as sent.
func exchangeURL(req *http.Request) string {
	u := *req.URL
	if req.Host != "" {
		u.Host = req.Host
	}
	if u.Scheme == "" {
		u.Scheme = "http"
	}
	return u.String()
}

func upstreamError(err error, timeout time.Duration) error {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("the upstream did not answer within %s: %v", timeout, err)
	}
	return fmt.Errorf("the upstream failed: %v", err)
}

// gatewayResponse is the proxy's own answer when the upstream gave none:
// 504 after a timeout, 502 otherwise, marked so no one takes it for the API's.
func gatewayResponse(req *http.Request, why, err error) *http.Response {
	status := http.StatusBadGateway
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		status = http.StatusGatewayTimeout
	}
	body, _ := json.Marshal(map[string]string{"v4cert_proxy": "upstream error", "message": why.Error()})
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("X-V4cert-Proxy", "upstream-error")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	return &http.Response{StatusCode: status, Status: statusText(status), Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: h, Body: io.NopCloser(bytes.NewReader(body)), ContentLength: int64(len(body)), Request: req}
}

type reqTee struct {
	rc   io.ReadCloser
	buf  *bytes.Buffer
	max  int
	over bool
}

func (t *reqTee) Read(b []byte) (int, error) {
	n, err := t.rc.Read(b)
	if n > 0 && !t.over {
		if t.buf.Len()+n > t.max {
			t.over = true
		} else {
			t.buf.Write(b[:n])
		}
	}
	return n, err
}

func (t *reqTee) Close() error { return t.rc.Close() }

// respTee copies the body as goproxy streams it to the client and hands the
// exchange on when the body ends. It also cancels an upstream that stalls
// mid-body for longer than the timeout.
type respTee struct {
	rc     io.ReadCloser
	p      *Proxy
	pd     *pending
	buf    *bytes.Buffer
	start  time.Time
	timer  *time.Timer
	cancel context.CancelFunc
	over   bool
	done   bool
}

func (t *respTee) Read(b []byte) (int, error) {
	n, err := t.rc.Read(b)
	if n > 0 && !t.over {
		if t.buf.Len()+n > t.p.opts.MaxBody {
			t.over = true
		} else {
			t.buf.Write(b[:n])
		}
	}
	if err == nil {
		t.timer.Reset(t.p.idle)
		return n, nil
	}
	if !t.done {
		if err != io.EOF {
			t.pd.ex.Err = fmt.Errorf("the body was cut short after %d bytes: %v", t.buf.Len(), err)
			if errors.Is(err, context.Canceled) {
				t.pd.ex.Err = fmt.Errorf("the upstream stalled for %s after %d bytes of the body", t.p.idle, t.buf.Len())
			}
		}
		t.complete()
	}
	return n, err
}

func (t *respTee) Close() error {
	// goproxy closes early only when the client went away mid-body. The
	// upstream's answer is still worth recording, so read the rest of it,
	// bounded by the body cap and the idle timeout that Read applies.
	if !t.done {
		buf := make([]byte, 32<<10)
		for !t.done && !t.over {
			if _, err := t.Read(buf); err != nil {
				break
			}
		}
	}
	err := t.rc.Close()
	if !t.done {
		t.pd.skip = "the client closed the connection before the body was complete"
		t.complete()
	}
	return err
}

func (t *respTee) complete() {
	t.done = true
	t.timer.Stop()
	t.cancel()
	pd := t.pd
	pd.respBuf = t.buf
	pd.ex.Body = t.buf.Bytes()
	pd.ex.ReqBody = pd.reqBuf.Bytes()
	pd.ex.Duration = time.Since(t.start)
	if (t.over || pd.reqTee != nil && pd.reqTee.over) && pd.skip == "" {
		pd.skip = fmt.Sprintf("a body over %d bytes is passed on unchecked and unrecorded", t.p.opts.MaxBody)
	}
	t.p.finish(pd)
}

// finish queues a completed exchange for the workers. It never waits for
// them: when they fall behind, the queue grows and the proxy says so (a log
// line each time the queue doubles past Options.Queue, and the summary's
// counts); past Options.MaxBacklog bytes an exchange's bodies are let go,
// which is counted, logged and fails Close, never silent.
func (p *Proxy) finish(pd *pending) {
	defer p.inflight.Done()
	if !p.q.push(pd, p.admit) {
		p.release(pd) // closed: arrived after Close began
		return
	}
	p.enqueued.Add(1)
}

// admit decides, under the queue's lock, whether an exchange's bodies may
// wait in memory, and reports the queue's length.
func (p *Proxy) admit(waiting, bytes int, pd *pending) bool {
	n := int64(waiting + 1)
	if n > p.peakQueue.Load() {
		p.peakQueue.Store(n)
	}
	if waiting >= p.opts.Queue {
		p.behind.Add(1)
		if waiting >= p.nextWarn {
			p.nextWarn = waiting * 2
			p.opts.Log.Printf("falling behind: %d exchanges wait to be checked and recorded (%d MB of bodies); answers are not held back, and nothing is lost below %d MB", waiting, bytes>>20, p.opts.MaxBacklog>>20)
		}
	}
	// The first exchange waiting is always kept, however large (MaxBody bounds it).
	if pd.skip == "" && bytes > 0 && bytes+len(pd.ex.Body)+len(pd.ex.ReqBody) > p.opts.MaxBacklog {
		if p.overflowed.Add(1) == 1 {
			p.opts.Log.Printf("over %d MB of bodies wait to be checked and recorded: exchange #%d and others until the workers catch up are passed on unchecked and unrecorded (counted in the summary; the run fails)", p.opts.MaxBacklog>>20, pd.ex.Index)
		}
		pd.skip = overflowSkip
		p.release(pd)
		pd.ex.Body, pd.ex.ReqBody = nil, nil
		return false
	}
	return true
}

const overflowSkip = "the proxy was too far behind the traffic to keep this exchange (over --max-backlog of bodies waiting)"

func (p *Proxy) release(pd *pending) {
	putBuf(pd.reqBuf)
	putBuf(pd.respBuf)
	pd.reqBuf, pd.respBuf = nil, nil
}

func (p *Proxy) done() {
	p.completed.Add(1)
	if p.waiters.Load() > 0 {
		p.flushMu.Lock()
		p.flushCond.Broadcast()
		p.flushMu.Unlock()
	}
}

// worker checks exchanges and, when recording, encodes their cassette
// entries: both off the response path, in parallel. The cassette's writer
// puts the entries in the file in the traffic's order.
func (p *Proxy) worker() {
	defer p.wg.Done()
	for {
		pd := p.q.pop()
		if pd == nil {
			return
		}
		p.check(pd)
		if p.cas != nil {
			p.cas.deliver(pd.ex.Index, p.entryOf(pd), p.q.empty())
		}
		p.release(pd)
		p.done()
	}
}

// entryOf is the cassette entry of an exchange, or nil when it is not
// recorded: answered from the cassette already (RecordMissing), or without
// a complete answer (counted).
func (p *Proxy) entryOf(pd *pending) *entry {
	switch {
	case pd.replayed:
		return nil
	case pd.skip != "" || pd.ex.Err != nil:
		p.dropped.Add(1)
		return nil
	}
	// The entry's bodies borrow the exchange's buffers, so the entry takes
	// them: it may wait for an earlier exchange before it is written.
	e := encodeEntry(buildInteraction(&pd.ex, true), p.cas.format, &p.cas.seen)
	e.held = [2]*bytes.Buffer{pd.reqBuf, pd.respBuf}
	pd.reqBuf, pd.respBuf = nil, nil
	return e
}

func (p *Proxy) check(pd *pending) {
	if pd.skip != "" {
		if pd.skip != "replay miss" && !strings.HasPrefix(pd.skip, "the client") {
			p.report([]Violation{{Index: pd.ex.Index, Severity: SeverityWarning, Method: pd.ex.Method, URL: RedactURL(pd.ex.URL),
				Status: pd.ex.Status, Expected: "a body the proxy can check", Seen: pd.skip}})
		}
		p.tally.Add(p.checker.Match(pd.ex.Method, pd.ex.Path), pd.ex.Status, nil)
		return
	}
	e, vs := p.checker.Inspect(&pd.ex)
	p.tally.Add(e, pd.ex.Status, vs)
	p.report(vs)
}

func (p *Proxy) report(vs []Violation) {
	if len(vs) == 0 {
		return
	}
	p.vmu.Lock()
	defer p.vmu.Unlock()
	for _, v := range vs {
		if p.vout != nil {
			line, _ := json.Marshal(v)
			p.vout.Write(line)
			if err := p.vout.WriteByte('\n'); err != nil && p.writeErr == nil {
				p.writeErr = err
			}
		}
		if p.opts.OnViolation != nil {
			p.opts.OnViolation(v)
		}
		if v.Severity == SeverityInfo {
			continue // the server's deprecations: in the violations file and the summary, not in verdicts
		}
		if len(p.kept) < p.opts.MaxKept {
			p.kept = append(p.kept, v)
		}
		if len(p.fresh) < p.opts.MaxKept {
			p.fresh = append(p.fresh, v)
		}
	}
	if p.vout != nil && p.q.empty() {
		p.vout.Flush()
	}
}

// Flush waits until every exchange completed so far is checked and recorded.
func (p *Proxy) Flush() {
	target := p.enqueued.Load()
	p.flushMu.Lock()
	p.waiters.Add(1)
	for p.completed.Load() < target {
		p.flushCond.Wait()
	}
	p.waiters.Add(-1)
	p.flushMu.Unlock()
	p.vmu.Lock()
	if p.vout != nil {
		p.vout.Flush()
	}
	p.vmu.Unlock()
	if p.cas != nil {
		p.cas.flush()
	}
}

// Drain waits for the exchanges completed so far and returns the findings
// made since the previous Drain (information aside: it goes to the
// violations file, OnViolation and the summary only).
func (p *Proxy) Drain() []Violation {
	p.Flush()
	p.vmu.Lock()
	defer p.vmu.Unlock()
	out := p.fresh
	p.fresh = nil
	return out
}

// Summary returns the counts so far.
func (p *Proxy) Summary() Summary {
	s := p.tally.Summary()
	s.Mode = string(p.opts.Mode)
	s.Rulebook = p.opts.Rulebook.Digest
	if p.cas != nil {
		s.Recorded, _ = p.cas.written()
	}
	s.Dropped = int(p.dropped.Load())
	s.Behind = int(p.behind.Load())
	s.PeakQueue = int(p.peakQueue.Load())
	s.Overflowed = int(p.overflowed.Load())
	s.Replayed = int(p.replayed.Load())
	s.Misses = int(p.misses.Load())
	return s
}

// Close stops serving (letting requests in flight finish), waits for every
// exchange to be checked and recorded, closes the cassette and flushes the
// findings. It returns the summary and the findings kept in memory.
func (p *Proxy) Close() (Summary, []Violation, error) {
	var err error
	if p.srv != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		if e := p.srv.Shutdown(ctx); e != nil {
			p.srv.Close()
		}
		cancel()
	}
	drained := make(chan struct{})
	go func() { p.inflight.Wait(); close(drained) }()
	select {
	case <-drained:
	case <-time.After(p.idle + p.opts.Timeout + time.Second):
		// An exchange still hanging is bounded by the idle timeout; past it, go on.
	}
	p.q.mu.Lock()
	closed := p.q.closed
	p.q.mu.Unlock()
	if closed {
		return p.Summary(), p.kept, errors.New("proxy: closed twice")
	}
	p.q.close()
	p.wg.Wait()
	p.tr.CloseIdleConnections()
	if p.cas != nil {
		if e := p.cas.close(); e != nil {
			err = e
		}
	}
	p.vmu.Lock()
	if p.vout != nil {
		if e := p.vout.Flush(); e != nil && err == nil {
			err = e
		}
	}
	if p.writeErr != nil && err == nil {
		err = p.writeErr
	}
	if n := p.overflowed.Load(); n > 0 && err == nil {
		err = fmt.Errorf("%d exchanges were passed on unchecked and unrecorded: the checks and the cassette fell over %d MB of bodies behind the traffic (raise --max-backlog, or give the proxy more CPU)", n, p.opts.MaxBacklog>>20)
	}
	kept := p.kept
	p.vmu.Unlock()
	return p.Summary(), kept, err
}

// WriteSummary writes the summary as indented JSON to path.
func WriteSummary(path string, s Summary) error {
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}
