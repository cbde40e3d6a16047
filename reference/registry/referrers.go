package registry

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"sort"

	"github.com/distribution/distribution/v3"
	"github.com/distribution/distribution/v3/registry/api/errcode"
	"github.com/distribution/distribution/v3/registry/auth"
	"github.com/distribution/reference"
	"github.com/opencontainers/go-digest"
)

// The OCI distribution spec's referrers API, which distribution v3.1.2 lacks:
// GET /v2/<name>/referrers/<digest> answers an image index of the manifests
// whose `subject` is that digest, and a manifest pushed with a subject gets
// the OCI-Subject header. Referrers are found by reading the repository's
// manifests, so the cost grows with their number; a registry that serves
// CI-sized repositories does not need an index for it.

// referrersRe matches GET /v2/<name>/referrers/<digest>.
var referrersRe = regexp.MustCompile(`^/v2/(` + reference.NameRegexp.String() + `)/referrers/([^/]+)$`)

// maxManifestBytes is distribution's own limit on a manifest body.
const maxManifestBytes = 4 << 20

const indexMediaType = "application/vnd.oci.image.index.v1+json"

// referrerJSON is what the referrers index says of one manifest, and what
// the registry reads of a manifest to know it.
type referrerJSON struct {
	MediaType    string            `json:"mediaType"`
	Digest       digest.Digest     `json:"digest"`
	Size         int64             `json:"size"`
	ArtifactType string            `json:"artifactType,omitempty"`
	Annotations  map[string]string `json:"annotations,omitempty"`
}

type subjectManifest struct {
	MediaType    string            `json:"mediaType"`
	ArtifactType string            `json:"artifactType"`
	Config       *referrerJSON     `json:"config"`
	Subject      *referrerJSON     `json:"subject"`
	Annotations  map[string]string `json:"annotations"`
}

// manifestSubject reads the body of a manifest PUT for its subject, and puts
// the body back for distribution to read.
func manifestSubject(req *http.Request) string {
	b, err := io.ReadAll(io.LimitReader(req.Body, maxManifestBytes+1))
	req.Body.Close()
	req.Body = io.NopCloser(bytes.NewReader(b))
	var m subjectManifest
	if err != nil || json.Unmarshal(b, &m) != nil || m.Subject == nil {
		return ""
	}
	return m.Subject.Digest.String()
}

// serveReferrers implements GET /v2/<name>/referrers/<digest>, for a bearer
// holding pull on the repository; ?artifactType= filters the index and says
// so in OCI-Filters-Applied.
func (r *Registry) serveReferrers(w http.ResponseWriter, req *http.Request, image, subject string) {
	w.Header().Set("Docker-Distribution-API-Version", "registry/2.0")
	if req.Method != http.MethodGet && req.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		serveError(w, errcode.ErrorCodeUnsupported.WithMessage("The operation is unsupported.").WithDetail(nil), http.StatusMethodNotAllowed)
		return
	}
	access := auth.Access{Resource: auth.Resource{Type: "repository", Name: image}, Action: "pull"}
	if _, err := r.access.Authorized(req, access); err != nil {
		if ch, ok := err.(auth.Challenge); ok {
			ch.SetHeaders(req, w)
		}
		serveError(w, errcode.ErrorCodeUnauthorized.WithDetail([]auth.Access{access}), 0)
		return
	}
	want, err := digest.Parse(subject)
	if err != nil {
		serveError(w, errcode.ErrorCodeDigestInvalid.WithDetail(subject), 0)
		return
	}
	artifactType := req.URL.Query().Get("artifactType")
	refs, err := r.referrers(req, image, want, artifactType)
	if err != nil {
		serveError(w, errcode.ErrorCodeUnknown.WithDetail(err.Error()), 0)
		return
	}
	if artifactType != "" {
		w.Header().Set("OCI-Filters-Applied", "artifactType")
	}
	body, _ := json.Marshal(map[string]any{"schemaVersion": 2, "mediaType": indexMediaType, "manifests": refs})
	w.Header().Set("Content-Type", indexMediaType)
	w.WriteHeader(http.StatusOK)
	if req.Method == http.MethodGet {
		w.Write(body)
	}
}

// referrers lists the manifests of image whose subject is want, by digest;
// an image never pushed has none.
func (r *Registry) referrers(req *http.Request, image string, want digest.Digest, artifactType string) ([]referrerJSON, error) {
	ctx := req.Context()
	out := []referrerJSON{}
	repo, err := r.repository(ctx, image)
	if err != nil {
		return out, nil
	}
	ms, err := repo.Manifests(ctx)
	if err != nil {
		return nil, err
	}
	enum, ok := ms.(distribution.ManifestEnumerator)
	if !ok {
		return out, nil
	}
	err = enum.Enumerate(ctx, func(dgst digest.Digest) error {
		m, err := ms.Get(ctx, dgst)
		if err != nil {
			return nil // removed meanwhile
		}
		mediaType, payload, err := m.Payload()
		if err != nil {
			return nil
		}
		var sm subjectManifest
		if json.Unmarshal(payload, &sm) != nil || sm.Subject == nil || sm.Subject.Digest != want {
			return nil
		}
		ref := referrerJSON{MediaType: mediaType, Digest: dgst, Size: int64(len(payload)), ArtifactType: sm.ArtifactType, Annotations: sm.Annotations}
		if ref.ArtifactType == "" && sm.Config != nil {
			ref.ArtifactType = sm.Config.MediaType // the spec's rule for image manifests without one
		}
		if artifactType == "" || ref.ArtifactType == artifactType {
			out = append(out, ref)
		}
		return nil
	})
	if notFound(err) == ErrNotFound {
		err = nil
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Digest < out[j].Digest })
	return out, err
}
