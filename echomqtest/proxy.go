package echomqtest

import (
	"bytes"
	"net"
	"sync"
	"sync/atomic"
	"testing"
)

// Proxy is a TCP proxy between clients and an engine, for fault tests: it
// forwards bytes both ways and, when armed, loses a reply on the way back
// (the command reached the engine and ran; the client sees its connection
// break instead of the answer). Close it (or let the test's cleanup do it)
// to end every connection and goroutine it started.
type Proxy struct {
	ln     net.Listener
	target string

	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	closed bool
	wg     sync.WaitGroup

	marker  atomic.Pointer[[]byte]
	dropped atomic.Int64
}

// NewProxy listens on a free loopback port and forwards every connection
// to target (host:port). It is closed when tb ends.
func NewProxy(tb testing.TB, target string) *Proxy {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("echomqtest: proxy listen: %v", err)
	}
	p := &Proxy{ln: ln, target: target, conns: map[net.Conn]struct{}{}}
	p.wg.Add(1)
	go p.accept()
	tb.Cleanup(p.Close)
	return p
}

// Addr returns the proxy's host:port.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// URL returns redis://<Addr>.
func (p *Proxy) URL() string { return "redis://" + p.Addr() }

// DropReplyTo arms the proxy once: the next client command whose bytes
// contain marker is forwarded to the engine, and then the engine's reply is
// thrown away and both sides of that connection are closed.
func (p *Proxy) DropReplyTo(marker string) {
	m := []byte(marker)
	p.marker.Store(&m)
}

// Dropped returns how many replies the proxy threw away.
func (p *Proxy) Dropped() int64 { return p.dropped.Load() }

// Close stops accepting, closes every connection and waits for the
// proxy's goroutines. It is idempotent.
func (p *Proxy) Close() {
	p.mu.Lock()
	if !p.closed {
		p.closed = true
		_ = p.ln.Close()
		for c := range p.conns {
			_ = c.Close()
		}
	}
	p.mu.Unlock()
	p.wg.Wait()
}

func (p *Proxy) track(cs ...net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	for _, c := range cs {
		p.conns[c] = struct{}{}
	}
	return true
}

func (p *Proxy) accept() {
	defer p.wg.Done()
	for {
		client, err := p.ln.Accept()
		if err != nil {
			return
		}
		server, err := net.Dial("tcp", p.target)
		if err != nil {
			_ = client.Close()
			continue
		}
		if !p.track(client, server) {
			_ = client.Close()
			_ = server.Close()
			return
		}
		var drop atomic.Bool // set once a marked command went to the engine
		closeBoth := func() { _ = client.Close(); _ = server.Close() }
		p.wg.Add(2)
		go func() { // client → engine
			defer p.wg.Done()
			defer closeBoth()
			buf := make([]byte, 64<<10)
			for {
				n, err := client.Read(buf)
				if n > 0 {
					if m := p.marker.Load(); m != nil && bytes.Contains(buf[:n], *m) && p.marker.CompareAndSwap(m, nil) {
						drop.Store(true) // before the write: the reply comes after it
					}
					if _, werr := server.Write(buf[:n]); werr != nil {
						return
					}
				}
				if err != nil {
					return
				}
			}
		}()
		go func() { // engine → client
			defer p.wg.Done()
			defer closeBoth()
			buf := make([]byte, 64<<10)
			for {
				n, err := server.Read(buf)
				if n > 0 && drop.Load() {
					p.dropped.Add(1)
					return
				}
				if n > 0 {
					if _, werr := client.Write(buf[:n]); werr != nil {
						return
					}
				}
				if err != nil {
					return
				}
			}
		}()
	}
}
