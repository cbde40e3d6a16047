// Package proxy watches API traffic without changing it: it validates each
// exchange against the rulebook and the schemas, records go-vcr cassettes with
// secrets redacted, and replays them with no server.
package proxy

// Severity of a finding, by whose doing it is: errors are the target's
// breaking the spec; warnings are the client's (a deprecated endpoint,
// parameter or value in a request; an endpoint the rulebook does not know);
// information is the server's use of something the spec deprecates (a
// deprecated field in an answer, which the spec's own answers carry);
// harness findings are v4cert's own defects, never the target's.
type Severity string

// The severities a Violation may carry.
const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
	SeverityInfo    Severity = "info"
	SeverityHarness Severity = "harness"
)

// Fails reports whether the finding fails a run: an error of the target's,
// or a harness error (a verdict v4cert cannot stand behind).
func (v Violation) Fails() bool { return v.Severity == SeverityError || v.Severity == SeverityHarness }

// Violation is one finding about one exchange, written as one JSON line.
// The reports package reads these lines; the field names are part of the
// documented violations format.
type Violation struct {
	Index    int      `json:"index"`              // the exchange's position in the traffic, from 0
	Severity Severity `json:"severity"`           // error, warning, info or harness
	Endpoint string   `json:"endpoint,omitempty"` // rulebook endpoint ID, empty when none matched
	Rule     string   `json:"rule,omitempty"`     // rulebook rule ID, when one rule is broken
	Schema   string   `json:"schema,omitempty"`   // schema name and path, for body findings
	Pointer  string   `json:"pointer,omitempty"`  // JSON pointer into the body
	Expected string   `json:"expected"`
	Seen     string   `json:"seen"`
	Method   string   `json:"method"`
	URL      string   `json:"url"` // secrets redacted
	Status   int      `json:"status"`
	// Divergence labels a finding under a class-3 rule (specs.Rule.Divergence):
	// the platform the spec describes itself does this. The finding stays
	// what it is; the label tells the reader the platform does the same.
	Divergence string `json:"divergence,omitempty"`
}

// Coverage counts, per endpoint ID, the statuses the traffic showed.
type Coverage map[string]map[int]int

// Summary is what the proxy prints and writes at exit.
type Summary struct {
	Exchanges int `json:"exchanges"`
	Errors    int `json:"errors"`
	// Divergences counts the errors under class-3 rules (labelled, part of Errors).
	Divergences int      `json:"divergences,omitempty"`
	Warnings    int      `json:"warnings"`
	Info        int      `json:"info,omitempty"`
	Harness     int      `json:"harness_errors,omitempty"`
	Unknown     int      `json:"unknown_endpoints"`
	Coverage    Coverage `json:"coverage"`
	Endpoints   int      `json:"endpoints_in_rulebook"`
	CoveredEPs  int      `json:"endpoints_covered"`
	// Uncovered lists the rulebook's endpoints (provisioning ones aside)
	// the traffic never reached.
	Uncovered []string `json:"endpoints_uncovered,omitempty"`
	Mode      string   `json:"mode,omitempty"`
	Rulebook  string   `json:"rulebook_digest,omitempty"`
	Recorded  int      `json:"recorded,omitempty"` // interactions written to the cassette
	Replayed  int      `json:"replayed,omitempty"` // requests answered from the cassette
	Misses    int      `json:"replay_misses,omitempty"`
	Dropped   int      `json:"not_recorded,omitempty"` // exchanges left out of the cassette (no complete answer)
	// Back-pressure: exchanges that found Options.Queue exchanges already
	// waiting for the workers (answers never wait; the proxy fell behind),
	// the longest the queue grew, and exchanges passed on unchecked and
	// unrecorded because more than Options.MaxBacklog bytes waited (a failed run).
	Behind     int `json:"queued_behind,omitempty"`
	PeakQueue  int `json:"peak_queue,omitempty"`
	Overflowed int `json:"overflowed,omitempty"`
}
