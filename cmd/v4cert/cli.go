package main

import (
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"strings"
	"syscall"
)

// The conventions every command shares: one name per concept across the
// commands, with the names a concept had before kept as deprecated aliases;
// errors of a listening address that name the flag that gave it; colour only
// on a terminal.

// aliasFlag is an old name of a flag: it sets the flag under its new name
// (so fs.Visit sees the new name set) and says once, on the flag set's
// output (stderr), that the name is deprecated.
type aliasFlag struct {
	fs        *flag.FlagSet
	old, name string
	why       string
	warned    bool
}

func (a *aliasFlag) String() string {
	if a == nil || a.fs == nil {
		return ""
	}
	return a.fs.Lookup(a.name).Value.String()
}

func (a *aliasFlag) Set(v string) error {
	if !a.warned {
		a.warned = true
		fmt.Fprintf(a.fs.Output(), "v4cert %s: --%s is deprecated: use --%s (%s)\n", a.fs.Name(), a.old, a.name, a.why)
	}
	return a.fs.Set(a.name, v)
}

// IsBoolFlag lets an old name of a boolean flag stand alone, as the new one does.
func (a *aliasFlag) IsBoolFlag() bool {
	if a == nil || a.fs == nil {
		return false
	}
	b, ok := a.fs.Lookup(a.name).Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// deprecatedAlias keeps old working as a name of the flag name, already
// defined in fs; why says what the old name meant or clashed with, in the
// deprecation line. Aliases are left out of the help (printDefaults).
func deprecatedAlias(fs *flag.FlagSet, old, name, why string) {
	if fs.Lookup(name) == nil {
		panic("deprecatedAlias: no flag --" + name)
	}
	fs.Var(&aliasFlag{fs: fs, old: old, name: name, why: why}, old, "deprecated: use --"+name)
}

// printDefaults is fs.PrintDefaults with the deprecated aliases on one
// line of their own after the flags, so the help teaches the new names.
func printDefaults(fs *flag.FlagSet) {
	shown := flag.NewFlagSet(fs.Name(), flag.ContinueOnError)
	shown.SetOutput(fs.Output())
	var old []string
	fs.VisitAll(func(f *flag.Flag) {
		if a, alias := f.Value.(*aliasFlag); alias {
			old = append(old, fmt.Sprintf("--%s (--%s)", a.old, a.name))
			return
		}
		shown.Var(f.Value, f.Name, f.Usage)
		shown.Lookup(f.Name).DefValue = f.DefValue
	})
	shown.PrintDefaults()
	if len(old) > 0 {
		fmt.Fprintf(fs.Output(), "  Deprecated names, still accepted: %s\n", strings.Join(old, ", "))
	}
}

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
