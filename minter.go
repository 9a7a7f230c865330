package echomq

import (
	"sync/atomic"
	"time"
)

// Clock returns the current time. Inject one in [Config] or [NewMinter] to
// control minting in tests; nil means time.Now.
type Clock func() time.Time

// Minter mints strictly increasing snowflakes for one node. It is safe for
// concurrent use and never blocks.
//
// One atomic cell holds ts<<12|seq. Each mint sets it to
// max((now-epoch)<<12, last+1) by compare-and-swap, so ids keep increasing
// through bursts (past 4096 in one millisecond the sequence carries into the
// timestamp and the minter runs briefly ahead of the clock) and through a
// clock that steps backwards (it keeps counting from the last id).
type Minter struct {
	// cell is node<<53 | ts<<12 | seq: the node lives in the same word as the
	// monotonic part so that changing it and bumping the millisecond is one CAS.
	cell  atomic.Uint64
	clock Clock // nil: the system clock, read through sysMillis
	sys   atomic.Pointer[clockBase]
}

// clockBase anchors the system clock: a wall reading with its monotonic
// reading. Between re-anchorings the wall time is derived from the monotonic
// clock alone (time.Since reads only that), which costs about half of a full
// time.Now; the anchor is renewed every second so the derived time follows
// the wall clock, steps included. The derived time is computed in
// nanoseconds and truncated once, so it names the same millisecond as
// time.Now().UnixMilli() would: two processes reading one instant mint one
// millisecond (adding a truncated anchor and a truncated elapsed time
// could land one millisecond early).
type clockBase struct {
	t      time.Time
	wallNs int64
}

const reanchorEvery = time.Second

// sysMillis returns the system wall clock in Unix milliseconds.
func (m *Minter) sysMillis() int64 {
	b := m.sys.Load()
	if b != nil {
		if d := time.Since(b.t); d >= 0 && d < reanchorEvery {
			return floorDiv(b.wallNs+int64(d), int64(time.Millisecond))
		}
	}
	now := time.Now()
	m.sys.Store(&clockBase{t: now, wallNs: now.UnixNano()})
	return now.UnixMilli()
}

// floorDiv is a/b rounded down (b > 0), as UnixMilli truncates.
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

const (
	monoBits = 53
	monoMask = 1<<monoBits - 1
)

// NewMinter returns a minter for node (0..1023) reading clock (nil means
// the system clock). It returns an [*IDError] for a node out of range.
func NewMinter(node int, clock Clock) (*Minter, error) {
	if node < 0 || node > maxNode {
		return nil, &IDError{Reason: "node out of range 0..1023"}
	}
	m := &Minter{clock: clock}
	m.cell.Store(uint64(node) << monoBits)
	return m, nil
}

// Node returns the node id the minter stamps.
func (m *Minter) Node() int { return int(m.cell.Load() >> monoBits) }

// Next mints the next snowflake.
func (m *Minter) Next() Snowflake {
	var now int64
	if m.clock != nil {
		now = m.clock().UnixMilli() - epoch
	} else {
		now = m.sysMillis() - epoch
	}
	if now < 0 {
		now = 0
	}
	candidate := uint64(now) << seqBits
	for {
		last := m.cell.Load()
		next := last&^monoMask | max(candidate, last&monoMask+1)
		if m.cell.CompareAndSwap(last, next) {
			return pack(next)
		}
	}
}

// NextID mints the next snowflake under brand. It panics on a malformed
// brand, which is a programming error; brands are constants.
func (m *Minter) NextID(brand string) ID {
	return MustID(brand, m.Next())
}

// pack turns a cell into its snowflake.
func pack(cell uint64) Snowflake {
	mono := cell & monoMask
	return Snowflake((mono>>seqBits)<<tailBits | (cell>>monoBits)<<seqBits | mono&maxSeq)
}

// AdvancePast moves the minter so that its next snowflake is strictly above
// top, whatever node minted top. Writers call it when the engine says another
// writer got above them; it never moves the minter backwards.
func (m *Minter) AdvancePast(top Snowflake) {
	ts, topNode, topSeq := uint64(top.millis()), uint64(top.Node()), uint64(top.Seq())
	for {
		last := m.cell.Load()
		node := last >> monoBits
		var want uint64 // the smallest monotonic part whose snowflake is above top
		switch {
		case node > topNode:
			want = ts << seqBits
		case node == topNode:
			want = ts<<seqBits | topSeq + 1
		default:
			want = (ts + 1) << seqBits
		}
		// The next mint is last+1 at least, so the cell must reach want-1.
		if want == 0 || last&monoMask >= want-1 || m.cell.CompareAndSwap(last, node<<monoBits|(want-1)) {
			return
		}
	}
}

// SetNode changes the node id the minter stamps. The next mint moves to the
// next millisecond so that ids stay strictly increasing even when the new node
// id is smaller than the old one.
func (m *Minter) setNode(node int) error {
	if node < 0 || node > maxNode {
		return &IDError{Reason: "node out of range 0..1023"}
	}
	for {
		last := m.cell.Load()
		mono := last & monoMask
		// The last mint of the next millisecond's predecessor: the next mint
		// lands on a millisecond no earlier id of the old node used.
		next := uint64(node)<<monoBits | ((mono>>seqBits+1)<<seqBits - 1)
		if m.cell.CompareAndSwap(last, next) {
			return nil
		}
	}
}
