package store

import "testing"

func TestMaskURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://user:secret@example.com/a.git":  "https://*****:*****@example.com/a.git",
		"https://user@example.com/a.git":         "https://*****@example.com/a.git",
		"ssh://git:p%40ss@example.com:22/a.git":  "ssh://*****:*****@example.com:22/a.git",
		"https://example.com/a@b.git":            "https://example.com/a@b.git",
		"https://u:p@example.com/x?y=z@w#frag@x": "https://*****:*****@example.com/x?y=z@w#frag@x",
	} {
		if got := maskURL(in); got != want {
			t.Errorf("maskURL(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCheckMirrorURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://example.com/a.git":       "",
		"git://example.com/a.git":         "",
		"ssh://git@example.com/a.git":     "",
		"":                                "can't be blank",
		"ftp://example.com/a.git":         "is blocked: Only allowed schemes are http, https, ssh, git",
		"file:///srv/a.git":               "is blocked: Only allowed schemes are http, https, ssh, git",
		"/srv/a.git":                      "is blocked: URI is invalid",
		"git@example.com:a.git":           "is blocked: URI is invalid",
		"https://localhost/a.git":         "is blocked: Requests to localhost are not allowed",
		"https://127.0.0.1/a.git":         "is blocked: Requests to localhost are not allowed",
		"https://10.1.2.3/a.git":          "is blocked: Requests to the local network are not allowed",
		"https://-user@example.com/a.git": "is blocked: Username needs to start with an alphanumeric character",
	} {
		if got := checkMirrorURL(in); got != want {
			t.Errorf("checkMirrorURL(%q) = %q, want %q", in, got, want)
		}
	}
}
