package store

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unsafe"
)

// The persisted tables of Data, and its derived fields. Adding a field to
// Data is three small steps, and TestEveryFieldPersistedOrDerived fails until
// the first is done:
//
//  1. a row in tables below (a map keyed by id or by owner), or the field's
//     name in derivedFields with how rebuildDerived recomputes it;
//  2. a case in tableOf naming the table and key of the field's objects;
//  3. d.Touch(obj) wherever a write creates, changes or deletes one.
//
// The round-trip test (reference/persist_test.go) and the verifying mode
// catch a forgotten touch.
var (
	tSeq            = mapTable("seq", func(d *Data) *map[string]int { return &d.seq })
	tUsers          = mapTable("users", func(d *Data) *map[int]*User { return &d.userByID })
	tTokens         = mapTable("tokens", func(d *Data) *map[string]*Token { return &d.tokens })
	tJobTokens      = mapTable("job_tokens", func(d *Data) *map[string]*JobToken { return &d.jobTokens })
	tGroups         = mapTable("groups", func(d *Data) *map[int]*Group { return &d.groups })
	tUserNamespaces = mapTable("user_namespaces", func(d *Data) *map[int]*UserNamespace { return &d.userNS })
	tProjects       = mapTable("projects", func(d *Data) *map[int]*Project { return &d.projects })
	tMembers        = mapTable("members", func(d *Data) *map[memberKey]*Member { return &d.members })
	tLinks          = sliceTable("links", func(d *Data) *[]*Link { return &d.links }, func(l *Link) int { return l.ID })
	tRequests       = mapTable("access_requests", func(d *Data) *map[memberKey]*AccessRequest { return &d.requests })
	tTopics         = mapTable("topics", func(d *Data) *map[int]*Topic { return &d.topics })
	tCommitComments = mapTable("commit_comments", func(d *Data) *map[int][]*CommitComment { return &d.commitComments })
	tRemoteMirrors  = mapTable("remote_mirrors", func(d *Data) *map[int][]*RemoteMirror { return &d.remoteMirrors })
	tPackageRules   = mapTable("package_protection_rules", func(d *Data) *map[int][]*PackageProtectionRule { return &d.packageRules })
	tIntegrations   = mapTable("integrations", func(d *Data) *map[int]map[string]*Integration { return &d.integrations })
	tIssues         = mapTable("issues", func(d *Data) *map[int]*Issue { return &d.issues })
	tSnippets       = mapTable("snippets", func(d *Data) *map[int]*Snippet { return &d.snippets })
	tNotes          = mapTable("notes", func(d *Data) *map[int]*Note { return &d.notes })
	tAwards         = mapTable("award_emoji", func(d *Data) *map[Awardable][]*AwardEmoji { return &d.awards })
	tRunners        = mapTable("runners", func(d *Data) *map[int]*Runner { return &d.runners })
	tRunnerManagers = mapTable("runner_managers", func(d *Data) *map[int][]*RunnerManager { return &d.runnerManagers })
	tPipelines      = mapTable("pipelines", func(d *Data) *map[int]*Pipeline { return &d.pipelines })
	tJobs           = mapTable("jobs", func(d *Data) *map[int]*Job { return &d.jobs })
	tBulkImports    = mapTable("bulk_imports", func(d *Data) *map[int]*BulkImport { return &d.bulkImports })
	tMergeRequests  = mapTable("merge_requests", func(d *Data) *map[int]*MergeRequest { return &d.mergeRequests })
	tMRBlocks       = mapTable("merge_request_blocks", func(d *Data) *map[int]*MRBlock { return &d.mrBlocks })
	tLabels         = mapTable("labels", func(d *Data) *map[int][]*Label { return &d.labels })
	tMilestones     = mapTable("milestones", func(d *Data) *map[int]*Milestone { return &d.milestones })
	tTodos          = mapTable("todos", func(d *Data) *map[int]*Todo { return &d.todos })
	tRegistryRepos  = mapTable("registry_repositories", func(d *Data) *map[int]*RegistryRepository { return &d.registryRepos })
)

var tables = []table{
	tSeq, tUsers, tTokens, tJobTokens, tGroups, tUserNamespaces, tProjects, tMembers, tLinks, tRequests, tTopics,
	tCommitComments, tRemoteMirrors, tPackageRules, tIntegrations, tIssues, tSnippets, tNotes, tAwards,
	tRunners, tRunnerManagers, tPipelines, tJobs, tBulkImports,
	tMergeRequests, tMRBlocks, tLabels, tMilestones, tTodos,
	tRegistryRepos,
}

// derivedFields are the fields of Data rebuilt from the tables on load
// (rebuildDerived), or not state at all.
var derivedFields = map[string]string{
	"Now":         "the clock, a setting of the server",
	"users":       "userByID in id order",
	"userByName":  "index of userByID by lower-cased username",
	"userByEmail": "index of userByID by lower-cased email",
	"cache":       "what lists derive between writes (index.go), dropped on every write",
	"cached":      "whether cache may be used: the Store clears it for its writes",
	"issuables":   "the issuable lists' orderings between writes (issuable_index.go), dropped on every write",
	"dirty":       "the records the write in progress touched",
	"projectMRs":  "mergeRequests by project in iid order",
	"allMRs":      "mergeRequests in id order",
}

var tableNamed = func() map[string]table {
	m := map[string]table{}
	for _, t := range tables {
		if m[t.name()] != nil {
			panic("store: two tables named " + t.name())
		}
		m[t.name()] = t
	}
	return m
}()

// tableOf names the table and key of a persisted object.
func tableOf(o any) (table, any) {
	switch x := o.(type) {
	case *User:
		return tUsers, x.ID
	case *Token:
		return tTokens, x.Secret
	case *JobToken:
		return tJobTokens, x.Secret
	case *Group:
		return tGroups, x.ID
	case *UserNamespace:
		return tUserNamespaces, x.ID
	case *Project:
		return tProjects, x.ID
	case *Member:
		return tMembers, memberKey{x.Type, x.SourceID, x.UserID}
	case *Link:
		return tLinks, x.ID
	case *AccessRequest:
		return tRequests, memberKey{x.Type, x.SourceID, x.UserID}
	case *Topic:
		return tTopics, x.ID
	case *CommitComment:
		return tCommitComments, x.ProjectID
	case *RemoteMirror:
		return tRemoteMirrors, x.ProjectID
	case *PackageProtectionRule:
		return tPackageRules, x.ProjectID
	case *Integration:
		return tIntegrations, x.ProjectID
	case *Issue:
		return tIssues, x.ID
	case *Snippet:
		return tSnippets, x.ID
	case *Note:
		return tNotes, x.ID
	case *AwardEmoji:
		return tAwards, Awardable{x.AwardableType, x.AwardableID}
	case *Runner:
		return tRunners, x.ID
	case *RunnerManager:
		return tRunnerManagers, x.RunnerID
	case *Pipeline:
		return tPipelines, x.ID
	case *Job:
		return tJobs, x.ID
	case *BulkImport:
		return tBulkImports, x.ID
	case *BulkImportEntity:
		return tBulkImports, x.BulkImportID
	case *MergeRequest:
		return tMergeRequests, x.ID
	case *MRBlock:
		return tMRBlocks, x.ID
	case *Label:
		return tLabels, x.ProjectID
	case *Milestone:
		return tMilestones, x.ID
	case *Todo:
		return tTodos, x.ID
	case *RegistryRepository:
		return tRegistryRepos, x.ID
	}
	panic(fmt.Sprintf("store: touch of a %T, which no table holds (tables.go)", o))
}

// rebuildDerived recomputes the derived fields after a load.
func (d *Data) rebuildDerived() {
	d.users = d.users[:0]
	for _, u := range d.userByID {
		d.users = append(d.users, u)
		d.userByName[strings.ToLower(u.Username)] = u
		d.userByEmail[strings.ToLower(u.Email)] = u
	}
	sortByID(d.users, func(u *User) int { return u.ID })
	d.cache.drop()
	d.projectMRs, d.allMRs = nil, nil
	if len(d.mergeRequests) > 0 {
		d.projectMRs = map[int][]*MergeRequest{}
		for _, mr := range d.mergeRequests {
			d.allMRs = append(d.allMRs, mr)
		}
		sortByID(d.allMRs, func(mr *MergeRequest) int { return mr.ID })
		for _, mr := range d.allMRs {
			d.projectMRs[mr.ProjectID] = append(d.projectMRs[mr.ProjectID], mr)
		}
		for _, list := range d.projectMRs {
			sortByID(list, func(mr *MergeRequest) int { return mr.IID })
		}
	}
}

// table is one persisted field of Data.
type table interface {
	name() string
	// field points at the field of d, for the coverage test.
	field(d *Data) unsafe.Pointer
	// get encodes the record with key as it is now; nil when it is gone.
	get(d *Data, key string) ([]byte, error)
	each(d *Data, fn func(key string, value []byte)) error
	load(d *Data, key string, value []byte) error
	// ensure makes the field usable when no record filled it: lazily made
	// maps are made together (ciInit), so a load makes them all.
	ensure(d *Data)
}

// mapT is a map field of Data: one record per entry, the key and the value
// as JSON.
type mapT[K comparable, V any] struct {
	n string
	f func(*Data) *map[K]V
}

func mapTable[K comparable, V any](name string, f func(*Data) *map[K]V) *mapT[K, V] {
	return &mapT[K, V]{name, f}
}

func (t *mapT[K, V]) name() string                 { return t.n }
func (t *mapT[K, V]) field(d *Data) unsafe.Pointer { return unsafe.Pointer(t.f(d)) }

func (t *mapT[K, V]) get(d *Data, key string) ([]byte, error) {
	var k K
	if err := json.Unmarshal([]byte(key), &k); err != nil {
		return nil, err
	}
	v, ok := (*t.f(d))[k]
	if !ok {
		return nil, nil
	}
	return json.Marshal(v)
}

func (t *mapT[K, V]) each(d *Data, fn func(string, []byte)) error {
	type kv struct {
		k string
		v []byte
	}
	var all []kv
	for k, v := range *t.f(d) {
		kb, err := json.Marshal(k)
		if err != nil {
			return err
		}
		vb, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("%s/%s: %w", t.n, kb, err)
		}
		all = append(all, kv{string(kb), vb})
	}
	slices.SortFunc(all, func(a, b kv) int { return cmp.Compare(a.k, b.k) })
	for _, e := range all {
		fn(e.k, e.v)
	}
	return nil
}

func (t *mapT[K, V]) load(d *Data, key string, value []byte) error {
	var k K
	if err := json.Unmarshal([]byte(key), &k); err != nil {
		return err
	}
	var v V
	if err := json.Unmarshal(value, &v); err != nil {
		return err
	}
	m := t.f(d)
	if *m == nil {
		*m = map[K]V{}
	}
	(*m)[k] = v
	return nil
}

func (t *mapT[K, V]) ensure(d *Data) {
	if m := t.f(d); *m == nil {
		*m = map[K]V{}
	}
}

// sliceT is a slice field of Data kept in id order: one record per element.
type sliceT[V any] struct {
	n  string
	f  func(*Data) *[]V
	id func(V) int
}

func sliceTable[V any](name string, f func(*Data) *[]V, id func(V) int) *sliceT[V] {
	return &sliceT[V]{name, f, id}
}

func (t *sliceT[V]) name() string                 { return t.n }
func (t *sliceT[V]) field(d *Data) unsafe.Pointer { return unsafe.Pointer(t.f(d)) }

func (t *sliceT[V]) get(d *Data, key string) ([]byte, error) {
	var id int
	if err := json.Unmarshal([]byte(key), &id); err != nil {
		return nil, err
	}
	for _, v := range *t.f(d) {
		if t.id(v) == id {
			return json.Marshal(v)
		}
	}
	return nil, nil
}

func (t *sliceT[V]) each(d *Data, fn func(string, []byte)) error {
	for _, v := range *t.f(d) {
		vb, err := json.Marshal(v)
		if err != nil {
			return err
		}
		fn(fmt.Sprint(t.id(v)), vb)
	}
	return nil
}

func (t *sliceT[V]) load(d *Data, _ string, value []byte) error {
	var v V
	if err := json.Unmarshal(value, &v); err != nil {
		return err
	}
	s := t.f(d)
	*s = append(*s, v)
	slices.SortFunc(*s, func(a, b V) int { return cmp.Compare(t.id(a), t.id(b)) })
	return nil
}

func (t *sliceT[V]) ensure(*Data) {}
