-- dcb_append: append groups of tagged events to the streams of a queue,
-- each group atomically and on its own condition (no event matching a
-- query above a position); index the events and give each the queue's next
-- position. Groups are decided in order, each seeing the groups before it,
-- as if each were its own call: concurrent appends of one queue share a
-- call (group commit) to spread the call's cost.
--
-- KEYS[5] (optional, with a single group) the idempotency key. ARGV (after
-- the prelude's ARGV[1]): max skew ms, lead ms, the writer's node, the
-- idempotency window ms, the expected top of the first event's stream ('',
-- '-' empty, else an entry id; a single group only), the group count; per
-- group: the condition ('' none, else the position, followed by the query),
-- the event count, and per event: stream, tag count, tags, the tags joined
-- as stored, field count, fields.
--
-- Reply: {sec, usec, result per group}, a result being {'ok', receipt,
-- entry id, position, …}; {'conflict', stream, entry id, position} (the
-- first event matching the condition); {'position', 'ahead'|'floor',
-- stream, bound}; {'dup', receipts}; {'top', top entry id or ''};
-- {'skew', instant ms}; {'err', message} (a stream of the group holds
-- another type). A refused group writes nothing.
--
-- Ids: each event gets the engine's next id of the queue's engine id cell
-- (node 1023, never leased to a writer), above its stream's top and not
-- before the engine's clock: the law stream_append.lua keeps for the ids it
-- chooses (docs/keyspace.md, "Ids under many writers"); the receipt is the
-- id's A1 image. No writer mints in that space and a cell never repeats, so
-- no receipt is handed out twice in the queue.
-- The id law's arithmetic (receipt, split, last_generated, engine_cell,
-- cell_id) comes from ids_prelude.lua, shared with stream_append.lua.
local NONMONO = 'The ID specified in XADD is equal or smaller than the target stream top item'
local sub, find, floor = string.sub, string.find, math.floor

local t = call('TIME')
local sec, usec = t[1], t[2]
local now = tonumber(sec) * 1000 + floor(tonumber(usec) / 1000)
local door, lead = now + tonumber(ARGV[2]), tonumber(ARGV[3])
local writer = ARGV[4]

local window, expect, G = ARGV[5], ARGV[6], tonumber(ARGV[7])
if KEYS[5] then
  local v = call('GET', KEYS[5])
  if v then return {sec, usec, {'dup', v}} end
end

-- Parse every group first.
local groups, a = {}, 8
for gi = 1, G do
  local grp = {evs = {}}
  if ARGV[a] ~= '' then
    grp.from = tonumber(ARGV[a])
    grp.items, a = parse_query(a + 1)
  else
    a = a + 1
  end
  local n = tonumber(ARGV[a])
  a = a + 1
  for i = 1, n do
    local st, ng = ARGV[a], tonumber(ARGV[a + 1])
    local tags = {unpack(ARGV, a + 2, a + 1 + ng)}
    local joined, nf = ARGV[a + 2 + ng], tonumber(ARGV[a + 3 + ng])
    local f0 = a + 4 + ng
    grp.evs[i] = {st, tags, joined, f0, nf}
    a = f0 + nf
  end
  groups[gi] = grp
end

local function top(key)
  local r = call('XREVRANGE', key, '+', '-', 'COUNT', 1)
  if r[1] then return r[1][1], split(r[1][1]) end
  local ms, tail = split(last_generated(key))
  return nil, ms, tail
end

-- choose: the engine's next id above the top (ms, tail) and not before
-- the clock, from the cell's near region ('n') or, for a top further ahead
-- than lead, its ahead region ('a'): stream_append.lua's choice.
local cells
local function choose(tms, ttail)
  if not cells then
    local r = call('HMGET', CELL, 'n', 'a')
    cells = {n = tonumber(r[1] or '0'), a = tonumber(r[2] or '0')}
  end
  local region = tms > now + lead and 'a' or 'n'
  local c = engine_cell(cells[region], region, now, tms, ttail)
  cells[region] = c
  cells['d' .. region] = true
  return cell_id(c, region)
end

-- Read every target stream's top before anything is written: a stream of
-- another type refuses its groups only.
local tops = {}
for _, grp in ipairs(groups) do
  for _, e in ipairs(grp.evs) do
    local st = e[1]
    if not tops[st] then
      local ok, last, ms, tail = pcall(top, skey(st))
      if ok then
        tops[st] = {ms, tail, last = last or ''}
      else
        tops[st] = {err = type(last) == 'table' and last.err or tostring(last)}
      end
    end
  end
end

-- decide returns the refusal of a group, or nil to write it.
local function decide(gi, grp)
  for _, e in ipairs(grp.evs) do
    local tp = tops[e[1]]
    if tp.err then return {'err', tp.err} end
  end
  if grp.from then
    local head, refusal = check_position(grp.items, grp.from)
    if not head then return refusal end
    local evs = query(grp.items, grp.from, 1, HUGE)
    if evs[1] then return {'conflict', evs[1][1], evs[1][2], num(evs[1][3])} end
  end
  if gi == 1 and G == 1 and expect ~= '' then
    local last = tops[grp.evs[1][1]].last
    if (expect == '-' and last ~= '') or (expect ~= '-' and last ~= expect) then return {'top', last} end
  end
  for _, e in ipairs(grp.evs) do
    local ms = tops[e[1]][1]
    if ms > door then return {'skew', num(ms)} end
  end
  return nil
end

local out, receipts, wrote = {sec, usec}, {}, false
for gi, grp in ipairs(groups) do
  local res = decide(gi, grp)
  if not res then
    res = {'ok'}
    local pos = call('INCRBY', POS, #grp.evs) - #grp.evs
    head_v = pos + #grp.evs
    for _, e in ipairs(grp.evs) do
      local st, tags, joined, f0, nf = e[1], e[2], e[3], e[4], e[5]
      local key, tp = skey(st), tops[st]
      pos = pos + 1
      local ms, tail, eid, rc
      for try = 1, 2 do
        ms, tail = choose(tp[1], tp[2])
        eid, rc = num(ms) .. '-' .. num(tail), receipt(ms, tail)
        local r = redis.pcall('XADD', key, eid, 'id', rc, '@pos', pos, '@tags', joined, unpack(ARGV, f0, f0 + nf - 1))
        if type(r) ~= 'table' or not r.err then break end
        -- Refused, nothing written: the last entry was deleted and XADD
        -- compares with the last generated id. Choose above that once more.
        if try == 2 or not find(r.err, NONMONO, 1, true) then return r end
        tp[1], tp[2] = split(last_generated(key))
      end
      for _, g in ipairs(tags) do call('ZADD', ixkey(st, g), pos, eid) end
      if not tp.typed then
        call('SADD', TYPES, st)
        tp.typed = true
      end
      tp[1], tp[2], tp.last = ms, tail, eid
      res[#res + 1] = rc
      res[#res + 1] = eid
      res[#res + 1] = pos
      receipts[#receipts + 1] = rc
    end
    wrote = true
  end
  out[#out + 1] = res
end
for _, region in ipairs({'n', 'a'}) do
  if cells and cells['d' .. region] then
    call('HSET', CELL, region, num(cells[region]), 'w' .. region, writer)
  end
end
if KEYS[5] and wrote then call('SET', KEYS[5], table.concat(receipts), 'PX', window) end
return out
