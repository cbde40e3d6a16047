package store

import (
	"errors"
	"net"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"
)

// RemoteMirror is a push mirror of a project's repository (Resources, Remote
// (push) mirror). URL keeps the credentials as given; only SafeURL leaves the store.
type RemoteMirror struct {
	ID                     int
	ProjectID              int
	URL                    string
	Enabled                bool
	KeepDivergentRefs      bool
	OnlyProtectedBranches  bool
	MirrorBranchRegex      *string
	AuthMethod             string
	UpdateStatus           string
	LastError              *string
	LastUpdateAt           *time.Time
	LastSuccessfulUpdateAt *time.Time
	LastUpdateStartedAt    *time.Time
}

// The mirror authentication methods (Endpoints, Remote (push) mirrors).
const (
	MirrorAuthPassword = "password"
	MirrorAuthSSHKey   = "ssh_public_key"
)

// MirrorAuthMethods are the values auth_method accepts.
var MirrorAuthMethods = []string{MirrorAuthSSHKey, MirrorAuthPassword}

// ErrMirrorDisabled refuses to force an update of a mirror that is not
// enabled; the API answers it in the platform's words.
var ErrMirrorDisabled = errors.New("mirror not enabled")

// mirrorSchemes are the URL schemes a push mirror may use, in the platform's order.
var mirrorSchemes = []string{"http", "https", "ssh", "git"}

// RemoteMirrorFields holds what POST and PUT .../remote_mirrors accept; nil means not given.
type RemoteMirrorFields struct {
	URL                   *string
	Enabled               *bool
	KeepDivergentRefs     *bool
	OnlyProtectedBranches *bool
	MirrorBranchRegex     *string
	AuthMethod            *string
}

// CreateRemoteMirror validates and stores a new mirror of project projectID.
// A new mirror has update_status none and push mirroring off unless enabled.
func (d *Data) CreateRemoteMirror(projectID int, f RemoteMirrorFields) (*RemoteMirror, error) {
	m := &RemoteMirror{ProjectID: projectID, AuthMethod: MirrorAuthPassword, UpdateStatus: "none"}
	if err := m.apply(f, true); err != nil {
		return nil, err
	}
	m.ID = d.next("remote_mirror")
	if d.remoteMirrors == nil {
		d.remoteMirrors = map[int][]*RemoteMirror{}
	}
	d.remoteMirrors[projectID] = append(d.remoteMirrors[projectID], m)
	d.Touch(m)
	return m, nil
}

// UpdateRemoteMirror validates and applies f to m.
func (d *Data) UpdateRemoteMirror(m *RemoteMirror, f RemoteMirrorFields) error {
	d.Touch(m)
	return m.apply(f, false)
}

// RemoteMirrors lists a project's mirrors by ascending id.
func (d *Data) RemoteMirrors(projectID int) []*RemoteMirror {
	return slices.Clone(d.remoteMirrors[projectID])
}

// RemoteMirror finds one mirror of a project.
func (d *Data) RemoteMirror(projectID, id int) *RemoteMirror {
	for _, m := range d.remoteMirrors[projectID] {
		if m.ID == id {
			return m
		}
	}
	return nil
}

// DeleteRemoteMirror removes m.
func (d *Data) DeleteRemoteMirror(m *RemoteMirror) {
	d.remoteMirrors[m.ProjectID] = slices.DeleteFunc(d.remoteMirrors[m.ProjectID],
		func(o *RemoteMirror) bool { return o == m })
	d.Touch(m)
}

// dropRemoteMirrors forgets a deleted project's mirrors.
func (d *Data) dropRemoteMirrors(projectID int) {
	d.touchKey(tRemoteMirrors, projectID)
	delete(d.remoteMirrors, projectID)
}

// SyncRemoteMirror forces an update of m (States: push mirror, POST .../sync).
// The reference has no network, so it pushes nowhere: it records the update
// a reachable remote would end with, finished, with its timestamps. It does
// not push even to local paths, which the URL rules refuse anyway.
func (d *Data) SyncRemoteMirror(m *RemoteMirror) error {
	if !m.Enabled {
		return ErrMirrorDisabled
	}
	now := d.Now()
	d.Touch(m)
	m.LastUpdateStartedAt = &now
	m.LastUpdateAt = &now
	m.LastSuccessfulUpdateAt = &now
	m.LastError = nil
	m.UpdateStatus = "finished"
	return nil
}

// SafeURL is the mirror's URL with username and password replaced by
// asterisks, the only form any answer carries (Resources, Remote (push) mirror).
func (m *RemoteMirror) SafeURL() string { return maskURL(m.URL) }

// maskURL rewrites the user information in place, byte for byte otherwise:
// net/url would percent-encode the asterisks.
func maskURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	start := strings.Index(raw, "://") + len("://")
	authority := raw[start:]
	if end := strings.IndexAny(authority, "/?#"); end >= 0 {
		authority = authority[:end]
	}
	at := strings.LastIndexByte(authority, '@')
	if start < len("://") || at < 0 {
		return raw
	}
	mask := "*****"
	if _, ok := u.User.Password(); ok {
		mask = "*****:*****"
	}
	return raw[:start] + mask + raw[start+at:]
}

func (m *RemoteMirror) apply(f RemoteMirrorFields, create bool) error {
	v := &ValidationError{Fields: map[string][]string{}}
	if f.URL != nil {
		if msg := checkMirrorURL(*f.URL); msg != "" {
			v.Fields["url"] = []string{msg}
		}
	} else if create {
		v.Fields["url"] = []string{"can't be blank"}
	}
	if f.AuthMethod != nil && !slices.Contains(MirrorAuthMethods, *f.AuthMethod) {
		v.Fields["auth_method"] = []string{"is not included in the list"}
	}
	only := m.OnlyProtectedBranches
	if f.OnlyProtectedBranches != nil {
		only = *f.OnlyProtectedBranches
	}
	regex := m.MirrorBranchRegex
	if f.MirrorBranchRegex != nil {
		regex = f.MirrorBranchRegex
	}
	if regex != nil && *regex != "" {
		// mirror_branch_regex needs only_protected_branches off (Endpoints, Remote (push) mirrors).
		var msgs []string
		if only {
			msgs = append(msgs, "must be blank")
		}
		if len(*regex) > 255 {
			msgs = append(msgs, "is too long (maximum is 255 characters)")
		}
		// Go's regexp is RE2, the syntax the platform checks branch regexes with.
		if _, err := regexp.Compile(*regex); err != nil {
			msgs = append(msgs, "not valid RE2 syntax: "+strings.TrimPrefix(err.Error(), "error parsing regexp: "))
		}
		if len(msgs) > 0 {
			v.Fields["mirror_branch_regex"] = msgs
		}
	}
	if len(v.Fields) > 0 {
		return v
	}
	if f.URL != nil {
		m.URL = strings.TrimSpace(*f.URL)
	}
	if f.Enabled != nil {
		m.Enabled = *f.Enabled
	}
	if f.KeepDivergentRefs != nil {
		m.KeepDivergentRefs = *f.KeepDivergentRefs
	}
	m.OnlyProtectedBranches = only
	if regex != nil && *regex == "" {
		regex = nil
	}
	m.MirrorBranchRegex = regex
	if f.AuthMethod != nil {
		m.AuthMethod = *f.AuthMethod
	}
	return nil
}

// checkMirrorURL applies the platform's public-URL rules to a mirror URL and
// returns the validation message, or "" when the URL is acceptable. Host names
// are not resolved (the reference has no network); literal loopback and
// private addresses and localhost are refused as the platform refuses them.
func checkMirrorURL(raw string) string {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return "can't be blank"
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || u.Opaque != "" {
		return "is blocked: URI is invalid"
	}
	if !slices.Contains(mirrorSchemes, strings.ToLower(u.Scheme)) {
		return "is blocked: Only allowed schemes are " + strings.Join(mirrorSchemes, ", ")
	}
	host := u.Hostname()
	if host == "" {
		return "is blocked: URI is invalid"
	}
	if u.User != nil {
		if name := u.User.Username(); name != "" && !unicode.IsLetter(rune(name[0])) && !unicode.IsDigit(rune(name[0])) {
			return "is blocked: Username needs to start with an alphanumeric character"
		}
	}
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return "is blocked: Requests to localhost are not allowed"
	}
	if ip := net.ParseIP(host); ip != nil {
		switch {
		case ip.IsLoopback(), ip.IsUnspecified():
			return "is blocked: Requests to localhost are not allowed"
		case ip.IsPrivate(), ip.IsLinkLocalUnicast(), ip.IsLinkLocalMulticast():
			return "is blocked: Requests to the local network are not allowed"
		}
	}
	return ""
}
