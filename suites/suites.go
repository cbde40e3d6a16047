// Package suites holds the conformance specs: every rule of the rulebook as an
// executable Ginkgo spec, runnable against any implementation of the API.
//
// The specs live in ordinary files so that `v4cert certify` can compile them
// in and drive RunSpecs itself; suites_test.go runs the same specs under
// `go test` and `go tool ginkgo`.
package suites

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	gtypes "github.com/onsi/ginkgo/v2/types"

	"github.com/v4cert/v4cert/specs"
)

// Target is the implementation under test.
type Target struct {
	Base      string `json:"base"`
	Token     string `json:"token"`
	InProcess bool   `json:"in_process"`
	Salt      string `json:"salt"`
}

// api is the administrator's client; every spec provisions through it or
// through clients of the users it creates.
var (
	api    *Client
	target Target
)

// book is loaded at init: data-driven specs need it while the tree is built.
var book = specs.Default()

// TargetFromEnv reads V4CERT_TARGET and V4CERT_TOKEN; ok is false when the
// suites should start the reference in-process.
func TargetFromEnv() (Target, bool) {
	base := strings.TrimSuffix(os.Getenv("V4CERT_TARGET"), "/")
	base = strings.TrimSuffix(base, "/api/v4")
	if base == "" {
		return Target{}, false
	}
	salt := os.Getenv("V4CERT_SALT")
	if salt == "" {
		salt = newSecret("")[:6]
	}
	return Target{Base: base, Token: os.Getenv("V4CERT_TOKEN"), Salt: salt}, true
}

// startReference serves a fresh reference on a loopback port for this run:
// the one place the suites start it, through StartReference (the suites
// compile none of the reference in). V4CERT_CLOCK=fixed stops its clock;
// V4CERT_RATE_LIMIT=N limits every client to N requests a second, as a
// rate-limited target would (errors.ratelimit.1 then has a limit to reach).
func startReference() Target {
	Expect(StartReference).NotTo(BeNil(), "no target: set V4CERT_TARGET and V4CERT_TOKEN (this build of the suites has no reference to start)")
	limit, ok := rateLimit()
	if ok && limit == 0 {
		limit = 20 // V4CERT_RATE_LIMITED=1: limited, at the rate make suites-ratelimit uses
	}
	token := newSecret("glpat-")
	// V4CERT_DATA_DIR runs the suites on a persisted reference, every write
	// checked against what was stored (make suites-persist).
	srv, closeRef, err := StartReference(ReferenceConfig{RootToken: token, FixedClock: os.Getenv("V4CERT_CLOCK") == "fixed", RateLimit: limit,
		DataDir: os.Getenv("V4CERT_DATA_DIR"), VerifyPersistence: os.Getenv("V4CERT_DATA_DIR") != ""})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(closeRef) // after the server has shut down: cleanups run last-in first-out
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	Expect(err).NotTo(HaveOccurred())
	go srv.Serve(ln)
	DeferCleanup(func(ctx context.Context) { srv.Shutdown(ctx) })
	return Target{Base: "http://" + ln.Addr().String(), Token: token, InProcess: true, Salt: os.Getenv("V4CERT_SALT")}
}

// rateLimit reads V4CERT_RATE_LIMIT: the requests per second one client of
// the target may make before it answers 429 (the spec leaves the numbers to
// the implementation; certify --rate-limit sets it). ok is false when it is
// unset.
//
// V4CERT_RATE_LIMITED, the name v4cert -h gave until the limit became a
// number, is still read when V4CERT_RATE_LIMIT is unset: a number is the
// limit; 1 (its published meaning: the limit is low enough to reach) gives
// ok with a limit of 0, unknown, and the spec sends up to unknownLimitBudget
// requests, as it did then.
func rateLimit() (perSecond int, ok bool) {
	name, v := "V4CERT_RATE_LIMIT", os.Getenv("V4CERT_RATE_LIMIT")
	if v == "" {
		if v = os.Getenv("V4CERT_RATE_LIMITED"); v == "" {
			return 0, false
		}
		name = "V4CERT_RATE_LIMITED"
		deprecatedRateLimited.Do(func() {
			fmt.Fprintln(os.Stderr, "v4cert: V4CERT_RATE_LIMITED is deprecated: set V4CERT_RATE_LIMIT (or certify --rate-limit) to the target's requests per second per client")
		})
		if v == "1" || strings.EqualFold(v, "true") {
			return 0, true
		}
	}
	n, err := strconv.Atoi(v)
	Expect(err).NotTo(HaveOccurred(), "%s=%q must be a number of requests per second", name, v)
	Expect(n).To(BeNumerically(">", 0), "%s must be positive", name)
	return n, true
}

// unknownLimitBudget bounds the requests errors.ratelimit.1 sends to a
// target whose limit is known to be reachable but not its number.
const unknownLimitBudget = 5000

var deprecatedRateLimited sync.Once

// idleConnsPerHost is how many connections to the target the suites keep
// open between requests: the widest burst a spec sends (bulkWidth), so that
// a burst after a burst reuses its connections instead of paying a
// handshake for each (MaxConnsPerHost stays unlimited).
const idleConnsPerHost = bulkWidth

var _ = SynchronizedBeforeSuite(func() []byte {
	t, ok := TargetFromEnv()
	if !ok {
		t, ok = replayTarget() // V4CERT_PROXY=replay:FILE answers from a cassette, with no server
	}
	if !ok {
		t = startReference()
	}
	Expect(t.Token).NotTo(BeEmpty(), "V4CERT_TOKEN must hold an administrator token when V4CERT_TARGET is set")
	data, err := json.Marshal(t)
	Expect(err).NotTo(HaveOccurred())
	return data
}, func(data []byte) {
	Expect(json.Unmarshal(data, &target)).To(Succeed())
	api = &Client{Base: target.Base, Token: target.Token, HTTP: &http.Client{
		Timeout:   30 * time.Second,
		Transport: &http.Transport{MaxIdleConnsPerHost: idleConnsPerHost, Proxy: http.ProxyFromEnvironment},
	}}
	routeThroughProxy(api) // V4CERT_PROXY: through an in-process v4cert proxy (suites/proxy.go)
	// The process's last teardown (detached, fixtures.go) ends before the
	// proxy and the reference close: cleanups run last-in, first-out.
	DeferCleanup(endTeardowns)
	me := api.Get(context.Background(), "/user")
	Expect(me).To(HaveStatus(200), "the administrator token must authenticate")
	Expect(me.Get("is_admin").Bool()).To(BeTrue(), "V4CERT_TOKEN must belong to an administrator")
})

// The exchanges of a failed spec go into the report, secrets and all left to
// the report writer to redact.
var _ = AfterEach(func() {
	ex := exchanges.drain()
	if !CurrentSpecReport().Failed() {
		return
	}
	for _, r := range ex {
		AddReportEntry("exchange", ReportEntryVisibilityFailureOrVerbose, r.Exchange())
	}
})

// Traceability lists what a report and the rulebook disagree on.
func Traceability(r Report) []string {
	covered := map[string]bool{}
	var problems []string
	areas := map[string]bool{}
	for _, e := range book.Endpoints {
		areas[e.Area] = true
	}
	for _, rule := range book.Rules {
		areas[rule.Area] = true
	}
	for _, s := range r.SpecReports {
		if s.LeafNodeType != gtypes.NodeTypeIt {
			continue
		}
		for _, l := range s.Labels() {
			kind, id, ok := strings.Cut(l, ":")
			if !ok {
				continue
			}
			switch kind {
			case "rule":
				rule := book.Rule(id)
				if rule == nil {
					problems = append(problems, "spec "+s.FullText()+" names unknown rule "+id)
				} else if rule.Paid && !slices.Contains(s.Labels(), "paid") {
					// Certify skips paid-tier rules by label on targets without that tier.
					problems = append(problems, "spec "+s.FullText()+" covers paid rule "+id+" without the paid label")
				}
				covered[id] = true
			case "endpoint":
				if book.Endpoint(id) == nil {
					problems = append(problems, "spec "+s.FullText()+" names unknown endpoint "+id)
				}
			case "area":
				if !areas[id] {
					problems = append(problems, "spec "+s.FullText()+" names unknown area "+id)
				}
			}
		}
	}
	for _, rule := range book.Rules {
		if !covered[rule.ID] {
			problems = append(problems, "rule "+rule.ID+" has no spec labelled rule:"+rule.ID)
		}
	}
	return problems
}
