package embedded

import (
	"github.com/alicebob/miniredis/v2"

	"github.com/echomq/echomq/internal/engines"
)

// URL names the embedded engine in echomq.Config.URL: every Connect with it
// starts a fresh in-process engine that the client's Close stops.
const URL = engines.Scheme + ":"

// Or returns url, or [URL] when url is empty: the programs' rule for an
// unset EMQ_URL.
func Or(url string) string {
	if url == "" {
		return URL
	}
	return url
}

func init() {
	engines.Embedded = start
}

func start() (engines.Engine, error) {
	mr, err := miniredis.Run()
	if err != nil {
		return engines.Engine{}, err
	}
	return engines.Engine{Addr: mr.Addr(), Stop: mr.Close}, nil
}
