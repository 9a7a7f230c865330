-- extend: renew the leases of held jobs (the heartbeat).
-- ARGV: 1 history cap, 2 lease ms, then id, token pairs.
-- Reply: the ids that are no longer held by those claims; their handlers
-- must stop.
freeing()
local deadline = now_ms() + tonumber(ARGV[2])
local lost = {}
for i = 3, #ARGV, 2 do
  local id = ARGV[i]
  local f = redis.call('HMGET', JOB .. id, 'state', 'token')
  -- XX: never re-add a member the janitor already took out of the active
  -- set; that would resurrect a job that is waiting in its lane again.
  -- CH counts a moved deadline; only an unchanged one (a renewal in the
  -- same millisecond) needs the ZSCORE to tell it from a job that left.
  if not held(f, ARGV[i + 1]) or (redis.call('ZADD', ACTIVE, 'XX', 'CH', deadline, id) == 0
      and not redis.call('ZSCORE', ACTIVE, id)) then
    lost[#lost + 1] = id
  end
end
return lost
