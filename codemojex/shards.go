package codemojex

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/lanes"
	"github.com/echomq/echomq/partition"
)

// ShardsStream is the name under which a sharded game records its shard
// count on the engine, in its base queue ("emq:{<queue>}:partitions:shards",
// written by [partition.Create]): a process started with another count is
// refused with a [*partition.MismatchError].
const ShardsStream = "shards"

// MaxShards bounds the shard count of one game.
const MaxShards = 64

// Shards is a codemojex game spread over N shards: N engines, each on a
// queue of its own (shard i of N of base queue q is the queue
// [partition.QueueOf](q, i, N), so on a cluster the shards' slots spread
// evenly over the masters; one shard is q itself, today's layout). A room,
// and with it its games, guesses, guess lanes and the wallet writes of its
// guesses, lives in the shard [RoomShard] of its id. The layout, what is
// sharded and what is not, are in docs/codemojex.md.
type Shards struct {
	base    string
	engines []*Engine
	homes   homes // player → home shard, as met
	games   homes // game → shard, as met
	guesses homes // guess → shard, as submitted here

	// afterHold, a test seam, runs between the two steps of a guess in
	// another shard than its player's home; an error stops the guess
	// there (rest is the second step).
	afterHold func(guess string, rest func(context.Context) (Receipt, error)) error
}

// ShardQueue returns the queue of shard i of n of base queue q: q itself
// when n is 1, [partition.QueueOf](q, i, n) otherwise. It returns an
// [*echomq.ArgumentError] for n outside [1, MaxShards] or i outside
// [0, n), and a [*echomq.NameError] for a bad base queue.
func ShardQueue(q string, i, n int) (string, error) {
	if n < 1 || n > MaxShards {
		return "", badArg("shards", fmt.Sprintf("must lie in [1, %d]", MaxShards))
	}
	if i < 0 || i >= n {
		return "", badArg("shard", fmt.Sprintf("must lie in [0, %d)", n))
	}
	if n == 1 {
		return q, nil
	}
	return partition.QueueOf(q, i, n)
}

// RoomShard returns the shard of a room among n: [partition.Route] of its
// id, a stable function of the id alone.
func RoomShard(room string, n int) int { return partition.Route(room, n) }

// NewShards records n on the engine (refusing, with a
// [*partition.MismatchError] and nothing written, a base queue recorded
// with another count) and returns the game's n engines, each configured by
// cfg but for its queue. A nil cfg is an empty [Config], as for [New]: the
// documented defaults, base queue "cm". NewShards copies cfg and keeps no
// pointer to it. With n = 1 the one engine is [New](client, cfg) exactly.
func NewShards(ctx context.Context, client *echomq.Client, cfg *Config, n int) (*Shards, error) {
	var conf Config
	if cfg != nil {
		conf = *cfg
	}
	base := cmp.Or(conf.Queue, "cm")
	if n < 1 || n > MaxShards {
		return nil, badArg("shards", fmt.Sprintf("must lie in [1, %d]", MaxShards))
	}
	queues := make([]string, n)
	for i := range queues {
		q, err := ShardQueue(base, i, n)
		if err != nil {
			return nil, err
		}
		queues[i] = q
	}
	s := &Shards{base: base}
	for _, q := range queues {
		c := conf
		c.Queue = q
		e, err := New(client, &c)
		if err != nil {
			return nil, err
		}
		s.engines = append(s.engines, e)
	}
	if n > 1 {
		for i, e := range s.engines {
			e.sh, e.idx = s, i
		}
	}
	if _, err := partition.Create(ctx, client, base, ShardsStream, n); err != nil {
		return nil, fmt.Errorf("codemojex: record %d shards: %w", n, err)
	}
	return s, nil
}

// Single returns the game on one engine as a [Shards] of one shard,
// without I/O (nothing is recorded on the engine): every method of the
// result is that of the engine.
func Single(e *Engine) *Shards {
	return &Shards{base: e.Queue(), engines: []*Engine{e}}
}

// Len returns the shard count.
func (s *Shards) Len() int { return len(s.engines) }

// Base returns the base queue.
func (s *Shards) Base() string { return s.base }

// Shard returns the engine of shard i (0 ≤ i < Len).
func (s *Shards) Shard(i int) *Engine { return s.engines[i] }

// Engines returns every shard's engine, shard 0 first.
func (s *Shards) Engines() []*Engine { return slices.Clone(s.engines) }

// ForRoom returns the engine of the shard that holds room.
func (s *Shards) ForRoom(room string) *Engine {
	return s.engines[RoomShard(room, len(s.engines))]
}

// CreateRoom creates a waiting room in the shard of its id. The id is
// minted in shard 0 (ids are unique per queue, so one minter keeps them
// unique across shards) and the room written in [RoomShard] of it; with
// one shard it is [Engine.CreateRoom]. Errors as [Engine.CreateRoom].
func (s *Shards) CreateRoom(ctx context.Context, spec RoomSpec) (Room, error) {
	if len(s.engines) == 1 {
		return s.engines[0].CreateRoom(ctx, spec)
	}
	home := s.engines[0]
	if err := home.checkSpec(&spec); err != nil {
		return Room{}, err
	}
	rid, err := home.mint(ctx, BrandRoom)
	if err != nil {
		return Room{}, err
	}
	return s.ForRoom(rid).createRoom(ctx, spec, rid)
}

// Room returns a room's record from its shard, or a [*NotFoundError].
func (s *Shards) Room(ctx context.Context, id string) (Room, error) {
	if err := checkID(id, BrandRoom); err != nil {
		return Room{}, err
	}
	return s.ForRoom(id).Room(ctx, id)
}

// Rooms returns the rooms of every shard, oldest first (by creation time,
// then id): a fan-in of each shard's [Engine.Rooms], read one after the
// other, so a room created meanwhile may be missing.
func (s *Shards) Rooms(ctx context.Context) ([]Room, error) {
	if len(s.engines) == 1 {
		return s.engines[0].Rooms(ctx)
	}
	var out []Room
	var errs []error
	for _, e := range s.engines {
		rs, err := e.Rooms(ctx)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, rs...)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	slices.SortStableFunc(out, func(a, b Room) int {
		return cmp.Or(cmp.Compare(a.CreatedMS, b.CreatedMS), cmp.Compare(a.ID, b.ID))
	})
	return out, nil
}

// Workers returns one scoring worker per shard ([Engine.Worker] of each,
// with cfg), shard 0 first: run them all, in one process or spread over
// several.
func (s *Shards) Workers(cfg *lanes.WorkerConfig) ([]*lanes.Worker, error) {
	out := make([]*lanes.Worker, 0, len(s.engines))
	for _, e := range s.engines {
		w, err := e.Worker(cfg)
		if err != nil {
			return nil, err
		}
		out = append(out, w)
	}
	return out, nil
}

// RunSweep runs every shard's [Engine.RunSweep] at once until ctx ends. It
// returns an [*echomq.ArgumentError] for a non-positive interval, and nil
// when ctx ends.
func (s *Shards) RunSweep(ctx context.Context, every time.Duration) error {
	if every <= 0 {
		return badArg("sweep interval", "must be positive")
	}
	errs := make([]error, len(s.engines))
	var wg sync.WaitGroup
	for i, e := range s.engines {
		wg.Go(func() { errs[i] = e.RunSweep(ctx, every) })
	}
	if len(s.engines) > 1 {
		// The holds and prizes across shards, as often as the requeue.
		wg.Go(func() {
			tick := time.NewTicker(30 * every)
			defer tick.Stop()
			o := outage{log: s.engines[0].log, what: "settle holds across shards"}
			for {
				select {
				case <-ctx.Done():
					return
				case <-tick.C:
				}
				n, err := s.settleAcross(ctx)
				if ctx.Err() != nil {
					return
				}
				if o.note(err); err == nil && n > 0 {
					o.log.Info("codemojex: settled holds of guesses in other shards", "holds", n)
				}
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}
