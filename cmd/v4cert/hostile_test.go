package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/v4cert/v4cert/reference/apitest"
	"github.com/v4cert/v4cert/schemas"
	"github.com/v4cert/v4cert/specs"
)

// TestHostileCorpus starts `v4cert serve` as its own process, builds a world
// in it through the API, and sends the hostile corpus (apitest.Corpus: a few
// thousand malformed requests) over loopback from four connections at once.
// Every request must be refused with its proper 4xx (nothing clearly invalid
// accepted, no 5xx), every connection must stay up (no dropped connection),
// the server must not log a panic, and a snapshot of everything the world
// holds, taken through the API before and after, must be unchanged.
func TestHostileCorpus(t *testing.T) {
	if args := os.Getenv("V4CERT_SERVE_CHILD"); args != "" {
		if err := serve(strings.Split(args, "\x1f")); err != nil {
			fmt.Fprintln(os.Stderr, "v4cert:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	const token = "glpat-hostile-root"
	args := []string{"--addr", "127.0.0.1:0", "--root-token", token, "--clock", "fixed", "--seed", "none"}
	cmd := exec.Command(os.Args[0], "-test.run=^TestHostileCorpus$")
	cmd.Env = append(os.Environ(), "V4CERT_SERVE_CHILD="+strings.Join(args, "\x1f"))
	stdout, _ := cmd.StdoutPipe()
	var stderr strings.Builder
	var stderrMu sync.Mutex
	errPipe, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		b := make([]byte, 4096)
		for {
			n, err := errPipe.Read(b)
			stderrMu.Lock()
			stderr.Write(b[:n])
			stderrMu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	first, err := bufio.NewReader(stdout).ReadString('\n')
	i := strings.Index(first, "http://")
	if err != nil || i < 0 {
		t.Fatalf("v4cert serve did not start: %q %v", first, err)
	}
	go io.Copy(io.Discard, stdout)
	base := strings.Fields(first[i:])[0]

	// Keep-alive connections whose closing the test notices: a request
	// failing at the transport is a dropped connection.
	var dials sync.Map
	transport := &http.Transport{MaxIdleConnsPerHost: 8, DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		if err == nil {
			dials.Store(c.LocalAddr().String(), true)
		}
		return c, err
	}}
	client := &http.Client{Transport: transport, Timeout: 60 * time.Second}
	root := &apitest.Client{Base: base, Token: token, HTTP: client}
	start := time.Now()
	w, err := apitest.Build(root)
	if err != nil {
		t.Fatal(err)
	}
	before, err := apitest.Take(w, root, true)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("world built and read (%d answers) in %v", len(before), time.Since(start).Round(time.Millisecond))

	probes := apitest.Corpus(w)
	if len(probes) < 2000 {
		t.Fatalf("the corpus has %d probes, want a few thousand", len(probes))
	}
	type result struct {
		p   apitest.Probe
		r   *apitest.Response
		err error
	}
	results := make([]result, len(probes))
	next := make(chan int)
	var wg sync.WaitGroup
	start = time.Now()
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				p := probes[i]
				r, err := root.As(p.Token).Do(p.Method, p.Target, p.Body, p.Headers...)
				results[i] = result{p, r, err}
			}
		}()
	}
	for i := range probes {
		next <- i
	}
	close(next)
	wg.Wait()
	elapsed := time.Since(start)

	book := specs.Default()
	byStatus := map[int]int{}
	failures := 0
	for _, res := range results {
		fail := func(format string, args ...any) {
			failures++
			if failures <= 40 {
				t.Errorf("%s: %s", res.p.What, fmt.Sprintf(format, args...))
			}
		}
		if res.err != nil {
			fail("%s %.200s: dropped: %v", res.p.Method, res.p.Target, res.err)
			continue
		}
		byStatus[res.r.Status]++
		if !slices.Contains(res.p.Want, res.r.Status) {
			fail("%.300s, want %v", res.r, res.p.Want)
			continue
		}
		if e := book.Endpoint(res.p.Endpoint); e != nil && !e.Allows(res.r.Status) {
			fail("%d is not among the statuses the rulebook lists for %s", res.r.Status, e.ID)
		}
		if res.p.Method != http.MethodHead {
			// Either of the platform's envelopes: {"message"} or Grape's {"error"}.
			if err := schemas.Validate(specs.ErrorSchema, res.r.Body); err != nil {
				fail("error body not of the error shape: %v\n%.300s", err, res.r)
			}
		}
	}
	var statuses []string
	for s, n := range byStatus {
		statuses = append(statuses, fmt.Sprintf("%d×%d", n, s))
	}
	sort.Strings(statuses)
	conns := 0
	dials.Range(func(any, any) bool { conns++; return true })
	t.Logf("%d probes in %v (%.0f/s) over %d connections: %s", len(probes), elapsed.Round(time.Millisecond),
		float64(len(probes))/elapsed.Seconds(), conns, strings.Join(statuses, ", "))

	after, err := apitest.Take(w, root, true)
	if err != nil {
		t.Fatal(err)
	}
	if d := before.Diff(after); d != "" {
		t.Errorf("the corpus changed what the world holds:\n%.4000s", d)
	}
	stderrMu.Lock()
	logged := stderr.String()
	stderrMu.Unlock()
	if strings.Contains(logged, "panic") {
		t.Errorf("the server logged a panic:\n%.4000s", logged)
	}
	if cmd.ProcessState != nil {
		t.Errorf("the server exited: %v", cmd.ProcessState)
	}
}
