package params_test

import (
	"errors"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/v4cert/v4cert/reference/params"
)

// readAll reads every top-level name with every typed reader. Nothing may
// panic, and the only error a reader may report is a *params.Error.
func readAll(t *testing.T, v *params.Values) {
	t.Helper()
	for _, name := range v.Names() {
		readers := []func(*params.Reader){
			func(in *params.Reader) { in.String(name) },
			func(in *params.Reader) { in.StringOr(name, "") },
			func(in *params.Reader) { in.Enum(name, "a", "b") },
			func(in *params.Reader) { in.Bool(name) },
			func(in *params.Reader) { in.Int(name) },
			func(in *params.Reader) { in.Ints(name) },
			func(in *params.Reader) { in.Strings(name) },
			func(in *params.Reader) { in.Hash(name) },
			func(in *params.Reader) { in.Objects(name) },
			func(in *params.Reader) { in.Time(name) },
			func(in *params.Reader) { in.Date(name) },
			func(in *params.Reader) { in.File(name) },
			func(in *params.Reader) { in.Require(name) },
		}
		for _, read := range readers {
			in := v.Read()
			read(in)
			if err := in.Err(); err != nil {
				var pe *params.Error
				if !errors.As(err, &pe) {
					t.Fatalf("reading %q: error %T %v, want *params.Error", name, err, err)
				}
				if pe.Name != name {
					t.Fatalf("reading %q: error names %q", name, pe.Name)
				}
			}
		}
	}
}

func checkDecodeErr(t *testing.T, err error) {
	t.Helper()
	var de *params.DecodeError
	if err != nil && !errors.As(err, &de) && !errors.Is(err, params.ErrTooLarge) {
		t.Fatalf("decode error %T %v, want *params.DecodeError", err, err)
	}
}

// FuzzFromQuery decodes arbitrary query strings (Endpoints conventions 4 to 7).
func FuzzFromQuery(f *testing.F) {
	for _, s := range []string{
		"", "a=1", "a[]=1&a[]=2", "a[k]=v", "a[0][k]=v&a[1][k]=w", "a[][k]=v&a[][k]=w",
		"0=a&1=b", "a[0]=x&a[1]=y", "a[]=1&a[k]=2", "a=%zz", "a[b][c][d][e][f][g][h][i][j]=1",
		"created_after=2020-01-01T00:00:00%2B00:00", "ids=1,2,3", "b=true&b=false", "a[=1", "a]=1", "[a]=1",
		"a[x]y=1", "a[][]=1&a[][]=2", "a[0][]=1&a[0][]=2", "&&=&", "a=1;b=2",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		v, err := params.FromQuery(raw)
		checkDecodeErr(t, err)
		if err != nil {
			return
		}
		readAll(t, v)
	})
}

// FuzzFromRequest decodes arbitrary bodies (JSON, form, multipart) on top of a query string.
func FuzzFromRequest(f *testing.F) {
	seeds := []struct{ ct, query, body string }{
		{"application/json", "", `{"name":"x","topics":["a","b"],"attrs":{"k":"v"},"n":null,"i":1.5}`},
		{"application/json", "a=1", `{"a":[{"k":1},{"k":2}]}`},
		{"application/json", "", `{"a":`},
		{"application/json", "", `[1]`},
		{"", "", `{"a":true}`},
		{"application/x-www-form-urlencoded", "q=1", "topics%5B%5D=a&topics%5B%5D=b"},
		{"application/x-www-form-urlencoded", "a[0][k]=1", "a[1][k]=2"},
		{"text/plain", "", "a=1&b[]=2"},
		{"multipart/form-data; boundary=XX", "", "--XX\r\nContent-Disposition: form-data; name=\"a[0][k]\"\r\n\r\nv\r\n--XX\r\nContent-Disposition: form-data; name=\"f\"; filename=\"x.txt\"\r\n\r\nhello\r\n--XX--\r\n"},
		{"multipart/form-data", "", "x"},
		{"application/merge-patch+json", "", `{"a":{"b":{"c":[1,{"d":null}]}}}`},
	}
	for _, s := range seeds {
		f.Add(s.ct, s.query, []byte(s.body))
	}
	f.Fuzz(func(t *testing.T, contentType, rawQuery string, body []byte) {
		if strings.ContainsAny(rawQuery, "# \t\r\n") {
			return // not a request target
		}
		r := httptest.NewRequest("POST", "/x", strings.NewReader(string(body)))
		r.URL.RawQuery = rawQuery
		r.Header.Set("Content-Type", contentType)
		v, err := params.FromRequest(r)
		checkDecodeErr(t, err)
		if err != nil {
			return
		}
		readAll(t, v)
	})
}
