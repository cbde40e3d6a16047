package params_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/v4cert/v4cert/reference/params"
)

func query(t *testing.T, raw string) *params.Values {
	t.Helper()
	v, err := params.FromQuery(raw)
	if err != nil {
		t.Fatalf("FromQuery(%q): %v", raw, err)
	}
	return v
}

func request(t *testing.T, method, target, contentType, body string) *params.Values {
	t.Helper()
	r := httptest.NewRequest(method, target, strings.NewReader(body))
	if contentType != "" {
		r.Header.Set("Content-Type", contentType)
	}
	v, err := params.FromRequest(r)
	if err != nil {
		t.Fatalf("FromRequest(%s %s, %q): %v", method, target, body, err)
	}
	return v
}

// Endpoints convention 5: name[]=v repeated is an array, in the order sent.
func TestArrays(t *testing.T) {
	for _, raw := range []string{
		"topics[]=a&topics[]=b&topics[]=c",
		"topics%5B%5D=a&topics%5B%5D=b&topics%5B%5D=c",
	} {
		in := query(t, raw).Read()
		if got := in.Strings("topics"); !reflect.DeepEqual(got, []string{"a", "b", "c"}) {
			t.Errorf("%s: Strings = %q", raw, got)
		}
		if err := in.Err(); err != nil {
			t.Errorf("%s: %v", raw, err)
		}
	}
	in := query(t, "ids[]=3&ids[]=1").Read()
	if got := in.Ints("ids"); !reflect.DeepEqual(got, []int{3, 1}) {
		t.Errorf("Ints = %v", got)
	}
	in = query(t, "ids[]=3&ids[]=x").Read()
	if got := in.Ints("ids"); got != nil || !isParamError(in.Err(), "ids", false) {
		t.Errorf("Ints of a non-integer element = %v, err %v", got, in.Err())
	}
}

// Endpoints convention 5: name[key]=v is a hash.
func TestHashes(t *testing.T) {
	in := query(t, "custom_attributes[team]=blue&custom_attributes%5Bsize%5D=l").Read()
	want := map[string]string{"team": "blue", "size": "l"}
	if got := in.Hash("custom_attributes"); !reflect.DeepEqual(got, want) {
		t.Errorf("Hash = %v", got)
	}
	in = query(t, "custom_attributes=blue").Read()
	if got := in.Hash("custom_attributes"); got != nil || !isParamError(in.Err(), "custom_attributes", false) {
		t.Errorf("a scalar is no hash: %v, %v", got, in.Err())
	}
}

// Endpoints convention 5: name[0][key]=v (and name[][key]=v) is an array of hashes.
func TestArraysOfHashes(t *testing.T) {
	want := []map[string]any{{"key": "a", "value": "1"}, {"key": "b", "value": "2"}}
	for _, raw := range []string{
		"vars[0][key]=a&vars[0][value]=1&vars[1][key]=b&vars[1][value]=2",
		"vars[1][key]=b&vars[0][key]=a&vars[1][value]=2&vars[0][value]=1",
		"vars[][key]=a&vars[][value]=1&vars[][key]=b&vars[][value]=2",
	} {
		in := query(t, raw).Read()
		if got := in.Objects("vars"); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: Objects = %v", raw, got)
		}
	}
	// The same in a JSON body.
	v := request(t, "POST", "/x", "application/json", `{"vars":[{"key":"a","value":"1"},{"key":"b","value":"2"}]}`)
	if got := v.Read().Objects("vars"); !reflect.DeepEqual(got, want) {
		t.Errorf("JSON Objects = %v", got)
	}
	// And in a multipart form, which is a form too.
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for _, kv := range [][2]string{{"vars[0][key]", "a"}, {"vars[0][value]", "1"}, {"vars[1][key]", "b"}, {"vars[1][value]", "2"}} {
		mw.WriteField(kv[0], kv[1])
	}
	mw.Close()
	v = request(t, "POST", "/x", mw.FormDataContentType(), buf.String())
	if got := v.Read().Objects("vars"); !reflect.DeepEqual(got, want) {
		t.Errorf("multipart Objects = %v", got)
	}
}

// Names that are digits stay names at the top level (found by FuzzFromQuery:
// "0=a" used to panic).
func TestDigitNames(t *testing.T) {
	v := query(t, "0=a&1=b")
	if got := v.Names(); !reflect.DeepEqual(got, []string{"0", "1"}) {
		t.Errorf("Names = %v", got)
	}
	if s := v.Read().String("0"); s == nil || *s != "a" {
		t.Errorf("0 = %v", s)
	}
}

func TestShapeConflictsAreDecodeErrors(t *testing.T) {
	for _, raw := range []string{
		"a[]=1&a[k]=2",
		"a[k]=1&a[]=2",
		"a[]=1&a=2",
		"a[k]=1&a=2",
		"a=1&a[k]=2",
		"a[b][c][d][e][f][g][h][i][j]=1",
		"a=%zz",
		"%zz=1",
	} {
		_, err := params.FromQuery(raw)
		var de *params.DecodeError
		if !errors.As(err, &de) {
			t.Errorf("%s: err = %v, want a DecodeError", raw, err)
		}
	}
}

func TestRepeatedScalarKeepsLast(t *testing.T) {
	if s := query(t, "a=1&a=2").Read().String("a"); s == nil || *s != "2" {
		t.Errorf("a = %v", s)
	}
}

// Clients send null for options they leave out; null is not a value.
func TestJSONNullIsAbsent(t *testing.T) {
	v := request(t, "POST", "/x", "application/json", `{"name":null,"visibility":null,"active":null,"ids":null}`)
	if v.Has("name") {
		t.Error("Has(name) for a JSON null")
	}
	in := v.Read().Require("name")
	if in.String("visibility") != nil || in.Bool("active") != nil || in.Ints("ids") != nil {
		t.Error("a JSON null read as a value")
	}
	if !isParamError(in.Err(), "name", true) {
		t.Errorf("Require(name) with null: err = %v, want missing name", in.Err())
	}
	// A whole body of null (the Go client's PUT without options) is no parameters.
	v = request(t, "PUT", "/x?keep=1", "application/json", `null`)
	if names := v.Names(); len(names) != 1 || names[0] != "keep" {
		t.Errorf("names with a null body: %v", names)
	}
	// Body values win over the query.
	v = request(t, "POST", "/x?name=q&keep=1", "application/json", `{"name":"body"}`)
	if s := v.Read().String("name"); s == nil || *s != "body" {
		t.Errorf("name = %v", s)
	}
	if s := v.Read().String("keep"); s == nil || *s != "1" {
		t.Errorf("keep = %v", s)
	}
}

func TestCommaJoinedInts(t *testing.T) {
	for raw, want := range map[string][]int{
		"ids=1,2,3":         {1, 2, 3},
		"ids=7":             {7},
		"ids=":              {},
		"ids=1,%202":        {1, 2},
		"ids[]=4&ids[]=5":   {4, 5},
		"ids[]=4,5&ids[]=6": nil, // elements of an array are single integers
	} {
		in := query(t, raw).Read()
		got := in.Ints("ids")
		if want == nil {
			if in.Err() == nil {
				t.Errorf("%s: Ints = %v, want an error", raw, got)
			}
			continue
		}
		if in.Err() != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: Ints = %v, %v; want %v", raw, got, in.Err(), want)
		}
	}
	in := query(t, "ids=1,x").Read()
	if in.Ints("ids") != nil || !isParamError(in.Err(), "ids", false) {
		t.Errorf("ids=1,x: err = %v", in.Err())
	}
	v := request(t, "POST", "/x", "application/json", `{"ids":[1,2],"bad":[1.5]}`)
	if got := v.Read().Ints("ids"); !reflect.DeepEqual(got, []int{1, 2}) {
		t.Errorf("JSON ids = %v", got)
	}
	in = v.Read()
	if in.Ints("bad"); in.Err() == nil {
		t.Error("1.5 read as an integer")
	}
}

// Endpoints convention 7 tells clients to send true or false; the reader
// reads booleans as the platform does (dry-types 1.7.1 Params::Bool under
// Grape 2.0.0, specs.BoolWord): its exact, case-sensitive words, JSON
// booleans and JSON 1 or 0; every other value is invalid, and the empty
// string is a parameter not given.
func TestBooleans(t *testing.T) {
	for word, want := range map[string]bool{
		"true": true, "false": false, "1": true, "0": false, "yes": true, "no": false, "TRUE": true,
		"True": true, "t": true, "F": false, "on": true, "OFF": false, "Y": true, "n": false,
	} {
		in := query(t, "b="+word).Read()
		if b := in.Bool("b"); b == nil || *b != want || in.Err() != nil {
			t.Errorf("b=%s: %v, %v; want %v", word, b, in.Err(), want)
		}
	}
	for _, bad := range []string{"maybe", "2", "-1", "truee", "tRuE", "yEs", "oN", "true%20", "%20false", "1.0"} {
		in := query(t, "b="+bad).Read()
		if b := in.Bool("b"); b != nil || !isParamError(in.Err(), "b", false) {
			t.Errorf("b=%s: %v, err %v; want invalid", bad, b, in.Err())
		}
	}
	in := query(t, "b=").Read()
	if b := in.BoolOr("b", true); !b || in.Err() != nil {
		t.Errorf("b= is not given: %v, %v", b, in.Err())
	}
	v := request(t, "POST", "/x", "application/json", `{"t":true,"f":false,"n":1,"z":0,"s":"true","y":"yes","half":1.5,"two":2,"arr":[true]}`)
	in = v.Read()
	for name, want := range map[string]bool{"t": true, "f": false, "n": true, "z": false, "s": true, "y": true} {
		if b := in.Bool(name); b == nil || *b != want {
			t.Errorf("JSON %s: %v, want %v", name, b, want)
		}
	}
	if in.Err() != nil {
		t.Fatal(in.Err())
	}
	for _, name := range []string{"half", "two", "arr"} {
		in := v.Read()
		if in.Bool(name); !isParamError(in.Err(), name, false) {
			t.Errorf("JSON %s as a boolean: %v", name, in.Err())
		}
	}
}

// Endpoints convention 6: %2B is a plus, a bare + is a space.
func TestPlus(t *testing.T) {
	in := query(t, "created_after=2020-01-01T00:00:00%2B02:00&search=a+b").Read()
	tm := in.Time("created_after")
	if tm == nil || !tm.Equal(time.Date(2019, 12, 31, 22, 0, 0, 0, time.UTC)) {
		t.Errorf("created_after = %v (%v)", tm, in.Err())
	}
	if s := in.String("search"); s == nil || *s != "a b" {
		t.Errorf("search = %v", s)
	}
}

func TestFormBody(t *testing.T) {
	v := request(t, "POST", "/x?name=q", "application/x-www-form-urlencoded", "topics%5B%5D=a&topics%5B%5D=b&name=form")
	in := v.Read()
	if got := in.Strings("topics"); !reflect.DeepEqual(got, []string{"a", "b"}) {
		t.Errorf("topics = %v", got)
	}
	if s := in.String("name"); s == nil || *s != "form" {
		t.Errorf("name = %v", s)
	}
	// A form body declared as such is a form even when it starts like JSON.
	v = request(t, "POST", "/x", "application/x-www-form-urlencoded", "{a=1")
	if !v.Has("{a") {
		t.Errorf("names = %v", v.Names())
	}
}

func TestBodyDecodeErrors(t *testing.T) {
	for _, c := range []struct{ ct, body string }{
		{"application/json", `{"a":`},
		{"application/json", `[1,2]`},
		{"application/json", `{"a":1} {"b":2}`},
		{"application/json", `{"branch":"main","commit_message":"x"}}`},
		{"application/json", `{"a":1}]`},
		{"application/json", `{"a":1}x`},
		{"application/json", `{"a":1}null`},
		{"application/json", `null {"a":1}`},
		{"application/json", `"s"`},
		{"application/json", `12`},
		{"application/json", `true`},
		{"", `{"a":1}}`},
		{"multipart/form-data", "x"},
		{"multipart/form-data; boundary=zz", "garbage"},
	} {
		r := httptest.NewRequest("POST", "/x", strings.NewReader(c.body))
		r.Header.Set("Content-Type", c.ct)
		_, err := params.FromRequest(r)
		var de *params.DecodeError
		if !errors.As(err, &de) {
			t.Errorf("%s %q: err = %v, want a DecodeError", c.ct, c.body, err)
		}
	}
}

// A body of null (what the platform's Go client sends for an endpoint whose
// options are all empty) is an empty body; whitespace around one value is fine.
func TestNullBodyIsEmpty(t *testing.T) {
	for _, body := range []string{"null", " null\n", "\tnull"} {
		v := request(t, "POST", "/x?keep=1", "application/json", body)
		if got := v.Names(); !reflect.DeepEqual(got, []string{"keep"}) {
			t.Errorf("%q: names = %v, want the query's alone", body, got)
		}
	}
	v := request(t, "POST", "/x", "application/json", " {\"a\":1}\n\n")
	if !v.Has("a") {
		t.Error("an object with surrounding whitespace")
	}
}

func TestTooLarge(t *testing.T) {
	r := httptest.NewRequest("POST", "/x", bytes.NewReader(make([]byte, params.MaxBody+1)))
	r.Header.Set("Content-Type", "application/octet-stream")
	if _, err := params.FromRequest(r); !errors.Is(err, params.ErrTooLarge) {
		t.Errorf("err = %v", err)
	}
}

func TestRequireAndTypes(t *testing.T) {
	v := request(t, http.MethodPost, "/x", "application/json", `{"n":"12","i":12,"s":5,"d":"2024-02-29","e":"x","ts":"2024-01-02T03:04:05Z"}`)
	in := v.Read()
	if n := in.Int("n"); n == nil || *n != 12 {
		t.Error("n")
	}
	if n := in.Int("i"); n == nil || *n != 12 {
		t.Error("i")
	}
	if s := in.String("s"); s == nil || *s != "5" {
		t.Error("s")
	}
	if d := in.Date("d"); d == nil || d.Day() != 29 {
		t.Error("d")
	}
	if ts := in.Time("ts"); ts == nil || ts.Hour() != 3 {
		t.Error("ts")
	}
	if in.Err() != nil {
		t.Fatal(in.Err())
	}
	in.Enum("e", "a", "b")
	if !isParamError(in.Err(), "e", false) {
		t.Errorf("Enum: %v", in.Err())
	}
	in = v.Read().Require("n", "absent", "other")
	if !isParamError(in.Err(), "absent", true) {
		t.Errorf("Require keeps the first missing: %v", in.Err())
	}
	b, _ := json.Marshal(in.Err().Error())
	if !strings.Contains(string(b), "absent not given") {
		t.Errorf("message %s", b)
	}
}

func isParamError(err error, name string, missing bool) bool {
	var pe *params.Error
	return errors.As(err, &pe) && pe.Name == name && pe.Missing == missing
}

// Bind checks declarations in order: required (null is absent), types,
// value sets, shapes; names inside a hash (range[start]); a required_unless
// alternative; arrays as name[], JSON or comma-joined scalars.
func TestBind(t *testing.T) {
	decls := []params.Decl{
		{Name: "branch", Type: "string", Required: true},
		{Name: "range", Type: "hash"},
		{Name: "range[start]", Type: "integer"},
		{Name: "ids", Type: "array", Items: "integer"},
		{Name: "scope", Type: "array", Values: []string{"pending", "running"}},
		{Name: "actions", Type: "array", Items: "hash"},
		{Name: "delete", Type: "string", Required: true, RequiredUnless: "alias"},
		{Name: "alias", Type: "string"},
		{Name: "on", Type: "boolean"},
		{Name: "at", Type: "datetime"},
		{Name: "day", Type: "date"},
		{Name: "avatar", Type: "file"},
	}
	for raw, want := range map[string]string{
		"branch=m&delete=x":    "",
		"branch=m&alias=x":     "",
		"delete=x":             "branch not given",
		"branch=m":             "delete not given",
		"branch[]=m&delete=x":  "branch is invalid",
		"branch[k]=m&delete=x": "branch is invalid",
		"branch=m&delete=x&range[start]=2&range[end]=x":         "",
		"branch=m&delete=x&range[start]=two":                    "range[start] is invalid",
		"branch=m&delete=x&range=1":                             "range is invalid",
		"branch=m&delete=x&ids=1,2&ids2=x":                      "",
		"branch=m&delete=x&ids[]=1&ids[]=b":                     "ids is invalid",
		"branch=m&delete=x&ids[a]=1":                            "ids is invalid",
		"branch=m&delete=x&scope=pending,running":               "",
		"branch=m&delete=x&scope[]=pending&scope[]=done":        "scope does not have a valid value",
		"branch=m&delete=x&actions[0][action]=create":           "",
		"branch=m&delete=x&actions[]=create":                    "actions is invalid",
		"branch=m&delete=x&on=yes":                              "",
		"branch=m&delete=x&on=":                                 "",
		"branch=m&delete=x&on=maybe":                            "on is invalid",
		"branch=m&delete=x&at=2026-01-01T00:00:00%2B02:00&day=": "",
		"branch=m&delete=x&at=tomorrow":                         "at is invalid",
		"branch=m&delete=x&day=2026-02-30":                      "day is invalid",
		"branch=m&delete=x&avatar=":                             "",
		"branch=m&delete=x&avatar=x":                            "avatar is invalid",
	} {
		err := query(t, raw).Bind(decls)
		if got := fmt.Sprint(err); (want == "" && err != nil) || (want != "" && got != want) {
			t.Errorf("%s: %v, want %q", raw, err, want)
		}
	}
	v := request(t, "POST", "/x", "application/json", `{"branch":null,"delete":"x"}`)
	if err := v.Bind(decls); !isParamError(err, "branch", true) {
		t.Errorf("null branch: %v", err)
	}
	v = request(t, "POST", "/x", "application/json", `{"branch":"m","delete":"x","on":1,"ids":[1,"2"]}`)
	if err := v.Bind(decls); err != nil {
		t.Errorf("JSON 1 as a boolean: %v", err)
	}
	v = request(t, "POST", "/x", "application/json", `{"branch":"m","delete":"x","on":2}`)
	if err := v.Bind(decls); !isParamError(err, "on", false) {
		t.Errorf("JSON 2 as a boolean: %v", err)
	}
}
