// Package reference assembles the reference server: state, clock, the
// administrator, the starting world (a seed or a seed file), optional
// persistence, the HTTP API and the hooks a CI job needs (readiness, reset,
// a request log).
package reference

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/v4cert/v4cert/reference/api"
	"github.com/v4cert/v4cert/reference/registry"
	"github.com/v4cert/v4cert/reference/store"
)

// Config is what `v4cert serve` and the in-process suites choose.
type Config struct {
	RootToken     string // empty draws a random one (or, with DataDir, reuses the stored one)
	FixedClock    bool
	Seed          string // "demo" or "none"; ignored when SeedFile is set
	SeedFile      string // a declarative starting world (seedfile.go)
	DataDir       string // persist the world and the repositories here; empty keeps everything in memory
	RateLimit     int
	MaxQueryBytes int
	ExternalURL   string
	ImportFromAny bool // direct-transfer sources beyond loopback
	Log           *log.Logger
	// RequestLog receives one line per request (--log requests); nil logs nothing.
	RequestLog io.Writer
	// Version is the build of v4cert, answered as the revision of GET /version.
	Version string
	// VerifyPersistence makes every write with DataDir compare the whole
	// world with what is stored (store.Verify): for tests, it costs a full
	// encoding per write.
	VerifyPersistence bool
	// RegistryDir keeps the registry host's content on disk; empty keeps it
	// in memory, or under DataDir/registry when DataDir is set.
	RegistryDir string
	// JournalSize is how many requests GET /-/requests keeps (0:
	// DefaultJournalSize; negative keeps none).
	JournalSize int
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
	// Restored reports that the world came from DataDir rather than from the seed.
	Restored bool
	// Registry is the registry host the server mounts (Reset empties it).
	Registry *registry.Registry

	cfg   Config
	world *World // the starting world: what POST /-/reset goes back to
	db    *store.Bolt
	// snapshots are copies of the seeded repositories by project, for reset.
	snapshotDir string
	snapshots   map[int]string

	// gate lets POST /-/reset wait for requests in flight and hold new ones
	// while the world is rebuilt: requests take it shared, a reset alone.
	gate sync.RWMutex

	journal *journal // nil when JournalSize is negative
	faults  faults   // none until declared (faults.go)

	// namedDir holds the named snapshots without --data-dir (snapshots.go).
	namedMu  sync.Mutex
	namedDir string
}

// MaxHeaderBytes is what servers of the reference allow for the request line
// and headers: large enough that over-long query strings are answered with
// the spec's 414 (Endpoints convention 4) rather than net/http's 431.
const MaxHeaderBytes = 16 << 20

// HTTPServer is the server every way of running the reference uses (`v4cert
// serve` and the in-process suites alike), so their limits cannot drift apart.
func (i *Instance) HTTPServer() *http.Server {
	return &http.Server{Handler: i.Handler(), ReadHeaderTimeout: 10 * time.Second, MaxHeaderBytes: MaxHeaderBytes}
}

// RootScopes are the scopes of the administrator's token: everything, sudo included.
var RootScopes = []string{"api", "read_api", "read_user", "read_repository", "write_repository", "sudo", "admin_mode"}

// New builds a server from cfg: the starting world from the seed or the seed
// file, or, when cfg.DataDir already holds a world, that world.
func New(cfg Config) (*Instance, error) {
	clock := func() time.Time { return time.Now().UTC().Truncate(time.Millisecond) }
	if cfg.FixedClock {
		clock = func() time.Time { return store.FixedTime }
	}
	world, err := worldOf(cfg)
	if err != nil {
		return nil, err
	}
	var undo func()
	if cfg.DataDir != "" {
		// Absolute, so git (run in each repository) and every later path
		// agree on it whatever the working directory.
		if cfg.DataDir, err = filepath.Abs(cfg.DataDir); err != nil {
			return nil, fmt.Errorf("--data-dir: %w", err)
		}
		if err := os.MkdirAll(cfg.DataDir, 0o755); err != nil {
			return nil, fmt.Errorf("--data-dir: %w", err)
		}
		undo = unmade(cfg.DataDir)
	}
	inst, err := build(cfg, world, clock)
	if err != nil && undo != nil {
		// A world that failed to build is not left for the next start to
		// restore half-built: what this start wrote goes.
		undo()
	}
	return inst, err
}

// dataDirEntries are what a start writes under --data-dir.
var dataDirEntries = []string{"world.db", "repositories", "registry", "seed-repositories"}

// unmade returns a function removing the entries of dataDirEntries that dir
// does not hold now.
func unmade(dir string) func() {
	var absent []string
	for _, name := range dataDirEntries {
		if _, err := os.Lstat(filepath.Join(dir, name)); errors.Is(err, os.ErrNotExist) {
			absent = append(absent, filepath.Join(dir, name))
		}
	}
	return func() {
		for _, p := range absent {
			os.RemoveAll(p)
		}
	}
}

func build(cfg Config, world *World, clock store.Clock) (*Instance, error) {
	inst := &Instance{cfg: cfg, world: world, journal: newJournal(cfg.JournalSize)}
	var st *store.Store
	var err error
	repoDir := ""
	if cfg.DataDir != "" {
		repoDir = filepath.Join(cfg.DataDir, "repositories")
		inst.db, err = store.OpenBolt(filepath.Join(cfg.DataDir, "world.db"))
		if err != nil {
			return nil, fmt.Errorf("--data-dir: %w", err)
		}
		st, inst.Restored, err = store.Open(clock, inst.db)
		if err != nil {
			inst.db.Close()
			return nil, fmt.Errorf("--data-dir %s: %w", cfg.DataDir, err)
		}
		st.Verify(cfg.VerifyPersistence)
		if cfg.RegistryDir == "" {
			cfg.RegistryDir = filepath.Join(cfg.DataDir, "registry")
		}
	} else {
		st = store.New(clock)
	}
	if inst.Restored {
		err = inst.adoptStoredRoot(st)
	} else {
		err = inst.seed(st)
	}
	if err != nil {
		inst.closeDB()
		return nil, err
	}
	// The registry host, in memory, under RegistryDir, or under DataDir/registry.
	reg, err := registry.New(st, registry.Options{Root: cfg.RegistryDir, ExternalURL: cfg.ExternalURL})
	if err != nil {
		inst.closeDB()
		return nil, err
	}
	srv, err := api.New(st, api.Options{ExternalURL: cfg.ExternalURL, MaxQueryBytes: cfg.MaxQueryBytes, RateLimit: cfg.RateLimit,
		ImportFromAny: cfg.ImportFromAny, Log: cfg.Log, RepoDir: repoDir, Version: cfg.Version, Registry: reg})
	if err != nil {
		reg.Close()
		inst.closeDB()
		return nil, err
	}
	inst.Server, inst.Registry = srv, reg
	// Every project gets its repository now, never on a first read: the seed's
	// projects, and after a restart any project whose repository a crash
	// left unwritten.
	if err := inst.provisionRepositories(context.Background()); err != nil {
		inst.Close()
		return nil, err
	}
	if !inst.Restored {
		if err := inst.snapshotSeed(); err != nil {
			inst.Close()
			return nil, err
		}
	}
	return inst, nil
}

// seed builds the starting world into a fresh store.
func (i *Instance) seed(st *store.Store) error {
	var root Account
	var accounts []Account
	err := st.Reset(func(d *store.Data) error {
		var err error
		root, accounts, err = i.world.build(d)
		return err
	})
	if err != nil {
		return err
	}
	i.Root, i.Accounts = root, accounts
	return nil
}

// adoptStoredRoot takes the administrator from a restored world. The seed's
// other accounts are named too, so `v4cert serve` prints the same table.
func (i *Instance) adoptStoredRoot(st *store.Store) error {
	i.Root, i.Accounts = i.world.accounts()
	return st.Read(func(d *store.Data) error {
		root := d.UserByUsername("root")
		if root == nil {
			return fmt.Errorf("--data-dir %s holds a world without the administrator root; start from an empty directory", i.cfg.DataDir)
		}
		if t := d.TokenBySecret(i.world.rootToken); t != nil && t.UserID == root.ID {
			return nil
		}
		if i.world.rootTokenGiven {
			return fmt.Errorf("--data-dir %s holds a world whose administrator has another token than --root-token; omit --root-token to keep the stored one, or start from an empty directory", i.cfg.DataDir)
		}
		// No token asked for: the stored one stays (the first root token issued).
		for _, t := range d.TokensOf(root) {
			i.Root.Token = t.Secret
			i.world.rootToken = t.Secret
			return nil
		}
		return fmt.Errorf("--data-dir %s holds a world whose administrator has no token; start from an empty directory", i.cfg.DataDir)
	})
}

// Handler is the whole server: the hooks of a CI job (GET /-/readiness,
// GET /-/liveness, POST /-/reset), then the API and the registry host, with
// the request log around everything.
func (i *Instance) Handler() *Handler { return &Handler{inst: i} }

// Reset brings the world back to what the server started with (POST /-/reset):
// the seed or seed file with the same tokens, fresh repositories, an empty
// registry. Requests in flight finish first; new ones wait until it is done.
func (i *Instance) Reset(ctx context.Context) error {
	i.gate.Lock()
	defer i.gate.Unlock()
	if err := i.Server.Repositories().RemoveAll(); err != nil {
		return err
	}
	// The registry host's content (its own storage) and then its records in
	// the store, which the store's reset drops.
	if err := i.Registry.Reset(ctx); err != nil {
		return err
	}
	if err := i.seed(i.Server.Store()); err != nil {
		return err
	}
	if err := i.provisionRepositories(ctx); err != nil {
		return err
	}
	// The conveniences' state goes back to the start too (faults.go,
	// journal.go): a test that resets sees only its own requests and
	// faults.
	i.faults.restart()
	if i.journal != nil {
		i.journal.restart()
	}
	return i.snapshotSeed()
}

// Close releases what the instance holds outside memory: the repositories'
// git processes (and their directory when temporary) and the data dir's database.
func (i *Instance) Close() error {
	err := errors.Join(i.Server.Close(), i.Registry.Close())
	if i.snapshotDir != "" {
		err = errors.Join(err, os.RemoveAll(i.snapshotDir))
	}
	if i.namedDir != "" {
		err = errors.Join(err, os.RemoveAll(i.namedDir))
	}
	return errors.Join(err, i.closeDB())
}

func (i *Instance) closeDB() error {
	if i.db == nil {
		return nil
	}
	return i.db.Close()
}
