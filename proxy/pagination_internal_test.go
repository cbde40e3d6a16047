package proxy

import (
	"net/url"
	"reflect"
	"strings"
	"testing"
)

// slowLinkURL is what linkURL stands in for: url.Parse, then
// url.ParseQuery of its query.
func slowLinkURL(raw string) (string, url.Values, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", nil, err
	}
	m, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return "", nil, err
	}
	return u.EscapedPath(), m, nil
}

func valuesOf(q query) url.Values {
	m := url.Values{}
	for _, p := range q {
		m[p.k] = append(m[p.k], p.v)
	}
	return m
}

var linkURLCases = []string{
	"http://127.0.0.1:4000/api/v4/users?page=2&per_page=20",
	"https://platform.example.com/api/v4/groups/a%2Fb/projects?page=1&per_page=20&order_by=id",
	"/api/v4/users?page=2", "//evil/x?page=1", "http://x", "http://x?", "http://x:?a=1", "http://:80/x",
	"http://x:8a/y", "http://[::1]:80/x?page=1", "http://a:1:2/x", "http://u@x/y", "HTTP://x/y?page=2",
	"http://x/a b?c", "http://x/a?b c", "http://x/a?b#c", "http://x/a%zz?b", "http://x/a%2?b", "http://x/a?b=%zz",
	"http://x/a?b;c=1", "http://x/a?b=1&&c=2&=3&d", "http://x/a?x+y=1+2&x%20y=%41", "http://x/é?a=1", "http://x/a?é=1",
	"http://x/a/*?b", "http://x/a[]?id[]=1&id[]=2", "mailto:a@b", "", "http://x/a\x7f", "http://x/%41?a=%00",
}

// TestLinkURLMatchesURLParse holds the in-place reading of a link to
// package url's: the same path, the same query, an error where it errs.
func TestLinkURLMatchesURLParse(t *testing.T) {
	for _, raw := range linkURLCases {
		p, q, err := linkURL(raw, nil)
		wp, wq, werr := slowLinkURL(raw)
		if (err == nil) != (werr == nil) || err != nil && err.Error() != werr.Error() {
			t.Errorf("%q: error %v, url.Parse %v", raw, err, werr)
			continue
		}
		if err == nil && (p != wp || !reflect.DeepEqual(valuesOf(q), wq)) {
			t.Errorf("%q: %q %v, url.Parse %q %v", raw, p, valuesOf(q), wp, wq)
		}
	}
}

func FuzzLinkURL(f *testing.F) {
	for _, raw := range linkURLCases {
		f.Add(raw)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		p, q, err := linkURL(raw, nil)
		wp, wq, werr := slowLinkURL(raw)
		if (err == nil) != (werr == nil) || err != nil && err.Error() != werr.Error() {
			t.Fatalf("%q: error %v, url.Parse %v", raw, err, werr)
		}
		if err == nil && (p != wp || !reflect.DeepEqual(valuesOf(q), wq)) {
			t.Fatalf("%q: %q %v, url.Parse %q %v", raw, p, valuesOf(q), wp, wq)
		}
		// The request's query, read the same way.
		rq, ok := parseQuery(raw, nil)
		m, qerr := url.ParseQuery(raw)
		if ok != (qerr == nil) || !reflect.DeepEqual(valuesOf(rq), m) && !(len(rq) == 0 && len(m) == 0) {
			t.Fatalf("query %q: %v %v, url.ParseQuery %v %v", raw, valuesOf(rq), ok, m, qerr)
		}
	})
}

// TestSameValues: the comparison of a name's values is strings.Join's.
func TestSameValues(t *testing.T) {
	q := func(ps ...string) query {
		var out query
		for i := 0; i < len(ps); i += 2 {
			out = append(out, qpair{ps[i], ps[i+1]})
		}
		return out
	}
	for _, c := range []struct {
		a, b query
		want bool
	}{
		{q("a", "1"), q("a", "1"), true},
		{q("a", "1", "b", "2", "a", "3"), q("a", "1", "a", "3"), true},
		{q("a", "1"), q("a", "2"), false},
		{q("a", "1"), q(), false},
		{q("a", ""), q(), true},
		{q("a", "x\x00y"), q("a", "x", "a", "y"), true},
		{q("a", "1", "a", "2"), q("a", "1"), false},
	} {
		if got := sameValues(c.a, c.b, "a"); got != c.want {
			t.Errorf("%v %v: %v", c.a, c.b, got)
		}
	}
}

// TestParseLinksSharedRoom: links read into shared room (more links and
// pairs than it holds) keep each its own query.
func TestParseLinksSharedRoom(t *testing.T) {
	var h []string
	for i, raw := range linkURLCases {
		if _, _, err := linkURL(raw, nil); err == nil && raw != "" {
			h = append(h, "<"+raw+`>; rel="r`+string(rune('a'+i))+`"`)
		}
	}
	h = append(h, `<http://x/a?a=1&b=2&c=3&d=4&e=5&f=6&g=7&h=8&i=9&j=10&k=11&l=12&m=13&n=14&o=15&p=16&q=17&r=18&s=19&t=20>; rel="next"`)
	var room [4]link
	var qroom [24]qpair
	links, err := parseLinks(strings.Join(h, ", "), room[:], qroom[:])
	if err != nil || len(links) != len(h) {
		t.Fatalf("%d links of %d: %v", len(links), len(h), err)
	}
	for _, l := range links {
		p, q, _ := linkURL(l.raw, nil)
		if l.path != p || !reflect.DeepEqual(valuesOf(l.query), valuesOf(q)) {
			t.Errorf("%q: %q %v, alone %q %v", l.raw, l.path, valuesOf(l.query), p, valuesOf(q))
		}
	}
}
