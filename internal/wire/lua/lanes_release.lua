-- release: give a held job back without spending an attempt (shutdown).
-- ARGV: 1 history cap, 2 id, 3 token.
-- Reply: {1, 'waiting'}; {0, ''} no such job; {-1, state} not held.
local id = ARGV[2]
local jk = JOB .. id
local f = redis.call('HMGET', jk, 'state', 'token', 'lane', 'attempts', 'seq', 'history')
if not f[1] then return { 0, '' } end
if not held(f, ARGV[3]) then return { -1, f[1] } end
local lane, now = f[3], now_ms()
local attempt = tonumber(f[4]) - 1
local left = leave_active(id, lane)
redis.call('HSET', jk, unpack(with_hist({ 'state', 'waiting', 'attempts', attempt },
  f[6], now, 'released', attempt, '')))
to_lane(lane, f[5], id)
stat('released', 1)
ring(lane, false, left, 1)
return { 1, 'waiting' }
