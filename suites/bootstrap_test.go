package suites_test

import (
	"v4cert/reference/suitehost"
	"v4cert/suites"
)

// Under go test and go tool ginkgo the suites start the reference
// in-process when no target is given; the suites package itself links none
// of it (go list -deps ./suites).
func init() { suites.StartReference = suitehost.Start }
