package git

import (
	"bufio"
	"bytes"
	"context"
	"net/http"
	"net/http/cgi"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// RefMove is one ref a write moved: Old is ZeroOid for a ref it created,
// New is ZeroOid for one it deleted.
type RefMove struct {
	Ref      string
	Old, New Oid
}

// SmartHTTPServices are the paths git's smart HTTP protocol uses below a
// repository's URL (…/<project>.git/<service path>).
var SmartHTTPServices = []string{"info/refs", "git-upload-pack", "git-receive-pack"}

// postReceive is the hook through which a push tells the server what moved:
// receive-pack hands it "<old> <new> <ref>" lines once the refs are updated.
const postReceive = "#!/bin/sh\ncat >> \"$V4CERT_PUSH_LOG\"\n"

// hooksDir writes the server's hooks once, beside the repositories.
func (m *Manager) hooksDir() (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.prepare(); err != nil {
		return "", err
	}
	dir := filepath.Join(m.dir, ".hooks")
	hook := filepath.Join(dir, "post-receive")
	if b, err := os.ReadFile(hook); err == nil && string(b) == postReceive {
		return dir, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	return dir, os.WriteFile(hook, []byte(postReceive), 0o755)
}

// ServeSmartHTTP serves git's smart HTTP protocol for the repository
// through git's own backend, `git http-backend`, run as a CGI program: path
// is "info/refs", "git-upload-pack" or "git-receive-pack", user the name git
// records as REMOTE_USER (empty: anonymous; receive-pack needs one). It
// returns the refs a push moved. Ref updates are git's own compare-and-swap
// transactions, so a push racing an API write to the same branch loses or
// wins whole, as two API writes do.
func (r *Repo) ServeSmartHTTP(w http.ResponseWriter, req *http.Request, path, user string) ([]RefMove, error) {
	gitPath, err := exec.LookPath("git")
	if err != nil {
		return nil, err
	}
	hooks, err := r.m.hooksDir()
	if err != nil {
		return nil, err
	}
	log, err := os.CreateTemp("", "v4cert-push-")
	if err != nil {
		return nil, err
	}
	log.Close()
	defer os.Remove(log.Name())
	env := append([]string(nil), r.m.baseEnv...)
	env = append(env,
		"GIT_PROJECT_ROOT="+filepath.Dir(r.dir),
		"GIT_HTTP_EXPORT_ALL=1",
		"V4CERT_PUSH_LOG="+log.Name(),
		// Configuration for this run only: the server's hooks, and pushes
		// allowed (the caller has checked who may push).
		"GIT_CONFIG_COUNT=2",
		"GIT_CONFIG_KEY_0=core.hooksPath", "GIT_CONFIG_VALUE_0="+hooks,
		"GIT_CONFIG_KEY_1=http.receivepack", "GIT_CONFIG_VALUE_1=true",
	)
	if user != "" {
		env = append(env, "REMOTE_USER="+user)
	}
	h := &cgi.Handler{Path: gitPath, Args: []string{"http-backend"}, Dir: r.dir, Env: env,
		Stderr: discard{}}
	// The backend finds the repository from PATH_INFO below GIT_PROJECT_ROOT.
	in := req.Clone(req.Context())
	in.URL.Path = "/" + filepath.Base(r.dir) + "/" + path
	in.URL.RawPath = ""
	h.ServeHTTP(w, in)
	if path != "git-receive-pack" {
		return nil, nil
	}
	r.refsWritten()
	b, err := os.ReadFile(log.Name())
	if err != nil {
		return nil, err
	}
	var moves []RefMove
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 3 && IsOid(f[0]) && IsOid(f[1]) {
			moves = append(moves, RefMove{Ref: f[2], Old: Oid(f[0]), New: Oid(f[1])})
		}
	}
	return moves, nil
}

// RefTarget is the object a ref names (an annotated tag's own object, not
// the commit it tags).
func (r *Repo) RefTarget(ctx context.Context, ref string) (Oid, error) {
	if !strings.HasPrefix(ref, "refs/") || !ValidRefName(strings.TrimPrefix(ref, "refs/")) {
		return "", ErrNotFound
	}
	_, oid, _, err := r.object(ctx, ref)
	return oid, err
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
