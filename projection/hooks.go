package projection

import (
	"context"
	"time"

	"github.com/echomq/echomq"
)

// checkpointHooks returns the checkpoint hooks of the client the sources
// were made on (the first source with a client: a Stream's).
func (s *sources) checkpointHooks() []echomq.CheckpointHook {
	for _, src := range s.list {
		if c, ok := src.(interface{ Client() *echomq.Client }); ok && c.Client() != nil {
			return echomq.HooksOf[echomq.CheckpointHook](c.Client())
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
	info := echomq.CheckpointInfo{Projection: l.p.Name, Positions: pos, Applied: applied, Duration: d, Err: err}
	for _, h := range hs {
		h.OnCheckpoint(ctx, info)
	}
}
