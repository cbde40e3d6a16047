package main

import (
	"fmt"
	"runtime/debug"
	"strings"
)

// Set at build time by make build and the release configuration
// (-ldflags "-X main.version=… -X main.commit=… -X main.date=…"). A binary
// built by `go install module@version` has none of them; its version and
// commit then come from the build information the go command embeds.
var (
	version = "dev"
	commit  = ""
	date    = ""
)

func init() { version, commit, date = buildVersion(version, commit, date, debug.ReadBuildInfo) }

// buildVersion fills what the linker flags left unset from the build
// information: the module version for `go install …@vX.Y.Z`, and the VCS
// revision and time for a build inside a checkout.
func buildVersion(v, c, d string, read func() (*debug.BuildInfo, bool)) (string, string, string) {
	bi, ok := read()
	if !ok {
		return v, c, d
	}
	if v == "dev" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		v = bi.Main.Version
	}
	modified := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			if c == "" {
				c = s.Value
			}
		case "vcs.time":
			if d == "" {
				d = s.Value
			}
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if modified && c != "" && !strings.HasSuffix(c, "-dirty") {
		c += "-dirty"
	}
	return v, c, d
}

// versionLine is what `v4cert version` prints: the version, then the commit
// and build date where they are known.
func versionLine() string {
	var extra []string
	if commit != "" {
		short, dirty := strings.CutSuffix(commit, "-dirty")
		if len(short) > 12 {
			short = short[:12]
		}
		if dirty {
			short += "-dirty"
		}
		extra = append(extra, "commit "+short)
	}
	if date != "" {
		extra = append(extra, "built "+date)
	}
	if len(extra) == 0 {
		return fmt.Sprintf("v4cert %s", version)
	}
	return fmt.Sprintf("v4cert %s (%s)", version, strings.Join(extra, ", "))
}
