package suites

import "github.com/onsi/ginkgo/v2/formatter"

// NoColor turns Ginkgo's own colour codes off for this process. Its
// reporters take NoColor, but its errors (a label filter that does not
// parse, a misconfigured suite, deprecation notices) are formatted by one
// process-wide formatter that colours whatever the output is, so without
// this a CI log or a report gets ANSI escape codes.
func NoColor() {
	formatter.SingletonFormatter.ColorMode = formatter.ColorModeNone
}
