// Package reference assembles the reference server: state, clock, the
// administrator, an optional demo world, and the HTTP API.
package reference

import (
	"errors"
	"fmt"
	"log"
	"net/http"
	"time"

	"v4cert/reference/api"
	"v4cert/reference/registry"
	"v4cert/reference/store"
)

// Config is what `v4cert serve` and the in-process suites choose.
type Config struct {
	RootToken     string // empty draws a random one
	FixedClock    bool
	Seed          string // "demo" or "none"
	RateLimit     int
	MaxQueryBytes int
	ExternalURL   string
	ImportFromAny bool // direct-transfer sources beyond loopback
	Log           *log.Logger
	// RegistryDir keeps the registry host's content on disk; empty keeps it
	// in memory (registry wiring).
	RegistryDir string
}

// Account is a user of the seeded world and its token.
type Account struct {
	Role     string
	Username string
	Token    string
}

// Instance is a ready server and what it was seeded with.
type Instance struct {
	Server   *api.Server
	Root     Account
	Accounts []Account
	// Registry is the registry host the server mounts (Reset empties it).
	Registry *registry.Registry
}

// MaxHeaderBytes is what servers of the reference allow for the request line
// and headers: large enough that over-long query strings are answered with
// the spec's 414 (Endpoints convention 4) rather than net/http's 431.
const MaxHeaderBytes = 16 << 20

// HTTPServer is the server every way of running the reference uses (`v4cert
// serve` and the in-process suites alike), so their limits cannot drift apart.
func (i *Instance) HTTPServer() *http.Server {
	return &http.Server{Handler: i.Server, ReadHeaderTimeout: 10 * time.Second, MaxHeaderBytes: MaxHeaderBytes}
}

// RootScopes are the scopes of the administrator's token: everything, sudo included.
var RootScopes = []string{"api", "read_api", "read_user", "read_repository", "write_repository", "sudo", "admin_mode"}

// New builds a server from cfg.
func New(cfg Config) (*Instance, error) {
	clock := func() time.Time { return time.Now().UTC().Truncate(time.Millisecond) }
	if cfg.FixedClock {
		clock = func() time.Time { return store.FixedTime }
	}
	st := store.New(clock)
	inst := &Instance{}
	if cfg.RootToken == "" {
		cfg.RootToken = store.NewSecret("glpat-")
	}
	err := st.Write(func(d *store.Data) error {
		root, err := d.CreateUser(store.NewUser{Username: "root", Name: "Administrator", Email: "admin@example.com", Admin: true, SkipConfirmation: true})
		if err != nil {
			return err
		}
		if _, err := d.CreateToken(root, "root", RootScopes, nil, cfg.RootToken); err != nil {
			return err
		}
		inst.Root = Account{Role: "administrator", Username: "root", Token: cfg.RootToken}
		switch cfg.Seed {
		case "", "none":
			return nil
		case "demo":
			accounts, err := seedDemo(d, root)
			inst.Accounts = accounts
			return err
		}
		return fmt.Errorf("unknown seed %q (want demo or none)", cfg.Seed)
	})
	if err != nil {
		return nil, err
	}
	// registry wiring: the registry host, in memory or under RegistryDir.
	reg, err := registry.New(st, registry.Options{Root: cfg.RegistryDir, ExternalURL: cfg.ExternalURL})
	if err != nil {
		return nil, err
	}
	srv, err := api.New(st, api.Options{ExternalURL: cfg.ExternalURL, MaxQueryBytes: cfg.MaxQueryBytes, RateLimit: cfg.RateLimit, ImportFromAny: cfg.ImportFromAny, Log: cfg.Log,
		Registry: reg})
	if err != nil {
		reg.Close()
		return nil, err
	}
	inst.Server, inst.Registry = srv, reg
	return inst, nil
}

// Close releases what the instance holds outside memory: the repositories'
// git processes and their temporary directory, and the registry host.
func (i *Instance) Close() error { return errors.Join(i.Server.Close(), i.Registry.Close()) }
