package git

import "strings"

// ValidRefName applies git's check-ref-format rules to a branch or tag name
// (the part after refs/heads/ or refs/tags/), plus the --branch rule that a
// name may not start with '-'. Every user-supplied ref passes here before it
// reaches a command line, so none can be read as an option.
//
// Lengths are bounded too, since a ref is a file: no name between slashes
// over MaxRefComponent bytes (git writes `<name>.lock` beside it), nothing
// over maxRefPath bytes in all. The API holds names to MaxRefName.
func ValidRefName(name string) bool {
	if len(name) > maxRefPath {
		return false
	}
	if name == "" || name == "@" || strings.HasPrefix(name, "-") || strings.HasPrefix(name, "/") ||
		strings.HasSuffix(name, "/") || strings.HasSuffix(name, ".") ||
		strings.Contains(name, "..") || strings.Contains(name, "//") || strings.Contains(name, "@{") {
		return false
	}
	for _, c := range name {
		if c < 0x20 || c == 0x7f || strings.ContainsRune(" ~^:?*[\\", c) {
			return false
		}
	}
	for _, comp := range strings.Split(name, "/") {
		if strings.HasPrefix(comp, ".") || strings.HasSuffix(comp, ".lock") || len(comp) > MaxRefComponent {
			return false
		}
	}
	return true
}

// ValidPath reports whether p is a path git can store in a tree: relative,
// no empty, "." or ".." components, no NUL, and no .git component.
//
// Lengths are bounded as a checkout needs them: at most MaxPath bytes, no
// name between slashes over MaxPathComponent bytes.
func ValidPath(p string) bool {
	if p == "" || len(p) > MaxPath || strings.ContainsRune(p, 0) {
		return false
	}
	for _, comp := range strings.Split(p, "/") {
		switch strings.ToLower(comp) {
		case "", ".", "..", ".git":
			return false
		}
		if len(comp) > MaxPathComponent {
			return false
		}
	}
	return true
}
