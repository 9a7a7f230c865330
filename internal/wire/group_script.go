package wire

import (
	"context"
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

// deadLetterLua: KEYS stream, dead; ARGV group, consumer, entry id, dead
// entry id, dead entry pairs…. Moves the entry only while consumer owns it.
var deadLetterLua = NewScript(`
local p = redis.call('XPENDING', KEYS[1], ARGV[1], ARGV[3], ARGV[3], 1, ARGV[2])
if #p == 0 then return 0 end
local r = redis.pcall('XADD', KEYS[2], ARGV[4], unpack(ARGV, 5))
if type(r) == 'table' and r.err then return r end
redis.call('XACK', KEYS[1], ARGV[1], ARGV[3])
return 1
`)

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

// releaseLua: KEYS stream; ARGV group, consumer, idle ms, ids…. Sets the
// idle time of each id the consumer still owns, without counting a delivery.
var releaseLua = NewScript(`
local n = 0
for i = 4, #ARGV do
  if #redis.call('XPENDING', KEYS[1], ARGV[1], ARGV[i], ARGV[i], 1, ARGV[2]) > 0 then
    redis.call('XCLAIM', KEYS[1], ARGV[1], ARGV[2], 0, ARGV[i], 'IDLE', ARGV[3], 'JUSTID')
    n = n + 1
  end
end
return n
`)

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

// delConsumerLua: KEYS stream; ARGV group, consumer. Deletes the consumer
// only when it owns no pending entry; replies {1, 0} when it deleted it,
// {0, pending} when the consumer owns entries, {2, 0} when it is absent.
var delConsumerLua = NewScript(`
local s = redis.pcall('XPENDING', KEYS[1], ARGV[1])
if type(s) == 'table' and s.err then return s end
if s[4] then
  for _, c in ipairs(s[4]) do
    if c[1] == ARGV[2] then return {0, tonumber(c[2])} end
  end
end
for _, c in ipairs(redis.call('XINFO', 'CONSUMERS', KEYS[1], ARGV[1])) do
  for i = 1, #c, 2 do
    if c[i] == 'name' and c[i + 1] == ARGV[2] then
      redis.call('XGROUP', 'DELCONSUMER', KEYS[1], ARGV[1], ARGV[2])
      return {1, 0}
    end
  end
end
return {2, 0}
`)

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

// replayLua: KEYS stream, dead; ARGV dead entry id, new entry id, pairs….
// Re-appends a dead letter's payload and deletes the dead letter, once.
var replayLua = NewScript(`
if #redis.call('XRANGE', KEYS[2], ARGV[1], ARGV[1]) == 0 then return 0 end
local r = redis.pcall('XADD', KEYS[1], ARGV[2], unpack(ARGV, 3))
if type(r) == 'table' and r.err then return r end
redis.call('XDEL', KEYS[2], ARGV[1])
return 1
`)

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
