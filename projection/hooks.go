package projection

import (
	"context"
	"time"

	"github.com/echomq/echomq"
)

// CheckpointHook observes the snapshots of a [Live]: a checkpoint made
// durable. A Live finds its hooks among those of the client its sources
// were made on ([echomq.Config.Hooks], with [echomq.HooksOf]); the
// prometheus and otel modules implement it.
type CheckpointHook interface {
	OnCheckpoint(ctx context.Context, c CheckpointInfo)
}

// CheckpointInfo is one saved projection snapshot.
type CheckpointInfo struct {
	// Projection is the projection's name.
	Projection string
	// Positions maps each source stream key to the last entry folded.
	Positions map[string]echomq.EntryID
	// Applied counts the events folded so far.
	Applied  int64
	Duration time.Duration
	Err      error
}

// checkpointHooks returns the checkpoint hooks of the client the sources
// were made on (the first source with a client: a Stream's).
func (s *sources) checkpointHooks() []CheckpointHook {
	for _, src := range s.list {
		if c, ok := src.(interface{ Client() *echomq.Client }); ok && c.Client() != nil {
			return echomq.HooksOf[CheckpointHook](c.Client())
		}
	}
	return nil
}

// checkpointed reports a snapshot write to the checkpoint hooks.
func (l *Live[S]) checkpointed(ctx context.Context, cp Checkpoint, applied int64, d time.Duration, err error) {
	hs := l.src.checkpointHooks()
	if len(hs) == 0 {
		return
	}
	pos := make(map[string]echomq.EntryID, len(cp))
	for _, p := range cp {
		pos[p.Stream] = p.Last
	}
	info := CheckpointInfo{Projection: l.p.Name, Positions: pos, Applied: applied, Duration: d, Err: err}
	for _, h := range hs {
		h.OnCheckpoint(ctx, info)
	}
}
