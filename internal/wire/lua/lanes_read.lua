-- read: the inspection views, one consistent snapshot each.
-- ARGV: 1 history cap (unused), 2 view, then the view's arguments:
--   stats                      {totals pairs, lanes with waiting jobs, ring length,
--                               paused, default limit, active, delayed, backoff,
--                               dead, lanes with jobs in flight}
--   lanes  cursor, count       {next cursor, lane rows...}: the lanes index, then
--                               the lanes with jobs in flight only; the cursor
--                               is "w:<n>" or "f:<n>", "0" when done
--   lane   lane                {lane row}
--   jobs   state, lane, offset, count   {job rows...}
--   job    id                  {row pairs, lease deadline, arrival number in its lane}
-- A lane row is {lane, depth, inflight, limit, paused, hold ms, ready};
-- a job row is {id, state, lane, attempts, max, seq, enq_ms, score,
-- last_error, payload bytes}.
local view = ARGV[2]

local function lane_row(out, lane)
  out[#out + 1] = lane
  out[#out + 1] = redis.call('ZCARD', LANE .. lane)
  out[#out + 1] = tonumber(redis.call('HGET', INFLIGHT, lane) or '0')
  out[#out + 1] = limit_of(lane)
  out[#out + 1] = redis.call('SISMEMBER', PAUSED, lane)
  out[#out + 1] = tonumber(redis.call('ZSCORE', HOLD, lane) or '-1')
  out[#out + 1] = redis.call('SISMEMBER', RINGSET, lane)
end

-- job_row adds a job; in a lane's listing its score is its arrival number,
-- which the row only holds once the job was claimed.
local function job_row(out, id, score, in_lane)
  local f = redis.call('HMGET', JOB .. id, 'state', 'lane', 'attempts', 'max', 'seq', 'enq_ms', 'last_error')
  if in_lane then f[5] = score end
  out[#out + 1] = id
  out[#out + 1] = f[1] or ''
  out[#out + 1] = f[2] or ''
  out[#out + 1] = tonumber(f[3] or '0')
  out[#out + 1] = tonumber(f[4] or '0')
  out[#out + 1] = tonumber(f[5] or '0')
  out[#out + 1] = tonumber(f[6] or '0')
  out[#out + 1] = tostring(score or '')
  out[#out + 1] = f[7] or ''
  out[#out + 1] = redis.call('HSTRLEN', JOB .. id, 'payload')
end

local function zrows(out, key, offset, count, rev)
  local cmd = 'ZRANGE'
  if rev then cmd = 'ZREVRANGE' end
  local r = redis.call(cmd, key, offset, offset + count - 1, 'WITHSCORES')
  for i = 1, #r, 2 do job_row(out, r[i], r[i + 1]) end
end

if view == 'stats' then
  return { redis.call('HGETALL', STATS), redis.call('SCARD', LANES), redis.call('LLEN', RING),
    redis.call('HGET', META, 'paused') or '', redis.call('HGET', META, 'lane_limit') or '',
    redis.call('ZCARD', ACTIVE), redis.call('ZCARD', SCHEDULE), redis.call('ZCARD', BACKOFF),
    redis.call('ZCARD', DEAD), redis.call('HLEN', INFLIGHT) }
elseif view == 'lanes' then
  local phase, cur = string.match(ARGV[3], '^([wf]):(%d+)$')
  if not phase then phase, cur = 'w', '0' end
  local out = { '0' }
  if phase == 'w' then
    local r = redis.call('SSCAN', LANES, cur, 'COUNT', ARGV[4])
    for _, lane in ipairs(r[2]) do lane_row(out, lane) end
    out[1] = (r[1] == '0') and 'f:0' or ('w:' .. r[1])
  else
    local r = redis.call('HSCAN', INFLIGHT, cur, 'COUNT', ARGV[4])
    for i = 1, #r[2], 2 do
      if redis.call('SISMEMBER', LANES, r[2][i]) == 0 then lane_row(out, r[2][i]) end
    end
    out[1] = (r[1] == '0') and '0' or ('f:' .. r[1])
  end
  return out
elseif view == 'lane' then
  local out = {}
  lane_row(out, ARGV[3])
  return out
elseif view == 'jobs' then
  local state, lane, offset, count = ARGV[3], ARGV[4], tonumber(ARGV[5]), tonumber(ARGV[6])
  local out = {}
  if state == 'active' then
    zrows(out, ACTIVE, offset, count, false)
  elseif state == 'delayed' then
    zrows(out, SCHEDULE, offset, count, false)
  elseif state == 'backoff' then
    zrows(out, BACKOFF, offset, count, false)
  elseif state == 'dead' then
    zrows(out, DEAD, offset, count, true)
  elseif lane ~= '' then
    -- One lane in claim order; a failed job waiting out its backoff is at
    -- the head and shows as backoff unless only waiting jobs are asked for.
    local skip = offset
    local r = redis.call('ZRANGE', LANE .. lane, 0, -1, 'WITHSCORES')
    for i = 1, #r, 2 do
      if #out >= count * 10 then break end
      if state == '' or redis.call('HGET', JOB .. r[i], 'state') == state then
        if skip > 0 then skip = skip - 1 else job_row(out, r[i], r[i + 1], true) end
      end
    end
  else
    -- Waiting jobs of every lane, lane by lane; bounded so a huge queue
    -- answers quickly.
    local skip, cursor, visited = offset, '0', 0
    repeat
      local r = redis.call('SSCAN', LANES, cursor, 'COUNT', 100)
      cursor = r[1]
      for i = 1, #r[2] do
        visited = visited + 1
        local z = redis.call('ZRANGE', LANE .. r[2][i], 0, skip + count - 1, 'WITHSCORES')
        for j = 1, #z, 2 do
          if #out >= count * 10 then break end
          if state == '' or redis.call('HGET', JOB .. z[j], 'state') == state then
            if skip > 0 then skip = skip - 1 else job_row(out, z[j], z[j + 1], true) end
          end
        end
      end
    until cursor == '0' or #out >= count * 10 or visited >= 10000
  end
  return out
elseif view == 'job' then
  local id = ARGV[3]
  local lane = redis.call('HGET', JOB .. id, 'lane')
  local seq = -1
  if lane then seq = tonumber(redis.call('ZSCORE', LANE .. lane, id) or '-1') end
  return { redis.call('HGETALL', JOB .. id), tonumber(redis.call('ZSCORE', ACTIVE, id) or '-1'), seq }
end
return redis.error_reply('ERR unknown lanes view ' .. tostring(view))
