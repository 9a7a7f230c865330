package echomq_test

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	echomq "github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/rawcmd"
)

// faultOutage is how long the outage tests keep the engine away: 10s by
// default, EMQ_FAULT_OUTAGE (a Go duration) for the full version, e.g.
//
//	EMQ_FAULT_OUTAGE=60s go test -race -count=1 -run 'Outage' -v -timeout 10m .
func faultOutage(t *testing.T) time.Duration {
	t.Helper()
	if v := os.Getenv("EMQ_FAULT_OUTAGE"); v != "" {
		d, err := time.ParseDuration(v)
		require.NoError(t, err, "EMQ_FAULT_OUTAGE")
		return d
	}
	return 10 * time.Second
}

// faultClient connects to url with a fixed node id (no lease traffic) and a
// quiet logger.
func faultClient(t *testing.T, url string, cfg echomq.Config) *echomq.Client {
	t.Helper()
	cfg.URL = url
	if cfg.NodeID == nil {
		cfg.NodeID = new(7)
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	c, err := echomq.Connect(context.Background(), &cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// callTimeout is the default of Config.CallTimeout.
const callTimeout = 5 * time.Second

// boundOf is the most a call may take before it returns: the documented
// default plus room for a loaded machine. It guards against "forever", not
// against slowness.
func boundOf(d time.Duration) time.Duration { return 2*d + 5*time.Second }

func appendN(t *testing.T, s *echomq.Stream, from, n int) {
	t.Helper()
	for i := from; i < from+n; i++ {
		_, err := s.Append(context.Background(), echomq.Fields{"n", itoa(i)}, nil)
		require.NoError(t, err)
	}
}

func TestOutagePausedEngineReadReturnsUnavailable(t *testing.T) {
	t.Parallel()
	srv := echomqtest.StartPersistent(t)
	c := faultClient(t, srv.URL(), echomq.Config{})
	s := c.Stream(echomqtest.Queue(t), "ev")
	appendN(t, s, 0, 3)

	require.NoError(t, srv.Pause())
	outage := faultOutage(t)
	deadline := time.Now().Add(outage)
	reads := 0
	for reads == 0 || time.Now().Before(deadline) {
		start := time.Now()
		_, err := s.Read(context.Background(), echomq.All, nil)
		took := time.Since(start)
		require.ErrorIs(t, err, echomq.ErrUnavailable, "a read of a hung engine")
		var te *echomq.TimeoutError
		require.ErrorAs(t, err, &te)
		require.Less(t, took, boundOf(callTimeout))
		t.Logf("read %d during the pause returned after %v: %v", reads, took.Round(time.Millisecond), err)
		reads++

		start = time.Now()
		_, err = s.Append(context.Background(), echomq.Fields{"n", "lost?"}, nil)
		require.ErrorIs(t, err, echomq.ErrUnavailable, "an append to a hung engine")
		t.Logf("append during the pause returned after %v", time.Since(start).Round(time.Millisecond))
	}
	require.NoError(t, srv.Resume())

	// The same client, not rebuilt: reads work again. Appends sent during
	// the pause may have run once the engine resumed (their outcome was
	// unknown), so only the acknowledged ones are counted.
	evs, err := s.Read(context.Background(), echomq.All, nil)
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(evs), 3)
	for i, ev := range evs[:3] {
		require.Equal(t, echomq.Fields{"n", itoa(i)}, ev.Fields)
	}
	appendN(t, s, 3, 1)
}

func TestOutageKilledEngineReadReturnsUnavailable(t *testing.T) {
	t.Parallel()
	srv := echomqtest.StartPersistent(t)
	c := faultClient(t, srv.URL(), echomq.Config{})
	s := c.Stream(echomqtest.Queue(t), "ev")
	appendN(t, s, 0, 5)

	require.NoError(t, srv.Kill())
	outage := faultOutage(t)
	deadline := time.Now().Add(outage)
	var worst time.Duration
	for reads := 0; reads == 0 || time.Now().Before(deadline); reads++ {
		start := time.Now()
		_, err := s.Read(context.Background(), echomq.All, nil)
		took := time.Since(start)
		require.ErrorIs(t, err, echomq.ErrUnavailable, "a read while the engine is down")
		require.Less(t, took, boundOf(callTimeout))
		worst = max(worst, took)
		_, err = s.Append(context.Background(), echomq.Fields{"n", "x"}, nil)
		require.ErrorIs(t, err, echomq.ErrUnavailable, "an append while the engine is down")
	}
	t.Logf("engine down %v: slowest read returned after %v", outage, worst.Round(time.Millisecond))
	srv.Restart(t)

	evs, err := s.Read(context.Background(), echomq.All, nil)
	require.NoError(t, err, "the same client works after the restart")
	require.Len(t, evs, 5, "every acknowledged append survived the kill")
	appendN(t, s, 5, 1)
}

func TestOutageCallTimeoutConfigured(t *testing.T) {
	t.Parallel()
	srv := echomqtest.Start(t)
	const d = 1500 * time.Millisecond
	c := faultClient(t, srv.URL(), echomq.Config{CallTimeout: d})
	s := c.Stream(echomqtest.Queue(t), "ev")
	appendN(t, s, 0, 1)
	require.NoError(t, srv.Pause())
	start := time.Now()
	_, err := s.Read(context.Background(), echomq.All, nil)
	took := time.Since(start)
	require.NoError(t, srv.Resume())
	var te *echomq.TimeoutError
	require.ErrorAs(t, err, &te)
	require.Equal(t, d, te.After)
	require.GreaterOrEqual(t, took, d, "the bound is the configured one")
	require.Less(t, took, boundOf(d))
}

func TestOutageCallerDeadlineIsNotUnavailable(t *testing.T) {
	t.Parallel()
	srv := echomqtest.Start(t)
	c := faultClient(t, srv.URL(), echomq.Config{CallTimeout: time.Minute})
	s := c.Stream(echomqtest.Queue(t), "ev")
	require.NoError(t, srv.Pause())
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_, err := s.Read(ctx, echomq.All, nil)
	require.NoError(t, srv.Resume())
	require.ErrorIs(t, err, context.DeadlineExceeded, "the caller's own deadline comes back as itself")
	require.NotErrorIs(t, err, echomq.ErrUnavailable)
}

func TestUnavailableClassifies(t *testing.T) {
	t.Parallel()
	c := faultClient(t, echomqtest.Shared(t).URL(), echomq.Config{})
	q := echomqtest.Queue(t)
	_, err := rawcmd.Do(context.Background(), c, "SET", "emq:{"+q+"}:stream:plain", "v")
	require.NoError(t, err)
	_, wrongType := c.Stream(q, "plain").Read(context.Background(), echomq.All, nil)
	closed := faultClient(t, echomqtest.Shared(t).URL(), echomq.Config{})
	require.NoError(t, closed.Close())
	_, afterClose := closed.Stream(q, "x").Read(context.Background(), echomq.All, nil)
	_, badRange := c.Stream(q, "x").Read(context.Background(), echomq.Range{From: echomq.Inclusive(echomq.EntryID{Ms: 9}), To: echomq.Inclusive(echomq.EntryID{Ms: 1})}, nil)
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"transport", &echomq.TransportError{Err: errors.New("connection refused")}, true},
		{"timeout", &echomq.TimeoutError{After: time.Second}, true},
		{"loading", &echomq.ServerError{Prefix: "LOADING", Message: "LOADING Redis is loading the dataset in memory"}, true},
		{"masterdown", &echomq.ServerError{Prefix: "MASTERDOWN", Message: "MASTERDOWN Link with MASTER is down"}, true},
		{"busy", &echomq.ServerError{Prefix: "BUSY", Message: "BUSY Redis is busy running a script"}, true},
		{"unblocked", &echomq.ServerError{Prefix: "UNBLOCKED", Message: "UNBLOCKED force unblock from blocking operation, instance state changed (master -> replica?)"}, true},
		{"wrong type", wrongType, false},
		{"closed", afterClose, false},
		{"bad range", badRange, false},
		{"generic reply", &echomq.ServerError{Prefix: "ERR", Message: "ERR syntax error"}, false},
		{"caller canceled", context.Canceled, false},
	} {
		require.Error(t, tc.err, tc.name)
		require.Equal(t, tc.want, errors.Is(tc.err, echomq.ErrUnavailable), "%s: %v", tc.name, tc.err)
	}
}
