package main

import (
	"bufio"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// dockerfile is what TestDockerfile reads of ../../Dockerfile: the final
// stage's instructions, and the build stage's go build line.
type dockerfile struct {
	build       string            // the RUN line with go build
	env         map[string]string // the final stage's ENV
	entrypoint  []string
	cmd         []string
	healthcheck []string
	user        string
	packages    []string // apk add in the final stage
	copies      [][2]string
}

func readDockerfile(t *testing.T, path string) dockerfile {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d := dockerfile{env: map[string]string{}}
	stage := 0
	exec := func(s string) []string {
		var v []string
		if err := json.Unmarshal([]byte(s), &v); err != nil {
			t.Fatalf("Dockerfile: %q is not the exec (JSON) form: %v", s, err)
		}
		return v
	}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		word, rest, _ := strings.Cut(line, " ")
		switch strings.ToUpper(word) {
		case "FROM":
			stage++
		case "RUN":
			if strings.Contains(rest, "go build") {
				d.build = rest
			}
			if stage > 1 && strings.Contains(rest, "apk add") {
				for _, w := range strings.Fields(rest[strings.Index(rest, "apk add")+len("apk add"):]) {
					if w == "&&" {
						break
					}
					if !strings.HasPrefix(w, "-") {
						d.packages = append(d.packages, w)
					}
				}
			}
		case "ENV":
			if k, v, ok := strings.Cut(rest, "="); ok && stage > 1 {
				d.env[k] = v
			}
		case "ENTRYPOINT":
			d.entrypoint = exec(rest)
		case "CMD":
			d.cmd = exec(rest)
		case "HEALTHCHECK":
			_, hc, _ := strings.Cut(rest, "CMD ")
			d.healthcheck = exec(hc)
		case "USER":
			d.user = rest
		case "COPY":
			fields := strings.Fields(rest)
			if len(fields) >= 2 && !strings.HasPrefix(fields[0], "--from") {
				for _, src := range fields[:len(fields)-1] {
					d.copies = append(d.copies, [2]string{src, fields[len(fields)-1]})
				}
			}
		}
	}
	return d
}

// TestDockerfile runs the image's commands where no image builder runs: the
// build stage's go build line into a directory laid out as the image is
// (usr/local/bin/v4cert), then the image's ENTRYPOINT and CMD with its ENV,
// then its HEALTHCHECK against that server. It also holds the Dockerfile to
// what the image needs: git in the final stage, a non-root user, and the
// server listening on every interface.
func TestDockerfile(t *testing.T) {
	if os.Getenv("V4CERT_INSTALL_TEST") == "" {
		t.Skip("set V4CERT_INSTALL_TEST=1 (make install-check): builds the image's binary as its build stage does")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	d := readDockerfile(t, filepath.Join(root, "Dockerfile"))
	if !contains(d.packages, "git") {
		t.Errorf("the final stage installs %v; the repositories need git", d.packages)
	}
	if d.user == "" || d.user == "root" || d.user == "0" {
		t.Errorf("USER %q: the image must not run as root", d.user)
	}
	if !strings.HasPrefix(d.env["V4CERT_ADDR"], "0.0.0.0:") {
		t.Errorf("ENV V4CERT_ADDR=%q: inside a container serve must listen on 0.0.0.0", d.env["V4CERT_ADDR"])
	}
	for _, c := range d.copies {
		if c[0] == "." {
			continue
		}
		if _, err := os.Stat(filepath.Join(root, c[0])); err != nil {
			t.Errorf("COPY %s: %v", c[0], err)
		}
	}
	if d.build == "" {
		t.Fatal("no go build line in the build stage")
	}

	// The build stage, with /out/ pointing into the laid-out image.
	image := t.TempDir()
	bin := filepath.Join(image, "usr", "local", "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	build := strings.ReplaceAll(d.build, "/out/v4cert", filepath.Join(bin, "v4cert"))
	sh := exec.Command("sh", "-c", build)
	sh.Dir = root
	sh.Env = append(os.Environ(), "VERSION=v0.0.0-image.test", "COMMIT=0123456789abcdef")
	if out, err := sh.CombinedOutput(); err != nil {
		t.Fatalf("build stage: %s: %v\n%s", build, err, out)
	}

	// ENTRYPOINT and CMD with the image's ENV, on a free port: the test
	// cannot take 8080 on a shared machine, so the port (only) changes.
	port := freePort(t)
	args := append(append([]string{}, d.entrypoint...), d.cmd...)
	if args[0] != "v4cert" {
		t.Fatalf("ENTRYPOINT %v does not start v4cert", d.entrypoint)
	}
	srv := exec.Command(filepath.Join(bin, "v4cert"), args[1:]...)
	srv.Dir = t.TempDir()
	srv.Env = append(os.Environ(), "V4CERT_ROOT_TOKEN=image-root-token")
	for k, v := range d.env {
		if k == "V4CERT_ADDR" {
			v = strings.Replace(v, ":8080", ":"+port, 1)
		}
		srv.Env = append(srv.Env, k+"="+v)
	}
	var stderr strings.Builder
	srv.Stderr = &stderr
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Process.Kill(); _ = srv.Wait() })

	// HEALTHCHECK, retried as its --retries would; the port again.
	hc := append([]string{}, d.healthcheck...)
	for i := range hc {
		hc[i] = strings.Replace(hc[i], "127.0.0.1:8080", "127.0.0.1:"+port, 1)
	}
	if _, err := exec.LookPath(hc[0]); err != nil {
		t.Skipf("HEALTHCHECK needs %s, not on this machine", hc[0])
	}
	var last []byte
	for i := 0; i < 100; i++ {
		out, err := exec.Command(hc[0], hc[1:]...).CombinedOutput()
		if err == nil {
			out, err := exec.Command(filepath.Join(bin, "v4cert"), "version").Output()
			if err != nil || !strings.HasPrefix(string(out), "v4cert v0.0.0-image.test") {
				t.Errorf("the image's binary says %q (%v), want the VERSION build argument", out, err)
			}
			return
		}
		last = out
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("HEALTHCHECK %v never passed: %s\nserver: %s", hc, last, stderr.String())
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func freePort(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	return port
}
