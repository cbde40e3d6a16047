package suites

import (
	"fmt"
	"net/http"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/v4cert/v4cert/specs"
)

// The runner API as gitlab-runner speaks it (provisioning, who: runner;
// docs/runner.md): its bodies carry info with nested objects, the job's log
// goes by PATCH /jobs/:id/trace with Content-Range, and the job's token
// travels in JOB-TOKEN. The bodies below have the shape of
// gitlab-org/gitlab-runner common/network.go's JobRequest,
// VerifyRunnerRequest and UpdateJobRequest.

// runnerWireInfo is the info a shell-executor runner sends: scalar fields
// and the nested features and config objects.
func runnerWireInfo() map[string]any {
	return map[string]any{"name": "gitlab-runner", "version": "19.4.0", "revision": "d79f3e7b", "platform": "linux",
		"architecture": "amd64", "executor": "shell", "shell": "bash",
		"features": map[string]any{"variables": true, "image": false, "services": false, "artifacts": true, "cache": true,
			"shared": true, "refspecs": true, "masking": true, "raw_variables": true, "multi_build_steps": true,
			"trace_reset": true, "trace_checksum": true, "trace_size": true, "cancelable": true, "return_exit_code": true,
			"cancel_gracefully": true, "two_phase_job_commit": true, "job_inputs": true},
		"config": map[string]any{"gpus": ""}}
}

var _ = Describe("The runner protocol", Label("area:jobs"), func() {
	It("hands a runner a job it can run", Label("endpoint:jobs.request", "rule:jobs.request.1"), func(ctx SpecContext) {
		p := NewCIProject(ctx, api, map[string]string{".gitlab-ci.yml": ciSingle})
		rn := NewProjectRunner(ctx, p.Project)
		pl := runPipeline(ctx, api, p)
		r := api.Anonymous().Post(ctx, "/jobs/request", Body(map[string]any{"info": runnerWireInfo(), "token": rn.Token,
			"system_id": Unique("s_"), "last_update": ""}))
		Expect(r).To(HaveStatus(http.StatusCreated))
		token := r.Get("token").String()
		Expect(token).NotTo(BeEmpty())
		repoURL := r.Get("git_info.repo_url").String()
		Expect(repoURL).To(HaveSuffix(".git"))
		if token == specs.Redacted {
			// A replayed cassette: the URL's user information was redacted whole.
			Expect(repoURL).To(ContainSubstring("://" + specs.Redacted + "@"))
		} else {
			Expect(repoURL).To(ContainSubstring("://gitlab-ci-token:" + token + "@"))
		}
		Expect(r.Get("git_info.sha").String()).To(Equal(pl.Get("sha").String()))
		Expect(r.Get("git_info.ref").String()).To(Equal(p.DefaultBranch))
		Expect(r.Get("git_info.ref_type").String()).To(Equal("branch"))
		Expect(r.Get("git_info.refspecs").String()).To(ContainSubstring("refs/heads/" + p.DefaultBranch))
		Expect(r.Get("runner_info.timeout").Int()).To(BeNumerically(">", 0))
		vars := map[string]string{}
		for _, v := range r.Get("variables").Array() {
			vars[v.Get("key").String()] = v.Get("value").String()
		}
		Expect(vars).To(HaveKeyWithValue("CI_JOB_TOKEN", token))
		Expect(vars).To(HaveKeyWithValue("CI_COMMIT_SHA", pl.Get("sha").String()))
		Expect(vars).To(HaveKeyWithValue("CI_COMMIT_REF_NAME", p.DefaultBranch))
		Expect(vars).To(HaveKeyWithValue("CI_PROJECT_ID", fmt.Sprint(p.ID)))
		Expect(vars).To(HaveKeyWithValue("CI_JOB_ID", r.Get("id").String()))
		Expect(vars).To(HaveKeyWithValue("CI_PIPELINE_ID", pl.Get("id").String()))
		Expect(vars).To(HaveKeyWithValue("CI_REPOSITORY_URL", repoURL))
		Expect(vars).To(HaveKey("CI_SERVER_URL"))
		Expect(r.Get("steps.0.name").String()).To(Equal("script"))
		Expect(r.Get("steps.0.script").String()).To(ContainSubstring("echo hello"))
		none := api.Anonymous().Post(ctx, "/jobs/request", Body(map[string]any{"info": runnerWireInfo(), "token": rn.Token}))
		Expect(none).To(HaveStatus(http.StatusNoContent))
	})

	It("appends the log a runner streams in parts, refusing a part that does not follow", Label("endpoint:jobs.trace_append", "rule:jobs.trace_append.1"), func(ctx SpecContext) {
		p := NewCIProject(ctx, api, map[string]string{".gitlab-ci.yml": ciSingle})
		rn := NewProjectRunner(ctx, p.Project)
		RunPipeline(ctx, api, p)
		j := rn.Take(ctx, Unique("s_"))
		part1, part2 := "$ echo hello\n", "hello\n"
		patch := func(part string, start int) *Response {
			GinkgoHelper()
			return api.Anonymous().Patch(ctx, fmt.Sprintf("/jobs/%d/trace", j.ID), RawBody("text/plain", []byte(part)),
				Header("JOB-TOKEN", j.Token), Header("Content-Range", fmt.Sprintf("%d-%d", start, start+len(part)-1)))
		}
		r := patch(part1, 0)
		Expect(r).To(HaveStatus(http.StatusAccepted))
		Expect(r.Header.Get("Range")).To(Equal(fmt.Sprintf("0-%d", len(part1))))
		Expect(r.Header.Get("Job-Status")).To(Equal("running"))
		r = patch(part2, len(part1)+5)
		Expect(r).To(HaveStatus(http.StatusRequestedRangeNotSatisfiable))
		Expect(r.Header.Get("Range")).To(Equal(fmt.Sprintf("0-%d", len(part1))))
		Expect(patch(part2, len(part1))).To(HaveStatus(http.StatusAccepted))
		j.Finish(ctx, "success", "")
		log := api.Get(ctx, fmt.Sprintf("%s/trace", jobPath(p, j.ID)))
		Expect(log).To(HaveStatus(http.StatusOK))
		Expect(strings.TrimSpace(string(log.Body))).To(Equal(strings.TrimSpace(part1 + part2)))
	})

	It("tells the runner of a canceled job at its next update", Label("endpoint:jobs.update", "rule:jobs.update.1"), func(ctx SpecContext) {
		p := NewCIProject(ctx, api, map[string]string{".gitlab-ci.yml": ciSingle})
		rn := NewProjectRunner(ctx, p.Project)
		RunPipeline(ctx, api, p)
		j := rn.Take(ctx, Unique("s_"))
		Expect(api.Post(ctx, jobPath(p, j.ID)+"/cancel")).To(HaveStatus(http.StatusCreated))
		r := api.Anonymous().Put(ctx, fmt.Sprintf("/jobs/%d", j.ID), Body(map[string]any{"info": runnerWireInfo(),
			"token": j.Token, "state": "success", "output": map[string]any{"checksum": "crc32:00000000", "bytesize": 0}}),
			Header("JOB-TOKEN", j.Token))
		Expect(r).To(HaveStatus(http.StatusForbidden))
		Expect(r.Header.Get("Job-Status")).To(Equal("canceled"))
		Expect(api.Get(ctx, jobPath(p, j.ID)).Get("status").String()).To(Equal("canceled"))
	})
})

var _ = Describe("The runner protocol: verification", Label("area:runners"), func() {
	It("verifies a runner by its token", Label("endpoint:runners.verify", "rule:runners.verify.1"), func(ctx SpecContext) {
		p := NewCIProject(ctx, api, map[string]string{".gitlab-ci.yml": ciSingle})
		rn := NewProjectRunner(ctx, p.Project)
		r := api.Anonymous().Post(ctx, "/runners/verify", Body(map[string]any{"info": runnerWireInfo(), "token": rn.Token,
			"system_id": Unique("s_")}))
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(r.Get("id").Int()).To(BeEquivalentTo(rn.ID))
		Expect(r.Get("token").String()).To(Equal(rn.Token))
		bad := api.Anonymous().Post(ctx, "/runners/verify", Body(map[string]any{"info": runnerWireInfo(), "token": rn.Token + "x"}))
		Expect(bad).To(HaveStatus(http.StatusForbidden))
	})
})
