package dashboard_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/archive"
	"github.com/echomq/echomq/dashboard"
	"github.com/echomq/echomq/retention"
)

// TestNewBadConfig: every bad config is refused by New, typed, before any
// I/O.
func TestNewBadConfig(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	for _, tc := range []struct {
		name string
		cfg  dashboard.Config
		is   error
	}{
		{"short token", dashboard.Config{Token: "short"}, echomq.ErrInvalidArgument},
		{"page size", dashboard.Config{PageSize: dashboard.MaxPageSize + 1}, echomq.ErrInvalidArgument},
		{"prefix without slash", dashboard.Config{Prefix: "ops"}, echomq.ErrInvalidArgument},
		{"prefix with trailing slash", dashboard.Config{Prefix: "/ops/"}, echomq.ErrInvalidArgument},
		{"queue without name", dashboard.Config{Queues: []dashboard.Queue{{}}}, echomq.ErrInvalidArgument},
		{"queue twice", dashboard.Config{Queues: []dashboard.Queue{{Name: "a"}, {Name: "a"}}}, echomq.ErrInvalidArgument},
		{"bad queue name", dashboard.Config{Queues: []dashboard.Queue{{Name: "a:b"}}}, echomq.ErrInvalidName},
		{"reserved queue", dashboard.Config{Queues: []dashboard.Queue{{Name: "emq"}}}, echomq.ErrInvalidName},
		{"bad stream name", dashboard.Config{Queues: []dashboard.Queue{{Name: "a", Streams: []string{"x y"}}}}, echomq.ErrInvalidName},
		{"bad projection name", dashboard.Config{Queues: []dashboard.Queue{{Name: "a", Projections: []string{"{p}"}}}}, echomq.ErrInvalidName},
		{"bad policy", dashboard.Config{ArchivePolicies: []archive.Policy{{Queue: "a", Stream: "s", Keep: retention.MaxLen(-1)}}}, echomq.ErrInvalidArgument},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h, err := dashboard.New(b.client, &tc.cfg)
			require.ErrorIs(t, err, tc.is)
			require.Nil(t, h)
		})
	}
	_, err := dashboard.New(nil, nil)
	require.ErrorIs(t, err, echomq.ErrInvalidArgument)
	h, err := dashboard.New(b.client, nil)
	require.NoError(t, err, "nil is the defaults")
	require.False(t, h.Writable())
}

// TestPrefix: Config.Prefix builds the links when the handler is mounted
// without StripPrefix's help (behind a proxy that removed the prefix).
func TestPrefix(t *testing.T) {
	t.Parallel()
	b := setup(t, func(c *dashboard.Config) { c.Prefix = "/admin/emq"; c.Token = "" })
	rec := httptest.NewRecorder()
	b.h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	require.Equal(t, http.StatusOK, rec.Code)
	require.Contains(t, rec.Body.String(), `href="/admin/emq/q/`+b.queue+`/streams/orders"`)
	require.Contains(t, rec.Body.String(), `href="/admin/emq/static/style.css"`)
	require.Contains(t, rec.Body.String(), `href="/admin/emq/static/base.css"`)
}

// TestEvents: the live stream sends every stream's numbers each Refresh,
// and Close ends it with a shutdown event; a new one is then refused.
func TestEvents(t *testing.T) {
	t.Parallel()
	b := setup(t, func(c *dashboard.Config) { c.Token = "" })
	b.appendN(t, "orders", 2)
	ctx, cancel := context.WithCancel(b.ctx)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, b.srv.URL+"/events", nil)
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	rd := bufio.NewReader(resp.Body)
	event := func() (string, string) {
		t.Helper()
		var name, data string
		for {
			line, err := rd.ReadString('\n')
			require.NoError(t, err)
			line = strings.TrimRight(line, "\n")
			switch {
			case line == "" && name != "":
				return name, data
			case strings.HasPrefix(line, "event: "):
				name = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				data = strings.TrimPrefix(line, "data: ")
			}
		}
	}
	name, data := event()
	require.Equal(t, "stats", name)
	var u struct {
		Streams []struct {
			ID        string  `json:"id"`
			Length    int64   `json:"length"`
			PerMinute string  `json:"per_minute"`
			Buckets   []int64 `json:"buckets"`
		} `json:"streams"`
	}
	require.NoError(t, json.Unmarshal([]byte(data), &u))
	require.Len(t, u.Streams, 2)
	require.Equal(t, b.queue+"/orders", u.Streams[0].ID)
	require.Equal(t, int64(2), u.Streams[0].Length)
	require.Equal(t, "2", u.Streams[0].PerMinute)
	require.Len(t, u.Streams[0].Buckets, 15)

	b.appendN(t, "orders", 1)
	for {
		name, data = event()
		require.Equal(t, "stats", name)
		require.NoError(t, json.Unmarshal([]byte(data), &u))
		if u.Streams[0].Length == 3 {
			break
		}
	}
	require.NoError(t, b.h.Close())
	for name != "shutdown" {
		name, _ = event()
	}
	_, err = rd.ReadString('\n')
	require.ErrorIs(t, err, io.EOF, "the stream ends")
	again, err := http.Get(b.srv.URL + "/events")
	require.NoError(t, err)
	again.Body.Close()
	require.Equal(t, http.StatusServiceUnavailable, again.StatusCode)
}

// TestEventsCap: one live stream more than MaxLive is refused with 503 and
// Retry-After; closing one makes room.
func TestEventsCap(t *testing.T) {
	t.Parallel()
	b := setup(t, func(c *dashboard.Config) { c.Token = ""; c.MaxLive = 1 })
	ctx, cancel := context.WithCancel(b.ctx)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, b.srv.URL+"/events", nil)
	require.NoError(t, err)
	first, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	_, err = bufio.NewReader(first.Body).ReadString('\n') // it is open
	require.NoError(t, err)
	second, err := http.Get(b.srv.URL + "/events")
	require.NoError(t, err)
	second.Body.Close()
	require.Equal(t, http.StatusServiceUnavailable, second.StatusCode)
	require.Equal(t, "10", second.Header.Get("Retry-After"))
	cancel()
	first.Body.Close()
	require.Eventually(t, func() bool {
		third, err := http.Get(b.srv.URL + "/events?queue=none")
		if err != nil {
			return false
		}
		defer third.Body.Close()
		return third.StatusCode == http.StatusOK
	}, 10*time.Second, 20*time.Millisecond, "room again once the first is gone")
}
