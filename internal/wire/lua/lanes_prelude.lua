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

-- freeing lets a script whose work frees or moves memory (settling,
-- renewing leases, the janitor) run on a full engine. At maxmemory under
-- noeviction the engine refuses (OOM) a script's first write that may grow
-- memory (HSET, ZADD, …) unless the script has written before: it cannot
-- undo what a script already wrote. ZREM of the empty member, which no set
-- holds, is a write that changes nothing and lets the rest run. Enqueue
-- does not call it: a full engine refuses new jobs.
local function freeing()
  redis.call('ZREM', ACTIVE, '')
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

-- default_limit is the limit of lanes without an override; a script that
-- reads META anyway (claim) sets it from there and spares the lookup.
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

-- gated says whether any lane is paused or held, asked once per script
-- (one EXISTS of both sets): almost always none is, and then no lane needs
-- its own SISMEMBER and ZSCORE. No script adds a pause or a hold and then
-- asks again, so the answer cannot go stale the wrong way; a hold that
-- ended in the same script only costs the exact checks.
local gated
local function paused_or_held(lane)
  if gated == nil then gated = redis.call('EXISTS', PAUSED, HOLD) > 0 end
  if not gated then return false end
  return redis.call('SISMEMBER', PAUSED, lane) == 1 or redis.call('ZSCORE', HOLD, lane) ~= false
end

-- A lane is servable when it has a waiting job, is below its in-flight
-- limit, and is neither paused nor held. The ring holds the servable lanes;
-- a lane that stops being servable by a pause, a hold or a lowered limit is
-- dropped lazily by the next claim that meets it, so those never scan the
-- ring. inflight and depth are the lane's counts when the caller knows
-- them (a depth of 1 stands for "not empty").
local function servable(lane, inflight, depth)
  if (depth or redis.call('ZCARD', LANE .. lane)) == 0 then return false end
  inflight = inflight or inflight_of(lane)
  -- Every limit is at least 1: an idle lane needs no limit lookup.
  if inflight > 0 and inflight >= limit_of(lane) then return false end
  return not paused_or_held(lane)
end

-- A wake token per lane that became servable; parked dispatchers BLPOP the
-- list. A token only says "claim again", so the list stays short: a
-- dispatcher that claims serves every ready lane it has room for. Tokens
-- pile up only while no dispatcher is parked (all are busy); the list is
-- cut back to 16 once it passes 32, so a wake costs one push, not a length
-- check and a push.
local function wake(n)
  local t = {}
  for i = 1, math.min(n, 16) do t[i] = '1' end
  if redis.call('LPUSH', WAKE, unpack(t)) > 32 then redis.call('LTRIM', WAKE, 0, 15) end
end

-- ring appends a lane that became servable at the tail of the rotation and
-- wakes a parked dispatcher. A lane already on the ring stays where it is.
-- With force, a lane on the ring that just became servable again (resume,
-- hold end, raised limit) wakes a dispatcher too. inflight and depth are
-- as for servable; a caller that just put a job in the lane passes a depth,
-- one that knows the lane has waiting jobs (the lanes index says so) but
-- did not just fill it passes -1.
-- The ring set's SADD is the membership test. A lane the caller did not
-- just fill that has jobs in flight may be on the ring already (below a
-- limit above 1): for it one SISMEMBER is cheaper than its checks.
local function ring(lane, force, inflight, depth)
  if not depth or depth < 0 then
    if not depth and redis.call('ZCARD', LANE .. lane) == 0 then return end
    inflight = inflight or inflight_of(lane)
    if inflight > 0 and not force and redis.call('SISMEMBER', RINGSET, lane) == 1 then return end
  end
  if not servable(lane, inflight, 1) then return end
  if redis.call('SADD', RINGSET, lane) == 1 then
    redis.call('RPUSH', RING, lane)
    wake(1)
  elseif force then
    wake(1)
  end
end

-- to_lane puts a job in its lane at its arrival number and reports whether
-- the lane was empty. A lane that was empty joins the lanes index (exactly
-- the lanes with waiting jobs), so the index's SADD is that test. Only a
-- claim takes a job out of a lane, and it leaves the index with the lane's
-- last job.
local function to_lane(lane, seq, id)
  redis.call('ZADD', LANE .. lane, seq, id)
  return redis.call('SADD', LANES, lane) == 1
end

-- decr takes by (default 1) from a counter field and returns what is left,
-- deleting the field at zero so idle lanes leave no trace.
local function decr(key, field, by)
  local n = redis.call('HINCRBY', key, field, -(by or 1))
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
-- previous state. extra are more fields for the row's one HSET.
local function to_dead(id, h, now, event, attempt, reason, extra)
  local fields = { 'state', 'dead', 'dead_ms', now, 'last_error', reason }
  for _, v in ipairs(extra or {}) do fields[#fields + 1] = v end
  redis.call('HSET', JOB .. id, unpack(with_hist(fields, h, now, event, attempt, reason)))
  redis.call('ZADD', DEAD, now, id)
end

-- held checks the fencing token of a claim: only the claim that holds the
-- job (state active, same token) may settle or extend it. The token is
-- bumped by every claim and never reused, so a worker whose lease lapsed
-- (and was perhaps claimed again) cannot touch the job.
local function held(f, token)
  return f[1] == 'active' and f[2] == token
end
