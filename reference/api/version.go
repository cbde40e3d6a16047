package api

// PlatformVersion is the platform release whose API v4 the reference serves,
// answered by GET /version: the spec names deprecations up to 17.0, and
// clients compare this number to decide what they may call.
const PlatformVersion = "17.0.0"

// Version is the answer of GET /version (schemas/version.json).
type Version struct {
	Version  string `json:"version"`
	Revision string `json:"revision"`
}

// getVersion implements GET /version (rule version.get.*): the platform's
// {version, revision} shape for signed-in callers; the revision is the
// v4cert build that serves it.
func (s *Server) getVersion(c *Ctx) error {
	rev := s.opts.Version
	if rev == "" {
		rev = "dev"
	}
	return c.JSON(200, Version{Version: PlatformVersion, Revision: rev})
}
