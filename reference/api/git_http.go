package api

import (
	"net/http"
	"regexp"

	"github.com/v4cert/v4cert/reference/access"
	"github.com/v4cert/v4cert/reference/store"
)

// Git over HTTP: `git clone http://USER:TOKEN@HOST/group/project.git`, fetch
// and push, served by git's own smart-HTTP backend (git http-backend) behind
// the platform's credentials and permissions. Beyond the spec, as the
// platform serves it for the repositories the API reads and writes.

// gitHTTPRe matches the smart HTTP paths of a project: /<full path>.git/ then
// info/refs, git-upload-pack or git-receive-pack.
var gitHTTPRe = regexp.MustCompile(`^/(.+)\.git/(info/refs|git-upload-pack|git-receive-pack)$`)

// gitRealm is the basic-auth realm git shows when it asks for credentials.
const gitRealm = `Basic realm="v4cert git"`

// serveGitHTTP serves one smart HTTP request for project fullPath: reading
// (clone, fetch) needs what reading code needs — anyone who sees a public or
// internal project, Reporter in a private one; pushing needs Developer on a
// project that is not archived. Credentials are HTTP basic, as
// store.GitCaller reads them: a personal access token (read_repository or
// write_repository, or api) under any user name (`oauth2` included), a
// user's name with the password, or gitlab-ci-token with a running CI job's
// token (reads of its own project only, never a push). After a push, what
// moved goes to RefsMoved.
func (s *Server) serveGitHTTP(w http.ResponseWriter, r *http.Request, fullPath, path string) {
	push := path == "git-receive-pack" || (path == "info/refs" && r.URL.Query().Get("service") == "git-receive-pack")
	method := http.MethodPost
	if path == "info/refs" {
		method = http.MethodGet
	}
	switch {
	case r.Method != method:
		writeError(w, methodNotAllowed(method))
		return
	case path == "info/refs" && !push && r.URL.Query().Get("service") != "git-upload-pack":
		// The dumb protocol reads files of the repository; the platform serves smart HTTP only.
		writeError(w, forbiddenMsg("Git over HTTP needs a smart client (service=git-upload-pack or git-receive-pack)"))
		return
	}
	var project store.Project
	var remoteUser string
	challenge := false
	err := s.store.Read(func(d *store.Data) error {
		var caller store.BasicCaller
		if user, secret, given := r.BasicAuth(); given {
			var ok bool
			if caller, ok = d.GitCaller(user, secret); !ok {
				challenge = true
				return unauthorized()
			}
			remoteUser = caller.User.Username
		}
		p := d.ProjectByPath(fullPath)
		jobProject := 0
		if caller.JobToken != nil {
			jobProject = caller.JobToken.ProjectID
		}
		if p == nil || !d.CanSeeProject(caller.User, p) || (jobProject != 0 && jobProject != p.ID) {
			if caller.User == nil {
				challenge = true // git asks for credentials, then tries again
				return unauthorized()
			}
			return notFound("Project")
		}
		role := access.None
		switch {
		case caller.User == nil:
		case caller.User.Admin:
			role = access.Admin
		default:
			role = d.ProjectAccess(caller.User, p)
		}
		switch {
		case push && caller.User == nil:
			challenge = true
			return unauthorized()
		case push && (caller.JobToken != nil || !caller.Allows("api", "write_repository")):
			return forbiddenMsg("You are not allowed to push code to this project.")
		case push && (role < writeCodeLevel || p.Archived):
			return forbiddenMsg("You are not allowed to push code to this project.")
		case !push && !caller.Allows("api", "read_repository", "write_repository"):
			return forbiddenMsg("You are not allowed to download code from this project.")
		case !push && p.Visibility == "private" && role < readCodeLevel:
			if caller.User == nil {
				challenge = true
				return unauthorized()
			}
			return forbiddenMsg("You are not allowed to download code from this project.")
		}
		project = *p
		return nil
	})
	if err != nil {
		if challenge {
			w.Header().Set("WWW-Authenticate", gitRealm)
		}
		writeError(w, asError(err, "Project"))
		return
	}
	// The repository workflow serves the exchange and runs the hooks of
	// every ref a push moved; nothing was written when it fails.
	if err := s.repos.ServeSmartHTTP(w, r, project.ID, path, remoteUser); err != nil {
		writeError(w, asError(workflowError(err), "Repository"))
	}
}

// gitHTTPPath splits a request path into a project's full path and a smart
// HTTP service path, or reports that it is none.
func gitHTTPPath(path string) (fullPath, service string, ok bool) {
	m := gitHTTPRe.FindStringSubmatch(path)
	if m == nil {
		return "", "", false
	}
	return m[1], m[2], true
}
