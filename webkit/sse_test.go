package webkit_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq/webkit"
)

// TestStreamFraming: what Open, Event and Comment write, byte for byte.
func TestStreamFraming(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		cfg   webkit.StreamConfig
		write func(*webkit.Stream) error
		want  string
	}{
		{"open", webkit.StreamConfig{}, func(*webkit.Stream) error { return nil }, ": ready\n\n"},
		{"retry hint", webkit.StreamConfig{Retry: 5 * time.Second}, func(*webkit.Stream) error { return nil }, "retry: 5000\n: ready\n\n"},
		{
			"named event",
			webkit.StreamConfig{},
			func(s *webkit.Stream) error { return s.Event("stats", "", []byte(`{"n":1}`)) },
			": ready\n\nevent: stats\ndata: {\"n\":1}\n\n",
		},
		{
			"message with id",
			webkit.StreamConfig{},
			func(s *webkit.Stream) error { return s.Event("", "7-0", []byte("x")) },
			": ready\n\nid: 7-0\ndata: x\n\n",
		},
		{
			"lines",
			webkit.StreamConfig{},
			func(s *webkit.Stream) error { return s.Event("m", "", []byte("a\nb\r\nc\n")) },
			": ready\n\nevent: m\ndata: a\ndata: b\ndata: c\n\n",
		},
		{
			"no data",
			webkit.StreamConfig{},
			func(s *webkit.Stream) error { return s.Event("ping", "", nil) },
			": ready\n\nevent: ping\ndata: \n\n",
		},
		{
			"a newline cannot start a field",
			webkit.StreamConfig{},
			func(s *webkit.Stream) error { return s.Event("a\nevent: b", "1\nretry: 1", []byte("d")) },
			": ready\n\nevent: a event: b\nid: 1 retry: 1\ndata: d\n\n",
		},
		{"comment", webkit.StreamConfig{}, func(s *webkit.Stream) error { return s.Comment("beat\nx") }, ": ready\n\n: beat x\n\n"},
	} {
		rec := httptest.NewRecorder()
		s, err := webkit.Open(rec, httptest.NewRequest(http.MethodGet, "/events", nil), &tc.cfg)
		require.NoError(t, err, tc.name)
		require.NoError(t, tc.write(s), tc.name)
		require.Equal(t, tc.want, rec.Body.String(), tc.name)
		require.Equal(t, http.StatusOK, rec.Code)
		require.Equal(t, "text/event-stream", rec.Header().Get("Content-Type"))
		require.Equal(t, "no-store", rec.Header().Get("Cache-Control"))
		require.Equal(t, "no", rec.Header().Get("X-Accel-Buffering"))
		require.True(t, rec.Flushed, tc.name)
	}
}

// noFlush is a ResponseWriter that cannot stream.
type noFlush struct{ http.ResponseWriter }

func TestOpenWithoutFlusher(t *testing.T) {
	t.Parallel()
	rec := httptest.NewRecorder()
	_, err := webkit.Open(noFlush{rec}, httptest.NewRequest(http.MethodGet, "/", nil), &webkit.StreamConfig{})
	require.ErrorIs(t, err, webkit.ErrNoFlush)
	require.Empty(t, rec.Body.String(), "nothing written")
}

// TestLastEventID: the header a reconnecting EventSource sends, else the
// query parameter; nothing that could break a line.
func TestLastEventID(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, header, query, want string
	}{
		{"none", "", "", ""},
		{"header", "17-0", "", "17-0"},
		{"query", "", "lastEventId=5-1", "5-1"},
		{"header first", "9", "lastEventId=5", "9"},
		{"too long", strings.Repeat("1", 257), "", ""},
		{"newline", "", "lastEventId=1%0Aevent:x", ""},
	} {
		r := httptest.NewRequest(http.MethodGet, "/events?"+tc.query, nil)
		if tc.header != "" {
			r.Header.Set("Last-Event-ID", tc.header)
		}
		require.Equal(t, tc.want, webkit.LastEventID(r), tc.name)
	}
}
