package api

import (
	"cmp"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/v4cert/v4cert/reference/access"
	"github.com/v4cert/v4cert/reference/importer"
	"github.com/v4cert/v4cert/reference/params"
	"github.com/v4cert/v4cert/reference/store"
)

// BulkImportJSON is the Bulk import resource.
type BulkImportJSON struct {
	ID          int    `json:"id"`
	Status      string `json:"status"`
	SourceType  string `json:"source_type"`
	SourceURL   string `json:"source_url"`
	CreatedAt   string `json:"created_at"`
	UpdatedAt   string `json:"updated_at"`
	HasFailures bool   `json:"has_failures"`
}

// BulkImportFailureJSON is a failure inside an entity.
type BulkImportFailureJSON struct {
	Relation           string `json:"relation"`
	Step               string `json:"step"`
	ExceptionMessage   string `json:"exception_message"`
	ExceptionClass     string `json:"exception_class"`
	CorrelationIDValue string `json:"correlation_id_value"`
	CreatedAt          string `json:"created_at"`
	PipelineClass      string `json:"pipeline_class"`
	PipelineStep       string `json:"pipeline_step"`
}

// BulkImportStatJSON counts one relation of an entity.
type BulkImportStatJSON struct {
	Source   int `json:"source"`
	Fetched  int `json:"fetched"`
	Imported int `json:"imported"`
}

// BulkImportEntityJSON is the Bulk import entity resource.
type BulkImportEntityJSON struct {
	ID                   int                           `json:"id"`
	BulkImportID         int                           `json:"bulk_import_id"`
	Status               string                        `json:"status"`
	EntityType           string                        `json:"entity_type"`
	SourceFullPath       string                        `json:"source_full_path"`
	DestinationFullPath  string                        `json:"destination_full_path"`
	DestinationName      string                        `json:"destination_name"`
	DestinationSlug      string                        `json:"destination_slug"`
	DestinationNamespace string                        `json:"destination_namespace"`
	ParentID             *int                          `json:"parent_id"`
	NamespaceID          *int                          `json:"namespace_id"`
	ProjectID            *int                          `json:"project_id"`
	CreatedAt            string                        `json:"created_at"`
	UpdatedAt            string                        `json:"updated_at"`
	Failures             []BulkImportFailureJSON       `json:"failures"`
	MigrateProjects      bool                          `json:"migrate_projects"`
	MigrateMemberships   bool                          `json:"migrate_memberships"`
	HasFailures          bool                          `json:"has_failures"`
	Stats                map[string]BulkImportStatJSON `json:"stats"`
}

// BulkImportFailedRecordJSON is a failed-record entry.
type BulkImportFailedRecordJSON struct {
	Relation           string `json:"relation"`
	ExceptionMessage   string `json:"exception_message"`
	ExceptionClass     string `json:"exception_class"`
	CorrelationIDValue string `json:"correlation_id_value"`
	SourceURL          string `json:"source_url"`
	SourceTitle        string `json:"source_title"`
}

func bulkImportJSON(b *store.BulkImport) BulkImportJSON {
	return BulkImportJSON{ID: b.ID, Status: b.Status, SourceType: "gitlab", SourceURL: b.SourceURL,
		CreatedAt: ts(b.CreatedAt), UpdatedAt: ts(b.UpdatedAt), HasFailures: b.HasFailures()}
}

func bulkImportEntityJSON(e *store.BulkImportEntity) BulkImportEntityJSON {
	out := BulkImportEntityJSON{ID: e.ID, BulkImportID: e.BulkImportID, Status: e.Status, EntityType: e.EntityType,
		SourceFullPath: e.SourceFullPath, DestinationFullPath: e.DestinationNamespace + "/" + e.DestinationSlug,
		DestinationName: e.DestinationName, DestinationSlug: e.DestinationSlug,
		DestinationNamespace: e.DestinationNamespace, ParentID: e.ParentID, NamespaceID: e.NamespaceID,
		ProjectID: e.ProjectID, CreatedAt: ts(e.CreatedAt), UpdatedAt: ts(e.UpdatedAt),
		Failures: []BulkImportFailureJSON{}, MigrateProjects: e.MigrateProjects,
		MigrateMemberships: e.MigrateMemberships, HasFailures: e.HasFailures(),
		Stats: map[string]BulkImportStatJSON{}}
	for _, f := range e.Failures {
		out.Failures = append(out.Failures, BulkImportFailureJSON{Relation: f.Relation, Step: f.Step,
			ExceptionMessage: f.ExceptionMessage, ExceptionClass: f.ExceptionClass,
			CorrelationIDValue: f.CorrelationID, CreatedAt: ts(f.CreatedAt), PipelineClass: f.PipelineClass,
			PipelineStep: f.PipelineStep})
	}
	for k, s := range e.Stats {
		out.Stats[k] = BulkImportStatJSON(s)
	}
	return out
}

// readBulkEntity decodes one entities[] element with the shared parameter
// reader, so its booleans and strings follow the same rules as top-level ones.
func readBulkEntity(obj map[string]any) (*store.BulkImportEntity, error) {
	v, _ := params.FromQuery("")
	for k, x := range obj {
		v.Set(k, x)
	}
	in := v.Read()
	in.Require("source_type", "source_full_path", "destination_slug", "destination_namespace")
	kind := in.Enum("source_type", "group_entity", "project_entity")
	src, slug, ns := in.String("source_full_path"), in.String("destination_slug"), in.String("destination_namespace")
	name := in.StringOr("destination_name", "")
	projects, members := in.BoolOr("migrate_projects", true), in.BoolOr("migrate_memberships", true)
	if err := in.Err(); err != nil {
		var pe *params.Error
		if errors.As(err, &pe) {
			pe.Name = "entities[" + pe.Name + "]"
		}
		return nil, err
	}
	e := &store.BulkImportEntity{EntityType: strings.TrimSuffix(*kind, "_entity"), SourceFullPath: *src,
		DestinationSlug: *slug, DestinationName: name, DestinationNamespace: *ns,
		MigrateProjects: projects, MigrateMemberships: members}
	if e.DestinationName == "" {
		e.DestinationName = e.DestinationSlug
	}
	return e, nil
}

// unprocessable is the platform's answer to a destination the caller cannot use.
func unprocessable(msg string) *Error { return errorf(http.StatusUnprocessableEntity, "%s", msg) }

// createBulkImport implements POST /bulk_imports (rules bulk_imports.create.*,
// bulk_imports.progress.*). The answer shows the import as created; the
// migration then runs before the answer is sent, so that the next read is
// deterministic (no timers): created → started → finished or failed.
func (s *Server) createBulkImport(c *Ctx) error {
	in := c.In()
	conf := in.Hash("configuration")
	if err := in.Err(); err != nil {
		return err
	}
	for _, k := range []string{"url", "access_token"} {
		if conf[k] == "" {
			return missing("configuration[" + k + "]")
		}
	}
	objs := in.Objects("entities")
	if err := in.Err(); err != nil {
		return err
	}
	if len(objs) == 0 {
		return missing("entities")
	}
	src, err := url.Parse(conf["url"])
	if err != nil || (src.Scheme != "http" && src.Scheme != "https") || src.Host == "" || src.User != nil {
		return invalidParam("configuration[url]")
	}
	var entities []*store.BulkImportEntity
	for _, o := range objs {
		e, err := readBulkEntity(o)
		if err != nil {
			return err
		}
		entities = append(entities, e)
	}
	sourceURL := strings.TrimSuffix(conf["url"], "/")
	var b *store.BulkImport
	var body BulkImportJSON
	err = s.store.Write(func(d *store.Data) error {
		for _, e := range entities {
			if err := bulkDestinationUsable(d, c, e); err != nil {
				return err
			}
		}
		b = d.CreateBulkImport(c.Caller.ID, sourceURL, entities)
		body = bulkImportJSON(b)
		return nil
	})
	if err != nil {
		return err
	}
	source := importer.Source{URL: sourceURL, Token: conf["access_token"], HTTP: s.sourceClient(c, src)}
	s.imports.Run(c.R.Context(), b, source)
	return c.JSON(http.StatusCreated, body)
}

// bulkDestinationUsable checks destination_namespace: an existing group the
// caller may create in (subgroups: Maintainer, projects: Developer), and a
// free destination path.
func bulkDestinationUsable(d *store.Data, c *Ctx, e *store.BulkImportEntity) error {
	refuse := unprocessable("Import failed. Destination '" + e.DestinationNamespace + "' is invalid, or you don't have permission.")
	g := d.GroupByPath(e.DestinationNamespace)
	if g == nil || !d.CanSeeGroup(c.Caller, g) {
		return refuse
	}
	need := access.Maintainer
	if e.EntityType == "project" {
		need = access.Developer
	}
	if !c.Admin() && d.GroupAccess(c.Caller, g) < need {
		return refuse
	}
	full := e.DestinationNamespace + "/" + e.DestinationSlug
	if d.GroupByPath(full) != nil || d.ProjectByPath(full) != nil {
		return unprocessable("Import failed. Destination URL " + full + " has already been taken.")
	}
	return nil
}

// sourceClient talks to the source instance. When the source is this very
// instance, as the caller reached it, the requests are served in-process:
// that is where the URL leads anyway, and it needs no network at all.
// Otherwise only the given URL's host is contacted, redirects are not followed.
func (s *Server) sourceClient(c *Ctx, src *url.URL) *http.Client {
	self, _ := url.Parse(c.baseURL())
	if self != nil && strings.EqualFold(self.Host, src.Host) && self.Scheme == src.Scheme {
		return &http.Client{Transport: selfTransport{s}, Timeout: 30 * time.Second}
	}
	dialer := &net.Dialer{Timeout: 10 * time.Second}
	if !s.opts.ImportFromAny {
		// A local reference talks to loopback only unless told otherwise: the
		// address is checked after resolution, so no name can lead elsewhere.
		dialer.Control = func(_, address string, _ syscall.RawConn) error {
			host, _, err := net.SplitHostPort(address)
			if ip := net.ParseIP(host); err != nil || ip == nil || !ip.IsLoopback() {
				return fmt.Errorf("source %s refused: the reference imports from loopback addresses only (serve --import-from-any lifts this)", address)
			}
			return nil
		}
	}
	return &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DialContext: dialer.DialContext, Proxy: nil},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

type selfTransport struct{ s *Server }

func (t selfTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	rec := httptest.NewRecorder()
	r = r.Clone(r.Context())
	r.RequestURI = r.URL.RequestURI()
	t.s.ServeHTTP(rec, r)
	return rec.Result(), nil
}

// bulkFilters reads the four shared list parameters' filter and sort.
func bulkFilters(c *Ctx) (status *string, desc bool, err error) {
	in := c.In()
	status = in.String("status")
	sort := in.String("sort")
	if err := in.Err(); err != nil {
		return nil, false, err
	}
	return status, sort == nil || *sort == "desc", nil
}

func bulkSort[T any](items []T, desc bool, created func(T) time.Time, id func(T) int) {
	slices.SortStableFunc(items, func(a, b T) int {
		r := cmp.Or(created(a).Compare(created(b)), cmp.Compare(id(a), id(b)))
		if desc {
			return -r
		}
		return r
	})
}

// ownBulkImports are the caller's imports: lists show only those, as on the platform.
func ownBulkImports(d *store.Data, c *Ctx) []*store.BulkImport {
	var out []*store.BulkImport
	for _, b := range d.BulkImports() {
		if b.UserID == c.Caller.ID {
			out = append(out, b)
		}
	}
	return out
}

// bulkImportOf resolves `:id` among the caller's own imports, otherwise not
// found, administrators included: the platform reads every import route
// through BulkImports::ImportsFinder(user: current_user), that is
// user.bulk_imports (gitlabhq/gitlabhq lib/api/bulk_imports.rb @de09f039,
// app/finders/bulk_imports/imports_finder.rb); only cancel reaches another
// user's import (bulk_imports.get.2, class 2).
func (c *Ctx) bulkImportOf(d *store.Data) (*store.BulkImport, error) {
	id, err := c.PathInt("id", "Not found")
	if err != nil {
		return nil, notFoundPlain()
	}
	b := d.BulkImport(id)
	if b == nil || b.UserID != c.Caller.ID {
		return nil, notFoundPlain()
	}
	return b, nil
}

func notFoundPlain() *Error { return errorf(http.StatusNotFound, "404 Not found") }

func filterEntities(es []*store.BulkImportEntity, status *string, desc bool) []*store.BulkImportEntity {
	var out []*store.BulkImportEntity
	for _, e := range es {
		if status == nil || e.Status == *status {
			out = append(out, e)
		}
	}
	bulkSort(out, desc, func(e *store.BulkImportEntity) time.Time { return e.CreatedAt }, func(e *store.BulkImportEntity) int { return e.ID })
	return out
}

// listBulkImports implements GET /bulk_imports (rules bulk_imports.list.*).
func (s *Server) listBulkImports(c *Ctx) error {
	status, desc, err := bulkFilters(c)
	if err != nil {
		return err
	}
	return s.readPage(c, func(d *store.Data) (*Page, error) {
		var items []*store.BulkImport
		for _, b := range ownBulkImports(d, c) {
			if status == nil || b.Status == *status {
				items = append(items, b)
			}
		}
		bulkSort(items, desc, func(b *store.BulkImport) time.Time { return b.CreatedAt }, func(b *store.BulkImport) int { return b.ID })
		return Paginate(c, items, nil, bulkImportJSON)
	})
}

// listAllBulkImportEntities implements GET /bulk_imports/entities (rules bulk_imports.entities_all.*).
func (s *Server) listAllBulkImportEntities(c *Ctx) error {
	status, desc, err := bulkFilters(c)
	if err != nil {
		return err
	}
	return s.readPage(c, func(d *store.Data) (*Page, error) {
		var all []*store.BulkImportEntity
		for _, b := range ownBulkImports(d, c) {
			all = append(all, b.Entities...)
		}
		return Paginate(c, filterEntities(all, status, desc), nil, bulkImportEntityJSON)
	})
}

// getBulkImport implements GET /bulk_imports/:id (rules bulk_imports.get.*).
func (s *Server) getBulkImport(c *Ctx) error {
	var out BulkImportJSON
	err := s.store.Read(func(d *store.Data) error {
		b, err := c.bulkImportOf(d)
		if err != nil {
			return err
		}
		out = bulkImportJSON(b)
		return nil
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, out)
}

// listBulkImportEntities implements GET /bulk_imports/:id/entities (rules bulk_imports.entities.*).
func (s *Server) listBulkImportEntities(c *Ctx) error {
	status, desc, err := bulkFilters(c)
	if err != nil {
		return err
	}
	return s.readPage(c, func(d *store.Data) (*Page, error) {
		b, err := c.bulkImportOf(d)
		if err != nil {
			return nil, err
		}
		return Paginate(c, filterEntities(b.Entities, status, desc), nil, bulkImportEntityJSON)
	})
}

func (c *Ctx) bulkEntityOf(d *store.Data) (*store.BulkImportEntity, error) {
	b, err := c.bulkImportOf(d)
	if err != nil {
		return nil, err
	}
	id, err := c.PathInt("entity_id", "Not found")
	if err != nil {
		return nil, notFoundPlain()
	}
	for _, e := range b.Entities {
		if e.ID == id {
			return e, nil
		}
	}
	return nil, notFoundPlain()
}

// getBulkImportEntity implements GET /bulk_imports/:id/entities/:entity_id (rules bulk_imports.entity.*).
func (s *Server) getBulkImportEntity(c *Ctx) error {
	var out BulkImportEntityJSON
	err := s.store.Read(func(d *store.Data) error {
		e, err := c.bulkEntityOf(d)
		if err != nil {
			return err
		}
		out = bulkImportEntityJSON(e)
		return nil
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, out)
}

// listBulkImportFailures implements GET /bulk_imports/:id/entities/:entity_id/failures (rules bulk_imports.failures.*).
func (s *Server) listBulkImportFailures(c *Ctx) error {
	return s.readPage(c, func(d *store.Data) (*Page, error) {
		e, err := c.bulkEntityOf(d)
		if err != nil {
			return nil, err
		}
		return Paginate(c, e.Failures, nil, func(f store.BulkImportFailure) BulkImportFailedRecordJSON {
			return BulkImportFailedRecordJSON{Relation: f.Relation, ExceptionMessage: f.ExceptionMessage,
				ExceptionClass: f.ExceptionClass, CorrelationIDValue: f.CorrelationID, SourceURL: f.SourceURL,
				SourceTitle: f.SourceTitle}
		})
	})
}

// cancelBulkImport implements POST /bulk_imports/:id/cancel (rules
// bulk_imports.cancel.*): administrators only (the endpoint's who), any
// existing import becomes canceled.
func (s *Server) cancelBulkImport(c *Ctx) error {
	var out BulkImportJSON
	err := s.store.Write(func(d *store.Data) error {
		// As on the platform (gitlabhq/gitlabhq lib/api/bulk_imports.rb @de09f039,
		// post ':import_id/cancel': BulkImport.find_by_id, then
		// authenticated_as_admin! unless bulk_import.user == current_user): any
		// existing import is found, then its creator or an administrator may
		// cancel it and anyone else gets 403.
		id, err := c.PathInt("id", "Not found")
		if err != nil {
			return notFoundPlain()
		}
		b := d.BulkImport(id)
		if b == nil {
			return notFoundPlain()
		}
		if b.UserID != c.Caller.ID && !c.Admin() {
			return forbidden()
		}
		d.SetBulkImportStatus(b, "canceled")
		out = bulkImportJSON(b)
		return nil
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, out)
}
