package partition

import (
	"context"
	"sync/atomic"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/internal/clientconn"
	"github.com/echomq/echomq/internal/keyspace"
	"github.com/echomq/echomq/projection"
)

// Stream is a partitioned stream: one logical stream of P partitions, each
// an ordinary [echomq.Stream] of the same name in a queue of its own (see
// [QueueOf]), so the partitions spread over a cluster's slots. Appends go
// to one partition, chosen by a partition key ([Route]); reads merge the
// partitions in entry-id order. Make one with [Create] or [Open]. A Stream
// is safe for concurrent use.
//
// After [Stream.Repartition] the stream has several generations of
// partitions: appends go to the newest, reads merge all of them.
type Stream struct {
	c      *echomq.Client
	queue  string
	name   string
	counts []int            // recorded partition counts, oldest first
	parts  []*echomq.Stream // the newest generation's partitions
	all    []*echomq.Stream // every generation's partitions, oldest first
	srcs   []projection.Source
	rr     atomic.Uint64 // the spread counter of key-less appends
	view   func(*echomq.Stream) projection.Source
}

// Create makes the partitioned stream name in queue with p partitions,
// recording p on the engine (the key "emq:{queue}:partitions:<name>"),
// and returns it. Creating it again with the same p returns it; with
// another p it fails with a [*MismatchError] and writes nothing (a stream
// that was repartitioned matches its newest count). Partition streams
// themselves come into being with their first append.
//
// Errors before any I/O: a [*echomq.NameError] for a bad queue or stream
// name, or a queue name holding the reserved ".emq-"; an
// [*echomq.ArgumentError] for p outside [1, MaxPartitions].
func Create(ctx context.Context, c *echomq.Client, queue, name string, p int) (*Stream, error) {
	if err := check(c, queue, name); err != nil {
		return nil, err
	}
	if err := checkCount(p); err != nil {
		return nil, err
	}
	got, err := clientconn.Of(c).PartitionsCreate(ctx, keyspace.PartitionsKey(queue, name), formatCounts([]int{p}))
	if err != nil {
		return nil, err
	}
	counts, ok := parseCounts(got)
	if !ok || counts[len(counts)-1] != p {
		return nil, &MismatchError{Queue: queue, Stream: name, Want: p, Have: counts}
	}
	return newStream(c, queue, name, counts), nil
}

// Open returns the partitioned stream name in queue as recorded on the
// engine. Errors: those of [Create] before any I/O; a
// [*NotPartitionedError] when nothing is recorded.
func Open(ctx context.Context, c *echomq.Client, queue, name string) (*Stream, error) {
	if err := check(c, queue, name); err != nil {
		return nil, err
	}
	got, found, err := clientconn.Of(c).Get(ctx, keyspace.PartitionsKey(queue, name))
	if err != nil {
		return nil, err
	}
	counts, ok := parseCounts(got)
	if !found || !ok {
		return nil, &NotPartitionedError{Queue: queue, Stream: name}
	}
	return newStream(c, queue, name, counts), nil
}

func check(c *echomq.Client, queue, name string) error {
	if c == nil {
		return &echomq.ArgumentError{Name: "client", Reason: "must not be nil"}
	}
	if err := keyspace.PartitionedQueue(queue); err != nil {
		return err
	}
	return keyspace.Stream(name)
}

func newStream(c *echomq.Client, queue, name string, counts []int) *Stream {
	s := &Stream{c: c, queue: queue, name: name, counts: counts}
	for g, p := range counts {
		for i := range p {
			ps := c.Stream(keyspace.PartitionQueue(queue, i, p), name)
			s.all = append(s.all, ps)
			if g == len(counts)-1 {
				s.parts = append(s.parts, ps)
			}
		}
	}
	s.setView(nil)
	return s
}

func (s *Stream) setView(view func(*echomq.Stream) projection.Source) {
	s.view = view
	s.srcs = make([]projection.Source, len(s.all))
	for i, p := range s.all {
		if view != nil {
			s.srcs[i] = view(p)
		} else {
			s.srcs[i] = p
		}
	}
}

// Queue returns the logical queue name.
func (s *Stream) Queue() string { return s.queue }

// Name returns the stream name.
func (s *Stream) Name() string { return s.name }

// Key returns the key of the stream's partition counts,
// "emq:{queue}:partitions:<name>": the one key that names the logical
// stream (projections key their checkpoints by it).
func (s *Stream) Key() string { return keyspace.PartitionsKey(s.queue, s.name) }

// Partitions returns the partition count appends use (the newest
// generation's).
func (s *Stream) Partitions() int { return len(s.parts) }

// Counts returns the recorded partition counts, oldest generation first.
func (s *Stream) Counts() []int { return append([]int(nil), s.counts...) }

// Partition returns partition i of the newest generation, an ordinary
// stream (nil for i out of range).
func (s *Stream) Partition(i int) *echomq.Stream {
	if i < 0 || i >= len(s.parts) {
		return nil
	}
	return s.parts[i]
}

// All returns the partitions of every generation, oldest first: what reads
// merge.
func (s *Stream) All() []*echomq.Stream { return append([]*echomq.Stream(nil), s.all...) }

// Sources returns what reads merge as projection sources, one per
// partition of every generation (through the view set by [Stream.Through]),
// for [projection.Fold], [projection.NewLive] and friends: a live
// projection over them keeps one exact checkpoint per partition.
func (s *Stream) Sources() []projection.Source { return append([]projection.Source(nil), s.srcs...) }

// Through returns a handle on the same stream whose reads go through
// view(partition) for every partition, such as the archive's merged
// reader (func(p) { return archive.NewReader(store, p) }), so merged reads
// span each partition's archive and live tail. Appends are unchanged.
func (s *Stream) Through(view func(*echomq.Stream) projection.Source) *Stream {
	u := newStream(s.c, s.queue, s.name, s.counts)
	u.setView(view)
	return u
}

// Route returns the partition of the newest generation an append with key
// goes to (see the package function [Route]).
func (s *Stream) Route(key string) int { return Route(key, len(s.parts)) }
