// Package bulkimports holds the platform's direct-transfer migration
// workflow (Endpoints, Group and project migration): an import's entities
// read from the source instance (reference/importer) without holding the
// store, then written as groups, projects, members and repositories, with
// the import's and each entity's status, stats and failures. It knows
// nothing of HTTP.
package bulkimports

import (
	"context"
	"errors"
	"strconv"

	"github.com/v4cert/v4cert/reference/importer"
	"github.com/v4cert/v4cert/reference/store"
	"github.com/v4cert/v4cert/reference/workflow/repository"
)

// Workflows are the import workflows of one store and its repositories.
type Workflows struct {
	store *store.Store
	repos *repository.Workflows
}

// New builds the import workflows over st and repos.
func New(st *store.Store, repos *repository.Workflows) *Workflows {
	return &Workflows{store: st, repos: repos}
}

// Run migrates every entity in order; the import fails only when
// every entity failed (a partial migration is finished, with failures).
func (s *Workflows) Run(ctx context.Context, b *store.BulkImport, src importer.Source) {
	s.store.Write(func(d *store.Data) error { d.SetBulkImportStatus(b, "started"); return nil })
	finished := 0
	for _, e := range b.Entities {
		if s.runEntity(ctx, b, e, src) {
			finished++
		}
	}
	s.store.Write(func(d *store.Data) error {
		if b.Status != "started" {
			return nil
		}
		if finished == 0 {
			d.SetBulkImportStatus(b, "failed")
		} else {
			d.SetBulkImportStatus(b, "finished")
		}
		return nil
	})
}

// runEntity reads the entity from the source without holding the store
// (the source may be this instance) and then writes the destination objects.
func (s *Workflows) runEntity(ctx context.Context, b *store.BulkImport, e *store.BulkImportEntity, src importer.Source) bool {
	s.store.Write(func(d *store.Data) error { d.SetBulkImportEntityStatus(e, "started"); return nil })
	var group *importer.Group
	var project *importer.Project
	var err error
	if e.EntityType == "group" {
		group, err = src.Group(ctx, e.SourceFullPath, e.MigrateProjects, e.MigrateMemberships)
	} else {
		project, err = src.Project(ctx, e.SourceFullPath, e.MigrateMemberships)
	}
	var created []*store.Project
	var creator *store.User
	werr := s.store.Write(func(d *store.Data) error {
		if err != nil {
			return err
		}
		creator = d.User(b.UserID)
		ns := d.GroupByPath(e.DestinationNamespace)
		if creator == nil || ns == nil {
			return &importer.Error{Relation: "group", Class: "BulkImports::Error", Message: "destination namespace no longer exists"}
		}
		if group != nil {
			return s.writeGroup(d, e, creator, ns, group, &created)
		}
		return s.writeProject(d, e, creator, ns, project, &created)
	})
	for _, p := range created {
		if rerr := s.repos.Create(ctx, p, creator, false); rerr != nil && werr == nil {
			werr = &importer.Error{Relation: "repository", Class: "BulkImports::Error", Message: "repository could not be created"}
		}
	}
	if werr == nil {
		s.store.Write(func(d *store.Data) error { d.SetBulkImportEntityStatus(e, "finished"); return nil })
		return true
	}
	ie := &importer.Error{Relation: e.EntityType, Class: "BulkImports::Error", Message: werr.Error()}
	errors.As(werr, &ie)
	s.store.Write(func(d *store.Data) error {
		d.AddBulkImportFailure(e, store.BulkImportFailure{Relation: ie.Relation, Step: "extractor",
			ExceptionMessage: ie.Message, ExceptionClass: ie.Class, CorrelationID: correlationID(b, e),
			PipelineClass: pipelineClass(ie.Relation), PipelineStep: "extractor", SourceURL: ie.URL,
			SourceTitle: e.SourceFullPath})
		d.SetBulkImportEntityStatus(e, "failed")
		return nil
	})
	return false
}

func correlationID(b *store.BulkImport, e *store.BulkImportEntity) string {
	return "bulk-import-" + strconv.Itoa(b.ID) + "-" + strconv.Itoa(e.ID)
}

func pipelineClass(relation string) string {
	switch relation {
	case "members":
		return "BulkImports::Common::Pipelines::MembersPipeline"
	case "projects":
		return "BulkImports::Groups::Pipelines::ProjectEntitiesPipeline"
	case "project":
		return "BulkImports::Projects::Pipelines::ProjectPipeline"
	}
	return "BulkImports::Groups::Pipelines::GroupPipeline"
}

// writeGroup creates the destination group (path from the slug, name
// from the source), its projects and its members, or nothing at all.
func (s *Workflows) writeGroup(d *store.Data, e *store.BulkImportEntity, creator *store.User, ns *store.Group, g *importer.Group, created *[]*store.Project) error {
	vis := visibility(g.Visibility, ns.Visibility)
	ng, err := d.CreateGroup(store.NewGroup{Name: g.Name, Path: e.DestinationSlug, Description: g.Description,
		Visibility: vis, ParentID: ns.ID, CreatorID: creator.ID})
	if err != nil {
		return &importer.Error{Relation: "group", Class: "ActiveRecord::RecordInvalid", Message: "Validation failed: " + err.Error()}
	}
	d.Touch(e)
	e.NamespaceID = &ng.ID
	stat := func(rel string, n, done int) {
		e.Stats[rel] = store.BulkImportStat{Source: n, Fetched: n, Imported: done}
	}
	stat("group", 1, 1)
	if e.MigrateMemberships {
		stat("members", len(g.Members), members(d, store.SourceGroup, ng.ID, creator, g.Members))
	}
	if e.MigrateProjects {
		done := 0
		for _, sp := range g.Projects {
			name, path, desc := sp.Name, sp.Path, sp.Description
			pv := visibility(sp.Visibility, ng.Visibility)
			p, err := d.CreateProject(creator, store.ProjectFields{Name: &name, Path: &path, Description: &desc,
				NamespaceID: &ng.ID, Visibility: &pv})
			if err != nil {
				continue
			}
			*created = append(*created, p)
			done++
			if e.MigrateMemberships {
				members(d, store.SourceProject, p.ID, creator, sp.Members)
			}
		}
		stat("projects", len(g.Projects), done)
	}
	return nil
}

// writeProject creates the destination project in the namespace.
func (s *Workflows) writeProject(d *store.Data, e *store.BulkImportEntity, creator *store.User, ns *store.Group, sp *importer.Project, created *[]*store.Project) error {
	name, desc := sp.Name, sp.Description
	vis := visibility(sp.Visibility, ns.Visibility)
	p, err := d.CreateProject(creator, store.ProjectFields{Name: &name, Path: &e.DestinationSlug, Description: &desc,
		NamespaceID: &ns.ID, Visibility: &vis})
	if err != nil {
		return &importer.Error{Relation: "project", Class: "ActiveRecord::RecordInvalid", Message: "Validation failed: " + err.Error()}
	}
	*created = append(*created, p)
	d.Touch(e)
	e.ProjectID, e.NamespaceID = &p.ID, &ns.ID
	e.Stats["project"] = store.BulkImportStat{Source: 1, Fetched: 1, Imported: 1}
	if e.MigrateMemberships {
		n := members(d, store.SourceProject, p.ID, creator, sp.Members)
		e.Stats["members"] = store.BulkImportStat{Source: len(sp.Members), Fetched: len(sp.Members), Imported: n}
	}
	return nil
}

// visibility keeps the source's visibility unless the destination parent is more restrictive.
func visibility(v, parent string) string {
	rank := map[string]int{"private": 0, "internal": 1, "public": 2}
	if _, ok := rank[v]; !ok {
		return "private"
	}
	if rank[v] > rank[parent] {
		return parent
	}
	return v
}

// members maps source members to destination users by username; a
// member with no such user is skipped, and the importing user keeps their
// own (Owner) membership.
func members(d *store.Data, t store.SourceType, source int, creator *store.User, ms []importer.Member) int {
	done := 0
	for _, m := range ms {
		u := d.UserByUsername(m.Username)
		if u == nil || m.AccessLevel < 5 || m.AccessLevel > 50 {
			continue
		}
		if u.ID != creator.ID {
			if _, err := d.AddMember(t, source, u.ID, store.Level(m.AccessLevel), nil, creator.ID); err != nil {
				continue
			}
		}
		done++
	}
	return done
}
