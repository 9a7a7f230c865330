-- One beat of a member of a partitioned stream's consumer group.
-- KEYS[1] the group's members (zset, score = expiry, engine ms)
-- KEYS[2] the group's partition leases (hash: partition -> "owner|expiry|token")
-- ARGV[1] member id; ARGV[2] member ttl ms (0: the member leaves);
-- ARGV[3] lease ttl ms; ARGV[4] n, then n partitions to take or extend,
-- then the partitions to give back.
-- A lease is taken only when it is free or expired (engine TIME), and a
-- take raises its fencing token, so a holder never shares a token with the
-- holder before it.
-- Returns {now ms, {live members}, {partition, token, ...} held after the
-- beat, {partition, lease, ...} every lease}.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local me = ARGV[1]
local mttl = tonumber(ARGV[2])
local lttl = tonumber(ARGV[3])
local n = tonumber(ARGV[4])
if mttl > 0 then
  redis.call('ZADD', KEYS[1], now + mttl, me)
else
  redis.call('ZREM', KEYS[1], me)
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local function parse(v)
  if not v then return '', 0, 0 end
  local o, e, f = string.match(v, '^(.*)|(%d+)|(%d+)$')
  if not o then return '', 0, 0 end
  return o, tonumber(e), tonumber(f)
end
local held = {}
for k = 5, 4 + n do
  local i = ARGV[k]
  local o, e, f = parse(redis.call('HGET', KEYS[2], i))
  local mine = o == me and e > now
  if mine or o == '' or e <= now then
    if not mine then f = f + 1 end
    redis.call('HSET', KEYS[2], i, me .. '|' .. (now + lttl) .. '|' .. f)
    held[#held + 1] = i
    held[#held + 1] = tostring(f)
  end
end
for k = 5 + n, #ARGV do
  local i = ARGV[k]
  local o, e, f = parse(redis.call('HGET', KEYS[2], i))
  if o == me then
    redis.call('HSET', KEYS[2], i, '|0|' .. f)
  end
end
return {now, redis.call('ZRANGE', KEYS[1], 0, -1), held, redis.call('HGETALL', KEYS[2])}
