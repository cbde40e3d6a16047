package proxy

import (
	"encoding/json"
	"net"
	"net/http"
	"strconv"
	"strings"
)

// readinessPath is the proxy's own route: a CI service probe asks it
// whether the proxy is up. Forwarded, it would be recorded as an endpoint
// the rulebook does not know (failing validate --strict) and be a 599 miss
// in replay; so the proxy answers it itself in every mode, and it is
// neither checked, counted nor recorded. It says the proxy serves, not that
// the upstream is ready: probe the upstream itself for that.
const readinessPath = "/-/readiness"

// readiness answers GET and HEAD with the reference's readiness body and
// the mode, marked X-V4cert-Proxy so no one takes it for the upstream's.
func (p *Proxy) readiness(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("X-V4cert-Proxy", "readiness")
	status := http.StatusOK
	body := map[string]any{"status": "ok", "master_check": []map[string]string{{"status": "ok"}}, "v4cert_proxy": string(p.opts.Mode)}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h.Set("Allow", "GET, HEAD")
		status = http.StatusMethodNotAllowed
		body = map[string]any{"message": "405 Method Not Allowed"}
	}
	data, _ := json.Marshal(body)
	h.Set("Content-Length", strconv.Itoa(len(data)))
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		w.Write(data)
	}
}

// isSelf says whether host[:port] names this proxy's listener: a client
// whose HTTP_PROXY is the proxy (curl in a CI job, say) sends its probe of
// the proxy in absolute form, through the proxy, to the proxy.
func (p *Proxy) isSelf(hostport string) bool {
	if p.ln == nil {
		return false
	}
	lhost, lport, err := net.SplitHostPort(p.ln.Addr().String())
	if err != nil {
		return false
	}
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		host, port = hostport, "80"
	}
	if port != lport {
		return false
	}
	lip := net.ParseIP(lhost)
	if lip == nil {
		return false
	}
	anyOrLoop := lip.IsUnspecified() || lip.IsLoopback()
	if strings.EqualFold(host, "localhost") {
		return anyOrLoop
	}
	ip := net.ParseIP(host)
	return ip != nil && (ip.Equal(lip) || anyOrLoop && ip.IsLoopback() || lip.IsUnspecified() && isLocal(ip))
}

// isLocal says whether ip is one of this machine's addresses.
func isLocal(ip net.IP) bool {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return false
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.Equal(ip) {
			return true
		}
	}
	return false
}
