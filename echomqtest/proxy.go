package echomqtest

import (
	"bytes"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Proxy is a TCP proxy between clients and an engine, for fault tests. It
// forwards bytes both ways and injects the faults of a network:
//
//   - [Proxy.SetLatency]: every chunk is delivered a fixed delay after it
//     was read, in both directions (a slow link; order is kept).
//   - [Proxy.DropConnections]: every current connection is closed on both
//     sides (a reset); new connections work.
//   - [Proxy.HalfOpen]: the engine side of every current connection is
//     closed while the client side stays open and silent: the client's
//     bytes vanish and nothing comes back, as when the peer died without a
//     FIN. Only the client's own timeout gets it out. New connections work.
//   - [Proxy.Partition] until [Proxy.Heal]: nothing is delivered in either
//     direction, on current and new connections; what was sent meanwhile is
//     held and delivered on Heal, as TCP retransmits after a short partition.
//   - [Proxy.DropReplyTo]: the reply to one marked command is lost after the
//     command reached the engine (the write happened; the client sees its
//     connection break instead of the answer).
//
// Close it (or let the test's cleanup do it) to end every connection and
// goroutine it started. Its methods are safe for concurrent use.
type Proxy struct {
	ln     net.Listener
	target string
	done   chan struct{} // closed by Close

	mu     sync.Mutex
	links  map[*link]struct{}
	healed chan struct{} // nil: not partitioned; else closed by Heal
	closed bool
	wg     sync.WaitGroup

	latency  atomic.Int64 // time.Duration
	marker   atomic.Pointer[[]byte]
	dropped  atomic.Int64
	accepted atomic.Int64 // client connections accepted
	sent     atomic.Int64 // chunks read from clients
}

// ProxyCounts is what clients sent through a [Proxy] since it started:
// how often they connected and how many chunks (reads of their side, each
// one or more commands) they wrote. A fault test compares two readings
// taken around an outage to bound a client's retry rate: a client that
// spins against an engine that is away shows as thousands of attempts a
// second.
type ProxyCounts struct {
	Conns  int64 // connections accepted, whether or not the engine answered the proxy's dial
	Chunks int64 // chunks read from clients, whether or not they were delivered
}

// Attempts is Conns + Chunks: every attempt of a client to reach the
// engine.
func (c ProxyCounts) Attempts() int64 { return c.Conns + c.Chunks }

// Sub returns c - d.
func (c ProxyCounts) Sub(d ProxyCounts) ProxyCounts {
	return ProxyCounts{Conns: c.Conns - d.Conns, Chunks: c.Chunks - d.Chunks}
}

// link is one proxied connection.
type link struct {
	client, server net.Conn
	halfOpen       atomic.Bool // the engine side is gone; the client side stays
	drop           atomic.Bool // a marked command went to the engine
}

func (l *link) closeBoth() { _ = l.client.Close(); _ = l.server.Close() }

// chunk is bytes read from one side, due for delivery at due.
type chunk struct {
	b   []byte
	due time.Time
}

// NewProxy listens on a free loopback port and forwards every connection
// to target (host:port). It is closed when tb ends.
func NewProxy(tb testing.TB, target string) *Proxy {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("echomqtest: proxy listen: %v", err)
	}
	p := &Proxy{ln: ln, target: target, done: make(chan struct{}), links: map[*link]struct{}{}}
	p.wg.Add(1)
	go p.accept()
	tb.Cleanup(p.Close)
	return p
}

// Addr returns the proxy's host:port.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// URL returns redis://<Addr>.
func (p *Proxy) URL() string { return "redis://" + p.Addr() }

// SetLatency delays every chunk read from now on by d in each direction (a
// round trip costs 2d more). 0 removes the delay.
func (p *Proxy) SetLatency(d time.Duration) { p.latency.Store(int64(max(d, 0))) }

// DropConnections closes every current connection on both sides and
// returns how many it closed.
func (p *Proxy) DropConnections() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	for l := range p.links {
		l.closeBoth()
	}
	return len(p.links)
}

// HalfOpen closes the engine side of every current connection and leaves
// the client side open and silent; it returns how many it half-opened.
func (p *Proxy) HalfOpen() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for l := range p.links {
		if !l.halfOpen.Swap(true) {
			_ = l.server.Close()
			n++
		}
	}
	return n
}

// Partition stops delivery in both directions until [Proxy.Heal].
func (p *Proxy) Partition() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.healed == nil {
		p.healed = make(chan struct{})
	}
}

// Heal ends a partition: held bytes are delivered in order. It is a no-op
// without a partition.
func (p *Proxy) Heal() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.healed != nil {
		close(p.healed)
		p.healed = nil
	}
}

// Conns returns how many connections the proxy carries now.
func (p *Proxy) Conns() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.links)
}

// DropReplyTo arms the proxy once: the next client command whose bytes
// contain marker is forwarded to the engine, and then the engine's reply is
// thrown away and both sides of that connection are closed.
func (p *Proxy) DropReplyTo(marker string) {
	m := []byte(marker)
	p.marker.Store(&m)
}

// Counts returns what clients sent through the proxy so far.
func (p *Proxy) Counts() ProxyCounts {
	return ProxyCounts{Conns: p.accepted.Load(), Chunks: p.sent.Load()}
}

// Dropped returns how many replies the proxy threw away.
func (p *Proxy) Dropped() int64 { return p.dropped.Load() }

// Close stops accepting, closes every connection and waits for the
// proxy's goroutines. It is idempotent.
func (p *Proxy) Close() {
	p.mu.Lock()
	if !p.closed {
		p.closed = true
		close(p.done)
		_ = p.ln.Close()
		for l := range p.links {
			l.closeBoth()
		}
	}
	p.mu.Unlock()
	p.wg.Wait()
}

func (p *Proxy) track(l *link) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	p.links[l] = struct{}{}
	return true
}

func (p *Proxy) untrack(l *link) {
	p.mu.Lock()
	delete(p.links, l)
	p.mu.Unlock()
}

func (p *Proxy) accept() {
	defer p.wg.Done()
	for {
		client, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.accepted.Add(1)
		server, err := net.DialTimeout("tcp", p.target, probeTimeout)
		if err != nil {
			_ = client.Close()
			continue
		}
		l := &link{client: client, server: server}
		if !p.track(l) {
			l.closeBoth()
			return
		}
		var ends sync.WaitGroup
		ends.Add(2)
		p.wg.Add(3)
		go func() { defer p.wg.Done(); defer ends.Done(); p.pump(l, true) }()
		go func() { defer p.wg.Done(); defer ends.Done(); p.pump(l, false) }()
		go func() { defer p.wg.Done(); ends.Wait(); p.untrack(l) }()
	}
}

// pump carries one direction of l: a reader stamps each chunk with its due
// time, a writer delivers it then (after a partition heals), so latency
// delays bytes without throttling the link.
func (p *Proxy) pump(l *link, up bool) {
	src, dst := l.server, l.client
	if up {
		src, dst = l.client, l.server
	}
	ch := make(chan chunk, 64)
	var wg sync.WaitGroup
	wg.Go(func() { // writer
		for c := range ch {
			if !p.deliver(l, up, dst, c) {
				l.closeBoth()
				for range ch { // let the reader finish
				}
				return
			}
		}
	})
	defer wg.Wait()
	defer close(ch)
	buf := make([]byte, 64<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			b := bytes.Clone(buf[:n])
			if up {
				p.sent.Add(1)
				if m := p.marker.Load(); m != nil && bytes.Contains(b, *m) && p.marker.CompareAndSwap(m, nil) {
					l.drop.Store(true) // before the write: the reply comes after it
				}
			}
			select {
			case ch <- chunk{b: b, due: time.Now().Add(time.Duration(p.latency.Load()))}:
			case <-p.done:
				return
			}
		}
		if err != nil {
			if !up && l.halfOpen.Load() {
				return // the engine side was cut on purpose: the client side stays
			}
			l.closeBoth()
			return
		}
	}
}

// deliver writes c to dst when it is due and no partition holds it; false
// ends the link.
func (p *Proxy) deliver(l *link, up bool, dst net.Conn, c chunk) bool {
	if d := time.Until(c.due); d > 0 {
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-p.done:
			t.Stop()
			return false
		}
	}
	for {
		p.mu.Lock()
		healed := p.healed
		p.mu.Unlock()
		if healed == nil {
			break
		}
		select {
		case <-healed:
		case <-p.done:
			return false
		}
	}
	if l.halfOpen.Load() {
		return true // swallowed: the client talks to a peer that is gone
	}
	if !up && l.drop.Load() {
		p.dropped.Add(1)
		return false
	}
	_, err := dst.Write(c.b)
	return err == nil
}
