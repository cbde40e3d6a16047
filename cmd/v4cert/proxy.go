package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/v4cert/v4cert/proxy"
)

const proxyHelp = `Usage: v4cert proxy --upstream URL [flags]

Sits between any client and any implementation of the API and watches the
traffic without changing it. Reverse mode: point the client's base URL at the
proxy. Forward mode: set HTTP_PROXY=http://ADDR for the client (plain http
upstreams; https through forward mode is tunnelled unchecked). Most clients
never use HTTP_PROXY for localhost or 127.0.0.1 (Go's net/http among them):
for a loopback upstream use reverse mode.

In reverse mode, Link and Location headers naming the upstream reach the
client naming the proxy (http://HOST the client addressed), so a client that
follows rel="next" stays on the proxy; the checks and the cassette keep the
upstream's own URLs. Replay answers links naming the recorded host with its
own address, whatever port it runs on. GET and HEAD /-/readiness are answered
by the proxy itself in every mode (200, JSON), never forwarded or recorded.

Modes:
  validate  pass traffic on and check every exchange against the rulebook and schemas
  record    the same, and write every exchange to a go-vcr cassette (secrets redacted):
            --cassette-format 1 (default) for go-vcr v2, 2 for go-vcr v3 and v4
  replay    answer from a cassette of either format with no upstream; a request with
            no recorded answer gets status 599 with header X-V4cert-Replay: miss and a
            JSON body naming the closest recorded request and how it differs (also
            printed on stderr); --replay-repeat answers the last recorded answer again
            once a request's answers are used up; --record-missing (with --upstream) sends
            what the cassette cannot answer to the upstream instead and appends the
            exchange to the same cassette (go-vcr's ModeReplayWithNewEpisodes)
  record-once
            replay the cassette if it exists, record it otherwise (go-vcr's ModeRecordOnce)

An existing cassette is never overwritten by accident: record refuses to start
unless --append (add to it) or --overwrite (replace it) is given. The cassette
is written as the traffic flows, one interaction at a time, so a long recording
never sits in memory and the file is a valid cassette at every moment from the
first interaction on.

Findings are printed to stderr as they are made and, with --violations, written
one JSON object per line. On SIGINT or SIGTERM the proxy stops accepting, lets
requests in flight finish, writes out the cassette, the findings and the summary
(which endpoints and statuses the traffic covered), then exits: 0 when no
finding is an error, 1 otherwise. Replay also exits 1 after any miss, and
record after a recording that captured nothing (it then writes no cassette:
a new file is not created, an existing one is left as it was).

Findings are sorted by whose doing they are: error (the implementation broke
the spec), warning (the client sent something deprecated, or called an endpoint
the rulebook does not know), info (the implementation answered a field the spec
deprecates, as the spec's own answers do) and harness (v4cert's own checks
disagreed: a v4cert defect, which fails the run).

Flags:
`

func runProxy(args []string) int {
	fs := newFlagSet("proxy")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), proxyHelp)
		printDefaults(fs)
	}
	upstream := fs.String("upstream", "", "the implementation's base URL, scheme://host[:port] (not needed in replay)")
	addr := fs.String("addr", "127.0.0.1:8081", "address to listen on, host:port (port 0: any free port, printed at start)")
	// --listen was the proxy's name for what serve calls --addr: one name per
	// concept, the old one kept working.
	deprecatedAlias(fs, "listen", "addr", "serve's name for the listen address")
	mode := fs.String("mode", "validate", "validate, record, replay or record-once")
	recordMissing := fs.Bool("record-missing", false, "replay: send a request the cassette has no answer for to --upstream and append the exchange to the cassette")
	cas := fs.String("cassette", "", "cassette file to record to or replay from (name it *.yaml for go-vcr's recorder)")
	format := fs.Int("cassette-format", proxy.Format1, "record: 1 (go-vcr v2) or 2 (go-vcr v3 and v4); --append keeps the file's format")
	repeat := fs.Bool("replay-repeat", false, "replay: once a request's recorded answers are used up, answer the last one again (go-vcr v4's replayable interactions)")
	appendTo := fs.Bool("append", false, "record: add to an existing cassette")
	overwrite := fs.Bool("overwrite", false, "record: replace an existing cassette")
	violations := fs.String("violations", "", "write findings to this file, one JSON object per line")
	summary := fs.String("summary", "", "write the summary as JSON to this file at exit")
	preserveHost := fs.Bool("preserve-host", false, "send the client's Host header upstream instead of the upstream's; recorded URLs then name that host (links naming the upstream are rewritten to the proxy's address either way)")
	timeout := fs.Duration("upstream-timeout", 60*time.Second, "longest wait for the upstream's headers, and longest pause inside a body")
	deprecatedAlias(fs, "timeout", "upstream-timeout", "a wait for the upstream, not certify's limit for the run")
	quiet := fs.Bool("quiet", false, "do not print findings as they are made")
	backlog := fs.Int("max-backlog", 1024, "MB of bodies that may wait to be checked and recorded; answers never wait, and an exchange past this is passed on unchecked and unrecorded, counted, and the run fails")
	if err := fs.Parse(args); err != nil {
		return flagExit(err)
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "v4cert proxy: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	if *appendTo && *overwrite {
		fmt.Fprintln(os.Stderr, "v4cert proxy: choose one of --append and --overwrite")
		return 2
	}
	if *format != proxy.Format1 && *format != proxy.Format2 {
		fmt.Fprintf(os.Stderr, "v4cert proxy: --cassette-format %d: want 1 (go-vcr v2) or 2 (go-vcr v3 and v4)\n", *format)
		return 2
	}
	m := proxy.Mode(*mode)
	opts := proxy.Options{Mode: m, Upstream: *upstream, Cassette: *cas, PreserveHost: *preserveHost, Timeout: *timeout,
		ReplayRepeat: *repeat, RecordMissing: *recordMissing, MaxBacklog: *backlog << 20, Log: log.New(os.Stderr, "v4cert proxy: ", log.LstdFlags)}
	fs.Visit(func(f *flag.Flag) {
		// Appending keeps the file's format unless one is asked for explicitly.
		if f.Name == "cassette-format" {
			opts.CassetteFormat = *format
		}
	})
	switch {
	case *appendTo:
		opts.Existing = proxy.Append
	case *overwrite:
		opts.Existing = proxy.Overwrite
	}
	var vfile *os.File
	if *violations != "" {
		f, err := os.Create(*violations)
		if err != nil {
			fmt.Fprintln(os.Stderr, "v4cert proxy:", err)
			return 1
		}
		vfile = f
		opts.Violations = f
	}
	if !*quiet {
		opts.OnViolation = func(v proxy.Violation) { fmt.Fprintln(os.Stderr, proxy.Format(v)) }
	}
	_, statErr := os.Stat(*cas)
	existed := *cas != "" && statErr == nil
	p, err := proxy.New(opts)
	if err != nil {
		fmt.Fprintln(os.Stderr, "v4cert", err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	base, err := p.Start(*addr)
	if err != nil {
		p.Close()
		fmt.Fprintf(os.Stderr, "v4cert proxy: %v\n", bindError("addr", *addr, err))
		return 1
	}
	if m == proxy.ModeRecordOnce {
		fmt.Fprintf(os.Stderr, "v4cert proxy: record-once: %s\n", map[bool]string{true: *cas + " exists, replaying it", false: *cas + " does not exist, recording it"}[p.Mode() == proxy.ModeReplay])
	}
	m = p.Mode()
	if (m == proxy.ModeValidate || m == proxy.ModeRecord) && *upstream == "" {
		fmt.Fprintln(os.Stderr, "v4cert proxy: no --upstream; forward mode only (clients using HTTP_PROXY)")
	}
	fmt.Fprintf(os.Stderr, "v4cert proxy (%s) listening on %s", m, base)
	if *upstream != "" && (m != proxy.ModeReplay || *recordMissing) {
		fmt.Fprintf(os.Stderr, " → %s", *upstream)
	}
	fmt.Fprintln(os.Stderr)
	<-ctx.Done()
	stop() // a second signal ends the process at once
	fmt.Fprintln(os.Stderr, "v4cert proxy: stopping; writing out what was recorded")
	s, _, err := p.Close()
	if s.Exchanges == 0 {
		fmt.Fprintln(os.Stderr, noTrafficWarning(base, m))
	}
	status := finishProxy(s, err, vfile, *summary, os.Stderr)
	for _, why := range proxyFailures(s, m, *cas, existed) {
		fmt.Fprintln(os.Stderr, "v4cert proxy:", why)
		status = 1
	}
	return status
}

// proxyFailures are the ends of a run that fail it beyond the findings: a
// replay that had no answer for some request (the client saw a 599, so its
// run is not the recorded one), and a recording that captured nothing (the
// cassette would replay nothing; none is written).
func proxyFailures(s proxy.Summary, m proxy.Mode, cassette string, existed bool) []string {
	var out []string
	if m == proxy.ModeReplay && s.Misses > 0 {
		out = append(out, fmt.Sprintf("%d request(s) had no recorded answer in %s (replay misses, answered 599; each is logged above with the closest recorded request)", s.Misses, cassette))
	}
	if m == proxy.ModeRecord && s.Recorded == 0 {
		what := cassette + " was not written"
		if existed {
			what = cassette + " is left as it was"
		}
		seen := "no exchange reached the proxy"
		if s.Exchanges > 0 {
			seen = fmt.Sprintf("none of the %d exchange(s) had a complete answer to record", s.Exchanges)
		}
		out = append(out, "the recording captured nothing: "+seen+"; "+what)
	}
	return out
}

// noTrafficWarning explains the usual reason a proxy saw nothing: a client
// told to use it through HTTP_PROXY that bypasses proxies for loopback.
func noTrafficWarning(base string, m proxy.Mode) string {
	msg := "v4cert proxy: warning: no traffic reached the proxy"
	if m == proxy.ModeRecord {
		msg += ", so there is nothing to record"
	}
	return msg + ". Clients given HTTP_PROXY usually bypass it for localhost and 127.0.0.1 (Go's net/http always does): " +
		"use reverse mode instead, with the client's base URL set to " + base + " and --upstream naming the implementation."
}

func finishProxy(s proxy.Summary, err error, vfile *os.File, summary string, out io.Writer) int {
	status := 0
	if vfile != nil {
		if e := vfile.Close(); e != nil && err == nil {
			err = e
		}
	}
	if summary != "" {
		if e := proxy.WriteSummary(summary, s); e != nil && err == nil {
			err = e
		}
	}
	fmt.Fprint(out, proxy.FormatSummary(s))
	if err != nil {
		fmt.Fprintln(out, "v4cert proxy:", err)
		status = 1
	}
	if s.Errors > 0 || s.Harness > 0 {
		status = 1
	}
	return status
}
