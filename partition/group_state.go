package partition

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/internal/clientconn"
	"github.com/echomq/echomq/internal/keyspace"
)

// GroupState is a partitioned stream's consumer group as the engine holds
// it, read from outside the group (by [Stream.GroupState]): its live
// members and, for every partition, the lease holder and the lag.
type GroupState struct {
	Group string
	// Members are the live members' ids (name/instance), sorted.
	Members []string
	// Partitions are every generation's partitions, by index into
	// [Stream.All].
	Partitions []PartState
	// At is the engine's clock at the read.
	At time.Time
}

// PartState is one partition of a [GroupState].
type PartState struct {
	Partition int    // index into Stream.All
	Queue     string // the partition's queue
	// Owner is the member holding the partition's lease, "" when no live
	// member does (not taken yet, given back, or expired).
	Owner string
	// Token is the partition's fencing token: the number of takes so far.
	Token int64
	// Lag is the group's lag on the partition ([echomq.Group.Lag], default
	// limit). Before any member created the group on the partition, it
	// counts every entry (what a member starting at [echomq.StartHead]
	// will deliver) and EngineLag is -1.
	Lag echomq.GroupLag
}

// Held returns the partitions member (an id of Members) holds.
func (g GroupState) Held(member string) []int {
	var out []int
	for _, p := range g.Partitions {
		if p.Owner == member {
			out = append(out, p.Partition)
		}
	}
	return out
}

// GroupState reads group's members, leases and lag per partition: one
// script on the logical queue's slot and one lag read per partition. It
// writes nothing. A group no member ever joined reads as no members, no
// owners and the partitions' lags. Errors: a [*echomq.NameError] for a bad
// group name, before any I/O.
func (s *Stream) GroupState(ctx context.Context, group string) (GroupState, error) {
	if err := keyspace.Name("group", group); err != nil {
		return GroupState{}, err
	}
	r, err := clientconn.Of(s.c).PartitionGroup(ctx, keyspace.PartitionMembersKey(s.queue, s.name, group), keyspace.PartitionOwnersKey(s.queue, s.name, group))
	if err != nil {
		return GroupState{}, err
	}
	st := GroupState{Group: group, Members: slices.Sorted(slices.Values(r.Members)), At: time.UnixMilli(r.Now)}
	own := owners(r.Leases, r.Now)
	for i, p := range s.all {
		ps := PartState{Partition: i, Queue: p.Queue(), Owner: own[i], Token: leaseToken(r.Leases[i])}
		lag, err := partitionLag(ctx, p, group)
		if err != nil {
			return GroupState{}, err
		}
		ps.Lag = lag
		st.Partitions = append(st.Partitions, ps)
	}
	return st, nil
}

// leaseToken is the token of a lease "owner|expiry|token"; 0 for none.
func leaseToken(v string) int64 {
	i := strings.LastIndexByte(v, '|')
	if i < 0 {
		return 0
	}
	n, _ := strconv.ParseInt(v[i+1:], 10, 64)
	return n
}

// partitionLag is group's lag on p; before the group exists there, every
// entry of p counts: a lag of zero would tell an operator that nothing
// waits while a member about to start at the head has all of it to do.
func partitionLag(ctx context.Context, p *echomq.Stream, group string) (echomq.GroupLag, error) {
	lag, err := p.Group(group).Lag(ctx, 0)
	if !errorsIsGroupNotFound(err) {
		return lag, err
	}
	n, err := p.CountAfter(ctx, echomq.EntryID{}, 0)
	if err != nil {
		return echomq.GroupLag{}, err
	}
	return echomq.GroupLag{Lag: n.N, Exact: n.Exact, EngineLag: -1}, nil
}
