//go:build !linux

package reference_test

import "time"

// threadCPU is unavailable here: BenchmarkListGrowth reports wall time only.
func threadCPU() (time.Duration, bool) { return 0, false }

// processCPU is unavailable here: BenchmarkLoopbackVsBare reports wall time only.
func processCPU() (time.Duration, bool) { return 0, false }
