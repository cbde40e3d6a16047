package main

import (
	"fmt"
	"io"
	"os"

	"github.com/v4cert/v4cert/proxy"
)

const validateHelp = `Usage: v4cert validate [flags] CASSETTE

Checks recorded traffic (a go-vcr cassette of format 1 or 2, as v4cert proxy
--mode record writes) offline, with the same checks the proxy applies live.
Prints each finding as the proxy does and a summary of the endpoints covered.
Exit status 0 only when clean: no finding of severity error (with --strict, no
warning either). A file that is not a cassette, or a cassette that records no
exchange, exits 1.

Flags:
`

func validate(args []string) int {
	fs := newFlagSet("validate")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), validateHelp)
		fs.PrintDefaults()
	}
	violations := fs.String("violations", "", "also write findings to this file, one JSON object per line")
	summary := fs.String("summary", "", "write the summary as JSON to this file")
	strict := fs.Bool("strict", false, "warnings (deprecated fields, unknown endpoints) fail too")
	if err := fs.Parse(args); err != nil {
		return flagExit(err)
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return 2
	}
	var sink io.Writer
	var vfile *os.File
	if *violations != "" {
		f, err := os.Create(*violations)
		if err != nil {
			fmt.Fprintln(os.Stderr, "v4cert validate:", err)
			return 1
		}
		vfile, sink = f, f
	}
	var writeErr error
	s, err := proxy.ValidateCassette(fs.Arg(0), nil, func(v proxy.Violation) {
		fmt.Println(proxy.Format(v))
		if sink != nil {
			if e := proxy.WriteViolation(sink, v); e != nil && writeErr == nil {
				writeErr = e
			}
		}
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "v4cert validate:", err)
		return 1
	}
	status := finishProxy(s, writeErr, vfile, *summary, os.Stdout)
	if *strict && s.Warnings > 0 {
		status = 1
	}
	return status
}
