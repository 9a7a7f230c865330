-- sweep: the janitor. Any number of workers may run it at any time: each
-- run is atomic and only moves what is due on the server clock.
-- ARGV: 1 history cap, 2 limit per kind of work.
-- Reply: {reaped, dead, promoted, released, next ms}: jobs whose lease
-- lapsed and went back to their lane, jobs that died so, delayed jobs that
-- became waiting, holds that ended; next is the delay until the next due
-- item (0: more is due now, -1: nothing is scheduled).
freeing()
local lim = tonumber(ARGV[2])
local now = now_ms()
local reaped, dead, promoted, released, more = 0, 0, 0, 0, false

-- Lapsed leases: back to the head of the lane at the job's arrival number,
-- or dead once the attempts are spent, so a job that kills its worker every
-- time cannot cycle for ever.
local ids = redis.call('ZRANGEBYSCORE', ACTIVE, '-inf', now, 'LIMIT', 0, lim)
if #ids == lim then more = true end
for _, id in ipairs(ids) do
  local jk = JOB .. id
  local f = redis.call('HMGET', jk, 'lane', 'attempts', 'max', 'seq', 'stalls', 'history')
  if not f[1] then
    redis.call('ZREM', ACTIVE, id)
  else
    local lane, attempt = f[1], tonumber(f[2])
    local left = leave_active(id, lane)
    local stalls = tonumber(f[5] or '0') + 1
    stat('reaped', 1)
    if attempt >= tonumber(f[3]) then
      to_dead(id, f[6], now, 'dead', attempt, 'lease expired', { 'stalls', stalls })
      dead = dead + 1
      ring(lane, false, left)
    else
      redis.call('HSET', jk, unpack(with_hist({ 'state', 'waiting', 'last_error', 'lease expired',
        'stalls', stalls }, f[6], now, 'lease-expired', attempt, '')))
      to_lane(lane, f[4], id)
      reaped = reaped + 1
      ring(lane, false, left, 1)
    end
  end
end

-- Due delayed jobs enter their lanes.
ids = redis.call('ZRANGEBYSCORE', SCHEDULE, '-inf', now, 'LIMIT', 0, lim)
if #ids == lim then more = true end
for _, id in ipairs(ids) do
  redis.call('ZREM', SCHEDULE, id)
  local jk = JOB .. id
  local f = redis.call('HMGET', jk, 'lane', 'seq', 'history')
  if f[1] then
    redis.call('HSET', jk, unpack(with_hist({ 'state', 'waiting' }, f[3], now, 'promoted', 0, '')))
    to_lane(f[1], f[2], id)
    promoted = promoted + 1
    ring(f[1], false, nil, 1)
  end
end

-- Due backoffs: the job is already at the head of its lane.
ids = redis.call('ZRANGEBYSCORE', BACKOFF, '-inf', now, 'LIMIT', 0, lim)
if #ids == lim then more = true end
for _, id in ipairs(ids) do
  redis.call('ZREM', BACKOFF, id)
  if redis.call('HGET', JOB .. id, 'state') == 'backoff' then
    redis.call('HSET', JOB .. id, 'state', 'waiting')
  end
end

-- Ended holds: the lane is served again.
local lanes = redis.call('ZRANGEBYSCORE', HOLD, '-inf', now, 'LIMIT', 0, lim)
if #lanes == lim then more = true end
for _, lane in ipairs(lanes) do
  redis.call('ZREM', HOLD, lane)
  released = released + 1
  ring(lane, true)
end

local nxt = -1
if more then
  nxt = 0
else
  for _, k in ipairs({ ACTIVE, SCHEDULE, HOLD }) do
    local r = redis.call('ZRANGE', k, 0, 0, 'WITHSCORES')
    if r[2] then
      local d = math.max(tonumber(r[2]) - now, 0)
      if nxt < 0 or d < nxt then nxt = d end
    end
  end
end
return { reaped, dead, promoted, released, nxt }
