package reports

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"html/template"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/onsi/ginkgo/v2/types"
)

// The body every quoting test sends: single and double quotes, newlines,
// a shell variable, a command substitution, a backslash and a backtick.
const hostileBody = "{\"name\":\"it's \\\"quoted\\\"\",\n\"note\":\"$HOME $(id) `id` \\\\ end\"\n}\n"

type seen struct {
	method, uri, token, auth, contentType, sudo string
	body                                        string
}

// echoServer records the one request the curl line sends.
func echoServer(t *testing.T) (*httptest.Server, chan seen) {
	got := make(chan seen, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- seen{r.Method, r.RequestURI, r.Header.Get("PRIVATE-TOKEN"), r.Header.Get("Authorization"),
			r.Header.Get("Content-Type"), r.Header.Get("Sudo"), string(b)}
		w.WriteHeader(http.StatusTeapot)
	}))
	t.Cleanup(srv.Close)
	return srv, got
}

// runCurl runs a reproduce line in a POSIX shell with the token in the environment.
func runCurl(t *testing.T, line, token string) {
	t.Helper()
	cmd := exec.Command("sh", "-c", line)
	cmd.Env = append(os.Environ(), TokenVar+"="+token)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", line, err, out)
	}
}

// A report's curl line, pasted into a shell, sends the failing request
// again byte for byte: the method, the path and query as sent (brackets and
// escapes kept), the headers that shape the answer, the body with its
// quotes, newlines and $, and the token from $V4CERT_TOKEN wherever the
// report redacted it.
func TestCurlRepeatsTheExchange(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("no curl on this machine")
	}
	srv, got := echoServer(t)
	const secret = "glpat-the-secret-token-1234"
	s := failed("Expected <int>: 201\nto equal 400", "things.get.2")
	s.ReportEntries = types.ReportEntries{{Name: EntryExchange, Value: types.WrapEntryValue(Exchange{
		Method: "POST", URL: srv.URL + "/api/v4/things?private_token=" + secret + "&ids[]=1&q=a%20b%27c", Status: 201,
		RequestHeaders: map[string]string{"Private-Token": secret, "Content-Type": "application/json", "Sudo": "alice",
			"User-Agent": "v4cert", "Accept-Encoding": "gzip"},
		RequestBody: hostileBody, Failed: true,
	})}}
	rep := Build(book(t), types.Report{SpecReports: types.SpecReports{s}}, Run{Target: srv.URL, Secrets: []string{secret}})
	rule := rep.Rule("things.get.2")
	if rule == nil || len(rule.Failures) != 1 || rule.Failures[0].Curl == "" {
		t.Fatalf("no curl line on the failure: %+v", rule)
	}
	line := rule.Failures[0].Curl
	if strings.Contains(line, secret) || !strings.Contains(line, "$"+TokenVar) {
		t.Fatalf("the curl line shows the secret or lacks $%s: %s", TokenVar, line)
	}
	runCurl(t, line, secret)
	want := seen{"POST", "/api/v4/things?private_token=" + secret + "&ids[]=1&q=a%20b%27c", secret, "", "application/json", "alice", hostileBody}
	if g := <-got; g != want {
		t.Errorf("the curl line sent\n%+v\nwant\n%+v\nline: %s", g, want, line)
	}

	// Every report carries it.
	var js, junit, md, html bytes.Buffer
	for _, w := range []struct {
		buf   *bytes.Buffer
		write func(io.Writer, Report) error
	}{{&js, WriteJSON}, {&junit, WriteJUnit}, {&md, WriteMarkdown}, {&html, WriteHTML}} {
		if err := w.write(w.buf, rep); err != nil {
			t.Fatal(err)
		}
	}
	var fromJSON Report
	if err := json.Unmarshal(js.Bytes(), &fromJSON); err != nil || fromJSON.Rule("things.get.2").Failures[0].Curl != line {
		t.Errorf("report.json lacks the curl line (%v)", err)
	}
	if !strings.Contains(md.String(), line) {
		t.Errorf("the Markdown report lacks the curl line")
	}
	if !strings.Contains(html.String(), template.HTMLEscapeString(line)) {
		t.Errorf("the HTML report lacks the curl line")
	}
	// JUnit carries it as XML text: decode the document to compare.
	if !strings.Contains(junitText(t, junit.Bytes()), line) {
		t.Errorf("the JUnit report lacks the curl line")
	}
}

// A bearer token and a GET without a body.
func TestCurlBearerAndGet(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("no curl on this machine")
	}
	srv, got := echoServer(t)
	x := Exchange{Method: "GET", URL: srv.URL + "/api/v4/things/a%2Fb?x=$HOME", RequestHeaders: map[string]string{"Authorization": "Bearer " + Redacted}}
	runCurl(t, x.Curl(), "tok'en")
	if g := <-got; g.method != "GET" || g.uri != "/api/v4/things/a%2Fb?x=$HOME" || g.auth != "Bearer tok'en" || g.body != "" {
		t.Errorf("sent %+v (line %s)", g, x.Curl())
	}
	if (Exchange{}).Curl() != "" {
		t.Error("an exchange without a request has a curl line")
	}
}

func junitText(t *testing.T, doc []byte) string {
	t.Helper()
	var b strings.Builder
	dec := xml.NewDecoder(bytes.NewReader(doc))
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		if cd, ok := tok.(xml.CharData); ok {
			b.Write(cd)
		}
	}
	return b.String()
}
