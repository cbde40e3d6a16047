package registry

import (
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/distribution/distribution/v3/registry/api/errcode"
	"github.com/distribution/distribution/v3/registry/auth/token"
	"github.com/distribution/reference"
	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/v4cert/v4cert/reference/store"
)

// TokenJSON is the answer of GET /jwt/auth (schema registry_token).
type TokenJSON struct {
	Token string `json:"token"`
}

// serveToken implements GET {auth_url}/jwt/auth (rules registry.native.auth.*).
// Basic credentials are a user's name with a personal access token or the
// password, or gitlab-ci-token with a CI job token; none is an anonymous
// caller. Like the platform it grants, of each asked scope, the actions the
// caller holds, and the registry refuses what was not granted.
func (r *Registry) serveToken(w http.ResponseWriter, req *http.Request) {
	if req.Method != http.MethodGet {
		w.Header().Set("Allow", http.MethodGet)
		serveError(w, errcode.ErrorCodeUnsupported.WithMessage("405 Method Not Allowed").WithDetail(nil), http.StatusMethodNotAllowed)
		return
	}
	q := req.URL.Query()
	if q.Get("service") != Service {
		serveError(w, errcode.ErrorCodeUnavailable.WithMessage("unknown service: the token issuer serves service="+Service).WithDetail(nil), http.StatusNotFound)
		return
	}
	user, secret, given := req.BasicAuth()
	var caller store.BasicCaller
	var access []*token.ResourceActions
	denied := false
	r.store.Read(func(d *store.Data) error {
		if given {
			var ok bool
			if caller, ok = d.BasicCaller(user, secret); !ok {
				denied = true
				return nil
			}
		}
		for _, s := range q["scope"] {
			// One parameter may carry several scopes separated by spaces.
			for _, one := range strings.Fields(s) {
				if ra := grant(d, caller, one); ra != nil {
					access = append(access, ra)
				}
			}
		}
		return nil
	})
	if denied {
		w.Header().Set("WWW-Authenticate", `Basic realm="container registry"`)
		serveError(w, errcode.ErrorCodeUnauthorized.WithMessage("HTTP Basic: Access denied. The username or the personal access token, job token or password is wrong.").WithDetail(nil), 0)
		return
	}
	subject := ""
	if caller.User != nil {
		subject = caller.User.Username
	}
	raw, err := r.sign(subject, access)
	if err != nil {
		serveError(w, errcode.ErrorCodeUnknown.WithDetail(err.Error()), 0)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	json.NewEncoder(w).Encode(TokenJSON{Token: raw})
}

// grant returns what caller may do of one scope, repository:<image>:<actions>
// or registry:catalog:* (administrators only), or nil for nothing. Personal
// access tokens need read_registry to pull and write_registry to push or
// delete (api covers both); passwords and job tokens are bound by the role alone.
func grant(d *store.Data, caller store.BasicCaller, scope string) *token.ResourceActions {
	typ, rest, ok := strings.Cut(scope, ":")
	if !ok {
		return nil
	}
	i := strings.LastIndexByte(rest, ':')
	if i < 0 {
		return nil
	}
	name, actions := rest[:i], strings.Split(rest[i+1:], ",")
	u := caller.User
	if typ == "registry" {
		if name == "catalog" && slices.Contains(actions, "*") && u != nil && u.Admin &&
			caller.JobToken == nil && caller.Allows("api", "read_registry") {
			return &token.ResourceActions{Type: "registry", Name: "catalog", Actions: []string{"*"}}
		}
		return nil
	}
	if typ != "repository" {
		return nil
	}
	if _, err := reference.WithName(name); err != nil {
		return nil
	}
	p, _ := d.ImageProject(name)
	if p == nil {
		return nil
	}
	jobProject := 0
	if caller.JobToken != nil {
		jobProject = caller.JobToken.ProjectID
	}
	out := &token.ResourceActions{Type: "repository", Name: name}
	for _, a := range actions {
		need, scopes := store.RegistryRead, []string{"api", "read_registry", "write_registry"}
		switch a {
		case "pull":
		case "push":
			need, scopes = store.RegistryPush, []string{"api", "write_registry"}
		case "delete":
			need, scopes = store.RegistryDelete, []string{"api", "write_registry"}
		case "*":
			need, scopes = store.RegistryAdmin, []string{"api"}
		default:
			continue
		}
		if slices.Contains(out.Actions, a) || !caller.Allows(scopes...) {
			continue
		}
		if d.RegistryAccess(u, jobProject, p, need) == nil {
			out.Actions = append(out.Actions, a)
		}
	}
	if len(out.Actions) == 0 {
		return nil
	}
	return out
}

// sign issues a JWT the registry's token access controller accepts: ES256,
// the key named by its JWK thumbprint (the certificate bundle's key), issuer
// and audience as configured. Times are real time, since the controller
// checks them against the machine's clock whatever the store's clock says.
func (r *Registry) sign(subject string, access []*token.ResourceActions) (string, error) {
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: r.key},
		(&jose.SignerOptions{}).WithType("JWT").WithHeader("kid", r.kid))
	if err != nil {
		return "", err
	}
	now := time.Now()
	if access == nil {
		access = []*token.ResourceActions{}
	}
	claims := token.ClaimSet{
		Issuer: Issuer, Subject: subject, Audience: token.AudienceList{Service},
		Expiration: now.Add(TokenLife).Unix(), NotBefore: now.Unix(), IssuedAt: now.Unix(),
		JWTID: strconv.FormatInt(now.UnixNano(), 36) + "-" + strconv.FormatUint(r.ids.Add(1), 36), Access: access,
	}
	return jwt.Signed(signer).Claims(claims).Serialize()
}
