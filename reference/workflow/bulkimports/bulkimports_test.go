package bulkimports_test

import (
	"net"
	"net/http"
	"testing"

	"github.com/v4cert/v4cert/reference/importer"
	"github.com/v4cert/v4cert/reference/store"
	"github.com/v4cert/v4cert/reference/workflow/bulkimports"
	"github.com/v4cert/v4cert/reference/workflow/workflowtest"
)

// TestUnreachableSourceFailsTheImport: an entity the source cannot give
// fails with its failure recorded (relation, the network error, pipeline) and,
// every entity failed, so does the import; nothing is created at the
// destination. What the import recorded persists.
func TestUnreachableSourceFailsTheImport(t *testing.T) {
	workflowtest.Run(t, false, func(t *testing.T, w *workflowtest.World) {
		// A loopback port nothing listens on any more: a real refusal.
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		source := "http://" + l.Addr().String()
		l.Close()

		var b *store.BulkImport
		var groups int
		err = w.Store.Write(func(d *store.Data) error {
			g, err := d.CreateGroup(store.NewGroup{Name: "Destination", Path: "destination", Visibility: "private", CreatorID: w.User.ID})
			if err != nil {
				return err
			}
			groups = len(d.Groups())
			b = d.CreateBulkImport(w.User.ID, source, []*store.BulkImportEntity{{EntityType: "project",
				SourceFullPath: "team/app", DestinationNamespace: g.Path, DestinationSlug: "app", MigrateMemberships: true}})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		src := importer.Source{URL: source, Token: "token", HTTP: &http.Client{}}
		bulkimports.New(w.Store, w.Repos).Run(t.Context(), b, src)

		w.Reopen(t).Read(func(d *store.Data) error {
			got := d.BulkImport(b.ID)
			if got.Status != "failed" || len(got.Entities) != 1 || got.Entities[0].Status != "failed" {
				t.Fatalf("import %s, entities %+v; want both failed", got.Status, got.Entities)
			}
			f := got.Entities[0].Failures
			if len(f) != 1 || f[0].Relation != "project" || f[0].ExceptionClass != "BulkImports::NetworkError" ||
				f[0].PipelineClass != "BulkImports::Projects::Pipelines::ProjectPipeline" || f[0].SourceTitle != "team/app" {
				t.Fatalf("failures %+v", f)
			}
			if d.ProjectByPath("destination/app") != nil || len(d.Groups()) != groups {
				t.Fatal("a failed import created something")
			}
			return nil
		})
	})
}
