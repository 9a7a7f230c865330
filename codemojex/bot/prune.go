package bot

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/tables"
)

// pruneEvery is how often the notices table is pruned.
const pruneEvery = time.Hour

// noticeTime is when the event a notices key names happened: the key is
// "<event id>.<player>", the event id a branded id or, for an event
// appended without one, its entry id.
func noticeTime(key string) (time.Time, bool) {
	event, _, ok := strings.Cut(key, ".")
	if !ok {
		return time.Time{}, false
	}
	if id, err := echomq.ParseID(event); err == nil {
		return id.Time(), true
	}
	if e, err := echomq.ParseEntryID(event); err == nil {
		return time.UnixMilli(int64(e.Ms)), true
	}
	return time.Time{}, false
}

// prune deletes the notices of events older than Config.NoticeTTL, so the
// table holds only the window in which an event can still be redelivered.
// It returns how many it deleted.
func (b *Bot) prune(ctx context.Context) (int, error) {
	keys, err := tables.New(b.c, b.cfg.Queue, tableNotices).Keys(ctx)
	if err != nil {
		return 0, err
	}
	cutoff := time.Now().Add(-b.cfg.NoticeTTL)
	old := slices.DeleteFunc(keys, func(k string) bool {
		at, ok := noticeTime(k)
		return !ok || !at.Before(cutoff)
	})
	n := 0
	for chunk := range slices.Chunk(old, 500) {
		err := b.update(ctx, func(ctx context.Context, tx *tables.Tx) error {
			for _, k := range chunk {
				if err := tx.Delete(tableNotices, k); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return n, err
		}
		n += len(chunk)
	}
	return n, nil
}

// runPrune prunes at once and then every pruneEvery until ctx is done; a
// failed prune is logged and tried again soon (after 1s, doubling up to
// pruneEvery), not an interval later.
func (b *Bot) runPrune(ctx context.Context) {
	retry := time.Second
	for {
		wait := pruneEvery
		if n, err := b.prune(ctx); err != nil && ctx.Err() == nil {
			b.log.Warn("bot: prune notices; trying again", "err", err, "in", retry)
			wait, retry = retry, min(2*retry, pruneEvery)
		} else {
			retry = time.Second
			if n > 0 {
				b.log.Info("bot: pruned notices", "deleted", n)
			}
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}
