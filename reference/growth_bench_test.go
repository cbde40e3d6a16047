package reference_test

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/v4cert/v4cert/reference"
	"github.com/v4cert/v4cert/reference/access"
	"github.com/v4cert/v4cert/reference/store"
)

// The sizes BenchmarkListGrowth builds worlds of: users (and a group with
// every user a member), a group's projects, groups, a project's jobs.
var (
	growthUsers    = []int{1000, 10000, 100000}
	growthProjects = []int{1000, 10000}
	growthGroups   = []int{1000, 10000}
	growthJobs     = []int{1000, 10000}
)

// BenchmarkListGrowth shows how a list page's cost grows with the world
// (issue 21): the same request against worlds of 1,000, 10,000 and 100,000
// users (a group's projects: 1,000 and 10,000), side by side in one run.
// Each op sends the request once to every world in turn (A B C A B C …), so
// the machine's drift falls on all sizes alike; what to read are the
// cpu-x<size> metrics, the CPU a request costs at that size as a ratio to the
// smallest (x<size>: the same in wall time, which a loaded machine's
// preemptions stretch unevenly), and the per-request figures they come from. Worlds are built once (100,000 users
// take a few seconds).
func BenchmarkListGrowth(b *testing.B) {
	users := make([]*reference.Instance, len(growthUsers))
	for i, n := range growthUsers {
		users[i] = world(b, n-1) // the root user makes n
	}
	// A deep keyset page: the cursor of the record at 90% of the ordering.
	keysetDeep := func(inst *reference.Instance, n int) string {
		var cur string
		err := inst.Server.Store().Read(func(d *store.Data) error {
			u := d.UsersOrdered("id")[n*9/10]
			cur = keysetCursor(u.ID)
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
		return "/api/v4/users?pagination=keyset&per_page=20&order_by=id&sort=asc&cursor=" + cur
	}
	type target func(i int) string
	cases := []struct {
		name   string
		target target
	}{
		{"users/offset-page1", func(int) string { return "/api/v4/users?per_page=20" }},
		{"users/offset-last", func(i int) string {
			return fmt.Sprintf("/api/v4/users?per_page=20&page=%d", (growthUsers[i]+19)/20)
		}},
		{"users/keyset-deep", func(i int) string { return keysetDeep(users[i], growthUsers[i]) }},
		// One user matches: the world's last, whose username is unique.
		{"users/search-one", func(i int) string {
			return fmt.Sprintf("/api/v4/users?per_page=20&search=benchmark-user-%05d", growthUsers[i]-2)
		}},
	}
	for _, c := range cases {
		targets := make([]string, len(users))
		for i := range users {
			targets[i] = c.target(i)
		}
		b.Run(c.name, func(b *testing.B) { growth(b, users, targets, growthUsers) })
	}
	groups := make([]*reference.Instance, len(growthProjects))
	gtargets := make([]string, len(growthProjects))
	for i, n := range growthProjects {
		groups[i], gtargets[i] = groupWorld(b, n)
	}
	b.Run("group-projects/page1", func(b *testing.B) { growth(b, groups, gtargets, growthProjects) })
	last := make([]string, len(gtargets))
	for i, t := range gtargets {
		last[i] = fmt.Sprintf("%s&page=%d", t, growthProjects[i]/20)
	}
	b.Run("group-projects/offset-last", func(b *testing.B) { growth(b, groups, last, growthProjects) })

	// Members: every user of the users worlds is a member of one group,
	// which holds one project (its members/all are the group's, inherited).
	mtargets := map[string][]string{}
	for i, inst := range users {
		gid, pid := membersWorld(b, inst)
		lastPage := (growthUsers[i] + 19) / 20
		for name, t := range map[string]string{
			"members/group-page1":       fmt.Sprintf("/api/v4/groups/%d/members?per_page=20", gid),
			"members/group-last":        fmt.Sprintf("/api/v4/groups/%d/members?per_page=20&page=%d", gid, lastPage),
			"members/project-all-page1": fmt.Sprintf("/api/v4/projects/%d/members/all?per_page=20", pid),
			"members/project-all-last":  fmt.Sprintf("/api/v4/projects/%d/members/all?per_page=20&page=%d", pid, lastPage),
		} {
			mtargets[name] = append(mtargets[name], t)
		}
	}
	for _, name := range []string{"members/group-page1", "members/group-last", "members/project-all-page1", "members/project-all-last"} {
		b.Run(name, func(b *testing.B) { growth(b, users, mtargets[name], growthUsers) })
	}

	gworlds := make([]*reference.Instance, len(growthGroups))
	for i, n := range growthGroups {
		gworlds[i] = groupsWorld(b, n)
	}
	glast := make([]string, len(growthGroups))
	gfirst := make([]string, len(growthGroups))
	for i, n := range growthGroups {
		gfirst[i] = "/api/v4/groups?per_page=20"
		glast[i] = fmt.Sprintf("/api/v4/groups?per_page=20&page=%d", n/20)
	}
	b.Run("groups/page1", func(b *testing.B) { growth(b, gworlds, gfirst, growthGroups) })
	b.Run("groups/offset-last", func(b *testing.B) { growth(b, gworlds, glast, growthGroups) })
	gsub := make([]string, len(growthGroups))
	for i, inst := range gworlds {
		err := inst.Server.Store().Read(func(d *store.Data) error {
			parent := d.GroupByPath(fmt.Sprintf("bench-group-%05d", growthGroups[i]-1))
			gsub[i] = fmt.Sprintf("/api/v4/groups/%d/subgroups?per_page=20", parent.ID)
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.Run("groups/subgroups", func(b *testing.B) { growth(b, gworlds, gsub, growthGroups) })

	jworlds := make([]*reference.Instance, len(growthJobs))
	jtargets := map[string][]string{}
	for i, n := range growthJobs {
		var pid, plid int
		jworlds[i], pid, plid = jobsWorld(b, n)
		jtargets["jobs/page1"] = append(jtargets["jobs/page1"], fmt.Sprintf("/api/v4/projects/%d/jobs?per_page=20", pid))
		jtargets["jobs/offset-last"] = append(jtargets["jobs/offset-last"], fmt.Sprintf("/api/v4/projects/%d/jobs?per_page=20&page=%d", pid, n/20))
		jtargets["jobs/pipeline"] = append(jtargets["jobs/pipeline"], fmt.Sprintf("/api/v4/projects/%d/pipelines/%d/jobs", pid, plid))
	}
	for _, name := range []string{"jobs/page1", "jobs/offset-last", "jobs/pipeline"} {
		b.Run(name, func(b *testing.B) { growth(b, jworlds, jtargets[name], growthJobs) })
	}
	issuableGrowth(b) // growth_issuable_bench_test.go
}

// membersWorld makes every user of inst a Developer of a new group holding
// one project, and returns their ids.
func membersWorld(b *testing.B, inst *reference.Instance) (gid, pid int) {
	b.Helper()
	err := inst.Server.Store().Write(func(d *store.Data) error {
		root := d.User(1)
		g, err := d.CreateGroup(store.NewGroup{Name: "Members Group", Path: "members-group", Visibility: "private", CreatorID: root.ID})
		if err != nil {
			return err
		}
		name := "members-project"
		p, err := d.CreateProject(root, store.ProjectFields{Name: &name, NamespaceID: &g.ID})
		if err != nil {
			return err
		}
		gid, pid = g.ID, p.ID
		for _, u := range d.UsersOrdered("id") {
			if d.DirectMember(store.SourceGroup, g.ID, u.ID) == nil {
				if _, err := d.AddMember(store.SourceGroup, g.ID, u.ID, access.Developer, nil, root.ID); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return gid, pid
}

// groupsWorld builds a reference with n top-level groups, the last of
// which has 25 subgroups.
func groupsWorld(b *testing.B, n int) *reference.Instance {
	b.Helper()
	inst, err := reference.New(reference.Config{RootToken: benchToken, Seed: "none", FixedClock: true})
	if err != nil {
		b.Fatal(err)
	}
	err = inst.Server.Store().Write(func(d *store.Data) error {
		for i := 0; i < n; i++ {
			name := fmt.Sprintf("bench-group-%05d", i)
			g, err := d.CreateGroup(store.NewGroup{Name: name, Path: name, Visibility: "private", CreatorID: 1})
			if err != nil {
				return err
			}
			for k := 0; i == n-1 && k < 25; k++ {
				sub := fmt.Sprintf("bench-subgroup-%02d", k)
				if _, err := d.CreateGroup(store.NewGroup{Name: sub, Path: sub, Visibility: "private", ParentID: g.ID, CreatorID: 1}); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return inst
}

// jobsWorld builds a reference with one project of n jobs, ten to a
// pipeline, every job finished but the last pipeline's (pending, as
// NewPipeline leaves them), and returns the project and a pipeline in the
// middle of its history.
func jobsWorld(b *testing.B, n int) (inst *reference.Instance, pid, plid int) {
	b.Helper()
	inst, err := reference.New(reference.Config{RootToken: benchToken, Seed: "none", FixedClock: true})
	if err != nil {
		b.Fatal(err)
	}
	err = inst.Server.Store().Write(func(d *store.Data) error {
		root := d.User(1)
		name := "jobs-project"
		p, err := d.CreateProject(root, store.ProjectFields{Name: &name})
		if err != nil {
			return err
		}
		pid = p.ID
		for k := 0; k < n/10; k++ {
			jobs := make([]*store.Job, 10)
			for i := range jobs {
				jobs[i] = &store.Job{Name: fmt.Sprintf("test-%d", i), Stage: "test", TagList: []string{"docker"}}
			}
			sha := fmt.Sprintf("%040x", k)
			pl := d.NewPipeline(&store.Pipeline{ProjectID: p.ID, Ref: "main", SHA: sha, UserID: root.ID,
				Commit: store.JobCommit{ID: sha, ShortID: sha[:8], Title: "Commit", Message: "Commit", AuthorName: "Root", AuthorEmail: "root@example.com", CreatedAt: store.FixedTime}}, jobs)
			if k == n/20 {
				plid = pl.ID
			}
			if k == n/10-1 {
				break
			}
			for _, j := range jobs {
				start, end := store.FixedTime, store.FixedTime.Add(time.Minute)
				j.Status, j.StartedAt, j.FinishedAt = "success", &start, &end
			}
			pl.Status = "success"
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return inst, pid, plid
}

// growth sends targets[i] to insts[i] for every i in turn, b.N rounds, and
// reports each size's ns a request and its ratio to the smallest size's.
func growth(b *testing.B, insts []*reference.Instance, targets []string, sizes []int) {
	spent := make([]time.Duration, len(insts))
	reqs := make([]*http.Request, len(insts))
	for i, t := range targets {
		reqs[i] = httptest.NewRequest(http.MethodGet, t, nil)
		reqs[i].Header.Set("PRIVATE-TOKEN", benchToken)
		w := httptest.NewRecorder()
		insts[i].Server.ServeHTTP(w, reqs[i]) // warms the store's orderings and indexes
		if w.Code != http.StatusOK || !strings.HasPrefix(w.Body.String(), "[{") {
			b.Fatalf("%s: %d %.200s", t, w.Code, w.Body.String())
		}
	}
	// The handler runs on this goroutine: locked to its thread, the
	// thread's CPU clock counts each request's CPU alone, which a loaded
	// machine's preemptions (they stretch wall time unevenly) leave out.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	_, haveCPU := threadCPU()
	cpu := make([]time.Duration, len(insts))
	b.ReportAllocs()
	for b.Loop() {
		for i, inst := range insts {
			w := httptest.NewRecorder()
			c0, _ := threadCPU()
			t0 := time.Now()
			inst.Server.ServeHTTP(w, reqs[i])
			spent[i] += time.Since(t0)
			c1, _ := threadCPU()
			cpu[i] += c1 - c0
		}
	}
	for i, n := range sizes {
		b.ReportMetric(float64(spent[i].Nanoseconds())/float64(b.N), fmt.Sprintf("ns/req@%d", n))
		if haveCPU {
			b.ReportMetric(float64(cpu[i].Nanoseconds())/float64(b.N), fmt.Sprintf("cpu-ns/req@%d", n))
		}
		if i > 0 {
			b.ReportMetric(float64(spent[i])/float64(spent[0]), fmt.Sprintf("x%d", n))
			if haveCPU {
				b.ReportMetric(float64(cpu[i])/float64(cpu[0]), fmt.Sprintf("cpu-x%d", n))
			}
		}
	}
}

// keysetCursor is the cursor after the user with id in order_by=id: the
// reference's cursor format (base64url of {"id":N}), which clients treat as opaque.
func keysetCursor(id int) string {
	return strings.TrimRight(encodeB64(fmt.Sprintf(`{"id":%d}`, id)), "=")
}

// groupWorld builds a reference with one group of n projects, created straight
// in the store, and the target of its first page as an administrator.
func groupWorld(b *testing.B, n int) (*reference.Instance, string) {
	b.Helper()
	inst, err := reference.New(reference.Config{RootToken: benchToken, Seed: "none", FixedClock: true})
	if err != nil {
		b.Fatal(err)
	}
	var gid int
	err = inst.Server.Store().Write(func(d *store.Data) error {
		root := d.User(1)
		g, err := d.CreateGroup(store.NewGroup{Name: "Bench Group", Path: "bench-group", Visibility: "private", CreatorID: root.ID})
		if err != nil {
			return err
		}
		gid = g.ID
		for i := 0; i < n; i++ {
			name := fmt.Sprintf("bench-project-%05d", i)
			if _, err := d.CreateProject(root, store.ProjectFields{Name: &name, NamespaceID: &g.ID}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return inst, fmt.Sprintf("/api/v4/groups/%d/projects?per_page=20", gid)
}

func encodeB64(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
