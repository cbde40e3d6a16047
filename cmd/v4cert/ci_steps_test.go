package main

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"gopkg.in/yaml.v3"
)

// TestCIServeAndCertifySteps runs the shell steps of the GitHub Actions
// (ci/serve, ci/certify) and the GitLab CI/CD components (templates/) as a
// runner would, on this machine: serve.sh starts the built binary, waits
// for readiness and exports the URL and token into GITHUB_ENV and
// GITHUB_OUTPUT; the component's readiness wait finds it; certify.sh runs
// one area against it, writes the reports and the job summary, and exits
// with certify's status.
func TestCIServeAndCertifySteps(t *testing.T) {
	bin, err := buildV4cert()
	if err != nil {
		t.Fatal(err)
	}
	root, _ := filepath.Abs("../..")
	work := t.TempDir()
	ghEnv, ghOut, summary := filepath.Join(work, "env"), filepath.Join(work, "out"), filepath.Join(work, "summary")
	gh := []string{"GITHUB_ENV=" + ghEnv, "GITHUB_OUTPUT=" + ghOut, "GITHUB_STEP_SUMMARY=" + summary, "V4CERT_BIN=" + bin}

	// The actions' run: lines call the scripts through $GITHUB_ACTION_PATH.
	for _, a := range []string{"serve", "certify"} {
		action := readYAML(t, filepath.Join(root, "ci", a, "action.yml"))
		runs := action["runs"].(map[string]any)
		found := false
		for _, s := range runs["steps"].([]any) {
			if run, _ := s.(map[string]any)["run"].(string); strings.Contains(run, `$GITHUB_ACTION_PATH/`+a+`.sh`) {
				found = true
			}
		}
		if !found {
			t.Errorf("ci/%s/action.yml does not run %s.sh", a, a)
		}
	}

	serve := exec.Command(filepath.Join(root, "ci", "serve", "serve.sh"))
	serve.Dir = work
	serve.Env = append(os.Environ(), append(gh, "V4CERT_ADDR=127.0.0.1:"+freePort(t), "V4CERT_SEED=none", "V4CERT_ROOT_TOKEN=")...)
	out, err := serve.CombinedOutput()
	if err != nil {
		t.Fatalf("serve.sh: %v\n%s", err, out)
	}
	pid, _ := os.ReadFile(filepath.Join(work, "v4cert-serve.pid"))
	t.Cleanup(func() {
		var p int
		for _, c := range strings.TrimSpace(string(pid)) {
			p = p*10 + int(c-'0')
		}
		if p > 0 {
			_ = syscall.Kill(p, syscall.SIGTERM)
		}
	})
	exported := keyValues(t, ghEnv)
	url, token := exported["V4CERT_URL"], exported["V4CERT_TOKEN"]
	if url == "" || !strings.HasPrefix(token, "v4cert-") {
		t.Fatalf("GITHUB_ENV: %v (a random token was asked for)", exported)
	}
	if outs := keyValues(t, ghOut); outs["url"] != url || outs["token"] != token {
		t.Errorf("GITHUB_OUTPUT: %v", outs)
	}
	req, _ := http.NewRequest("GET", url+"/api/v4/user", nil)
	req.Header.Set("PRIVATE-TOKEN", token)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 200 {
		t.Fatalf("the exported token does not sign in: %v %v", resp, err)
	}

	// The serve component's script, with the service's URL pointed here.
	comp := readComponent(t, filepath.Join(root, "templates", "serve.yml"), map[string]string{"script": "echo tests ran against $V4CERT_URL"})
	job := comp["v4cert-tests"].(map[string]any)
	vars := job["variables"].(map[string]any)
	vars["V4CERT_URL"] = url
	if got := runScript(t, job, work); !strings.Contains(got, "v4cert ready at "+url) || !strings.Contains(got, "tests ran against "+url) {
		t.Errorf("serve component's script said:\n%s", got)
	}

	// certify.sh on one area, as the certify action runs it.
	certify := exec.Command(filepath.Join(root, "ci", "certify", "certify.sh"))
	certify.Dir = work
	certify.Env = append(os.Environ(), append(gh, "V4CERT_TARGET="+url, "V4CERT_TOKEN="+token, "V4CERT_LABEL_FILTER=area:version", "V4CERT_ARGS=--procs 1")...)
	if out, err := certify.CombinedOutput(); err != nil {
		t.Fatalf("certify.sh: %v\n%s", err, out)
	}
	for _, f := range []string{"junit.xml", "report.json", "summary.md", "report.html"} {
		if _, err := os.Stat(filepath.Join(work, "v4cert-certify", f)); err != nil {
			t.Errorf("certify.sh wrote no %s: %v", f, err)
		}
	}
	if s, _ := os.ReadFile(summary); !strings.Contains(string(s), "CONFORMANT") {
		t.Errorf("job summary has no verdict:\n%s", s)
	}
	if outs := keyValues(t, ghOut); outs["exit-code"] != "0" || outs["verdict"] != "CONFORMANT" {
		t.Errorf("certify outputs: %v", outs)
	}

	// The certify component: its script, with v4cert on PATH as in the image.
	comp = readComponent(t, filepath.Join(root, "templates", "certify.yml"), map[string]string{"target": url, "label-filter": "area:version", "args": "--procs 1"})
	job = comp["v4cert-certify"].(map[string]any)
	job["variables"].(map[string]any)["V4CERT_TOKEN"] = token
	job["variables"].(map[string]any)["PATH"] = filepath.Dir(bin) + ":" + os.Getenv("PATH")
	if got := runScript(t, job, t.TempDir()); !strings.Contains(got, "CONFORMANT") {
		t.Errorf("certify component's script said:\n%s", got)
	}
}

func readYAML(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := yaml.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return v
}

// readComponent interpolates a GitLab CI/CD component's inputs as GitLab
// does ($[[ inputs.NAME ]], defaults from its spec header) and returns its
// jobs. An input without a default must be given.
func readComponent(t *testing.T, path string, inputs map[string]string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	header, body, ok := strings.Cut(string(b), "\n---\n")
	if !ok {
		t.Fatalf("%s: no spec header", path)
	}
	var spec struct {
		Spec struct {
			Inputs map[string]struct {
				Default *string `yaml:"default"`
			} `yaml:"inputs"`
		} `yaml:"spec"`
	}
	if err := yaml.Unmarshal([]byte(header), &spec); err != nil {
		t.Fatalf("%s header: %v", path, err)
	}
	for name, in := range spec.Spec.Inputs {
		v, given := inputs[name]
		if !given {
			if in.Default == nil {
				t.Fatalf("%s: input %s has no default and was not given", path, name)
			}
			v = *in.Default
		}
		body = strings.ReplaceAll(body, "$[[ inputs."+name+" ]]", v)
	}
	if strings.Contains(body, "$[[") {
		t.Fatalf("%s: an input is used but not declared:\n%s", path, body)
	}
	var jobs map[string]any
	if err := yaml.Unmarshal([]byte(body), &jobs); err != nil {
		t.Fatalf("%s jobs: %v", path, err)
	}
	return jobs
}

// runScript runs a job's script lines in one sh, with its variables, as a
// GitLab runner's shell executor does.
func runScript(t *testing.T, job map[string]any, dir string) string {
	t.Helper()
	var lines []string
	for _, l := range job["script"].([]any) {
		lines = append(lines, l.(string))
	}
	cmd := exec.Command("sh", "-ec", strings.Join(lines, "\n"))
	cmd.Dir = dir
	cmd.Env = os.Environ()
	for k, v := range job["variables"].(map[string]any) {
		cmd.Env = append(cmd.Env, fmt.Sprint(k, "=", v))
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("job script: %v\n%s", err, out)
	}
	return string(out)
}

func keyValues(t *testing.T, path string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	kv := map[string]string{}
	for _, l := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(l, "="); ok {
			kv[k] = v
		}
	}
	return kv
}
