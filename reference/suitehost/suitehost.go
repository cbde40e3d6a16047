// Package suitehost starts the reference for the conformance suites when
// they run without a target: the one adapter between suites.ReferenceConfig
// and reference.Config, set as suites.StartReference by the callers that
// link the reference in (the suites' go test bootstrap and cmd/v4cert), so
// the suites themselves compile none of the reference.
package suitehost

import (
	"net/http"

	"github.com/v4cert/v4cert/reference"
	"github.com/v4cert/v4cert/suites"
)

// Start builds a reference with an empty world (no seed) whose administrator
// holds c.RootToken; release closes it once its server has shut down.
func Start(c suites.ReferenceConfig) (srv *http.Server, release func() error, err error) {
	inst, err := reference.New(reference.Config{RootToken: c.RootToken, Seed: "none", FixedClock: c.FixedClock,
		RateLimit: c.RateLimit, DataDir: c.DataDir, VerifyPersistence: c.VerifyPersistence})
	if err != nil {
		return nil, nil, err
	}
	return inst.HTTPServer(), inst.Close, nil
}
