package webkit_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq/webkit"
)

// feed serves a numbered feed: events 1..n, resuming after Last-Event-ID,
// then whatever arrives on in; stop shuts it down.
func feed(n int, in <-chan int, stop <-chan struct{}, cfg webkit.StreamConfig, done chan<- error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s, err := webkit.Open(w, r, &cfg)
		if err != nil {
			done <- err
			return
		}
		from, _ := strconv.Atoi(s.LastID())
		for i := from + 1; i <= n; i++ {
			if err := s.Event("n", strconv.Itoa(i), []byte(strconv.Itoa(i))); err != nil {
				done <- err
				return
			}
		}
		done <- webkit.Serve(r.Context(), s, webkit.Loop[int]{
			Stop: stop, In: in,
			On: func(_ context.Context, s *webkit.Stream, i int) error {
				return s.Event("n", strconv.Itoa(i), []byte(strconv.Itoa(i)))
			},
		})
	}
}

// frames reads n frames (up to a blank line) of an event stream.
func frames(t *testing.T, rd *bufio.Reader, n int) []string {
	t.Helper()
	var out []string
	var cur strings.Builder
	for len(out) < n {
		line, err := rd.ReadString('\n')
		require.NoError(t, err, "after %q", out)
		if line == "\n" {
			out = append(out, cur.String())
			cur.Reset()
			continue
		}
		cur.WriteString(line)
	}
	return out
}

func get(t *testing.T, ctx context.Context, url, lastID string) (*http.Response, *bufio.Reader) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	require.NoError(t, err)
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	t.Cleanup(func() { resp.Body.Close() })
	return resp, bufio.NewReader(resp.Body)
}

// TestServeResume: a client that reconnects with Last-Event-ID gets the
// events after it, not again those it saw.
func TestServeResume(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		last string
		want []string
	}{
		{"", []string{": ready\n", "event: n\nid: 1\ndata: 1\n", "event: n\nid: 2\ndata: 2\n", "event: n\nid: 3\ndata: 3\n"}},
		{"2", []string{": ready\n", "event: n\nid: 3\ndata: 3\n"}},
		{"3", []string{": ready\n"}},
	} {
		stop, done := make(chan struct{}), make(chan error, 1)
		srv := httptest.NewServer(feed(3, nil, stop, webkit.StreamConfig{}, done))
		_, rd := get(t, t.Context(), srv.URL, tc.last)
		require.Equal(t, tc.want, frames(t, rd, len(tc.want)), "Last-Event-ID %q", tc.last)
		close(stop)
		require.Equal(t, []string{"event: shutdown\ndata: {}\n"}, frames(t, rd, 1))
		require.NoError(t, loopEnd(t, done, "the loop to end at shutdown"))
		srv.Close()
	}
}

// TestServeEnds: the loop returns, leaving nothing running (TestMain's
// leak check), when the server shuts down, when the client goes away and
// when a write fails.
func TestServeEnds(t *testing.T) {
	t.Parallel()
	t.Run("shutdown", func(t *testing.T) {
		t.Parallel()
		stop, in, done := make(chan struct{}), make(chan int), make(chan error, 1)
		srv := httptest.NewServer(feed(0, in, stop, webkit.StreamConfig{}, done))
		defer srv.Close()
		_, rd := get(t, t.Context(), srv.URL, "")
		frames(t, rd, 1)
		in <- 4
		require.Equal(t, []string{"event: n\nid: 4\ndata: 4\n"}, frames(t, rd, 1))
		close(stop)
		require.Equal(t, []string{"event: shutdown\ndata: {}\n"}, frames(t, rd, 1))
		require.NoError(t, loopEnd(t, done, "the loop to end at shutdown"))
		_, err := rd.ReadString('\n')
		require.ErrorIs(t, err, io.EOF, "the stream ends after shutdown")
	})
	t.Run("client gone", func(t *testing.T) {
		t.Parallel()
		done := make(chan error, 1)
		srv := httptest.NewServer(feed(0, nil, nil, webkit.StreamConfig{}, done))
		defer srv.Close()
		ctx, cancel := context.WithCancel(t.Context())
		_, rd := get(t, ctx, srv.URL, "")
		frames(t, rd, 1)
		cancel()
		select {
		case err := <-done:
			require.NoError(t, err)
		case <-time.After(10 * time.Second):
			t.Fatal("the loop outlived its client")
		}
	})
	t.Run("write fails", func(t *testing.T) {
		t.Parallel()
		boom := errors.New("boom")
		rec := httptest.NewRecorder()
		s, err := webkit.Open(rec, httptest.NewRequest(http.MethodGet, "/", nil), &webkit.StreamConfig{})
		require.NoError(t, err)
		in := make(chan int, 1)
		in <- 1
		err = webkit.Serve(t.Context(), s, webkit.Loop[int]{In: in, On: func(context.Context, *webkit.Stream, int) error { return boom }})
		require.ErrorIs(t, err, boom)
	})
}

// TestServeKeepAlive: an idle stream gets keep-alive comments; Tick runs
// at its interval.
func TestServeKeepAlive(t *testing.T) {
	t.Parallel()
	done := make(chan error, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s, err := webkit.Open(w, r, &webkit.StreamConfig{KeepAlive: 20 * time.Millisecond})
		if err != nil {
			done <- err
			return
		}
		ticks := 0
		done <- webkit.Serve(r.Context(), s, webkit.Loop[struct{}]{Every: 50 * time.Millisecond, Tick: func(_ context.Context, s *webkit.Stream) error {
			ticks++
			return s.Event("tick", "", []byte(strconv.Itoa(ticks)))
		}})
	}))
	defer srv.Close()
	ctx, cancel := context.WithCancel(t.Context())
	_, rd := get(t, ctx, srv.URL, "")
	got := frames(t, rd, 12)
	require.Contains(t, got, ": keep-alive\n")
	require.Contains(t, got, "event: tick\ndata: 1\n")
	require.Contains(t, got, "event: tick\ndata: 2\n")
	cancel()
	require.NoError(t, loopEnd(t, done, "the loop to end when its client goes"))
}

// loopEnd returns what the loop under test ended with, or fails the test
// naming what was awaited when it has not ended within 10s.
func loopEnd(t *testing.T, done <-chan error, what string) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(10 * time.Second):
		t.Fatalf("waited 10s for %s", what)
		return nil
	}
}
