package proxy

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
	"time"
)

// BenchmarkRecordInteraction is record mode's own cost for one 6 KB page:
// redaction and the YAML the cassette gets.
func BenchmarkRecordInteraction(b *testing.B) {
	body := []byte("[" + strings.Repeat(`{"id":12,"username":"benchmark-user-00012","name":"Bench User benchmark-user-00012 of the Loopback Measurement Team at the Reference Implementation Working Group (v4cert), Loopback Division","state":"active","locked":false,"avatar_url":null,"web_url":"http://127.0.0.1:4000/benchmark-user-00012"},`, 20) + "{}]")
	ex := &Exchange{Method: "GET", URL: "http://127.0.0.1:4000/api/v4/users?per_page=20", Path: "/api/v4/users", RawQuery: "per_page=20",
		ReqHeader: http.Header{"Private-Token": {"bench-user-token"}, "User-Agent": {"Go-http-client/1.1"}}, Status: 200,
		Header: http.Header{"Content-Type": {"application/json"}, "Content-Length": {"6000"}, "X-Page": {"1"}, "X-Per-Page": {"20"},
			"Link": {`<http://127.0.0.1:4000/api/v4/users?page=2&per_page=20>; rel="next", <http://127.0.0.1:4000/api/v4/users?page=1&per_page=20>; rel="first"`}},
		Body: body, Duration: time.Millisecond}
	var out bytes.Buffer
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		out.Reset()
		writeInteraction(&out, interactionOf(ex), Format1, 0)
	}
}
