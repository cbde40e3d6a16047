package suites

import (
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"
)

// The cause of a transport error is what every spec a dead target struck
// shares: the reports group errored rules by it.
func TestTransportCauseLeavesOutTheAddress(t *testing.T) {
	get := func(c *http.Client, url string) error {
		res, err := c.Get(url)
		if err == nil {
			res.Body.Close()
		}
		return err
	}
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()

	// Accepts and hangs up at once: no answer comes.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()

	// Answers nothing until the test ends.
	stop := make(chan struct{})
	silent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-stop }))
	defer silent.Close()
	defer close(stop)

	plain := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	for _, tc := range []struct {
		err  error
		want []string
	}{
		{get(plain, closed.URL+"/api/v4/users/1"), []string{"connection refused"}},
		{get(plain, "http://"+ln.Addr().String()+"/api/v4/users/2"), []string{"connection closed before an answer (EOF)", "connection reset by peer"}},
		{get(&http.Client{Timeout: 100 * time.Millisecond}, silent.URL+"/api/v4/users/3"), []string{"no answer in time (timeout)"}},
		{get(plain, "http://no-such-host.invalid/api/v4/version"), []string{"host not found: no-such-host.invalid"}},
		// What the hang-up above gives when the close wins the race with
		// the request's write (seen under load): the same cause.
		{&url.Error{Op: "Get", URL: "http://127.0.0.1:1/api/v4/users/2", Err: errors.New("http: server closed idle connection")}, []string{"connection closed before an answer (EOF)"}},
	} {
		got := transportCause(tc.err)
		ok := false
		for _, w := range tc.want {
			ok = ok || got == w
		}
		if !ok {
			t.Errorf("%v: cause %q, want one of %q", tc.err, got, tc.want)
		}
	}
	if transportCause(nil) != "" {
		t.Errorf("no error has a cause")
	}
}

func TestRetryAfterIsBounded(t *testing.T) {
	now := time.Date(2026, 11, 27, 22, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		header string
		want   time.Duration
	}{
		{"", time.Second},
		{"3", 3 * time.Second},
		{"0", 0},
		{"86400", maxRetryWait},
		{now.Add(5 * time.Second).Format(http.TimeFormat), 5 * time.Second},
		{now.Add(-5 * time.Second).Format(http.TimeFormat), 0},
		{"soon", time.Second},
	} {
		h := http.Header{}
		if tc.header != "" {
			h.Set("Retry-After", tc.header)
		}
		if got := retryAfter(h, now); got != tc.want {
			t.Errorf("Retry-After %q: wait %s, want %s", tc.header, got, tc.want)
		}
	}
}
