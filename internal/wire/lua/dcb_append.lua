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
-- '-' empty, else an entry id; a single group only), the group count, the
-- latest instant (ms) of the call's proposed ids ('' none); per group: the
-- condition ('' none, else the position, followed by the query), the event
-- count, and per event: stream, proposed entry id ('' none), its receipt,
-- tag count, the index keys of its tags, the tags joined as stored, field
-- count, fields.
--
-- Reply: {sec, usec, result per group}, a result being {'ok', first
-- position, then for each event whose id the engine chose: its index in
-- the group, receipt, entry id} (every other event kept its proposal and
-- has the position after the one before it), or the first position alone
-- when every event kept its proposal; {'conflict', stream, entry
-- id, position} (the first event matching the condition); {'position',
-- 'ahead'|'floor', stream, bound}; {'dup', receipts}; {'top', top entry id
-- or ''}; {'skew', instant ms}; {'err', message} (a stream of the group
-- holds another type). A refused group writes nothing.
--
-- Ids. An event's proposed id was minted by the writer under the node it
-- leased in the queue, as a plain append's is, the call's in mint order;
-- the XADD keeps it when it lies above the stream's top (and the call's
-- proposals are at most lead ahead of the engine's clock). Otherwise, or
-- without a proposal, the event gets the engine's next id of the queue's
-- engine id cell (node 1023, never leased to a writer), above its stream's
-- top and not before the engine's clock: the law stream_append.lua keeps
-- for the ids it chooses (docs/keyspace.md, "Ids under many writers"); the
-- receipt is the id's A1 image. Either way no receipt is handed out twice
-- in the queue. The id law's arithmetic (receipt, split, last_generated,
-- engine_cell, cell_id) comes from ids_prelude.lua, shared with
-- stream_append.lua.
--
-- Cost (the hot path, a group of one stream whose proposals hold): per
-- event one XADD and one RPUSH per tag (a group of several events: one
-- per index key, their pairs grouped); per call one GET and one SET of
-- the position counter, one SADD per stream; no top read, no id
-- arithmetic, no number formatting beyond the position. The index lists
-- are appended in position order, so each is sorted by position (the
-- prelude's scan relies on it).
local NONMONO = 'The ID specified in XADD is equal or smaller than the target stream top item'
local find, floor, tonumber, unpack, pcall = string.find, math.floor, tonumber, unpack, redis.pcall
-- (pcall is redis.pcall: an engine error comes back as a table with err.)

local argv = ARGV
local t = call('TIME')
local sec, usec = t[1], t[2]
local now = tonumber(sec) * 1000 + floor(tonumber(usec) / 1000)
local door, lead = now + tonumber(argv[2]), tonumber(argv[3])
local writer = argv[4]

local window, expect, G = argv[5], argv[6], tonumber(argv[7])
-- Proposals are tried only while the latest of them is within lead of the
-- engine's clock (as a plain append's id is sent only then).
local propose = argv[8] ~= '' and tonumber(argv[8]) <= now + lead
local idem = KEYS[5]
if idem then
  local v = call('GET', idem)
  if v then return {sec, usec, {'dup', v}} end
end

-- tops[stream]: what the call knows of a stream: {key, ms, tail, last}
-- once its top was read (or written with an engine-chosen id); p = true
-- while its top is this call's own proposal (numbers not parsed); err, the
-- engine's error for a key of another type.
local tops = {}
local function state(st)
  local tp = tops[st]
  if not tp then
    tp = {key = skey(st)}
    tops[st] = tp
  end
  return tp
end

-- read_top reads the stream's top into tp (XREVRANGE, else the last
-- generated id of a stream whose entries were all deleted).
local function read_top(tp)
  local r = pcall('XREVRANGE', tp.key, '+', '-', 'COUNT', 1)
  if r.err then
    tp.err = r.err
    return
  end
  if r[1] then
    tp.last = r[1][1]
    tp.ms, tp.tail = split(tp.last)
  else
    tp.last = ''
    tp.ms, tp.tail = split(last_generated(tp.key))
  end
  tp.p = false
end

-- known returns tp with its top read, or the refusal of the group (another
-- type; a top beyond the skew door). Called before the group writes
-- anything to the stream.
local function known(tp)
  if not (tp.ms or tp.err) then read_top(tp) end
  if tp.err then return {'err', tp.err} end
  if tp.ms > door then return {'skew', num(tp.ms)} end
  return nil
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

-- The index pairs (position, entry id) of a group of several events not
-- yet pushed, by key: one RPUSH per key at the group's end (the events of
-- a batch share their tags). A group of one event pushes at once (a
-- buffer costs more than it saves when keys do not repeat). A key's first
-- pair is kept as two values (pend, pend_id), a table only from its
-- second.
local pend, pend_id, pkeys = {}, {}, {}
local function flush()
  for i = 1, #pkeys do
    local k = pkeys[i]
    local q = pend[k]
    if type(q) == 'table' then
      call('RPUSH', k, unpack(q))
    else
      call('RPUSH', k, q, pend_id[k])
    end
    pend[k], pend_id[k] = nil, nil
  end
  pkeys = {}
end

local typed = {}
local out, receipts, wrote, a = {sec, usec}, {}, false, 9
local pos, pos0 -- the last position given, and the head before the call (read on the first write)
for gi = 1, G do
  -- The condition and the events' bounds.
  local from, items
  if argv[a] ~= '' then
    from = tonumber(argv[a])
    items, a = parse_query(a + 1)
  else
    a = a + 1
  end
  local n = tonumber(argv[a])
  a = a + 1
  local e0, multi, first = a, false, argv[a]
  for _ = 1, n do
    if argv[a] ~= first then multi = true end
    local ng = tonumber(argv[a + 3])
    a = a + 6 + ng + tonumber(argv[a + 5 + ng])
  end
  local e1 = a -- past the group

  local res
  if from then
    flush()
    local head, refusal = check_position(items, from)
    if not head then
      res = refusal
    else
      if maybe_after(items, from) then
        local evs = query(items, from, 1, HUGE)
        if evs[1] then res = {'conflict', evs[1][1], evs[1][2], num(evs[1][3])} end
      end
    end
  end
  if not res and gi == 1 and G == 1 and expect ~= '' then
    local tp = state(first)
    res = known(tp)
    if not res and ((expect == '-' and tp.last ~= '') or (expect ~= '-' and tp.last ~= expect)) then
      res = {'top', tp.last}
    end
  end
  -- A group of several streams (or without proposals) reads every top it
  -- writes first: a refusal must come before its first write.
  local fast = propose and not multi
  if not res and not fast then
    local b = e0
    while b < e1 and not res do
      res = known(state(argv[b]))
      local ng = tonumber(argv[b + 3])
      b = b + 6 + ng + tonumber(argv[b + 5 + ng])
    end
  end

  if not res then
    res = {'ok'}
    if not pos then
      pos = head()
      pos0 = pos
    end
    res[2] = pos + 1
    local b = e0
    for i = 1, n do
      local st, eid, rc, ng = argv[b], argv[b + 1], argv[b + 2], tonumber(argv[b + 3])
      local joined, f0 = argv[b + 4 + ng], b + 6 + ng
      local f1 = f0 + tonumber(argv[b + 5 + ng]) - 1
      local tp = tops[st] or state(st)
      local p = pos + 1
      local kept = false
      if fast and eid ~= '' and (tp.p or not tp.ms) and not tp.err then
        -- The proposal, blind: the XADD refuses it when not above the top.
        local r = pcall('XADD', tp.key, eid, 'id', rc, '@pos', p, '@tags', joined, unpack(argv, f0, f1))
        if type(r) ~= 'table' or not r.err then
          kept, tp.p = true, true
        elseif find(r.err, NONMONO, 1, true) then
          tp.ms = nil
        else
          tp.err = r.err -- another type: nothing of the group written yet
        end
        if not kept and i == 1 then
          -- Refused at the group's first event: nothing of it is written,
          -- so a refusal of the group still holds; the engine chooses from
          -- here.
          local refusal = known(tp)
          if refusal then
            res = refusal
            break
          end
        elseif not kept then
          -- (Not seen: a group's proposals rise, so only its first can be
          -- refused.) The engine chooses, above the top read now.
          read_top(tp)
        end
      elseif not tp.ms then
        local refusal = known(tp)
        if refusal then
          -- Only a group that wrote nothing gets here (its tops were read).
          res = refusal
          break
        end
      end
      if not kept and propose and multi and eid ~= '' then
        -- A group of several streams: its proposal holds above the top read.
        local ms, tail = split(eid)
        if ms > tp.ms or (ms == tp.ms and tail > tp.tail) then
          local r = pcall('XADD', tp.key, eid, 'id', rc, '@pos', p, '@tags', joined, unpack(argv, f0, f1))
          if type(r) ~= 'table' or not r.err then
            kept = true
            tp.ms, tp.tail, tp.last = ms, tail, eid
          end
        end
      end
      if not kept then
        local ms, tail
        for try = 1, 2 do
          ms, tail = choose(tp.ms, tp.tail)
          eid, rc = num(ms) .. '-' .. num(tail), receipt(ms, tail)
          local r = pcall('XADD', tp.key, eid, 'id', rc, '@pos', p, '@tags', joined, unpack(argv, f0, f1))
          if type(r) ~= 'table' or not r.err then break end
          -- Refused, nothing written: the last entry was deleted and XADD
          -- compares with the last generated id. Choose above that once more.
          if try == 2 or not find(r.err, NONMONO, 1, true) then
            flush()
            if pos > pos0 then call('SET', POS, num(pos)) end
            return r
          end
          tp.ms, tp.tail = split(last_generated(tp.key))
        end
        tp.ms, tp.tail, tp.last, tp.p = ms, tail, eid, false
        res[#res + 1] = i
        res[#res + 1] = rc
        res[#res + 1] = eid
      end
      pos = p
      for j = b + 4, b + 3 + ng do
        local k = argv[j]
        local q = n > 1 and pend[k]
        if n == 1 then
          call('RPUSH', k, p, eid)
        elseif not q then
          pend[k], pend_id[k] = p, eid
          pkeys[#pkeys + 1] = k
        elseif type(q) == 'table' then
          q[#q + 1] = p
          q[#q + 1] = eid
        else
          pend[k] = {q, pend_id[k], p, eid}
        end
        if ixlast[k] then ixlast[k] = p end
      end
      if not typed[st] then
        if call('SADD', TYPES, st) == 1 then alltypes = nil end
        typed[st] = true
      end
      if idem then receipts[#receipts + 1] = rc end
      b = f1 + 1
    end
    flush()
    if res[1] == 'ok' then
      head_v = pos
      wrote = true
      -- Every proposal kept: the first position alone.
      if #res == 2 then res = res[2] end
    end
  end
  a = e1
  out[#out + 1] = res
end
flush()
if wrote and pos > pos0 then call('SET', POS, num(pos)) end
for _, region in ipairs({'n', 'a'}) do
  if cells and cells['d' .. region] then
    call('HSET', CELL, region, num(cells[region]), 'w' .. region, writer)
  end
end
if idem and wrote then call('SET', idem, table.concat(receipts), 'PX', window) end
return out
