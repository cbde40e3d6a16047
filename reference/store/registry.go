package store

import (
	"encoding/json"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// RegistryRepository is one container image repository of a project; it comes
// to exist when the first manifest is pushed to its name.
type RegistryRepository struct {
	ID        int
	ProjectID int
	Name      string // empty for the project's root repository
	CreatedAt time.Time
	// Status is empty (null) or delete_scheduled (States: registry repository).
	Status string
	Tags   map[string]*RegistryTag
	// BulkDeleteAt is when the last bulk tag delete ran; zero when never (Limits).
	BulkDeleteAt time.Time
}

// RegistryTag names one manifest of a repository.
type RegistryTag struct {
	Name         string
	Digest       string // sha256:<hex> of the manifest
	ConfigDigest string
	// CreatedAt is the image's creation time from its config, not the push time
	// (bulk delete rule 2); the push time when the config names none.
	CreatedAt time.Time
	TotalSize int64
	Manifest  []byte
}

// RegistryToken is a bearer of the registry host, issued by the token issuer
// for one scope (Authentication 4). UserID 0 is an anonymous pull.
type RegistryToken struct {
	Secret  string
	UserID  int
	Image   string   // repository:<Image>:<actions>; empty for the catalog
	Actions []string // granted actions: pull, push, delete, or * for the catalog
	Catalog bool
	Expires time.Time
}

// RegistryTokenLife is how long a registry bearer lives ("short-lived").
const RegistryTokenLife = 5 * time.Minute

// BulkDeleteInterval is how often bulk tag deletion may run per repository (Limits).
const BulkDeleteInterval = time.Hour

// ErrBulkDeleteTooSoon is a second bulk delete of one repository within the hour.
var ErrBulkDeleteTooSoon = &BulkDeleteTooSoon{}

// BulkDeleteTooSoon is the error of ErrBulkDeleteTooSoon.
type BulkDeleteTooSoon struct{}

func (*BulkDeleteTooSoon) Error() string {
	return "This request has already been made. You can run this at most once an hour for a given container repository"
}

func (d *Data) registryInit() {
	if d.registryRepos == nil {
		d.registryRepos = map[int]*RegistryRepository{}
		d.registryBlobs = map[string][]byte{}
		d.registryUploads = map[string]string{}
		d.registryTokens = map[string]*RegistryToken{}
	}
}

// RegistryRepositories lists a project's repositories by ascending id.
func (d *Data) RegistryRepositories(projectID int) []*RegistryRepository {
	var out []*RegistryRepository
	for _, r := range d.registryRepos {
		if r.ProjectID == projectID {
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// RegistryRepository returns the repository with that id, or nil.
func (d *Data) RegistryRepository(id int) *RegistryRepository { return d.registryRepos[id] }

// RegistryRepositoryByName finds a project's repository by its name.
func (d *Data) RegistryRepositoryByName(projectID int, name string) *RegistryRepository {
	for _, r := range d.registryRepos {
		if r.ProjectID == projectID && r.Name == name {
			return r
		}
	}
	return nil
}

// RegistryRepositoryPath is the image path: the project's full path, then the name.
func (d *Data) RegistryRepositoryPath(r *RegistryRepository) string {
	p := d.Project(r.ProjectID)
	if p == nil {
		return r.Name
	}
	if r.Name == "" {
		return d.ProjectFullPath(p)
	}
	return d.ProjectFullPath(p) + "/" + r.Name
}

// ImageProject splits an image path into the project it belongs to and the
// repository name inside it; the longest project path wins.
func (d *Data) ImageProject(image string) (*Project, string) {
	segs := strings.Split(image, "/")
	for n := len(segs); n >= 1; n-- {
		if p := d.ProjectByPath(strings.Join(segs[:n], "/")); p != nil {
			return p, strings.Join(segs[n:], "/")
		}
	}
	return nil, ""
}

// RegistryTagsByName lists a repository's tags by ascending name.
func (r *RegistryRepository) RegistryTagsByName() []*RegistryTag {
	out := make([]*RegistryTag, 0, len(r.Tags))
	for _, t := range r.Tags {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Size is the deduplicated size of all images: every distinct blob once.
func (d *Data) RegistryRepositorySize(r *RegistryRepository) int64 {
	seen := map[string]bool{}
	var n int64
	for _, t := range r.Tags {
		for _, b := range manifestBlobs(t.Manifest) {
			if !seen[b.Digest] {
				seen[b.Digest] = true
				n += b.Size
			}
		}
	}
	return n
}

// ScheduleRegistryRepositoryDelete marks a repository delete_scheduled; the
// next read that shows it completes the removal (ReapRegistryRepositories),
// so the asynchronous delete is deterministic.
func (d *Data) ScheduleRegistryRepositoryDelete(r *RegistryRepository) {
	d.Touch(r)
	r.Status = "delete_scheduled"
}

// ReapRegistryRepositories removes the scheduled repositories among rs, once a
// read has shown them in their scheduled state.
func (d *Data) ReapRegistryRepositories(rs ...*RegistryRepository) {
	for _, r := range rs {
		if r.Status == "delete_scheduled" {
			d.Touch(r)
			delete(d.registryRepos, r.ID)
		}
	}
}

func (d *Data) dropRegistry(projectID int) {
	for id, r := range d.registryRepos {
		if r.ProjectID == projectID {
			d.Touch(r)
			delete(d.registryRepos, id)
		}
	}
}

// PutRegistryBlob stores a blob under its digest (content-addressed).
func (d *Data) PutRegistryBlob(digest string, content []byte) {
	d.registryInit()
	d.registryBlobs[digest] = slices.Clone(content)
	d.touchKey(tRegistryBlobs, digest)
}

// RegistryBlob returns a blob's content, or nil when it was never uploaded.
func (d *Data) RegistryBlob(digest string) ([]byte, bool) {
	b, ok := d.registryBlobs[digest]
	return b, ok
}

// StartRegistryUpload opens an upload session for an image and returns its id.
func (d *Data) StartRegistryUpload(image string) string {
	d.registryInit()
	id := "upload-" + strconv.Itoa(d.next("registry_upload"))
	d.registryUploads[id] = image
	d.touchKey(tRegistryUploads, id)
	return id
}

// RegistryUpload returns the image of an open upload session.
func (d *Data) RegistryUpload(id string) (string, bool) {
	img, ok := d.registryUploads[id]
	return img, ok
}

// FinishRegistryUpload closes an upload session.
func (d *Data) FinishRegistryUpload(id string) {
	d.touchKey(tRegistryUploads, id)
	delete(d.registryUploads, id)
}

// PutRegistryTag stores a manifest under a tag, creating the repository on the
// first push to its name (how repositories and tags come to exist).
func (d *Data) PutRegistryTag(p *Project, name string, t *RegistryTag) *RegistryRepository {
	d.registryInit()
	r := d.RegistryRepositoryByName(p.ID, name)
	if r == nil || r.Status != "" {
		if r != nil {
			d.Touch(r)
			delete(d.registryRepos, r.ID)
		}
		r = &RegistryRepository{ID: d.next("registry_repository"), ProjectID: p.ID, Name: name,
			CreatedAt: d.Now(), Tags: map[string]*RegistryTag{}}
		d.registryRepos[r.ID] = r
	}
	r.Tags[t.Name] = t
	d.Touch(r)
	return r
}

// DeleteRegistryTag removes a tag; its blobs stay until garbage collection.
func (d *Data) DeleteRegistryTag(r *RegistryRepository, name string) {
	d.Touch(r)
	delete(r.Tags, name)
}

// AddRegistryToken keeps an issued bearer.
func (d *Data) AddRegistryToken(t *RegistryToken) {
	d.registryInit()
	d.registryTokens[t.Secret] = t
	d.Touch(t)
}

// RegistryTokenBySecret returns a bearer that has not expired, or nil.
func (d *Data) RegistryTokenBySecret(secret string) *RegistryToken {
	t := d.registryTokens[secret]
	if t == nil || d.Now().After(t.Expires) {
		return nil
	}
	return t
}

// AllRegistryRepositories lists every repository by ascending id (the catalog).
func (d *Data) AllRegistryRepositories() []*RegistryRepository {
	out := make([]*RegistryRepository, 0, len(d.registryRepos))
	for _, r := range d.registryRepos {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// BulkDeleteTags are the criteria of a bulk tag delete; nil regexes are absent.
type BulkDeleteTags struct {
	Delete, Keep *regexp.Regexp // anchored to the whole name
	KeepN        *int
	OlderThan    *time.Duration
}

// BulkDeleteRegistryTags applies bulk delete rules 2 to 7 and returns the
// names removed. It runs at most once per hour per repository.
func (d *Data) BulkDeleteRegistryTags(r *RegistryRepository, c BulkDeleteTags) ([]string, error) {
	now := d.Now()
	if !r.BulkDeleteAt.IsZero() && now.Sub(r.BulkDeleteAt) < BulkDeleteInterval {
		return nil, ErrBulkDeleteTooSoon
	}
	d.Touch(r)
	r.BulkDeleteAt = now
	var cands []*RegistryTag
	for _, t := range r.Tags {
		if t.Name == "latest" || !c.Delete.MatchString(t.Name) || (c.Keep != nil && c.Keep.MatchString(t.Name)) {
			continue
		}
		cands = append(cands, t)
	}
	// Newest first by manifest creation time; the name breaks ties so equal
	// times give the same answer every run.
	sort.Slice(cands, func(i, j int) bool {
		if !cands[i].CreatedAt.Equal(cands[j].CreatedAt) {
			return cands[i].CreatedAt.After(cands[j].CreatedAt)
		}
		return cands[i].Name > cands[j].Name
	})
	if c.KeepN != nil {
		cands = cands[min(max(*c.KeepN, 0), len(cands)):]
	}
	var removed []string
	for _, t := range cands {
		if c.OlderThan != nil && !t.CreatedAt.Before(now.Add(-*c.OlderThan)) {
			continue
		}
		delete(r.Tags, t.Name)
		removed = append(removed, t.Name)
	}
	sort.Strings(removed)
	return removed, nil
}

// ManifestBlob is one blob a manifest references.
type ManifestBlob struct {
	Digest string `json:"digest"`
	Size   int64  `json:"size"`
}

// ImageManifest is the part of an image manifest (schema 2) the registry reads.
type ImageManifest struct {
	SchemaVersion int            `json:"schemaVersion"`
	MediaType     string         `json:"mediaType"`
	Config        ManifestBlob   `json:"config"`
	Layers        []ManifestBlob `json:"layers"`
}

// manifestBlobs lists the config and layers of a stored manifest.
func manifestBlobs(raw []byte) []ManifestBlob {
	var m ImageManifest
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	return append([]ManifestBlob{m.Config}, m.Layers...)
}
