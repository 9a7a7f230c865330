package echomq

import (
	"context"
	"iter"
	"log/slog"
	"sync"
	"time"

	"github.com/echomq/echomq/internal/keyspace"
)

// Defaults of [SetFollowOpts] (and of the set consumer's matching fields).
const (
	defaultSetCount     = 1000
	defaultSettle       = 500 * time.Millisecond
	defaultDiscover     = time.Second
	defaultSetBlock     = 5 * time.Second
	maxSettleOrDiscover = time.Hour
)

// SetFollowOpts configure [StreamSet.Follower]; nil means the defaults.
type SetFollowOpts struct {
	// From resumes from a checkpoint: each stream named in it continues
	// right after its entry. Defaults to nil.
	From Checkpoint
	// Start is where a stream not in From begins when the follower starts:
	// [StartNew] (the default) after its newest entry, [StartHead] at its
	// oldest. A stream that a prefix set discovers later always begins at
	// its head, so a stream created while following is read whole.
	Start Start
	// Count caps the entries one poll fetches per stream; memory is bounded
	// by Count × streams. Defaults to 100.
	Count int
	// Settle is how long a stream may stay idle before the merge stops
	// waiting on it: an entry is handed out once every stream has moved
	// past it or has been idle for Settle, so an idle stream delays the
	// others by Settle at most. An append that reaches an idle stream more
	// than Settle after its id was minted is handed out late, out of order
	// (counted in [SetStats].Late). Defaults to 500ms.
	Settle time.Duration
	// Discover is how often a prefix set looks for new streams (see
	// [StreamSet] for the cost); the merge also waits on streams not found
	// yet, so it lags the newest entries by up to Discover + Settle.
	// Defaults to 1s.
	Discover time.Duration
	// Block is how long one wait for new entries lasts before it is
	// re-issued. Defaults to 5s.
	Block time.Duration
	// Logger receives the follower's outage and recovery lines. Defaults
	// to Config.Logger.
	Logger *slog.Logger
}

func (o *SetFollowOpts) resolve() (SetFollowOpts, error) {
	r := SetFollowOpts{Start: StartNew, Count: defaultSetCount, Settle: defaultSettle, Discover: defaultDiscover, Block: defaultSetBlock}
	if o == nil {
		return r, nil
	}
	if o.Count < 0 || o.Count > maxCount {
		return r, &ArgumentError{Name: "count", Reason: "must lie in [0, 100000]"}
	}
	for _, d := range []time.Duration{o.Settle, o.Discover, o.Block} {
		if d < 0 || d > maxSettleOrDiscover {
			return r, &ArgumentError{Name: "set follow options", Reason: "Settle, Discover and Block must lie in [0, 1h]"}
		}
	}
	if o.Start != 0 && o.Start != StartNew && o.Start != StartHead {
		return r, &ArgumentError{Name: "start", Reason: "must be StartNew or StartHead"}
	}
	r.From, r.Logger = o.From, o.Logger
	if o.Start != 0 {
		r.Start = o.Start
	}
	if o.Count > 0 {
		r.Count = o.Count
	}
	if o.Settle > 0 {
		r.Settle = o.Settle
	}
	if o.Discover > 0 {
		r.Discover = o.Discover
	}
	if o.Block > 0 {
		r.Block = o.Block
	}
	return r, nil
}

// SetEvent is one event of a merged read, with the name of its stream.
type SetEvent struct {
	Event
	Stream string
}

// SetStats are a merged reader's counters.
type SetStats struct {
	Delivered int64 // events handed out
	Late      int64 // events handed out after a younger one (see SetFollowOpts.Settle)
	Streams   int   // streams being read
	Polls     int64 // round trips that read
}

// SetFollower follows every stream of a [StreamSet] as one log in entry-id
// order, with a checkpoint per stream. Make one with [StreamSet.Follower];
// iterate [SetFollower.Follow] on one goroutine at a time. Checkpoint and
// Stats are safe to call from any goroutine, the loop body included.
type SetFollower struct {
	set  *StreamSet
	opts SetFollowOpts
	log  *slog.Logger

	mu      sync.Mutex
	cp      Checkpoint
	stats   SetStats
	running bool
}

// Follower returns a follower of the set with opts. Errors (before any
// I/O): the set's own; an [*ArgumentError] for an option out of range; a
// [*NameError] for a bad stream name in opts.From.
func (s *StreamSet) Follower(opts *SetFollowOpts) (*SetFollower, error) {
	if s.err != nil {
		return nil, opError("follow", s.String(), s.err)
	}
	o, err := opts.resolve()
	if err == nil {
		for name := range o.From {
			if err = keyspace.Stream(name); err != nil {
				break
			}
		}
	}
	if err != nil {
		return nil, opError("follow", s.String(), err)
	}
	log := o.Logger
	if log == nil {
		log = s.c.cfg.Logger
	}
	return &SetFollower{set: s, opts: o, log: log, cp: o.From.clone()}, nil
}

// Checkpoint returns the position after the last event the loop was given:
// per stream, the last entry handed out or where the stream started. Save it
// after handling an event and pass it as SetFollowOpts.From to resume.
func (f *SetFollower) Checkpoint() Checkpoint {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.cp.clone()
}

// Stats returns the follower's counters.
func (f *SetFollower) Stats() SetStats {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.stats
}

// Follow yields the set's events in entry-id order across its streams,
// first those stored after the starting positions, then new ones as they
// are appended, until ctx ends (the iteration then ends without an error)
// or the loop stops. A second Follow of the same follower resumes where the
// first stopped. Streams a prefix set discovers while following are read
// from their head, merged in place.
//
// Transport failures do not end it: the contract of [Stream.Follow]. When
// a discovery, poll or wait fails with an error matching [ErrUnavailable]
// (the engine restarted, is unreachable, hung past Config.CallTimeout, or
// is loading), Follow yields that error once for the outage (a zero
// SetEvent with it) and, if the loop goes on, retries by itself with a
// backoff from 100ms to 2s, logging the outage and its end once each on
// SetFollowOpts.Logger ("echomq: set follow: engine unavailable; retrying"
// and "echomq: set follow: engine back"); when the engine answers again it
// resumes from every stream's position, so no event is skipped or
// repeated. A loop that wants to give up on an outage breaks on
// errors.Is(err, ErrUnavailable). A closed client ends it with
// [ErrClosed]; any other error ends it after being yielded once.
func (f *SetFollower) Follow(ctx context.Context) iter.Seq2[SetEvent, error] {
	return func(yield func(SetEvent, error) bool) {
		f.mu.Lock()
		busy := f.running
		f.running = true
		f.mu.Unlock()
		if busy {
			yield(SetEvent{}, opError("follow", f.set.String(), ErrRunning))
			return
		}
		defer func() { f.mu.Lock(); f.running = false; f.mu.Unlock() }()
		f.follow(ctx, yield)
	}
}

func (f *SetFollower) follow(ctx context.Context, yield func(SetEvent, error) bool) {
	m := &merger{set: f.set, count: int64(f.opts.Count), settle: f.opts.Settle, byName: map[string]*setCursor{}}
	out := newFollowOutage[SetEvent](f.set.c, f.log, "echomq: set follow", "set", f.set.String())
	fail := func(op string, err error) bool {
		if ctx.Err() != nil {
			return false
		}
		return out.failed(ctx, op, err, yield)
	}
	first := true
	var nextScan time.Time
	for ctx.Err() == nil {
		if first || (f.set.byPref && !time.Now().Before(nextScan)) {
			if err := f.discover(ctx, m, first); err != nil {
				if !fail("discover", err) {
					return
				}
				continue
			}
			first = false
			nextScan = time.Now().Add(f.opts.Discover)
		}
		if err := m.poll(ctx); err != nil {
			if !fail("poll", err) {
				return
			}
			continue
		}
		out.ok()
		f.mu.Lock()
		f.stats.Polls++
		f.stats.Streams = len(m.curs)
		f.mu.Unlock()
		h := m.horizon()
		n := 0
		for {
			ev, c, ok := m.next(h)
			if !ok {
				break
			}
			n++
			f.mu.Lock()
			f.cp[c.name] = ev.Entry
			f.stats.Delivered++
			f.stats.Late = m.late
			f.mu.Unlock()
			if !yield(SetEvent{Event: ev, Stream: c.name}, nil) {
				return
			}
		}
		if n > 0 {
			continue
		}
		d := f.opts.Block
		if held, due := m.held(); held {
			d = min(d, max(due, time.Millisecond))
		}
		if f.set.byPref {
			d = min(d, max(time.Until(nextScan), time.Millisecond))
		}
		if err := m.wait(ctx, d); err != nil && !fail("wait", err) {
			return
		}
	}
}

// discover adds the cursors of streams not read yet: at the first call the
// starting positions (checkpoint, else Start), later always the head.
func (f *SetFollower) discover(ctx context.Context, m *merger, first bool) error {
	names := f.set.names
	if f.set.byPref {
		now, err := f.set.c.conn.Time(ctx)
		if err != nil {
			return err
		}
		if names, err = f.set.discover(ctx); err != nil {
			return err
		}
		m.scanned = now / 1000 // TIME is in µs, the merge in ms
	}
	var fresh []string
	for _, n := range names {
		if _, ok := m.byName[n]; ok {
			continue
		}
		if from, ok := f.cp[n]; ok {
			m.add(n, from, false)
			continue
		}
		if first && f.opts.Start == StartNew {
			fresh = append(fresh, n)
			continue
		}
		f.mu.Lock()
		f.cp[n] = EntryID{}
		f.mu.Unlock()
		m.add(n, EntryID{}, false)
	}
	if len(fresh) == 0 {
		return nil
	}
	return f.startAtTop(ctx, m, fresh)
}

// startAtTop starts the named streams after their newest entries.
func (f *SetFollower) startAtTop(ctx context.Context, m *merger, names []string) error {
	tmp := &merger{set: f.set, byName: map[string]*setCursor{}}
	for _, n := range names {
		tmp.add(n, EntryID{}, false)
		tmp.curs[len(tmp.curs)-1].buf = []Event{{}} // non-empty: poll reads only the top
	}
	if err := tmp.poll(ctx); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, c := range tmp.curs {
		f.cp[c.name] = c.top
		m.add(c.name, c.top, false)
	}
	return nil
}
