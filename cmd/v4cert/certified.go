package main

import (
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/v4cert/v4cert/reports"
	"github.com/v4cert/v4cert/specs"
	"github.com/v4cert/v4cert/suites"
)

// A certified run (certify --certified), as Sonobuoy's
// certified-conformance mode: every rule of the rulebook, nothing the user
// filtered or skipped, one whole run (no shard), judged by the spec's text;
// the implementation's name and version read from the target; and a bundle
// whose manifest of digests is signed with the user's ed25519 key, which
// `v4cert report verify` checks.

// certifiedRefusals names the flags a certified run refuses, given set.
func certifiedRefusals(set map[string]bool, profile string) []string {
	var out []string
	for _, name := range []string{"label-filter", "focus", "skip", "shard", "rerun-failed", "fail-fast", "list"} {
		if set[name] {
			out = append(out, "--"+name)
		}
	}
	if profile != reports.ProfileSpec {
		out = append(out, "--profile "+profile)
	}
	return out
}

// loadSigningKey reads --signing-key.
func loadSigningKey(path string) (ed25519.PrivateKey, error) {
	if path == "" {
		return nil, errors.New("--certified needs --signing-key FILE, an ed25519 private key in PEM (openssl genpkey -algorithm ed25519 -out FILE)")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--signing-key: %w", err)
	}
	key, err := reports.ParseSigningKey(data)
	if err != nil {
		return nil, fmt.Errorf("--signing-key %s: %w", path, err)
	}
	return key, nil
}

// emptyOut makes sure a bundle holds only what this run writes.
func emptyOut(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if len(entries) > 0 {
		return fmt.Errorf("--certified writes a fresh bundle: --out %s must be empty or absent", dir)
	}
	return nil
}

// implementationOf asks the target who it is: GET /api/v4/version.
func implementationOf(target, token string) (reports.Implementation, error) {
	u := strings.TrimSuffix(strings.TrimSuffix(target, "/"), "/api/v4") + "/api/v4/version"
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		return reports.Implementation{}, err
	}
	req.Header.Set("PRIVATE-TOKEN", token)
	c := &http.Client{Timeout: 30 * time.Second}
	resp, err := c.Do(req)
	if err != nil {
		return reports.Implementation{}, fmt.Errorf("GET /api/v4/version: %w", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	var v struct {
		Name     string `json:"name"`
		Version  string `json:"version"`
		Revision string `json:"revision"`
	}
	if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &v) != nil || v.Version == "" {
		return reports.Implementation{}, fmt.Errorf("GET /api/v4/version answered %d %s: no version to certify", resp.StatusCode, reports.ClipText(string(body), 200))
	}
	impl := reports.Implementation{Name: v.Name, Version: v.Version, Revision: v.Revision}
	if impl.Name == "" {
		impl.Name = resp.Header.Get("Server")
	}
	if impl.Name == "" {
		if pu, err := url.Parse(target); err == nil {
			impl.Name = pu.Host
		}
	}
	return impl, nil
}

// certification is the record of a certified run.
func certification(rep reports.Report, impl reports.Implementation, cfg suites.CertifyConfig) reports.Certification {
	book := specs.Default()
	return reports.Certification{
		Implementation: impl,
		Suite:          reports.Suite{Name: "v4cert", Version: rep.Version, RulebookDigest: book.Digest, Rules: len(book.Rules), Endpoints: len(book.Endpoints)},
		Target:         rep.Target, Started: rep.Started, Verdict: rep.Verdict, Conformant: rep.Conformant,
		Configuration: map[string]string{
			"target": rep.Target, "procs": strconv.Itoa(cfg.Procs), "random_seed": strconv.FormatInt(cfg.Seed, 10),
			"run_timeout": cfg.Timeout.String(), "via_proxy": strconv.FormatBool(cfg.ViaProxy),
			"rate_limit": strconv.Itoa(cfg.RateLimit), "retry_429": strconv.Itoa(cfg.Retry429), "profile": reports.ProfileSpec,
		},
	}
}
