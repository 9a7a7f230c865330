package echomq

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/echomq/echomq/internal/keyspace"
	"github.com/echomq/echomq/internal/outage"
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
	// Count caps the entries one poll fetches per stream. Defaults to 100.
	Count int
	// Beat is how often idle entries are reclaimed and how long a wait for
	// new entries lasts. Defaults to 1s.
	Beat time.Duration
	// MinIdle is the retry delay of a failed entry and the takeover delay
	// after a crash (see [ConsumerConfig.MinIdle]); a handler's context
	// ends a tenth of it before. Defaults to 30s.
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
	e   *consumerEngine // everything but the merged fetch loop (consumer_engine.go)
}

// SetConsumerStats are a set consumer's counters.
type SetConsumerStats struct {
	Delivered, Acked, Failed, Dead, Reclaimed, Late int64
}

// SetConsumer validates config (nil: an empty one) and returns a consumer ready to run. Errors:
// the set's own; a [*NameError] for a bad group or consumer name; an
// [*ArgumentError] for a missing set or handler, a zero Start or an option
// out of range.
func (c *Client) SetConsumer(config *SetConsumerConfig) (*SetConsumer, error) {
	var cfg SetConsumerConfig
	if config != nil {
		cfg = *config
	}
	if cfg.Name == "" {
		cfg.Name = DefaultConsumerName()
	}
	if cfg.Logger == nil {
		cfg.Logger = c.cfg.Logger
	}
	err := cfg.check()
	if err != nil {
		set := "<nil>"
		if cfg.Set != nil {
			set = cfg.Set.String()
		}
		return nil, opError("set consumer", set, err)
	}
	fo, _ := (&SetFollowOpts{Count: cfg.Count, Settle: cfg.Settle, Discover: cfg.Discover}).resolve()
	cfg.Count, cfg.Settle, cfg.Discover = fo.Count, fo.Settle, fo.Discover
	if cfg.Beat == 0 {
		cfg.Beat = defaultBeat
	}
	if cfg.MinIdle == 0 {
		cfg.MinIdle = defaultMinIdle
	}
	if cfg.MaxDeliveries == 0 {
		cfg.MaxDeliveries = defaultMaxDeliveries
	}
	log := cfg.Logger.With("set", cfg.Set.String(), "group", cfg.Group, "consumer", cfg.Name)
	sc := &SetConsumer{c: c, cfg: cfg}
	sc.e = newConsumerEngine(c, log, sc, consumerSpec{
		name: "echomq: set consumer", op: "set consume", target: cfg.Set.String(),
		queue: cfg.Set.queue, group: cfg.Group, consumer: cfg.Name, handle: cfg.Handle,
		maxDeliveries: cfg.MaxDeliveries, minIdle: cfg.MinIdle, perStream: true,
	})
	return sc, nil
}

func (cfg *SetConsumerConfig) check() error {
	bad := func(name, reason string) error { return &ArgumentError{Name: name, Reason: reason} }
	switch {
	case cfg.Set == nil:
		return bad("set", "Set is required")
	case cfg.Set.err != nil:
		return cfg.Set.err
	case cfg.Handle == nil:
		return bad("handler", "Handle is required")
	case cfg.Start != StartNew && cfg.Start != StartHead:
		return bad("start", "must be StartNew or StartHead")
	case cfg.Beat < 0 || cfg.Beat > maxBeat:
		return bad("beat", "must lie in [0, "+maxBeat.String()+"]")
	case cfg.MinIdle < 0 || cfg.MinIdle > maxMinIdle:
		return bad("min idle", "must lie in [0, "+maxMinIdle.String()+"]")
	}
	if err := keyspace.Name("group", cfg.Group); err != nil {
		return err
	}
	if err := checkConsumer(cfg.Name); err != nil {
		return err
	}
	_, err := (&SetFollowOpts{Count: cfg.Count, Settle: cfg.Settle, Discover: cfg.Discover}).resolve()
	return err
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
// consumer: engine back"). An acknowledgement that fails so stays buffered
// and is sent again before the next reclaim (an outage delays it, it does
// not turn it into a redelivery), and three more times at the stop.
// Running handlers are not disturbed. A group that vanishes is logged and
// created again. Run ends only when ctx ends (nil, logged as "echomq: set
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

// setRun is one Run of a set consumer.
type setRun struct {
	sc      *SetConsumer
	e       *consumerEngine
	stop    context.Context
	io      context.Context
	m       *merger
	acks    map[*setCursor][]string
	claimAt map[*setCursor]string // XAUTOCLAIM cursors
	back    outage.Backoff        // the loop's retries
}

// consume is the set consumer's source of entries for its engine: the
// merged loop, then the last flush of the acknowledgements.
func (sc *SetConsumer) consume(ctx context.Context) error {
	r := &setRun{sc: sc, e: sc.e, stop: ctx, io: context.WithoutCancel(ctx), acks: map[*setCursor][]string{}, claimAt: map[*setCursor]string{}}
	r.m = &merger{set: sc.cfg.Set, count: int64(sc.cfg.Count), settle: sc.cfg.Settle, group: sc.cfg.Group, consumer: sc.cfg.Name, byName: map[string]*setCursor{}}
	err := r.loop()
	r.flush(true)
	if ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
		err = nil
	}
	return err
}

func (r *setRun) loop() error {
	cfg := &r.sc.cfg
	first := true
	var nextScan, nextClaim time.Time
	for r.stop.Err() == nil {
		if first || (cfg.Set.byPref && !time.Now().Before(nextScan)) {
			if err := r.discover(first); err != nil {
				if err = r.retry("discover", err); err != nil {
					return err
				}
				continue
			}
			first, nextScan = false, time.Now().Add(cfg.Discover)
		}
		if !time.Now().Before(nextClaim) {
			nextClaim = time.Now().Add(cfg.Beat)
			// Acks an outage held back go first: an entry handled and not
			// acknowledged for MinIdle would otherwise be reclaimed.
			r.flush(false)
			if err := r.reclaim(); err != nil {
				if err = r.retry("reclaim", err); err != nil {
					return err
				}
				continue
			}
		}
		if err := r.m.poll(r.io); err != nil {
			if err = r.retry("poll", err); err != nil {
				return err
			}
			continue
		}
		r.e.watch.OK()
		r.back.Reset()
		h := r.m.horizon()
		n := 0
		for r.stop.Err() == nil {
			ev, c, ok := r.m.next(h)
			if !ok {
				break
			}
			n++
			r.deliver(c, ev, 1)
		}
		r.e.stats.late.Store(r.m.late)
		r.flush(false)
		if n > 0 {
			continue
		}
		d := min(cfg.Beat, max(time.Until(nextClaim), time.Millisecond))
		if held, due := r.m.held(); held {
			d = min(d, max(due, time.Millisecond))
		}
		if cfg.Set.byPref {
			d = min(d, max(time.Until(nextScan), time.Millisecond))
		}
		wctx, cancel := context.WithTimeout(r.stop, d+readSlack)
		err := r.m.wait(wctx, d)
		cancel()
		if err != nil && r.stop.Err() == nil {
			if err = r.retry("wait", err); err != nil {
				return err
			}
		}
	}
	return nil
}

// discover creates the group on streams not read yet and starts their
// cursors on the consumer's own pending list.
func (r *setRun) discover(first bool) error {
	set := r.sc.cfg.Set
	names := set.names
	if set.byPref {
		now, err := set.c.conn.Time(r.io)
		if err != nil {
			return err
		}
		if names, err = set.discover(r.io); err != nil {
			return err
		}
		r.m.scanned = now / 1000 // TIME is in µs, the merge in ms
	}
	start, _ := r.sc.cfg.Start.entryID()
	if !first {
		start = "0" // found while running: read it whole
	}
	for _, n := range names {
		if _, ok := r.m.byName[n]; ok {
			continue
		}
		if _, err := set.c.conn.XGroupCreate(r.io, keyspace.StreamKey(set.queue, n), r.sc.cfg.Group, start); err != nil {
			return err
		}
		r.m.add(n, EntryID{}, true)
	}
	return nil
}

// origin returns where c's entries come from, as settling them needs it.
func (r *setRun) origin(c *setCursor) origin {
	return origin{name: c.name, key: c.key}
}

// deliver runs the handler on one entry and settles it on the engine.
func (r *setRun) deliver(c *setCursor, ev Event, attempts int64) {
	cfg := &r.sc.cfg
	if ev.Fields == nil && ev.ID.IsZero() {
		r.acks[c] = append(r.acks[c], ev.Entry.String()) // trimmed while pending
		return
	}
	if c.draining || attempts > 1 {
		attempts = r.attempts(c, ev.Entry, attempts)
	}
	d := Delivery{Event: ev, Attempts: attempts, Queue: cfg.Set.queue, Stream: c.name, Group: cfg.Group, Consumer: cfg.Name}
	o := r.origin(c)
	if r.e.overLimit(r.io, o, d) {
		return
	}
	hctx, cancel := context.WithTimeout(r.io, cfg.MinIdle-cfg.MinIdle/10)
	err := r.e.call(hctx, d)
	cancel()
	if err == nil {
		r.acks[c] = append(r.acks[c], ev.Entry.String())
		return
	}
	r.e.failed(r.io, o, ev.Entry.String(), d, err)
}

// attempts asks the engine for an entry's delivery count (a drained or
// reclaimed entry), falling back to def.
func (r *setRun) attempts(c *setCursor, e EntryID, def int64) int64 {
	rows, err := r.sc.c.conn.XPendingIDs(r.io, c.key, r.sc.cfg.Group, []string{e.String()})
	if row, ok := rows[e.String()]; err == nil && ok {
		return row.Deliveries
	}
	return def
}

// reclaim takes over entries idle for MinIdle on every stream and delivers
// them at once: retries, outside the merged order.
func (r *setRun) reclaim() error {
	cfg := &r.sc.cfg
	for _, c := range r.m.curs {
		if c.draining {
			continue // its own pending list comes first, in order
		}
		cur := r.claimAt[c]
		if cur == "" {
			cur = "0-0"
		}
		ac, err := r.e.reclaim(r.io, r.origin(c), cur, int64(cfg.Count))
		if err != nil {
			return err
		}
		r.claimAt[c] = ac.Next
		evs, err := decodeEvents(ac.Entries)
		if err != nil {
			return err
		}
		held := r.ours(c)
		for _, ev := range evs {
			if held[ev.Entry] {
				continue // already this run's: the merge hands it out, or its ack is held back
			}
			r.e.stats.reclaimed.Add(1)
			r.deliver(c, ev, 2)
		}
	}
	return nil
}

// ours returns the entries of c this run holds: fetched and not handed out
// yet, or handled with their ack not sent. After a long outage they are
// idle past MinIdle like an entry a crashed peer left, and a reclaim takes
// them back too; delivering them again would repeat them.
func (r *setRun) ours(c *setCursor) map[EntryID]bool {
	held := make(map[EntryID]bool, len(c.buf)+len(r.acks[c]))
	for _, ev := range c.buf {
		held[ev.Entry] = true
	}
	for _, id := range r.acks[c] {
		if e, err := ParseEntryID(id); err == nil {
			held[e] = true
		}
	}
	return held
}

// flush acknowledges what succeeded, per stream. An ack that fails with a
// transient error stays buffered for the next flush (the outage logged
// once), unless this is the last flush of the run, which tries three times
// (see [consumerEngine.ack]); entries whose ack is given up stay pending and are
// delivered again (at least once). The last flush takes settleTimeout at
// most in all, so a stop against a hung engine is not held by one wait per
// stream.
func (r *setRun) flush(last bool) {
	base, mode := r.io, ackKeep
	if last {
		var cancel context.CancelFunc
		base, cancel = context.WithTimeout(r.io, settleTimeout)
		defer cancel()
		mode = ackLast
	}
	for c, ids := range r.acks {
		if len(ids) == 0 || !r.e.ack(base, r.stop, r.origin(c), ids, mode) {
			delete(r.acks, c)
		}
	}
}

// retry handles a failed engine call of the loop (see [consumerEngine.retry]); a
// group that vanished is created again on every stream.
func (r *setRun) retry(what string, err error) error {
	if r.stop.Err() != nil {
		return nil
	}
	return r.e.retry(r.stop, &r.back, what, err, func() error {
		for _, c := range r.m.curs {
			if _, err := r.sc.c.conn.XGroupCreate(r.io, c.key, r.sc.cfg.Group, "0"); err != nil {
				return err
			}
		}
		return nil
	})
}
