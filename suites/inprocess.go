package suites

import (
	"crypto/rand"
	"encoding/hex"
	"net/http"
)

// ReferenceConfig is what the suites ask of an in-process reference: an
// empty world (no seed) whose administrator holds RootToken.
type ReferenceConfig struct {
	RootToken         string
	FixedClock        bool   // V4CERT_CLOCK=fixed
	RateLimit         int    // requests per second per client; 0: none
	DataDir           string // persisted world (V4CERT_DATA_DIR); empty: in memory
	VerifyPersistence bool   // check every write against what was stored
}

// StartReference builds the in-process reference a run without a target
// (V4CERT_TARGET unset) serves on loopback: its server and what releases it
// once the server has shut down. The suites are portable conformance specs
// and import nothing of reference/; the callers that link the reference in
// set this (reference/suitehost.Start): the go test bootstrap
// (bootstrap_test.go) and cmd/v4cert. Left nil, a run needs a target.
var StartReference func(ReferenceConfig) (srv *http.Server, release func() error, err error)

// newSecret is a random token with prefix, as the platform's tokens look.
func newSecret(prefix string) string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // the system's random source failing is not recoverable
	}
	return prefix + hex.EncodeToString(b[:])
}
