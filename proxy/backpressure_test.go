package proxy_test

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/v4cert/v4cert/proxy"
)

// stalledProxy records through one worker that stops inside the first
// exchange's finding until release is called: the workers are as far behind
// as a test wants, with no timing involved. Every exchange is to a path the
// rulebook does not know, so each has a finding.
func stalledProxy(t *testing.T, opts proxy.Options) (p *proxy.Proxy, base, cassette string, logs *bytes.Buffer, release func()) {
	t.Helper()
	up := newHandlerServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"n":%q,"pad":%q}`, r.URL.Query().Get("n"), strings.Repeat("x", 1000))
	}))
	entered, gate := make(chan struct{}), make(chan struct{})
	var once sync.Once
	logs = &bytes.Buffer{}
	opts.Mode, opts.Upstream, opts.Workers, opts.Log = proxy.ModeRecord, up, 1, newLog(logs)
	opts.Cassette = filepath.Join(t.TempDir(), "behind.yaml")
	opts.OnViolation = func(proxy.Violation) {
		once.Do(func() { close(entered); <-gate })
	}
	p, base = startProxy(t, opts)
	get(t, http.DefaultClient, base+"/api/v4/nowhere?n=0")
	<-entered // the worker holds exchange 0
	return p, base, opts.Cassette, logs, func() { close(gate) }
}

// TestAnswersNeverWaitForTheRecorder: with the only worker stuck, every
// client still gets its answer; the proxy says it fell behind (log line,
// summary), and once the worker resumes the cassette is whole and in order.
func TestAnswersNeverWaitForTheRecorder(t *testing.T) {
	p, base, file, logs, release := stalledProxy(t, proxy.Options{Queue: 2})
	for i := 1; i < 8; i++ {
		if _, body := get(t, http.DefaultClient, fmt.Sprintf("%s/api/v4/nowhere?n=%d", base, i)); !strings.Contains(body, fmt.Sprintf(`"n":"%d"`, i)) {
			t.Fatalf("answer %d: %s", i, body)
		}
	}
	release()
	s, _, err := p.Close()
	if err != nil {
		t.Fatal(err)
	}
	// Exchanges 1..7 queued behind the stuck 0: those from the third on found
	// two already waiting.
	if s.Recorded != 8 || s.Behind != 5 || s.PeakQueue != 7 || s.Overflowed != 0 {
		t.Fatalf("recorded %d, behind %d, peak %d, overflowed %d", s.Recorded, s.Behind, s.PeakQueue, s.Overflowed)
	}
	if !strings.Contains(logs.String(), "falling behind: 2 exchanges wait") {
		t.Errorf("falling behind was not logged:\n%s", logs)
	}
	if !strings.Contains(proxy.FormatSummary(s), "back-pressure: 5 exchanges") {
		t.Errorf("the summary does not say it:\n%s", proxy.FormatSummary(s))
	}
	c, err := proxy.LoadCassette(file)
	if err != nil {
		t.Fatal(err)
	}
	for i, in := range c.Interactions {
		if want := fmt.Sprintf("n=%d", i); !strings.HasSuffix(in.Request.URL, want) {
			t.Errorf("interaction %d is %s", i, in.Request.URL)
		}
	}
}

// TestBacklogOverflowFailsTheRun: past MaxBacklog bytes waiting, an
// exchange is let go rather than answers held back, and that is never
// silent: counted, logged, in the summary, and Close fails.
func TestBacklogOverflowFailsTheRun(t *testing.T) {
	p, base, _, logs, release := stalledProxy(t, proxy.Options{MaxBacklog: 1500})
	for i := 1; i < 5; i++ {
		get(t, http.DefaultClient, fmt.Sprintf("%s/api/v4/nowhere?n=%d", base, i))
	}
	release()
	s, _, err := p.Close()
	// Exchange 1 waits (the first always may); 2, 3 and 4 would pass 1,500 bytes.
	if err == nil || !strings.Contains(err.Error(), "3 exchanges were passed on unchecked and unrecorded") {
		t.Fatalf("Close: %v", err)
	}
	if s.Recorded != 2 || s.Overflowed != 3 || s.Exchanges != 5 {
		t.Fatalf("recorded %d, overflowed %d, exchanges %d", s.Recorded, s.Overflowed, s.Exchanges)
	}
	if !strings.Contains(logs.String(), "passed on unchecked and unrecorded") || !strings.Contains(proxy.FormatSummary(s), "the recording is not whole") {
		t.Errorf("not reported:\n%s\n%s", logs, proxy.FormatSummary(s))
	}
}

// TestCassetteWriteErrorFailsTheRun: a cassette the disk refuses is logged
// when it happens and fails Close (the command exits 1), never a silently
// short recording.
func TestCassetteWriteErrorFailsTheRun(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full here")
	}
	up := newHandlerServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"ok":true}`)
	}))
	var logs bytes.Buffer
	p, base := startProxy(t, proxy.Options{Mode: proxy.ModeRecord, Upstream: up, Cassette: "/dev/full", Existing: proxy.Overwrite, Log: newLog(&logs)})
	get(t, http.DefaultClient, base+"/api/v4/version")
	_, _, err := p.Close()
	if err == nil {
		t.Fatal("a cassette that could not be written closed without an error")
	}
	if !strings.Contains(logs.String(), "writing the cassette /dev/full") {
		t.Errorf("the write error was not logged: %q", logs.String())
	}
}
