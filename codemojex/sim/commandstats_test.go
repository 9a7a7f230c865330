package sim

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq/echomqtest"
)

func TestSumCalls(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		info string
		want int64
	}{
		{"empty", "", 0},
		{"header only", "# Commandstats\r\n", 0},
		{"two commands", "# Commandstats\r\ncmdstat_get:calls=10,usec=20,usec_per_call=2.00\r\ncmdstat_xinfo|stream:calls=3,usec=9\r\n", 13},
		{"not a count", "cmdstat_get:calls=x,usec=1\r\ncmdstat_set:calls=2,usec=1\r\n", 2},
		{"other sections", "used_memory:100\r\ncmdstat_set:calls=5\r\n", 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tc.want, sumCalls(tc.info))
		})
	}
}

func FuzzSumCalls(f *testing.F) {
	f.Add("cmdstat_get:calls=10,usec=20\r\n")
	f.Add("cmdstat_:calls=,\r\ncmdstat_x:calls=-1")
	f.Fuzz(func(t *testing.T, info string) {
		_ = sumCalls(info) // never panics, whatever the server says
	})
}

// engineCalls reads a real server's counts; they grow with the commands
// sent, its own INFO included.
func TestEngineCalls(t *testing.T) {
	t.Parallel()
	url := echomqtest.Shared(t).URL()
	ctx := context.Background()
	a, err := engineCalls(ctx, url)
	require.NoError(t, err)
	b, err := engineCalls(ctx, url)
	require.NoError(t, err)
	require.GreaterOrEqual(t, b, a+1)

	for _, bad := range []string{"http://127.0.0.1:1", "redis://", "::"} {
		_, err := engineCalls(ctx, bad)
		require.Error(t, err, bad)
	}
}

// Each player reaches a loopback server from an address of its own; any
// other server through the shared client.
func TestPlayerHTTP(t *testing.T) {
	t.Parallel()
	shared := &http.Client{}
	c0, done0 := playerHTTP("http://127.0.0.1:8080", 0, shared)
	defer done0()
	c1, done1 := playerHTTP("http://127.0.0.1:8080", 251, shared)
	defer done1()
	require.NotSame(t, shared, c0)
	require.NotSame(t, c0, c1)
	for _, base := range []string{"http://example.com", "http://[::1]:8080", "://bad"} {
		c, done := playerHTTP(base, 3, shared)
		done()
		require.Same(t, shared, c, base)
	}
}
