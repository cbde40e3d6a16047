package reports

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"
)

// A certified run's bundle (certify --certified): the four reports, a
// certification record (what was certified, by which suite and rulebook,
// with which configuration) and a manifest of the SHA-256 of every file,
// signed with an ed25519 key the user supplies. `v4cert report verify`
// checks that nothing was added, removed or changed since v4cert wrote it,
// and, given the signer's public key, who signed it.

// Formats of the bundle's own files.
const (
	CertificationFormat = "v4cert-certification/1"
	ManifestFormat      = "v4cert-manifest/1"
)

// Names of the bundle's own files beside the reports.
const (
	CertificationFile = "certification.json"
	ManifestFile      = "manifest.json"
	SignatureFile     = "manifest.sig"
)

// Certification is what a certified run certifies.
type Certification struct {
	Format         string         `json:"format"`
	Implementation Implementation `json:"implementation"`
	Suite          Suite          `json:"suite"`
	Target         string         `json:"target"`
	Started        time.Time      `json:"started"`
	Verdict        string         `json:"verdict"`
	Conformant     bool           `json:"conformant"`
	// Configuration is the run's settings, secrets left out (the token is
	// never among them).
	Configuration map[string]string `json:"configuration"`
}

// Implementation is the target as it describes itself (GET /api/v4/version).
type Implementation struct {
	// Name is the answer's "name" member when it has one, else its Server
	// header, else the target's host: the platform's answer names no product.
	Name     string `json:"name"`
	Version  string `json:"version"`
	Revision string `json:"revision,omitempty"`
}

// Suite is the v4cert that judged, and the rulebook it judged by.
type Suite struct {
	Name           string `json:"name"`
	Version        string `json:"version"`
	RulebookDigest string `json:"rulebook_digest"`
	Rules          int    `json:"rules"`
	Endpoints      int    `json:"endpoints"`
}

// Manifest lists every file of the bundle but itself and its signature.
type Manifest struct {
	Format string `json:"format"`
	// PublicKey is the signer's ed25519 public key, base64: verify checks
	// the signature with it, and against the key it is given, if any.
	PublicKey string       `json:"public_key"`
	Files     []FileDigest `json:"files"`
}

// FileDigest is one file of the bundle.
type FileDigest struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
	Size   int64  `json:"size"`
}

// WriteBundle turns dir, which holds the reports of rep, into a certified
// bundle: the certification record, then the manifest of every file and its
// signature with key.
func WriteBundle(dir string, cert Certification, key ed25519.PrivateKey) error {
	cert.Format = CertificationFormat
	data, err := json.MarshalIndent(cert, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, CertificationFile), append(data, '\n'), 0o644); err != nil {
		return err
	}
	files, err := digests(dir)
	if err != nil {
		return err
	}
	m := Manifest{Format: ManifestFormat, PublicKey: base64.StdEncoding.EncodeToString(key.Public().(ed25519.PublicKey)), Files: files}
	mdata, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	mdata = append(mdata, '\n')
	if err := os.WriteFile(filepath.Join(dir, ManifestFile), mdata, 0o644); err != nil {
		return err
	}
	sig := base64.StdEncoding.EncodeToString(ed25519.Sign(key, mdata)) + "\n"
	return os.WriteFile(filepath.Join(dir, SignatureFile), []byte(sig), 0o644)
}

// digests are the files of dir but the manifest and its signature, by path.
func digests(dir string) ([]FileDigest, error) {
	var out []FileDigest
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if rel == ManifestFile || rel == SignatureFile {
			return nil
		}
		if !e.Type().IsRegular() {
			return fmt.Errorf("%s is not a regular file", rel)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(data)
		out = append(out, FileDigest{Path: rel, SHA256: hex.EncodeToString(sum[:]), Size: int64(len(data))})
		return nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, err
}

// VerifyBundle checks a bundle: the manifest's signature (by the key it
// names, which must be signer when signer is given), every file's digest,
// no file missing or added, and a certification record that agrees with
// report.json. It returns the certification.
func VerifyBundle(dir string, signer ed25519.PublicKey) (*Certification, error) {
	mdata, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	if err != nil {
		return nil, fmt.Errorf("no manifest: %w", err)
	}
	sigText, err := os.ReadFile(filepath.Join(dir, SignatureFile))
	if err != nil {
		return nil, fmt.Errorf("no signature: %w", err)
	}
	var m Manifest
	if err := json.Unmarshal(mdata, &m); err != nil || m.Format != ManifestFormat {
		return nil, fmt.Errorf("%s is not a %s manifest", ManifestFile, ManifestFormat)
	}
	pub, err := base64.StdEncoding.DecodeString(m.PublicKey)
	if err != nil || len(pub) != ed25519.PublicKeySize {
		return nil, errors.New("the manifest's public key is not an ed25519 key")
	}
	if signer != nil && !bytes.Equal(pub, signer) {
		return nil, errors.New("the bundle was signed with another key than the one given")
	}
	sig, err := base64.StdEncoding.DecodeString(string(bytes.TrimSpace(sigText)))
	if err != nil || !ed25519.Verify(pub, mdata, sig) {
		return nil, errors.New("the manifest's signature does not verify: the manifest was changed or signed by another key")
	}
	files, err := digests(dir)
	if err != nil {
		return nil, err
	}
	want := map[string]FileDigest{}
	for _, f := range m.Files {
		want[f.Path] = f
	}
	for _, f := range files {
		w, ok := want[f.Path]
		switch {
		case !ok:
			return nil, fmt.Errorf("%s is not in the manifest (added after signing)", f.Path)
		case w.SHA256 != f.SHA256 || w.Size != f.Size:
			return nil, fmt.Errorf("%s changed after signing (sha256 %s, the manifest says %s)", f.Path, f.SHA256, w.SHA256)
		}
		delete(want, f.Path)
	}
	for p := range want {
		return nil, fmt.Errorf("%s is in the manifest but not in the bundle", p)
	}
	var cert Certification
	cdata, err := os.ReadFile(filepath.Join(dir, CertificationFile))
	if err != nil {
		return nil, fmt.Errorf("no certification record: %w", err)
	}
	if err := json.Unmarshal(cdata, &cert); err != nil || cert.Format != CertificationFormat {
		return nil, fmt.Errorf("%s is not a %s record", CertificationFile, CertificationFormat)
	}
	rep, err := Load(filepath.Join(dir, "report.json"))
	if err != nil {
		return nil, err
	}
	if rep.Rulebook.Digest != cert.Suite.RulebookDigest || rep.Verdict != cert.Verdict || rep.Version != cert.Suite.Version {
		return nil, errors.New("the certification record and report.json disagree (rulebook, verdict or suite version)")
	}
	return &cert, nil
}

// ParseSigningKey reads an ed25519 private key in PEM (PKCS #8, as
// `openssl genpkey -algorithm ed25519` writes it).
func ParseSigningKey(data []byte) (ed25519.PrivateKey, error) {
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, errors.New("not a PEM file")
	}
	k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, err
	}
	key, ok := k.(ed25519.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("a %T, not an ed25519 key", k)
	}
	return key, nil
}

// ParsePublicKey reads an ed25519 public key in PEM (PKIX, as `openssl
// pkey -pubout` writes it).
func ParsePublicKey(data []byte) (ed25519.PublicKey, error) {
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, errors.New("not a PEM file")
	}
	k, err := x509.ParsePKIXPublicKey(block.Bytes)
	if err != nil {
		return nil, err
	}
	key, ok := k.(ed25519.PublicKey)
	if !ok {
		return nil, fmt.Errorf("a %T, not an ed25519 key", k)
	}
	return key, nil
}
