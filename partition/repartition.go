package partition

import (
	"context"
	"strconv"

	"github.com/echomq/echomq/internal/clientconn"
	"github.com/echomq/echomq/internal/keyspace"
)

// Repartition records a new generation of p partitions for the stream and
// returns the handle of the stream as it then is: appends (of every handle
// opened afterwards) go to the p new partitions, routed by the same
// function; reads merge the old generations' partitions and the new ones
// in id order, so nothing written before is lost from view. Events of one
// key written before and after lie in different partitions: per-key order
// across the change holds only by id (the old partition's events are older).
// Handles opened before keep appending to the old generation until they
// are opened again, and a group's members take the new partitions up at
// their next start. Nothing moves events between generations.
//
// It records p only when the engine still holds the counts this handle
// read; otherwise (another repartition came first) it fails with a
// [*MismatchError] and writes nothing. Errors before any I/O: an
// [*echomq.ArgumentError] for p outside [1, MaxPartitions].
func (s *Stream) Repartition(ctx context.Context, p int) (*Stream, error) {
	if err := checkCount(p); err != nil {
		return nil, err
	}
	read := formatCounts(s.counts)
	got, err := clientconn.Of(s.c).PartitionsGrow(ctx, keyspace.PartitionsKey(s.queue, s.name), read, p)
	if err != nil {
		return nil, err
	}
	counts, ok := parseCounts(got)
	if !ok || got != read+","+strconv.Itoa(p) {
		return nil, &MismatchError{Queue: s.queue, Stream: s.name, Want: p, Have: counts}
	}
	return newStream(s.c, s.queue, s.name, counts), nil
}
