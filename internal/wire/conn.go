package wire

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/valkey-io/valkey-go"
)

// Conn is a connection to one engine (a server or a cluster). It is safe
// for concurrent use.
type Conn struct {
	c  valkey.Client
	wm *atomic.Int32 // the wait commands the engine has (durable.go); shared with pinned Conns
	// noMemory is set once the engine refused MEMORY USAGE (the embedded
	// engine has no such command): it is not asked again. Nil on pinned Conns.
	noMemory *atomic.Bool
}

// Options configure [Dial].
type Options struct {
	// URL is a redis://, rediss://, valkey:// or unix:// URL; extra cluster
	// seeds go in repeated addr= query parameters.
	URL string
	// Addr, when URL is empty, is a host:port to dial in plain text.
	Addr string
	// ClientName is sent with CLIENT SETNAME.
	ClientName string
	// ForceSingle skips cluster discovery (the embedded engine).
	ForceSingle bool
	// RESP2 makes the client speak RESP2.
	RESP2 bool
	// CallTimeout bounds every call whose context has no earlier deadline
	// (see [timed]); <= 0: no bound.
	CallTimeout time.Duration
	// DialTimeout bounds one connection attempt (the TCP dial and the
	// handshake); <= 0: valkey-go's default (5s).
	DialTimeout time.Duration
	// FlushDelay is valkey-go's MaxFlushDelay: how long the writer may
	// wait after a flush to batch more commands; <= 0: none.
	FlushDelay time.Duration
	// OnCall, when set, observes every call (see [CallObserver]).
	OnCall CallObserver
}

// URLError is a URL that cannot name an engine.
type URLError struct{ Err error }

func (e *URLError) Error() string {
	return "echomq: invalid url: " + strings.TrimPrefix(e.Err.Error(), "valkey: ")
}
func (e *URLError) Unwrap() error { return e.Err }

// Dial connects and checks the connection with a round trip.
func Dial(ctx context.Context, o Options) (*Conn, error) {
	var opt valkey.ClientOption
	if o.URL != "" {
		var err error
		if opt, err = valkey.ParseURL(o.URL); err != nil {
			return nil, &URLError{Err: err}
		}
	} else {
		opt.InitAddress = []string{o.Addr}
	}
	opt.DisableCache = true
	// One pipelined connection per node: valkey-go would otherwise spread
	// commands over several connections at random, so XADDs minted in order
	// could reach the engine out of order and be refused as below the top.
	opt.PipelineMultiplex = -1
	opt.ForceSingleClient = opt.ForceSingleClient || o.ForceSingle
	opt.AlwaysRESP2 = opt.AlwaysRESP2 || o.RESP2
	if o.ClientName != "" {
		opt.ClientName = o.ClientName
	}
	if o.DialTimeout > 0 {
		opt.Dialer.Timeout = o.DialTimeout
	}
	if o.FlushDelay > 0 {
		opt.MaxFlushDelay = o.FlushDelay
	}
	if o.CallTimeout > 0 {
		// valkey-go's own bound of a connection that stops answering: a
		// command waits at most this long on its socket, and a pipelined
		// connection with calls in flight and no reply for a keep-alive
		// interval is pinged and closed when the ping goes unanswered this
		// long. It bounds writes without a context per call (see timed).
		opt.ConnWriteTimeout = o.CallTimeout
	}
	c, err := valkey.NewClient(opt)
	if err != nil {
		return nil, convert(err)
	}
	w := &Conn{c: timed{Client: c, d: o.CallTimeout}, wm: new(atomic.Int32), noMemory: new(atomic.Bool)}
	if o.OnCall != nil {
		w.c = observed{Client: w.c, on: o.OnCall}
	}
	if err := w.c.Do(ctx, w.c.B().Ping().Build()).Error(); err != nil {
		c.Close()
		return nil, convert(err)
	}
	return w, nil
}

// Close closes every connection.
func (w *Conn) Close() { w.c.Close() }

// Raw runs an arbitrary command; first names the key (for slot routing) when
// keyed is true. Tests and the CLI's debugging paths use it.
func (w *Conn) Raw(ctx context.Context, args ...string) (any, error) {
	if len(args) == 0 {
		return nil, nil
	}
	msg, err := w.c.Do(ctx, w.c.B().Arbitrary(args...).Build()).ToMessage()
	if err != nil {
		if isNil(err) {
			return nil, nil
		}
		return nil, convert(err)
	}
	return msg.ToAny()
}

// RawKeyed runs an arbitrary command whose second word is a key, routed to
// that key's slot.
func (w *Conn) RawKeyed(ctx context.Context, cmd, key string, args ...string) (any, error) {
	msg, err := w.c.Do(ctx, w.c.B().Arbitrary(cmd).Keys(key).Args(args...).Build()).ToMessage()
	if err != nil {
		if isNil(err) {
			return nil, nil
		}
		return nil, convert(err)
	}
	return msg.ToAny()
}

// Get returns the string at key and false when it is absent.
func (w *Conn) Get(ctx context.Context, key string) (string, bool, error) {
	s, err := w.c.Do(ctx, w.c.B().Get().Key(key).Build()).ToString()
	if isNil(err) {
		return "", false, nil
	}
	if err != nil {
		return "", false, convert(err)
	}
	return s, true, nil
}

// Set stores a string at key.
func (w *Conn) Set(ctx context.Context, key, val string) error {
	return convert(w.c.Do(ctx, w.c.B().Set().Key(key).Value(val).Build()).Error())
}

// SetNX stores a string at key when it is absent, with a TTL when ttl > 0,
// and reports whether it stored it.
func (w *Conn) SetNX(ctx context.Context, key, val string, ttl time.Duration) (bool, error) {
	var cmd valkey.Completed
	if ttl > 0 {
		cmd = w.c.B().Set().Key(key).Value(val).Nx().Px(ttl).Build()
	} else {
		cmd = w.c.B().Set().Key(key).Value(val).Nx().Build()
	}
	err := w.c.Do(ctx, cmd).Error()
	if isNil(err) {
		return false, nil
	}
	if err != nil {
		return false, convert(err)
	}
	return true, nil
}

// Del deletes keys (all on one slot) and returns how many existed.
func (w *Conn) Del(ctx context.Context, keys ...string) (int64, error) {
	n, err := w.c.Do(ctx, w.c.B().Del().Key(keys...).Build()).AsInt64()
	return n, convert(err)
}

// Exists returns how many of keys exist.
func (w *Conn) Exists(ctx context.Context, keys ...string) (int64, error) {
	n, err := w.c.Do(ctx, w.c.B().Exists().Key(keys...).Build()).AsInt64()
	return n, convert(err)
}

// MemoryUsage returns MEMORY USAGE of key in bytes, false when the key is
// absent or the engine does not report memory. An engine that refuses the
// command once (an error reply: the embedded engine has none) is not asked
// again, so its error counters do not rise with every read of a stream's
// info.
func (w *Conn) MemoryUsage(ctx context.Context, key string) (int64, bool, error) {
	if w.noMemory != nil && w.noMemory.Load() {
		return 0, false, nil
	}
	n, err := w.c.Do(ctx, w.c.B().MemoryUsage().Key(key).Samples(0).Build()).AsInt64()
	if isNil(err) {
		return 0, false, nil
	}
	if err != nil {
		err = convert(err)
		var se *ServerError
		if errors.As(err, &se) && se.Prefix == "ERR" && w.noMemory != nil {
			w.noMemory.Store(true)
			return 0, false, nil
		}
		return 0, false, err
	}
	return n, true, nil
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
