package webkit_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq/webkit"
)

// TestStreamLimit: the caps in all and per client address, in the order
// a crowd meets them, and a release giving its slot back once.
func TestStreamLimit(t *testing.T) {
	t.Parallel()
	type step struct {
		addr       string
		ok, global bool
		open       int
	}
	for _, tc := range []struct {
		name       string
		total, per int
		steps      []step
	}{
		{"per client", 10, 2, []step{
			{"10.0.0.1:1000", true, false, 1},
			{"10.0.0.1:1001", true, false, 2}, // the port does not matter
			{"10.0.0.1:1002", false, false, 2},
			{"10.0.0.2:1000", true, false, 3},
		}},
		{"in all", 2, 2, []step{
			{"10.0.0.1:1", true, false, 1},
			{"10.0.0.2:1", true, false, 2},
			{"10.0.0.3:1", false, true, 2},
		}},
		{"no per-client cap", 3, 0, []step{
			{"10.0.0.1:1", true, false, 1},
			{"10.0.0.1:2", true, false, 2},
			{"10.0.0.1:3", true, false, 3},
			{"10.0.0.1:4", false, true, 3},
		}},
		{"no port", 1, 1, []step{
			{"pipe", true, false, 1},
			{"pipe", false, true, 1},
		}},
	} {
		l := webkit.NewStreamLimit(tc.total, tc.per)
		var releases []func()
		for i, s := range tc.steps {
			r := httptest.NewRequest(http.MethodGet, "/events", nil)
			r.RemoteAddr = s.addr
			release, ok, global := l.Acquire(r)
			require.Equal(t, s.ok, ok, "%s: step %d", tc.name, i)
			require.Equal(t, s.global, global, "%s: step %d", tc.name, i)
			require.Equal(t, s.open, l.Open(), "%s: step %d", tc.name, i)
			if ok {
				releases = append(releases, release)
			}
		}
		for _, release := range releases {
			release()
			release() // once only
		}
		require.Zero(t, l.Open(), tc.name)
		// Every slot is free again, per client too.
		r := httptest.NewRequest(http.MethodGet, "/events", nil)
		r.RemoteAddr = tc.steps[0].addr
		_, ok, _ := l.Acquire(r)
		require.True(t, ok, tc.name)
	}
}
