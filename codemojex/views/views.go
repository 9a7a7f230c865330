package views

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/echomq/echomq/codemojex"
	"github.com/echomq/echomq/projection"
)

// Config configures [New].
type Config struct {
	// Snapshots saves each view's snapshot in the engine's queue
	// ("emq:{q}:projection:codemojex-<view>") so a restart resumes instead
	// of refolding the log. Defaults to false.
	Snapshots bool
	// SnapshotInterval bounds how long a view keeps folded events out of its
	// snapshot. Defaults to 5s.
	SnapshotInterval time.Duration
	// Block is how long one blocking read of a view waits before it is
	// issued again (how late a stop is noticed on engines that cannot
	// unblock a read). Defaults to 1s.
	Block time.Duration
	// Logger receives a view's failure and its recovery (once each).
	// Defaults to slog.Default().
	Logger *slog.Logger
}

// Views are the read models of codemojex, each a live projection of the
// engine's streams, kept current by [Views.Run] and rebuildable from the
// log with [Views.Rebuild].
type Views struct {
	Feed      *projection.Live[*Feed]
	Results   *projection.Live[*Results]
	RoomStats *projection.Live[*RoomStats]
	Boards    *projection.Live[*Boards]
	Lobby     *projection.Live[*Lobby]
	Players   *projection.Live[*Players]

	all     []live
	names   []string
	log     *slog.Logger
	running atomic.Bool // Run is running
}

// live is what Views needs of each projection, whatever its state type.
type live interface {
	Run(ctx context.Context) error
	CatchUp(ctx context.Context) (int, error)
	Rebuild(ctx context.Context) (int, error)
}

// New returns the views over the engine's streams, without I/O.
func New(e *codemojex.Engine, config *Config) (*Views, error) {
	return over([]*codemojex.Engine{e}, config)
}

// NewSharded returns the views of a sharded game, without I/O: each view
// folds its streams of every shard, merged in entry-id order (one
// checkpoint per shard's stream), and keeps its snapshot in shard 0's
// queue. A view is eventually consistent across shards: an event of one
// shard is folded once the follows of every shard have reached past it
// (docs/codemojex.md). With one shard it is [New] of that shard.
func NewSharded(s *codemojex.Shards, config *Config) (*Views, error) {
	return over(s.Engines(), config)
}

func over(engines []*codemojex.Engine, config *Config) (*Views, error) {
	var cfg Config
	if config != nil {
		cfg = *config
	}
	e := engines[0]
	s := func(name string) []projection.Source {
		out := make([]projection.Source, len(engines))
		for i, sh := range engines {
			out[i] = sh.Stream(name)
		}
		return out
	}
	lc := func(name string) *projection.LiveConfig {
		c := &projection.LiveConfig{SnapshotInterval: cfg.SnapshotInterval, Block: cfg.Block, Logger: cfg.Logger}
		if c.SnapshotInterval == 0 {
			c.SnapshotInterval = 5 * time.Second
		}
		if cfg.Snapshots {
			c.Store = projection.EngineStore(e.Client(), e.Queue(), name)
		}
		return c
	}
	v := &Views{log: cmp.Or(cfg.Logger, slog.Default())}
	var errs []error
	var name string
	add := func(l live, err error) {
		errs = append(errs, err)
		if err == nil {
			v.all = append(v.all, l)
			v.names = append(v.names, name)
		}
	}
	var err error
	name = "feed"
	v.Feed, err = projection.NewLive(FeedProjection(), lc("codemojex-"+name), sources(s, FeedStreams)...)
	add(v.Feed, err)
	name = "results"
	v.Results, err = projection.NewLive(ResultsProjection(), lc("codemojex-"+name), sources(s, ResultsStreams)...)
	add(v.Results, err)
	name = "room-stats"
	v.RoomStats, err = projection.NewLive(RoomStatsProjection(), lc("codemojex-"+name), sources(s, RoomStatsStreams)...)
	add(v.RoomStats, err)
	name = "boards"
	v.Boards, err = projection.NewLive(BoardsProjection(), lc("codemojex-"+name), sources(s, BoardsStreams)...)
	add(v.Boards, err)
	name = "lobby"
	v.Lobby, err = projection.NewLive(LobbyProjection(), lc("codemojex-"+name), sources(s, LobbyStreams)...)
	add(v.Lobby, err)
	name = "players"
	v.Players, err = projection.NewLive(PlayersProjection(), lc("codemojex-"+name), sources(s, PlayersStreams)...)
	add(v.Players, err)
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return v, nil
}

// The streams each view folds.
var (
	FeedStreams      = []string{codemojex.StreamGameStarted, codemojex.StreamPlayerJoined, codemojex.StreamGuessScored, codemojex.StreamGameSettled}
	ResultsStreams   = []string{codemojex.StreamGameSettled}
	RoomStatsStreams = []string{codemojex.StreamGameStarted, codemojex.StreamPlayerJoined, codemojex.StreamGuessScored, codemojex.StreamGameSettled}
	BoardsStreams    = []string{codemojex.StreamGameStarted, codemojex.StreamPlayerJoined, codemojex.StreamGuessScored, codemojex.StreamGameRevealed, codemojex.StreamGameSettled}
	LobbyStreams     = []string{codemojex.StreamRoomOpened, codemojex.StreamGameStarted, codemojex.StreamPlayerJoined, codemojex.StreamGuessScored, codemojex.StreamGameSettled}
	PlayersStreams   = []string{codemojex.StreamGameStarted, codemojex.StreamPlayerJoined, codemojex.StreamGuessScored, codemojex.StreamGameSettled}
)

// Sources returns the streams of names as projection sources.
func Sources(e *codemojex.Engine, names []string) []projection.Source {
	return sources(func(n string) []projection.Source { return []projection.Source{e.Stream(n)} }, names)
}

func sources(s func(string) []projection.Source, names []string) []projection.Source {
	out := make([]projection.Source, 0, len(names))
	for _, n := range names {
		out = append(out, s(n)...)
	}
	return out
}

// Run keeps every view current until ctx ends: each catches up and then
// follows its streams live. A view that fails (the engine restarting,
// paused or unreachable, a snapshot that could not be saved) is brought
// back on its own, with a backoff, from where it stopped, the others
// running on; its failure and its recovery are logged once each. It
// returns nil when ctx ends, and [projection.ErrRunning] when the views
// are already running.
func (v *Views) Run(ctx context.Context) error {
	if !v.running.CompareAndSwap(false, true) {
		return projection.ErrRunning
	}
	defer v.running.Store(false)
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var wg sync.WaitGroup
	for i, l := range v.all {
		wg.Go(func() {
			if err := v.keep(ctx, v.names[i], l); err != nil {
				cancel(err)
			}
		})
	}
	wg.Wait()
	if err := context.Cause(ctx); err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}

// Sync folds into every view what was appended before it was called; after
// it returns the views reflect every transition that committed before.
func (v *Views) Sync(ctx context.Context) error {
	for _, l := range v.all {
		if _, err := l.CatchUp(ctx); err != nil {
			return err
		}
	}
	return nil
}

// Rebuild refolds every view from the whole log.
func (v *Views) Rebuild(ctx context.Context) error {
	for _, l := range v.all {
		if _, err := l.Rebuild(ctx); err != nil {
			return err
		}
	}
	return nil
}
