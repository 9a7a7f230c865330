package wire

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/valkey-io/valkey-go"
)

// pollLua: KEYS the streams (one slot); ARGV mode, group, consumer, then a
// position and a count per key (count 0: only the top). Mode "read" reads each key's entries after its
// position (XRANGE (pos + COUNT); mode "group" reads them as group's
// consumer (XREADGROUP … STREAMS key pos, pos being ">" or an id of the
// consumer's pending list). Replies {TIME in ms, {top, entries} per key},
// top being the id of the key's newest entry ("" when it has none): every
// entry appended later lies above it, which is what lets a reader merge
// several streams in exact entry-id order.
var pollLua = NewScript(`
local t = redis.call('TIME')
local out = {tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)}
local mode = ARGV[1]
for i, k in ipairs(KEYS) do
  local pos, count = ARGV[2 + 2 * i], tonumber(ARGV[3 + 2 * i])
  local top = redis.call('XREVRANGE', k, '+', '-', 'COUNT', 1)
  local e = {}
  if count > 0 then
    if mode == 'group' then
      local r = redis.call('XREADGROUP', 'GROUP', ARGV[2], ARGV[3], 'COUNT', count, 'STREAMS', k, pos)
      if r and r[1] then e = r[1][2] end
    else
      e = redis.call('XRANGE', k, '(' .. pos, '+', 'COUNT', count)
    end
  end
  out[i + 1] = {top[1] and top[1][1] or '', e}
end
return out
`)

// PollReply is one key's share of a [Conn.Poll]: its newest entry id ("" for
// an empty or missing stream) and the entries read.
type PollReply struct {
	Top     string
	Entries []Entry
}

// Poll reads several streams of one slot in one round trip; see pollLua.
// group "" reads plainly after each position; otherwise as consumer of
// group. A count of 0 reads only the key's top. It returns the engine's clock (Unix ms) and one reply per key.
func (w *Conn) Poll(ctx context.Context, keys, positions []string, counts []int64, group, consumer string) (int64, []PollReply, error) {
	if len(keys) != len(positions) || len(keys) != len(counts) {
		return 0, nil, errors.New("echomq: poll: keys, positions and counts differ in length")
	}
	mode := "read"
	if group != "" {
		mode = "group"
	}
	args := make([]string, 0, 3+2*len(keys))
	args = append(args, mode, group, consumer)
	for i := range keys {
		args = append(args, positions[i], strconv.FormatInt(counts[i], 10))
	}
	arr, err := pollLua.s.Exec(ctx, w.c, keys, args).ToArray()
	if err != nil {
		return 0, nil, convert(err)
	}
	return decodePoll(arr, len(keys))
}

func decodePoll(arr []valkey.ValkeyMessage, n int) (int64, []PollReply, error) {
	if len(arr) != n+1 {
		return 0, nil, fmt.Errorf("echomq: decode poll: %d elements for %d keys", len(arr), n)
	}
	now, err := arr[0].AsInt64()
	if err != nil {
		return 0, nil, fmt.Errorf("echomq: decode poll time: %w", err)
	}
	out := make([]PollReply, n)
	for i := range out {
		pair, err := arr[i+1].ToArray()
		if err != nil || len(pair) != 2 {
			return 0, nil, errors.New("echomq: decode poll: want [top, entries]")
		}
		if out[i].Top, err = pair[0].ToString(); err != nil {
			return 0, nil, fmt.Errorf("echomq: decode poll top: %w", err)
		}
		if pair[1].IsNil() {
			continue
		}
		ents, err := pair[1].ToArray()
		if err != nil {
			return 0, nil, fmt.Errorf("echomq: decode poll entries: %w", err)
		}
		if out[i].Entries, err = decodeEntries(ents); err != nil {
			return 0, nil, err
		}
	}
	return now, out, nil
}

// XReadMulti blocks up to block for an entry of any key after its position
// and reports whether one arrived; the entries themselves are read again by
// [Conn.Poll], so this is only the wake-up of an idle merged reader.
func (w *Conn) XReadMulti(ctx context.Context, keys, positions []string, block time.Duration) (bool, error) {
	cmd := w.c.B().Xread().Count(1).Block(max(block.Milliseconds(), 1)).Streams().Key(keys...).Id(positions...).Build()
	msg, err := w.c.Do(withBlock(ctx, block), cmd).ToMessage()
	if isNil(err) {
		return false, nil
	}
	if err != nil {
		return false, convert(err)
	}
	return !msg.IsNil(), nil
}

// scanLua: KEYS one key of the slot to scan (it routes the script to that
// slot's node); ARGV cursor, pattern, count. One SCAN step.
var scanLua = NewScript(`
return redis.call('SCAN', ARGV[1], 'MATCH', ARGV[2], 'COUNT', ARGV[3])
`)

// ScanStep runs one SCAN step with MATCH pattern on the node that serves
// anchor's slot and returns the next cursor ("0" when the walk is over) and
// the keys it found.
func (w *Conn) ScanStep(ctx context.Context, anchor, cursor, pattern string, count int64) (string, []string, error) {
	arr, err := scanLua.s.Exec(ctx, w.c, []string{anchor}, []string{cursor, pattern, strconv.FormatInt(count, 10)}).ToArray()
	if err != nil {
		return "", nil, convert(err)
	}
	if len(arr) != 2 {
		return "", nil, errors.New("echomq: decode scan: want [cursor, keys]")
	}
	next, err := arr[0].ToString()
	if err != nil {
		return "", nil, fmt.Errorf("echomq: decode scan cursor: %w", err)
	}
	keys, err := arr[1].AsStrSlice()
	if err != nil {
		return "", nil, fmt.Errorf("echomq: decode scan keys: %w", err)
	}
	return next, keys, nil
}
