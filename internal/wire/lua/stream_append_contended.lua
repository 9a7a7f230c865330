-- stream_append_contended: the plain append (no idempotency key, no
-- expected top) on a contended stream, the lean twin of stream_append for
-- its common case: one TIME, one XREVRANGE of the top, the ids chosen above
-- it, one XADD per record. It writes nothing and hands the append back to
-- stream_append for everything else.
--
-- KEYS[1] the stream; KEYS[2] the queue's engine id cells (same slot). ARGV:
-- the writer's node, max skew ms, then '1' and the fields of one record, or
-- 'n' and per record its field count and fields.
--
-- Replies (arrays): {'ok', sec, usec, top entry id, own, receipt...}, own 1
-- when the top is the id the engine last chose for this writer's node, else
-- 0;
-- {'back', sec, usec, why} when the stream is empty ('empty'), its top is
-- more than max skew ahead of TIME ('skew') or more than 2 ms ('ahead'), or
-- its last entry was deleted (XADD compares with the last generated id,
-- above the top read: 'tail').
-- Nothing is written then. Other engine errors (WRONGTYPE) are returned as
-- they are.
--
-- Law: the same as stream_append's: each id is the engine's (node 1023,
-- never leased to a writer), the next value of the queue's near cell that is
-- not earlier than TIME and lies above the top, so no receipt is handed out
-- twice in the queue; ahead of TIME only past 2048 chosen ids in one
-- millisecond of the queue.
-- Cost: the receipt (EVT and 11 base62 digits of (ms - EPOCH) << 22 | tail,
-- 63 bits) is split once at 62^7 into a high part (4 digits) and a low part
-- (7 digits), each exact in a double, instead of a two-limb long division
-- per digit; the bytes go out in one string.char.

local EPOCH = 1704067200000
local TAILMAX = 4194303
local M = 3521614606208 -- 62^7
local NONMONO = 'The ID specified in XADD is equal or smaller than the target stream top item'

local call, pcall, sub, find, char, format = redis.call, redis.pcall, string.sub, string.find, string.char, string.format
local tonumber, unpack = tonumber, unpack
local key, argv = KEYS[1], ARGV

local t = call('TIME')
local sec, usec = t[1], t[2]
local u = tonumber(usec)
local now = tonumber(sec) * 1000 + (u - u % 1000) / 1000

local r = pcall('XREVRANGE', key, '+', '-', 'COUNT', 1)
if r.err then return r end -- WRONGTYPE, as the engine says it
local top = r[1]
if not top then return {'back', sec, usec, 'empty'} end
top = top[1]
local dash = find(top, '-', 1, true)
local ms, tail = tonumber(sub(top, 1, dash - 1)), tonumber(sub(top, dash + 1))
if ms > now + tonumber(argv[2]) then return {'back', sec, usec, 'skew'} end
if tail > TAILMAX then tail = TAILMAX end

-- The engine's node and the near region of its sequences (see
-- stream_append): ids from the queue's near cell, (ms - EPOCH) * 2048 + k.
-- A top more than LEAD ms ahead is handed back (stream_append follows it in
-- the ahead region).
local ENGINE, HALF, LEAD = 4190208, 2048, 2
if ms > now + LEAD then return {'back', sec, usec, 'ahead'} end
-- A partition's queue takes CW sequences of a millisecond from COFF (see
-- ids_prelude.lua, whose law this copy keeps); any other queue all 2048.
local CW, COFF = HALF, 0
local pi, pp = string.match(key, '^emq:{.-%.emq%-p(%d+)of(%d+)%-%d+}:')
if pi then
  CW = math.floor(HALF / tonumber(pp))
  COFF = tonumber(pi) * CW
end
local cell = call('HMGET', KEYS[2], 'n', 'wn')
local c = tonumber(cell[1] or '0')
local own = 0
if cell[2] == argv[1] and tail == ENGINE + COFF + c % CW and ms == (c - c % CW) / CW + EPOCH then own = 1 end
c = c + 1
local base = ((ms > now and ms or now) - EPOCH) * CW
if base > c then c = base end
if tail >= ENGINE + HALF then
  base = (ms + 1 - EPOCH) * CW
  if base > c then c = base end
elseif tail >= ENGINE then
  local j = tail - ENGINE - COFF
  if j < 0 then
    base = (ms - EPOCH) * CW
  elseif j + 1 >= CW then
    base = (ms + 1 - EPOCH) * CW
  else
    base = (ms - EPOCH) * CW + j + 1
  end
  if base > c then c = base end
end

-- receipt returns the EVT id of the A1 entry id (ms, tail): the snowflake
-- h << 22 | tail (h = ms - EPOCH < 2^41) is hi * 62^7 + lo, found by two
-- exact steps of h * 2^11 (each product stays below 2^53). Lua's % is
-- a - floor(a/b)*b, whose quotient can round up by one: hence the fix.
local function receipt(h, tl)
  local a = h * 2048
  local q = a % M
  if q < 0 then q = q + M end
  local hi = (a - q) / M * 2048
  a = q * 2048
  q = a % M
  if q < 0 then q = q + M end
  hi = hi + (a - q) / M
  local lo = q + tl
  if lo >= M then lo, hi = lo - M, hi + 1 end
  local l7 = lo % 62; lo = (lo - l7) / 62
  local l6 = lo % 62; lo = (lo - l6) / 62
  local l5 = lo % 62; lo = (lo - l5) / 62
  local l4 = lo % 62; lo = (lo - l4) / 62
  local l3 = lo % 62; lo = (lo - l3) / 62
  local l2 = lo % 62
  local l1 = (lo - l2) / 62
  local h4 = hi % 62; hi = (hi - h4) / 62
  local h3 = hi % 62; hi = (hi - h3) / 62
  local h2 = hi % 62
  local h1 = (hi - h2) / 62
  -- The bytes of the digits (0-9, A-Z, a-z), after E V T.
  return char(69, 86, 84,
    h1 + (h1 < 10 and 48 or h1 < 36 and 55 or 61), h2 + (h2 < 10 and 48 or h2 < 36 and 55 or 61),
    h3 + (h3 < 10 and 48 or h3 < 36 and 55 or 61), h4 + (h4 < 10 and 48 or h4 < 36 and 55 or 61),
    l1 + (l1 < 10 and 48 or l1 < 36 and 55 or 61), l2 + (l2 < 10 and 48 or l2 < 36 and 55 or 61),
    l3 + (l3 < 10 and 48 or l3 < 36 and 55 or 61), l4 + (l4 < 10 and 48 or l4 < 36 and 55 or 61),
    l5 + (l5 < 10 and 48 or l5 < 36 and 55 or 61), l6 + (l6 < 10 and 48 or l6 < 36 and 55 or 61),
    l7 + (l7 < 10 and 48 or l7 < 36 and 55 or 61))
end

local out = {'ok', sec, usec, top, own}
local one, a, last = argv[3] == '1', 4, #argv
repeat
  local first, stop = a, last
  if not one then first, stop = a + 1, a + tonumber(argv[a]) end
  local seq = c % CW
  local h = (c - seq) / CW
  local rc = receipt(h, ENGINE + COFF + seq)
  local x = pcall('XADD', key, format('%.0f-%.0f', h + EPOCH, ENGINE + COFF + seq), 'id', rc, unpack(argv, first, stop))
  if type(x) == 'table' and x.err then
    -- Above the top read but not above the last generated id: the last
    -- entry was deleted. Only the first XADD can meet it (nothing written).
    if a == 4 and find(x.err, NONMONO, 1, true) then return {'back', sec, usec, 'tail'} end
    if a > 4 then call('HSET', KEYS[2], 'n', format('%.0f', c - 1), 'wn', argv[1]) end
    return x
  end
  out[#out + 1] = rc
  a = stop + 1
  c = c + 1
until a > last
call('HSET', KEYS[2], 'n', format('%.0f', c - 1), 'wn', argv[1])
return out
