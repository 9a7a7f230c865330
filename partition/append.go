package partition

import (
	"context"

	"github.com/echomq/echomq"
)

// Append appends f to the partition of key (see [Route]) and returns the
// event's id, unique within that partition; events of one key keep their
// order. An empty key spreads: successive key-less appends of this handle
// go to the partitions in turn. opts are those of the partition stream's
// append (idempotency key, expected top, durability), applied to that
// partition. Errors are those of [echomq.Stream.AppendWith].
func (s *Stream) Append(ctx context.Context, key string, f echomq.Fields, opts *echomq.AppendOpts) (echomq.ID, error) {
	return appendTo(ctx, s.pick(key), f, opts)
}

// AppendBatch appends records to the partition of key in one call (one
// partition, so the batch keeps its order) and returns their ids. An
// empty key picks the next partition in turn for the whole batch.
func (s *Stream) AppendBatch(ctx context.Context, key string, records []echomq.Fields, opts *echomq.AppendOpts) ([]echomq.ID, error) {
	return appendBatchTo(ctx, s.pick(key), records, opts)
}

func (s *Stream) pick(key string) *echomq.Stream {
	if key == "" {
		return s.parts[(s.rr.Add(1)-1)%uint64(len(s.parts))]
	}
	return s.parts[Route(key, len(s.parts))]
}

// appendTo and appendBatchTo are the only calls of the root package's
// append verbs.
func appendTo(ctx context.Context, p *echomq.Stream, f echomq.Fields, opts *echomq.AppendOpts) (echomq.ID, error) {
	return p.AppendWith(ctx, f, opts)
}

func appendBatchTo(ctx context.Context, p *echomq.Stream, records []echomq.Fields, opts *echomq.AppendOpts) ([]echomq.ID, error) {
	return p.AppendBatchWith(ctx, records, opts)
}
