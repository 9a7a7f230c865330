package wire

import (
	"context"
	_ "embed"
	"fmt"
	"strconv"
	"time"
)

// The scripts below touch a stream and its dead-letter stream, which share
// the queue's hash tag, so each runs on one slot. Every one checks who owns
// an entry before it acts, so a peer that reclaimed the entry meanwhile is
// never overridden. Errors of the write that may fail (XADD refusing an id
// not above the top) are caught with pcall and returned as the reply, so
// nothing after them runs and the caller sees the engine's own message.

//go:embed lua/group_dead_letter.lua
var deadLetterSrc string

// deadLetterLua: KEYS stream, dead; ARGV group, consumer, entry id, dead
// entry id, dead entry pairs…. Moves the entry only while consumer owns it.
var deadLetterLua = NewScript(deadLetterSrc)

// DeadLetter appends pairs to dead under deadID and acks entryID in stream,
// atomically, provided consumer still owns entryID; it reports whether it
// moved the entry. An id not above the dead stream's top is
// [ErrNonMonotonic] with nothing written.
func (w *Conn) DeadLetter(ctx context.Context, stream, dead, group, consumer, entryID, deadID string, pairs []string) (bool, error) {
	args := append([]string{group, consumer, entryID, deadID}, pairs...)
	r, err := w.Run(ctx, deadLetterLua, []string{stream, dead}, args)
	if err != nil {
		return false, err
	}
	return r == int64(1), nil
}

//go:embed lua/group_release.lua
var releaseSrc string

// releaseLua: KEYS stream; ARGV group, consumer, idle ms, ids…. Sets the
// idle time of each id the consumer still owns, without counting a delivery.
var releaseLua = NewScript(releaseSrc)

// Release marks the ids consumer still owns as idle for idle, so that any
// reclaimer whose min-idle is below it takes them at once; the entries stay
// pending and their delivery counts are unchanged. It returns how many it
// released.
func (w *Conn) Release(ctx context.Context, stream, group, consumer string, idle time.Duration, ids []string) (int64, error) {
	if len(ids) == 0 {
		return 0, nil
	}
	args := append([]string{group, consumer, strconv.FormatInt(idle.Milliseconds(), 10)}, ids...)
	r, err := w.Run(ctx, releaseLua, []string{stream}, args)
	if err != nil {
		return 0, err
	}
	n, _ := r.(int64)
	return n, nil
}

//go:embed lua/group_del_consumer.lua
var delConsumerSrc string

// delConsumerLua: KEYS stream; ARGV group, consumer. Deletes the consumer
// only when it owns no pending entry; replies {1, 0} when it deleted it,
// {0, pending} when the consumer owns entries, {2, 0} when it is absent.
var delConsumerLua = NewScript(delConsumerSrc)

// DeleteConsumer deletes consumer from group when it owns no pending entry
// and reports whether it existed; a consumer that owns entries is left in
// place and pending is how many it owns. A missing group is
// [ErrGroupNotFound].
func (w *Conn) DeleteConsumer(ctx context.Context, stream, group, consumer string) (existed bool, pending int64, err error) {
	r, err := w.Run(ctx, delConsumerLua, []string{stream}, []string{group, consumer})
	if err != nil {
		return false, 0, err
	}
	arr, ok := r.([]any)
	if !ok || len(arr) != 2 {
		return false, 0, fmt.Errorf("echomq: decode delete consumer: %v", r)
	}
	flag, _ := arr[0].(int64)
	n, _ := arr[1].(int64)
	if flag == 0 {
		return true, max(n, 1), nil
	}
	return flag == 1, 0, nil
}

//go:embed lua/group_replay.lua
var replaySrc string

// replayLua: KEYS stream, dead; ARGV dead entry id, new entry id, pairs….
// Re-appends a dead letter's payload and deletes the dead letter, once.
var replayLua = NewScript(replaySrc)

// Replay appends pairs to stream under newID and deletes deadID from dead,
// atomically; it returns false (nothing written) when deadID is not in dead.
// An id not above the stream's top is [ErrNonMonotonic] with nothing
// written.
func (w *Conn) Replay(ctx context.Context, stream, dead, deadID, newID string, pairs []string) (bool, error) {
	args := append([]string{deadID, newID}, pairs...)
	r, err := w.Run(ctx, replayLua, []string{stream, dead}, args)
	if err != nil {
		return false, err
	}
	return r == int64(1), nil
}

// XDel deletes ids from the stream at key and returns how many existed.
func (w *Conn) XDel(ctx context.Context, key string, ids ...string) (int64, error) {
	if len(ids) == 0 {
		return 0, nil
	}
	n, err := w.c.Do(ctx, w.c.B().Xdel().Key(key).Id(ids...).Build()).AsInt64()
	return n, convert(err)
}
