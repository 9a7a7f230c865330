package webkit

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// DefaultWriteTimeout bounds one write of a [Stream] when
// StreamConfig.WriteTimeout is zero.
const DefaultWriteTimeout = 30 * time.Second

// StreamConfig configures [Open].
type StreamConfig struct {
	// Retry, when positive, is sent first as the stream's retry hint: how
	// long a browser waits before it reconnects.
	Retry time.Duration
	// KeepAlive is how long [Serve] lets a stream idle before it writes a
	// comment, so proxies keep it open. Zero: no keep-alive.
	KeepAlive time.Duration
	// WriteTimeout bounds each write: a client that stops reading is cut
	// off instead of holding the stream. A stream outlives any server-wide
	// write timeout, so each write gets a deadline of its own. Defaults to
	// [DefaultWriteTimeout].
	WriteTimeout time.Duration
}

// ErrNoFlush is [Open]'s error for a ResponseWriter that cannot flush.
var ErrNoFlush = errors.New("streaming unsupported")

// Stream is an open Server-Sent Events response. It is used by the
// request's goroutine only.
type Stream struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	cfg     StreamConfig
	lastID  string
	written bool // something was written since the last keep-alive look
}

// Open starts an event stream on w: the headers (text/event-stream, no
// caching, no proxy buffering), status 200, the retry hint when configured
// and a ": ready" comment, flushed, so the client knows it is subscribed
// before any event. Nothing is written when it fails ([ErrNoFlush]).
func Open(w http.ResponseWriter, r *http.Request, config *StreamConfig) (*Stream, error) {
	var cfg StreamConfig
	if config != nil {
		cfg = *config
	}
	if _, ok := w.(http.Flusher); !ok {
		return nil, ErrNoFlush
	}
	if cfg.WriteTimeout <= 0 {
		cfg.WriteTimeout = DefaultWriteTimeout
	}
	s := &Stream{w: w, rc: http.NewResponseController(w), cfg: cfg, lastID: LastEventID(r)}
	s.extend()
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	var b strings.Builder
	if cfg.Retry > 0 {
		fmt.Fprintf(&b, "retry: %d\n", cfg.Retry.Milliseconds())
	}
	b.WriteString(": ready\n\n")
	return s, s.write(b.String())
}

// LastEventID returns the id of the last event a resuming client saw: the
// Last-Event-ID header a browser's EventSource sends when it reconnects by
// itself, else the lastEventId query parameter (a page opening a new
// EventSource after an outage passes it so), else "". It is at most 256
// bytes of one line; anything else is "".
func LastEventID(r *http.Request) string {
	id := r.Header.Get("Last-Event-ID")
	if id == "" {
		id = r.URL.Query().Get("lastEventId")
	}
	if len(id) > 256 || strings.ContainsAny(id, "\r\n\x00") {
		return ""
	}
	return id
}

// LastID is [LastEventID] of the request the stream was opened for.
func (s *Stream) LastID() string { return s.lastID }

// Event sends one event named name (empty: a "message") with data, which
// may hold several lines; a non-empty id is the event's id, which the
// browser sends back as Last-Event-ID when it reconnects.
func (s *Stream) Event(name, id string, data []byte) error {
	var b strings.Builder
	if name != "" {
		b.WriteString("event: " + oneLine(name) + "\n")
	}
	if id != "" {
		b.WriteString("id: " + oneLine(id) + "\n")
	}
	for line := range strings.Lines(string(data)) {
		b.WriteString("data: " + strings.TrimRight(line, "\r\n") + "\n")
	}
	if len(data) == 0 {
		b.WriteString("data: \n")
	}
	b.WriteString("\n")
	return s.write(b.String())
}

// Comment sends a comment line, which a client ignores: a keep-alive.
func (s *Stream) Comment(text string) error { return s.write(": " + oneLine(text) + "\n\n") }

// oneLine keeps a field on one line: a newline would start another field.
func oneLine(s string) string {
	return strings.NewReplacer("\r", " ", "\n", " ").Replace(s)
}

func (s *Stream) extend() { _ = s.rc.SetWriteDeadline(time.Now().Add(s.cfg.WriteTimeout)) }

// write writes and flushes frame under a fresh write deadline.
func (s *Stream) write(frame string) error {
	s.extend()
	if _, err := s.w.Write([]byte(frame)); err != nil {
		return err
	}
	s.written = true
	return s.rc.Flush()
}

// Refuse answers a request for a stream that cannot be served now
// (shutting down, a cap reached) with status, a Retry-After and msg.
func Refuse(w http.ResponseWriter, status int, retryAfter time.Duration, msg string) {
	w.Header().Set("Retry-After", strconv.Itoa(int(retryAfter/time.Second)))
	http.Error(w, msg, status)
}
