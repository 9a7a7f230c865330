package partition

import (
	"log/slog"
	"time"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/internal/keyspace"
)

// Defaults of [MemberConfig].
const (
	DefaultLeaseTTL = 10 * time.Second
	DefaultBeat     = time.Second
)

// MemberConfig configures [Stream.Member]. Group, Start and Handle are
// required; every other field has a working default.
type MemberConfig struct {
	// Group names the consumer group. Its members share the partitions;
	// on each partition stream it is an ordinary consumer group of that
	// name.
	Group string

	// Name is the member's name, unique among the group's live members:
	// it is the consumer name on every partition it handles. Defaults to
	// echomq.DefaultConsumerName() ("<hostname>-<pid>").
	Name string

	// Start is where a partition's group begins when it is created:
	// [echomq.StartNew] or [echomq.StartHead]. Required.
	Start echomq.Start

	// Handle handles each delivery, on the partition the member holds; its
	// context carries the partition and the lease's fencing token
	// ([LeaseOf]). Required.
	Handle echomq.HandlerFunc

	// Consumer is the template of the per-partition consumers: Count,
	// Beat, MinIdle, Concurrency, MaxDeliveries, AckBatch, AckInterval,
	// Grace and Logger are taken from it (Queue, Stream, Group, Name, Start
	// and Handle are the member's). Concurrency above 1 gives up per-key
	// order. Grace is capped at LeaseTTL/5 (its default), so a stop ends
	// within the lease. Defaults to nil: the consumer defaults.
	Consumer *echomq.ConsumerConfig

	// LeaseTTL is how long a partition lease and a membership last without
	// a renewal: a crashed member's partitions move within LeaseTTL +
	// Beat. A member that could not renew a lease stops its consumer
	// LeaseTTL/10 + the consumer's Grace + the consumer's Beat before the
	// lease could lapse, so its handlers' contexts end at least LeaseTTL/10
	// before; handlers must return when their context ends. Defaults to
	// 10s; at least 3×Beat and 2 × (LeaseTTL/10 + Grace + the consumer's
	// Beat).
	LeaseTTL time.Duration

	// Beat is how often the member renews its membership and leases and
	// looks at the group's membership; a join or a leave is acted on
	// within about two beats. Defaults to 1s.
	Beat time.Duration

	// OnChange, when set, is called (from the member's own goroutine) each
	// time the member gains or gives up a partition: the hook for metrics
	// and logs of rebalances.
	OnChange func(Change)

	// Logger receives the member's lines. Defaults to slog.Default().
	Logger *slog.Logger
}

// Change is one gain or loss of a partition by a member.
type Change struct {
	Member    string
	Partition int   // index into Stream.All
	Token     int64 // the lease's fencing token
	Gained    bool  // false: given up (rebalanced away, lease lapsed, or the member stopped)
	At        time.Time
}

func (cfg *MemberConfig) resolve() (MemberConfig, error) {
	if cfg == nil {
		return MemberConfig{}, &echomq.ArgumentError{Name: "member config", Reason: "must not be nil"}
	}
	r := *cfg
	if err := keyspace.Name("group", r.Group); err != nil {
		return r, err
	}
	if r.Name == "" {
		r.Name = echomq.DefaultConsumerName()
	}
	if err := keyspace.Name("consumer", r.Name); err != nil {
		return r, err
	}
	if r.Handle == nil {
		return r, &echomq.ArgumentError{Name: "handle", Reason: "is required"}
	}
	if r.Start != echomq.StartNew && r.Start != echomq.StartHead {
		return r, &echomq.ArgumentError{Name: "start", Reason: "must be StartNew or StartHead"}
	}
	if r.Beat == 0 {
		r.Beat = DefaultBeat
	}
	if r.LeaseTTL == 0 {
		r.LeaseTTL = max(DefaultLeaseTTL, 3*r.Beat)
	}
	if r.Beat < 10*time.Millisecond || r.Beat > time.Hour || r.LeaseTTL < 3*r.Beat || r.LeaseTTL > 24*time.Hour {
		return r, &echomq.ArgumentError{Name: "beat and lease ttl", Reason: "Beat must lie in [10ms, 1h] and LeaseTTL in [3×Beat, 24h]"}
	}
	if r.Logger == nil {
		r.Logger = slog.Default()
	}
	return r, nil
}
