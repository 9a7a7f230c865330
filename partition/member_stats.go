package partition

import (
	"context"
	"maps"
	"slices"
	"time"

	"github.com/echomq/echomq"
)

// Lease is a member's hold on one partition, as a handler sees it through
// [LeaseOf]: the fencing token rises with every new holder of the
// partition, so a log of (partition, token) pairs shows who handled what,
// and that no two holders overlapped.
type Lease struct {
	Partition int // index into Stream.All
	Token     int64
	Member    string
}

type leaseKey struct{}

// LeaseOf returns the lease under which a delivery's handler runs; ok is
// false for a context that is not a partitioned group's handler's.
func LeaseOf(ctx context.Context) (Lease, bool) {
	l, ok := ctx.Value(leaseKey{}).(Lease)
	return l, ok
}

// Held is one partition a member holds.
type Held struct {
	Partition int
	Token     int64
	Since     time.Time // when this member took it
	Stopping  bool      // being given up
}

// Assignment is a member's view of its group after its last beat.
type Assignment struct {
	Member  string   // this member's id (name/instance)
	Members []string // the live members, sorted by id
	Held    []Held   // the partitions this member holds, by index
	// Owners maps every partition leased at the last beat to its holder's
	// id: the group's whole assignment as the engine saw it.
	Owners map[int]string
}

// Assignment returns the member's current view: no I/O.
func (m *Member) Assignment() Assignment {
	m.mu.Lock()
	defer m.mu.Unlock()
	a := Assignment{Member: m.id, Members: slices.Clone(m.members), Owners: maps.Clone(m.owners)}
	for _, sl := range m.slots {
		a.Held = append(a.Held, Held{Partition: sl.part, Token: sl.token, Since: sl.since, Stopping: sl.stopping})
	}
	slices.SortFunc(a.Held, func(x, y Held) int { return x.Partition - y.Partition })
	return a
}

// Stats is one held partition with its group's lag.
type Stats struct {
	Held
	Lag echomq.GroupLag
}

// Stats returns the partitions the member holds with the group's lag on
// each ([echomq.Group.Lag] with its default limit), one engine call per
// partition. A partition whose group does not exist yet counts every
// entry, as [Stream.GroupState] does.
func (m *Member) Stats(ctx context.Context) ([]Stats, error) {
	a := m.Assignment()
	out := make([]Stats, 0, len(a.Held))
	for _, h := range a.Held {
		lag, err := partitionLag(ctx, m.s.all[h.Partition], m.cfg.Group)
		if err != nil {
			return nil, err
		}
		out = append(out, Stats{Held: h, Lag: lag})
	}
	return out, nil
}
