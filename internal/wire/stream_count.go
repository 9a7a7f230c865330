package wire

import (
	"context"
	"fmt"
	"strconv"
)

// countAfterLua: KEYS stream; ARGV entry id ("" for none), cap. Counts the
// entries strictly above the id, reading at most cap entries on each side
// of it inside the engine: the answer is {count, 1} when exact, {cap, 0}
// when both sides hold cap entries or more. The length and both ends
// answer the cheap cases (nothing above, everything above) without a scan,
// and the smaller side is counted when one is small, so it holds after
// trims and deletions, where the engine's own group lag is NULL.
var countAfterLua = NewScript(`
local key, last, cap = KEYS[1], ARGV[1], tonumber(ARGV[2])
local function cmp(a, b)
  local am, as = string.match(a, '^(%d+)-(%d+)$')
  local bm, bs = string.match(b, '^(%d+)-(%d+)$')
  if #am ~= #bm then return #am < #bm and -1 or 1 end
  if am ~= bm then return am < bm and -1 or 1 end
  if #as ~= #bs then return #as < #bs and -1 or 1 end
  if as ~= bs then return as < bs and -1 or 1 end
  return 0
end
local t = redis.pcall('TYPE', key)
if type(t) == 'table' then t = t.ok end
if t == 'none' then return {0, 1} end
if t ~= 'stream' then return redis.error_reply('WRONGTYPE Operation against a key holding the wrong kind of value') end
local n = redis.call('XLEN', key)
if n == 0 then return {0, 1} end
if last == '' then return {n, 1} end
local top = redis.call('XREVRANGE', key, '+', '-', 'COUNT', 1)[1][1]
if cmp(last, top) >= 0 then return {0, 1} end
local first = redis.call('XRANGE', key, '-', '+', 'COUNT', 1)[1][1]
if cmp(last, first) < 0 then return {n, 1} end
local above = #redis.call('XRANGE', key, '(' .. last, '+', 'COUNT', cap)
if above < cap then return {above, 1} end
local upto = #redis.call('XRANGE', key, '-', last, 'COUNT', cap)
if upto < cap then return {n - upto, 1} end
return {cap, 0}
`)

// CountAfter counts the entries of key above the entry id after ("" counts
// them all), reading at most limit entries on each side inside the engine;
// exact is false when the count is a lower bound (limit).
func (w *Conn) CountAfter(ctx context.Context, key, after string, limit int64) (n int64, exact bool, err error) {
	v, err := w.Run(ctx, countAfterLua, []string{key}, []string{after, strconv.FormatInt(limit, 10)})
	if err != nil {
		return 0, false, err
	}
	return decodeCount(v)
}

func decodeCount(v any) (int64, bool, error) {
	arr, ok := v.([]any)
	if !ok || len(arr) != 2 {
		return 0, false, fmt.Errorf("echomq: decode count reply: %T %v", v, v)
	}
	n, ok1 := arr[0].(int64)
	e, ok2 := arr[1].(int64)
	if !ok1 || !ok2 {
		return 0, false, fmt.Errorf("echomq: decode count reply: %v", arr)
	}
	return n, e == 1, nil
}
