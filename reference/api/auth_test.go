package api

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/v4cert/v4cert/reference/store"
	"github.com/v4cert/v4cert/specs"
)

// TestCredentialForms checks every place a token may travel (Authentication 1
// and 2), including the job-token forms that later endpoints rely on.
func TestCredentialForms(t *testing.T) {
	st := store.New(func() time.Time { return store.FixedTime })
	var userID int
	st.Write(func(d *store.Data) error {
		u, err := d.CreateUser(store.NewUser{Username: "runner-owner", Name: "R", Email: "r@example.com"})
		if err != nil {
			t.Fatal(err)
		}
		userID = u.ID
		if _, err := d.CreateToken(u, "pat", []string{"api"}, nil, "pat-secret"); err != nil {
			t.Fatal(err)
		}
		d.AddJobToken(&store.JobToken{Secret: "job-secret", JobID: 7, ProjectID: 3, UserID: u.ID})
		return nil
	})
	s, err := New(st, Options{})
	if err != nil {
		t.Fatal(err)
	}
	jobEndpoint := &specs.Endpoint{ID: "test.job", Method: "GET", Path: "/job", Who: "authenticated", JobToken: true}
	plainEndpoint := &specs.Endpoint{ID: "test.plain", Method: "GET", Path: "/user", Who: "authenticated"}
	cases := []struct {
		name     string
		endpoint *specs.Endpoint
		header   [2]string
		query    string
		wantJob  bool
		wantCode int // 0: authenticated
	}{
		{"PRIVATE-TOKEN header", plainEndpoint, [2]string{"PRIVATE-TOKEN", "pat-secret"}, "", false, 0},
		{"private_token query", plainEndpoint, [2]string{}, "private_token=pat-secret", false, 0},
		{"Bearer personal token", plainEndpoint, [2]string{"Authorization", "Bearer pat-secret"}, "", false, 0},
		{"JOB-TOKEN header", jobEndpoint, [2]string{"JOB-TOKEN", "job-secret"}, "", true, 0},
		{"Bearer job token", jobEndpoint, [2]string{"Authorization", "Bearer job-secret"}, "", true, 0},
		{"job_token query", jobEndpoint, [2]string{}, "job_token=job-secret", true, 0},
		{"job token where none is accepted", plainEndpoint, [2]string{"JOB-TOKEN", "job-secret"}, "", false, http.StatusUnauthorized},
		{"job token in PRIVATE-TOKEN", jobEndpoint, [2]string{"PRIVATE-TOKEN", "job-secret"}, "", false, http.StatusUnauthorized},
		{"unknown job token", jobEndpoint, [2]string{"JOB-TOKEN", "nope"}, "", false, http.StatusUnauthorized},
		{"anonymous on an authenticated endpoint", plainEndpoint, [2]string{}, "", false, http.StatusUnauthorized},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, "/api/v4"+tc.endpoint.Path+"?"+tc.query, nil)
			if tc.header[0] != "" {
				r.Header.Set(tc.header[0], tc.header[1])
			}
			c := &Ctx{W: httptest.NewRecorder(), R: r, Endpoint: tc.endpoint}
			err := s.prepare(c, &route{endpoint: tc.endpoint, params: routeParams(tc.endpoint)})
			if tc.wantCode != 0 {
				if e := asError(err, "Resource"); err == nil || e.Status != tc.wantCode {
					t.Fatalf("prepare = %v, want status %d", err, tc.wantCode)
				}
				return
			}
			if err != nil {
				t.Fatalf("prepare: %v", err)
			}
			if c.Caller == nil || c.Caller.ID != userID {
				t.Fatalf("caller = %+v, want user %d", c.Caller, userID)
			}
			if (c.JobToken != nil) != tc.wantJob {
				t.Fatalf("job token = %+v, want job: %v", c.JobToken, tc.wantJob)
			}
		})
	}
}
