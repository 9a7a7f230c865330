package views

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/codemojex"
)

// Notice is one event the hub saw, with its stream.
type Notice struct {
	Stream string
	Event  echomq.Event
}

// Hub follows the streams that tell a waiting player something changed
// (guess-scored, game-settled, game-started, player-joined) and wakes who
// waits on a guess or a game, and fans the events out to subscribers (a
// live feed). It is safe for concurrent use.
type Hub struct {
	e     []*codemojex.Engine
	block time.Duration

	mu      sync.Mutex
	waiters map[string]map[*waiter]struct{}
	subs    map[chan Notice]struct{}
}

type waiter struct {
	ch   chan struct{}
	once sync.Once
}

// HubStreams are the streams a hub follows.
var HubStreams = []string{codemojex.StreamGuessScored, codemojex.StreamGameSettled, codemojex.StreamGameStarted, codemojex.StreamPlayerJoined}

// NewHub returns a hub over the engine's streams; block is how long one
// blocking read waits (defaults to 1s).
func NewHub(e *codemojex.Engine, block time.Duration) *Hub {
	if block <= 0 {
		block = time.Second
	}
	return &Hub{e: []*codemojex.Engine{e}, block: block, waiters: map[string]map[*waiter]struct{}{}, subs: map[chan Notice]struct{}{}}
}

// NewShardedHub returns a hub over the streams of every shard of a
// sharded game; block as [NewHub]. With one shard it is [NewHub] of it.
func NewShardedHub(s *codemojex.Shards, block time.Duration) *Hub {
	h := NewHub(s.Shard(0), block)
	h.e = s.Engines()
	return h
}

// Run follows the streams from now until ctx ends. Through an outage of the
// engine each stream's follow resumes by itself from its position; after a
// permanent read error it follows again a second later, from where it
// stopped. It returns nil when ctx ends.
func (h *Hub) Run(ctx context.Context) error {
	var wg sync.WaitGroup
	for _, e := range h.e {
		for _, name := range HubStreams {
			wg.Go(func() { h.follow(ctx, e, name) })
		}
	}
	wg.Wait()
	return nil
}

func (h *Hub) follow(ctx context.Context, e *codemojex.Engine, name string) {
	from := echomq.Bound{}
	for ctx.Err() == nil {
		for ev, err := range e.Stream(name).Follow(ctx, &echomq.FollowOpts{From: from, Block: h.block}) {
			if errors.Is(err, echomq.ErrUnavailable) {
				continue // Follow resumes by itself from its position, and logs the outage
			}
			if err != nil {
				break
			}
			from = echomq.Exclusive(ev.Entry)
			h.notify(Notice{Stream: name, Event: ev})
		}
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
}

func (h *Hub) notify(n Notice) {
	h.mu.Lock()
	defer h.mu.Unlock()
	// A scored guess wakes who waits on it and who waits on its player (a
	// submit that waits registers before its guess has an id); a settled
	// game wakes who waits on the game (their queued guesses were void).
	var keys [2]string
	switch n.Stream {
	case codemojex.StreamGuessScored:
		keys = [2]string{n.Event.Fields.Value("guess"), n.Event.Fields.Value("player")}
	case codemojex.StreamGameSettled:
		keys[0] = n.Event.Fields.Value("game")
	}
	for _, key := range keys {
		if key == "" {
			continue
		}
		for w := range h.waiters[key] {
			w.once.Do(func() { close(w.ch) })
		}
		delete(h.waiters, key)
	}
	for ch := range h.subs {
		select {
		case ch <- n:
		default: // a slow subscriber misses events rather than stall the hub
		}
	}
}

// Wait returns a channel closed when a guess of keys is scored, a guess of
// a player of keys is scored, or a game of keys is settled, and a func that
// stops waiting. Register before
// reading the state waited on, so no change falls in between.
func (h *Hub) Wait(keys ...string) (<-chan struct{}, func()) {
	w := &waiter{ch: make(chan struct{})}
	h.mu.Lock()
	for _, k := range keys {
		if h.waiters[k] == nil {
			h.waiters[k] = map[*waiter]struct{}{}
		}
		h.waiters[k][w] = struct{}{}
	}
	h.mu.Unlock()
	return w.ch, func() {
		h.mu.Lock()
		for _, k := range keys {
			delete(h.waiters[k], w)
			if len(h.waiters[k]) == 0 {
				delete(h.waiters, k)
			}
		}
		h.mu.Unlock()
	}
}

// Subscribe returns a channel of the events the hub sees from now on, with
// room for buf of them (events a full channel has no room for are dropped),
// and a func that unsubscribes.
func (h *Hub) Subscribe(buf int) (<-chan Notice, func()) {
	ch := make(chan Notice, max(buf, 1))
	h.mu.Lock()
	h.subs[ch] = struct{}{}
	h.mu.Unlock()
	return ch, func() {
		h.mu.Lock()
		delete(h.subs, ch)
		h.mu.Unlock()
	}
}
