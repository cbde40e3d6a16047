package api_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/v4cert/v4cert/schemas"
)

// getAs sends GET path with token (none when empty) and decodes the object answered.
func (a *apiClient) getAs(token, path string) (int, map[string]any, []byte) {
	a.t.Helper()
	req, _ := http.NewRequest("GET", a.srv.URL+"/api/v4"+path, nil)
	if token != "" {
		req.Header.Set("PRIVATE-TOKEN", token)
	}
	res, err := a.srv.Client().Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	defer res.Body.Close()
	var raw json.RawMessage
	json.NewDecoder(res.Body).Decode(&raw)
	var m map[string]any
	json.Unmarshal(raw, &m)
	return res.StatusCode, m, raw
}

// GET /projects/:id answers as the platform's ProjectWithAccess for an
// authenticated caller (permissions: direct project membership, highest
// group membership, null where none) and carries readme_url for a caller who
// reads the code: the README's blob URL, null when the default branch has none.
func TestProjectPermissionsAndReadme(t *testing.T) {
	a := newAPI(t)
	dev := a.gitUser("dev", "api")
	g := a.must(201, "POST", "/groups", map[string]any{"name": "acme", "path": "acme", "visibility": "public"})
	sub := a.must(201, "POST", "/groups", map[string]any{"name": "tools", "path": "tools", "parent_id": g["id"], "visibility": "public"})
	p := a.must(201, "POST", "/projects", map[string]any{"name": "app", "namespace_id": sub["id"], "initialize_with_readme": true, "visibility": "public"})
	id := int(p["id"].(float64))
	a.must(201, "POST", fmt.Sprintf("/groups/%v/members", g["id"]), map[string]any{"user_id": 2, "access_level": 20})
	a.must(201, "POST", fmt.Sprintf("/groups/%v/members", sub["id"]), map[string]any{"user_id": 2, "access_level": 30})
	a.must(201, "POST", fmt.Sprintf("/projects/%d/members", id), map[string]any{"user_id": 2, "access_level": 40})

	check := func(who, token string, wantProject, wantGroup any, wantPermissions bool) map[string]any {
		t.Helper()
		st, got, raw := a.getAs(token, fmt.Sprintf("/projects/%d", id))
		if st != 200 {
			t.Fatalf("%s: %d %s", who, st, raw)
		}
		// An anonymous caller is answered the basic form (BasicProjectDetails).
		schema := "project"
		if token == "" {
			schema = "project_basic"
			if _, has := got["visibility"]; has {
				t.Errorf("%s: visibility in the basic form", who)
			}
		}
		if err := schemas.Validate(schema, raw); err != nil {
			t.Errorf("%s: schema: %v", who, err)
		}
		perms, has := got["permissions"].(map[string]any)
		if has != wantPermissions {
			t.Fatalf("%s: permissions = %v, want present: %v", who, got["permissions"], wantPermissions)
		}
		if has {
			level := func(k string) any {
				if m, ok := perms[k].(map[string]any); ok {
					if m["notification_level"] != 3.0 {
						t.Errorf("%s: %s notification_level %v", who, k, m["notification_level"])
					}
					return m["access_level"]
				}
				return perms[k]
			}
			if pa, ga := level("project_access"), level("group_access"); pa != wantProject || ga != wantGroup {
				t.Errorf("%s: permissions %v, want project %v group %v", who, perms, wantProject, wantGroup)
			}
		}
		return got
	}
	got := check("a member", dev, 40.0, 30.0, true)
	if got["readme_url"] != got["web_url"].(string)+"/-/blob/main/README.md" {
		t.Errorf("readme_url = %v", got["readme_url"])
	}
	check("root, who made the group", repoRootToken, nil, 50.0, true)
	if got := check("anonymous", "", nil, nil, false); got["readme_url"] == nil {
		t.Errorf("anonymous on a public project: readme_url %v", got["readme_url"])
	}

	// A markup README comes before a plain one; none leaves null.
	a.must(201, "POST", fmt.Sprintf("/projects/%d/repository/commits", id), map[string]any{"branch": "main", "commit_message": "readmes",
		"actions": []map[string]any{{"action": "delete", "file_path": "README.md"}, {"action": "create", "file_path": "README", "content": "plain"},
			{"action": "create", "file_path": "readme.rst", "content": "markup"}}})
	if got := check("a member", dev, 40.0, 30.0, true); got["readme_url"] != got["web_url"].(string)+"/-/blob/main/readme.rst" {
		t.Errorf("readme_url with README and readme.rst = %v", got["readme_url"])
	}
	a.must(201, "POST", fmt.Sprintf("/projects/%d/repository/commits", id), map[string]any{"branch": "main", "commit_message": "no readme",
		"actions": []map[string]any{{"action": "delete", "file_path": "README"}, {"action": "delete", "file_path": "readme.rst"}}})
	if got := check("a member", dev, 40.0, 30.0, true); got["readme_url"] != nil {
		t.Errorf("readme_url without a README = %v", got["readme_url"])
	} else if _, has := got["readme_url"]; !has {
		t.Errorf("readme_url absent without a README; the platform answers null")
	}
}

// An issue takes labels as an array (python-gitlab) or a comma-separated
// string, and answers issue_type and type as the platform does.
func TestIssueLabelsArrayAndType(t *testing.T) {
	a := newAPI(t)
	id, _ := a.project("issues")
	for _, labels := range []any{[]string{"bug", "ui"}, "bug,ui"} {
		st, b := a.do("POST", fmt.Sprintf("/projects/%d/issues", id), map[string]any{"title": "t", "labels": labels})
		if st != 201 {
			t.Fatalf("labels %v: %d %s", labels, st, b)
		}
		if err := schemas.Validate("issue", b); err != nil {
			t.Errorf("schema: %v", err)
		}
		var got map[string]any
		json.Unmarshal(b, &got)
		if fmt.Sprint(got["labels"]) != "[bug ui]" || got["issue_type"] != "issue" || got["type"] != "ISSUE" {
			t.Errorf("labels %v: %s", labels, b)
		}
	}
	if st, b := a.do("POST", fmt.Sprintf("/projects/%d/issues", id), map[string]any{"title": "t", "labels": map[string]any{"a": 1}}); st != 400 {
		t.Errorf("labels as a hash: %d %s", st, b)
	}
}
