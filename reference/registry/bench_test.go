package registry

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/distribution/distribution/v3/configuration"
	"github.com/distribution/distribution/v3/registry/handlers"
	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

// BenchmarkPushPull pushes a one-layer image with a registry client and
// pulls its manifest back, over loopback: through the reference's registry
// host (token issuer, JWT verification, repository records) and through
// distribution alone without authentication, the baseline. A 16 KiB layer;
// the cost does not depend on how many images the registry holds, except
// for the referrers API, which reads the repository's manifests.
func BenchmarkPushPull(b *testing.B) {
	layer := strings.Repeat("x", 16<<10)
	run := func(b *testing.B, host string, auth remote.Option) {
		img := testImage(b, layer, time.Unix(0, 0).UTC())
		b.ResetTimer()
		for i := range b.N {
			ref, _ := name.ParseReference(fmt.Sprintf("%s/owner/app:t%d", host, i), name.Insecure)
			if err := remote.Write(ref, img, auth); err != nil {
				b.Fatal(err)
			}
			if _, err := remote.Head(ref, auth); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("v4cert", func(b *testing.B) {
		w := newWorld(b, "")
		run(b, w.host, basic("owner", ownerToken))
	})
	b.Run("distribution-alone", func(b *testing.B) {
		cfg := &configuration.Configuration{}
		cfg.Storage = configuration.Storage{"inmemory": configuration.Parameters{}, "delete": configuration.Parameters{"enabled": true}}
		cfg.HTTP.Secret = "bench"
		app := handlers.NewApp(context.Background(), cfg)
		srv := httptest.NewServer(app)
		defer srv.Close()
		run(b, strings.TrimPrefix(srv.URL, "http://"), remote.WithAuth(authn.Anonymous))
	})
}
