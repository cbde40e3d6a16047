//go:build !linux

package suites

import "os/exec"

// detach: elsewhere than Linux the workers share certify's process group, so
// a Ctrl-C at the terminal reaches them directly too.
func detach(*exec.Cmd) {}
