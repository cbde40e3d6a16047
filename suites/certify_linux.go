package suites

import (
	"os/exec"
	"syscall"
)

// detach puts a worker in a process group of its own, so a Ctrl-C at the
// terminal reaches certify alone (which then stops the workers once, and
// Ginkgo's second-signal "exit now" never fires by accident), and has the
// kernel kill it if certify dies without stopping it.
func detach(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
