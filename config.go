package echomq

import (
	"fmt"
	"io"
	"log/slog"
	"time"
)

// interopVersion is the version fence value shared with the original EchoMQ:
// a Go and an Elixir program that share one engine both require
// "{emq}:version" to hold it.
const interopVersion = "echomq:3.0.0"

// Config configures [Connect]. Only URL must be set; every other field has
// a working default: a leased node id, the system clock.
type Config struct {
	// URL of the engine: redis://[user:pass@]host:port[/db],
	// rediss://… for TLS, valkey:// and unix:// also work. For a cluster give
	// any node and add more seeds as repeated addr= query parameters:
	// redis://10.0.0.1:7000?addr=10.0.0.2:7000&addr=10.0.0.3:7000; the
	// cluster is discovered from them.
	//
	// "embedded:" (embedded.URL) starts an in-process engine (miniredis) in a
	// program that imports package embedded: a notice that nothing persists
	// is written to Notice, and Close stops it.
	//
	// Required: an empty URL is [ErrNoEngine], so a program whose
	// configuration lost its URL fails at start instead of running on an
	// engine that keeps nothing.
	URL string

	// NodeID is the snowflake node id (0..1022; 1023 is the engine's) stamped
	// into minted ids, in every queue. Defaults to nil: a free node id is
	// leased in each queue on the client's first mint there
	// ("emq:{q}:node:<n>") and renewed while the client lives, so two
	// writers of a queue never share one (ids are unique within their
	// queue). A configured id must be kept distinct from every other
	// writer's of the queues the client writes by the operator.
	NodeID *int

	// NodeLeaseTTL is the time-to-live of a leased node id, in
	// [100ms, 1h]. Defaults to 30s. When no renewal is confirmed for this
	// long (the engine is paused or unreachable), the lease may have lapsed
	// and the client mints nothing ([ErrNodeLeaseLapsed]) until it leases a
	// node id again.
	NodeLeaseTTL time.Duration

	// Clock is the time source of the minter and of time windows relative
	// to now. Defaults to nil: the system clock.
	Clock Clock

	// Interop enables the version fence of the original EchoMQ: Connect
	// reads "{emq}:version", sets it to the interop version ("echomq:3.0.0") when absent, and
	// refuses an engine holding another version. Defaults to false.
	Interop bool

	// AppendRetries bounds how many times a write that carries an id inside
	// a larger script (dead letters, replays) takes a new id after another
	// writer got above the stream top, at most 10000. Defaults to 64.
	AppendRetries int

	// MaxSkew is how far ahead of the engine's clock an id may lie:
	// AppendID refuses an id further ahead, and Append refuses to follow a
	// stream top further ahead, with a [*SkewError]. At most 1h. Defaults
	// to 5s.
	MaxSkew time.Duration

	// DedupeWindow is how long an idempotency key ([AppendOpts.Key])
	// remembers its append: a repeat within it returns the original
	// receipts and writes nothing. At most 30 days. Defaults to 10 minutes.
	DedupeWindow time.Duration

	// MaxBulkBytes is the largest single name or value an append sends.
	// The engine refuses a bulk string above its proto-max-bulk-len by
	// dropping the connection (every caller sharing it then fails), so a
	// larger one is refused before any I/O with a [*FieldError] matching
	// [ErrTooLarge]. Set it to the engine's proto-max-bulk-len when that
	// was changed. Defaults to 512 MiB (the engine's default).
	MaxBulkBytes int64

	// CallTimeout bounds every call to the engine whose context has no
	// earlier deadline: a verb called with context.Background() during an
	// outage, against a hung engine or across a partition returns an error
	// matching [ErrUnavailable] (a [*TimeoutError] when the engine did not
	// answer in time) within it, never later. It is also the retry budget
	// of reads: a read-only command that fails on the network is retried
	// (backing off up to 1s) until it runs out. Blocking reads (Follow, a
	// consumer's fetch) get their block time on top. After the engine is
	// back the same client works again; nothing needs to be rebuilt.
	// Defaults to 5s; a negative value leaves calls bounded by their
	// context alone.
	CallTimeout time.Duration

	// DialTimeout bounds one connection attempt (TCP connect and handshake),
	// at Connect and on every reconnect. Defaults to 5s.
	DialTimeout time.Duration

	// FlushDelay is how long the connection's writer may wait after a
	// flush to gather the commands of other goroutines into the next one
	// (valkey-go's MaxFlushDelay): many goroutines then share each write
	// system call, which on a machine whose cores are busy is what bounds
	// throughput (64 goroutines appending under load: 1.67–1.70× raw
	// valkey-go, 1.13–1.18× without; on an idle machine it makes no
	// difference; BENCHMARKS.md). A caller that waits for each reply
	// before its next call pays nothing while the round trip is longer than
	// the delay; on a faster network its calls may wait up to the delay.
	// Defaults to 20µs; a negative value flushes at once.
	FlushDelay time.Duration

	// AllowEviction lets Connect use an engine whose maxmemory-policy
	// evicts (allkeys-* or volatile-*). Defaults to false: Connect refuses
	// it with an [*EvictionError], because such an engine deletes keys by
	// itself when full, acknowledged events and idempotency keys included,
	// without an error. Set it only where losing events is acceptable (a
	// cache-like scratch engine); a warning is logged at Connect.
	AllowEviction bool

	// EngineCheckInterval is how often the client's engine watcher re-reads
	// INFO memory: the eviction policy (it can be changed at run time; a
	// change is logged once) and the used memory behind [Client.Engine]'s
	// headroom and growth, which the prometheus module exports. At least
	// 10ms. Defaults to 15s; a negative value runs
	// no watcher (Engine then keeps what Connect read). The embedded engine
	// never runs one.
	EngineCheckInterval time.Duration

	// Budgets bound the memory of single streams: appends to a stream over
	// its [StreamBudget] are refused early with a [*BudgetError] (matching
	// [ErrEngineFull]) until archiving or trimming brings it below. Defaults
	// to none. A stream may have one budget.
	Budgets []StreamBudget

	// BudgetInterval is how often the budgeted streams are sampled (XLEN,
	// and MEMORY USAGE for a byte budget), at least 10ms. Defaults to
	// 1s.
	BudgetInterval time.Duration

	// ClientName is sent to the engine with CLIENT SETNAME: 1..128 bytes,
	// printable ASCII without spaces. Defaults to "echomq".
	ClientName string

	// Logger receives background events (lease renewals). Defaults to
	// slog.Default().
	Logger *slog.Logger

	// Notice receives the embedded-engine notice. Defaults to os.Stderr.
	Notice io.Writer

	// Hooks observe the client's work: engine calls, appends, reads,
	// deliveries, acknowledgements, dead letters, trims, and the lanes,
	// archive and projection services built on the client (see [Hook]).
	// Defaults to none, which costs nothing.
	Hooks []Hook
}

// defaultCallTimeout is the default of [Config.CallTimeout].
const defaultCallTimeout = 5 * time.Second

// defaultFlushDelay is the default of [Config.FlushDelay].
const defaultFlushDelay = 20 * time.Microsecond

// defaultEngineCheckInterval is the default of
// [Config.EngineCheckInterval]: one INFO memory every 15 seconds.
const defaultEngineCheckInterval = 15 * time.Second

// defaultMaxBulkBytes is the default of [Config.MaxBulkBytes]: the
// engine's default proto-max-bulk-len.
const defaultMaxBulkBytes = 512 << 20

// validate checks the fields withDefaults left set, before any I/O.
func (c Config) validate() error {
	bad := func(name, format string, args ...any) error {
		return &ArgumentError{Name: name, Reason: fmt.Sprintf(format, args...)}
	}
	switch {
	case c.NodeID != nil && (*c.NodeID < 0 || *c.NodeID >= engineNode):
		return bad("node id", "%d is outside 0..%d (%d is the engine's, see engineNode)", *c.NodeID, engineNode-1, engineNode)
	case c.NodeLeaseTTL < 100*time.Millisecond || c.NodeLeaseTTL > time.Hour:
		return bad("node lease ttl", "%v is outside [100ms, 1h]", c.NodeLeaseTTL)
	case c.AppendRetries < 1 || c.AppendRetries > 10000:
		return bad("append retries", "%d is outside 1..10000", c.AppendRetries)
	case c.MaxSkew < time.Millisecond || c.MaxSkew > time.Hour:
		return bad("max skew", "%v is outside [1ms, 1h]", c.MaxSkew)
	case c.DedupeWindow < time.Millisecond || c.DedupeWindow > 30*24*time.Hour:
		return bad("dedupe window", "%v is outside [1ms, 720h]", c.DedupeWindow)
	case c.DialTimeout < 0 || c.DialTimeout > 5*time.Minute:
		return bad("dial timeout", "%v is outside (0, 5m]", c.DialTimeout)
	case c.CallTimeout > 24*time.Hour:
		return bad("call timeout", "%v is above 24h (a negative value turns the bound off)", c.CallTimeout)
	case c.FlushDelay > 10*time.Millisecond:
		return bad("flush delay", "%v is above 10ms (a negative value flushes at once)", c.FlushDelay)
	case c.EngineCheckInterval >= 0 && c.EngineCheckInterval < 10*time.Millisecond:
		return bad("engine check interval", "%v is below 10ms (a negative value runs no watcher)", c.EngineCheckInterval)
	case c.MaxBulkBytes < 1:
		return bad("max bulk bytes", "%d must be positive", c.MaxBulkBytes)
	case c.BudgetInterval < 10*time.Millisecond:
		return bad("budget interval", "%v is below 10ms", c.BudgetInterval)
	case len(c.ClientName) > 128:
		return bad("client name", "%d bytes: at most 128", len(c.ClientName))
	}
	seen := map[string]bool{}
	for _, b := range c.Budgets {
		if err := b.validate(); err != nil {
			return err
		}
		key := b.Queue + "/" + b.Stream
		if seen[key] {
			return bad("budget", "%s has two budgets", key)
		}
		seen[key] = true
	}
	for i := range len(c.ClientName) {
		if ch := c.ClientName[i]; ch <= ' ' || ch > '~' {
			return bad("client name", "byte %q at %d: printable ASCII without spaces only", ch, i)
		}
	}
	return nil
}

func (c Config) withDefaults() Config {
	if c.NodeLeaseTTL == 0 {
		c.NodeLeaseTTL = 30 * time.Second
	}
	if c.AppendRetries == 0 {
		c.AppendRetries = 64
	}
	if c.MaxSkew == 0 {
		c.MaxSkew = 5 * time.Second
	}
	if c.DedupeWindow == 0 {
		c.DedupeWindow = 10 * time.Minute
	}
	if c.MaxBulkBytes == 0 {
		c.MaxBulkBytes = defaultMaxBulkBytes
	}
	if c.CallTimeout == 0 {
		c.CallTimeout = defaultCallTimeout
	}
	if c.DialTimeout == 0 {
		c.DialTimeout = 5 * time.Second
	}
	if c.FlushDelay == 0 {
		c.FlushDelay = defaultFlushDelay
	}
	if c.EngineCheckInterval == 0 {
		c.EngineCheckInterval = defaultEngineCheckInterval
	}
	if c.BudgetInterval == 0 {
		c.BudgetInterval = defaultBudgetInterval
	}
	if c.ClientName == "" {
		c.ClientName = "echomq"
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	return c
}
