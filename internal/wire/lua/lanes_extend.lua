-- extend: renew the leases of held jobs (the heartbeat).
-- ARGV: 1 history cap, 2 lease ms, then id, token pairs.
-- Reply: the ids that are no longer held by those claims; their handlers
-- must stop.
local deadline = now_ms() + tonumber(ARGV[2])
local lost = {}
for i = 3, #ARGV, 2 do
  local id = ARGV[i]
  local f = redis.call('HMGET', JOB .. id, 'state', 'token')
  -- XX: never re-add a member the janitor already took out of the active
  -- set; that would resurrect a job that is waiting in its lane again.
  if held(f, ARGV[i + 1]) and redis.call('ZSCORE', ACTIVE, id) then
    redis.call('ZADD', ACTIVE, 'XX', deadline, id)
  else
    lost[#lost + 1] = id
  end
end
return lost
