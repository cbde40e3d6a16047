package api

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/v4cert/v4cert/reference/store"
)

// TestImportSourcesAreLoopbackOnly: a local reference must not reach other
// hosts unless told to, whatever a request names (fuzzers included). The
// address is refused at dial time, before any packet leaves.
func TestImportSourcesAreLoopbackOnly(t *testing.T) {
	st := store.New(func() time.Time { return store.FixedTime })
	st.Write(func(d *store.Data) error {
		u, _ := d.CreateUser(store.NewUser{Username: "root", Name: "root", Email: "root@example.com", Admin: true})
		d.CreateToken(u, "t", []string{"api"}, nil, "tok")
		d.CreateGroup(store.NewGroup{Name: "dest", Path: "dest", CreatorID: u.ID})
		return nil
	})
	s, err := New(st, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	body := `{"configuration":{"url":"http://10.255.255.1","access_token":"x"},
		"entities":[{"source_type":"group_entity","source_full_path":"src","destination_slug":"copy","destination_namespace":"dest"}]}`
	r := httptest.NewRequest(http.MethodPost, "/api/v4/bulk_imports", strings.NewReader(body))
	r.Header.Set("PRIVATE-TOKEN", "tok")
	r.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	start := time.Now()
	s.ServeHTTP(w, r)
	if w.Code != http.StatusCreated {
		t.Fatalf("POST /bulk_imports: %d %s", w.Code, w.Body)
	}
	if time.Since(start) > 5*time.Second {
		t.Fatalf("the refusal must not wait for a network timeout")
	}
	var imp struct{ ID int }
	json.Unmarshal(w.Body.Bytes(), &imp)
	r = httptest.NewRequest(http.MethodGet, "/api/v4/bulk_imports/entities", nil)
	r.Header.Set("PRIVATE-TOKEN", "tok")
	w = httptest.NewRecorder()
	s.ServeHTTP(w, r)
	if !strings.Contains(w.Body.String(), `"status":"failed"`) || !strings.Contains(w.Body.String(), "loopback") {
		t.Fatalf("entity should fail naming the loopback rule: %s", w.Body)
	}
}
