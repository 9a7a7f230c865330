-- complete: settle held jobs as done.
-- ARGV: 1 history cap, 2 tombstone ms (0 deletes the row), then id, token
--       pairs.
-- Reply: per job {1, 'completed'}; {0, ''} no such job; {-1, state} not
-- held by this claim (its lease lapsed, or it was settled already).
local ttl = tonumber(ARGV[2])
local now = now_ms()
-- The settled jobs leave the active set in one ZREM and each lane's
-- in-flight count drops once by its number of them; the per-lane
-- bookkeeping of many lanes is done once per call.
local out, settled, rows, seen, lanes = {}, {}, {}, {}, {}
for i = 3, #ARGV, 2 do
  local id = ARGV[i]
  local jk = JOB .. id
  local f = redis.call('HMGET', jk, 'state', 'token', 'lane', 'attempts', 'history')
  if not f[1] then
    out[#out + 1] = 0
    out[#out + 1] = ''
  elseif seen[id] then
    -- Named twice: the first settles it (the rows are written below), so
    -- the second finds its tombstone, or no row when none is kept.
    if ttl > 0 then
      out[#out + 1] = -1
      out[#out + 1] = 'completed'
    else
      out[#out + 1] = 0
      out[#out + 1] = ''
    end
  elseif not held(f, ARGV[i + 1]) then
    out[#out + 1] = -1
    out[#out + 1] = f[1]
  else
    local lane = f[3]
    settled[#settled + 1] = id
    rows[#rows + 1] = f
    seen[id] = true
    if not lanes[lane] then lanes[#lanes + 1] = lane end
    lanes[lane] = (lanes[lane] or 0) + 1
    out[#out + 1] = 1
    out[#out + 1] = 'completed'
  end
end
-- The first write is the ZREM that frees: on a full engine (maxmemory,
-- noeviction) a script whose first write may grow memory is refused, and
-- completing is what frees it (see freeing in the prelude).
if #settled > 0 then redis.call('ZREM', ACTIVE, unpack(settled)) end
for i, id in ipairs(settled) do
  local jk, f = JOB .. id, rows[i]
  if ttl > 0 then
    -- The tombstone keeps the id refused as a duplicate for the window;
    -- the payload is dropped.
    redis.call('HSET', jk, unpack(with_hist({ 'state', 'completed', 'done_ms', now, 'payload', '' },
      f[5], now, 'completed', f[4], '')))
    redis.call('PEXPIRE', jk, ttl)
  else
    redis.call('DEL', jk)
  end
end
if #lanes == 1 then
  ring(lanes[1], false, decr(INFLIGHT, lanes[1], lanes[lanes[1]]))
  stat('completed', #settled)
elseif #lanes > 1 then
  -- Many lanes: their in-flight counts are read in one HMGET and written
  -- in one HSET (and one HDEL of those that reach zero), and the lanes
  -- index (exactly the lanes with waiting jobs) says in one SMISMEMBER
  -- which of them may go back on the ring, instead of a ZCARD each.
  local counts = redis.call('HMGET', INFLIGHT, unpack(lanes))
  local put, gone = {}, {}
  for i, lane in ipairs(lanes) do
    local left = tonumber(counts[i] or '0') - lanes[lane]
    if left <= 0 then
      left = 0
      gone[#gone + 1] = lane
    else
      put[#put + 1] = lane
      put[#put + 1] = left
    end
    counts[i] = left
  end
  if #put > 0 then redis.call('HSET', INFLIGHT, unpack(put)) end
  if #gone > 0 then redis.call('HDEL', INFLIGHT, unpack(gone)) end
  local waiting = redis.call('SMISMEMBER', LANES, unpack(lanes))
  for i, lane in ipairs(lanes) do
    if waiting[i] == 1 then ring(lane, false, counts[i], -1) end
  end
  stat('completed', #settled)
end
return out
