package main

import (
	"crypto/ed25519"
	"fmt"
	"os"
	"path/filepath"

	"github.com/v4cert/v4cert/reports"
)

const reportHelp = `Usage: v4cert report merge OUT SHARD/report.json...
       v4cert report verify [--public-key FILE] BUNDLE

Merges the report.json files of the N shards of one certify run (certify
--shard K/N on N machines, e.g. the jobs of a CI matrix) into OUT: the same
four reports a whole run writes (junit.xml, report.json, summary.md,
report.html), every rule judged from the specs of every shard.

It refuses shards of different runs (rulebook, target, v4cert version, seed,
label filter, --via-proxy or number of shards differ) and a set with a shard
missing or given twice, and writes nothing then.

Exit status: as certify's, from the merged verdict (0 CONFORMANT, 1 NOT
CONFORMANT, 2 NOT RUN or refused, 3 NOT RUN: every selected rule skipped,
4 INCOMPLETE: the target stopped answering in a shard, 130 INCOMPLETE: a
shard did not finish).

verify checks the bundle of a certified run (certify --certified): the
signature of its manifest, the SHA-256 of every file, that no file was added
or removed, and that the certification record agrees with report.json. With
--public-key (an ed25519 public key in PEM: openssl pkey -in KEY -pubout) the
manifest must be signed by that key. Exit status 0 when it verifies, 1 when
it does not, 2 on a usage error.
`

// report runs `v4cert report merge`.
func report(args []string) int {
	if len(args) > 0 && args[0] == "verify" {
		return reportVerify(args[1:])
	}
	if len(args) == 0 || args[0] != "merge" {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help") {
			fmt.Print(reportHelp)
			return 0
		}
		fmt.Fprint(os.Stderr, reportHelp)
		return 2
	}
	fs := newFlagSet("report merge")
	fs.Usage = func() { fmt.Fprint(fs.Output(), reportHelp) }
	if err := fs.Parse(args[1:]); err != nil {
		return flagExit(err)
	}
	if fs.NArg() < 2 {
		fmt.Fprint(os.Stderr, "v4cert report merge: want OUT and at least one shard's report.json\n\n"+reportHelp)
		return 2
	}
	out, paths := fs.Arg(0), fs.Args()[1:]
	var parts []*reports.Report
	for _, p := range paths {
		r, err := reports.Load(p)
		if err != nil {
			fmt.Fprintln(os.Stderr, "v4cert report merge:", err)
			return 2
		}
		parts = append(parts, r)
	}
	rep, err := reports.Merge(parts, paths)
	if err != nil {
		fmt.Fprintln(os.Stderr, "v4cert report merge:", err)
		return 2
	}
	if err := reports.WriteAll(out, rep); err != nil {
		fmt.Fprintln(os.Stderr, "v4cert report merge: writing the reports:", err)
		return 2
	}
	printVerdict(os.Stderr, rep, filepath.Join(out, "report.html"))
	return verdictExit(rep)
}

// reportVerify runs `v4cert report verify`.
func reportVerify(args []string) int {
	fs := newFlagSet("report verify")
	fs.Usage = func() { fmt.Fprint(fs.Output(), reportHelp) }
	pubPath := fs.String("public-key", "", "the signer's ed25519 public key in PEM: the bundle must be signed by it")
	if err := fs.Parse(args); err != nil {
		return flagExit(err)
	}
	if fs.NArg() != 1 {
		fmt.Fprint(os.Stderr, "v4cert report verify: want one BUNDLE directory\n\n"+reportHelp)
		return 2
	}
	var pub ed25519.PublicKey
	if *pubPath != "" {
		data, err := os.ReadFile(*pubPath)
		if err == nil {
			pub, err = reports.ParsePublicKey(data)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "v4cert report verify: --public-key:", err)
			return 2
		}
	}
	cert, err := reports.VerifyBundle(fs.Arg(0), pub)
	if err != nil {
		fmt.Fprintf(os.Stderr, "v4cert report verify: NOT VERIFIED: %s: %v\n", fs.Arg(0), err)
		return 1
	}
	signer := "the key in its manifest (give --public-key to check who signed)"
	if pub != nil {
		signer = "the key of " + *pubPath
	}
	fmt.Printf("VERIFIED: %s %s (revision %s) at %s: %s by v4cert %s, rulebook %s; signed by %s\n",
		cert.Implementation.Name, cert.Implementation.Version, cert.Implementation.Revision, cert.Target,
		cert.Verdict, cert.Suite.Version, cert.Suite.RulebookDigest, signer)
	return 0
}
