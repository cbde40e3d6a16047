package registry

import (
	"context"
	"encoding/json"
	"errors"
	"path"
	"sort"
	"time"

	"github.com/distribution/distribution/v3"
	storagedriver "github.com/distribution/distribution/v3/registry/storage/driver"
	"github.com/distribution/reference"
	"github.com/opencontainers/go-digest"
)

// The project API reads repositories, tags, digests, sizes and creation
// times from the registry itself through these, so what a registry client
// pushed is what the API shows, and what the API deletes a client no longer
// pulls.

// ErrNotFound is an unknown image name or tag.
var ErrNotFound = errors.New("registry: not found")

// Tag is one tag of a repository as the project API shows it.
type Tag struct {
	Name   string
	Digest string // of the manifest the tag names
	// ConfigDigest is the image configuration's digest (the tag's
	// revision); an index names no configuration and gives its own digest.
	ConfigDigest string
	// CreatedAt is the image's creation time from its configuration
	// (`created`); zero when the image does not say.
	CreatedAt time.Time
	// TotalSize is the bytes of the image's blobs: configuration and layers
	// (for an index, those of every image it lists, each blob once).
	TotalSize int64
}

func (r *Registry) repository(ctx context.Context, image string) (distribution.Repository, error) {
	named, err := reference.WithName(image)
	if err != nil {
		return nil, ErrNotFound
	}
	return r.ns.Repository(ctx, named)
}

// notFound folds the storage's ways of saying "nothing there" into ErrNotFound.
func notFound(err error) error {
	var unknownRepo distribution.ErrRepositoryUnknown
	var unknownTag distribution.ErrTagUnknown
	var unknownManifest distribution.ErrManifestUnknownRevision
	var noPath storagedriver.PathNotFoundError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &unknownRepo), errors.As(err, &unknownTag), errors.As(err, &unknownManifest),
		errors.As(err, &noPath), errors.Is(err, distribution.ErrBlobUnknown):
		return ErrNotFound
	}
	return err
}

// TagNames lists a repository's tags by name; an image never pushed has none.
func (r *Registry) TagNames(ctx context.Context, image string) ([]string, error) {
	repo, err := r.repository(ctx, image)
	if err != nil {
		return nil, nil
	}
	names, err := repo.Tags(ctx).All(ctx)
	if err = notFound(err); err == ErrNotFound {
		return nil, nil
	}
	sort.Strings(names)
	return names, err
}

// manifestJSON is what the registry reads of a manifest: image manifests
// (OCI and Docker schema 2) name a config and layers, indexes and manifest
// lists name manifests.
type manifestJSON struct {
	Config    *descriptorJSON  `json:"config"`
	Layers    []descriptorJSON `json:"layers"`
	Manifests []descriptorJSON `json:"manifests"`
}

type descriptorJSON struct {
	Digest digest.Digest `json:"digest"`
	Size   int64         `json:"size"`
}

func (r *Registry) manifest(ctx context.Context, repo distribution.Repository, dgst digest.Digest) (*manifestJSON, error) {
	ms, err := repo.Manifests(ctx)
	if err != nil {
		return nil, err
	}
	m, err := ms.Get(ctx, dgst)
	if err != nil {
		return nil, notFound(err)
	}
	_, payload, err := m.Payload()
	if err != nil {
		return nil, err
	}
	var out manifestJSON
	if err := json.Unmarshal(payload, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Tag reads one tag: its manifest, configuration and blob sizes.
func (r *Registry) Tag(ctx context.Context, image, name string) (Tag, error) {
	repo, err := r.repository(ctx, image)
	if err != nil {
		return Tag{}, err
	}
	desc, err := repo.Tags(ctx).Get(ctx, name)
	if err != nil {
		return Tag{}, notFound(err)
	}
	t := Tag{Name: name, Digest: desc.Digest.String(), ConfigDigest: desc.Digest.String()}
	blobs := map[digest.Digest]int64{}
	if err := r.walkImage(ctx, repo, desc.Digest, 0, &t, blobs); err != nil {
		return Tag{}, err
	}
	for _, n := range blobs {
		t.TotalSize += n
	}
	return t, nil
}

// walkImage gathers the blobs of the image at dgst into blobs, and the
// configuration's digest and the newest creation time into t; an index is
// walked through the images it lists (two levels at most, as indexes of
// indexes go no deeper in practice).
func (r *Registry) walkImage(ctx context.Context, repo distribution.Repository, dgst digest.Digest, depth int, t *Tag, blobs map[digest.Digest]int64) error {
	m, err := r.manifest(ctx, repo, dgst)
	if err != nil {
		return err
	}
	if m.Config != nil {
		blobs[m.Config.Digest] = m.Config.Size
		for _, l := range m.Layers {
			blobs[l.Digest] = l.Size
		}
		if depth == 0 {
			t.ConfigDigest = m.Config.Digest.String()
		}
		if created := r.created(ctx, repo, m.Config.Digest); created.After(t.CreatedAt) {
			t.CreatedAt = created
		}
		return nil
	}
	if depth >= 2 {
		return nil
	}
	for _, child := range m.Manifests {
		// A child of a sparse index may be missing; it adds nothing.
		if err := r.walkImage(ctx, repo, child.Digest, depth+1, t, blobs); err != nil && !errors.Is(err, ErrNotFound) {
			return err
		}
	}
	return nil
}

// created reads `created` of an image configuration; zero when it is not
// JSON or does not say.
func (r *Registry) created(ctx context.Context, repo distribution.Repository, config digest.Digest) time.Time {
	b, err := repo.Blobs(ctx).Get(ctx, config)
	if err != nil {
		return time.Time{}
	}
	var c struct {
		Created time.Time `json:"created"`
	}
	if json.Unmarshal(b, &c) != nil {
		return time.Time{}
	}
	return c.Created
}

// Size is the deduplicated size of all images of a repository: every
// distinct blob its tags reach, counted once.
func (r *Registry) Size(ctx context.Context, image string) (int64, error) {
	names, err := r.TagNames(ctx, image)
	if err != nil {
		return 0, err
	}
	repo, err := r.repository(ctx, image)
	if err != nil {
		return 0, nil
	}
	blobs := map[digest.Digest]int64{}
	for _, n := range names {
		desc, err := repo.Tags(ctx).Get(ctx, n)
		if err != nil {
			continue // deleted meanwhile
		}
		var t Tag
		if err := r.walkImage(ctx, repo, desc.Digest, 0, &t, blobs); err != nil && !errors.Is(err, ErrNotFound) {
			return 0, err
		}
	}
	var total int64
	for _, n := range blobs {
		total += n
	}
	return total, nil
}

// Untag removes a tag; the manifest and its blobs stay (States: registry tag).
func (r *Registry) Untag(ctx context.Context, image, name string) error {
	repo, err := r.repository(ctx, image)
	if err != nil {
		return err
	}
	return notFound(repo.Tags(ctx).Untag(ctx, name))
}

// RemoveRepository removes what the registry holds of one repository: its
// manifests, tags, layer links and uploads. Repositories nested under its
// name (a project's root repository holds the project's others below it in
// the storage layout) stay, so this is not distribution's Remove.
func (r *Registry) RemoveRepository(ctx context.Context, image string) error {
	if _, err := reference.WithName(image); err != nil {
		return ErrNotFound
	}
	for _, part := range []string{"_manifests", "_layers", "_uploads"} {
		err := r.driver.Delete(ctx, path.Join(repositoriesRoot, image, part))
		var nf storagedriver.PathNotFoundError
		if err != nil && !errors.As(err, &nf) {
			return err
		}
	}
	return nil
}
