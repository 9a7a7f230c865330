package views

import (
	"context"
	"errors"
	"sync"
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

	all []live
}

// live is what Views needs of each projection, whatever its state type.
type live interface {
	Run(ctx context.Context) error
	CatchUp(ctx context.Context) (int, error)
	Rebuild(ctx context.Context) (int, error)
}

// New returns the views over the engine's streams, without I/O.
func New(e *codemojex.Engine, cfg Config) (*Views, error) {
	s := func(name string) projection.Source { return e.Stream(name) }
	lc := func(name string) *projection.LiveConfig {
		c := &projection.LiveConfig{SnapshotInterval: cfg.SnapshotInterval, Block: cfg.Block}
		if c.SnapshotInterval == 0 {
			c.SnapshotInterval = 5 * time.Second
		}
		if cfg.Snapshots {
			c.Store = projection.EngineStore(e.Client(), e.Queue(), name)
		}
		return c
	}
	v := &Views{}
	var errs []error
	add := func(l live, err error) {
		errs = append(errs, err)
		if err == nil {
			v.all = append(v.all, l)
		}
	}
	var err error
	v.Feed, err = projection.NewLive(FeedProjection(), lc("codemojex-feed"), sources(s, FeedStreams)...)
	add(v.Feed, err)
	v.Results, err = projection.NewLive(ResultsProjection(), lc("codemojex-results"), sources(s, ResultsStreams)...)
	add(v.Results, err)
	v.RoomStats, err = projection.NewLive(RoomStatsProjection(), lc("codemojex-room-stats"), sources(s, RoomStatsStreams)...)
	add(v.RoomStats, err)
	v.Boards, err = projection.NewLive(BoardsProjection(), lc("codemojex-boards"), sources(s, BoardsStreams)...)
	add(v.Boards, err)
	v.Lobby, err = projection.NewLive(LobbyProjection(), lc("codemojex-lobby"), sources(s, LobbyStreams)...)
	add(v.Lobby, err)
	v.Players, err = projection.NewLive(PlayersProjection(), lc("codemojex-players"), sources(s, PlayersStreams)...)
	add(v.Players, err)
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return v, nil
}

// The streams each view folds.
var (
	FeedStreams      = []string{codemojex.StreamGuessScored, codemojex.StreamGameSettled}
	ResultsStreams   = []string{codemojex.StreamGameSettled}
	RoomStatsStreams = []string{codemojex.StreamGameStarted, codemojex.StreamPlayerJoined, codemojex.StreamGuessScored, codemojex.StreamGameSettled}
	BoardsStreams    = []string{codemojex.StreamGameStarted, codemojex.StreamPlayerJoined, codemojex.StreamGuessScored, codemojex.StreamGameRevealed, codemojex.StreamGameSettled}
	LobbyStreams     = []string{codemojex.StreamRoomOpened, codemojex.StreamGameStarted, codemojex.StreamPlayerJoined, codemojex.StreamGuessScored, codemojex.StreamGameSettled}
	PlayersStreams   = []string{codemojex.StreamGameStarted, codemojex.StreamPlayerJoined, codemojex.StreamGuessScored, codemojex.StreamGameSettled}
)

// Sources returns the streams of names as projection sources.
func Sources(e *codemojex.Engine, names []string) []projection.Source {
	return sources(func(n string) projection.Source { return e.Stream(n) }, names)
}

func sources(s func(string) projection.Source, names []string) []projection.Source {
	out := make([]projection.Source, len(names))
	for i, n := range names {
		out[i] = s(n)
	}
	return out
}

// Run keeps every view current until ctx ends: each catches up and then
// follows its streams live. It returns nil when ctx ends, or the first
// failure of a view (the others are stopped).
func (v *Views) Run(ctx context.Context) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var wg sync.WaitGroup
	for _, l := range v.all {
		wg.Go(func() {
			if err := l.Run(ctx); err != nil {
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
