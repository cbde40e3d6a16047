package proxy

import (
	"context"
	"net"
	"net/http"
	"strings"
)

// A paginating client follows the Link header's rel="next", and a client
// that creates or moves something may follow Location: both are absolute
// URLs the implementation builds, naming itself. Passed on unchanged in
// reverse mode, they would send the client straight to the upstream, past
// the proxy, and a recording would miss every page after the first. So the
// answer the client gets names the proxy where the upstream's answer named
// the upstream, while the checks and the cassette see the upstream's answer
// as it was (recorded URLs name the upstream). Replay does the converse:
// links naming the recorded host answer with the replay listener's own
// address, wherever it runs.
//
// Only Link and Location, and only URLs that start with the upstream's
// origin, change: a link to another host (object storage, a registry) is the
// implementation's business, and bodies are never touched. The platform
// names its configured host and port in pagination links, whatever Host it
// was sent (base_request_uri in gitlabhq/gitlabhq
// lib/gitlab/pagination/offset_header_builder.rb @8b573c94), so --upstream
// should be that URL; the reference names the Host it was sent.

// clientBaseKey carries scheme://host of the proxy as a reverse-mode client
// reached it, from reverse to the round trip.
type clientBaseKey struct{}

func withClientBase(r *http.Request, base string) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), clientBaseKey{}, base))
}

func clientBase(r *http.Request) string {
	s, _ := r.Context().Value(clientBaseKey{}).(string)
	return s
}

// originForms are the spellings of one origin a link may use: scheme and
// host as given, and with or without the scheme's default port.
func originForms(scheme, host string) []string {
	scheme, host = strings.ToLower(scheme), strings.ToLower(host)
	if scheme == "" || host == "" {
		return nil
	}
	def := map[string]string{"http": "80", "https": "443"}[scheme]
	bare := host
	if h, port, err := net.SplitHostPort(host); err == nil {
		if port != def {
			return []string{scheme + "://" + host}
		}
		bare = h
		if strings.Contains(h, ":") {
			bare = "[" + h + "]"
		}
	}
	if def == "" {
		return []string{scheme + "://" + bare}
	}
	return []string{scheme + "://" + bare, scheme + "://" + bare + ":" + def}
}

// rebaseURL replaces the origin of raw with to when it is one of from.
func rebaseURL(raw string, from []string, to string) string {
	if n := originLen(raw, from); n >= 0 {
		return to + raw[n:]
	}
	return raw
}

// originLen is the length of the origin of raw when it is one of from, or -1.
func originLen(raw string, from []string) int {
	for _, f := range from {
		if len(raw) >= len(f) && strings.EqualFold(raw[:len(f)], f) && (len(raw) == len(f) || strings.ContainsRune("/?#", rune(raw[len(f)]))) {
			return len(f)
		}
	}
	return -1
}

// rebaseLinks rebases every <URI> of a Link header value. A value naming
// none of from comes back as it was; one that does is built once, in place.
func rebaseLinks(v string, from []string, to string) string {
	var b strings.Builder
	done := 0 // v[:done] is in b, once a URI changed
	for rest := 0; ; {
		open := strings.IndexByte(v[rest:], '<')
		if open < 0 {
			break
		}
		open += rest
		end := strings.IndexByte(v[open:], '>')
		if end < 0 {
			break
		}
		end += open
		rest = end
		u := v[open+1 : end]
		n := originLen(u, from)
		if n < 0 {
			continue
		}
		if done == 0 {
			b.Grow(len(v) + strings.Count(v, "<")*max(0, len(to)-n))
		}
		b.WriteString(v[done : open+1])
		b.WriteString(to)
		b.WriteString(u[n:])
		done = end
	}
	if done == 0 {
		return v
	}
	b.WriteString(v[done:])
	return b.String()
}

// rebaseHeader returns h with the Link and Location URLs naming one of from
// rebased onto to. h itself comes back when nothing changes, so the common
// answer costs no copy; otherwise a copy does, and h stays as it was.
func rebaseHeader(h http.Header, from []string, to string) http.Header {
	if len(from) == 0 || to == "" {
		return h
	}
	for _, name := range rebasedHeaders {
		for _, v := range h[name] {
			if rebaseValue(name, v, from, to) != v {
				out := h.Clone()
				rebaseInto(out, from, to)
				return out
			}
		}
	}
	return h
}

var rebasedHeaders = [...]string{"Link", "Location"}

func rebaseValue(name, v string, from []string, to string) string {
	if name == "Location" {
		return rebaseURL(v, from, to)
	}
	return rebaseLinks(v, from, to)
}

// rebaseInto rebases the Link and Location URLs of h in place. h's map is
// the caller's, but its value slices may be another header's (the answer
// the client gets shares them with the upstream's, which the checks and the
// cassette keep): a slice that changes is replaced, never written to.
func rebaseInto(h http.Header, from []string, to string) {
	if len(from) == 0 || to == "" {
		return
	}
	for _, name := range rebasedHeaders {
		vs := h[name]
		var out []string
		for i, v := range vs {
			nv := rebaseValue(name, v, from, to)
			if nv == v {
				continue
			}
			if out == nil {
				out = append([]string(nil), vs...)
				h[name] = out
			}
			out[i] = nv
		}
	}
}
