// Package registry is the reference's registry host: an embedded
// distribution/distribution registry (the OCI distribution reference
// implementation) behind the token issuer {auth_url}/jwt/auth, whose JWTs the
// registry's own token access controller verifies, plus the platform's
// extras (DELETE /v2/<name>/tags/reference/<tag>, repository records for the
// project API).
package registry

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math/big"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/distribution/distribution/v3"
	"github.com/distribution/distribution/v3/configuration"
	"github.com/distribution/distribution/v3/registry/auth"
	"github.com/distribution/distribution/v3/registry/auth/token"
	"github.com/distribution/distribution/v3/registry/handlers"
	"github.com/distribution/distribution/v3/registry/storage"
	storagedriver "github.com/distribution/distribution/v3/registry/storage/driver"
	"github.com/distribution/distribution/v3/registry/storage/driver/factory"
	"github.com/distribution/distribution/v3/registry/storage/driver/filesystem"
	"github.com/distribution/distribution/v3/registry/storage/driver/inmemory"
	"github.com/sirupsen/logrus"

	"github.com/v4cert/v4cert/reference/store"
)

// Service is the token issuer's service name (`service=container_registry`)
// and the audience of its tokens.
const Service = "container_registry"

// Issuer names the token issuer inside its tokens.
const Issuer = "v4cert-token-issuer"

// TokenLife is how long a registry bearer lives ("short-lived", Authentication 4).
const TokenLife = 5 * time.Minute

// Options configure a Registry.
type Options struct {
	// Root keeps the content on disk there (distribution's filesystem
	// driver); empty keeps it in memory.
	Root string
	// ExternalURL is the base of the token realm and of Location headers;
	// empty derives them from each request.
	ExternalURL string
}

// Registry is the registry host of one server instance.
type Registry struct {
	store  *store.Store
	opts   Options
	driver storagedriver.StorageDriver
	app    *handlers.App
	// ns reads and changes content for the project API, over the same
	// driver as app and without caches, so both see the same thing.
	ns distribution.Namespace
	// access verifies bearers for the extras the app does not route.
	access auth.AccessController
	key    *ecdsa.PrivateKey
	kid    string
	// ids makes every token's jti unique.
	ids atomic.Uint64
}

// drivers hands a Registry's driver to the storage factory distribution
// calls from NewApp, so the app and ns share one (in-memory) driver.
var (
	drivers      sync.Map // instance id -> storagedriver.StorageDriver
	driverSeq    atomic.Uint64
	registerOnce sync.Once
)

const driverName = "v4cert"

type sharedDriverFactory struct{}

func (sharedDriverFactory) Create(_ context.Context, p map[string]any) (storagedriver.StorageDriver, error) {
	d, ok := drivers.Load(fmt.Sprint(p["instance"]))
	if !ok {
		return nil, fmt.Errorf("registry: no storage driver for instance %v", p["instance"])
	}
	return d.(storagedriver.StorageDriver), nil
}

// New builds the registry host over st (users, tokens, projects and the
// repository records the project API shows).
func New(st *store.Store, opts Options) (*Registry, error) {
	registerOnce.Do(func() {
		factory.Register(driverName, sharedDriverFactory{})
		// distribution logs every request through logrus's standard logger;
		// the reference keeps its own log, so its chatter goes nowhere.
		logrus.SetOutput(io.Discard)
	})
	r := &Registry{store: st, opts: opts}
	if opts.Root != "" {
		if err := os.MkdirAll(opts.Root, 0o755); err != nil {
			return nil, fmt.Errorf("registry root: %w", err)
		}
		r.driver = filesystem.New(filesystem.DriverParameters{RootDirectory: opts.Root, MaxThreads: 100})
	} else {
		r.driver = inmemory.New()
	}
	instance := strconv.FormatUint(driverSeq.Add(1), 10)
	drivers.Store(instance, r.driver)
	defer drivers.Delete(instance) // NewApp has taken it by then

	var err error
	if r.key, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader); err != nil {
		return nil, err
	}
	r.kid = token.GetJWKThumbprint(r.key.Public())
	// The token access controller reads its trusted keys from a certificate
	// bundle file when it is built; the file is not needed after that.
	bundle, err := writeCertBundle(r.key)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(filepath.Dir(bundle))
	authParams := map[string]any{
		"service": Service, "issuer": Issuer, "rootcertbundle": bundle,
		"signingalgorithms": []any{"ES256"},
	}
	if opts.ExternalURL != "" {
		authParams["realm"] = strings.TrimSuffix(opts.ExternalURL, "/") + "/jwt/auth"
	} else {
		// The realm follows the host each request names (a server on a
		// random loopback port does not know its address when built).
		authParams["realm"] = ""
		authParams["autoredirect"] = true
		authParams["autoredirectpath"] = "/jwt/auth"
	}
	if r.access, err = auth.GetAccessController("token", authParams); err != nil {
		return nil, err
	}

	cfg := &configuration.Configuration{}
	cfg.Storage = configuration.Storage{
		driverName: configuration.Parameters{"instance": instance},
		// Tag and manifest deletes are part of the spec.
		"delete": configuration.Parameters{"enabled": true},
		// Uploads are never purged behind a test's back, and blobs are
		// served by the registry itself (no storage redirects).
		"maintenance": configuration.Parameters{"uploadpurging": map[any]any{"enabled": false}},
		"redirect":    configuration.Parameters{"disable": true},
	}
	cfg.Auth = configuration.Auth{"token": authParams}
	// Layers a manifest names by URL (non-distributable layers) are not
	// pushed; distribution refuses every URL unless told otherwise, and
	// answers such a manifest with a 500.
	cfg.Validation.Manifests.URLs.Allow = []string{`^https?://`}
	// The defaults distribution's configuration parser would fill in.
	cfg.Catalog.MaxEntries, cfg.Tags.MaxTags = 1000, 1000
	cfg.HTTP.Secret = randomSecret()
	if opts.ExternalURL != "" {
		cfg.HTTP.Host = strings.TrimSuffix(opts.ExternalURL, "/")
	}
	if r.app, err = newApp(cfg); err != nil {
		return nil, err
	}
	if r.ns, err = storage.NewRegistry(context.Background(), r.driver, storage.EnableDelete); err != nil {
		return nil, err
	}
	return r, nil
}

// newApp builds distribution's application, which panics on a bad configuration.
func newApp(cfg *configuration.Configuration) (app *handlers.App, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("registry: %v", v)
		}
	}()
	return handlers.NewApp(context.Background(), cfg), nil
}

func randomSecret() string {
	var b [32]byte
	rand.Read(b[:])
	return fmt.Sprintf("%x", b)
}

// writeCertBundle writes a self-signed certificate of key's public half to a
// new temporary directory and returns the file's path.
func writeCertBundle(key *ecdsa.PrivateKey) (string, error) {
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: Issuer},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(100 * 365 * 24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp("", "v4cert-registry-")
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "token-issuer.crt")
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	return path, nil
}

// Close stops the registry's background work. Content on disk stays.
func (r *Registry) Close() error { return r.app.Shutdown() }

// repositoriesRoot is where distribution's storage layout keeps repositories
// (registry/storage/paths.go); blobs live beside it under /docker/registry/v2/blobs.
const repositoriesRoot = "/docker/registry/v2/repositories"

// Reset removes every repository and blob, bringing the registry back to
// empty (POST /-/reset).
func (r *Registry) Reset(ctx context.Context) error {
	err := r.driver.Delete(ctx, "/docker")
	var nf storagedriver.PathNotFoundError
	if errors.As(err, &nf) {
		return nil
	}
	return err
}
