package schemas

import (
	"encoding/json"
	"errors"
	"io/fs"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
)

// want lists the schemas other packages already refer to by name.
var want = []string{
	"access_level", "access_request", "award_emoji", "billable_member", "billable_membership",
	"blame_range", "branch", "bridge", "bulk_import", "bulk_import_entity", "bulk_import_failure", "commit", "commit_comment", "commit_diff", "commit_dry_run", "commit_ref", "commit_sequence", "commit_status",
	"error", "error_cherry_pick", "error_missing_attribute", "error_spam", "error_validation",
	"file_write_result",
	"group", "group_list_entry", "integration", "integration_detail", "issue", "job", "job_token_context", "label", "lfs_object", "member",
	"merge_request", "merge_request_approvals", "merge_request_block", "merge_request_changes", "merge_request_detail", "merge_request_detail_diverged", "merge_request_diff",
	"merge_request_simple", "merge_request_version", "merge_request_version_detail", "milestone", "note", "package_protection_rule", "personal_access_token", "pipeline_basic",
	"project", "project_basic", "project_embedded", "project_group_link", "project_simple",
	"registry_catalog", "registry_error", "registry_repository", "registry_tag", "registry_tag_detail", "registry_tags_list", "registry_token",
	"remote_mirror",
	"repository_file", "runner", "runner_detail", "runner_job", "runner_manager", "shared_with_group", "snippet", "tag",
	"time_stats", "todo", "topic", "tree_entry", "user", "user_admin", "user_list_entry", "user_reference", "version",
}

func TestNames(t *testing.T) {
	got := Names()
	if !slices.Equal(got, want) {
		t.Fatalf("Names() = %q\nwant %q", got, want)
	}
	got[0] = "changed"
	if Names()[0] == "changed" {
		t.Fatal("Names() exposes its internal slice")
	}
}

func TestEverySchemaCompiles(t *testing.T) {
	for _, name := range Names() {
		if _, _, err := lookup(name); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestSchemaDocuments holds every file to the conventions the error messages
// rely on: the $id matches the file, and every property explains itself.
func TestSchemaDocuments(t *testing.T) {
	for _, name := range Names() {
		data, err := fs.ReadFile(FS(), name+".json")
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]any
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatalf("%s.json: %v", name, err)
		}
		if got, want := doc["$id"], baseURL+name+".json"; got != want {
			t.Errorf("%s.json: $id = %v, want %s", name, got, want)
		}
		if got, want := doc["$schema"], "https://json-schema.org/draft/2020-12/schema"; got != want {
			t.Errorf("%s.json: $schema = %v, want %s", name, got, want)
		}
		if _, ok := doc["description"].(string); !ok {
			t.Errorf("%s.json: no description", name)
		}
		checkDescriptions(t, name+".json#", doc)
	}
}

func checkDescriptions(t *testing.T, at string, node any) {
	t.Helper()
	switch n := node.(type) {
	case map[string]any:
		if props, ok := n["properties"].(map[string]any); ok {
			for k, p := range props {
				pm, _ := p.(map[string]any)
				if d, _ := pm["description"].(string); d == "" {
					t.Errorf("%s/properties/%s: no description", at, k)
				}
			}
		}
		for k, v := range n {
			checkDescriptions(t, at+"/"+k, v)
		}
	case []any:
		for _, v := range n {
			checkDescriptions(t, at+"/[]", v)
		}
	}
}

const (
	userRef = `{"id": 1, "name": "Ada", "username": "ada", "state": "active",
		"avatar_url": null, "web_url": "https://example.test/ada"}`

	project = `{"id": 9007199254740993, "description": null, "default_branch": "main",
		"tag_list": ["go"], "topics": ["go"], "archived": false, "visibility": "private",
		"ssh_url_to_repo": "git@example.test:g/p.git", "http_url_to_repo": "https://example.test/g/p.git",
		"web_url": "https://example.test/g/p", "name": "p", "name_with_namespace": "g / p",
		"path": "p", "path_with_namespace": "g/p", "issues_enabled": true,
		"merge_requests_enabled": true, "wiki_enabled": true, "jobs_enabled": true,
		"snippets_enabled": true, "container_registry_enabled": true,
		"created_at": "2024-05-01T10:00:00.000Z", "last_activity_at": "2024-05-02T10:00:00Z",
		"shared_runners_enabled": true, "creator_id": 1,
		"namespace": {"id": 2, "name": "g", "path": "g", "kind": "group"},
		"avatar_url": null, "star_count": 0, "forks_count": 0, "open_issues_count": 0,
		"public_jobs": true, "shared_with_groups": [], "request_access_enabled": true}`

	group = `{"id": 2, "name": "g", "path": "g", "description": "", "visibility": "internal",
		"avatar_url": null, "web_url": "https://example.test/groups/g",
		"request_access_enabled": true, "repository_storage": "default", "full_name": "g",
		"full_path": "g", "file_template_project_id": null, "parent_id": null,
		"created_at": "2024-05-01T10:00:00.000+02:00", "ip_restriction_ranges": null,
		"math_rendering_limits_enabled": true, "lock_math_rendering_limits_enabled": false,
		"shared_with_groups": [{"group_id": 3, "group_name": "h", "group_full_path": "h",
			"group_access_level": 30, "expires_at": "2030-01-31"}],
		"prevent_sharing_groups_outside_hierarchy": false,
		"projects": [` + project + `], "shared_projects": []}`

	member = `{"id": 1, "username": "ada", "name": "Ada", "state": "active", "avatar_url": "https://example.test/a.png",
		"web_url": "https://example.test/ada", "created_at": "2024-05-01T10:00:00Z",
		"created_by": ` + userRef + `, "expires_at": null, "access_level": 40,
		"group_saml_identity": null}`

	topic = `{"id": 1, "name": "go", "title": "Go", "description": null,
		"total_projects_count": 3, "organization_id": 1, "avatar_url": null}`
)

var (
	user = with(userRef, map[string]string{"locked": "false", "created_at": `"2024-05-01T10:00:00Z"`,
		"bio": `""`, "bot": "false", "location": "null", "public_email": `""`, "skype": `""`, "linkedin": `""`,
		"twitter": `""`, "website_url": `""`, "organization": "null", "job_title": `""`, "pronouns": "null",
		"work_information": "null", "followers": "0", "following": "2", "local_time": `"10:00 AM"`, "is_followed": "false"})

	userAdmin = with(user, map[string]string{"email": `"ada@example.test"`, "is_admin": "true",
		"last_sign_in_at": "null", "confirmed_at": `"2024-05-01T10:00:00Z"`, "theme_id": "1",
		"last_activity_on": `"2024-05-02"`, "color_scheme_id": "1", "projects_limit": "100000",
		"current_sign_in_at": "null", "note": "null",
		"identities":       `[{"provider": "ldapmain", "extern_uid": "uid=ada", "saml_provider_id": null}]`,
		"can_create_group": "true", "can_create_project": "true", "two_factor_enabled": "false",
		"external": "false", "private_profile": "false", "commit_email": `"ada@example.test"`,
		"current_sign_in_ip": "null", "last_sign_in_ip": "null", "namespace_id": "5", "created_by": "null",
		"email_reset_offered_at": "null", "sign_in_count": "0"})

	groupListEntry = with(group, map[string]string{"projects": "", "shared_projects": "",
		"share_with_group_lock": "false", "require_two_factor_authentication": "false",
		"two_factor_grace_period": "48", "project_creation_level": `"developer"`, "auto_devops_enabled": "null",
		"subgroup_creation_level": `"maintainer"`, "emails_disabled": "false", "emails_enabled": "true",
		"mentions_disabled": "null", "lfs_enabled": "true", "default_branch": "null",
		"default_branch_protection":          "2",
		"default_branch_protection_defaults": `{"allowed_to_push": [{"access_level": 40}], "allow_force_push": false, "allowed_to_merge": [{"access_level": 40}]}`,
		"statistics": `{"storage_size": 1, "repository_size": 1, "wiki_size": 0, "lfs_objects_size": 0, "job_artifacts_size": 0,
			"pipeline_artifacts_size": 0, "packages_size": 0, "snippets_size": 0, "uploads_size": 0}`})
)

// with replaces (or, given "", deletes) top-level fields of a JSON object, so
// each example differs from the valid one in exactly the way it names. It
// panics because a malformed fixture is a bug in this file.
func with(doc string, fields map[string]string) string {
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(doc), &m); err != nil {
		panic(err)
	}
	for k, v := range fields {
		if v == "" {
			delete(m, k)
		} else {
			m[k] = json.RawMessage(v)
		}
	}
	out, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	return string(out)
}

func TestValid(t *testing.T) {
	for _, tc := range []struct{ schema, body string }{
		{"user_reference", userRef},
		{"user_reference", `{"id": 1, "name": "", "username": "b", "state": "blocked", "avatar_url": "https://example.test/b.png", "web_url": "u", "locked": true, "extra": 1}`},
		{"project_embedded", project},
		{"group", group},
		{"group", with(group, map[string]string{"projects": "", "shared_projects": ""})},
		{"member", member},
		{"member", with(member, map[string]string{"created_by": "", "expires_at": `"2030-12-31"`, "group_saml_identity": `{"extern_uid": "x", "provider": "group_saml", "saml_provider_id": 7}`})},
		{"project", with(project, map[string]string{"container_registry_access_level": `"private"`, "default_branch": "null"})},
		{"user_list_entry", with(userRef, map[string]string{"locked": "false"})},
		{"user", user},
		{"user_admin", userAdmin},
		{"user_admin", with(userAdmin, map[string]string{"created_by": userRef, "plan": `"free"`, "scim_identities": `[{"extern_uid": "x", "group_id": 2, "active": true}]`})},
		{"group_list_entry", groupListEntry},
		{"access_request", `{"id": 1, "username": "ada", "name": "Ada", "state": "active", "locked": false, "avatar_url": null,
			"web_url": "w", "requested_at": "2024-05-01T10:00:00Z", "created_at": "2024-05-01T10:00:00Z", "access_level": 30}`},
		{"billable_member", `{"id": 1, "username": "ada", "name": "Ada", "state": "active", "avatar_url": null, "web_url": "w",
			"last_activity_on": "2024-05-01", "membership_type": "group_member", "removable": true,
			"created_at": "2024-05-01T10:00:00Z", "last_login_at": null}`},
		{"billable_membership", `{"id": 1, "source_id": 2, "source_full_name": "g", "source_members_url": "https://example.test/groups/g/-/group_members",
			"created_at": "2024-05-01T10:00:00Z", "expires_at": null, "access_level": {"string_value": "Developer", "integer_value": 30}}`},
		{"personal_access_token", `{"id": 4, "name": "ci", "revoked": false, "created_at": "2024-05-01T10:00:00Z", "scopes": ["api"],
			"user_id": 1, "active": true, "expires_at": "2025-05-01", "token": "secret", "last_used_at": null}`},
		{"project_group_link", `{"id": 1, "project_id": 9, "group_id": 3, "group_access": 30, "expires_at": null}`},
		{"topic", topic},
		{"topic", with(topic, map[string]string{"description": `"About Go"`, "avatar_url": `"https://example.test/t.png"`})},
		{"error_missing_attribute", `{"message": "400 (Bad request) \"name\" not given"}`},
		{"error_missing_attribute", `{"message": "400 (Bad request) name not given"}`},
		{"error_validation", `{"message": {"name": ["can't be blank", "is too short"], "namespace": {"path": ["has already been taken"]}}}`},
		{"error_spam", `{"message": {"error": "Your request has been recognized as spam."}}`},
		{"error_spam", `{"needs_captcha_response": true, "spam_log_id": 12, "captcha_site_key": "k", "message": {"error": "spam"}}`},
		{"error_cherry_pick", `{"message": "Sorry, we cannot cherry-pick this commit automatically.", "error_code": "conflict"}`},
		{"error", `{"message": "404 Project Not Found"}`},
		{"error", `{"message": {"name": ["can't be blank"]}, "error": "name"}`},
		{"error", `{"message": {"error": "spam"}}`},
		// Grape's envelope, where the spec shows no body (Errors, after rule 9).
		{"error", `{"error": "membership is invalid"}`},
		{"error", `{"error": "404 Not Found"}`},
		{"error", `{"error": "Keyset pagination is not yet available for this type of request"}`},
	} {
		if err := Validate(tc.schema, []byte(tc.body)); err != nil {
			t.Errorf("%s: valid example rejected:\n%v", tc.schema, err)
		}
	}
}

func TestInvalid(t *testing.T) {
	for _, tc := range []struct {
		name, schema, body string
		// Each wanted issue as "pointer keyword"; Description must be set
		// whenever descr is given.
		issues []string
		descr  string
	}{
		{
			name: "user state outside the enum", schema: "user_reference",
			body:   with(userRef, map[string]string{"state": `"deactivated"`}),
			issues: []string{"/state /properties/state/enum"},
			descr:  "(active, blocked)",
		},
		{
			name: "user avatar_url missing and id not an integer", schema: "user_reference",
			body:   with(userRef, map[string]string{"avatar_url": "", "id": "1.5"}),
			issues: []string{" /required", "/id /properties/id/type"},
			descr:  "`avatar_url` string or null",
		},
		{
			name: "group visibility and created_at", schema: "group",
			body:   with(group, map[string]string{"visibility": `"secret"`, "created_at": `"2024-05-01"`}),
			issues: []string{"/created_at /properties/created_at/format", "/visibility /properties/visibility/enum"},
		},
		{
			name: "group embedded project through $ref", schema: "group",
			body:   with(group, map[string]string{"projects": `[` + with(project, map[string]string{"visibility": `"open"`}) + `]`}),
			issues: []string{"/projects/0/visibility /properties/projects/items/$ref/properties/visibility/enum"},
			descr:  "visibility (public, internal, private)",
		},
		{
			name: "group share expires_at not a date", schema: "group",
			body:   with(group, map[string]string{"shared_with_groups": `[{"group_id": 3, "group_name": "h", "group_full_path": "h", "group_access_level": 30, "expires_at": "2030-02-30"}]`}),
			issues: []string{"/shared_with_groups/0/expires_at /properties/shared_with_groups/items/$ref/properties/expires_at/format"},
		},
		{
			name: "member access level, expiry and creator", schema: "member",
			body: with(member, map[string]string{
				"access_level": "35",
				"expires_at":   `"2030-01-01T00:00:00Z"`,
				"created_by":   with(userRef, map[string]string{"state": `"banned"`}),
			}),
			issues: []string{
				"/access_level /properties/access_level/$ref/enum",
				"/created_by/state /properties/created_by/$ref/properties/state/enum",
				"/expires_at /properties/expires_at/format",
			},
		},
		{
			name: "member without access_level", schema: "member",
			body:   with(member, map[string]string{"access_level": ""}),
			issues: []string{" /required"},
			descr:  "`access_level` (integer, see Authentication)",
		},
		{
			name: "topic description missing, count a string", schema: "topic",
			body:   with(topic, map[string]string{"description": "", "total_projects_count": `"3"`}),
			issues: []string{" /required", "/total_projects_count /properties/total_projects_count/type"},
			descr:  "`description` (string or null)",
		},
		{
			name: "missing attribute in another wording", schema: "error_missing_attribute",
			body:   `{"message": "name is missing"}`,
			issues: []string{"/message /properties/message/pattern"},
		},
		{
			name: "missing attribute without the attribute", schema: "error_missing_attribute",
			body:   `{"message": "400 (Bad request) not given"}`,
			issues: []string{"/message /properties/message/pattern"},
		},
		{
			name: "validation message a string", schema: "error_validation",
			body:   `{"message": "name can't be blank"}`,
			issues: []string{"/message /properties/message/type"},
		},
		{
			name: "validation texts not an array", schema: "error_validation",
			body:   `{"message": {"name": "can't be blank"}}`,
			issues: []string{"/message/name /properties/message/additionalProperties/else/$ref/type"},
		},
		{
			name: "validation embedded entity texts not an array", schema: "error_validation",
			body:   `{"message": {"namespace": {"path": "taken"}}}`,
			issues: []string{"/message/namespace/path /properties/message/additionalProperties/then/additionalProperties/$ref/type"},
		},
		{
			name: "validation message empty", schema: "error_validation",
			body:   `{"message": {}}`,
			issues: []string{"/message /properties/message/minProperties"},
		},
		{
			name: "spam captcha fields incomplete", schema: "error_spam",
			body:   `{"needs_captcha_response": true, "message": {"error": "spam"}}`,
			issues: []string{" /dependentRequired/needs_captcha_response"},
		},
		{
			name: "cherry-pick code", schema: "error_cherry_pick",
			body:   `{"message": "x", "error_code": "failed"}`,
			issues: []string{"/error_code /properties/error_code/enum"},
		},
		{
			name: "error message an object of neither shape", schema: "error",
			body: `{"message": {"name": "can't be blank"}}`,
			issues: []string{
				"/message /properties/message/anyOf/0/type",
				"/message /properties/message/anyOf/2/$ref/required",
				"/message /properties/message/anyOf/3/type",
				"/message/name /properties/message/anyOf/1/$ref/additionalProperties/else/$ref/type",
			},
		},
		{
			name: "error message an empty list", schema: "error",
			body:   `{"message": []}`,
			issues: []string{"/message /properties/message/anyOf"},
		},
		{
			name: "error body in neither envelope", schema: "error",
			body:   `{"errors": "x is invalid"}`,
			issues: []string{" /anyOf/0/required", " /anyOf/1/required"},
		},
		{
			name: "Grape error not a string", schema: "error",
			body:   `{"error": {"text": "x is invalid"}}`,
			issues: []string{"/error /properties/error/type"},
		},
		{
			name: "error message a number", schema: "error",
			body:   `{"message": 404}`,
			issues: []string{"/message /properties/message/anyOf"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Validate(tc.schema, []byte(tc.body))
			var se *Error
			if !errors.As(err, &se) {
				t.Fatalf("want *Error, got %v", err)
			}
			var got []string
			for _, is := range se.Issues {
				got = append(got, is.Pointer+" "+is.Keyword)
				if is.Index != -1 {
					t.Errorf("Index = %d, want -1", is.Index)
				}
				if is.Message == "" || is.Location == "" {
					t.Errorf("issue without message or location: %+v", is)
				}
			}
			if !slices.Equal(got, tc.issues) {
				t.Errorf("issues = %q\nwant %q\n%v", got, tc.issues, err)
			}
			if tc.descr != "" && !strings.Contains(err.Error(), tc.descr) {
				t.Errorf("error does not quote %q:\n%v", tc.descr, err)
			}
		})
	}
}

func TestErrorNamesKeywordLocationAndDescription(t *testing.T) {
	body := with(member, map[string]string{"created_by": with(userRef, map[string]string{"state": `"banned"`})})
	err := Validate("member", []byte(body))
	if err == nil {
		t.Fatal("want an error")
	}
	for _, s := range []string{
		"body does not match schema member:",
		"at /created_by/state: value must be one of",
		"schema: /properties/created_by/$ref/properties/state/enum (user_reference.json#/properties/state/enum)",
		"field: User reference: \"`state` string (active, blocked)\"",
	} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error lacks %q:\n%v", s, err)
		}
	}
}

func TestValidateArray(t *testing.T) {
	ok := `[` + topic + `,` + topic + `]`
	if err := ValidateArray("topic", []byte(ok)); err != nil {
		t.Errorf("valid array rejected: %v", err)
	}
	if err := ValidateArray("topic", []byte(`[]`)); err != nil {
		t.Errorf("empty array rejected: %v", err)
	}

	bad := `[` + topic + `,` + topic + `,` + with(topic, map[string]string{"id": `"1"`}) + `]`
	err := ValidateArray("topic", []byte(bad))
	var se *Error
	if !errors.As(err, &se) {
		t.Fatalf("want *Error, got %v", err)
	}
	if len(se.Issues) != 1 || se.Issues[0].Index != 2 || se.Issues[0].Pointer != "/2/id" {
		t.Errorf("issues = %+v, want one at index 2, pointer /2/id", se.Issues)
	}
	if !strings.Contains(err.Error(), "at /2/id (element 2)") {
		t.Errorf("error does not name the element:\n%v", err)
	}

	if err := ValidateArray("topic", []byte(topic)); err == nil || !strings.Contains(err.Error(), "want an array") {
		t.Errorf("object body: got %v, want an array error", err)
	}
	// Validate on an array is a schema mismatch, not a crash.
	if err := Validate("topic", []byte(ok)); err == nil {
		t.Error("Validate accepted an array for an object schema")
	}
}

func TestBadInput(t *testing.T) {
	for _, tc := range []struct{ schema, body, want string }{
		{"no_such_schema", `{}`, `no schema named "no_such_schema"`},
		{"topic", ``, "not JSON"},
		{"topic", `{"id": 1} {}`, "not JSON"},
		{"topic", `{"id": 1`, "not JSON"},
	} {
		err := Validate(tc.schema, []byte(tc.body))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Validate(%q, %q) = %v, want error containing %q", tc.schema, tc.body, err, tc.want)
		}
		var se *Error
		if errors.As(err, &se) {
			t.Errorf("Validate(%q, %q): input errors must not look like schema mismatches", tc.schema, tc.body)
		}
	}
}

func TestDigest(t *testing.T) {
	d := Digest()
	if !regexp.MustCompile(`^[0-9a-f]{64}$`).MatchString(d) {
		t.Fatalf("Digest() = %q, want 64 hex digits", d)
	}
	if Digest() != d {
		t.Fatal("Digest() is not stable")
	}
}

func TestConcurrentUse(t *testing.T) {
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for _, name := range Names() {
				_ = Validate(name, []byte(`{}`))
			}
		})
	}
	wg.Wait()
}
