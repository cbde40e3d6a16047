package proxy_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/v4cert/v4cert/proxy"
	"github.com/v4cert/v4cert/reference/store"
)

var linkTarget = regexp.MustCompile(`<([^>]*)>\s*;\s*rel="([^"]*)"`)

// walkResult is what a paginating client saw walking one list.
type walkResult struct {
	ids   []int    // the items' ids, page after page
	calls []string // every URL it called
	links []string // every Link target it was given
}

// walk is a paginating client as clients are written: it calls the first
// page, then whatever rel="next" names, until a page has none.
func walk(t *testing.T, start string) walkResult {
	t.Helper()
	var w walkResult
	for next := start; next != ""; {
		if len(w.calls) == 50 {
			t.Fatalf("more than 50 pages from %s", start)
		}
		w.calls = append(w.calls, next)
		var auth []string
		if !strings.Contains(next, "/api/v4/groups?") {
			auth = []string{"PRIVATE-TOKEN", rootToken}
		}
		res, body := get(t, http.DefaultClient, next, auth...)
		if res.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d %s", next, res.StatusCode, body)
		}
		var items []struct{ ID int }
		if err := json.Unmarshal([]byte(body), &items); err != nil {
			t.Fatalf("GET %s: %v in %s", next, err, body)
		}
		for _, it := range items {
			w.ids = append(w.ids, it.ID)
		}
		next = ""
		for _, m := range linkTarget.FindAllStringSubmatch(strings.Join(res.Header.Values("Link"), ", "), -1) {
			w.links = append(w.links, m[1])
			if m[2] == "next" {
				next = m[1]
			}
		}
	}
	return w
}

// paginatedLists are three lists of the reference, two offset-paginated and
// one keyset-paginated. The groups are walked anonymously: the platform pages
// GET /groups by keyset for unauthenticated callers only (Limits 4), and an
// authenticated one gets offset pages whatever it asks.
var paginatedLists = []string{
	"/api/v4/users?per_page=4",
	"/api/v4/runners/all?per_page=2",
	"/api/v4/groups?pagination=keyset&per_page=3&order_by=name&sort=asc",
}

// allUnder fails unless every URL starts with base + "/".
func allUnder(t *testing.T, what string, urls []string, base string) {
	t.Helper()
	for _, u := range urls {
		if !strings.HasPrefix(u, base+"/") {
			t.Errorf("%s %s does not name %s", what, u, base)
		}
	}
}

// TestPaginatingClientStaysOnProxy: a client that walks every page of three
// lists by following Link through the proxy in reverse mode never leaves the
// proxy, so every exchange is recorded; the cassette's URLs and links name
// the upstream (or, with PreserveHost, the host the client addressed); and
// the replay, on another port with the upstream stopped, answers every page
// with links naming the replay listener.
func TestPaginatingClientStaysOnProxy(t *testing.T) {
	for _, preserve := range []bool{false, true} {
		t.Run(fmt.Sprintf("preserve host %v", preserve), func(t *testing.T) {
			// 11 users, 5 runners and 8 groups: lists of 3, 3 and 4 pages.
			ref := newReferenceWith(t, 10, func(d *store.Data) error {
				for i := range 8 {
					if _, err := d.CreateGroup(store.NewGroup{Name: fmt.Sprintf("Paged %d", i), Path: fmt.Sprintf("paged-%d", i), Visibility: "public", CreatorID: 1}); err != nil {
						return err
					}
				}
				for i := range 5 {
					d.CreateRunner(&store.Runner{Type: "instance_type", Description: fmt.Sprintf("paged %d", i), RunUntagged: true, AccessLevel: "not_protected"})
				}
				return nil
			})
			direct := map[string]walkResult{}
			for _, l := range paginatedLists {
				direct[l] = walk(t, ref.URL+l)
				if len(direct[l].calls) < 3 {
					t.Fatalf("%s: %d pages; the test needs several", l, len(direct[l].calls))
				}
			}

			file := filepath.Join(t.TempDir(), "paged.yaml")
			rec, recBase := startProxy(t, proxy.Options{Mode: proxy.ModeRecord, Upstream: ref.URL, Cassette: file, PreserveHost: preserve})
			calls := 0
			for _, l := range paginatedLists {
				w := walk(t, recBase+l)
				if !reflect.DeepEqual(w.ids, direct[l].ids) || len(w.calls) != len(direct[l].calls) {
					t.Errorf("%s through the proxy: %d pages %v, direct %d pages %v", l, len(w.calls), w.ids, len(direct[l].calls), direct[l].ids)
				}
				allUnder(t, "called", w.calls, recBase)
				allUnder(t, "link", w.links, recBase)
				calls += len(w.calls)
			}
			rec.Flush()
			c, err := proxy.LoadCassette(file)
			if err != nil {
				t.Fatal(err)
			}
			if len(c.Interactions) != calls {
				t.Fatalf("%d interactions recorded for %d requests", len(c.Interactions), calls)
			}
			recorded := ref.URL // recorded URLs name the upstream...
			if preserve {
				recorded = recBase // ...or, with the Host preserved, the proxy the client addressed
			}
			for i, in := range c.Interactions {
				var links []string
				for _, m := range linkTarget.FindAllStringSubmatch(in.Response.Headers.Get("Link"), -1) {
					links = append(links, m[1])
				}
				allUnder(t, fmt.Sprintf("interaction %d: URL", i), []string{in.Request.URL}, recorded)
				allUnder(t, fmt.Sprintf("interaction %d: link", i), links, recorded)
			}

			// The replay starts while the recording proxy still holds its port,
			// so it runs on another one; then the upstream goes away.
			replay, replayBase := startProxy(t, proxy.Options{Mode: proxy.ModeReplay, Cassette: file})
			if replayBase == recBase {
				t.Fatalf("replay on the recording's own address %s", replayBase)
			}
			if _, vs, err := rec.Close(); err != nil || len(vs) != 0 {
				t.Fatalf("recording: %v, findings %+v", err, vs)
			}
			ref.Close()
			for _, l := range paginatedLists {
				w := walk(t, replayBase+l)
				if !reflect.DeepEqual(w.ids, direct[l].ids) {
					t.Errorf("%s replayed: %v, recorded %v", l, w.ids, direct[l].ids)
				}
				allUnder(t, "replay called", w.calls, replayBase)
				allUnder(t, "replay link", w.links, replayBase)
			}
			if vs := replay.Drain(); len(vs) != 0 {
				t.Errorf("replayed answers gave findings: %+v", vs)
			}
			if s := replay.Summary(); s.Misses != 0 || s.Replayed != calls {
				t.Errorf("replay: %d answered, %d misses, want %d and 0", s.Replayed, s.Misses, calls)
			}
		})
	}
}

// TestLocationRewritten: Location and Link naming the upstream reach the
// client naming the proxy, in record and in replay; those naming another
// host pass as they are, and the cassette keeps the upstream's.
func TestLocationRewritten(t *testing.T) {
	up := newHandlerServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		self := "http://" + r.Host
		switch r.URL.Path {
		case "/api/v4/projects/1/repository/archive": // a redirect to the upstream itself
			w.Header().Set("Location", self+"/api/v4/projects/1/repository/archive.tar.gz?sha=main")
		case "/api/v4/projects/1/jobs/1/artifacts": // a redirect to object storage
			w.Header().Set("Location", "https://objects.example.com/bucket/artifacts.zip")
		}
		w.Header().Add("Link", "<"+self+"/api/v4/users?page=2>; rel=\"next\", <https://elsewhere.example.com/api/v4/users?page=1>; rel=\"first\"")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusFound)
		w.Write([]byte(`{"message":"302 Found"}`))
	}))
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	check := func(base string) {
		t.Helper()
		res, _ := get(t, noFollow, base+"/api/v4/projects/1/repository/archive")
		if got, want := res.Header.Get("Location"), base+"/api/v4/projects/1/repository/archive.tar.gz?sha=main"; got != want {
			t.Errorf("Location %q, want %q", got, want)
		}
		if got, want := res.Header.Get("Link"), "<"+base+"/api/v4/users?page=2>; rel=\"next\", <https://elsewhere.example.com/api/v4/users?page=1>; rel=\"first\""; got != want {
			t.Errorf("Link %q, want %q", got, want)
		}
		res, _ = get(t, noFollow, base+"/api/v4/projects/1/jobs/1/artifacts")
		if got := res.Header.Get("Location"); got != "https://objects.example.com/bucket/artifacts.zip" {
			t.Errorf("a Location to another host became %q", got)
		}
	}
	file := filepath.Join(t.TempDir(), "loc.yaml")
	rec, recBase := startProxy(t, proxy.Options{Mode: proxy.ModeRecord, Upstream: up, Cassette: file})
	check(recBase)
	rec.Close()
	c, err := proxy.LoadCassette(file)
	if err != nil || len(c.Interactions) != 2 {
		t.Fatalf("cassette: %v", err)
	}
	if got := c.Interactions[0].Response.Headers.Get("Location"); !strings.HasPrefix(got, up+"/") {
		t.Errorf("the cassette's Location %q does not name the upstream %s", got, up)
	}
	_, replayBase := startProxy(t, proxy.Options{Mode: proxy.ModeReplay, Cassette: file})
	check(replayBase)

	// A client that addresses the recorded host by name (a transport or a
	// name server routing it to the proxy, as the suites do) gets the links
	// as recorded: they keep it on the proxy already, scheme and all.
	_, replayBase = startProxy(t, proxy.Options{Mode: proxy.ModeReplay, Cassette: file})
	req, _ := http.NewRequest(http.MethodGet, replayBase+"/api/v4/projects/1/repository/archive", nil)
	req.Host = hostOf(up)
	res, err := noFollow.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if got := res.Header.Get("Location"); got != up+"/api/v4/projects/1/repository/archive.tar.gz?sha=main" {
		t.Errorf("addressing the recorded host: Location %q", got)
	}
}
