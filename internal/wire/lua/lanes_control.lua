-- control: pause, resume and limits, for one lane or the whole queue.
-- ARGV: 1 history cap, 2 op, 3 lane, 4 number.
--   pause-lane / resume-lane  lane
--   limit-lane                lane, limit (0 drops the override)
--   pause / resume            the queue
--   default-limit             number: the limit of lanes without override
-- Reply: 1 when the call changed something, else 0.
local op, lane, n = ARGV[2], ARGV[3], tonumber(ARGV[4])
if op == 'pause-lane' then
  -- The ring entry is dropped by the next claim that meets it.
  return redis.call('SADD', PAUSED, lane)
elseif op == 'resume-lane' then
  local r = redis.call('SREM', PAUSED, lane)
  ring(lane, true)
  return r
elseif op == 'limit-lane' then
  local old = redis.call('HGET', LIMITS, lane)
  if n > 0 then
    redis.call('HSET', LIMITS, lane, n)
  else
    redis.call('HDEL', LIMITS, lane)
  end
  ring(lane, true)
  if old == (n > 0 and tostring(n) or false) then return 0 end
  return 1
elseif op == 'pause' then
  return redis.call('HSETNX', META, 'paused', '1')
elseif op == 'resume' then
  local r = redis.call('HDEL', META, 'paused')
  -- Wake as many parked dispatchers as there are lanes to serve.
  local ready = math.min(redis.call('LLEN', RING), 64)
  if r == 1 and ready > 0 then wake(ready) end
  return r
elseif op == 'default-limit' then
  local old = redis.call('HGET', META, 'lane_limit')
  redis.call('HSET', META, 'lane_limit', n)
  default_limit = n
  -- A raised default may make any lane servable again: visit them all.
  for _, l in ipairs(redis.call('SMEMBERS', LANES)) do ring(l, true) end
  if old == tostring(n) then return 0 end
  return 1
end
return redis.error_reply('ERR unknown lanes control op ' .. tostring(op))
