package app

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq/codemojex/sim"
	"github.com/echomq/echomq/echomqtest"
)

var quiet = slog.New(slog.DiscardHandler)

// Serve on a real server, play simulated players against it, and stop it
// with its context: every goroutine it started ends (the leak check of
// TestMain).
func TestServeAndSim(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ready := make(chan string, 1)
	served := make(chan error, 1)
	var banner bytes.Buffer
	go func() {
		served <- Serve(ctx, &ServeConfig{
			Addr: "127.0.0.1:0", URL: echomqtest.Shared(t).URL(), Queue: echomqtest.Queue(t),
			OperatorToken: "op", DevSignIn: true, Demo: true, Workers: 4, Logger: quiet, Out: &banner,
			Ready: func(u string) { ready <- u },
		})
	}()
	url := serving(t, ready, served)
	require.Contains(t, banner.String(), "codemojex is serving on "+url)
	require.Contains(t, banner.String(), "/api/auth/dev")

	rep, err := sim.Run(ctx, &sim.Config{URL: url, OperatorToken: "op", Players: 6, Guesses: 5})
	require.NoError(t, err)
	require.Equal(t, int64(30), rep.Accepted)
	require.Equal(t, rep.Accepted, rep.Scored+voids(rep))
	require.Zero(t, rep.Errors)
	require.Positive(t, rep.AcceptedPerSec)
	require.LessOrEqual(t, rep.P50, rep.P99)
	require.Contains(t, rep.String(), "scored")

	cancel()
	require.NoError(t, echomqtest.Recv(t, served, 30*time.Second, "the server to stop"))
}

// voids is how many accepted guesses were not scored: only a crack closing
// a game under queued guesses makes any.
func voids(r sim.Report) int64 { return r.Accepted - r.Scored }

// The command line: the default command serves, sim plays in-process on
// the embedded engine, bad command lines exit 2.
func TestCommandLine(t *testing.T) {
	t.Setenv("EMQ_URL", "")
	var out, errw bytes.Buffer
	code := Execute(context.Background(), []string{"sim", "--players", "3", "--guesses", "4", "--quiet"}, &out, &errw)
	require.Equal(t, 0, code, errw.String())
	require.Contains(t, out.String(), "3 players: 12 guesses accepted")
	out.Reset()
	code = Execute(context.Background(), []string{"sim", "--players", "6", "--guesses", "2", "--shards", "3", "--quiet"}, &out, &errw)
	require.Equal(t, 0, code, errw.String())
	require.Contains(t, out.String(), "6 players: 12 guesses accepted, 12 scored")
	require.Contains(t, out.String(), "3 shards, a room in each")

	for _, args := range [][]string{{"bogus"}, {"serve", "--nope"}, {"serve", "--log-level", "loud"}, {"serve", "--demo", "maybe"}, {"serve", "--dev-signin", "yes"}, {"sim", "extra"}, {"sim", "--url", "http://127.0.0.1:1", "--shards", "2"}} {
		out.Reset()
		errw.Reset()
		require.Equal(t, 2, Execute(context.Background(), args, &out, &errw), "%v: %s", args, errw.String())
		require.True(t, strings.HasPrefix(errw.String(), "codemojex: "), errw.String())
	}
	out.Reset()
	require.Equal(t, 0, Execute(context.Background(), []string{"--help"}, &out, &errw))
	require.Contains(t, out.String(), "serve")
	require.Contains(t, out.String(), "sim")
}

// lockedBuffer is a buffer that a running command writes while the test
// reads it.
type lockedBuffer = echomqtest.Buffer

// TestServeEmbeddedSaysSo: with EMQ_URL unset, serve runs on the embedded
// engine and says on stderr that nothing persists (the banner, on stdout,
// names the engine too).
func TestServeEmbeddedSaysSo(t *testing.T) {
	t.Setenv("EMQ_URL", "")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errw lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- Execute(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--log-level", "error"}, &out, &errw)
	}()
	require.Eventually(t, func() bool { return strings.Contains(out.String(), "is serving on") }, 60*time.Second, 20*time.Millisecond, errw.String())
	cancel()
	require.Equal(t, 0, echomqtest.Recv(t, done, 30*time.Second, "the server to exit"), errw.String())
	require.Contains(t, errw.String(), "echomq: using the embedded in-process engine")
	require.Contains(t, errw.String(), "nothing persists when the process exits")
	require.NotContains(t, out.String(), "echomq: using the embedded")
	require.Contains(t, out.String(), "engine: embedded")
	require.NotContains(t, out.String(), "nothing persists", "the notice is on stderr only")
}
