package api_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// The platform checks the administrator in the body of its topics routes,
// after Grape has validated the parameters
// (gitlabhq/gitlabhq lib/api/topics.rb @ba0f3164): a request missing a required parameter
// answers 400 whoever sends it, and a complete one from an anonymous caller
// 401. Labels and milestones authenticate in a before filter: 401 first.
func TestParametersBeforeCallerWhereThePlatformChecksInTheBody(t *testing.T) {
	a := newAPI(t)
	p := a.must(201, "POST", "/projects", map[string]any{"name": "open", "visibility": "public"})
	pid := int(p["id"].(float64))
	anon := func(method, path, body string) int {
		t.Helper()
		req, _ := http.NewRequest(method, a.srv.URL+"/api/v4"+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		res, err := a.srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	for _, c := range []struct {
		method, path, body string
		want               int
	}{
		{"POST", "/topics", `{"title":"T"}`, 400},
		{"POST", "/topics", `{"name":"n","title":"T"}`, 401},
		{"POST", "/topics/merge", `{"source_topic_id":1}`, 400},
		{"POST", "/topics/merge", `{"source_topic_id":1,"target_topic_id":2}`, 401},
		{"GET", fmt.Sprintf("/projects/%d/labels", pid), "", 401},
		{"GET", fmt.Sprintf("/projects/%d/milestones", pid), "", 401},
		{"POST", fmt.Sprintf("/projects/%d/labels", pid), `{"color":"#fff"}`, 401},
	} {
		if got := anon(c.method, c.path, c.body); got != c.want {
			t.Errorf("anonymous %s %s %s: %d, want %d", c.method, c.path, c.body, got, c.want)
		}
	}
}
