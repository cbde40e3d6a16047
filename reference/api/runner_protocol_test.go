package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The runner's wire types, field for field as gitlab-org/gitlab-runner
// common/network.go declares them (mirror gitlabhq/gitlab-runner @d79f3e7b,
// v19.4.0), so the bodies below are the bytes a real runner sends.

type wireFeaturesInfo struct {
	Variables               bool `json:"variables"`
	Image                   bool `json:"image"`
	Services                bool `json:"services"`
	Artifacts               bool `json:"artifacts"`
	Cache                   bool `json:"cache"`
	FallbackCacheKeys       bool `json:"fallback_cache_keys"`
	Shared                  bool `json:"shared"`
	UploadMultipleArtifacts bool `json:"upload_multiple_artifacts"`
	UploadRawArtifacts      bool `json:"upload_raw_artifacts"`
	Session                 bool `json:"session"`
	Terminal                bool `json:"terminal"`
	Refspecs                bool `json:"refspecs"`
	Masking                 bool `json:"masking"`
	Proxy                   bool `json:"proxy"`
	RawVariables            bool `json:"raw_variables"`
	ArtifactsExclude        bool `json:"artifacts_exclude"`
	MultiBuildSteps         bool `json:"multi_build_steps"`
	TraceReset              bool `json:"trace_reset"`
	TraceChecksum           bool `json:"trace_checksum"`
	TraceSize               bool `json:"trace_size"`
	VaultSecrets            bool `json:"vault_secrets"`
	Cancelable              bool `json:"cancelable"`
	ReturnExitCode          bool `json:"return_exit_code"`
	ServiceVariables        bool `json:"service_variables"`
	ServiceMultipleAliases  bool `json:"service_multiple_aliases"`
	ImageExecutorOpts       bool `json:"image_executor_opts"`
	ServiceExecutorOpts     bool `json:"service_executor_opts"`
	CancelGracefully        bool `json:"cancel_gracefully"`
	NativeStepsIntegration  bool `json:"native_steps_integration"`
	TwoPhaseJobCommit       bool `json:"two_phase_job_commit"`
	JobInputs               bool `json:"job_inputs"`
}

type wireInfo struct {
	Name         string           `json:"name,omitempty"`
	Version      string           `json:"version,omitempty"`
	Revision     string           `json:"revision,omitempty"`
	Platform     string           `json:"platform,omitempty"`
	Architecture string           `json:"architecture,omitempty"`
	Executor     string           `json:"executor,omitempty"`
	Shell        string           `json:"shell,omitempty"`
	Features     wireFeaturesInfo `json:"features"`
	Config       struct {
		Gpus string `json:"gpus"`
	} `json:"config"`
	Labels map[string]string `json:"labels,omitempty"`
}

type wireRegisterRunnerRequest struct {
	Description     string   `json:"description,omitempty"`
	MaintenanceNote string   `json:"maintenance_note,omitempty"`
	Tags            string   `json:"tag_list,omitempty"`
	RunUntagged     bool     `json:"run_untagged"`
	Locked          bool     `json:"locked"`
	AccessLevel     string   `json:"access_level,omitempty"`
	MaximumTimeout  int      `json:"maximum_timeout,omitempty"`
	Paused          bool     `json:"paused"`
	Info            wireInfo `json:"info"`
	Token           string   `json:"token,omitempty"`
}

type wireVerifyRunnerRequest struct {
	Info     wireInfo `json:"info"`
	Token    string   `json:"token,omitempty"`
	SystemID string   `json:"system_id,omitempty"`
}

type wireJobRequest struct {
	Info       wireInfo `json:"info"`
	Token      string   `json:"token,omitempty"`
	SystemID   string   `json:"system_id,omitempty"`
	LastUpdate string   `json:"last_update,omitempty"`
}

type wireUpdateJobRequest struct {
	Info          wireInfo `json:"info"`
	Token         string   `json:"token,omitempty"`
	State         string   `json:"state,omitempty"`
	FailureReason string   `json:"failure_reason,omitempty"`
	Checksum      string   `json:"checksum,omitempty"`
	Output        struct {
		Checksum string `json:"checksum,omitempty"`
		Bytesize int    `json:"bytesize,omitempty"`
	} `json:"output"`
	ExitCode int `json:"exit_code,omitempty"`
}

// shellRunnerInfo is what a shell-executor runner on linux reports
// (network/gitlab.go getRunnerInfo and getFeatures, plus the shell
// executor's and bash's features).
func shellRunnerInfo() wireInfo {
	info := wireInfo{Name: "gitlab-runner", Version: "19.4.0", Revision: "d79f3e7b", Platform: "linux",
		Architecture: "amd64", Executor: "shell", Shell: "bash", Labels: map[string]string{}}
	info.Features = wireFeaturesInfo{Variables: true, Artifacts: true, Cache: true, Shared: true,
		UploadMultipleArtifacts: true, UploadRawArtifacts: true, Refspecs: true, Masking: true, RawVariables: true,
		ArtifactsExclude: true, MultiBuildSteps: true, TraceReset: true, TraceChecksum: true, TraceSize: true,
		Cancelable: true, ReturnExitCode: true, CancelGracefully: true, TwoPhaseJobCommit: true, JobInputs: true}
	return info
}

// wire sends one runner request as network/client.go does: a JSON body,
// Accept: application/json, and the headers given.
func (a *apiClient) wire(method, path string, body any, header http.Header) (*http.Response, []byte) {
	a.t.Helper()
	var rd io.Reader
	ct := "application/json"
	switch b := body.(type) {
	case nil:
	case []byte:
		rd, ct = bytes.NewReader(b), "text/plain"
	default:
		j, err := json.Marshal(b)
		if err != nil {
			a.t.Fatal(err)
		}
		rd = bytes.NewReader(j)
	}
	req, err := http.NewRequest(method, a.srv.URL+"/api/v4"+path, rd)
	if err != nil {
		a.t.Fatal(err)
	}
	req.Header.Set("Content-Type", ct)
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "gitlab-runner 19.4.0 (main; go1.25; linux/amd64)")
	for k, v := range header {
		req.Header[k] = v
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	defer res.Body.Close()
	out, _ := io.ReadAll(res.Body)
	return res, out
}

func (a *apiClient) wireMust(status int, method, path string, body any, header http.Header) (*http.Response, map[string]any) {
	a.t.Helper()
	res, b := a.wire(method, path, body, header)
	if res.StatusCode != status {
		a.t.Fatalf("%s %s: %d %s (want %d)", method, path, res.StatusCode, b, status)
	}
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	return res, m
}

const runnerCI = `variables:
  GREETING: hello
default:
  before_script: [echo before]
build:
  image: alpine:3.20
  services: [{name: "postgres:16", alias: db}]
  variables:
    GIT_DEPTH: "5"
  script:
    - echo "$GREETING from $CI_JOB_NAME"
    - test -f README.md
  after_script: [echo after]
`

// TestRunnerProtocol drives the runner API the way gitlab-runner does, with
// its exact bodies and headers: register with a group's registration token,
// verify, take a job, fetch its commit with real git through the job's
// repo_url and refspecs, stream the log in two PATCHes, finish with
// success; then the spec's jobs endpoints show the job, its log and its
// pipeline. A canceled job is what the runner learns of at its next call.
func TestRunnerProtocol(t *testing.T) {
	a := newAPI(t)
	g := a.must(201, "POST", "/groups", map[string]any{"name": "ci", "path": "ci"})
	p := a.must(201, "POST", "/projects", map[string]any{"name": "app", "namespace_id": g["id"], "initialize_with_readme": true})
	pid := int(p["id"].(float64))
	a.must(201, "POST", fmt.Sprintf("/projects/%d/repository/files/.gitlab-ci.yml", pid),
		map[string]any{"branch": "main", "content": runnerCI, "commit_message": "CI"})
	regToken, _ := a.must(200, "GET", fmt.Sprintf("/groups/%v", g["id"]), nil)["runners_token"].(string)
	if regToken == "" {
		t.Fatal("no runners_token on the group")
	}

	// Registration (the registration-token flow) and its refusals.
	reg := wireRegisterRunnerRequest{Description: "shell runner", Tags: "linux, shell", RunUntagged: true,
		Locked: true, Info: shellRunnerInfo(), Token: regToken}
	a.wireMust(403, "POST", "/runners", wireRegisterRunnerRequest{Info: shellRunnerInfo(), Token: "GR1348941nothing"}, nil)
	_, r := a.wireMust(201, "POST", "/runners", reg, http.Header{"Runner-Token": {regToken}})
	token, _ := r["token"].(string)
	if !strings.HasPrefix(token, "glrt-") || r["id"] == nil {
		t.Fatalf("registration answered %v", r)
	}
	detail := a.must(200, "GET", fmt.Sprintf("/runners/%v", r["id"]), nil)
	if detail["runner_type"] != "group_type" || detail["description"] != "shell runner" ||
		fmt.Sprint(detail["tag_list"]) != "[linux shell]" || detail["status"] != "never_contacted" {
		t.Errorf("registered runner: %v", detail)
	}

	// Verification (also the runner-token flow: `register --token glrt-…`).
	const systemID = "s_0123456789ab"
	_, v := a.wireMust(200, "POST", "/runners/verify", wireVerifyRunnerRequest{Info: shellRunnerInfo(), Token: token, SystemID: systemID}, nil)
	if v["token"] != token || v["id"] != r["id"] {
		t.Errorf("verify answered %v", v)
	}
	a.wireMust(403, "POST", "/runners/verify", wireVerifyRunnerRequest{Info: shellRunnerInfo(), Token: "glrt-nothing"}, nil)
	created := a.must(201, "POST", "/user/runners", map[string]any{"runner_type": "instance_type"})
	a.wireMust(200, "POST", "/runners/verify", wireVerifyRunnerRequest{Info: shellRunnerInfo(), Token: created["token"].(string), SystemID: systemID}, nil)
	// A runner token is no registration token: that flow never calls POST
	// /runners (commands/register.go askRunner verifies a glrt- token
	// instead), and the platform's RegisterRunnerService refuses it.
	a.wireMust(403, "POST", "/runners", wireRegisterRunnerRequest{Info: shellRunnerInfo(), Token: created["token"].(string)}, nil)

	// No job yet: 204 with the queue value to send back. A user's token that
	// is no token means nothing to the runner API (no 401).
	jr := wireJobRequest{Info: shellRunnerInfo(), Token: token, SystemID: systemID}
	res, _ := a.wireMust(204, "POST", "/jobs/request", jr, http.Header{"Private-Token": {"not-a-token"}})
	if res.Header.Get("X-GitLab-Last-Update") == "" {
		t.Error("204 without X-GitLab-Last-Update")
	}
	a.wireMust(403, "POST", "/jobs/request", wireJobRequest{Info: shellRunnerInfo(), Token: "glrt-nothing"}, nil)

	pl := a.must(201, "POST", fmt.Sprintf("/projects/%d/pipeline", pid), map[string]any{"ref": "main"})
	jr.LastUpdate = res.Header.Get("X-GitLab-Last-Update")
	_, job := a.wireMust(201, "POST", "/jobs/request", jr, nil)
	jobID := int(job["id"].(float64))
	jobToken, _ := job["token"].(string)
	git, _ := job["git_info"].(map[string]any)
	if git["sha"] != pl["sha"] || git["ref"] != "main" || git["ref_type"] != "branch" || git["depth"] != 5.0 ||
		git["before_sha"] != "0000000000000000000000000000000000000000" {
		t.Errorf("git_info %v", git)
	}
	repoURL, _ := git["repo_url"].(string)
	if !strings.Contains(repoURL, "gitlab-ci-token:"+jobToken+"@") || !strings.HasSuffix(repoURL, "/ci/app.git") {
		t.Errorf("repo_url %q", repoURL)
	}
	vars := map[string]string{}
	for _, x := range job["variables"].([]any) {
		m := x.(map[string]any)
		vars[m["key"].(string)] = m["value"].(string)
	}
	want := map[string]string{"CI_JOB_TOKEN": jobToken, "CI_REPOSITORY_URL": repoURL, "CI_COMMIT_SHA": pl["sha"].(string),
		"CI_COMMIT_REF_NAME": "main", "CI_PROJECT_ID": fmt.Sprint(pid), "CI_PROJECT_PATH": "ci/app",
		"CI_JOB_ID": fmt.Sprint(jobID), "CI_PIPELINE_ID": fmt.Sprint(pl["id"]), "CI_SERVER_URL": a.srv.URL,
		"CI_API_V4_URL": a.srv.URL + "/api/v4", "CI_JOB_NAME": "build", "CI_JOB_STAGE": "test", "CI_COMMIT_BRANCH": "main",
		"CI_DEFAULT_BRANCH": "main", "CI_PROJECT_NAMESPACE": "ci", "GREETING": "hello", "GIT_DEPTH": "5",
		"CI_COMMIT_TITLE": "CI", "GITLAB_USER_LOGIN": "root", "CI": "true", "CI_RUNNER_ID": fmt.Sprint(r["id"])}
	for k, w := range want {
		if vars[k] != w {
			t.Errorf("variable %s = %q, want %q", k, vars[k], w)
		}
	}
	steps := job["steps"].([]any)
	if len(steps) != 2 || fmt.Sprint(steps[0].(map[string]any)["script"]) != `[echo before echo "$GREETING from $CI_JOB_NAME" test -f README.md]` ||
		steps[1].(map[string]any)["name"] != "after_script" || steps[1].(map[string]any)["when"] != "always" {
		t.Errorf("steps %v", steps)
	}
	if img, _ := job["image"].(map[string]any); img["name"] != "alpine:3.20" {
		t.Errorf("image %v", job["image"])
	}
	if svc := job["services"].([]any); len(svc) != 1 || svc[0].(map[string]any)["alias"] != "db" {
		t.Errorf("services %v", job["services"])
	}
	if ri := job["runner_info"].(map[string]any); ri["timeout"] != 3600.0 {
		t.Errorf("runner_info %v", ri)
	}

	// The runner's fetch (its shell writes exactly this): init, fetch the
	// refspecs at depth, check out the commit.
	work := t.TempDir()
	src := filepath.Join(work, "src")
	mustGit(t, work, "init", "-q", src)
	mustGit(t, src, "remote", "add", "origin", repoURL)
	args := []string{"fetch", "-q", "origin", "--prune"}
	for _, s := range git["refspecs"].([]any) {
		args = append(args, s.(string))
	}
	mustGit(t, src, append(args, "--depth", "5")...)
	mustGit(t, src, "checkout", "-f", "-q", git["sha"].(string))
	if head := strings.TrimSpace(mustGit(t, src, "rev-parse", "HEAD")); head != git["sha"] {
		t.Errorf("checked out %s, want %v", head, git["sha"])
	}
	if _, err := os.Stat(filepath.Join(src, "README.md")); err != nil {
		t.Error(err)
	}
	// ...and a plain clone with the job token works too.
	mustGit(t, work, "clone", "-q", repoURL, "clone")

	// The log, in two parts, as network/gitlab.go PatchTrace sends them.
	part1 := []byte("Running with gitlab-runner 19.4.0\n$ echo before\nbefore\n")
	part2 := []byte("$ echo \"$GREETING from $CI_JOB_NAME\"\nhello from build (token " + jobToken + ")\n")
	patch := func(status int, body []byte, start int, tok string) *http.Response {
		t.Helper()
		h := http.Header{"Job-Token": {tok}, "Content-Range": {fmt.Sprintf("%d-%d", start, start+len(body)-1)}}
		res, b := a.wire("PATCH", fmt.Sprintf("/jobs/%d/trace?debug_trace=false", jobID), body, h)
		if res.StatusCode != status {
			t.Fatalf("PATCH trace at %d: %d %s, want %d", start, res.StatusCode, b, status)
		}
		return res
	}
	res = patch(202, part1, 0, jobToken)
	if res.Header.Get("Range") != fmt.Sprintf("0-%d", len(part1)) || res.Header.Get("Job-Status") != "running" ||
		res.Header.Get("X-GitLab-Trace-Update-Interval") == "" {
		t.Errorf("first patch headers %v", res.Header)
	}
	// A part that does not start where the log ends: 416 with the log's range.
	res = patch(416, part2, len(part1)+3, jobToken)
	if res.Header.Get("Range") != fmt.Sprintf("0-%d", len(part1)) {
		t.Errorf("416 Range %q", res.Header.Get("Range"))
	}
	patch(403, part2, len(part1), "glcbt-wrong")
	if res, b := a.wire("PATCH", fmt.Sprintf("/jobs/%d/trace", jobID), part2, http.Header{"Job-Token": {jobToken}}); res.StatusCode != 400 {
		t.Errorf("PATCH without Content-Range: %d %s", res.StatusCode, b)
	}
	res = patch(202, part2, len(part1), jobToken)
	size := len(part1) + len(part2)
	if res.Header.Get("Range") != fmt.Sprintf("0-%d", size) {
		t.Errorf("second patch Range %q", res.Header.Get("Range"))
	}

	// The end, as UpdateJob sends it (token in the body and the header).
	trace := append(append([]byte{}, part1...), part2...)
	up := wireUpdateJobRequest{Info: shellRunnerInfo(), Token: jobToken, State: "success"}
	up.Output.Checksum = fmt.Sprintf("crc32:%08x", crc32.ChecksumIEEE(trace))
	up.Output.Bytesize, up.Checksum = size, up.Output.Checksum
	if res, b := a.wire("PUT", fmt.Sprintf("/jobs/%d", jobID), up, http.Header{"Job-Token": {jobToken}}); res.StatusCode != 200 ||
		res.Header.Get("Job-Status") != "success" || string(b) != "200" {
		t.Fatalf("PUT success: %d %v %s", res.StatusCode, res.Header, b)
	}
	// The job's token stopped working with the job.
	patch(403, []byte("late\n"), size, jobToken)

	// The spec's jobs endpoints show what the runner did.
	got := a.must(200, "GET", fmt.Sprintf("/projects/%d/jobs/%d", pid, jobID), nil)
	if got["status"] != "success" || got["pipeline"].(map[string]any)["status"] != "success" ||
		got["runner"].(map[string]any)["id"] != r["id"] || got["runner_manager"].(map[string]any)["system_id"] != systemID {
		t.Errorf("job %v", got)
	}
	status, log := a.doRaw("GET", fmt.Sprintf("/projects/%d/jobs/%d/trace", pid, jobID), "", "")
	masked := strings.Replace(string(trace), jobToken, strings.Repeat("x", len(jobToken)), 1)
	if status != 200 || string(log) != masked {
		t.Errorf("trace %d %q, want %q (the job token masked)", status, log, masked)
	}
	jobs := a.mustList(fmt.Sprintf("/projects/%d/pipelines/%v/jobs", pid, pl["id"]))
	if len(jobs) != 1 || jobs[0]["status"] != "success" {
		t.Errorf("pipeline jobs %v", jobs)
	}

	// Cancellation: the runner learns of it at its next call (403 with
	// Job-Status: canceled, which network/remote_job_state_response.go reads
	// as the job having failed remotely, so the runner aborts it).
	a.must(201, "POST", fmt.Sprintf("/projects/%d/pipeline", pid), map[string]any{"ref": "main"})
	_, job2 := a.wireMust(201, "POST", "/jobs/request", jr, nil)
	id2, tok2 := int(job2["id"].(float64)), job2["token"].(string)
	a.must(201, "POST", fmt.Sprintf("/projects/%d/jobs/%d/cancel", pid, id2), nil)
	res, _ = a.wire("PATCH", fmt.Sprintf("/jobs/%d/trace", id2), []byte("x\n"), http.Header{"Job-Token": {tok2}, "Content-Range": {"0-1"}})
	if res.StatusCode != 403 || res.Header.Get("Job-Status") != "canceled" {
		t.Errorf("PATCH of a canceled job: %d Job-Status %q", res.StatusCode, res.Header.Get("Job-Status"))
	}
	res, _ = a.wire("PUT", fmt.Sprintf("/jobs/%d", id2), wireUpdateJobRequest{Info: shellRunnerInfo(), Token: tok2, State: "success"}, nil)
	if res.StatusCode != 403 || res.Header.Get("Job-Status") != "canceled" {
		t.Errorf("PUT of a canceled job: %d Job-Status %q", res.StatusCode, res.Header.Get("Job-Status"))
	}
	if st := a.must(200, "GET", fmt.Sprintf("/projects/%d/jobs/%d", pid, id2), nil)["status"]; st != "canceled" {
		t.Errorf("canceled job reads %v", st)
	}

	// A failure with its reason and exit code.
	a.must(201, "POST", fmt.Sprintf("/projects/%d/pipeline", pid), map[string]any{"ref": "main"})
	_, job3 := a.wireMust(201, "POST", "/jobs/request", jr, nil)
	id3, tok3 := int(job3["id"].(float64)), job3["token"].(string)
	fail := wireUpdateJobRequest{Info: shellRunnerInfo(), Token: tok3, State: "failed", FailureReason: "script_failure", ExitCode: 2}
	a.wireMust(200, "PUT", fmt.Sprintf("/jobs/%d", id3), fail, nil)
	if j := a.must(200, "GET", fmt.Sprintf("/projects/%d/jobs/%d", pid, id3), nil); j["status"] != "failed" || j["failure_reason"] != "script_failure" {
		t.Errorf("failed job %v", j)
	}

	// Unregistering: the token stops working.
	a.wireMust(204, "DELETE", "/runners", map[string]any{"token": token}, nil)
	a.wireMust(403, "POST", "/runners/verify", wireVerifyRunnerRequest{Info: shellRunnerInfo(), Token: token}, nil)
}

// mustList reads a JSON array.
func (a *apiClient) mustList(path string) []map[string]any {
	a.t.Helper()
	status, b := a.doRaw("GET", path, "", "")
	if status != 200 {
		a.t.Fatalf("GET %s: %d %s", path, status, b)
	}
	var out []map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		a.t.Fatal(err)
	}
	return out
}

// TestRunnerBinary runs a real gitlab-runner (run-single, shell executor)
// against the reference when one is on PATH.
// runnerBinary is the gitlab-runner TestRunnerBinary runs: V4CERT_GITLAB_RUNNER
// when set (make clients-runner sets it to the pinned build in bin/tools), which
// must then exist, else a gitlab-runner on PATH; with neither the test skips.
func runnerBinary(t *testing.T) string {
	if p := os.Getenv("V4CERT_GITLAB_RUNNER"); p != "" {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("V4CERT_GITLAB_RUNNER: %v", err)
		}
		return p
	}
	bin, err := exec.LookPath("gitlab-runner")
	if err != nil {
		t.Skip("no gitlab-runner on PATH and no V4CERT_GITLAB_RUNNER (make runner-tool builds one): the protocol is driven at the wire by TestRunnerProtocol instead")
	}
	return bin
}

// runnerProject makes a project with a README and the given CI file, a
// project runner for it and a pipeline on main; it answers the project's id
// and the runner's token.
func (a *apiClient) runnerProject(name, ciFile string) (int, string) {
	a.t.Helper()
	p := a.must(201, "POST", "/projects", map[string]any{"name": name, "initialize_with_readme": true})
	pid := int(p["id"].(float64))
	a.must(201, "POST", fmt.Sprintf("/projects/%d/repository/files/.gitlab-ci.yml", pid),
		map[string]any{"branch": "main", "content": ciFile, "commit_message": "CI"})
	rn := a.must(201, "POST", "/user/runners", map[string]any{"runner_type": "project_type", "project_id": pid})
	a.must(201, "POST", fmt.Sprintf("/projects/%d/pipeline", pid), map[string]any{"ref": "main"})
	return pid, rn["token"].(string)
}

// startRunner starts `gitlab-runner run-single --executor shell` for a runner
// token, to take up to maxBuilds jobs. It is bounded twice: the runner exits
// by itself 30 s after its last job (--wait-timeout), and is killed at the
// deadline, which fails the test with its output. run-single logs a job that
// failed or was canceled and still exits 0 once it has taken maxBuilds
// (gitlab-org/gitlab-runner commands/single.go @fc1f1862, the pin in
// tools/runner/go.mod: Execute's loop, checkFinishedConditions).
func startRunner(t *testing.T, a *apiClient, bin, token string, maxBuilds int, deadline time.Duration) *runnerRun {
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	cmd := exec.CommandContext(ctx, bin, "run-single", "--url", a.srv.URL, "--token", token, "--executor", "shell",
		"--builds-dir", filepath.Join(dir, "builds"), "--cache-dir", filepath.Join(dir, "cache"),
		"--max-builds", strconv.Itoa(maxBuilds), "--wait-timeout", "30")
	cmd.Env = append(os.Environ(), "HOME="+dir)
	cmd.WaitDelay = 5 * time.Second
	r := &runnerRun{t: t, ctx: ctx, deadline: deadline, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = &r.out, &r.out
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	go func() {
		defer cancel()
		defer close(r.done)
		r.err = cmd.Wait()
	}()
	return r
}

// runnerRun is a gitlab-runner process startRunner started.
type runnerRun struct {
	t        *testing.T
	ctx      context.Context
	deadline time.Duration
	done     chan struct{} // closed when the process has ended
	out      bytes.Buffer  // written by the process until done
	err      error
}

// wait waits for the runner to end and answers its output; a runner killed at
// the deadline or failing fails the test.
func (r *runnerRun) wait() string {
	r.t.Helper()
	<-r.done
	if r.ctx.Err() == context.DeadlineExceeded {
		r.t.Fatalf("gitlab-runner run-single still running after %v:\n%s", r.deadline, r.out.String())
	}
	if r.err != nil {
		r.t.Fatalf("gitlab-runner run-single: %v\n%s", r.err, r.out.String())
	}
	return r.out.String()
}

// jobsByName reads a project's jobs through the spec's endpoint, by name,
// each with its log.
func (a *apiClient) jobsByName(pid int) (map[string]map[string]any, map[string]string) {
	a.t.Helper()
	jobs, logs := map[string]map[string]any{}, map[string]string{}
	for _, j := range a.mustList(fmt.Sprintf("/projects/%d/jobs", pid)) {
		name := j["name"].(string)
		jobs[name] = j
		_, log := a.doRaw("GET", fmt.Sprintf("/projects/%d/jobs/%v/trace", pid, j["id"]), "", "")
		logs[name] = string(log)
	}
	return jobs, logs
}

// TestRunnerBinary is what a user does with the reference in CI: a real
// gitlab-runner (run-single, shell executor) takes the jobs of a pipeline,
// fetches the commit over the reference's git HTTP, runs the scripts and
// reports; the spec's job endpoints then show what it did. Each run is bounded
// (startRunner); the outputs checked are the scripts' expanded output, never
// the command lines the runner echoes.
func TestRunnerBinary(t *testing.T) {
	bin := runnerBinary(t)

	t.Run("stages, variables, before_script and after_script", func(t *testing.T) {
		a := newAPI(t)
		pid, token := a.runnerProject("bin", `stages: [build, test]
variables:
  FILE_VAR: from-the-ci-file
build:
  stage: build
  variables:
    JOB_VAR: from-the-job
  before_script:
    - echo "before:$FILE_VAR"
  script:
    - echo "script:$FILE_VAR:$JOB_VAR:$CI_JOB_STAGE"
    - test -f README.md
  after_script:
    - echo "after:$CI_JOB_NAME"
test:
  stage: test
  script:
    - echo "second:$CI_JOB_STAGE:$FILE_VAR"
`)
		out := startRunner(t, a, bin, token, 2, 3*time.Minute).wait()
		jobs, logs := a.jobsByName(pid)
		for _, name := range []string{"build", "test"} {
			if jobs[name]["status"] != "success" {
				t.Fatalf("job %s: %v\nlog:\n%s\nrunner:\n%s", name, jobs[name], logs[name], out)
			}
		}
		for name, want := range map[string][]string{
			"build": {"before:from-the-ci-file", "script:from-the-ci-file:from-the-job:build", "after:build"},
			"test":  {"second:test:from-the-ci-file"},
		} {
			for _, w := range want {
				if !strings.Contains(logs[name], w) {
					t.Errorf("log of %s lacks %q:\n%s", name, w, logs[name])
				}
			}
		}
		pl := a.mustList(fmt.Sprintf("/projects/%d/pipelines", pid))
		if len(pl) != 1 || pl[0]["status"] != "success" {
			t.Errorf("pipelines %v", pl)
		}
	})

	t.Run("a failing script", func(t *testing.T) {
		a := newAPI(t)
		pid, token := a.runnerProject("bin-fails", `stages: [build, test]
fails:
  stage: build
  script:
    - echo "about:to:fail"
    - exit 1
  after_script:
    - echo "after:$CI_JOB_STATUS"
never:
  stage: test
  script:
    - echo "the second stage ran"
`)
		out := startRunner(t, a, bin, token, 1, 3*time.Minute).wait()
		jobs, logs := a.jobsByName(pid)
		j := jobs["fails"]
		if j["status"] != "failed" || j["failure_reason"] != "script_failure" {
			t.Fatalf("job %v\nlog:\n%s\nrunner:\n%s", j, logs["fails"], out)
		}
		for _, w := range []string{"about:to:fail", "after:failed"} {
			if !strings.Contains(logs["fails"], w) {
				t.Errorf("log lacks %q:\n%s", w, logs["fails"])
			}
		}
		// The second stage waits on the first: a failed first stage skips it.
		if jobs["never"]["status"] != "skipped" {
			t.Errorf("the second stage after a failure: %v", jobs["never"])
		}
		pl := a.mustList(fmt.Sprintf("/projects/%d/pipelines", pid))
		if len(pl) != 1 || pl[0]["status"] != "failed" {
			t.Errorf("pipelines %v", pl)
		}
	})

	// A job canceled while it runs: the runner learns of it at its next PATCH
	// of the log or PUT, answered 403 with Job-Status: canceled, which it
	// reads as the job having failed remotely and aborts (network/gitlab.go
	// createPatchTraceResult and network/remote_job_state_response.go IsFailed
	// @fc1f1862). It sends them every X-GitLab-Trace-Update-Interval seconds
	// (network/trace.go setUpdateInterval @fc1f1862), which the reference, as
	// the platform for a log nobody watches, sets to 60: this takes about a
	// minute, and -short leaves it out.
	t.Run("canceled while running", func(t *testing.T) {
		if testing.Short() {
			t.Skip("-short: the runner polls a log nobody watches every 60 s")
		}
		a := newAPI(t)
		pid, token := a.runnerProject("bin-cancel", `waits:
  script:
    - echo "waiting:for:cancel"
    - sleep 300
`)
		run := startRunner(t, a, bin, token, 1, 3*time.Minute)
		// The job is running once the runner has taken it; a runner that
		// ends first, or a minute without, fails here.
		var j map[string]any
		for end := time.Now().Add(time.Minute); time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
			jobs, _ := a.jobsByName(pid)
			if j = jobs["waits"]; j["status"] == "running" {
				break
			}
			select {
			case <-run.done:
				run.wait()
				t.Fatalf("the runner ended without taking the job: %v\n%s", j, run.out.String())
			default:
			}
		}
		if j["status"] != "running" {
			run.wait()
			t.Fatalf("the runner did not take the job: %v", j)
		}
		a.must(201, "POST", fmt.Sprintf("/projects/%d/jobs/%v/cancel", pid, j["id"]), nil)
		out := run.wait()
		jobs, logs := a.jobsByName(pid)
		if jobs["waits"]["status"] != "canceled" {
			t.Fatalf("job %v\nlog:\n%s\nrunner:\n%s", jobs["waits"], logs["waits"], out)
		}
	})
}
