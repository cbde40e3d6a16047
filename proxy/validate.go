package proxy

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"

	"github.com/v4cert/v4cert/specs"
)

// ErrNoExchange is returned for a cassette that records no exchange: there
// is nothing to judge, and a clean verdict on it would mislead (a recording
// that caught no traffic, say).
var ErrNoExchange = errors.New("the cassette records no exchange")

// ValidateCassette checks every interaction of a recorded cassette, of
// either format, with the checks the proxy applies live; each finding goes
// to report as it is made. A file that is not a cassette is ErrNotCassette,
// one without interactions ErrNoExchange.
func ValidateCassette(path string, book *specs.Rulebook, report func(Violation)) (Summary, error) {
	c, err := LoadCassette(path)
	if err != nil {
		return Summary{}, err
	}
	if len(c.Interactions) == 0 {
		return Summary{}, fmt.Errorf("%s: %w", path, ErrNoExchange)
	}
	if book == nil {
		book = specs.Default()
	}
	checker, tally := NewChecker(book), NewTally(book)
	for i, in := range c.Interactions {
		ex := &Exchange{Index: i, Method: in.Request.Method, URL: in.Request.URL, ReqHeader: in.Request.Headers,
			ReqBody: []byte(in.Request.Body), Status: in.Response.Code, Header: in.Response.Headers,
			Body: []byte(in.Response.Body), Duration: in.Response.Duration}
		if u, err := url.Parse(in.Request.URL); err == nil {
			ex.Path, ex.RawQuery = u.EscapedPath(), u.RawQuery
		}
		e, vs := checker.Inspect(ex)
		tally.Add(e, ex.Status, vs)
		for _, v := range vs {
			report(v)
		}
	}
	s := tally.Summary()
	s.Mode = "validate"
	s.Rulebook = book.Digest
	return s, nil
}

// WriteViolation writes one finding as a JSON line, the violations format.
func WriteViolation(w io.Writer, v Violation) error {
	line, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(append(line, '\n'))
	return err
}
