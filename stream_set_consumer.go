package echomq

import (
	"context"
	"log/slog"
	"time"

	"github.com/echomq/echomq/internal/keyspace"
)

// SetConsumerConfig configures [Client.SetConsumer]. Set, Group, Start and
// Handle are required; every other field has a working default.
type SetConsumerConfig struct {
	// Set is the streams to consume: a named set or a prefix set.
	Set *StreamSet
	// Group names the consumer group. It is one group per stream (the
	// engine's groups live inside each stream), all of the same name,
	// created when missing; entries are acknowledged per stream.
	Group string
	// Name is the consumer's name in the group. Defaults to
	// "<hostname>-<pid>".
	Name string
	// Start is where the group begins on each stream the consumer finds
	// when it starts, if the group has to be created there. A stream a
	// prefix set discovers later is always read from its head.
	// Required: [StartNew] or [StartHead].
	Start Start
	// Handle handles each delivery, one at a time, in merged entry-id order
	// across the streams. Required.
	Handle HandlerFunc
	// Count caps the entries one poll fetches per stream; it is also the
	// depth of the queue in front of the handler. Defaults to 1000
	// ([DefaultSetCount]).
	Count int
	// Beat is how often idle entries are reclaimed and how long a wait for
	// new entries lasts. Defaults to 1s.
	Beat time.Duration
	// MinIdle is the retry delay of a failed entry and the takeover delay
	// after a crash (see [ConsumerConfig.MinIdle]); a handler's context
	// ends a tenth of it before, counted from the handler's start, and a
	// stop lets a running handler finish for up to MinIdle. Defaults to
	// 30s.
	MinIdle time.Duration
	// MaxDeliveries moves an entry to its stream's dead letters after that
	// many failed deliveries (a [*DecodeError] at once). Defaults to 16;
	// negative disables dead-lettering.
	MaxDeliveries int
	// Settle and Discover are those of [SetFollowOpts]. Default to 500ms
	// and 1s.
	Settle, Discover time.Duration
	// Logger receives failures and dead letters. Defaults to the client's.
	Logger *slog.Logger
}

// SetConsumer consumes every stream of a [StreamSet] as one member of a
// consumer group, at least once, handing the entries to one handler in
// merged entry-id order across the streams (see [StreamSet.Follower] for
// the order's guarantee). Each stream keeps its own group state and
// pending list: an entry is acknowledged on its own stream, and a consumer
// restarted under the same name first drains its pending lists, merged. A
// failed entry is retried after MinIdle (or a handler's [RetryAfter]), out
// of order by nature. It has the service methods of [Consumer].
type SetConsumer struct {
	c   *Client
	cfg SetConsumerConfig
	e   *consumerEngine // everything but the merged read (consumer_engine.go)
}

// SetConsumerStats are a set consumer's counters.
type SetConsumerStats struct {
	Delivered, Acked, Failed, Dead, Reclaimed, Late int64
}

// SetConsumer validates cfg and returns a consumer ready to run. Errors:
// the set's own; a [*NameError] for a bad group or consumer name; an
// [*ArgumentError] for a missing set or handler, a zero Start or an option
// out of range (the ranges of [ConsumerConfig]).
func (c *Client) SetConsumer(cfg SetConsumerConfig) (*SetConsumer, error) {
	if cfg.Set == nil {
		return nil, opError("set consumer", "<nil>", &ArgumentError{Name: "set", Reason: "Set is required"})
	}
	fo, err := (&SetFollowOpts{Count: cfg.Count, Settle: cfg.Settle, Discover: cfg.Discover}).resolve()
	cc := ConsumerConfig{
		Queue: cfg.Set.queue, Group: cfg.Group, Name: cfg.Name, Start: cfg.Start, Handle: cfg.Handle,
		Count: fo.Count, Beat: cfg.Beat, MinIdle: cfg.MinIdle, MaxDeliveries: cfg.MaxDeliveries, Logger: cfg.Logger,
	}.withDefaults(c)
	cc.Grace = min(cc.MinIdle, MaxGrace) // a running handler's context ends before MinIdle anyway
	switch {
	case cfg.Set.err != nil:
		err = cfg.Set.err
	case err == nil:
		if err = keyspace.Name("group", cc.Group); err == nil {
			if err = checkConsumer(cc.Name); err == nil {
				err = cc.validate()
			}
		}
	}
	if err != nil {
		return nil, opError("set consumer", cfg.Set.String(), err)
	}
	cfg.Name, cfg.Count, cfg.Settle, cfg.Discover = cc.Name, fo.Count, fo.Settle, fo.Discover
	cfg.Beat, cfg.MinIdle, cfg.MaxDeliveries, cfg.Logger = cc.Beat, cc.MinIdle, cc.MaxDeliveries, cc.Logger
	log := cfg.Logger.With("set", cfg.Set.String(), "group", cfg.Group, "consumer", cfg.Name)
	sc := &SetConsumer{c: c, cfg: cfg}
	sc.e = newConsumerEngine(c, log, sc.source, consumerSpec{
		ConsumerConfig: cc, name: "echomq: set consumer", op: "set consume", target: cfg.Set.String(),
		perStream: true, fromStart: true, recreateAt: "0",
	})
	return sc, nil
}

// Run consumes until ctx ends or [SetConsumer.Stop] is called, then
// acknowledges what succeeded and returns nil.
//
// Run rides out the engine's outages as [Consumer.Run] does: every failure
// matching [ErrUnavailable] (a restart, a hung engine, a partition, an
// engine loading), of the first discovery and group creation as of any
// later poll, wait, reclaim or acknowledgement, is retried with a backoff
// from 100ms to 2s and logged once per outage on the Logger ("echomq: set
// consumer: engine unavailable; retrying"), as is its end ("echomq: set
// consumer: engine back"). An acknowledgement that fails so is retried
// until the stop, then three times more (an outage delays it; a reclaim
// meanwhile skips the entries awaiting it, so it does not turn into a
// redelivery). Running handlers are not disturbed; at the stop, fetched
// entries not handed to the handler yet go back to the group. A group
// that vanishes is logged and created again. Run ends only when ctx ends (nil, logged as "echomq: set
// consumer: stopped" with reason=context ended) or on a permanent error
// (returned, logged as "echomq: set consumer: stopped on a permanent
// error"). Errors: [ErrRunning], [ErrWrongType], [ErrClosed],
// [*ServerError].
func (sc *SetConsumer) Run(ctx context.Context) error { return sc.e.Run(ctx) }

// Start runs [SetConsumer.Run] in a goroutine the consumer owns.
func (sc *SetConsumer) Start(ctx context.Context) error { return sc.e.Start(ctx) }

// Stop stops the consumer and waits until it stopped or ctx ends; it
// returns the run's error.
func (sc *SetConsumer) Stop(ctx context.Context) error { return sc.e.Stop(ctx) }

// Stopped returns a channel closed when the run has ended.
func (sc *SetConsumer) Stopped() <-chan struct{} { return sc.e.Stopped() }

// Stats returns the consumer's counters.
func (sc *SetConsumer) Stats() SetConsumerStats {
	s := &sc.e.stats
	return SetConsumerStats{
		Delivered: s.delivered.Load(), Acked: s.acked.Load(), Failed: s.failed.Load(),
		Dead: s.dead.Load(), Reclaimed: s.reclaimed.Load(), Late: s.late.Load(),
	}
}

// setSource is a [SetConsumer]'s [fetchSource]: the streams of the set,
// each read first from the consumer's own pending list, merged in entry-id
// order.
type setSource struct {
	sc       *SetConsumer
	m        *merger
	streams  map[*setCursor]*stream
	nextScan time.Time
}

func (sc *SetConsumer) source() fetchSource {
	cfg := &sc.cfg
	return &setSource{
		sc: sc, streams: map[*setCursor]*stream{},
		m: &merger{set: cfg.Set, count: int64(cfg.Count), settle: cfg.Settle, group: cfg.Group, consumer: cfg.Name, byName: map[string]*setCursor{}},
	}
}

// prepare creates the group on streams not read yet (on a prefix set,
// every Discover) and starts their cursors on the consumer's own pending
// list.
func (src *setSource) prepare(r *run, first bool) (string, error) {
	set := src.sc.cfg.Set
	if !first && (!set.byPref || time.Now().Before(src.nextScan)) {
		return "", nil
	}
	names := set.names
	if set.byPref {
		now, err := set.c.conn.Time(r.io)
		if err != nil {
			return "discover", err
		}
		if names, err = set.discover(r.io); err != nil {
			return "discover", err
		}
		src.m.scanned = now / 1000 // TIME is in µs, the merge in ms
	}
	start, _ := src.sc.cfg.Start.entryID()
	if !first {
		start = "0" // found while running: read it whole
	}
	for _, n := range names {
		if _, ok := src.m.byName[n]; ok {
			continue
		}
		key := keyspace.StreamKey(set.queue, n)
		if _, err := set.c.conn.XGroupCreate(r.io, key, src.sc.cfg.Group, start); err != nil {
			return "discover", err
		}
		src.m.add(n, EntryID{}, true)
		c := src.m.byName[n]
		src.streams[c] = r.addStream(n, key, true, c)
	}
	src.nextScan = time.Now().Add(src.sc.cfg.Discover)
	return "", nil
}

// read polls every stream and dispatches the entries below the merge's
// horizon in merged order; when there are none, it waits for new entries
// until the next reclaim, discovery or settle horizon is due.
func (src *setSource) read(r *run) (string, error) {
	m := src.m
	err := m.poll(r.io)
	for c, s := range src.streams {
		s.draining = c.draining // a failed poll drains again
	}
	if err != nil {
		return "poll", err
	}
	r.e.watch.OK()
	h := m.horizon()
	fs := r.scratch[:0]
	var since time.Time
	for {
		ev, c, ok := m.next(h)
		if !ok {
			break
		}
		attempts := int64(1)
		if c.bufPending {
			attempts = 0
		}
		if since.IsZero() || c.bufAt.Before(since) {
			since = c.bufAt
		}
		fs = append(fs, fetched{src.streams[c], ev.Entry.String(), ev, attempts})
	}
	r.e.stats.late.Store(m.late)
	r.scratch = fs[:0]
	if len(fs) > 0 {
		r.dispatchPending(fs, since)
		return "", nil
	}
	cfg := &src.sc.cfg
	d := min(cfg.Beat, max(time.Until(r.claimed.Add(cfg.Beat)), time.Millisecond))
	if held, due := m.held(); held {
		d = min(d, max(due, time.Millisecond))
	}
	if cfg.Set.byPref {
		d = min(d, max(time.Until(src.nextScan), time.Millisecond))
	}
	wctx, cancel := context.WithTimeout(r.stop, d+readSlack)
	err = m.wait(wctx, d)
	cancel()
	if err != nil && r.stop.Err() == nil {
		return "wait", err
	}
	return "", nil
}
