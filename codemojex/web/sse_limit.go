package web

import (
	"net"
	"net/http"
	"sync"
)

// Defaults of the live feed's caps ([Config.MaxStreams],
// [Config.MaxStreamsPerClient]).
const (
	DefaultMaxStreams          = 1000
	DefaultMaxStreamsPerClient = 4
)

// streamCaps counts the open event streams, in all and per client address,
// so no client and no crowd can hold more goroutines and sockets than the
// caps allow. The feed is public (it carries what the lobby shows, nothing
// a player's session guards), so the caps are what bounds it.
type streamCaps struct {
	mu        sync.Mutex
	open      int
	perClient map[string]int
	max, per  int
}

func newStreamCaps(total, per int) *streamCaps {
	return &streamCaps{perClient: map[string]int{}, max: total, per: per}
}

// acquire takes a slot for r's client; ok is false when a cap is reached
// (global says which).
func (c *streamCaps) acquire(r *http.Request) (release func(), ok, global bool) {
	client := clientAddr(r)
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.open >= c.max:
		return nil, false, true
	case c.perClient[client] >= c.per:
		return nil, false, false
	}
	c.open++
	c.perClient[client]++
	var once sync.Once
	return func() {
		once.Do(func() {
			c.mu.Lock()
			defer c.mu.Unlock()
			c.open--
			if c.perClient[client]--; c.perClient[client] <= 0 {
				delete(c.perClient, client)
			}
		})
	}, true, false
}

// clientAddr is the client's IP address (the port varies per connection).
func clientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// LiveFeeds returns how many live feeds are open on this handler now (for
// health reporting: codemojex/health's Config.LiveFeeds).
func (h *Handler) LiveFeeds() int {
	h.caps.mu.Lock()
	defer h.caps.mu.Unlock()
	return h.caps.open
}
