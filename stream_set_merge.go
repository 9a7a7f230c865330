package echomq

import (
	"context"
	"math"
	"sort"
	"time"

	"github.com/echomq/echomq/internal/keyspace"
	"github.com/echomq/echomq/internal/wire"
)

// maxEntry is above every entry id: the position that never wakes a read.
var maxEntry = EntryID{Ms: math.MaxUint64, Seq: math.MaxUint64}

// setCursor is one stream of a merged read: what was fetched and not yet
// handed out, and what is known of the entries still to come.
type setCursor struct {
	name, key  string
	pos        string    // the next read's position (an id; ">" in a group once drained)
	after      EntryID   // the last entry fetched
	buf        []Event   // fetched, not handed out, ascending
	top        EntryID   // the stream's newest entry at the last poll
	truncated  bool      // the last read stopped at its count: more is stored above after
	draining   bool      // a group cursor still reading its own pending list
	done       EntryID   // the last entry handed out (the checkpoint)
	bufAt      time.Time // when buf was fetched
	bufPending bool      // buf came from the own pending list (a group's drain)
}

// bound is the entry id every entry of the stream still to be fetched lies
// above: the last fetched one while more is stored (the read stopped at its
// count, or the top moved past it); otherwise the stream's
// top (the engine never appends below it) or, for a stream idle longer
// than the settle time, the settle horizon.
func (c *setCursor) bound(settled EntryID) EntryID {
	if c.truncated || c.draining || c.top.Compare(c.after) > 0 {
		return c.after // stored entries above after are not fetched yet
	}
	if c.top.Compare(settled) > 0 {
		return c.top
	}
	return settled
}

// merger merges the entries of several streams of one queue in entry-id
// order: it hands out an entry only when no stream can still produce a
// smaller one (see setCursor.bound), so the order is exact whatever the
// writers' timing, except for an append that reaches a stream idle for
// longer than Settle with an id older than Settle (counted as late and
// handed out at once).
type merger struct {
	set      *StreamSet
	count    int64
	settle   time.Duration
	group    string // "" for a plain read
	consumer string

	curs    []*setCursor
	byName  map[string]*setCursor
	last    EntryID // the last entry handed out
	now     int64   // the engine's clock at the last poll (Unix ms)
	scanned int64   // engine ms at the start of the last discovery, for prefix sets
	late    int64
	polled  time.Time     // when the last poll began
	clockUs int64         // the merge's reading of the engine's clock (TIME, Unix µs)
	clockAt time.Duration // when its reply came back (the client's monotonic clock); 0: none
}

// engineNow returns a lower bound of the engine's clock in Unix ms. A
// reading is taken as of the moment its reply came back, the latest its
// TIME can have run, so the clock carried forward from it is never ahead
// of the engine's, even when the round trip straddled an outage (sent
// before, answered after a restart or a pause) or a slow link: a clock
// ahead would move the settle horizon past appends still on their way and
// hand them out late. The reading is renewed every clockFresh.
func (m *merger) engineNow(ctx context.Context) (int64, error) {
	e := m.set.c.eclock
	if m.clockAt == 0 || e.since()-m.clockAt >= clockFresh {
		us, err := m.set.c.conn.Time(ctx)
		if err != nil {
			return 0, err
		}
		m.clockUs, m.clockAt = us, e.since()
	}
	return (m.clockUs + int64((e.since()-m.clockAt)/time.Microsecond)) / 1000, nil
}

// add starts a cursor for stream name after entry id from.
func (m *merger) add(name string, from EntryID, draining bool) {
	c := &setCursor{name: name, key: keyspace.StreamKey(m.set.queue, name), after: from, done: from, top: from, draining: draining}
	c.pos = from.String()
	if m.group != "" && !draining {
		c.pos = ">"
	}
	m.curs = append(m.curs, c)
	sort.Slice(m.curs, func(i, j int) bool { return m.curs[i].name < m.curs[j].name })
	m.byName[name] = c
}

// poll reads every cursor whose buffer is empty and refreshes every top,
// in one round trip.
func (m *merger) poll(ctx context.Context) error {
	if len(m.curs) == 0 {
		return nil
	}
	keys := make([]string, len(m.curs))
	pos := make([]string, len(m.curs))
	counts := make([]int64, len(m.curs))
	for i, c := range m.curs {
		keys[i], pos[i] = c.key, c.pos
		switch {
		case len(c.buf) == 0:
			counts[i] = m.count
		case c.truncated || c.draining:
			counts[i] = -1 // its bound is its last fetched entry: its top does not matter
		}
	}
	m.polled = time.Now()
	now, err := m.engineNow(ctx) // before the reads: see horizon
	if err != nil {
		return err
	}
	replies, err := m.set.c.conn.Poll(ctx, keys, pos, counts, m.group, m.consumer)
	if err != nil {
		if m.group != "" {
			// The engine may have run some of the reads and handed their
			// entries to this consumer with the reply lost: read them back
			// from the consumer's own pending list, in order, before any
			// new entry.
			for _, c := range m.curs {
				if !c.draining {
					c.draining, c.pos = true, c.after.String()
				}
			}
		}
		return err
	}
	m.now = now
	for i, c := range m.curs {
		if err := m.absorb(c, replies[i], counts[i]); err != nil {
			return err
		}
	}
	return nil
}

func (m *merger) absorb(c *setCursor, r wire.PollReply, count int64) error {
	if r.Top != "" {
		top, err := ParseEntryID(r.Top)
		if err != nil {
			return err
		}
		c.top = top
	}
	if count <= 0 {
		return nil
	}
	evs, err := decodeEvents(r.Entries)
	if err != nil {
		return err
	}
	c.truncated = int64(len(evs)) >= count
	if len(evs) > 0 {
		c.after = evs[len(evs)-1].Entry
		c.buf, c.bufAt, c.bufPending = evs, m.polled, c.draining
	}
	switch {
	case m.group == "":
		c.pos = c.after.String()
	case c.draining && !c.truncated:
		c.draining, c.pos = false, ">" // own pending list done: new entries next
	case c.draining:
		c.pos = c.after.String()
	}
	return nil
}

// horizon is the largest entry id that no stream can still produce a
// smaller entry than.
func (m *merger) horizon() EntryID {
	settledMs := uint64(max(m.now-m.settle.Milliseconds(), 0))
	settled := EntryID{Ms: settledMs, Seq: math.MaxUint64}
	if settledMs > 0 {
		settled = EntryID{Ms: settledMs - 1, Seq: math.MaxUint64}
	}
	h := maxEntry
	if m.set.byPref {
		// A stream not found yet may have been created after the last
		// discovery began: its entries are younger than that, less Settle.
		s := uint64(max(m.scanned-m.settle.Milliseconds(), 0))
		h = EntryID{Ms: s, Seq: 0}
	}
	for _, c := range m.curs {
		if b := c.bound(settled); b.Compare(h) < 0 {
			h = b
		}
	}
	return h
}

// next returns the smallest buffered entry at or below the horizon h, and
// its cursor; ok is false when there is none.
func (m *merger) next(h EntryID) (ev Event, c *setCursor, ok bool) {
	for _, x := range m.curs {
		if len(x.buf) == 0 || x.buf[0].Entry.Compare(h) > 0 {
			continue
		}
		if c == nil || x.buf[0].Entry.Compare(c.buf[0].Entry) < 0 {
			c = x
		}
	}
	if c == nil {
		return Event{}, nil, false
	}
	ev = c.buf[0]
	c.buf = c.buf[1:]
	if len(c.buf) == 0 {
		c.buf = nil
	}
	if ev.Entry.Compare(m.last) < 0 {
		m.late++
	} else {
		m.last = ev.Entry
	}
	c.done = ev.Entry
	return ev, c, true
}

// held reports whether some entry is buffered, and how long until the
// settle horizon passes the oldest one (0 when it already has).
func (m *merger) held() (bool, time.Duration) {
	var oldest *EntryID
	for _, c := range m.curs {
		if len(c.buf) > 0 && (oldest == nil || c.buf[0].Entry.Compare(*oldest) < 0) {
			oldest = &c.buf[0].Entry
		}
	}
	if oldest == nil {
		return false, 0
	}
	due := int64(oldest.Ms) + m.settle.Milliseconds() + 1
	return true, time.Duration(max(due-m.now, 0)) * time.Millisecond
}

// wait blocks until some stream has an entry past what was fetched, or for
// at most d.
func (m *merger) wait(ctx context.Context, d time.Duration) error {
	if len(m.curs) == 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-ctx.Done():
		case <-t.C:
		}
		return nil
	}
	keys := make([]string, len(m.curs))
	pos := make([]string, len(m.curs))
	for i, c := range m.curs {
		keys[i], pos[i] = c.key, c.after.String()
		if len(c.buf) > 0 || c.draining {
			// New entries of a stream with entries in hand cannot raise the
			// horizon (its bound is at most its last fetched entry), and
			// waking on them would spin.
			pos[i] = maxEntry.String()
		}
	}
	_, err := m.set.c.conn.XReadMulti(ctx, keys, pos, d)
	return err
}
