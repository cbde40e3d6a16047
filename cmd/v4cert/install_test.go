package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/module"
	modzip "golang.org/x/mod/zip"
)

// installVersion is the version the on-disk module proxy serves: a
// pre-release, so it can never be mistaken for a real tag.
const installVersion = "v0.0.0-install.test"

// TestGoInstallFromModuleProxy proves the install line of the README:
// `go install github.com/v4cert/v4cert/cmd/v4cert@<version>` works with
// nothing but the Go toolchain. It builds a module proxy on disk from the
// committed tree (the zip layout golang.org/x/mod writes, the one
// proxy.golang.org serves), installs from it into an empty module cache, and
// runs the binary, which must report the module version from its build
// information. The module's dependencies come from the local module cache,
// served as a second file:// proxy, so the test needs no network.
//
// It is slow (a full build in a fresh module cache) and runs under
// `make install-check`, which make test runs; V4CERT_INSTALL_TEST=1 turns it
// on for a plain go test.
func TestGoInstallFromModuleProxy(t *testing.T) {
	if os.Getenv("V4CERT_INSTALL_TEST") == "" {
		t.Skip("set V4CERT_INSTALL_TEST=1 (make install-check) to build and install from a module proxy on disk")
	}
	root := strings.TrimSpace(run(t, "", nil, "git", "rev-parse", "--show-toplevel"))
	const path = "github.com/v4cert/v4cert"

	proxy := t.TempDir()
	dir := filepath.Join(proxy, path, "@v")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	zf, err := os.Create(filepath.Join(dir, installVersion+".zip"))
	if err != nil {
		t.Fatal(err)
	}
	// From HEAD, as a tag would be: only committed files, none of the
	// untracked node_modules or build output, and no nested modules.
	if err := modzip.CreateFromVCS(zf, module.Version{Path: path, Version: installVersion}, root, "HEAD", ""); err != nil {
		t.Fatalf("module zip from HEAD: %v", err)
	}
	if err := zf.Close(); err != nil {
		t.Fatal(err)
	}
	gomod := run(t, root, nil, "git", "show", "HEAD:go.mod")
	info, _ := json.Marshal(map[string]any{"Version": installVersion, "Time": time.Now().UTC().Format(time.RFC3339)})
	for name, body := range map[string]string{
		"list":                   installVersion + "\n",
		installVersion + ".mod":  gomod,
		installVersion + ".info": string(info),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	cache := strings.TrimSpace(run(t, "", nil, "go", "env", "GOMODCACHE"))
	gobin, home := t.TempDir(), t.TempDir()
	env := []string{
		"GOPROXY=file://" + filepath.ToSlash(proxy) + ",file://" + filepath.ToSlash(filepath.Join(cache, "cache", "download")),
		"GOMODCACHE=" + filepath.Join(home, "mod"), // empty: everything is fetched through the proxies
		"GOBIN=" + gobin,
		"GOFLAGS=-mod=mod -modcacherw", // -modcacherw: the test's temporary directory can be removed
		"GONOSUMDB=" + path, "GONOSUMCHECK=1", "GOSUMDB=off",
		"GOTOOLCHAIN=local",
	}
	run(t, t.TempDir(), env, "go", "install", path+"/cmd/v4cert@"+installVersion)

	out := run(t, "", nil, filepath.Join(gobin, "v4cert"), "version")
	if !strings.HasPrefix(out, "v4cert "+installVersion) {
		t.Fatalf("installed binary says %q, want the module version %s", out, installVersion)
	}
}

func run(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.Output()
	if err != nil {
		msg := ""
		if ee, ok := err.(*exec.ExitError); ok {
			msg = string(ee.Stderr)
		}
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, msg)
	}
	return string(out)
}

func TestBuildVersion(t *testing.T) {
	info := func(version string, settings ...string) func() (*debug.BuildInfo, bool) {
		return func() (*debug.BuildInfo, bool) {
			bi := &debug.BuildInfo{Main: debug.Module{Path: "github.com/v4cert/v4cert", Version: version}}
			for i := 0; i+1 < len(settings); i += 2 {
				bi.Settings = append(bi.Settings, debug.BuildSetting{Key: settings[i], Value: settings[i+1]})
			}
			return bi, true
		}
	}
	for _, c := range []struct {
		name                string
		v, c, d             string
		read                func() (*debug.BuildInfo, bool)
		wantV, wantC, wantD string
	}{
		{"go install of a tag", "dev", "", "", info("v1.2.3"), "v1.2.3", "", ""},
		{"build in a checkout", "dev", "", "", info("(devel)", "vcs.revision", "abc", "vcs.time", "2026-11-28T00:00:00Z", "vcs.modified", "true"), "dev", "abc-dirty", "2026-11-28T00:00:00Z"},
		{"linker flags win", "v9", "def", "today", info("v1.2.3", "vcs.revision", "abc"), "v9", "def", "today"},
		{"no build info", "dev", "", "", func() (*debug.BuildInfo, bool) { return nil, false }, "dev", "", ""},
	} {
		v, cm, d := buildVersion(c.v, c.c, c.d, c.read)
		if v != c.wantV || cm != c.wantC || d != c.wantD {
			t.Errorf("%s: got %q %q %q, want %q %q %q", c.name, v, cm, d, c.wantV, c.wantC, c.wantD)
		}
	}
}
