package ci_test

import (
	"errors"
	"testing"

	"github.com/v4cert/v4cert/reference/store"
	"github.com/v4cert/v4cert/reference/workflow/ci"
	"github.com/v4cert/v4cert/reference/workflow/repository"
	"github.com/v4cert/v4cert/reference/workflow/workflowtest"
)

const config = `stages: [build, test, deploy]
unit:
  stage: test
  script: go test ./...
compile:
  stage: build
  script: [go build ./...]
  tags: [linux]
release:
  stage: deploy
  when: manual
  script: make release
`

// TestCreatePipeline: a branch's CI file becomes a pipeline whose jobs are
// recorded stage by stage (persisted too); the view callback sees it under
// the store's lock.
func TestCreatePipeline(t *testing.T) {
	workflowtest.Run(t, true, func(t *testing.T, w *workflowtest.World) {
		tg := w.Target(t)
		c, err := w.Repos.Commit(t.Context(), tg, &repository.CommitRequest{Branch: "main", Message: "CI",
			Actions: []repository.Action{{Kind: "create", Path: ci.File, Content: []byte(config), HasContent: true}},
			Author:  tg.Signature(w.Repos.Now())})
		if err != nil {
			t.Fatal(err)
		}
		flows := ci.New(w.Store, w.Repos)
		var id int
		if err := flows.CreatePipeline(t.Context(), tg, "main", func(_ *store.Data, pl *store.Pipeline) { id = pl.ID }); err != nil {
			t.Fatal(err)
		}
		w.Reopen(t).Read(func(d *store.Data) error {
			pl := d.Pipeline(w.Project.ID, id)
			if pl == nil || pl.SHA != string(c.ID) || pl.Ref != "main" || pl.UserID != w.User.ID {
				t.Fatalf("pipeline %+v", pl)
			}
			var names []string
			for _, j := range d.PipelineJobs(pl.ID) {
				names = append(names, j.Name)
			}
			if len(names) != 3 || names[0] != "compile" || names[1] != "unit" || names[2] != "release" {
				t.Errorf("jobs %v, want compile, unit, release (stage by stage)", names)
			}
			return nil
		})
	})
}

// TestRefusedConfigurations: what the platform refuses is the validation
// shape on base, and records nothing.
func TestRefusedConfigurations(t *testing.T) {
	workflowtest.Run(t, true, func(t *testing.T, w *workflowtest.World) {
		tg := w.Target(t)
		flows := ci.New(w.Store, w.Repos)
		called := false
		view := func(*store.Data, *store.Pipeline) { called = true }
		for ref, want := range map[string]string{"main": "Missing CI config file", "no-such-ref": "Reference not found"} {
			err := flows.CreatePipeline(t.Context(), tg, ref, view)
			var ve *store.ValidationError
			if !errors.As(err, &ve) || len(ve.Fields["base"]) != 1 || ve.Fields["base"][0] != want {
				t.Errorf("ref %s: %v, want %q on base", ref, err, want)
			}
		}
		if called {
			t.Error("a refused pipeline was recorded")
		}
	})
}
