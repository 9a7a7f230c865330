package keyspace

import (
	"strconv"
	"strings"
)

// PartitionMarker is the part of a derived partition queue name that no
// logical queue name may contain: "<q>.emq-p<i>of<P>-<salt>" is partition i
// of P of a partitioned stream in queue q (see docs/partitions.md).
const PartitionMarker = ".emq-"

// MaxPartitions is the largest partition count of one partitioned stream.
const MaxPartitions = 1024

// maxSalt bounds the search for a salt that puts a partition's slot in its
// arc; past it the first candidate is used (never reached for P ≤ 1024: a
// miss has probability (1-1/P)^maxSalt).
const maxSalt = 1 << 16

// PartitionQueue returns the queue of partition i of p of a partitioned
// stream in queue q: "<q>.emq-p<i>of<p>-<s>", where s is the smallest
// salt ≥ 0 whose name hashes into the i-th of p equal arcs of the slot
// space, so the partitions of a stream spread evenly over the slots and,
// through them, over a cluster's masters. The name depends only on q, i
// and p. Callers have checked q and 0 ≤ i < p ≤ MaxPartitions.
func PartitionQueue(q string, i, p int) string {
	base := q + PartitionMarker + "p" + strconv.Itoa(i) + "of" + strconv.Itoa(p) + "-"
	lo, hi := i*16384/p, (i+1)*16384/p
	for s := range maxSalt {
		name := base + strconv.Itoa(s)
		if slot := int(crc16(name) % 16384); slot >= lo && slot < hi {
			return name
		}
	}
	return base + "0"
}

// PartitionedQueue checks the queue of a partitioned stream: the queue
// grammar, no [PartitionMarker] (a derived queue is never itself
// partitioned, and no logical queue can take a derived queue's name), and
// room for the longest derived name.
func PartitionedQueue(q string) error {
	if err := Queue(q); err != nil {
		return err
	}
	if strings.Contains(q, PartitionMarker) {
		return &NameError{Kind: "queue", Name: q, Reason: `"` + PartitionMarker + `" is reserved for the queues of partitions`}
	}
	if len(q)+len(".emq-p1023of1024-65535") > MaxNameLen {
		return &NameError{Kind: "queue", Name: truncate(q), Reason: "longer than " + strconv.Itoa(MaxNameLen-len(".emq-p1023of1024-65535")) + " bytes, leaving no room for its partitions' queue names"}
	}
	return nil
}

// LogicalQueue returns the queue a partition's queue belongs to: q up to
// its [PartitionMarker] for a derived queue "<q>.emq-p<i>of<P>-<salt>", q
// itself otherwise. Writers lease their node ids and mint in the logical
// queue, so receipts are unique across every partition of its streams.
func LogicalQueue(q string) string {
	if i := strings.Index(q, PartitionMarker+"p"); i > 0 {
		return q[:i]
	}
	return q
}

// PartitionsKey returns "emq:{q}:partitions:<name>", the partition counts of
// the partitioned stream name in queue q.
func PartitionsKey(q, name string) string { return QueueKey(q, "partitions:"+name) }

// PartitionMembersKey returns "emq:{q}:partitions:<name>:group:<g>:members",
// the live members of group g of the partitioned stream (a sorted set,
// score = expiry in engine ms).
func PartitionMembersKey(q, name, g string) string {
	return PartitionsKey(q, name) + ":group:" + g + ":members"
}

// PartitionOwnersKey returns "emq:{q}:partitions:<name>:group:<g>:owners",
// the partition leases of group g (a hash: partition → owner, expiry,
// fencing token).
func PartitionOwnersKey(q, name, g string) string {
	return PartitionsKey(q, name) + ":group:" + g + ":owners"
}
