-- Prelude of the scripts that choose ids (stream_append.lua and
-- dcb_append.lua; prepended in Go): the arithmetic of the id law, one copy.
-- See docs/keyspace.md, "Ids under many writers".

local EPOCH = 1704067200000
local TAILMAX = 4194303
local ALPHA = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
-- The engine's node: its ids sort above every writer's within a millisecond.
-- Its 4096 sequences of a millisecond are split in two regions, each with
-- its own monotonic cell in the queue's engine id hash, (ms - EPOCH) * 2048
-- + k (below 2^53, exact in a double): 'n' (near) for ids at most lead
-- ahead of the clock, sequences 0..2047; 'a' (ahead) for ids that follow a
-- top further ahead (a caller's id, a clock stepped back), sequences
-- 2048..4095. An id that follows a top ahead of the clock thus never drags
-- the near cell, and with it every other stream of the queue, ahead of the
-- clock.
local ENGINE, HALF = 4190208, 2048 -- 1023 << 12, 4096 / 2
-- A partition's queue ("<q>.emq-p<i>of<P>-<salt>", the hash tag of
-- KEYS[1]) has cells of its own, but its writers' ids are the logical
-- queue's: so that the engine's ids of two partitions never coincide
-- either, partition i takes CW = floor(2048 / P) sequences of each region
-- per millisecond, from COFF = i * CW. A cell value is then
-- (ms - EPOCH) * CW + k. Any other queue: CW = 2048, COFF = 0.
local CW, COFF = HALF, 0
do
  local pi, pp = string.match(KEYS[1], '^emq:{.-%.emq%-p(%d+)of(%d+)%-%d+}:')
  if pi then
    CW = math.floor(HALF / tonumber(pp))
    COFF = tonumber(pi) * CW
  end
end

-- receipt returns the branded receipt of the A1 entry id (ms, tail): EVT
-- and 11 base62 digits of (ms - EPOCH) << 22 | tail, by long division in
-- two limbs (Lua numbers are doubles; a snowflake has 63 bits), unrolled
-- so that the digits are joined in one concatenation (least significant first in d).
local function receipt(ms, tail)
  local sub = string.sub
  local hi, lo, r, x = ms - EPOCH, tail
  local d = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}
  for i = 1, 11 do
    r = hi % 62
    hi = (hi - r) / 62
    x = r * 4194304 + lo
    r = x % 62
    lo = (x - r) / 62
    d[i] = r + 1
  end
  return 'EVT' .. sub(ALPHA, d[11], d[11]) .. sub(ALPHA, d[10], d[10]) .. sub(ALPHA, d[9], d[9]) ..
    sub(ALPHA, d[8], d[8]) .. sub(ALPHA, d[7], d[7]) .. sub(ALPHA, d[6], d[6]) ..
    sub(ALPHA, d[5], d[5]) .. sub(ALPHA, d[4], d[4]) .. sub(ALPHA, d[3], d[3]) ..
    sub(ALPHA, d[2], d[2]) .. sub(ALPHA, d[1], d[1])
end

-- split returns the numbers of an entry id 'ms-seq'.
local function split(eid)
  local dash = string.find(eid, '-', 1, true)
  return tonumber(string.sub(eid, 1, dash - 1)), tonumber(string.sub(eid, dash + 1))
end

-- last_generated returns the last generated id of the stream at key, which
-- XADD compares with even after the last entry was deleted ('0-0' when
-- none).
local function last_generated(key)
  if redis.call('EXISTS', key) == 0 then return '0-0' end
  local info = redis.call('XINFO', 'STREAM', key)
  if info['last-generated-id'] then return info['last-generated-id'] end
  for i = 1, #info, 2 do
    if info[i] == 'last-generated-id' then return info[i + 1] end
  end
  return '0-0'
end

-- engine_cell returns the next value of region's cell (last: its current
-- value) for an id above the top (tms, ttail) and not before the clock now:
-- the engine's next id (see cell_id).
-- cell_after returns the first cell value whose id lies above the engine
-- id of sequence k (within its region) in millisecond tms: the next of this
-- queue's sequences in tms, or its first of tms + 1.
local function cell_after(tms, k)
  local j = k - COFF
  if j < 0 then return (tms - EPOCH) * CW end
  if j + 1 >= CW then return (tms + 1 - EPOCH) * CW end
  return (tms - EPOCH) * CW + j + 1
end

local function engine_cell(last, region, now, tms, ttail)
  local tail = math.min(ttail, TAILMAX)
  local tseq = tail >= ENGINE and tail - ENGINE or -1 -- the top's engine sequence
  local c = math.max(last + 1, (math.max(now, tms) - EPOCH) * CW)
  if region == 'n' then
    if tseq >= HALF then
      c = math.max(c, (tms + 1 - EPOCH) * CW)
    elseif tseq >= 0 then
      c = math.max(c, cell_after(tms, tseq))
    end
  elseif tseq >= HALF then
    c = math.max(c, cell_after(tms, tseq - HALF))
  end
  return c
end

-- cell_id returns the entry id (ms, tail) of region's cell value c.
local function cell_id(c, region)
  local k = c % CW
  return (c - k) / CW + EPOCH, ENGINE + (region == 'a' and HALF or 0) + COFF + k
end
