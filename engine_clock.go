package echomq

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/echomq/echomq/internal/wire"
)

// The engine's clock is the time truth of every stream: a receipt's mint
// instant is never more than a few milliseconds ahead of it. A client keeps
// a reading of it (from TIME at connect and from every append script's
// reply) and lets a locally minted id go to the engine as a plain XADD only
// when the id is not ahead of the reading (carried forward on the monotonic
// clock) by more than fastLead. Otherwise, and on a stream where another
// writer got above this one recently, the append script chooses the id.
const (
	// fastLead is how far ahead of the engine's clock a locally minted id
	// may lie and still be sent as a plain XADD.
	fastLead = 2 * time.Millisecond
	// clockFresh is how long a reading is trusted; after it the next append
	// goes through the script, which brings a new one.
	clockFresh = time.Second
	// clockRenew is how long a reading is kept against a later, looser
	// one (see observe): on a loaded machine most replies are read late,
	// and half a second nearly always holds a quick one. The monotonic
	// clock and the engine's drift apart by microseconds in that time.
	clockRenew = 500 * time.Millisecond
	// hotFor is how long a stream stays with the script after a plain XADD
	// to it was refused: under contention every refusal would cost a round
	// trip, inside the script it costs none.
	hotFor = time.Second
	// hotSlots is the size of the table of hot streams (a hash of the key
	// picks the slot; a collision only sends another stream to the script).
	hotSlots = 256
)

// engineClock is a client's reading of the engine's clock.
type engineClock struct {
	base    time.Time // monotonic anchor of every duration below
	reading atomic.Pointer[clockReading]
	hot     [hotSlots]atomic.Int64 // per slot: until when (since base) the stream is hot
	// own is per slot the last id the engine chose for this client on a
	// stream of that slot (a snowflake of node 1023, 0 for none): a top
	// equal to it is this client's own append, not another writer's.
	own [hotSlots]atomic.Int64
	// sent is per slot the highest id this client sent as a plain XADD to
	// a stream of that slot: a refusal of a lower id is an own race (a
	// later append of this client reached the engine first), not another
	// writer above.
	sent [hotSlots]atomic.Int64
}

// clockReading anchors the engine's clock to the monotonic clock as a lower
// bound: the engine read engineUs at some instant between send and reply,
// so at the reply (at) its clock was at least engineUs. A midpoint would be
// a better guess on average but can overshoot by half a round trip, and on
// a loaded machine a request that waits to be written makes that several
// milliseconds: plain XADDs judged by an overshooting reading would put a
// stream's top ahead of the engine's clock. An undershoot only sends an
// append to the script, which reads the clock itself.
type clockReading struct {
	at       time.Duration // since base, when the reply was received
	engineUs int64         // the engine's clock at some instant before at, Unix microseconds
}

func newEngineClock() *engineClock { return &engineClock{base: time.Now()} }

// since returns the monotonic time since base.
func (e *engineClock) since() time.Duration { return time.Since(e.base) }

// observe records a reading the engine gave before recv. It
// replaces the current one when it bounds the engine's clock more tightly
// (a quicker reply) or when the current one is older than clockRenew, so
// that a step of the engine's clock is seen within clockRenew.
func (e *engineClock) observe(recv time.Duration, engineUs int64) {
	next := &clockReading{at: recv, engineUs: engineUs}
	for {
		cur := e.reading.Load()
		if cur != nil && recv-cur.at < clockRenew && next.bound() < cur.bound() {
			return
		}
		if e.reading.CompareAndSwap(cur, next) {
			return
		}
	}
}

// bound returns the reading as engine time minus monotonic time: the
// larger, the tighter the lower bound it gives at any later instant.
func (r *clockReading) bound() int64 { return r.engineUs - int64(r.at/time.Microsecond) }

// nowMs returns the engine's clock in Unix ms carried forward from the last
// reading, and whether the reading is fresh.
func (e *engineClock) nowMs(at time.Duration) (int64, bool) {
	r := e.reading.Load()
	if r == nil {
		return 0, false
	}
	d := at - r.at
	return (r.engineUs + int64(d/time.Microsecond)) / 1000, d < clockFresh
}

// fast reports whether id may go to key as a plain XADD: the reading is
// fresh, id is at most fastLead ahead of it and key is not hot.
func (e *engineClock) fast(key string, id ID) bool {
	at := e.since()
	now, fresh := e.nowMs(at)
	if !fresh || id.snow.unixMilli() > now+fastLead.Milliseconds() {
		return false
	}
	return !e.isHot(key, at)
}

func (e *engineClock) isHot(key string, at time.Duration) bool {
	return e.hot[hotSlot(key)].Load() > int64(at)
}

// mode returns the append script's mode for key.
func (e *engineClock) mode(key string) byte {
	if e.isHot(key, e.since()) {
		return wire.ModeContended
	}
	return wire.ModeArbitrate
}

// noteOwn records that the engine chose id for this client on key.
func (e *engineClock) noteOwn(key string, id ID) {
	slot := &e.own[hotSlot(key)]
	for {
		old := slot.Load()
		if old >= int64(id.snow) || slot.CompareAndSwap(old, int64(id.snow)) {
			return
		}
	}
}

// noteSent records that id goes to key as a plain XADD.
func (e *engineClock) noteSent(key string, id ID) {
	slot := &e.sent[hotSlot(key)]
	for {
		old := slot.Load()
		if old >= int64(id.snow) || slot.CompareAndSwap(old, int64(id.snow)) {
			return
		}
	}
}

// ownRace reports whether a plain XADD of id to key refused as not above
// the top met one of this client's own later appends.
func (e *engineClock) ownRace(key string, id ID) bool {
	return e.sent[hotSlot(key)].Load() > int64(id.snow)
}

// ownTop returns the entry id of the last id the engine chose for this
// client on key ("" for none).
func (e *engineClock) ownTop(key string) string {
	if snow := Snowflake(e.own[hotSlot(key)].Load()); snow != 0 {
		return snow.EntryID().String()
	}
	return ""
}

// markHot sends key to the script for hotFor.
func (e *engineClock) markHot(key string) {
	e.hot[hotSlot(key)].Store(int64(e.since() + hotFor))
}

func hotSlot(key string) int {
	h := uint32(2166136261)
	for i := range len(key) {
		h = (h ^ uint32(key[i])) * 16777619
	}
	return int(h % hotSlots)
}

// read takes a new reading with TIME.
func (c *Client) readEngineClock(ctx context.Context) error {
	us, err := c.conn.Time(ctx)
	if err != nil {
		return err
	}
	c.eclock.observe(c.eclock.since(), us)
	return nil
}

// EngineTime returns the engine's clock (TIME), one round trip.
func (c *Client) EngineTime(ctx context.Context) (time.Time, error) {
	if c.isClosed() {
		return time.Time{}, ErrClosed
	}
	us, err := c.conn.Time(ctx)
	if err != nil {
		return time.Time{}, err
	}
	c.eclock.observe(c.eclock.since(), us)
	return time.UnixMicro(us).UTC(), nil
}

// engineNowMs returns the engine's clock in Unix ms, from the reading when
// it is fresh, else from a new one.
func (c *Client) engineNowMs(ctx context.Context) (int64, error) {
	if now, fresh := c.eclock.nowMs(c.eclock.since()); fresh {
		return now, nil
	}
	if err := c.readEngineClock(ctx); err != nil {
		return 0, err
	}
	now, _ := c.eclock.nowMs(c.eclock.since())
	return now, nil
}

// appendStats are a client's append counters since it connected.
type appendStats struct {
	// Records is how many records were appended (receipts returned, a
	// deduplicated repeat included).
	Records int64
	// Plain is how many of them went as a plain XADD of a locally minted id.
	Plain int64
	// Scripts is how many append scripts ran (each one round trip).
	Scripts int64
	// Refused is how many plain XADDs the engine refused as not above the
	// stream top; each cost one extra round trip (the script after it).
	Refused int64
	// Arbitrated is how many proposed ids the script replaced by an id of
	// its choosing (inside the script: no extra round trip).
	Arbitrated int64
	// Contended is how many times a stream turned contended: the script
	// found a top written by another node above a proposal, so the
	// stream's appends went to the script for a while. A client's own
	// goroutines racing each other never count here.
	Contended int64
}

type appendCounters struct {
	records, plain, scripts, refused, arbitrated, contended atomic.Int64
}

// appendStats returns the client's append counters.
func (c *Client) appendStats() appendStats {
	s := &c.astats
	return appendStats{
		Records: s.records.Load(), Plain: s.plain.Load(), Scripts: s.scripts.Load(),
		Refused: s.refused.Load(), Arbitrated: s.arbitrated.Load(), Contended: s.contended.Load(),
	}
}
