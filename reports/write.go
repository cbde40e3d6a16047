package reports

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Files are the names WriteAll writes into the output directory.
var Files = []string{"junit.xml", "report.json", "summary.md", "report.html"}

// WriteAll writes every rendering of r into dir, creating it.
func WriteAll(dir string, r Report) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	renderers := map[string]func(io.Writer, Report) error{
		"junit.xml":   WriteJUnit,
		"report.json": WriteJSON,
		"summary.md":  WriteMarkdown,
		"report.html": WriteHTML,
	}
	for _, name := range Files {
		var buf bytes.Buffer
		if err := renderers[name](&buf, r); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), buf.Bytes(), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// WriteJSON writes report.json (shape: docs/report-json.md).
func WriteJSON(w io.Writer, r Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
}
