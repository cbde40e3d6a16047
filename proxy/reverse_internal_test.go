package proxy

import (
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/elazarl/goproxy"
)

// TestRemoveProxyHeadersAsGoproxy: reverse mode drops the hop's headers by
// hand (goproxy's RemoveProxyHeaders builds log arguments it discards on
// every request); what it drops must stay what goproxy drops for a proxy
// that keeps Accept-Encoding, through goproxy's upgrades too.
func TestRemoveProxyHeadersAsGoproxy(t *testing.T) {
	req := func() *http.Request {
		r := httptest.NewRequest("GET", "/api/v4/users?page=2", nil)
		for k, v := range map[string]string{"Proxy-Connection": "keep-alive", "Proxy-Authenticate": "Basic", "Proxy-Authorization": "Basic eA==",
			"Connection": "keep-alive", "Accept-Encoding": "gzip", "Private-Token": "t", "Accept": "application/json"} {
			r.Header.Set(k, v)
		}
		return r
	}
	ours, theirs := req(), req()
	removeProxyHeaders(ours)
	gp := goproxy.NewProxyHttpServer()
	gp.KeepAcceptEncoding = true
	goproxy.RemoveProxyHeaders(&goproxy.ProxyCtx{Proxy: gp}, theirs)
	if !reflect.DeepEqual(ours.Header, theirs.Header) || ours.RequestURI != theirs.RequestURI {
		t.Errorf("reverse mode keeps %v (RequestURI %q), goproxy %v (%q)", ours.Header, ours.RequestURI, theirs.Header, theirs.RequestURI)
	}
}
