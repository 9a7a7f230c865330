package projection

import (
	"context"
	"log/slog"
	"time"
)

// Store keeps the snapshot of one live projection as one opaque value,
// replaced whole by Save. *SnapshotStore (EngineStore) satisfies
// it; Load returns false when nothing is stored.
type Store interface {
	Load(ctx context.Context) ([]byte, bool, error)
	Save(ctx context.Context, b []byte) error
}

// LiveConfig configures [NewLive]; nil means the defaults.
type LiveConfig struct {
	// Store keeps the snapshots. Defaults to nil: no snapshots, so a
	// restart folds the whole log again.
	Store Store

	// SnapshotEvery is how many events Run folds between two snapshots.
	// Defaults to 1000.
	SnapshotEvery int

	// SnapshotInterval bounds how long Run keeps folded events out of a
	// snapshot. Defaults to 1s.
	SnapshotInterval time.Duration

	// PageSize is how many entries one read of one stream fetches, in
	// catch-up and in Run. Defaults to 1000.
	PageSize int

	// Block is how long one blocking read of Run waits before it is
	// re-issued. Defaults to 1s.
	Block time.Duration

	// Logger receives Run's outage and recovery lines, snapshots that
	// could not be written at a stop, and why Run stopped. Defaults to
	// slog.Default().
	Logger *slog.Logger

	// OnSnapshot, when set, is called after each snapshot was saved with its
	// checkpoint and the number of events in its state (for metrics and
	// tests). It runs on the goroutine that saved. Defaults to nil.
	OnSnapshot func(cp Checkpoint, applied int64)
}

func (c *LiveConfig) withDefaults() (LiveConfig, error) {
	var o LiveConfig
	if c != nil {
		o = *c
	}
	if o.SnapshotEvery < 0 || o.SnapshotInterval < 0 || o.PageSize < 0 || o.Block < 0 {
		return o, argError("live config", "SnapshotEvery, SnapshotInterval, PageSize and Block must not be negative")
	}
	if o.SnapshotEvery == 0 {
		o.SnapshotEvery = 1000
	}
	if o.SnapshotInterval == 0 {
		o.SnapshotInterval = time.Second
	}
	if o.PageSize == 0 {
		o.PageSize = defaultPageSize
	}
	if o.Block == 0 {
		o.Block = time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return o, nil
}

// Start says where a live projection's state came from when it opened.
type Start int

const (
	// StartFresh means no snapshot was stored; the state starts from Init and
	// the first catch-up folds the whole log.
	StartFresh Start = iota
	// StartResumed means the stored snapshot was loaded; catch-up folds only
	// what was appended after its checkpoint.
	StartResumed
	// StartRebuild means the stored snapshot belongs to another definition (its
	// version, name or streams differ) and was set aside; the state starts
	// from Init and the first catch-up rebuilds it from the whole log. The
	// next snapshot replaces the old one.
	StartRebuild
)

func (s Start) String() string {
	switch s {
	case StartResumed:
		return "resumed"
	case StartRebuild:
		return "rebuild"
	}
	return "fresh"
}
