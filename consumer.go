package echomq

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"time"

	"github.com/echomq/echomq/internal/keyspace"
)

// HandlerFunc handles one delivery. Returning nil acknowledges the entry;
// an error (or a panic) leaves it pending for a later delivery. ctx ends
// before a peer could reclaim the entry (see [ConsumerConfig.MinIdle]) and
// when a graceful stop runs out of grace; a handler must return soon after.
type HandlerFunc func(ctx context.Context, d Delivery) error

// Delivery is one entry handed to a handler: the event (branded id, entry
// id, payload without the "id" field) and where and how often it was
// delivered.
type Delivery struct {
	Event
	// Attempts is the engine's delivery count of the entry, this delivery
	// included: 1 the first time, then 2, 3, … after failures, crashes or
	// reclaims.
	Attempts int64
	// Queue, Stream, Group and Consumer name where it was delivered.
	Queue, Stream, Group, Consumer string
}

// Key returns the record's idempotency key: its branded id, or its entry id
// when another program appended it without one.
func (d Delivery) Key() string {
	if d.ID.IsZero() {
		return d.Entry.String()
	}
	return d.ID.String()
}

// Defaults of [ConsumerConfig].
const (
	defaultCount         = 100
	defaultBeat          = time.Second
	defaultMinIdle       = 30 * time.Second
	defaultMaxDeliveries = 16
	defaultGrace         = 10 * time.Second
)

// Upper bounds of [ConsumerConfig], refused above with an [*ArgumentError]
// before anything runs: past them a consumer starves the engine or the
// process (a goroutine per handler, an entry buffer per fetch) rather than
// doing more work.
const (
	maxConcurrency = 10000
	maxCount       = 100000
	maxBeat        = time.Hour
	maxMinIdle     = 7 * 24 * time.Hour
	maxGrace       = time.Hour
)

// ConsumerConfig configures [Client.Consumer]. Queue, Stream, Group, Start
// and Handle are required; every other field has a working default.
type ConsumerConfig struct {
	// Queue, Stream and Group name the group to read (created at Start
	// when missing).
	Queue, Stream, Group string

	// Name is the consumer's name within the group; it keys the consumer's
	// pending list, so a restart under the same name recovers its own
	// backlog first. Defaults to "<hostname>-<pid>".
	Name string

	// Start is where the group begins when Run has to create it; an
	// existing group keeps its position. Required: [StartNew] or
	// [StartHead].
	Start Start

	// Handle handles each delivery. Required.
	Handle HandlerFunc

	// Count caps the entries one read or reclaim fetches; it is also the
	// depth of the queue in front of the handlers. Defaults to 100; at most
	// 100000.
	Count int

	// Beat is how long a read blocks waiting for new entries and how often
	// idle entries are reclaimed; it bounds how late a stop is noticed.
	// Defaults to 1s; at most 1h.
	Beat time.Duration

	// MinIdle is how long an entry must sit unacknowledged before any
	// consumer of the group (this one included) reclaims it: the retry
	// delay of a failed entry and the takeover delay after a crash. A
	// handler's context ends MinIdle minus a safety margin (a tenth of
	// MinIdle, plus AckInterval) after the entry was fetched, so no peer
	// can reclaim an entry while its handler still runs. Keep
	// Count × handler time well below it. Defaults to 30s; at most
	// 7 days.
	MinIdle time.Duration

	// Concurrency is how many handlers run in parallel, at most
	// 10000. Defaults to 1: entries are handled one at a time,
	// in fetch order.
	Concurrency int

	// MaxDeliveries is how many deliveries an entry gets: when the handler
	// fails on delivery MaxDeliveries (or the entry arrives with more, as
	// after repeated crashes mid-handler) it is moved to the dead-letter
	// stream and acknowledged. Defaults to 16; a negative value disables
	// dead-lettering (entries are retried forever).
	MaxDeliveries int

	// AckBatch caps the ids one XACK carries. Defaults to Count; at most
	// 100000.
	AckBatch int

	// AckInterval is how long acknowledgements may wait to fill a batch.
	// Defaults to 0: an XACK is sent as soon as the previous one returned,
	// carrying every id that completed meanwhile. At most MinIdle/4.
	AckInterval time.Duration

	// Grace is how long a stopping consumer lets running handlers finish
	// before it cancels their contexts. Defaults to 10s; at most 1h.
	Grace time.Duration

	// Logger receives failures, panics, dead letters and retries. Defaults
	// to the client's logger.
	Logger *slog.Logger
}

// Consumer reads a stream as one member of a consumer group and hands each
// entry to a handler, at least once. See [Client.Consumer] and
// [Consumer.Run]. Its methods are safe for concurrent use; Run runs once at
// a time.
type Consumer struct {
	c     *Client
	cfg   ConsumerConfig
	s     *Stream
	start string          // the group's position when Run creates it
	e     *consumerEngine // everything but how the stream is read (consumer_engine.go)
}

// Consumer validates config (nil: an empty one) and returns a consumer ready to [Consumer.Run].
// Nothing is written until Run. Errors: [*NameError] for a bad queue,
// stream, group or consumer name; [*ArgumentError] for a missing handler, a
// zero Start or an option out of range.
func (c *Client) Consumer(config *ConsumerConfig) (*Consumer, error) {
	var cfg ConsumerConfig
	if config != nil {
		cfg = *config
	}
	s := c.Stream(cfg.Queue, cfg.Stream)
	cfg = cfg.withDefaults(c)
	err := s.Group(cfg.Group).Err()
	if err == nil {
		err = checkConsumer(cfg.Name)
	}
	if err == nil {
		err = cfg.validate()
	}
	if err != nil {
		return nil, opError("consumer", s.key, err)
	}
	start, _ := cfg.Start.entryID()
	log := cfg.Logger.With("queue", cfg.Queue, "stream", cfg.Stream, "group", cfg.Group, "consumer", cfg.Name)
	cs := &Consumer{c: c, cfg: cfg, s: s, start: start}
	cs.e = newConsumerEngine(c, log, func() fetchSource { return &streamSource{c: cs} }, consumerSpec{
		ConsumerConfig: cfg, name: "echomq: consumer", op: "consume", target: s.key, recreateAt: start,
	})
	return cs, nil
}

func (cfg ConsumerConfig) withDefaults(c *Client) ConsumerConfig {
	if cfg.Name == "" {
		cfg.Name = DefaultConsumerName()
	}
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	defDur := func(v *time.Duration, d time.Duration) {
		if *v == 0 {
			*v = d
		}
	}
	def(&cfg.Count, defaultCount)
	def(&cfg.Concurrency, 1)
	def(&cfg.MaxDeliveries, defaultMaxDeliveries)
	def(&cfg.AckBatch, cfg.Count)
	defDur(&cfg.Beat, defaultBeat)
	defDur(&cfg.MinIdle, defaultMinIdle)
	defDur(&cfg.Grace, defaultGrace)
	if cfg.Logger == nil {
		cfg.Logger = c.cfg.Logger
	}
	return cfg
}

func (cfg ConsumerConfig) validate() error {
	bad := func(name, reason string) error { return &ArgumentError{Name: name, Reason: reason} }
	switch {
	case cfg.Handle == nil:
		return bad("handler", "Handle is required")
	case cfg.Start != StartNew && cfg.Start != StartHead:
		return bad("start", "must be StartNew or StartHead")
	case cfg.Count < 0, cfg.Concurrency < 0, cfg.AckBatch < 0:
		return bad("consumer config", "Count, Concurrency and AckBatch must not be negative")
	case cfg.Concurrency > maxConcurrency:
		return bad("concurrency", fmt.Sprintf("%d is above %d", cfg.Concurrency, maxConcurrency))
	case cfg.Count > maxCount:
		return bad("count", fmt.Sprintf("%d is above %d", cfg.Count, maxCount))
	case cfg.AckBatch > maxCount:
		return bad("ack batch", fmt.Sprintf("%d is above %d", cfg.AckBatch, maxCount))
	case cfg.Beat < time.Millisecond || cfg.Beat > maxBeat:
		return bad("beat", "must lie in [1ms, "+maxBeat.String()+"]")
	case cfg.MinIdle < time.Millisecond || cfg.MinIdle > maxMinIdle:
		return bad("min idle", "must lie in [1ms, "+maxMinIdle.String()+"]")
	case cfg.Grace < 0 || cfg.Grace > maxGrace:
		return bad("grace", "must lie in [0, "+maxGrace.String()+"]")
	case cfg.AckInterval < 0 || cfg.AckInterval > cfg.MinIdle/4:
		return bad("ack interval", "must lie in [0, MinIdle/4]")
	}
	return nil
}

// DefaultConsumerName returns "<hostname>-<pid>" with every byte outside
// the name grammar replaced by "-".
func DefaultConsumerName() string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "host"
	}
	b := []byte(host + "-" + strconv.Itoa(os.Getpid()))
	for i, ch := range b {
		if keyspace.Name("consumer", string(ch)) != nil {
			b[i] = '-'
		}
	}
	if len(b) > keyspace.MaxNameLen {
		b = b[len(b)-keyspace.MaxNameLen:]
	}
	return string(b)
}

// Run creates the group when missing (at Config.Start), then consumes until
// ctx ends:
//
//  1. it drains its own pending list (entries delivered to this name
//     before a crash or restart) in entry order, with a cursor that moves
//     past every entry it returned, so an entry that keeps failing cannot
//     hold the drain;
//  2. then, each Beat, it reclaims entries idle for MinIdle from any
//     consumer of the group (XAUTOCLAIM, resuming its scan where the last
//     one stopped), and blocks up to Beat for new entries (XREADGROUP …
//     BLOCK … >) on a connection of its own.
//
// When ctx ends it stops fetching, hands the fetched entries no handler has
// started back to the group (they stay pending, marked idle so that a peer
// takes them at once), lets running handlers finish for up to Grace, then
// cancels their contexts and waits for them, flushes the acknowledgements
// and returns nil.
//
// Run rides out the engine's outages: every failure matching
// [ErrUnavailable] (a restart, a hung engine, a partition, an engine
// loading or failing over), of the first XGROUP CREATE as of any later
// read, reclaim or acknowledgement, is retried with a backoff from 100ms
// to 2s, and logged once per outage on the consumer's Logger ("echomq:
// consumer: engine unavailable; retrying"), as is its end ("echomq:
// consumer: engine back"). A group that vanishes while Run runs (destroyed
// by hand, or lost with the engine's data) is logged and created again at
// Start. Run ends only when ctx ends (nil) or on a permanent error, and
// logs which. Errors: [ErrRunning] when the consumer is already
// running (by Run or [Consumer.Start]); [ErrWrongType] when the stream key
// holds something else; [ErrClosed] when the client is closed;
// [*ServerError].
func (c *Consumer) Run(ctx context.Context) error { return c.e.Run(ctx) }

// Start runs [Consumer.Run] in a goroutine the consumer owns and returns at
// once: it consumes until ctx ends or [Consumer.Stop] is called. It returns
// [ErrRunning] when the consumer is already running.
func (c *Consumer) Start(ctx context.Context) error { return c.e.Start(ctx) }

// Stop stops the consumer gracefully, as the end of Run's context does, and
// waits until it has stopped or ctx ends (then it returns ctx's error). It
// returns the error the run ended with, if any. Stopping a consumer that
// is not running does nothing.
func (c *Consumer) Stop(ctx context.Context) error { return c.e.Stop(ctx) }

// Stopped returns a channel closed when the consumer's run has ended
// (already closed before the first run).
func (c *Consumer) Stopped() <-chan struct{} { return c.e.Stopped() }

// Name returns the consumer's name within its group.
func (c *Consumer) Name() string { return c.cfg.Name }

// ConsumerStats are a consumer's counters since it was made.
type ConsumerStats struct {
	Delivered int64 // handler calls
	Acked     int64 // entries acknowledged after success (or trimmed)
	Failed    int64 // handler errors, panics included
	Panics    int64 // handler panics
	Dead      int64 // entries moved to the dead-letter stream
	Trimmed   int64 // pending entries whose data was trimmed: acknowledged, never handled
	Reclaimed int64 // entries taken over from idle pending lists
	Expired   int64 // fetched entries whose deadline passed before a handler was free: left pending
	Released  int64 // fetched entries handed back unhandled at stop
}

// Stats returns the consumer's counters.
func (c *Consumer) Stats() ConsumerStats {
	s := &c.e.stats
	return ConsumerStats{
		Delivered: s.delivered.Load(), Acked: s.acked.Load(), Failed: s.failed.Load(), Panics: s.panics.Load(),
		Dead: s.dead.Load(), Trimmed: s.trimmed.Load(), Reclaimed: s.reclaimed.Load(), Expired: s.expired.Load(),
		Released: s.released.Load(),
	}
}

// String names the consumer for logs.
func (c *Consumer) String() string {
	return fmt.Sprintf("consumer %s of group %s on %s", c.cfg.Name, c.cfg.Group, c.s.key)
}
