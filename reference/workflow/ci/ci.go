// Package ci holds the platform's pipeline workflows: a pipeline made from
// the CI file of a commit (the supported subset of the configuration), its
// jobs recorded in the store stage by stage. It knows nothing of HTTP.
package ci

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/v4cert/v4cert/reference/store"
	"github.com/v4cert/v4cert/reference/workflow/repository"
)

// Workflows are the pipeline workflows of one store.
type Workflows struct {
	store *store.Store
	repos *repository.Workflows // the projects' repositories, for persistent refs
}

// New builds the pipeline workflows over st and the repositories of repos.
func New(st *store.Store, repos *repository.Workflows) *Workflows {
	return &Workflows{store: st, repos: repos}
}

// ErrNoProject is a pipeline whose project was deleted while its CI file was read.
var ErrNoProject = errors.New("project not found")

// File is where a pipeline's configuration lives, as on the platform.
const File = ".gitlab-ci.yml"

// ciReserved are top-level keys of a CI file that are not jobs.
var ciReserved = map[string]bool{"stages": true, "variables": true, "default": true, "include": true, "workflow": true,
	"image": true, "services": true, "before_script": true, "after_script": true, "cache": true}

// ciConfigError is the platform's answer to a configuration it cannot use:
// the validation shape on "base".
func ciConfigError(msg string) error {
	return &store.ValidationError{Fields: map[string][]string{"base": {msg}}}
}

// Parse reads the supported subset of the CI configuration (see README):
// stages; jobs with stage, script, tags, allow_failure, when: manual, and
// trigger: {include: file} for trigger jobs whose child pipeline comes from
// another file of the same commit. Jobs are returned stage by stage, in the
// order the file writes them.
func Parse(ctx context.Context, repo *repository.Repo, commit repository.Oid, file string) ([]*store.Job, error) {
	return parse(ctx, repo, commit, file, 0)
}

func parse(ctx context.Context, repo *repository.Repo, commit repository.Oid, file string, depth int) ([]*store.Job, error) {
	e, err := repo.Lookup(ctx, commit, file)
	if err != nil || e.Type != "blob" {
		if depth == 0 {
			return nil, ciConfigError("Missing CI config file")
		}
		return nil, ciConfigError("Local file `" + file + "` does not exist!")
	}
	raw, err := repo.Blob(ctx, e.ID)
	if err != nil {
		return nil, &repository.Failure{Object: "File", Err: err}
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(raw, &doc); err != nil || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, ciConfigError("Invalid configuration format")
	}
	root := doc.Content[0]
	stages := []string{".pre", "build", "test", "deploy", ".post"}
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == "stages" {
			var st []string
			if err := root.Content[i+1].Decode(&st); err != nil {
				return nil, ciConfigError("stages config should be an array of strings")
			}
			stages = append(append([]string{".pre"}, st...), ".post")
		}
	}
	stageIdx := map[string]int{}
	for i, s := range stages {
		stageIdx[s] = i
	}
	defaults, err := readDefaults(root)
	if err != nil {
		return nil, err
	}
	var jobs []*store.Job
	for i := 0; i+1 < len(root.Content); i += 2 {
		name := root.Content[i].Value
		if ciReserved[name] || strings.HasPrefix(name, ".") {
			continue
		}
		var def struct {
			Stage        string    `yaml:"stage"`
			Script       yaml.Node `yaml:"script"`
			Tags         []string  `yaml:"tags"`
			AllowFailure *bool     `yaml:"allow_failure"`
			When         string    `yaml:"when"`
			Trigger      *struct {
				Include string `yaml:"include"`
			} `yaml:"trigger"`
			jobSettings `yaml:",inline"`
		}
		if err := root.Content[i+1].Decode(&def); err != nil {
			return nil, ciConfigError(fmt.Sprintf("jobs:%s config contains unknown keys or invalid values", name))
		}
		if def.Stage == "" {
			def.Stage = "test"
		}
		idx, ok := stageIdx[def.Stage]
		if !ok {
			return nil, ciConfigError(fmt.Sprintf("%s job: chosen stage %s does not exist; available stages are %s", name, def.Stage, strings.Join(stages, ", ")))
		}
		j := &store.Job{Name: name, Stage: def.Stage, StageIdx: idx, TagList: def.Tags, Manual: def.When == "manual"}
		if err := defaults.apply(j, &def.jobSettings, name); err != nil {
			return nil, err
		}
		if j.TagList == nil {
			j.TagList = []string{}
		}
		// Manual jobs may fail by default, as on the platform.
		j.AllowFailure = j.Manual
		if def.AllowFailure != nil {
			j.AllowFailure = *def.AllowFailure
		}
		switch {
		case def.Trigger != nil:
			if depth > 2 {
				return nil, ciConfigError("Maximum nesting depth of child pipelines reached")
			}
			j.Bridge = true
			if def.Trigger.Include != "" {
				child, err := parse(ctx, repo, commit, def.Trigger.Include, depth+1)
				if err != nil {
					return nil, err
				}
				j.Child = child
			}
		case def.Script.Kind == yaml.ScalarNode:
			j.Script = []string{def.Script.Value}
		case def.Script.Kind == yaml.SequenceNode:
			if err := def.Script.Decode(&j.Script); err != nil {
				return nil, ciConfigError(fmt.Sprintf("jobs:%s:script config should be a string or a nested array of strings up to 10 levels deep", name))
			}
		default:
			return nil, ciConfigError(fmt.Sprintf("jobs %s config should implement the script:, run:, or trigger: keyword", name))
		}
		jobs = append(jobs, j)
	}
	if len(jobs) == 0 {
		return nil, ciConfigError("Pipeline will not run for the selected trigger. The rules configuration prevented any jobs from being added to the pipeline.")
	}
	// Stage by stage, keeping the file's order within a stage.
	var out []*store.Job
	for idx := range stages {
		for _, j := range jobs {
			if j.StageIdx == idx {
				out = append(out, j)
			}
		}
	}
	return out, nil
}

// CreatePipeline is POST /projects/:id/pipeline: the CI file of ref (a
// branch, else a tag) at its head commit becomes a pipeline of t's project,
// its jobs stage by stage, started by t.By. view runs under the store's lock
// with the new pipeline, so the caller computes its answer there and writes
// it after. A configuration the platform refuses is a *store.ValidationError
// on "base"; nothing is written.
func (w *Workflows) CreatePipeline(ctx context.Context, t *repository.Target, ref string, view func(d *store.Data, pl *store.Pipeline)) error {
	tag := false
	oid, err := t.Repo.Branch(ctx, ref)
	if err != nil {
		if oid, err = t.Repo.Tag(ctx, ref); err != nil {
			return ciConfigError("Reference not found")
		}
		tag = true
	}
	commit, err := t.Repo.Commit(ctx, oid)
	if err != nil {
		return &repository.Failure{Object: "Commit", Err: err}
	}
	jobs, err := Parse(ctx, t.Repo, oid, File)
	if err != nil {
		return err
	}
	return w.store.Write(func(d *store.Data) error {
		p := d.Project(t.ProjectID)
		if p == nil {
			return ErrNoProject
		}
		pl := &store.Pipeline{ProjectID: p.ID, Ref: ref, SHA: string(oid), Tag: tag, UserID: t.By.ID,
			Commit: store.JobCommit{ID: string(commit.ID), ShortID: string(commit.ID)[:8], Title: commit.Title(),
				Message: commit.Message, AuthorName: commit.Author.Name, AuthorEmail: commit.Author.Email,
				CreatedAt: commit.Committer.When}}
		d.NewPipeline(pl, jobs)
		view(d, pl)
		return nil
	})
}

// jobSettings are the keywords a job shares with default: (and, for some,
// the top level): what the runner receives besides the script.
type jobSettings struct {
	BeforeScript yaml.Node `yaml:"before_script"`
	AfterScript  yaml.Node `yaml:"after_script"`
	Image        yaml.Node `yaml:"image"`
	Services     yaml.Node `yaml:"services"`
	Variables    yaml.Node `yaml:"variables"`
}

// settings are jobSettings read.
type settings struct {
	before, after []string
	hasBefore     bool
	hasAfter      bool
	image         *store.JobImage
	services      []store.JobImage
	hasServices   bool
	variables     []store.JobVariable
}

// readDefaults reads default: and the deprecated top-level image:,
// services:, before_script:, after_script: and variables:; default: wins
// over the top level, a job's own keyword over both (the platform's
// Gitlab::Ci::Config::Entry::Default and Job inherit).
func readDefaults(root *yaml.Node) (*settings, error) {
	top := &jobSettings{}
	var def jobSettings
	for i := 0; i+1 < len(root.Content); i += 2 {
		v := root.Content[i+1]
		switch root.Content[i].Value {
		case "before_script":
			top.BeforeScript = *v
		case "after_script":
			top.AfterScript = *v
		case "image":
			top.Image = *v
		case "services":
			top.Services = *v
		case "variables":
			top.Variables = *v
		case "default":
			if err := v.Decode(&def); err != nil {
				return nil, ciConfigError("default config contains unknown keys or invalid values")
			}
		}
	}
	out := &settings{}
	if err := out.read(top, "root"); err != nil {
		return nil, err
	}
	vars := out.variables
	if err := out.read(&def, "default"); err != nil {
		return nil, err
	}
	// Top-level variables are global; default: takes no variables.
	out.variables = vars
	return out, nil
}

// read overlays what s sets on out.
func (out *settings) read(s *jobSettings, where string) error {
	bad := func(key string) error {
		return ciConfigError(fmt.Sprintf("%s:%s config should be a string or a nested array of strings up to 10 levels deep", where, key))
	}
	if s.BeforeScript.Kind != 0 {
		lines, ok := scriptLines(&s.BeforeScript)
		if !ok {
			return bad("before_script")
		}
		out.before, out.hasBefore = lines, true
	}
	if s.AfterScript.Kind != 0 {
		lines, ok := scriptLines(&s.AfterScript)
		if !ok {
			return bad("after_script")
		}
		out.after, out.hasAfter = lines, true
	}
	if s.Image.Kind != 0 {
		img, ok := readImage(&s.Image)
		if !ok {
			return ciConfigError(fmt.Sprintf("%s:image config should be a hash or a string", where))
		}
		out.image = img
	}
	if s.Services.Kind != 0 {
		if s.Services.Kind != yaml.SequenceNode {
			return ciConfigError(fmt.Sprintf("%s:services config should be a array", where))
		}
		out.services, out.hasServices = nil, true
		for _, n := range s.Services.Content {
			img, ok := readImage(n)
			if !ok {
				return ciConfigError(fmt.Sprintf("%s:services:service config should be a hash or a string", where))
			}
			out.services = append(out.services, *img)
		}
	}
	if s.Variables.Kind != 0 {
		if s.Variables.Kind != yaml.MappingNode {
			return ciConfigError(fmt.Sprintf("%s:variables config should be a hash of key value pairs", where))
		}
		for i := 0; i+1 < len(s.Variables.Content); i += 2 {
			k, v := s.Variables.Content[i].Value, s.Variables.Content[i+1]
			val := v.Value
			if v.Kind == yaml.MappingNode { // {value: ..., description: ...}
				var full struct {
					Value string `yaml:"value"`
				}
				if err := v.Decode(&full); err != nil {
					return ciConfigError(fmt.Sprintf("%s:variables config should be a hash of key value pairs", where))
				}
				val = full.Value
			} else if v.Kind != yaml.ScalarNode {
				return ciConfigError(fmt.Sprintf("%s:variables config should be a hash of key value pairs", where))
			}
			out.variables = setVariable(out.variables, store.JobVariable{Key: k, Value: val})
		}
	}
	return nil
}

func setVariable(vars []store.JobVariable, v store.JobVariable) []store.JobVariable {
	for i := range vars {
		if vars[i].Key == v.Key {
			vars[i] = v
			return vars
		}
	}
	return append(vars, v)
}

// scriptLines reads a script keyword: a string, or an array of strings and
// nested arrays (flattened, as the platform does).
func scriptLines(n *yaml.Node) ([]string, bool) {
	switch n.Kind {
	case yaml.ScalarNode:
		return []string{n.Value}, true
	case yaml.SequenceNode:
		var out []string
		for _, c := range n.Content {
			lines, ok := scriptLines(c)
			if !ok {
				return nil, false
			}
			out = append(out, lines...)
		}
		return out, true
	}
	return nil, false
}

// readImage reads image: or a service: a name, or {name, alias, entrypoint, command}.
func readImage(n *yaml.Node) (*store.JobImage, bool) {
	switch n.Kind {
	case yaml.ScalarNode:
		return &store.JobImage{Name: n.Value}, n.Value != ""
	case yaml.MappingNode:
		var img struct {
			Name       string   `yaml:"name"`
			Alias      string   `yaml:"alias"`
			Entrypoint []string `yaml:"entrypoint"`
			Command    []string `yaml:"command"`
		}
		if err := n.Decode(&img); err != nil || img.Name == "" {
			return nil, false
		}
		return &store.JobImage{Name: img.Name, Alias: img.Alias, Entrypoint: img.Entrypoint, Command: img.Command}, true
	}
	return nil, false
}

// apply gives j the defaults overlaid with its own settings.
func (defaults *settings) apply(j *store.Job, own *jobSettings, name string) error {
	s := *defaults
	s.variables = append([]store.JobVariable(nil), defaults.variables...)
	if err := s.read(own, "jobs:"+name); err != nil {
		return err
	}
	j.BeforeScript, j.AfterScript, j.Image, j.Services, j.Variables = s.before, s.after, s.image, s.services, s.variables
	return nil
}
