package outage_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/echomq/echomq/internal/outage"
	"github.com/echomq/echomq/internal/wire"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestWatchLogsEachOutageOnce(t *testing.T) {
	t.Parallel()
	var buf syncBuf
	w := outage.New(slog.New(slog.NewTextHandler(&buf, nil)), "echomq: test", "queue", "q1")
	down := &wire.TransportError{Err: errors.New("connection refused")}

	w.OK() // up already: nothing
	var wg sync.WaitGroup
	firsts := make(chan bool, 64)
	for range 64 {
		wg.Go(func() { firsts <- w.Failed("read", down) })
	}
	wg.Wait()
	close(firsts)
	n := 0
	for f := range firsts {
		if f {
			n++
		}
	}
	require.Equal(t, 1, n, "one of 64 concurrent failures starts the outage")
	require.True(t, w.Down())
	require.False(t, w.Failed("read", &wire.ServerError{Prefix: "WRONGTYPE", Message: "WRONGTYPE x"}), "a permanent error is no outage")
	w.OK()
	w.OK()
	require.False(t, w.Down())
	require.True(t, w.Failed("ack", context.DeadlineExceeded), "a second outage")
	w.OK()

	out := buf.String()
	require.Equal(t, 2, strings.Count(out, outage.DownMsg), out)
	require.Equal(t, 2, strings.Count(out, outage.UpMsg), out)
	require.Contains(t, out, "queue=q1")
	require.Contains(t, out, "level=WARN msg=\"echomq: test: engine unavailable; retrying\" queue=q1 op=read")
	require.EqualValues(t, 2, w.Outages())
}

func TestBackoff(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		b        outage.Backoff
		want     []time.Duration
		afterRst time.Duration
	}{
		{"defaults", outage.Backoff{}, []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond, 800 * time.Millisecond, 1600 * time.Millisecond, 2 * time.Second, 2 * time.Second}, 100 * time.Millisecond},
		{"custom", outage.Backoff{Min: time.Second, Max: 3 * time.Second}, []time.Duration{time.Second, 2 * time.Second, 3 * time.Second, 3 * time.Second}, time.Second},
		{"max below min", outage.Backoff{Min: 5 * time.Second, Max: time.Second}, []time.Duration{5 * time.Second, 5 * time.Second}, 5 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := tc.b
			for i, want := range tc.want {
				require.Equal(t, want, b.Next(), "retry %d", i)
			}
			b.Reset()
			require.Equal(t, tc.afterRst, b.Next())
		})
	}
}

func TestSleep(t *testing.T) {
	t.Parallel()
	require.True(t, outage.Sleep(context.Background(), time.Millisecond))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	require.False(t, outage.Sleep(ctx, time.Hour))
}

func TestSweeps(t *testing.T) {
	t.Parallel()
	var buf syncBuf
	s := &outage.Sweeps{Watch: outage.New(slog.New(slog.NewTextHandler(&buf, nil)), "echomq: test"), Tick: 10 * time.Millisecond}
	down := &wire.TransportError{Err: errors.New("connection refused")}
	perm := &wire.ServerError{Prefix: "WRONGTYPE", Message: "WRONGTYPE x"}
	for _, tc := range []struct {
		name    string
		errs    []error
		next    time.Duration
		perm    []int
		stop    error
		outages int64
		downNow bool
	}{
		{"all well", []error{nil, nil}, 10 * time.Millisecond, nil, nil, 0, false},
		{"permanent only", []error{perm, nil}, 10 * time.Millisecond, []int{0}, nil, 0, false},
		{"outage", []error{down, perm}, 100 * time.Millisecond, []int{1}, nil, 1, true},
		{"outage goes on, backoff grows", []error{down, down}, 200 * time.Millisecond, nil, nil, 1, true},
		{"back", []error{nil, perm}, 10 * time.Millisecond, []int{1}, nil, 1, false},
		{"closed client stops", []error{down, wire.ErrClosed}, 0, nil, wire.ErrClosed, 1, false},
	} {
		next, p, stop := s.Done(tc.errs)
		require.Equal(t, tc.next, next, tc.name)
		require.Equal(t, tc.perm, p, tc.name)
		require.Equal(t, tc.stop, stop, tc.name)
		require.Equal(t, tc.outages, s.Watch.Outages(), tc.name)
		require.Equal(t, tc.downNow, s.Watch.Down(), tc.name)
	}
	require.Equal(t, 1, strings.Count(buf.String(), outage.DownMsg))
	require.Equal(t, 1, strings.Count(buf.String(), outage.UpMsg))
}
