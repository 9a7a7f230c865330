-- stream_append: append records to one stream, the engine arbitrating ids.
--
-- KEYS[1] the stream; KEYS[2] the queue's engine id cell; KEYS[3] (optional)
-- the idempotency key; all on the queue's slot.
-- ARGV: mode ('a' arbitrate, 'h' arbitrate on a contended stream: read the
-- top first instead of trying the proposal blind, 'i' the caller's id as
-- given), node, max skew ms,
-- lead ms, expected top ('' none, '-' empty, else an entry id), dedupe window
-- ms, record count, the writer's own last engine-chosen id on this stream
-- ('' none: a top equal to it is the writer's own), then per record: entry
-- id, receipt, field count, fields.
--
-- Replies (arrays): {'ok', sec, usec, refused, foreign, receipt...}, foreign
-- 1 when a proposal fell at or below a top of another node (another writer
-- is above this one: the stream is contended), else 0; {'dup', sec,
-- usec, receipts}; {'conflict', sec, usec, top entry id or ''}; {'skew', sec,
-- usec, 'id'|'top', instant ms}; {'nonmono', sec, usec}. Other engine errors
-- (WRONGTYPE) are returned as they are.
--
-- Law: a proposal (minted by the writer under its leased node) is kept when
-- the engine accepts it. An id chosen here comes from the engine's own node
-- (1023, never leased to a writer) and a cell of the queue's engine id hash
-- (KEYS[2], see choose): the next cell value, not earlier than the engine's
-- clock and above the stream's top. No writer mints in that space and a cell
-- never repeats, so no receipt is handed out twice in the queue. It runs
-- ahead of the clock only past 2048 chosen ids in one millisecond of one
-- queue, or when the top itself is ahead (then it follows the top, up to max
-- skew).
-- Cost: this script runs on every contended append, so its hot path avoids
-- what is dear in the engine's Lua: closures and tables built per call,
-- string<->number conversions (strtod, sprintf) and string allocations (each
-- feeds the garbage collector). The top is parsed once and kept as numbers;
-- the receipt is built with one concatenation.

-- EPOCH, TAILMAX, ALPHA, ENGINE, HALF, receipt, split, last_generated,
-- engine_cell and cell_id come from ids_prelude.lua (prepended in Go),
-- shared with the dcb append script.
local NONMONO = 'The ID specified in XADD is equal or smaller than the target stream top item'

local call, pcall, sub, find = redis.call, redis.pcall, string.sub, string.find
local tonumber, unpack, floor = tonumber, unpack, math.floor
local key, argv = KEYS[1], ARGV
local mode, node = argv[1], tonumber(argv[2])
local expect = argv[5]

local t = call('TIME')
local sec, usec = t[1], t[2]
local now = tonumber(sec) * 1000 + floor(tonumber(usec) / 1000)
local reach = now + tonumber(argv[4]) -- proposals up to here are tried
local door = now + tonumber(argv[3])  -- tops and ids beyond are refused

-- The stream top, as numbers, once known (known == false until read); mine
-- when this call wrote it (region: the engine cell it was chosen from).
local known, mine, region, tms, ttail = false, false, nil, 0, 0
local function read_top()
  local r = call('XREVRANGE', key, '+', '-', 'COUNT', 1)
  local last = r[1] and r[1][1] or last_generated(key)
  tms, ttail = split(last)
  known, mine, region = true, false, nil
  return r[1] and r[1][1] or nil
end

-- The engine's node: its ids sort above every writer's within a millisecond.
-- Its 4096 sequences of a millisecond are split in two regions, each with
-- its own monotonic cell in the hash KEYS[2], (ms - EPOCH) * 2048 + k (below
-- 2^53, exact in a double): 'n' (near) for ids at most lead ahead of the
-- clock, sequences 0..2047; 'a' (ahead) for ids that follow a top further
-- ahead (a caller's id, a clock stepped back), sequences 2048..4095. An id
-- that follows a top ahead of the clock thus never drags the near cell, and
-- with it every other stream of the queue, ahead of the clock.
local lead = tonumber(argv[4])
-- cells holds the hash's fields once read: n and a, and wn and wa, the node
-- of the writer each region's last id was chosen for.
local cells, dirty
local function load()
  if cells then return end
  local r = call('HMGET', KEYS[2], 'n', 'a', 'wn', 'wa')
  cells = {n = tonumber(r[1] or '0'), a = tonumber(r[2] or '0'), wn = r[3], wa = r[4]}
  dirty = {}
end
local function choose()
  load()
  -- A batch stays in the region its first chosen id took.
  if not (mine and region) then region = tms > now + lead and 'a' or 'n' end
  local c = engine_cell(cells[region], region, now, tms, ttail)
  cells[region], dirty[region] = c, true
  return cell_id(c, region)
end

-- engine_own reports whether the top is the id the engine last chose in its
-- region for this writer (even by a call whose reply has not reached it).
local function engine_own()
  if ttail < ENGINE or ttail > TAILMAX then return false end
  load()
  local r = ttail - ENGINE >= HALF and 'a' or 'n'
  if cells['w' .. r] ~= argv[2] then return false end
  local c = cells[r]
  local k = c % CW
  return tms == (c - k) / CW + EPOCH and ttail == ENGINE + (r == 'a' and HALF or 0) + COFF + k
end

if KEYS[3] then
  local v = call('GET', KEYS[3])
  if v then return {'dup', sec, usec, v} end
end

if expect ~= '' then
  local last = read_top()
  if (expect == '-' and last ~= nil) or (expect ~= '-' and last ~= expect) then
    return {'conflict', sec, usec, last or ''}
  end
end

-- foreign is 1 once a proposal fell at or below another writer's top (see
-- other): then another writer is above this one (a top of the writer's node
-- is one of its own later appends, and so is the engine's id last chosen for
-- it; any other id of the engine's may be anyone's, and counts as another
-- writer's).
local out = {'ok', sec, usec, 0, 0}
local refused, foreign = 0, 0
local n = tonumber(argv[7])
local oms, otail = -1, -1
if argv[8] ~= '' then oms, otail = split(argv[8]) end
-- other reports whether the top is another writer's: not written by this
-- call, not of the writer's node, not an engine's id chosen for it.
local function other()
  return not mine and floor(math.min(ttail, TAILMAX) / 4096) ~= node and not (tms == oms and ttail == otail) and not engine_own()
end
local a = 9
for _ = 1, n do
  local eid, rc, nf = argv[a], argv[a + 1], tonumber(argv[a + 2])
  a = a + 3
  local pms, ptail = split(eid)
  if mode == 'i' then
    if pms > door then return {'skew', sec, usec, 'id', pms} end
    local r = pcall('XADD', key, eid, 'id', rc, unpack(argv, a, a + nf - 1))
    if type(r) == 'table' and r.err then
      if find(r.err, NONMONO, 1, true) then return {'nonmono', sec, usec} end
      return r
    end
    region = nil
  else
    local ok = false
    if pms <= reach then
      if mode == 'h' and not known then read_top() end
      if known and not (pms > tms or (pms == tms and ptail > ttail)) then
        refused = refused + 1
        if other() then foreign = 1 end
      else
        local r = pcall('XADD', key, eid, 'id', rc, unpack(argv, a, a + nf - 1))
        if type(r) ~= 'table' or not r.err then
          ok, region = true, nil
        elseif not find(r.err, NONMONO, 1, true) then
          return r
        else
          refused = refused + 1
          known = false
        end
      end
    elseif known then
      refused = refused + 1
    end
    if not ok then
      if not known then read_top() end
      for _ = 1, 2 do
        if other() then foreign = 1 end
        if tms > door then return {'skew', sec, usec, 'top', tms} end
        -- The engine's next id above the top and not before the clock.
        local ms, tail = choose()
        pms, ptail = ms, tail
        eid = string.format('%.0f-%.0f', ms, tail)
        rc = receipt(ms, tail)
        local r = pcall('XADD', key, eid, 'id', rc, unpack(argv, a, a + nf - 1))
        if type(r) ~= 'table' or not r.err then ok = true break end
        if not find(r.err, NONMONO, 1, true) then return r end
        -- The last entry was deleted: XADD compares with the last generated id.
        refused = refused + 1
        tms, ttail = split(last_generated(key))
        mine, region = false, nil
      end
      if not ok then return redis.error_reply('ERR ' .. NONMONO) end
    end
  end
  known, mine, tms, ttail = true, true, pms, ptail
  out[#out + 1] = rc
  a = a + nf
end
out[4] = refused
out[5] = foreign
if dirty then
  for r in pairs(dirty) do
    call('HSET', KEYS[2], r, string.format('%.0f', cells[r]), 'w' .. r, argv[2])
  end
end
if KEYS[3] then
  call('SET', KEYS[3], table.concat(out, '', 6), 'PX', argv[6])
end
return out
