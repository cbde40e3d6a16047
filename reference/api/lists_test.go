package api_test

import (
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/v4cert/v4cert/reference"
	"github.com/v4cert/v4cert/reference/apitest"
	"github.com/v4cert/v4cert/specs"
)

// notPaginated are the array answers of the rulebook that are no lists in the
// sense of Endpoints convention 8, with the reason.
var notPaginated = map[string]string{
	"files.blame": "blame ranges of one file: the range parameter is its window, and the platform answers them whole",
}

// fewEntries are lists the world holds only one entry of (each other list
// has at least two).
var fewEntries = map[string]int{
	"bulk_imports.failures":       1, // one failed entity has one failure
	"merge_requests.participants": 1, // root opened the merge request and wrote its notes
}

// worldServer builds the apitest world on a fresh reference with a fixed
// clock and returns it with an administrator's client over loopback.
func worldServer(t testing.TB) (*apitest.World, *apitest.Client, *reference.Instance) {
	t.Helper()
	a := newAPI(t)
	root := &apitest.Client{Base: a.srv.URL, Token: repoRootToken}
	w, err := apitest.Build(root)
	if err != nil {
		t.Fatal(err)
	}
	return w, root, a.inst
}

var linkRel = regexp.MustCompile(`<([^>]*)>; rel="([a-z]+)"`)

// TestEveryListIsPaginated walks every endpoint of the rulebook that answers
// an array: each is declared paginated and, on a world where it has entries,
// honours per_page (1 item a page, default 20, at most 100) and page, answers
// every x-* header consistently, and links prev, next, first and last with
// the other parameters kept (Endpoints convention 8; Limits, pagination 1-2).
func TestEveryListIsPaginated(t *testing.T) {
	w, root, _ := worldServer(t)
	lists := 0
	for _, e := range specs.Default().Endpoints {
		if !e.Array {
			continue
		}
		if why, ok := notPaginated[e.ID]; ok {
			if e.Pagination != "" && e.Pagination != "none" {
				t.Errorf("%s is declared paginated, yet listed as not: %s", e.ID, why)
			}
			continue
		}
		lists++
		t.Run(e.ID, func(t *testing.T) {
			if e.Pagination != "offset" && e.Pagination != "keyset" {
				t.Fatalf("%s answers an array but its pagination is %q", e.ID, e.Pagination)
			}
			target := w.Target(e)
			get := func(query string) (*apitest.Response, []json.RawMessage) {
				t.Helper()
				sep := "?"
				if strings.Contains(target, "?") {
					sep = "&"
				}
				r, err := root.Do("GET", target+sep+query, nil)
				if err != nil {
					t.Fatal(err)
				}
				var items []json.RawMessage
				if r.Status != 200 || json.Unmarshal(r.Body, &items) != nil {
					t.Fatalf("%s", r)
				}
				return r, items
			}
			_, all := get("per_page=100")
			min := 2
			if n, ok := fewEntries[e.ID]; ok {
				min = n
			}
			if len(all) < min {
				t.Fatalf("the world holds %d entries, want at least %d to page through", len(all), min)
			}
			var paged []string
			for page := 1; page <= len(all); page++ {
				r, items := get(fmt.Sprintf("per_page=1&page=%d", page))
				if len(items) != 1 {
					t.Fatalf("page %d of per_page=1 has %d items", page, len(items))
				}
				paged = append(paged, string(items[0]))
				next, prev := "", ""
				if page < len(all) {
					next = strconv.Itoa(page + 1)
				}
				if page > 1 {
					prev = strconv.Itoa(page - 1)
				}
				for h, want := range map[string]string{"X-Page": strconv.Itoa(page), "X-Per-Page": "1", "X-Total": strconv.Itoa(len(all)),
					"X-Total-Pages": strconv.Itoa(len(all)), "X-Next-Page": next, "X-Prev-Page": prev} {
					if got, ok := r.Header[h]; !ok || got[0] != want {
						t.Errorf("page %d: %s = %q, want %q", page, h, got, want)
					}
				}
				links := map[string]url.Values{}
				for _, m := range linkRel.FindAllStringSubmatch(r.Header.Get("Link"), -1) {
					u, err := url.Parse(m[1])
					if err != nil || !strings.HasSuffix(u.Path, strings.SplitN(target, "?", 2)[0]) {
						t.Errorf("page %d: Link %q is not this list", page, m[1])
						continue
					}
					links[m[2]] = u.Query()
				}
				want := map[string]string{"first": "1", "last": strconv.Itoa(len(all)), "next": next, "prev": prev}
				for rel, p := range want {
					q, ok := links[rel]
					switch {
					case p == "" && ok:
						t.Errorf("page %d: Link has rel=%s", page, rel)
					case p != "" && (!ok || q.Get("page") != p || q.Get("per_page") != "1"):
						t.Errorf("page %d: Link rel=%s is %v, want page %s per_page 1", page, rel, q, p)
					case p != "" && strings.Contains(target, "ref=main") && q.Get("ref") != "main":
						t.Errorf("page %d: Link rel=%s drops ref: %v", page, rel, q)
					}
				}
			}
			var whole []string
			for _, it := range all {
				whole = append(whole, string(it))
			}
			if strings.Join(paged, "\n") != strings.Join(whole, "\n") {
				t.Errorf("per_page=1 pages do not add up to the list")
			}
			if r, _ := get(""); r.Header.Get("X-Per-Page") != "20" {
				t.Errorf("default per_page %q, want 20", r.Header.Get("X-Per-Page"))
			}
			if r, _ := get("per_page=1000"); r.Header.Get("X-Per-Page") != "100" {
				t.Errorf("per_page=1000 served as %q, want 100", r.Header.Get("X-Per-Page"))
			}
		})
	}
	if lists < 40 {
		t.Fatalf("only %d lists in the rulebook: is the walk broken?", lists)
	}
}
