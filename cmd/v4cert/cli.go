package main

import (
	"errors"
	"fmt"
	"net"
	"os"
	"syscall"
)

// The conventions every command shares: errors of a listening address that
// name the flag that gave it; colour only on a terminal.

// listenFlag listens on addr, given by the flag name; a failure names the
// flag and the address, and says what went wrong without the socket call's
// jargon: "--addr 127.0.0.1:8080: address already in use".
func listenFlag(name, addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, bindError(name, addr, err)
	}
	return ln, nil
}

// bindError is a failure to listen on addr (given by the flag name), put as
// the user would say it.
func bindError(name, addr string, err error) error {
	var (
		errno   syscall.Errno
		addrErr *net.AddrError
		op      *net.OpError
	)
	switch {
	case errors.As(err, &errno):
		msg := errno.Error()
		switch errno {
		case syscall.EADDRINUSE:
			msg += " (another process listens there; choose another port, or 127.0.0.1:0 for a free one)"
		case syscall.EACCES:
			msg += " (ports below 1024 need privileges; choose a higher port)"
		case syscall.EADDRNOTAVAIL:
			msg += " (no interface of this machine has that address)"
		}
		err = errors.New(msg)
	case errors.As(err, &addrErr):
		err = errors.New(addrErr.Err) // "missing port in address": the address is said already
	case errors.As(err, &op) && op.Err != nil:
		err = op.Err // e.g. a host name that does not resolve
	}
	return fmt.Errorf("--%s %s: %w", name, addr, err)
}

// colorWanted says whether Ginkgo may colour what it writes to out: only on
// a terminal, and neither NO_COLOR (https://no-color.org) nor TERM=dumb says
// otherwise.
func colorWanted(out *os.File, getenv func(string) string) bool {
	if getenv("NO_COLOR") != "" || getenv("TERM") == "dumb" {
		return false
	}
	fi, err := out.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
