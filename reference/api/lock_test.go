package api

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/v4cert/v4cert/reference/store"
)

// TestNoAnswerUnderLock holds the package to "compute under the lock, render
// after it" (STYLE): no function run under the store's lock — a literal passed
// to Store.Read or Store.Write, or to a helper of this package that runs its
// argument under them (withUser, withMR, ...) — writes the response, directly
// or through any function of this package that does. A slow client must never
// hold up a writer, and a write's answer must follow its commit (a failed
// commit answers 503, not the 200 already sent).
func TestNoAnswerUnderLock(t *testing.T) {
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var parsed []*ast.File
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		parsed = append(parsed, f)
	}
	a := newLockAnalysis(fset, parsed)
	found := a.answersUnderLock()
	for _, msg := range found {
		t.Error(msg)
	}
	if a.lockedClosures < 100 {
		// The analysis must see the package's store closures, or it proves nothing.
		t.Errorf("found only %d closures run under the store's lock; the analysis no longer recognises them", a.lockedClosures)
	}
}

// TestLockAnalysisCatchesAnswers: the analysis finds an answer written under
// the lock directly, through a helper, and through a helper that runs its
// argument under the lock; and passes the same code answering after the lock.
func TestLockAnalysisCatchesAnswers(t *testing.T) {
	const bad = `package api
func (s *Server) direct(c *Ctx) error {
	return s.store.Read(func(d *store.Data) error { return c.JSON(200, 1) })
}
func answer(c *Ctx) error { c.W.WriteHeader(304); return nil }
func (s *Server) indirect(c *Ctx) error {
	return s.store.Write(func(d *store.Data) error { return answer(c) })
}
func (s *Server) withThing(c *Ctx, fn func(d *store.Data) error) error {
	return s.store.Write(func(d *store.Data) error { return fn(d) })
}
func (s *Server) viaHelper(c *Ctx) error {
	return s.withThing(c, func(d *store.Data) error { page, _ := Paginate(c, nil, nil, nil); return c.JSONPage(page) })
}
`
	const good = `package api
func (s *Server) direct(c *Ctx) error {
	var out int
	err := s.store.Read(func(d *store.Data) error { out = 1; return nil })
	if err != nil {
		return err
	}
	return c.JSON(200, out)
}
`
	for _, tc := range []struct {
		src  string
		want int
	}{{bad, 3}, {good, 0}} {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, "x.go", tc.src, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := newLockAnalysis(fset, []*ast.File{f}).answersUnderLock(); len(got) != tc.want {
			t.Errorf("found %d answers under the lock, want %d: %q", len(got), tc.want, got)
		}
	}
}

type lockAnalysis struct {
	fset  *token.FileSet
	files []*ast.File
	// funcs are the package's functions and methods by name (methods by
	// their name alone: a conservative match).
	funcs map[string][]*ast.FuncDecl
	// answers holds the names of functions that write the response.
	answers map[string]bool
	// runsLocked maps a helper's name to the indexes of its function
	// parameters it calls under the store's lock.
	runsLocked     map[string]map[int]bool
	lockedClosures int
}

func newLockAnalysis(fset *token.FileSet, files []*ast.File) *lockAnalysis {
	a := &lockAnalysis{fset: fset, files: files, funcs: map[string][]*ast.FuncDecl{},
		answers: map[string]bool{}, runsLocked: map[string]map[int]bool{}}
	for _, f := range files {
		for _, decl := range f.Decls {
			if fd, ok := decl.(*ast.FuncDecl); ok && fd.Body != nil {
				a.funcs[fd.Name.Name] = append(a.funcs[fd.Name.Name], fd)
			}
		}
	}
	// Which functions answer: a fixed point over the package's calls.
	for changed := true; changed; {
		changed = false
		for name, decls := range a.funcs {
			if a.answers[name] {
				continue
			}
			for _, fd := range decls {
				if a.answersIn(fd.Body) {
					a.answers[name], changed = true, true
					break
				}
			}
		}
	}
	// Which helpers run a parameter under the lock.
	for name, decls := range a.funcs {
		for _, fd := range decls {
			params := map[string]int{}
			i := 0
			for _, field := range fd.Type.Params.List {
				for _, n := range field.Names {
					if _, ok := field.Type.(*ast.FuncType); ok {
						params[n.Name] = i
					}
					i++
				}
				if len(field.Names) == 0 {
					i++
				}
			}
			if len(params) == 0 {
				continue
			}
			a.eachStoreClosure(fd.Body, func(lit *ast.FuncLit) {
				ast.Inspect(lit.Body, func(n ast.Node) bool {
					if call, ok := n.(*ast.CallExpr); ok {
						if id, ok := call.Fun.(*ast.Ident); ok {
							if idx, ok := params[id.Name]; ok {
								if a.runsLocked[name] == nil {
									a.runsLocked[name] = map[int]bool{}
								}
								a.runsLocked[name][idx] = true
							}
						}
					}
					return true
				})
			})
		}
	}
	return a
}

// calleeName is the name a call goes by: f(...), x.f(...), f[T](...).
func calleeName(call *ast.CallExpr) string {
	fun := call.Fun
	switch f := fun.(type) {
	case *ast.IndexExpr:
		fun = f.X
	case *ast.IndexListExpr:
		fun = f.X
	}
	switch f := fun.(type) {
	case *ast.Ident:
		return f.Name
	case *ast.SelectorExpr:
		return f.Sel.Name
	}
	return ""
}

// isResponseWriter reports whether e names the response: c.W or w.
func isResponseWriter(e ast.Expr) bool {
	switch x := e.(type) {
	case *ast.Ident:
		return x.Name == "w"
	case *ast.SelectorExpr:
		return x.Sel.Name == "W"
	}
	return false
}

// sink reports whether call writes the response itself.
func (a *lockAnalysis) sink(call *ast.CallExpr) bool {
	name := calleeName(call)
	switch name {
	case "JSON", "JSONPage", "NoContent", "WriteHeader", "writeJSON", "writeError", "ServeContent":
		return true
	case "Write":
		if sel, ok := call.Fun.(*ast.SelectorExpr); ok && isResponseWriter(sel.X) {
			return true
		}
	}
	// The response handed to code outside the package (io.Copy, fmt.Fprint, an encoder).
	if _, local := a.funcs[name]; !local {
		for _, arg := range call.Args {
			if isResponseWriter(arg) {
				return true
			}
		}
	}
	return false
}

func (a *lockAnalysis) answersIn(body ast.Node) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || found {
			return !found
		}
		if a.sink(call) || a.answers[calleeName(call)] {
			found = true
		}
		return !found
	})
	return found
}

// eachStoreClosure calls fn for each function literal under body that runs
// under the store's lock.
func (a *lockAnalysis) eachStoreClosure(body ast.Node, fn func(*ast.FuncLit)) {
	ast.Inspect(body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		name := calleeName(call)
		for i, arg := range call.Args {
			lit, ok := arg.(*ast.FuncLit)
			if !ok {
				continue
			}
			if a.storeCall(call, name) || a.runsLocked[name][i] {
				fn(lit)
			}
		}
		return true
	})
}

// storeCall reports whether call is Read or Write on the store.
func (a *lockAnalysis) storeCall(call *ast.CallExpr, name string) bool {
	if name != "Read" && name != "Write" {
		return false
	}
	sel := call.Fun.(*ast.SelectorExpr)
	switch x := sel.X.(type) {
	case *ast.SelectorExpr:
		return x.Sel.Name == "store"
	case *ast.CallExpr:
		return calleeName(x) == "Store"
	case *ast.Ident:
		return x.Name == "st" || x.Name == "store"
	}
	return false
}

func (a *lockAnalysis) answersUnderLock() []string {
	var out []string
	for _, f := range a.files {
		a.eachStoreClosure(f, func(lit *ast.FuncLit) {
			a.lockedClosures++
			ast.Inspect(lit.Body, func(n ast.Node) bool {
				if call, ok := n.(*ast.CallExpr); ok && (a.sink(call) || a.answers[calleeName(call)]) {
					out = append(out, a.fset.Position(call.Pos()).String()+": "+calleeName(call)+" answers under the store's lock")
				}
				return true
			})
		})
	}
	sort.Strings(out)
	return out
}

// flakyBackend keeps the committed records' values and fails every commit
// while failing is set.
type flakyBackend struct {
	failing bool
	stored  []string
}

func (b *flakyBackend) Load(func(table, key string, value []byte) error) error { return nil }
func (b *flakyBackend) Replace([]store.Change) error                           { return nil }
func (b *flakyBackend) Commit(changes []store.Change) error {
	if b.failing {
		return errors.New("disk full")
	}
	for _, c := range changes {
		b.stored = append(b.stored, string(c.Value))
	}
	return nil
}

func (b *flakyBackend) holds(s string) bool {
	return slices.ContainsFunc(b.stored, func(v string) bool { return strings.Contains(v, s) })
}

// TestFailedCommitAnswers503: with --data-dir, a write whose commit fails
// answers the spec's 503, never the success its closure computed. (The
// store keeps the change and the next commit retries it, so it is durable
// once the disk is back: persist.go.)
func TestFailedCommitAnswers503(t *testing.T) {
	db := &flakyBackend{}
	st, _, err := store.Open(func() time.Time { return store.FixedTime }, db)
	if err != nil {
		t.Fatal(err)
	}
	var rootID int
	err = st.Write(func(d *store.Data) error {
		u, err := d.CreateUser(store.NewUser{Username: "root", Name: "Root", Email: "root@example.com", Admin: true})
		if err != nil {
			return err
		}
		rootID = u.ID
		_, err = d.CreateToken(u, "pat", []string{"api"}, nil, "root-secret")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(st, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	send := func(method, target, body string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(method, target, strings.NewReader(body))
		r.Header.Set("PRIVATE-TOKEN", "root-secret")
		r.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		s.ServeHTTP(w, r)
		return w
	}
	for i, wr := range []struct{ method, target, body, stored string }{
		// An answer built under the lock, one built after it, a 204.
		{"POST", "/api/v4/users", `{"username":"ann","name":"Ann","email":"ann@example.com","password":"secret-secret"}`, "ann@example.com"},
		{"PUT", fmt.Sprintf("/api/v4/users/%d/custom_attributes/team", rootID), `{"value":"blue-team"}`, "blue-team"},
		{"POST", "/api/v4/groups", `{"name":"G","path":"g-path"}`, "g-path"},
		{"DELETE", "/api/v4/groups/g-path", ``, ""},
	} {
		db.failing = true
		w := send(wr.method, wr.target, wr.body)
		if w.Code != http.StatusServiceUnavailable || !strings.Contains(w.Body.String(), "503 Service Unavailable") {
			t.Errorf("%s %s with the disk failing: %d %s, want 503", wr.method, wr.target, w.Code, w.Body)
		}
		db.failing = false
		if w := send("POST", "/api/v4/users", fmt.Sprintf(`{"username":"u%d","name":"U","email":"u%d@example.com","password":"secret-secret"}`, i, i)); w.Code != http.StatusCreated {
			t.Errorf("the next write with the disk back: %d %s", w.Code, w.Body)
		}
		if wr.stored != "" && !db.holds(wr.stored) {
			t.Errorf("%s %s: not stored once the disk was back", wr.method, wr.target)
		}
	}
}
