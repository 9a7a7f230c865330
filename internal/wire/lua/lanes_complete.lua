-- complete: settle held jobs as done.
-- ARGV: 1 history cap, 2 tombstone ms (0 deletes the row), then id, token
--       pairs.
-- Reply: per job {1, 'completed'}; {0, ''} no such job; {-1, state} not
-- held by this claim (its lease lapsed, or it was settled already).
local ttl = tonumber(ARGV[2])
local now = now_ms()
-- The settled jobs leave the active set in one ZREM and each lane's
-- in-flight count drops once by its number of them.
local out, settled, lanes = {}, {}, {}
for i = 3, #ARGV, 2 do
  local id = ARGV[i]
  local jk = JOB .. id
  local f = redis.call('HMGET', jk, 'state', 'token', 'lane', 'attempts', 'history')
  if not f[1] then
    out[#out + 1] = 0
    out[#out + 1] = ''
  elseif not held(f, ARGV[i + 1]) then
    out[#out + 1] = -1
    out[#out + 1] = f[1]
  else
    local lane = f[3]
    if ttl > 0 then
      -- The tombstone keeps the id refused as a duplicate for the window;
      -- the payload is dropped.
      redis.call('HSET', jk, unpack(with_hist({ 'state', 'completed', 'done_ms', now, 'payload', '' },
        f[5], now, 'completed', f[4], '')))
      redis.call('PEXPIRE', jk, ttl)
    else
      redis.call('DEL', jk)
    end
    settled[#settled + 1] = id
    if not lanes[lane] then lanes[#lanes + 1] = lane end
    lanes[lane] = (lanes[lane] or 0) + 1
    out[#out + 1] = 1
    out[#out + 1] = 'completed'
  end
end
if #settled > 0 then
  redis.call('ZREM', ACTIVE, unpack(settled))
  for _, lane in ipairs(lanes) do ring(lane, false, decr(INFLIGHT, lane, lanes[lane])) end
  stat('completed', #settled)
end
return out
