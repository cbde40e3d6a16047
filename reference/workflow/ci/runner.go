package ci

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/v4cert/v4cert/reference/store"
	"github.com/v4cert/v4cert/reference/workflow/repository"
)

// The runner's side of a job: what POST /jobs/request hands a runner, as the
// platform builds it (lib/api/entities/ci/job_request/: response.rb, read at
// gitlabhq/gitlabhq lib/api/entities/ci/job_request/response.rb @285aff23,
// git_info.rb, job_info.rb, runner_info.rb, step.rb; and the mirror
// skratsch-solutions/gitlabhq app/presenters/ci/build_runner_presenter.rb @8a572607),
// and the git side of taking a
// job: the pipeline's persistent ref the runner fetches.

// Server is what a job payload says about the server that hands it out.
type Server struct {
	URL      string // external base, e.g. http://127.0.0.1:8080
	Version  string // the platform version GET /version answers
	Revision string
}

// ErrRunnerForbidden is a runner token that names no runner: the platform's
// authenticate_runner! answers 403.
var ErrRunnerForbidden = errors.New("runner forbidden")

// BlankSHA is the platform's before_sha of a pipeline that was not pushed
// (Gitlab::Git::SHA1_BLANK_SHA): API-created pipelines have no previous commit.
const BlankSHA = "0000000000000000000000000000000000000000"

// DefaultTimeout is a project's build_timeout unless set: one hour
// (gitlabhq/gitlabhq db/structure.sql @92de056e projects.build_timeout DEFAULT 3600).
const DefaultTimeout = 3600

// Payload is the job as the runner receives it (Entities::Ci::JobRequest::Response).
type Payload struct {
	ID            int             `json:"id"`
	Token         string          `json:"token"`
	AllowGitFetch bool            `json:"allow_git_fetch"`
	JobInfo       PayloadJobInfo  `json:"job_info"`
	GitInfo       PayloadGitInfo  `json:"git_info"`
	RunnerInfo    PayloadRunner   `json:"runner_info"`
	Variables     []Variable      `json:"variables"`
	Steps         []Step          `json:"steps"`
	Image         *PayloadImage   `json:"image"`
	Services      []PayloadImage  `json:"services"`
	Artifacts     []any           `json:"artifacts"`
	Cache         []any           `json:"cache"`
	Credentials   []any           `json:"credentials"`
	Features      PayloadFeatures `json:"features"`
	Dependencies  []any           `json:"dependencies"`
}

// PayloadJobInfo is Entities::Ci::JobRequest::JobInfo.
type PayloadJobInfo struct {
	ID                 int    `json:"id"`
	Name               string `json:"name"`
	Stage              string `json:"stage"`
	PipelineID         int    `json:"pipeline_id"`
	ProjectID          int    `json:"project_id"`
	ProjectName        string `json:"project_name"`
	ProjectFullPath    string `json:"project_full_path"`
	NamespaceID        int    `json:"namespace_id"`
	RootNamespaceID    int    `json:"root_namespace_id"`
	UserID             int    `json:"user_id"`
	TimeInQueueSeconds int    `json:"time_in_queue_seconds"`
}

// PayloadGitInfo is Entities::Ci::JobRequest::GitInfo.
type PayloadGitInfo struct {
	RepoURL          string   `json:"repo_url"`
	Ref              string   `json:"ref"`
	SHA              string   `json:"sha"`
	BeforeSHA        string   `json:"before_sha"`
	RefType          string   `json:"ref_type"`
	Refspecs         []string `json:"refspecs"`
	Depth            int      `json:"depth"`
	RepoObjectFormat string   `json:"repo_object_format"`
	Protected        bool     `json:"protected"`
}

// PayloadRunner is Entities::Ci::JobRequest::RunnerInfo.
type PayloadRunner struct {
	Timeout          int     `json:"timeout"`
	RunnerSessionURL *string `json:"runner_session_url"`
}

// Variable is one runner variable (Gitlab::Ci::Variables::Collection::Item
// #to_runner_variable: file and raw only when true).
type Variable struct {
	Key    string `json:"key"`
	Value  string `json:"value"`
	Public bool   `json:"public"`
	Masked bool   `json:"masked"`
}

// Step is Entities::Ci::JobRequest::Step.
type Step struct {
	Name         string   `json:"name"`
	Script       []string `json:"script"`
	Timeout      int      `json:"timeout"`
	When         string   `json:"when"`
	AllowFailure bool     `json:"allow_failure"`
}

// PayloadImage is Entities::Ci::JobRequest::Image (and Service).
type PayloadImage struct {
	Name       string   `json:"name"`
	Alias      string   `json:"alias,omitempty"`
	Entrypoint []string `json:"entrypoint,omitempty"`
	Command    []string `json:"command,omitempty"`
	Ports      []any    `json:"ports"`
}

// PayloadFeatures is Ci::Build#features.
type PayloadFeatures struct {
	TraceSections  bool     `json:"trace_sections"`
	FailureReasons []string `json:"failure_reasons"`
}

// FailureReasons are the job failure reasons the platform knows
// (gitlabhq/gitlabhq app/models/concerns/enums/ci/commit_status.rb @9ceb2dba): the
// payload's features.failure_reasons, which the runner maps its own onto,
// and what PUT /jobs/:id keeps (anything else is unknown_failure, as
// Ci::BuildPendingState.failure_reasons.fetch(reason, 'unknown_failure')).
var FailureReasons = []string{"unknown_failure", "script_failure", "api_failure", "stuck_or_timeout_failure",
	"runner_system_failure", "missing_dependency_failure", "runner_unsupported", "stale_schedule",
	"job_execution_timeout", "archived_failure", "unmet_prerequisites", "scheduler_failure", "data_integrity_failure",
	"forward_deployment_failure", "user_blocked", "project_deleted", "ci_quota_exceeded", "pipeline_loop_detected",
	"no_matching_runner", "trace_size_exceeded", "builds_disabled", "environment_creation_failure",
	"deployment_rejected", "failed_outdated_deployment_job", "job_execution_server_timeout",
	"stuck_pending_with_matching_runners", "stuck_pending_no_matching_runners", "no_updates_running",
	"no_updates_canceling", "server_timeout_running", "server_timeout_canceling", "runner_configuration_error",
	"runner_external_dependency_failure", "runner_interrupted", "protected_environment_failure",
	"insufficient_bridge_permissions", "downstream_bridge_project_not_found", "invalid_bridge_trigger",
	"upstream_bridge_project_not_found", "insufficient_upstream_permissions", "bridge_pipeline_is_child_pipeline",
	"downstream_pipeline_creation_failed", "secrets_provider_not_found", "reached_max_descendant_pipelines_depth",
	"ip_restriction_failure", "reached_max_pipeline_hierarchy_size", "reached_downstream_pipeline_trigger_rate_limit",
	"job_token_expired"}

// PersistentRef is the ref a pipeline's jobs fetch whatever becomes of its
// branch (Ci::PersistentRef: refs/pipelines/<id>).
func PersistentRef(pipelineID int) string { return fmt.Sprintf("refs/pipelines/%d", pipelineID) }

// RequestJob is POST /jobs/request: the runner of token, reporting info from
// its machine, gets the oldest pending job it may run, or nil. The pipeline's
// persistent ref is written before the job is handed out, so the refspecs the
// payload names exist when the runner fetches (the platform's
// ensure_persistent_ref when a job starts running).
func (w *Workflows) RequestJob(ctx context.Context, token string, info store.ManagerInfo, srv Server) (*Payload, error) {
	var out *Payload
	var projectID, pipelineID int
	var sha string
	err := w.store.Write(func(d *store.Data) error {
		r := d.RunnerBySecret(token)
		if r == nil {
			return ErrRunnerForbidden
		}
		m := d.ContactRunner(r, info)
		j := d.PickJob(r, m)
		if j == nil {
			return nil
		}
		out = payload(d, j, r, srv)
		pl := d.Pipeline(j.ProjectID, j.PipelineID)
		projectID, pipelineID, sha = j.ProjectID, pl.ID, pl.SHA
		return nil
	})
	if err != nil || out == nil {
		return nil, err
	}
	if w.repos != nil {
		repo, err := w.repos.Get(projectID)
		if err != nil {
			return nil, err
		}
		if err := repo.SetRef(ctx, PersistentRef(pipelineID), repository.Oid(sha)); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// payload builds what the runner receives for j, taken by r.
func payload(d *store.Data, j *store.Job, r *store.Runner, srv Server) *Payload {
	p := d.Project(j.ProjectID)
	pl := d.Pipeline(j.ProjectID, j.PipelineID)
	full := d.ProjectFullPath(p)
	repoURL := authURL(srv.URL+"/"+full+".git", j.TokenSecret)
	timeout := DefaultTimeout
	if r.MaximumTimeout != nil && *r.MaximumTimeout < timeout {
		timeout = *r.MaximumTimeout // timeout_value: the smaller of the project's and the runner's
	}
	refType, refspec := "branch", "+refs/heads/"+pl.Ref+":refs/remotes/origin/"+pl.Ref
	if pl.Tag {
		refType, refspec = "tag", "+refs/tags/"+pl.Ref+":refs/tags/"+pl.Ref
	}
	root := p.NamespaceID
	if g := d.ProjectGroup(p); g != nil {
		if anc := d.Ancestors(g); len(anc) > 0 {
			root = anc[len(anc)-1].ID
		}
	}
	queued := 0
	if j.StartedAt != nil {
		queued = int(j.StartedAt.Sub(j.CreatedAt).Seconds())
	}
	out := &Payload{ID: j.ID, Token: j.TokenSecret, AllowGitFetch: true,
		JobInfo: PayloadJobInfo{ID: j.ID, Name: j.Name, Stage: j.Stage, PipelineID: pl.ID, ProjectID: p.ID,
			ProjectName: p.Name, ProjectFullPath: full, NamespaceID: p.NamespaceID, RootNamespaceID: root,
			UserID: j.UserID, TimeInQueueSeconds: queued},
		// The presenter's refspecs with the default git depth (20, > 0): the
		// persistent ref and the pipeline's own branch or tag.
		GitInfo: PayloadGitInfo{RepoURL: repoURL, Ref: pl.Ref, SHA: pl.SHA, BeforeSHA: BlankSHA, RefType: refType,
			Refspecs: []string{"+" + PersistentRef(pl.ID) + ":" + PersistentRef(pl.ID), refspec}, Depth: gitDepth(j),
			RepoObjectFormat: "sha1"},
		RunnerInfo: PayloadRunner{Timeout: timeout},
		Variables:  variables(d, j, r, srv, repoURL),
		Steps: []Step{{Name: "script", Script: append(append([]string{}, j.BeforeScript...), j.Script...),
			Timeout: timeout, When: "on_success"}},
		Services: []PayloadImage{}, Artifacts: []any{}, Cache: []any{}, Credentials: []any{}, Dependencies: []any{},
		Features: PayloadFeatures{TraceSections: true, FailureReasons: FailureReasons},
	}
	if len(j.AfterScript) > 0 {
		out.Steps = append(out.Steps, Step{Name: "after_script", Script: j.AfterScript, Timeout: timeout, When: "always",
			AllowFailure: true})
	}
	if j.Image != nil {
		out.Image = &PayloadImage{Name: j.Image.Name, Entrypoint: j.Image.Entrypoint, Ports: []any{}}
	}
	for _, s := range j.Services {
		out.Services = append(out.Services, PayloadImage{Name: s.Name, Alias: s.Alias, Entrypoint: s.Entrypoint,
			Command: s.Command, Ports: []any{}})
	}
	return out
}

// gitDepth is GIT_DEPTH from the job's variables, else the project's
// ci_default_git_depth (20 for new projects).
func gitDepth(j *store.Job) int {
	for _, v := range j.Variables {
		if v.Key == "GIT_DEPTH" {
			if n, err := strconv.Atoi(v.Value); err == nil && n >= 0 {
				return n
			}
		}
	}
	return 20
}

// authURL puts gitlab-ci-token:<token> into a repository URL, as
// Ci::Build#repo_url does.
func authURL(repo, token string) string {
	u, err := url.Parse(repo)
	if err != nil {
		return repo
	}
	u.User = url.UserPassword(store.CIUsername, token)
	return u.String()
}

// variables are the job's runner variables in the platform's order
// (Ci::Build#variables: persisted_variables, then scoped_variables from
// Gitlab::Ci::Variables::Builder: the job's predefined ones, the project's,
// the pipeline's, the runner's, the CI file's, the user's).
func variables(d *store.Data, j *store.Job, r *store.Runner, srv Server, repoURL string) []Variable {
	p := d.Project(j.ProjectID)
	pl := d.Pipeline(j.ProjectID, j.PipelineID)
	full := d.ProjectFullPath(p)
	ns := d.Namespace(p.NamespaceID)
	var out []Variable
	add := func(k, v string) { out = append(out, Variable{Key: k, Value: v, Public: true}) }
	secret := func(k, v string, masked bool) { out = append(out, Variable{Key: k, Value: v, Masked: masked}) }
	projectURL := srv.URL + "/" + full
	// Ci::Pipeline#persisted_variables and Ci::Build#persisted_variables.
	add("CI_PIPELINE_ID", strconv.Itoa(pl.ID))
	add("CI_PIPELINE_URL", fmt.Sprintf("%s/-/pipelines/%d", projectURL, pl.ID))
	add("CI_JOB_ID", strconv.Itoa(j.ID))
	add("CI_JOB_URL", fmt.Sprintf("%s/-/jobs/%d", projectURL, j.ID))
	secret("CI_JOB_TOKEN", j.TokenSecret, true)
	if j.StartedAt != nil {
		add("CI_JOB_STARTED_AT", j.StartedAt.UTC().Format(time.RFC3339))
	}
	add("CI_REGISTRY_USER", store.CIUsername)
	secret("CI_REGISTRY_PASSWORD", j.TokenSecret, true)
	secret("CI_REPOSITORY_URL", repoURL, false)
	// Builder#predefined_variables (the job's).
	add("CI_JOB_NAME", j.Name)
	add("CI_JOB_NAME_SLUG", Slugify(j.Name))
	add("CI_JOB_GROUP_NAME", j.Name)
	add("CI_JOB_STAGE", j.Stage)
	if j.Manual {
		add("CI_JOB_MANUAL", "true")
	}
	add("CI_NODE_TOTAL", "1")
	// Builder::Project: the server's and the project's.
	host, port, proto := serverParts(srv.URL)
	add("CI", "true")
	add("GITLAB_CI", "true")
	add("CI_SERVER_FQDN", host)
	add("CI_SERVER_URL", srv.URL)
	add("CI_SERVER_HOST", host)
	add("CI_SERVER_PORT", port)
	add("CI_SERVER_PROTOCOL", proto)
	add("CI_SERVER_NAME", "GitLab")
	add("CI_SERVER_VERSION", srv.Version)
	parts := append(strings.SplitN(srv.Version, ".", 3), "", "", "")
	add("CI_SERVER_VERSION_MAJOR", parts[0])
	add("CI_SERVER_VERSION_MINOR", parts[1])
	add("CI_SERVER_VERSION_PATCH", parts[2])
	add("CI_SERVER_REVISION", srv.Revision)
	add("GITLAB_FEATURES", "")
	add("CI_PROJECT_ID", strconv.Itoa(p.ID))
	add("CI_PROJECT_NAME", p.Path)
	add("CI_PROJECT_TITLE", p.Name)
	add("CI_PROJECT_DESCRIPTION", p.Description)
	add("CI_PROJECT_PATH", full)
	add("CI_PROJECT_PATH_SLUG", Slugify(full))
	if ns != nil {
		add("CI_PROJECT_NAMESPACE", ns.Full)
		add("CI_PROJECT_NAMESPACE_SLUG", Slugify(ns.Full))
		add("CI_PROJECT_NAMESPACE_ID", strconv.Itoa(ns.ID))
		add("CI_PROJECT_ROOT_NAMESPACE", strings.SplitN(ns.Full, "/", 2)[0])
	}
	add("CI_PROJECT_URL", projectURL)
	add("CI_PROJECT_VISIBILITY", p.Visibility)
	add("CI_PROJECT_REPOSITORY_LANGUAGES", "")
	add("CI_DEFAULT_BRANCH", p.DefaultBranch)
	add("CI_CONFIG_PATH", File)
	add("CI_API_V4_URL", srv.URL+"/api/v4")
	add("CI_API_GRAPHQL_URL", srv.URL+"/api/graphql")
	// Builder::Pipeline.
	add("CI_PIPELINE_IID", strconv.Itoa(pl.ID))
	source := "api"
	if pl.ParentID != 0 {
		source = "parent_pipeline"
	}
	add("CI_PIPELINE_SOURCE", source)
	add("CI_PIPELINE_CREATED_AT", pl.CreatedAt.UTC().Format(time.RFC3339))
	add("CI_COMMIT_SHA", pl.SHA)
	add("CI_COMMIT_SHORT_SHA", pl.SHA[:min(8, len(pl.SHA))])
	add("CI_COMMIT_BEFORE_SHA", BlankSHA)
	add("CI_COMMIT_REF_NAME", pl.Ref)
	add("CI_COMMIT_REF_SLUG", Slugify(pl.Ref))
	if !pl.Tag {
		add("CI_COMMIT_BRANCH", pl.Ref)
	}
	title, description, _ := strings.Cut(pl.Commit.Message, "\n")
	add("CI_COMMIT_MESSAGE", pl.Commit.Message)
	add("CI_COMMIT_MESSAGE_IS_TRUNCATED", "false")
	add("CI_COMMIT_TITLE", title)
	add("CI_COMMIT_DESCRIPTION", strings.TrimLeft(description, "\n"))
	add("CI_COMMIT_REF_PROTECTED", "false")
	add("CI_COMMIT_TIMESTAMP", pl.Commit.CreatedAt.Format(time.RFC3339))
	add("CI_COMMIT_AUTHOR", fmt.Sprintf("%s <%s>", pl.Commit.AuthorName, pl.Commit.AuthorEmail))
	if pl.Tag {
		add("CI_COMMIT_TAG", pl.Ref)
	}
	// Ci::Runner#predefined_variables.
	add("CI_RUNNER_ID", strconv.Itoa(r.ID))
	add("CI_RUNNER_DESCRIPTION", r.Description)
	add("CI_RUNNER_TAGS", runnerTags(r.TagList))
	// The CI file's variables, then the user's (Builder#user_variables).
	for _, v := range j.Variables {
		add(v.Key, v.Value)
	}
	if u := d.User(j.UserID); u != nil {
		add("GITLAB_USER_ID", strconv.Itoa(u.ID))
		add("GITLAB_USER_EMAIL", u.Email)
		add("GITLAB_USER_LOGIN", u.Username)
		add("GITLAB_USER_NAME", u.Name)
	}
	return out
}

// runnerTags is CI_RUNNER_TAGS: the tag list as a JSON array of strings.
func runnerTags(tags []string) string {
	q := make([]string, len(tags))
	for i, t := range tags {
		q[i] = strconv.Quote(t)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

func serverParts(base string) (host, port, proto string) {
	u, err := url.Parse(base)
	if err != nil {
		return "", "", ""
	}
	proto, host, port = u.Scheme, u.Hostname(), u.Port()
	if port == "" {
		port = map[string]string{"https": "443"}[proto]
		if port == "" {
			port = "80"
		}
	}
	return host, port, proto
}

// Slugify is Gitlab::Utils.slugify: lower case, every character other than
// a-z and 0-9 a '-', at most 63 characters, no '-' at either end.
func Slugify(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('-')
		}
	}
	out := b.String()
	if len(out) > 63 {
		out = out[:63]
	}
	return strings.Trim(out, "-")
}
