package suites_test

import (
	"github.com/v4cert/v4cert/reference/suitehost"
	"github.com/v4cert/v4cert/suites"
)

// Under go test and go tool ginkgo the suites start the reference
// in-process when no target is given; the suites package itself links none
// of it (go list -deps ./suites).
func init() { suites.StartReference = suitehost.Start }
