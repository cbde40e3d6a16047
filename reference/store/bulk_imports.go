package store

import (
	"slices"
	"time"
)

// BulkImport is one direct-transfer migration (Resources, Bulk import).
type BulkImport struct {
	ID        int
	UserID    int
	Status    string // created, started, finished, failed, canceled
	SourceURL string
	CreatedAt time.Time
	UpdatedAt time.Time
	Entities  []*BulkImportEntity // in the order given
}

// BulkImportEntity is one group or project of an import.
type BulkImportEntity struct {
	ID                   int
	BulkImportID         int
	Status               string
	EntityType           string // group or project
	SourceFullPath       string
	DestinationSlug      string
	DestinationName      string
	DestinationNamespace string
	ParentID             *int
	NamespaceID          *int
	ProjectID            *int
	MigrateProjects      bool
	MigrateMemberships   bool
	CreatedAt            time.Time
	UpdatedAt            time.Time
	Failures             []BulkImportFailure
	Stats                map[string]BulkImportStat
}

// BulkImportStat counts one relation of an entity.
type BulkImportStat struct{ Source, Fetched, Imported int }

// BulkImportFailure is a failure of one entity: what the entity read shows
// and what the failed-record listing shows.
type BulkImportFailure struct {
	Relation, Step, ExceptionMessage, ExceptionClass string
	CorrelationID, PipelineClass, PipelineStep       string
	SourceURL, SourceTitle                           string
	CreatedAt                                        time.Time
}

// HasFailures reports whether the entity recorded a failure.
func (e *BulkImportEntity) HasFailures() bool { return len(e.Failures) > 0 }

// HasFailures reports whether any entity of the import recorded a failure.
func (b *BulkImport) HasFailures() bool {
	return slices.ContainsFunc(b.Entities, (*BulkImportEntity).HasFailures)
}

// CreateBulkImport stores a new import of user with its entities, all created.
func (d *Data) CreateBulkImport(userID int, sourceURL string, entities []*BulkImportEntity) *BulkImport {
	now := d.Now()
	b := &BulkImport{ID: d.next("bulk_import"), UserID: userID, Status: "created", SourceURL: sourceURL,
		CreatedAt: now, UpdatedAt: now}
	for _, e := range entities {
		e.ID = d.next("bulk_import_entity")
		e.BulkImportID = b.ID
		e.Status = "created"
		e.CreatedAt, e.UpdatedAt = now, now
		if e.Stats == nil {
			e.Stats = map[string]BulkImportStat{}
		}
		b.Entities = append(b.Entities, e)
	}
	if d.bulkImports == nil {
		d.bulkImports = map[int]*BulkImport{}
	}
	d.bulkImports[b.ID] = b
	d.Touch(b)
	return b
}

// BulkImport returns an import by id, or nil.
func (d *Data) BulkImport(id int) *BulkImport { return d.bulkImports[id] }

// BulkImports returns every import, ascending id.
func (d *Data) BulkImports() []*BulkImport {
	out := make([]*BulkImport, 0, len(d.bulkImports))
	for _, b := range d.bulkImports {
		out = append(out, b)
	}
	sortByID(out, func(b *BulkImport) int { return b.ID })
	return out
}

// SetBulkImportStatus moves an import to status; canceling also cancels
// every entity that has not ended, as the platform does.
func (d *Data) SetBulkImportStatus(b *BulkImport, status string) {
	now := d.Now()
	d.Touch(b)
	b.Status, b.UpdatedAt = status, now
	if status != "canceled" {
		return
	}
	for _, e := range b.Entities {
		if e.Status == "created" || e.Status == "started" {
			e.Status, e.UpdatedAt = "canceled", now
		}
	}
}

// SetBulkImportEntityStatus moves an entity to status.
func (d *Data) SetBulkImportEntityStatus(e *BulkImportEntity, status string) {
	d.Touch(e)
	e.Status, e.UpdatedAt = status, d.Now()
}

// AddBulkImportFailure records a failure on e.
func (d *Data) AddBulkImportFailure(e *BulkImportEntity, f BulkImportFailure) {
	d.Touch(e)
	f.CreatedAt = d.Now()
	e.Failures = append(e.Failures, f)
	e.UpdatedAt = f.CreatedAt
}
