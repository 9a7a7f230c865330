package webkit

import (
	"net"
	"net/http"
	"sync"
)

// StreamLimit counts the open event streams of a handler, in all and per
// client address, so no client and no crowd holds more goroutines and
// sockets than the caps allow. It is safe for concurrent use.
type StreamLimit struct {
	mu        sync.Mutex
	open      int
	perClient map[string]int
	max, per  int
}

// NewStreamLimit returns a limit of total streams in all and perClient per
// client address (0: no per-client cap).
func NewStreamLimit(total, perClient int) *StreamLimit {
	return &StreamLimit{perClient: map[string]int{}, max: total, per: perClient}
}

// Acquire takes a slot for r's client. When a cap is reached ok is false
// and global says which (the total, else the client's). Release gives the
// slot back; calling it again does nothing.
func (l *StreamLimit) Acquire(r *http.Request) (release func(), ok, global bool) {
	client := ClientAddr(r)
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case l.open >= l.max:
		return nil, false, true
	case l.per > 0 && l.perClient[client] >= l.per:
		return nil, false, false
	}
	l.open++
	l.perClient[client]++
	var once sync.Once
	return func() {
		once.Do(func() {
			l.mu.Lock()
			defer l.mu.Unlock()
			l.open--
			if l.perClient[client]--; l.perClient[client] <= 0 {
				delete(l.perClient, client)
			}
		})
	}, true, false
}

// Open returns how many streams are open now.
func (l *StreamLimit) Open() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.open
}

// ClientAddr is the client's IP address (the port varies per connection).
func ClientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
