-- fail: settle a held job as failed.
-- ARGV: 1 history cap, 2 id, 3 token, 4 backoff ms, 5 error text,
--       6 '1' to kill it at once (a cancelled job).
-- Reply: {1, 'backoff' | 'waiting' | 'dead'}; {0, ''} no such job;
-- {-1, state} not held by this claim.
local id = ARGV[2]
local jk = JOB .. id
local f = redis.call('HMGET', jk, 'state', 'token', 'lane', 'attempts', 'max', 'seq', 'history')
if not f[1] then return { 0, '' } end
if not held(f, ARGV[3]) then return { -1, f[1] } end
local lane, attempt, now = f[3], tonumber(f[4]), now_ms()
local delay, reason = tonumber(ARGV[4]), ARGV[5]
local left = leave_active(id, lane)
if ARGV[6] == '1' then
  to_dead(id, f[7], now, 'cancelled', attempt, reason)
  ring(lane, false, left)
  return { 1, 'dead' }
end
if attempt >= tonumber(f[5]) then
  to_dead(id, f[7], now, 'dead', attempt, reason)
  ring(lane, false, left)
  return { 1, 'dead' }
end
stat('failed', 1)
-- Back to the head of its lane at its arrival number: later jobs of the
-- lane sort after it.
to_lane(lane, f[6], id)
if delay <= 0 then
  redis.call('HSET', jk, unpack(with_hist({ 'state', 'waiting', 'last_error', reason },
    f[7], now, 'failed', attempt, reason)))
  ring(lane, false, left, 1)
  return { 1, 'waiting' }
end
-- The lane is held until the backoff ends, so nothing of it can overtake
-- the failed job; a hold already running longer is kept (GT).
redis.call('HSET', jk, unpack(with_hist({ 'state', 'backoff', 'due_ms', now + delay, 'last_error', reason },
  f[7], now, 'failed', attempt, reason)))
redis.call('ZADD', BACKOFF, now + delay, id)
redis.call('ZADD', HOLD, 'GT', now + delay, lane)
return { 1, 'backoff' }
