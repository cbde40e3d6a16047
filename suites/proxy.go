package suites

import (
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/v4cert/v4cert/proxy"
)

// V4CERT_PROXY routes the suites' client through an in-process v4cert proxy:
//
//	validate       check every exchange; a violation fails the spec that caused it
//	record:FILE    the same, and write the traffic to a cassette (replaced if it exists)
//	replay:FILE    answer from the cassette with no server at all
//
// V4CERT_PROXY_VIOLATIONS=FILE also appends every finding there, one JSON
// line each. Record and replay need one process (--procs=1) and a fixed
// order (--seed), and the reference's fixed clock (V4CERT_CLOCK=fixed), so
// that the replayed run asks exactly what the recorded one asked.
const proxyEnv = "V4CERT_PROXY"

// replayBase is the host every recorded and replayed request names when the
// target is the in-process reference, whose port changes from run to run:
// links and URLs in the cassette must not.
const replayBase = "http://v4cert.test"

// inproc is this process's proxy, nil when the suites talk to the target directly.
var inproc *proxy.Proxy

func proxySetting() (proxy.Mode, string, error) {
	v := os.Getenv(proxyEnv)
	if v == "" {
		return "", "", nil
	}
	mode, file, _ := strings.Cut(v, ":")
	switch proxy.Mode(mode) {
	case proxy.ModeValidate:
		return proxy.ModeValidate, "", nil
	case proxy.ModeRecord, proxy.ModeReplay:
		if file == "" {
			return "", "", fmt.Errorf("%s=%s needs a cassette file: %s:FILE", proxyEnv, v, mode)
		}
		return proxy.Mode(mode), file, nil
	}
	return "", "", fmt.Errorf("%s=%q: want validate, record:FILE or replay:FILE", proxyEnv, v)
}

// replayTarget is the target of a replayed run: the in-process reference as
// it was recorded, answered by the cassette.
func replayTarget() (Target, bool) {
	mode, _, err := proxySetting()
	Expect(err).NotTo(HaveOccurred())
	if mode != proxy.ModeReplay {
		return Target{}, false
	}
	return Target{Base: replayBase, Token: "replayed-token", InProcess: true, Salt: os.Getenv("V4CERT_SALT")}, true
}

// routeThroughProxy starts this process's proxy when V4CERT_PROXY asks for
// one and points c at it.
func routeThroughProxy(c *Client) {
	mode, file, err := proxySetting()
	Expect(err).NotTo(HaveOccurred())
	if mode == "" {
		return
	}
	if suiteConfig, _ := GinkgoConfiguration(); mode != proxy.ModeValidate && suiteConfig.ParallelTotal > 1 {
		Fail(fmt.Sprintf("%s=%s needs one process (--procs=1): one cassette, one order of requests", proxyEnv, mode))
	}
	opts := proxy.Options{Mode: mode, Cassette: file, Existing: proxy.Overwrite, PreserveHost: true}
	base := target.Base
	if target.InProcess {
		base = replayBase
	}
	if mode != proxy.ModeReplay {
		opts.Upstream = target.Base
	}
	if path := os.Getenv("V4CERT_PROXY_VIOLATIONS"); path != "" {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		Expect(err).NotTo(HaveOccurred())
		var mu sync.Mutex
		opts.OnViolation = func(v proxy.Violation) {
			mu.Lock()
			defer mu.Unlock()
			proxy.WriteViolation(f, v)
		}
		DeferCleanup(f.Close)
	}
	p, err := proxy.New(opts)
	Expect(err).NotTo(HaveOccurred())
	addr, err := p.Start("127.0.0.1:0")
	Expect(err).NotTo(HaveOccurred())
	inproc = p
	c.Base = base
	c.HTTP.Transport = &viaProxy{addr: strings.TrimPrefix(addr, "http://"), next: &http.Transport{MaxIdleConnsPerHost: idleConnsPerHost}}
	DeferCleanup(func() {
		s, _, err := p.Close()
		inproc = nil
		Expect(err).NotTo(HaveOccurred(), "closing the proxy")
		if mode == proxy.ModeReplay {
			Expect(s.Misses).To(BeZero(), "requests the cassette had no answer for")
		}
	})
}

// viaProxy sends every request to the proxy's address in origin form,
// keeping the Host the client addressed, as a reverse proxy in front of the
// target would receive it (https targets included: the proxy speaks TLS upstream).
type viaProxy struct {
	addr string
	next http.RoundTripper
}

func (v *viaProxy) RoundTrip(r *http.Request) (*http.Response, error) {
	out := r.Clone(r.Context())
	out.Host = r.URL.Host
	out.URL.Scheme, out.URL.Host = "http", v.addr
	return v.next.RoundTrip(out)
}

// Findings of the proxy fail the spec whose traffic they came from. The check
// is registered first in every spec, so it runs last, after the spec's own
// cleanups (DeferCleanup runs last-in, first-out) and sees their traffic too.
var _ = BeforeEach(func() {
	if inproc == nil {
		return
	}
	failOnFindings(inproc.Drain(), "before this spec began (suite setup)")
	DeferCleanup(func() {
		if inproc != nil {
			failOnFindings(inproc.Drain(), "")
		}
	})
})

func failOnFindings(vs []proxy.Violation, when string) {
	var errs, warns []string
	for _, v := range vs {
		if v.Fails() {
			errs = append(errs, proxy.Format(v))
		} else {
			warns = append(warns, proxy.Format(v))
		}
	}
	if len(warns) > 0 {
		AddReportEntry("proxy warnings", ReportEntryVisibilityFailureOrVerbose, strings.Join(warns, "\n"))
	}
	if len(errs) > 0 {
		where := "in this spec's traffic"
		if when != "" {
			where = when
		}
		Fail(fmt.Sprintf("the v4cert proxy found %d violation(s) %s:\n%s", len(errs), where, strings.Join(errs, "\n")))
	}
}
