package reference

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/v4cert/v4cert/reference/api"
	"github.com/v4cert/v4cert/reference/store"
)

// Named snapshots (POST /-/snapshots/NAME, POST /-/snapshots/NAME/restore),
// as LocalStack saves and loads its state: a test suite prepares a world
// once, saves it, and returns to it between tests. A snapshot holds the
// whole world: the store's records, every project's repository and the
// registry host's content. With --data-dir they live under
// DATA_DIR/snapshots and outlive the process; otherwise in a temporary
// directory Close removes.
//
// Saving and restoring take the gate alone, as POST /-/reset does: requests
// in flight finish first, new ones wait. A restore begins as a reset does,
// with RemoveAll, which waits for every background removal of a deleted
// project's repository (git.Manager.awaitRemoval) before it moves the
// repositories aside, so no removal still under way can reach a repository
// the restore puts back at the same path.

// SnapshotInfo describes a saved snapshot.
type SnapshotInfo struct {
	Name      string    `json:"name"`
	CreatedAt time.Time `json:"created_at"`
	Projects  int       `json:"projects"`
	Bytes     int64     `json:"size_bytes"`
}

// snapshotName keeps names usable as directory names and URL segments.
var snapshotName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

const (
	snapshotWorld = "world.json"
	snapshotMeta  = "snapshot.json"
	snapshotRepos = "repositories"
	snapshotReg   = "registry"
)

// ErrNoSnapshot is a restore or deletion of a name never saved.
var ErrNoSnapshot = errors.New("no such snapshot")

// snapshotRoot is where named snapshots live, made on first use.
func (i *Instance) snapshotRoot() (string, error) {
	if i.cfg.DataDir != "" {
		dir := filepath.Join(i.cfg.DataDir, "snapshots")
		return dir, os.MkdirAll(dir, 0o755)
	}
	i.namedMu.Lock()
	defer i.namedMu.Unlock()
	if i.namedDir == "" {
		dir, err := os.MkdirTemp("", "v4cert-snapshots-")
		if err != nil {
			return "", err
		}
		i.namedDir = dir
	}
	return i.namedDir, nil
}

// SaveSnapshot saves the world as name, replacing a snapshot of that name.
func (i *Instance) SaveSnapshot(ctx context.Context, name string) (SnapshotInfo, error) {
	if !snapshotName.MatchString(name) {
		return SnapshotInfo{}, api.InvalidParam("name")
	}
	root, err := i.snapshotRoot()
	if err != nil {
		return SnapshotInfo{}, err
	}
	i.gate.Lock()
	defer i.gate.Unlock()
	// Written aside, then renamed into place: a crash or a failure leaves
	// the previous snapshot of the name whole.
	tmp, err := os.MkdirTemp(root, ".saving-")
	if err != nil {
		return SnapshotInfo{}, err
	}
	defer os.RemoveAll(tmp)
	records, err := i.Server.Store().Export()
	if err != nil {
		return SnapshotInfo{}, err
	}
	world, err := json.Marshal(records)
	if err != nil {
		return SnapshotInfo{}, err
	}
	if err := os.WriteFile(filepath.Join(tmp, snapshotWorld), world, 0o644); err != nil {
		return SnapshotInfo{}, err
	}
	var ids []int
	i.Server.Store().Read(func(d *store.Data) error {
		for _, p := range d.Projects() {
			ids = append(ids, p.ID)
		}
		return nil
	})
	saved := 0
	for _, id := range ids {
		to := filepath.Join(tmp, snapshotRepos, fmt.Sprintf("project-%d.git", id))
		if err := i.Server.Repositories().Snapshot(id, to); err != nil {
			if _, gerr := i.Server.Repositories().Get(id); gerr != nil {
				continue // no repository (one being removed): the restore provisions it
			}
			return SnapshotInfo{}, fmt.Errorf("repository of project %d: %w", id, err)
		}
		saved++
	}
	if err := i.Registry.SaveContent(ctx, filepath.Join(tmp, snapshotReg)); err != nil {
		return SnapshotInfo{}, fmt.Errorf("registry: %w", err)
	}
	info := SnapshotInfo{Name: name, CreatedAt: time.Now().UTC().Truncate(time.Millisecond), Projects: saved, Bytes: dirSize(tmp)}
	meta, _ := json.Marshal(info)
	if err := os.WriteFile(filepath.Join(tmp, snapshotMeta), meta, 0o644); err != nil {
		return SnapshotInfo{}, err
	}
	dst := filepath.Join(root, name)
	old := filepath.Join(root, ".replaced-"+name+"-"+strconv.FormatInt(time.Now().UnixNano(), 36))
	if err := os.Rename(dst, old); err == nil {
		defer os.RemoveAll(old)
	}
	if err := os.Rename(tmp, dst); err != nil {
		return SnapshotInfo{}, err
	}
	return info, nil
}

// RestoreSnapshot makes the world what name saved.
func (i *Instance) RestoreSnapshot(ctx context.Context, name string) error {
	if !snapshotName.MatchString(name) {
		return api.InvalidParam("name")
	}
	root, err := i.snapshotRoot()
	if err != nil {
		return err
	}
	dir := filepath.Join(root, name)
	data, err := os.ReadFile(filepath.Join(dir, snapshotWorld))
	if errors.Is(err, os.ErrNotExist) {
		return ErrNoSnapshot
	} else if err != nil {
		return err
	}
	var records []store.Change
	if err := json.Unmarshal(data, &records); err != nil {
		return fmt.Errorf("snapshot %s: %w", name, err)
	}
	i.gate.Lock()
	defer i.gate.Unlock()
	// As Reset: every repository goes first, once the removals of deleted
	// projects still under way are done.
	if err := i.Server.Repositories().RemoveAll(); err != nil {
		return err
	}
	if err := i.Server.Store().Import(records); err != nil {
		return err
	}
	entries, err := os.ReadDir(filepath.Join(dir, snapshotRepos))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	for _, e := range entries {
		idText, ok := strings.CutPrefix(strings.TrimSuffix(e.Name(), ".git"), "project-")
		id, err := strconv.Atoi(idText)
		if !ok || err != nil {
			continue
		}
		if _, err := i.Server.Repositories().Restore(id, filepath.Join(dir, snapshotRepos, e.Name())); err != nil {
			return fmt.Errorf("repository of project %d: %w", id, err)
		}
	}
	if err := i.Registry.LoadContent(ctx, filepath.Join(dir, snapshotReg)); err != nil {
		return fmt.Errorf("registry: %w", err)
	}
	// A project the snapshot holds no repository of gets one, as at start.
	return i.provisionRepositories(ctx)
}

// Snapshots lists the saved snapshots by name.
func (i *Instance) Snapshots() ([]SnapshotInfo, error) {
	root, err := i.snapshotRoot()
	if err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, err
	}
	out := []SnapshotInfo{}
	for _, e := range entries {
		if !e.IsDir() || !snapshotName.MatchString(e.Name()) {
			continue
		}
		var info SnapshotInfo
		data, err := os.ReadFile(filepath.Join(root, e.Name(), snapshotMeta))
		if err != nil || json.Unmarshal(data, &info) != nil {
			continue // not a snapshot this v4cert wrote
		}
		out = append(out, info)
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Name < out[b].Name })
	return out, nil
}

// DeleteSnapshot removes a saved snapshot.
func (i *Instance) DeleteSnapshot(name string) error {
	if !snapshotName.MatchString(name) {
		return api.InvalidParam("name")
	}
	root, err := i.snapshotRoot()
	if err != nil {
		return err
	}
	dir := filepath.Join(root, name)
	if _, err := os.Stat(filepath.Join(dir, snapshotMeta)); err != nil {
		return ErrNoSnapshot
	}
	// Moved aside at once, so a save of the same name may follow at once.
	trash := filepath.Join(root, ".deleted-"+name+"-"+strconv.FormatInt(time.Now().UnixNano(), 36))
	if err := os.Rename(dir, trash); err != nil {
		return err
	}
	return os.RemoveAll(trash)
}

func dirSize(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, e os.DirEntry, err error) error {
		if err == nil && !e.IsDir() {
			if fi, err := e.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

// snapshotsHook implements the snapshot hooks (administrator):
//
//	GET    /-/snapshots               200 the saved snapshots
//	POST   /-/snapshots/NAME          201 the world saved as NAME (replacing one of that name)
//	POST   /-/snapshots/NAME/restore  204 the world back to NAME
//	DELETE /-/snapshots/NAME          204 NAME gone
func (h *Handler) snapshotsHook(w http.ResponseWriter, r *http.Request, rest string) {
	name, action, _ := strings.Cut(rest, "/")
	allow := "GET, HEAD"
	switch {
	case name != "" && action == "":
		allow = "POST, DELETE"
	case name != "" && action == "restore":
		allow = "POST"
	case name != "":
		api.WriteError(w, api.RouteNotFound())
		return
	}
	if !allows(allow, r.Method) {
		notAllowed(w, allow)
		return
	}
	if _, err := h.inst.Server.Administrator(withoutBody(r)); err != nil {
		api.WriteError(w, err)
		return
	}
	var err error
	switch {
	case name == "":
		var list []SnapshotInfo
		if list, err = h.inst.Snapshots(); err == nil {
			api.WriteJSON(w, http.StatusOK, list)
			return
		}
	case action == "restore":
		if err = h.inst.RestoreSnapshot(r.Context(), name); err == nil {
			w.WriteHeader(http.StatusNoContent)
			return
		}
	case r.Method == http.MethodPost:
		var info SnapshotInfo
		if info, err = h.inst.SaveSnapshot(r.Context(), name); err == nil {
			api.WriteJSON(w, http.StatusCreated, info)
			return
		}
	default:
		if err = h.inst.DeleteSnapshot(name); err == nil {
			w.WriteHeader(http.StatusNoContent)
			return
		}
	}
	var apiErr *api.Error
	switch {
	case errors.Is(err, ErrNoSnapshot):
		api.WriteError(w, api.NotFound("Snapshot"))
	case errors.As(err, &apiErr):
		api.WriteError(w, err)
	default:
		if h.inst.cfg.Log != nil {
			h.inst.cfg.Log.Printf("snapshot %s: %v", name, err)
		}
		api.WriteJSON(w, http.StatusInternalServerError, map[string]string{"message": "500 Internal Server Error - snapshot: " + err.Error()})
	}
}
