-- Prelude of every lanes script (prepended by lanes_scripts.go).
--
-- KEYS is the queue's key vector, in this order; every key carries the
-- queue's hash tag, so a script runs on one slot. KEYS[1] and KEYS[2] are
-- prefixes, not keys: a job row is JOB..id and a lane is LANE..name, both
-- under the same tag.
local JOB, LANE, RING, RINGSET, ACTIVE, SCHEDULE, BACKOFF, HOLD, DEAD,
  PAUSED, INFLIGHT, LIMITS, LANES, STATS, SEQ, WAKE, META = unpack(KEYS)

-- ARGV[1] of every script is the history cap (entries kept per job; 0 keeps
-- none).
local HIST = tonumber(ARGV[1])

-- Server time in ms: every lease, due time and hold is on the engine's
-- clock, so workers with skewed clocks agree.
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

-- Only running totals are counted; the gauges are the cardinalities of the
-- state sets (and waiting is what the totals leave), so no path can make
-- them drift.
local function stat(field, d)
  redis.call('HINCRBY', STATS, field, d)
end

-- with_hist appends one entry to a job's history (h, the row's history
-- field, newline-separated "ms|event|attempt|detail" entries, newest last,
-- at most HIST) and adds the field to the HSET arguments fields. The
-- history lives in the row, so it costs no write of its own and expires
-- with the tombstone.
local function with_hist(fields, h, now, event, attempt, detail)
  if HIST <= 0 then return fields end
  local e = now .. '|' .. event .. '|' .. (attempt or 0) .. '|' .. string.gsub(detail or '', '\n', ' ')
  if h and h ~= '' then h = h .. '\n' .. e else h = e end
  local _, n = string.gsub(h, '\n', '\n')
  while n >= HIST do
    h = string.sub(h, string.find(h, '\n', 1, true) + 1)
    n = n - 1
  end
  fields[#fields + 1] = 'history'
  fields[#fields + 1] = h
  return fields
end

local default_limit
local function limit_of(lane)
  local l = redis.call('HGET', LIMITS, lane)
  if l then return tonumber(l) end
  if not default_limit then
    default_limit = tonumber(redis.call('HGET', META, 'lane_limit') or '1')
  end
  return default_limit
end

local function inflight_of(lane)
  return tonumber(redis.call('HGET', INFLIGHT, lane) or '0')
end

-- A lane is servable when it has a waiting job, is below its in-flight
-- limit, and is neither paused nor held. The ring holds the servable lanes;
-- a lane that stops being servable by a pause, a hold or a lowered limit is
-- dropped lazily by the next claim that meets it, so those never scan the
-- ring. inflight and depth are the lane's counts when the caller knows
-- them.
local function servable(lane, inflight, depth)
  if (depth or redis.call('ZCARD', LANE .. lane)) == 0 then return false end
  inflight = inflight or inflight_of(lane)
  -- Every limit is at least 1: an idle lane needs no limit lookup.
  if inflight > 0 and inflight >= limit_of(lane) then return false end
  return redis.call('SISMEMBER', PAUSED, lane) == 0 and not redis.call('ZSCORE', HOLD, lane)
end

-- A wake token per lane that became servable; parked dispatchers BLPOP the
-- list. A token only says "claim again", so the list stays short: a
-- dispatcher that claims serves every ready lane it has room for.
local function wake(n)
  local len = redis.call('LLEN', WAKE)
  for _ = len + 1, math.min(len + n, 16) do redis.call('LPUSH', WAKE, '1') end
end

-- ring appends a lane that became servable at the tail of the rotation and
-- wakes a parked dispatcher. A lane already on the ring stays where it is.
-- With force, a lane on the ring that just became servable again (resume,
-- hold end, raised limit) wakes a dispatcher too.
local function ring(lane, force, inflight, depth)
  depth = depth or redis.call('ZCARD', LANE .. lane)
  if depth == 0 then return end
  if redis.call('SISMEMBER', RINGSET, lane) == 1 then
    if force and servable(lane, inflight, depth) then wake(1) end
    return
  end
  if servable(lane, inflight, depth) then
    redis.call('SADD', RINGSET, lane)
    redis.call('RPUSH', RING, lane)
    wake(1)
  end
end

-- to_lane puts a job in its lane at its arrival number and returns the
-- lane's depth; a lane that was empty joins the lanes index (the lanes with
-- waiting jobs). Only a claim takes a job out of a lane, and it leaves the
-- index with the lane's last job.
local function to_lane(lane, seq, id)
  redis.call('ZADD', LANE .. lane, seq, id)
  local depth = redis.call('ZCARD', LANE .. lane)
  if depth == 1 then redis.call('SADD', LANES, lane) end
  return depth
end

-- unring_tail drops a lane a claim just rotated to the tail: LREM from the
-- tail finds it at once.
local function unring_tail(lane)
  redis.call('LREM', RING, -1, lane)
  redis.call('SREM', RINGSET, lane)
end

-- decr takes one from a counter field and returns what is left, deleting
-- the field at zero so idle lanes leave no trace.
local function decr(key, field)
  local n = redis.call('HINCRBY', key, field, -1)
  if n <= 0 then redis.call('HDEL', key, field) end
  return n
end

-- leave_active takes a job out of the active set and returns its lane's
-- in-flight count after.
local function leave_active(id, lane)
  redis.call('ZREM', ACTIVE, id)
  return decr(INFLIGHT, lane)
end

-- to_dead parks a job in the dead set; the caller has taken it out of its
-- previous state.
local function to_dead(id, h, now, event, attempt, reason)
  redis.call('HSET', JOB .. id, unpack(with_hist({ 'state', 'dead', 'dead_ms', now, 'last_error', reason },
    h, now, event, attempt, reason)))
  redis.call('ZADD', DEAD, now, id)
end

-- held checks the fencing token of a claim: only the claim that holds the
-- job (state active, same token) may settle or extend it. The token is
-- bumped by every claim and never reused, so a worker whose lease lapsed
-- (and was perhaps claimed again) cannot touch the job.
local function held(f, token)
  return f[1] == 'active' and f[2] == token
end
