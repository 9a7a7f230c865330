-- Prelude of the dcb scripts (prepended by dcb.go): the query scan over the
-- tag index, shared by the read and the conditional append.
--
-- KEYS[1] the queue's position counter, KEYS[2] its floor hash (stream ->
-- the highest position trimmed from it), KEYS[3] its set of tagged types,
-- KEYS[4] its engine id cell. ARGV[1] is the queue's key prefix
-- 'emq:{q}:': streams and index sets are built from it. Every key of the
-- queue carries its hash tag, so the script stays on one slot.
local call = redis.call
local POS, FLOOR, TYPES, CELL = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local QP = ARGV[1]
local HUGE = math.huge

local function skey(t) return QP .. 'stream:' .. t end
local function ixkey(t, tag) return QP .. 'dcb:ix:' .. t .. ':' .. tag end
local function num(n) return string.format('%.0f', n) end

-- parse_query reads a query from ARGV at a: the item count, then per item
-- the type count, the types, the tag count, the tags. It returns the items
-- and the index after the query.
local function parse_query(a)
  local n = tonumber(ARGV[a])
  a = a + 1
  local items = {}
  for i = 1, n do
    local nt = tonumber(ARGV[a])
    local types = {unpack(ARGV, a + 1, a + nt)}
    a = a + nt + 1
    local ng = tonumber(ARGV[a])
    local tags = {unpack(ARGV, a + 1, a + ng)}
    a = a + ng + 1
    items[i] = {types = nt > 0 and types or false, tags = tags}
  end
  return items, a
end

-- item_types returns the types an item covers: its own, or (none given)
-- every tagged type of the queue as it is now (an append earlier in the
-- same call may have added one).
local function item_types(it)
  return it.types or call('SMEMBERS', TYPES)
end

-- The head (the last position given) and the floors, read once per call:
-- the append script moves head_v along as it gives positions; floors is
-- false when no stream of the queue was ever trimmed (the common case:
-- one HLEN instead of an HGET per type).
local head_v, floors
local function head()
  if not head_v then head_v = tonumber(call('GET', POS) or '0') end
  return head_v
end
local function floor_of(t)
  if floors == nil then floors = call('HLEN', FLOOR) > 0 and {} end
  if not floors then return nil end
  if floors[t] == nil then floors[t] = call('HGET', FLOOR, t) or false end
  return floors[t]
end

-- check_position refuses a position the index cannot answer for: above
-- the queue's head (a saved position of another queue's life), or below
-- the floor of a stream the query touches (events after it were trimmed
-- with their index entries). It returns the head, or nil and the reply.
local function check_position(items, from)
  local h = head()
  if from > h then return nil, {'position', 'ahead', '', num(h)} end
  for _, it in ipairs(items) do
    for _, t in ipairs(item_types(it)) do
      local f = floor_of(t)
      if f and tonumber(f) > from then return nil, {'position', 'floor', t, f} end
    end
  end
  return h
end

-- scan_source returns the events of type t carrying every tag of tags with
-- a position above from, in position order: at most want of them, after
-- examining at most budget index members. It scans the smallest of the
-- tag sets and looks the others up by member (ZSCORE). It also returns the
-- position through which the source was examined (HUGE when exhausted).
local function scan_source(t, tags, from, want, budget)
  local keys, best, bestn = {}, 1, nil
  if #tags == 1 then
    keys[1] = ixkey(t, tags[1]) -- nothing to choose: no ZCARD
  else
    for i, g in ipairs(tags) do
      local k = ixkey(t, g)
      keys[i] = k
      local n = call('ZCARD', k)
      if n == 0 then return {}, HUGE end
      if not bestn or n < bestn then best, bestn = i, n end
    end
  end
  local out, through, scanned = {}, from, 0
  while true do
    local chunk = math.min(math.max(want - #out, 64), budget - scanned)
    if chunk <= 0 then return out, through end
    local r = call('ZRANGEBYSCORE', keys[best], '(' .. num(through), '+inf', 'WITHSCORES', 'LIMIT', 0, chunk)
    for i = 1, #r, 2 do
      local eid, pos = r[i], tonumber(r[i + 1])
      scanned = scanned + 1
      through = pos
      local ok = true
      for j = 1, #keys do
        if j ~= best and not call('ZSCORE', keys[j], eid) then
          ok = false
          break
        end
      end
      if ok then
        out[#out + 1] = {t, eid, pos}
        if #out >= want then return out, pos end
      end
    end
    if #r < chunk * 2 then return out, HUGE end
  end
end

-- query returns the events matching items with a position above from, in
-- position order, at most want, and the position through which the answer
-- is complete (HUGE: through the head). Each source (item x type) scans at
-- most budget members, so a call is bounded and still makes progress.
local function query(items, from, want, budget)
  local all, seen, horizon = {}, {}, HUGE
  for _, it in ipairs(items) do
    for _, t in ipairs(item_types(it)) do
      local m, through = scan_source(t, it.tags, from, want, budget)
      if through < horizon then horizon = through end
      for _, e in ipairs(m) do
        local id = e[1] .. ' ' .. e[2]
        if not seen[id] then
          seen[id] = true
          all[#all + 1] = e
        end
      end
    end
  end
  table.sort(all, function(x, y) return x[3] < y[3] end)
  local out = {}
  for _, e in ipairs(all) do
    if e[3] > horizon or #out >= want then break end
    out[#out + 1] = e
  end
  return out, horizon
end
