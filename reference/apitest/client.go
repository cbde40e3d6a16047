// Package apitest drives a reference server through its HTTP API for the
// reference's own tests: it builds a world in which every list endpoint of the
// rulebook has entries, fills any endpoint's path with that world's IDs, and
// snapshots everything the world holds, so that a test can tell that a
// refused request changed nothing. It is imported by tests only.
package apitest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
)

// Client sends API requests, over the network to Base or, when Base is
// empty, straight to Handler (no sockets: what a fuzz target wants).
type Client struct {
	Base    string
	Handler http.Handler
	HTTP    *http.Client
	// Token is sent as PRIVATE-TOKEN; empty sends none (anonymous).
	Token string
}

// As returns a client sending token instead.
func (c *Client) As(token string) *Client {
	cp := *c
	cp.Token = token
	return &cp
}

// Raw is a request body sent as it is.
type Raw struct {
	ContentType string
	Body        []byte
}

// Response is an answer, read whole.
type Response struct {
	Method, Target string
	Status         int
	Header         http.Header
	Body           []byte
}

// JSON decodes the body into v.
func (r *Response) JSON(v any) error { return json.Unmarshal(r.Body, v) }

// Field reads a top-level field of an object body as a string ("" when absent).
func (r *Response) Field(name string) string {
	var m map[string]any
	if json.Unmarshal(r.Body, &m) != nil {
		return ""
	}
	switch v := m[name].(type) {
	case nil:
		return ""
	case string:
		return v
	case float64:
		return fmt.Sprintf("%.0f", v)
	default:
		b, _ := json.Marshal(v)
		return string(b)
	}
}

func (r *Response) String() string {
	body := string(r.Body)
	if len(body) > 600 {
		body = body[:600] + "…"
	}
	return fmt.Sprintf("%s %s → %d %s", r.Method, r.Target, r.Status, body)
}

// Do sends a request. target is a path from the server root with its query
// (/api/v4/users?page=2); body is nil, a Raw, or a value sent as JSON.
// headers are name, value pairs.
func (c *Client) Do(method, target string, body any, headers ...string) (*Response, error) {
	var rd io.Reader = http.NoBody
	ct := ""
	switch b := body.(type) {
	case nil:
	case Raw:
		rd, ct = bytes.NewReader(b.Body), b.ContentType
	default:
		data, err := json.Marshal(b)
		if err != nil {
			return nil, err
		}
		rd, ct = bytes.NewReader(data), "application/json"
	}
	var req *http.Request
	var err error
	if c.Base != "" {
		req, err = http.NewRequest(method, c.Base+target, rd)
		if err != nil {
			return nil, err
		}
	} else {
		req = httptest.NewRequest(http.MethodGet, "/", rd)
		req.Method = method
		u, err := req.URL.Parse(target)
		if err != nil {
			return nil, err
		}
		req.URL, req.RequestURI = u, target
		req.Host = "v4cert.test"
	}
	if ct != "" {
		req.Header.Set("Content-Type", ct)
	}
	if c.Token != "" {
		req.Header.Set("PRIVATE-TOKEN", c.Token)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	out := &Response{Method: method, Target: target}
	if c.Base == "" {
		w := httptest.NewRecorder()
		c.Handler.ServeHTTP(w, req)
		out.Status, out.Header, out.Body = w.Code, w.Result().Header, w.Body.Bytes()
		return out, nil
	}
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	res, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	out.Status, out.Header = res.StatusCode, res.Header
	out.Body, err = io.ReadAll(res.Body)
	return out, err
}

// Must sends a request that has to answer status, and fails with the exchange otherwise.
func (c *Client) Must(status int, method, target string, body any, headers ...string) (*Response, error) {
	r, err := c.Do(method, target, body, headers...)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, target, err)
	}
	if r.Status != status {
		return r, fmt.Errorf("want %d: %s", status, r)
	}
	return r, nil
}

// API prefixes a path under /api/v4.
func API(path string) string {
	if strings.HasPrefix(path, "/api/v4") {
		return path
	}
	return "/api/v4" + path
}
