package git

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
)

// LFSPointer is the content of a large-file pointer committed in place of the file.
type LFSPointer struct {
	Oid  string // sha256, hexadecimal
	Size int64
}

var (
	lfsVersion = []byte("version https://git-lfs.github.com/spec/v1\n")
	lfsOid     = regexp.MustCompile(`(?m)^oid sha256:([0-9a-f]{64})$`)
	lfsSize    = regexp.MustCompile(`(?m)^size (\d+)$`)
)

// ParseLFSPointer recognises a git-lfs pointer file (small, starting with the
// spec's version line, with oid and size lines).
func ParseLFSPointer(content []byte) (LFSPointer, bool) {
	if len(content) > 1024 || !bytes.HasPrefix(content, lfsVersion) {
		return LFSPointer{}, false
	}
	o := lfsOid.FindSubmatch(content)
	s := lfsSize.FindSubmatch(content)
	if o == nil || s == nil {
		return LFSPointer{}, false
	}
	size, err := strconv.ParseInt(string(s[1]), 10, 64)
	if err != nil {
		return LFSPointer{}, false
	}
	return LFSPointer{Oid: string(o[1]), Size: size}, true
}

// Pointer renders the pointer file for an object.
func (p LFSPointer) Pointer() []byte {
	return []byte(string(lfsVersion) + "oid sha256:" + p.Oid + "\nsize " + strconv.FormatInt(p.Size, 10) + "\n")
}

func (r *Repo) lfsPath(oid string) string {
	return filepath.Join(r.dir, "lfs", "objects", oid[:2], oid[2:4], oid)
}

// StoreLFS keeps a large-file object in the repository's object store (the
// layout git-lfs uses on a server), keyed by its SHA-256.
func (r *Repo) StoreLFS(content []byte) (LFSPointer, error) {
	sum := sha256.Sum256(content)
	p := LFSPointer{Oid: hex.EncodeToString(sum[:]), Size: int64(len(content))}
	dst := r.lfsPath(p.Oid)
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return p, err
	}
	tmp, err := os.CreateTemp(filepath.Dir(dst), "tmp-")
	if err != nil {
		return p, err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(content); err != nil {
		tmp.Close()
		return p, err
	}
	if err := tmp.Close(); err != nil {
		return p, err
	}
	return p, os.Rename(tmp.Name(), dst)
}

// LFSObject returns a stored large-file object, ErrNotFound when the project does not hold it.
func (r *Repo) LFSObject(p LFSPointer) ([]byte, error) {
	if len(p.Oid) != 64 {
		return nil, ErrNotFound
	}
	b, err := os.ReadFile(r.lfsPath(p.Oid))
	if errors.Is(err, os.ErrNotExist) || err == nil && int64(len(b)) != p.Size {
		return nil, ErrNotFound
	}
	return b, err
}
