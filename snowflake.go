package echomq

import (
	"time"
)

// epoch is the instant snowflake timestamps count from: 2024-01-01T00:00:00Z,
// in Unix milliseconds. It is fixed by the wire contract shared with every
// other EchoMQ implementation.
const epoch int64 = 1704067200000

// Bit widths and masks of the snowflake layout ts<<22 | node<<12 | seq.
const (
	nodeBits = 10
	seqBits  = 12
	tailBits = nodeBits + seqBits // the 22 low bits mapped onto the XADD sequence

	// maxNode is the largest node id a snowflake can carry.
	maxNode = 1<<nodeBits - 1
	// maxSeq is the largest per-millisecond sequence a snowflake can carry.
	maxSeq = 1<<seqBits - 1
	// maxTail is the largest node|seq tail, the sequence part of a time ceiling.
	maxTail = 1<<tailBits - 1

	maxTS = 1<<41 - 1

	// engineNode is the node id of the ids the engine chooses: the append
	// scripts take it, with the queue's engine id cell, for an append they
	// must place above a top another writer reached first. No client leases
	// it and Config.NodeID refuses it, so no minter mints in its space and
	// no receipt is handed out twice (docs/keyspace.md, "Ids under many
	// writers"). Within a millisecond its ids sort above every writer's.
	engineNode = maxNode
)

// Snowflake is a 63-bit, time-ordered identifier: 41 bits of milliseconds
// since 2024-01-01 UTC, 10 bits of node id and 12 bits of sequence. Integer order is
// mint order.
type Snowflake int64

// NewSnowflake packs a millisecond offset from 2024-01-01 UTC, a node id and a
// sequence. It returns an error when a part is out of range.
func newSnowflake(msSinceEpoch int64, node, seq int) (Snowflake, error) {
	switch {
	case msSinceEpoch < 0 || msSinceEpoch > maxTS:
		return 0, &IDError{Input: "", Reason: "timestamp out of range"}
	case node < 0 || node > maxNode:
		return 0, &IDError{Reason: "node out of range 0..1023"}
	case seq < 0 || seq > maxSeq:
		return 0, &IDError{Reason: "sequence out of range 0..4095"}
	}
	return Snowflake(msSinceEpoch<<tailBits | int64(node)<<seqBits | int64(seq)), nil
}

// SnowflakeAt returns the smallest snowflake mintable at t (node 0, seq 0):
// its mint instant is t truncated to the millisecond.
func snowflakeAt(t time.Time) Snowflake {
	ms := max(t.UnixMilli()-epoch, 0)
	return Snowflake(ms << tailBits)
}

// Millis returns the timestamp field: milliseconds since 2024-01-01 UTC.
func (s Snowflake) millis() int64 { return int64(s) >> tailBits }

// unixMilli returns the mint instant in real Unix milliseconds.
func (s Snowflake) unixMilli() int64 { return s.millis() + epoch }

// Time returns the mint instant in UTC, to the millisecond.
func (s Snowflake) Time() time.Time { return time.UnixMilli(s.unixMilli()).UTC() }

// Node returns the node id field.
func (s Snowflake) Node() int { return int(s>>seqBits) & maxNode }

// Seq returns the sequence field.
func (s Snowflake) Seq() int { return int(s) & maxSeq }

// Tail returns the 22 low bits (node and sequence), the sequence part of the
// entry id the snowflake maps to.
func (s Snowflake) tail() int64 { return int64(s) & maxTail }

// EntryID returns the order-preserving XADD entry id the snowflake maps to:
// the real Unix milliseconds and the 22-bit tail.
func (s Snowflake) EntryID() EntryID {
	return EntryID{Ms: uint64(s.unixMilli()), Seq: uint64(s.tail())}
}
