package proxy

import (
	"net/http"
	"reflect"
	"testing"
)

// TestRebaseHeader: only URLs whose origin is the upstream's, in any of its
// spellings, move; a longer host or another port is another origin.
func TestRebaseHeader(t *testing.T) {
	from := originForms("HTTPS", "Platform.example.com")
	to := "http://127.0.0.1:8081"
	for in, want := range map[string]string{
		"https://platform.example.com/api/v4/users?page=2":      to + "/api/v4/users?page=2",
		"https://PLATFORM.example.com:443/api/v4/users":         to + "/api/v4/users",
		"https://platform.example.com":                          to,
		"https://platform.example.com?x=1":                      to + "?x=1",
		"https://platform.example.com:8443/api/v4/users":        "https://platform.example.com:8443/api/v4/users",
		"https://platform.example.com.evil.test/api/v4/users":   "https://platform.example.com.evil.test/api/v4/users",
		"http://platform.example.com/api/v4/users":              "http://platform.example.com/api/v4/users",
		"https://objects.example.com/platform.example.com/x":    "https://objects.example.com/platform.example.com/x",
		"/api/v4/projects/1/repository/archive.zip":             "/api/v4/projects/1/repository/archive.zip",
		"https://user@platform.example.com/api/v4/users?page=1": "https://user@platform.example.com/api/v4/users?page=1",
	} {
		h := http.Header{"Location": {in}, "Link": {"<" + in + `>; rel="next"`, `<` + in + `>; rel="first"`}}
		orig := h.Clone()
		got := rebaseHeader(h, from, to)
		if got.Get("Location") != want || !reflect.DeepEqual(got["Link"], []string{"<" + want + `>; rel="next"`, "<" + want + `>; rel="first"`}) {
			t.Errorf("%s: became %v, want %s", in, got, want)
		}
		if !reflect.DeepEqual(h, orig) {
			t.Errorf("%s: the upstream's header changed to %v", in, h)
		}
	}
	for _, c := range []struct{ scheme, host string }{{"http", "[::1]:80"}, {"http", "[::1]"}} {
		if got := originForms(c.scheme, c.host); !reflect.DeepEqual(got, []string{"http://[::1]", "http://[::1]:80"}) {
			t.Errorf("originForms(%s, %s) = %v", c.scheme, c.host, got)
		}
	}
	if got := originForms("http", "127.0.0.1:8080"); !reflect.DeepEqual(got, []string{"http://127.0.0.1:8080"}) {
		t.Errorf("a non-default port: %v", got)
	}
	// One value mixing the upstream's links with another host's, and with
	// text around and between them: only the upstream's origins move.
	mixed := `<https://objects.example.com/a>; rel="x", <https://platform.example.com/api/v4/users?page=2>; rel="next",` +
		`<https://platform.example.com:443>;rel="root", <broken`
	want := `<https://objects.example.com/a>; rel="x", <` + to + `/api/v4/users?page=2>; rel="next",` +
		`<` + to + `>;rel="root", <broken`
	h := http.Header{"Link": {mixed, `<https://objects.example.com/b>`}}
	got := rebaseHeader(h, from, to)
	if !reflect.DeepEqual(got["Link"], []string{want, `<https://objects.example.com/b>`}) || h["Link"][0] != mixed {
		t.Errorf("mixed: %q (upstream's now %q)", got["Link"], h["Link"])
	}
	// The client's copy (answer) shares the upstream's slices: rebaseInto
	// replaces the slice it changes.
	client := http.Header{"Link": h["Link"], "X-Total": {"3"}}
	rebaseInto(client, from, to)
	if client["Link"][0] != want || h["Link"][0] != mixed {
		t.Errorf("rebaseInto wrote through a shared slice: %q, %q", client["Link"], h["Link"])
	}
}
