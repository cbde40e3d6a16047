// Command v4cert is the reference server, conformance suites, recording proxy
// and validator for the Development Platform REST API v4.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"v4cert/reference"
)

const usage = `v4cert — reference server and conformance kit for the REST API v4

Usage:
  v4cert serve [--addr HOST:PORT] [--root-token TOKEN] [--clock fixed|real] [--seed demo|none | --seed-file FILE]
               [--data-dir DIR] [--log requests] [--rate-limit N] [--max-query-bytes N] [--external-url URL]
  v4cert spec [--openapi] [--rules]
  v4cert certify --target URL --token TOKEN --out DIR [--label-filter EXPR] [--via-proxy]
                 [--rerun-failed DIR/report.json] [--seed N]
  v4cert proxy --upstream URL [--listen HOST:PORT] [--mode validate|record|replay] [--cassette FILE]
               [--append|--overwrite] [--violations FILE] [--summary FILE] [--preserve-host]
  v4cert validate [--violations FILE] [--summary FILE] [--strict] CASSETTE
  v4cert version
  v4cert help

Run "v4cert serve -h", "v4cert certify -h", "v4cert proxy -h" or "v4cert validate -h" for the flags of each command.
`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "serve":
		err = serve(os.Args[2:])
	case "spec":
		err = spec(os.Args[2:])
	case "certify":
		os.Exit(certify(os.Args[2:]))
	case "proxy":
		os.Exit(runProxy(os.Args[2:]))
	case "validate":
		os.Exit(validate(os.Args[2:]))
	case "version", "--version":
		fmt.Println("v4cert", version)
		return
	case "help", "-h", "--help":
		fmt.Print(usage)
		return
	default:
		fmt.Fprintf(os.Stderr, "v4cert: unknown command %q\n\n%s", os.Args[1], usage)
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "v4cert:", err)
		os.Exit(1)
	}
}

func serve(args []string) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:8080", "address to listen on")
	token := fs.String("root-token", "", "personal access token of the administrator root (random when empty; with --data-dir, the stored one)")
	clock := fs.String("clock", "real", "real, or fixed: time stands still so answers are byte-identical across runs")
	seed := fs.String("seed", "demo", "demo (users of every role, groups, projects, topics) or none (root alone)")
	seedFile := fs.String("seed-file", "", "start from the world a YAML file declares (users with tokens, groups, projects with files and branches, members); replaces --seed")
	dataDir := fs.String("data-dir", "", "keep the world, the repositories and the registry in DIR across restarts (default: in memory)")
	logKinds := fs.String("log", "", "requests: one line per request on stderr (method, escaped path, status, duration, caller; secrets redacted)")
	rate := fs.Int("rate-limit", 0, "requests per second per client before 429 (0: off)")
	maxQuery := fs.Int("max-query-bytes", 0, "longest query string accepted before 414 (0: 8192)")
	external := fs.String("external-url", "", "base URL used in web_url and Link headers (default: from each request)")
	importAny := fs.Bool("import-from-any", false, "let direct-transfer imports (POST /bulk_imports) reach sources beyond loopback")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *clock != "real" && *clock != "fixed" {
		return fmt.Errorf("--clock must be real or fixed, not %q", *clock)
	}
	seedGiven := false
	fs.Visit(func(f *flag.Flag) { seedGiven = seedGiven || f.Name == "seed" })
	if seedGiven && *seedFile != "" {
		return fmt.Errorf("--seed and --seed-file exclude each other: the file is the whole starting world")
	}
	var requestLog io.Writer
	switch *logKinds {
	case "":
	case "requests":
		requestLog = os.Stderr
	default:
		return fmt.Errorf("--log must be requests, not %q", *logKinds)
	}
	inst, err := reference.New(reference.Config{
		RootToken: *token, FixedClock: *clock == "fixed", Seed: *seed, SeedFile: *seedFile, DataDir: *dataDir,
		RateLimit: *rate, MaxQueryBytes: *maxQuery, ExternalURL: *external, ImportFromAny: *importAny,
		Log: log.New(os.Stderr, "v4cert: ", log.LstdFlags), RequestLog: requestLog, Version: version,
	})
	if err != nil {
		return err
	}
	defer inst.Close() // the repositories' temporary directory, the data dir's database
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	base := "http://" + ln.Addr().String()
	fmt.Printf("v4cert reference server listening on %s\n", base)
	fmt.Printf("  API base:            %s/api/v4\n", base)
	if inst.Restored {
		fmt.Printf("  world:               restored from %s (POST /-/reset goes back to the seed)\n", *dataDir)
	}
	fmt.Printf("  administrator root:  %s\n", inst.Root.Token)
	for _, a := range inst.Accounts {
		fmt.Printf("  %-20s %-7s %s\n", a.Role+":", a.Username, a.Token)
	}
	fmt.Printf("Try: curl -H 'PRIVATE-TOKEN: %s' %s/api/v4/user\n", inst.Root.Token, base)
	srv := inst.HTTPServer()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(shutdown); err != nil && !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	}
}
