-- Read a partitioned stream's consumer group as the engine holds it,
-- writing nothing (for inspection: emq, the dashboard).
-- KEYS[1] the group's members (zset, score = expiry, engine ms)
-- KEYS[2] the group's partition leases (hash: partition -> "owner|expiry|token")
-- Returns {now ms, {members alive at now}, {partition, lease, ...} every lease}.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
return {now, redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. now, '+inf'), redis.call('HGETALL', KEYS[2])}
