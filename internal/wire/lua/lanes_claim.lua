-- claim: lease up to n jobs, one lane per step of the rotation.
-- ARGV: 1 history cap, 2 lease ms, 3 n, 4 ring steps allowed.
-- Reply: flat {id, lane, payload, attempt, token, max, seq, enq_ms, ...};
-- empty when the queue is paused or no lane is servable.

-- One EXISTS answers the usual case: no settings (so no queue pause and
-- the default limit of 1), no paused lane, no held lane. Otherwise the
-- settings are read, and the count less the settings hash says whether a
-- lane is paused or held (settings of another kind only make that answer
-- cautious).
local set = redis.call('EXISTS', META, PAUSED, HOLD)
if set == 0 then
  gated, default_limit = false, 1
else
  local m = redis.call('HMGET', META, 'paused', 'lane_limit')
  if m[1] then return {} end
  default_limit = tonumber(m[2] or '1')
  if m[2] then set = set - 1 end
  gated = set > 0
end
local lease, n, steps = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local now = now_ms()
local out, got = {}, 0
-- The in-flight counts of the lanes served are read once per lane (one
-- HMGET per batch of lanes, or the claim's own HINCRBY for a batch of one),
-- kept here while the call serves them, and written back once at the end:
-- one HSET of those that changed and one HDEL of those back at zero. have
-- is a lane's count in this call, stored what the engine holds.
local have, stored = {}, {}
-- The claimed jobs join the active set in one ZADD.
local leases = {}
-- Each step takes the head lane off the ring and serves it; a lane that
-- stays servable goes back to the tail, so every servable lane gets one
-- claim per turn of the ring. The steps are taken a batch at a time (one
-- LPOP of as many lanes as jobs are still wanted), and the batch's ring
-- edits are one RPUSH of the lanes that stay and one SREM of those that
-- leave: the same order as one LMOVE per step.
while got < n and steps > 0 do
  local want = math.min(n - got, steps)
  local batch = redis.call('LPOP', RING, want)
  if not batch then break end
  steps = steps - #batch
  local stay, leave, emptied = {}, {}, {}
  -- open says which lanes are neither paused nor held, kept only when
  -- one may be (the usual case is that none is).
  local open, need = gated and {} or nil, {}
  for i, lane in ipairs(batch) do
    if open then open[i] = not paused_or_held(lane) end
    if (not open or open[i]) and not have[lane] then need[#need + 1] = lane end
  end
  if #need == 1 then
    -- The claim's increment taken ahead: a lane served at once costs no
    -- write at the end.
    local v = redis.call('HINCRBY', INFLIGHT, need[1], 1)
    have[need[1]], stored[need[1]] = v - 1, v
  elseif #need > 1 then
    local v = redis.call('HMGET', INFLIGHT, unpack(need))
    for j, lane in ipairs(need) do
      local c = tonumber(v[j] or '0')
      have[lane], stored[lane] = c, c
    end
  end
  for i, lane in ipairs(batch) do
    local lk = LANE .. lane
    -- The lane's in-flight count is taken with the claim's own increment
    -- and given back when the lane was at its limit; every limit is at
    -- least 1, so a lane with nothing in flight needs no limit lookup.
    -- ZPOPMIN takes the lane's first two jobs and puts the second back: a
    -- lane of one job (the usual case) costs no ZCARD. depth is 2 for "more
    -- than one", -1 when the lane was not looked at (paused, held, at its
    -- limit).
    local depth, inflight, limit, popped = -1, 0, nil, nil
    if not open or open[i] then
      inflight = have[lane] + 1
      if inflight > 1 then limit = limit_of(lane) end
      if limit and inflight > limit then
        inflight = have[lane]
      else
        popped = redis.call('ZPOPMIN', lk, 2)
        depth = #popped / 2
        if depth == 2 then redis.call('ZADD', lk, popped[4], popped[3]) end
        if depth == 0 then inflight = have[lane] else have[lane] = inflight end
      end
    end
    if depth <= 0 then
      -- Not servable (paused, held, at its limit, or empty): off the ring.
      leave[#leave + 1] = lane
      if depth == 0 then emptied[#emptied + 1] = lane end
    else
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
        leases[#leases + 1] = now + lease
        leases[#leases + 1] = id
        out[#out + 1] = id
        out[#out + 1] = lane
        out[#out + 1] = f[2]
        out[#out + 1] = attempt
        out[#out + 1] = token
        out[#out + 1] = f[3]
        out[#out + 1] = seq
        out[#out + 1] = f[4]
        got = got + 1
      else
        -- A lane entry without its row claims nothing.
        inflight = inflight - 1
        have[lane] = inflight
      end
      if depth <= 1 then
        emptied[#emptied + 1] = lane
        leave[#leave + 1] = lane
      elseif inflight >= (limit or limit_of(lane)) then
        leave[#leave + 1] = lane
      else
        stay[#stay + 1] = lane
      end
    end
  end
  if #stay > 0 then redis.call('RPUSH', RING, unpack(stay)) end
  if #leave > 0 then redis.call('SREM', RINGSET, unpack(leave)) end
  if #emptied > 0 then redis.call('SREM', LANES, unpack(emptied)) end
  if #batch < want and #stay == 0 then break end
end
if #leases > 0 then redis.call('ZADD', ACTIVE, unpack(leases)) end
local put, gone
for lane, v in pairs(stored) do
  if have[lane] ~= v then
    if have[lane] <= 0 then
      gone = gone or {}
      gone[#gone + 1] = lane
    else
      put = put or {}
      put[#put + 1] = lane
      put[#put + 1] = have[lane]
    end
  end
end
if put then redis.call('HSET', INFLIGHT, unpack(put)) end
if gone then redis.call('HDEL', INFLIGHT, unpack(gone)) end
return out
