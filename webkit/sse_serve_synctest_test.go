package webkit_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq/webkit"
)

// The tests of this file run Serve in a testing/synctest bubble, on a
// response writer in memory (no network: a goroutine blocked on a socket is
// not durably blocked), so its keep-alive and tick timers run on the
// bubble's fake clock and each frame's time is exact.

// clockedWriter is a flushable response writer that stamps each frame
// written with the bubble's time since start.
type clockedWriter struct {
	start time.Time
	h     http.Header

	mu     sync.Mutex
	frames []string // "<since start> <frame>"
}

func newClockedWriter() *clockedWriter {
	return &clockedWriter{start: time.Now(), h: http.Header{}}
}

func (w *clockedWriter) Header() http.Header { return w.h }
func (w *clockedWriter) WriteHeader(int)     {}
func (w *clockedWriter) Flush()              {}

func (w *clockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.frames = append(w.frames, time.Since(w.start).String()+" "+strings.TrimSuffix(string(p), "\n\n"))
	return len(p), nil
}

func (w *clockedWriter) written() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.frames...)
}

// TestServeKeepAliveSchedule: an idle stream gets a keep-alive comment
// every KeepAlive (15s here); a period in which something was written gets
// none; after the client goes away nothing more is written.
func TestServeKeepAliveSchedule(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		w := newClockedWriter()
		s, err := webkit.Open(w, httptest.NewRequest(http.MethodGet, "/events", nil), &webkit.StreamConfig{KeepAlive: 15 * time.Second})
		require.NoError(t, err)
		ctx, cancel := context.WithCancel(t.Context())
		in := make(chan int)
		done := make(chan error, 1)
		go func() {
			done <- webkit.Serve(ctx, s, webkit.Loop[int]{In: in, On: func(_ context.Context, s *webkit.Stream, i int) error {
				return s.Event("n", strconv.Itoa(i), nil)
			}})
		}()

		time.Sleep(50 * time.Second) // sleep: the bubble's clock: three keep-alive periods idle
		in <- 1                      // at 50s: the period from 45s to 60s is not idle
		time.Sleep(20 * time.Second) // sleep: the bubble's clock: to 70s
		cancel()
		synctest.Wait()
		require.NoError(t, <-done) // Serve returned: synctest.Wait saw its goroutine end
		time.Sleep(time.Minute)    // sleep: the bubble's clock: a closed stream stays quiet
		require.Equal(t, []string{
			"0s : ready",
			"15s : keep-alive",
			"30s : keep-alive",
			"45s : keep-alive",
			"50s event: n\nid: 1\ndata: ",
			// none at 60s: an event went out in the period
		}, w.written())
	})
}

// TestServeTickSchedule: Tick runs every Every (10s) from the start, and
// its events make the keep-alive (25s) unneeded; Stop ends the stream with
// the shutdown event and no tick after it.
func TestServeTickSchedule(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		w := newClockedWriter()
		s, err := webkit.Open(w, httptest.NewRequest(http.MethodGet, "/events", nil), &webkit.StreamConfig{KeepAlive: 25 * time.Second})
		require.NoError(t, err)
		stop := make(chan struct{})
		done := make(chan error, 1)
		ticks := 0
		go func() {
			done <- webkit.Serve(t.Context(), s, webkit.Loop[struct{}]{Stop: stop, Every: 10 * time.Second, Tick: func(_ context.Context, s *webkit.Stream) error {
				ticks++
				return s.Event("tick", "", []byte(strconv.Itoa(ticks)))
			}})
		}()
		time.Sleep(35 * time.Second) // sleep: the bubble's clock: three ticks' time
		close(stop)
		synctest.Wait()
		require.NoError(t, <-done) // Serve returned: synctest.Wait saw its goroutine end
		time.Sleep(time.Minute)    // sleep: the bubble's clock: no tick after the stop
		require.Equal(t, []string{
			"0s : ready",
			"10s event: tick\ndata: 1",
			"20s event: tick\ndata: 2",
			// none at 25s: the tick at 20s was written in the period
			"30s event: tick\ndata: 3",
			"35s event: shutdown\ndata: {}",
		}, w.written())
	})
}
