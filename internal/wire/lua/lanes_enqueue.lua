-- enqueue: admit jobs, in order.
-- ARGV: 1 history cap, 2 n, then per job: JOB id, lane, payload, delay ms
--       (0 = now), max attempts.
-- Reply: per job {1, seq} admitted, or {0, state} refused because a row
-- (live job, dead job or completed tombstone) already holds the id;
-- nothing is written for a refused job.

-- inflights returns the in-flight counts of distinct lanes, in their order,
-- in one read whatever their number: a call that covers many lanes pays its
-- bookkeeping once, not once per lane.
local function inflights(list)
  if #list == 1 then return { inflight_of(list[1]) } end
  local v = redis.call('HMGET', INFLIGHT, unpack(list))
  for i = 1, #list do v[i] = tonumber(v[i] or '0') end
  return v
end

-- set_new adds distinct members to the set key and returns those that were
-- not in it, in their order: one SADD for one member (its reply is the
-- test), one SMISMEMBER and one SADD for many.
local function set_new(key, list)
  if #list == 0 then return list end
  if #list == 1 then
    if redis.call('SADD', key, list[1]) == 1 then return list end
    return {}
  end
  local m = redis.call('SMISMEMBER', key, unpack(list))
  local new = {}
  for i, v in ipairs(list) do
    if m[i] == 0 then new[#new + 1] = v end
  end
  if #new > 0 then redis.call('SADD', key, unpack(new)) end
  return new
end

-- ring_filled is ring for distinct lanes the caller just filled (each was
-- empty before the call), with their bookkeeping done once for all: one
-- read of their in-flight counts, one membership test of the ring set, one
-- RPUSH and one wake. The lanes join the rotation in their order.
local function ring_filled(list)
  if #list == 0 then return end
  if #list == 1 then return ring(list[1], false, nil, 1) end
  local counts = inflights(list)
  local ok = {}
  for i, lane in ipairs(list) do
    if servable(lane, counts[i], 1) then ok[#ok + 1] = lane end
  end
  if #ok == 0 then return end
  local new = set_new(RINGSET, ok)
  if #new > 0 then
    redis.call('RPUSH', RING, unpack(new))
    wake(#new)
  end
end

local n = tonumber(ARGV[2])
local now = now_ms()
-- Reserve the arrival numbers of the whole call at once; a refused job
-- leaves a gap, which orders nothing.
local seq0 = redis.call('INCRBY', SEQ, n) - n
local out, admitted, delayed = {}, 0, false
-- The lanes this call put jobs in, each once, in order: whether each was
-- empty (the lanes index), and the ring's work for those that were, is
-- asked once for all of them after the loop.
local filled, seen = {}, {}
for i = 0, n - 1 do
  local b = 3 + i * 5
  local id, lane, delay = ARGV[b], ARGV[b + 1], tonumber(ARGV[b + 3])
  local jk = JOB .. id
  local existing = redis.call('HGET', jk, 'state')
  if existing then
    out[#out + 1] = 0
    out[#out + 1] = existing
  else
    local seq = seq0 + i + 1
    -- attempts and token start absent (0); the history starts with the
    -- enqueue itself, which enq_ms (and due_ms) already say.
    if delay > 0 then
      -- The arrival number is taken now, so once due the job sorts among
      -- its lane's jobs by admission, not by due time.
      redis.call('HSET', jk, 'state', 'delayed', 'lane', lane, 'payload', ARGV[b + 2], 'seq', seq,
        'max', ARGV[b + 4], 'enq_ms', now, 'due_ms', now + delay, 'delay_ms', delay)
      redis.call('ZADD', SCHEDULE, now + delay, id)
      delayed = true
    else
      -- The arrival number is the job's score in its lane; the claim copies
      -- it to the row, from where a retry or a release puts it back.
      redis.call('HSET', jk, 'state', 'waiting', 'lane', lane, 'payload', ARGV[b + 2],
        'max', ARGV[b + 4], 'enq_ms', now)
      redis.call('ZADD', LANE .. lane, seq, id)
      if not seen[lane] then
        seen[lane] = true
        filled[#filled + 1] = lane
      end
    end
    admitted = admitted + 1
    out[#out + 1] = 1
    out[#out + 1] = seq
  end
end
-- A lane that had waiting jobs is on the ring already, or rightly off it
-- (paused, held, at its limit): only a lane this call filled from empty
-- (new in the lanes index, which is exactly the lanes with waiting jobs)
-- may need to join the rotation.
if #filled > 0 then ring_filled(set_new(LANES, filled)) end
if admitted > 0 then stat('enqueued', admitted) end
if delayed then wake(1) end -- parked workers re-arm their janitors for the new due time
return out
