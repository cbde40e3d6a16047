//go:build !linux

package reference_test

import "time"

// threadCPU is unavailable here: BenchmarkListGrowth reports wall time only.
func threadCPU() (time.Duration, bool) { return 0, false }
