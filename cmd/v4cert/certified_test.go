package main

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/v4cert/v4cert/reports"
	"github.com/v4cert/v4cert/specs"
)

// writeKeys writes an ed25519 key pair in PEM, as openssl genpkey and
// openssl pkey -pubout write them.
func writeKeys(t *testing.T, dir, name string) (priv, pub string) {
	t.Helper()
	pk, sk, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, _ := x509.MarshalPKCS8PrivateKey(sk)
	pubDER, _ := x509.MarshalPKIXPublicKey(pk)
	priv, pub = filepath.Join(dir, name+".pem"), filepath.Join(dir, name+".pub")
	os.WriteFile(priv, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600)
	os.WriteFile(pub, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER}), 0o644)
	return priv, pub
}

// A certified run refuses whatever narrows or relaxes it, before it runs.
func TestCertifiedRefusesFiltersShardsAndSkips(t *testing.T) {
	keys := t.TempDir()
	key, _ := writeKeys(t, keys, "signer")
	base := []string{"certify", "--certified", "--signing-key", key, "--target", "http://127.0.0.1:1", "--token", "t"}
	for _, extra := range [][]string{
		{"--label-filter", "area:users"}, {"--focus", "users.*"}, {"--skip", "users.list.1"}, {"--shard", "1/2"},
		{"--profile", "platform"}, {"--fail-fast"}, {"--rerun-failed", "x.json"},
	} {
		out := t.TempDir()
		status, output := runV4cert(t, append(append(base, "--out", out), extra...)...)
		if status != 2 || !strings.Contains(output, "refuses "+extra[0]) {
			t.Errorf("certify --certified %v: exit %d\n%s", extra, status, output)
		}
		if entries, _ := os.ReadDir(out); len(entries) != 0 {
			t.Errorf("certify --certified %v wrote %d files", extra, len(entries))
		}
	}
	if status, output := runV4cert(t, "certify", "--certified", "--target", "http://127.0.0.1:1", "--token", "t", "--out", t.TempDir()); status != 2 || !strings.Contains(output, "--signing-key") {
		t.Errorf("without a key: exit %d\n%s", status, output)
	}
	full := t.TempDir()
	os.WriteFile(filepath.Join(full, "old.txt"), []byte("x"), 0o644)
	if status, output := runV4cert(t, append(base, "--out", full)...); status != 2 || !strings.Contains(output, "must be empty") {
		t.Errorf("into a directory with files: exit %d\n%s", status, output)
	}
	if status, output := runV4cert(t, "certify", "--signing-key", key, "--target", "http://127.0.0.1:1", "--out", t.TempDir()); status != 2 || !strings.Contains(output, "give --certified") {
		t.Errorf("a key without --certified: exit %d\n%s", status, output)
	}
}

// A certified run against the reference over HTTP (cut short by
// --run-timeout, which a certified run allows: the verdict says so) writes
// a bundle that names the implementation as GET /api/v4/version describes
// it, the suite and the rulebook; report verify accepts it as written and
// refuses it once a file is changed, added or removed, or with another
// signer's key.
func TestCertifiedBundleVerifies(t *testing.T) {
	target, token := serveReference(t)
	keys := t.TempDir()
	key, pub := writeKeys(t, keys, "signer")
	_, otherPub := writeKeys(t, keys, "other")
	out := filepath.Join(t.TempDir(), "bundle")
	status, output := runV4cert(t, "certify", "--certified", "--signing-key", key, "--target", target, "--token", token,
		"--out", out, "--run-timeout", "2s", "--quiet")
	if status != exitInterrupted || !strings.Contains(output, "certified bundle of") {
		t.Fatalf("certify --certified: exit %d\n%s", status, output)
	}
	var cert reports.Certification
	data, err := os.ReadFile(filepath.Join(out, reports.CertificationFile))
	if err != nil || json.Unmarshal(data, &cert) != nil {
		t.Fatalf("certification.json: %v %s", err, data)
	}
	if cert.Implementation.Version == "" || cert.Implementation.Revision != "dev" || !strings.HasPrefix(target, "http://"+cert.Implementation.Name) ||
		cert.Suite.RulebookDigest != specs.Default().Digest || cert.Suite.Rules != len(specs.Default().Rules) ||
		cert.Verdict != reports.VerdictIncomplete || strings.Contains(string(data), token) {
		t.Errorf("certification.json: %s", data)
	}
	verify := func(args ...string) (int, string) {
		return runV4cert(t, append([]string{"report", "verify"}, args...)...)
	}
	if status, output := verify("--public-key", pub, out); status != 0 || !strings.HasPrefix(output, "VERIFIED: ") {
		t.Fatalf("verify of the bundle as written: exit %d\n%s", status, output)
	}
	if status, output := verify("--public-key", otherPub, out); status != 1 || !strings.Contains(output, "another key") {
		t.Errorf("verify with another signer's key: exit %d\n%s", status, output)
	}
	type change struct {
		name     string
		do, undo func()
		says     string
	}
	summary := filepath.Join(out, "summary.md")
	orig, _ := os.ReadFile(summary)
	manifest := filepath.Join(out, reports.ManifestFile)
	morig, _ := os.ReadFile(manifest)
	restore := func() { os.WriteFile(summary, orig, 0o644); os.WriteFile(manifest, morig, 0o644) }
	tamper := []change{
		{"a changed report", func() { os.WriteFile(summary, append(orig, 'x'), 0o644) }, restore, "changed after signing"},
		{"an added file", func() { os.WriteFile(filepath.Join(out, "extra.txt"), nil, 0o644) }, func() { os.Remove(filepath.Join(out, "extra.txt")) }, "not in the manifest"},
		{"a removed file", func() { os.Remove(summary) }, restore, "not in the bundle"},
		{"a changed manifest", func() {
			os.WriteFile(summary, append(orig, 'x'), 0o644)
			os.WriteFile(manifest, []byte(strings.Replace(string(morig), `"summary.md"`, `"summary.md" `, 1)), 0o644)
		}, restore, "signature does not verify"},
	}
	for _, x := range tamper {
		x.do()
		if status, output := verify(out); status != 1 || !strings.Contains(output, "NOT VERIFIED") || !strings.Contains(output, x.says) {
			t.Errorf("%s: exit %d\n%s", x.name, status, output)
		}
		x.undo()
	}
	if status, output := verify(out); status != 0 {
		t.Errorf("the bundle restored: exit %d\n%s", status, output)
	}
}

// `v4cert serve --faults FILE --journal-size N`: the file's faults are on
// from the start, and the journal keeps the newest N requests.
func TestServeFaultsFileAndJournalSize(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a server")
	}
	file := filepath.Join(t.TempDir(), "faults.json")
	os.WriteFile(file, []byte(`[{"method":"GET","path":"/api/v4/version","status":502,"nth":2}]`), 0o644)
	s := startServe(t, "--root-token", serveToken, "--faults", file, "--journal-size", "2")
	for i, want := range []int{200, 502, 200} {
		if status, body, err := s.call("GET", "/api/v4/version", nil); err != nil || status != want {
			t.Errorf("GET /version #%d: %d %s %v, want %d", i+1, status, body, err, want)
		}
	}
	status, body, err := s.call("GET", "/-/requests", nil)
	var journal []struct {
		ID     int    `json:"id"`
		Status int    `json:"status"`
		Fault  string `json:"fault"`
	}
	if err != nil || status != 200 || json.Unmarshal(body, &journal) != nil || len(journal) != 2 ||
		journal[0].Status != 502 || journal[0].Fault == "" || journal[1].ID != 3 {
		t.Errorf("GET /-/requests: %d %s %v", status, body, err)
	}
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	os.WriteFile(bad, []byte("- status: 500\n"), 0o644)
	if status, out := runV4cert(t, "serve", "--addr", "127.0.0.1:0", "--faults", bad); status == 0 || !strings.Contains(out, "path is invalid") {
		t.Errorf("serve --faults with a fault without a path: exit %d\n%s", status, out)
	}
}
