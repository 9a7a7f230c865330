package echomq

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/echomq/echomq/internal/engines"
	"github.com/echomq/echomq/internal/keyspace"
	"github.com/echomq/echomq/internal/wire"
)

// Client is a connection to an engine plus the minter that stamps the ids
// it appends. It is safe for concurrent use; open one per process and share
// it.
type Client struct {
	cfg      Config
	conn     *wire.Conn
	embedded *engines.Engine
	eclock   *engineClock

	// fixed is the one minter of every queue when Config.NodeID is set;
	// otherwise mints holds a *queueMint per queue, made (and its node id
	// leased) under mintMu on the queue's first use.
	fixed  *queueMint
	mints  sync.Map
	mintMu sync.Mutex
	astats appendCounters
	hooks  hookSet
	// tagged holds a group committer per queue for tagged and conditional
	// appends (stream_tagged.go), made on the queue's first.
	tagged sync.Map
	engine atomic.Pointer[Engine]

	// watchStop stops the engine watcher and watchDone is closed when it
	// returned; both nil when none runs.
	watchStop context.CancelFunc
	watchDone chan struct{}

	// budgets are the budgeted streams (nil without Config.Budgets), kept
	// current by the sampler that budgetStop stops.
	budgets    budgets
	budgetStop context.CancelFunc
	budgetDone chan struct{}

	closeOnce sync.Once
	closed    chan struct{}
}

// Connect connects to the engine named by config.URL and prepares the minter
// (a configured node id or one leased from the engine). The URL
// "embedded:" (embedded.URL) starts a fresh in-process engine, which the
// program must link by importing package embedded; the library never
// starts one by itself.
//
// It returns [ErrNoEngine] for an empty URL (or a nil config) (or "embedded:" in a program
// that does not link the embedded engine), an [*ArgumentError] for a node
// id out of range or a URL that cannot name an engine, a [*TransportError]
// when the engine cannot be reached, a [*VersionError] when Interop is
// set and the engine's version fence holds another version, an
// [*EvictionError] when the engine's maxmemory-policy evicts keys (unless
// Config.AllowEviction), and a [*ScriptsError] when the user may not run
// scripts.
//
// The engine's clock, identity, memory and policy ([Client.Engine]) and
// the scripting check come in one pipelined round trip.
func Connect(ctx context.Context, config *Config) (*Client, error) {
	var cfg Config
	if config != nil {
		cfg = *config
	}
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	c := &Client{cfg: cfg, closed: make(chan struct{}), eclock: newEngineClock(), hooks: newHookSet(cfg.Hooks)}
	opts := wire.Options{URL: cfg.URL, ClientName: cfg.ClientName, CallTimeout: cfg.CallTimeout, DialTimeout: cfg.DialTimeout, FlushDelay: cfg.FlushDelay}
	switch {
	case cfg.URL == "":
		return nil, ErrNoEngine
	case cfg.URL == engines.Scheme+":" || strings.HasPrefix(cfg.URL, engines.Scheme+"://"):
		if engines.Embedded == nil {
			return nil, fmt.Errorf("%w: %q asks for the embedded engine, which this program does not link (import github.com/echomq/echomq/embedded)", ErrNoEngine, cfg.URL)
		}
		e, err := engines.Embedded()
		if err != nil {
			return nil, fmt.Errorf("echomq: start embedded engine: %w", err)
		}
		c.embedded = &e
		opts = wire.Options{Addr: e.Addr, ForceSingle: true, ClientName: cfg.ClientName, CallTimeout: cfg.CallTimeout, DialTimeout: cfg.DialTimeout, FlushDelay: cfg.FlushDelay}
		notice := cfg.Notice
		if notice == nil {
			notice = os.Stderr
		}
		fmt.Fprintf(notice, "echomq: using the embedded in-process engine at %s; nothing persists when the process exits\n", e.Addr)
	}
	opts.OnCall = callObserver(cfg.Hooks)
	conn, err := wire.Dial(ctx, opts)
	if err != nil {
		c.stopEmbedded()
		if ue, ok := errors.AsType[*wire.URLError](err); ok {
			// The URL may hold a password: name the rule, not the URL.
			return nil, &ArgumentError{Name: "url", Reason: strings.TrimPrefix(ue.Error(), "echomq: invalid url: ")}
		}
		return nil, fmt.Errorf("echomq: connect: %w", err)
	}
	c.conn = conn
	if err := c.start(ctx); err != nil {
		conn.Close()
		c.stopEmbedded()
		return nil, err
	}
	c.startWatch()
	c.budgets = newBudgets(c.cfg.Budgets)
	c.startBudgets()
	return c, nil
}

func (c *Client) start(ctx context.Context) error {
	if err := c.probeEngine(ctx); err != nil {
		var ee *EvictionError
		var se *ScriptsError
		if errors.As(err, &ee) || errors.As(err, &se) {
			return err
		}
		return fmt.Errorf("echomq: connect: read the engine clock: %w", err)
	}
	if c.cfg.Interop {
		if err := c.fence(ctx); err != nil {
			return err
		}
	}
	if c.cfg.NodeID != nil {
		m, err := NewMinter(*c.cfg.NodeID, c.cfg.Clock)
		if err != nil {
			return err
		}
		c.fixed = &queueMint{minter: m}
	}
	// Without a configured node id, a node id is leased per queue on the
	// queue's first mint (client_mint.go).
	return nil
}

// VersionError is an engine whose version fence holds another version than
// the interop version ("echomq:3.0.0").
type VersionError struct{ Got string }

func (e *VersionError) Error() string {
	return fmt.Sprintf("echomq: version fence: engine holds %q, want %q", e.Got, interopVersion)
}

func (c *Client) fence(ctx context.Context) error {
	key := keyspace.VersionKey()
	if _, err := c.conn.SetNX(ctx, key, interopVersion, 0); err != nil {
		return fmt.Errorf("echomq: version fence: %w", err)
	}
	got, _, err := c.conn.Get(ctx, key)
	if err != nil {
		return fmt.Errorf("echomq: version fence: %w", err)
	}
	if got != interopVersion {
		return &VersionError{Got: got}
	}
	return nil
}

// Close releases the node id lease, closes the connections and stops the
// embedded engine if Connect started one. It is idempotent; verbs called
// after it return [ErrClosed]. A lease that cannot be released (the engine
// is gone) is logged, not returned: it expires by itself after
// Config.NodeLeaseTTL.
func (c *Client) Close() error {
	c.closeOnce.Do(func() {
		close(c.closed)
		if c.watchStop != nil {
			c.watchStop()
			<-c.watchDone
		}
		if c.budgetStop != nil {
			c.budgetStop()
			<-c.budgetDone
		}
		c.releaseLeases()
		c.conn.Close()
		c.stopEmbedded()
	})
	return nil
}

func (c *Client) stopEmbedded() {
	if c.embedded != nil {
		c.embedded.Stop()
	}
}

// isClosed reports whether Close was called.
func (c *Client) isClosed() bool {
	select {
	case <-c.closed:
		return true
	default:
		return false
	}
}

// Now returns the client's clock reading.
func (c *Client) Now() time.Time {
	if c.cfg.Clock == nil {
		return time.Now()
	}
	return c.cfg.Clock()
}
