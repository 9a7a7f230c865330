-- dead: retry or delete a dead job.
-- ARGV: 1 history cap, 2 op ('retry' | 'delete'), 3 id.
-- Reply: {1, state after}; {0, ''} no such job; {-1, state} not dead.
local op, id = ARGV[2], ARGV[3]
local jk = JOB .. id
local f = redis.call('HMGET', jk, 'state', 'lane', 'attempts', 'history')
if not f[1] then return { 0, '' } end
if f[1] ~= 'dead' then return { -1, f[1] } end
redis.call('ZREM', DEAD, id)
if op == 'delete' then
  redis.call('DEL', jk)
  stat('deleted', 1)
  return { 1, 'deleted' }
end
-- A retried job is a fresh arrival at the tail of its lane with its
-- attempts reset; it keeps its id, payload and history.
local now, lane = now_ms(), f[2]
local seq = redis.call('INCR', SEQ)
redis.call('HSET', jk, unpack(with_hist({ 'state', 'waiting', 'seq', seq, 'attempts', 0 },
  f[4], now, 'retried', f[3], '')))
redis.call('HDEL', jk, 'dead_ms')
to_lane(lane, seq, id)
stat('retried', 1)
ring(lane, false, nil, 1)
return { 1, 'waiting' }
