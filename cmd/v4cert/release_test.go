package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
)

// TestReleaseSnapshot checks what `make release-snapshot` wrote into dist/:
// an archive per platform (tar.gz, zip on windows), each with its SBOM, a
// checksums file that names every archive with its real digest, and a
// linux/amd64 binary that answers version. make release-snapshot runs it
// with V4CERT_RELEASE_DIST set.
func TestReleaseSnapshot(t *testing.T) {
	dist := os.Getenv("V4CERT_RELEASE_DIST")
	if dist == "" {
		t.Skip("set V4CERT_RELEASE_DIST to a goreleaser dist/ directory (make release-snapshot)")
	}
	var archives, sboms, sums []string
	entries, err := os.ReadDir(dist)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		switch n := e.Name(); {
		case strings.HasSuffix(n, ".tar.gz"), strings.HasSuffix(n, ".zip"):
			archives = append(archives, n)
		case strings.HasSuffix(n, ".cdx.json"):
			sboms = append(sboms, n)
		case strings.HasSuffix(n, "_checksums.txt"):
			sums = append(sums, n)
		}
	}
	var platforms []string
	for _, goos := range []string{"darwin", "linux", "windows"} {
		for _, arch := range []string{"amd64", "arm64"} {
			ext := ".tar.gz"
			if goos == "windows" {
				ext = ".zip"
			}
			suffix := "_" + goos + "_" + arch
			platforms = append(platforms, suffix)
			if !hasName(archives, suffix+ext) {
				t.Errorf("no archive for %s/%s in %v", goos, arch, archives)
			}
			if !hasName(sboms, suffix+".cdx.json") {
				t.Errorf("no SBOM for %s/%s in %v", goos, arch, sboms)
			}
		}
	}
	if len(archives) != len(platforms) {
		t.Errorf("%d archives, want %d: %v", len(archives), len(platforms), archives)
	}
	if len(sums) != 1 {
		t.Fatalf("want one checksums file, got %v", sums)
	}
	listed := map[string]string{}
	f, err := os.Open(filepath.Join(dist, sums[0]))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for sc := bufio.NewScanner(f); sc.Scan(); {
		if sum, name, ok := strings.Cut(sc.Text(), "  "); ok {
			listed[name] = sum
		}
	}
	sort.Strings(archives)
	for _, a := range archives {
		want, ok := listed[a]
		if !ok {
			t.Errorf("checksums file does not list %s", a)
			continue
		}
		if got := fileSum(t, filepath.Join(dist, a)); got != want {
			t.Errorf("%s: checksum %s, file is %s", a, want, got)
		}
	}
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		return
	}
	bins, _ := filepath.Glob(filepath.Join(dist, "v4cert_linux_amd64*", "v4cert"))
	if len(bins) != 1 {
		t.Fatalf("linux/amd64 binary: found %v", bins)
	}
	out, err := exec.Command(bins[0], "version").Output()
	if err != nil || !strings.HasPrefix(string(out), "v4cert ") || strings.HasPrefix(string(out), "v4cert dev") {
		t.Fatalf("linux/amd64 binary answers version with %q, %v", out, err)
	}
}

func hasName(names []string, suffix string) bool {
	for _, n := range names {
		if strings.HasSuffix(n, suffix) {
			return true
		}
	}
	return false
}

func fileSum(t *testing.T, path string) string {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}
