-- claim: lease up to n jobs, one lane per step of the rotation.
-- ARGV: 1 history cap, 2 lease ms, 3 n, 4 ring steps allowed.
-- Reply: flat {id, lane, payload, attempt, token, max, seq, enq_ms, ...};
-- empty when the queue is paused or no lane is servable.
if redis.call('HGET', META, 'paused') then return {} end
local lease, n, steps = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local now = now_ms()
local out, got = {}, 0
for _ = 1, steps do
  if got >= n then break end
  -- Rotate one step: the head lane moves to the tail and is served, so
  -- every servable lane gets one claim per turn of the ring.
  local lane = redis.call('LMOVE', RING, RING, 'LEFT', 'RIGHT')
  if not lane then break end
  local depth = redis.call('ZCARD', LANE .. lane)
  local inflight = inflight_of(lane)
  local limit = 1
  if inflight > 0 then limit = limit_of(lane) end
  if depth == 0 or inflight >= limit or redis.call('SISMEMBER', PAUSED, lane) == 1
      or redis.call('ZSCORE', HOLD, lane) then
    unring_tail(lane)
    if depth == 0 then redis.call('SREM', LANES, lane) end
  else
    local popped = redis.call('ZPOPMIN', LANE .. lane)
    local id, seq = popped[1], popped[2]
    local jk = JOB .. id
    local f = redis.call('HMGET', jk, 'state', 'payload', 'max', 'enq_ms', 'attempts', 'token', 'history')
    if f[1] then
      -- A job still in backoff here had its hold ended by a sweep that
      -- stopped at its limit before flipping it.
      if f[1] == 'backoff' then redis.call('ZREM', BACKOFF, id) end
      local attempt, token = tonumber(f[5] or '0') + 1, tonumber(f[6] or '0') + 1
      redis.call('HSET', jk, unpack(with_hist({ 'state', 'active', 'attempts', attempt, 'token', token,
        'seq', seq, 'claim_ms', now }, f[7], now, 'claimed', attempt, '')))
      redis.call('ZADD', ACTIVE, now + lease, id)
      redis.call('HINCRBY', INFLIGHT, lane, 1)
      inflight = inflight + 1
      out[#out + 1] = id
      out[#out + 1] = lane
      out[#out + 1] = f[2]
      out[#out + 1] = attempt
      out[#out + 1] = token
      out[#out + 1] = f[3]
      out[#out + 1] = seq
      out[#out + 1] = f[4]
      got = got + 1
    end
    if depth <= 1 then
      redis.call('SREM', LANES, lane)
      unring_tail(lane)
    else
      if inflight == 1 then limit = limit_of(lane) end
      if inflight >= limit then unring_tail(lane) end
    end
  end
end
return out
