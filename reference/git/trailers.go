package git

import (
	"regexp"
	"strings"
)

var trailerRe = regexp.MustCompile(`^([A-Za-z0-9][A-Za-z0-9-]*)[ \t]*:[ \t]*(.*)$`)

// Trailers returns the trailers of a commit message in order, as git reads
// them: the last paragraph, when it is not the title paragraph and every line
// is a "Key: value" trailer or a continuation (indented) of one; folded
// values are unfolded.
func Trailers(message string) [][2]string {
	text := strings.TrimRight(strings.ReplaceAll(message, "\r\n", "\n"), "\n \t")
	paras := strings.Split(text, "\n\n")
	if len(paras) < 2 {
		return nil
	}
	last := strings.Trim(paras[len(paras)-1], "\n")
	var out [][2]string
	for _, line := range strings.Split(last, "\n") {
		if line != "" && (line[0] == ' ' || line[0] == '\t') {
			if len(out) == 0 {
				return nil
			}
			out[len(out)-1][1] = strings.TrimSpace(out[len(out)-1][1] + " " + strings.TrimSpace(line))
			continue
		}
		m := trailerRe.FindStringSubmatch(line)
		if m == nil {
			return nil
		}
		out = append(out, [2]string{m[1], strings.TrimSpace(m[2])})
	}
	return out
}
