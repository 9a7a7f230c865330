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
local HUGE, floor = math.huge, math.floor

local function skey(t) return QP .. 'stream:' .. t end
-- ixkey names the index list of (t, tag), built once per call.
local ixkeys = {}
local function ixkey(t, tag)
  local m = ixkeys[t]
  if not m then
    m = {}
    ixkeys[t] = m
  end
  local k = m[tag]
  if not k then
    k = QP .. 'dcb:ix:' .. t .. ':' .. tag
    m[tag] = k
  end
  return k
end
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
-- every tagged type of the queue as it is now (read once per call; the
-- append script drops alltypes when it adds a type).
local alltypes
local function item_types(it)
  if it.types then return it.types end
  if not alltypes then alltypes = call('SMEMBERS', TYPES) end
  return alltypes
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

-- The index of (type t, tag g) is the list ix:t:g of pairs (position,
-- entry id) of t's live events carrying g, appended in position order, so
-- sorted by it.

-- ix_first returns the index (0-based) of the first pair of the list k of
-- n pairs whose position lies above from (n when none): the last pair
-- first (the common answer of a condition: nothing since), then the last
-- 32 pairs, then a binary search (LINDEX, each a walk of the list's nodes).
local function ix_first(k, n, from)
  if from < 1 then return 0 end
  local last = tonumber(call('LINDEX', k, -2))
  if not last or last <= from then return n end
  if n <= 32 then
    local r = call('LRANGE', k, 0, -1)
    for i = 1, #r, 2 do
      if tonumber(r[i]) > from then return (i - 1) / 2 end
    end
    return n
  end
  local r = call('LRANGE', k, -64, -1)
  if tonumber(r[1]) <= from then
    for i = #r - 1, 1, -2 do
      if tonumber(r[i]) <= from then return n - 32 + (i + 1) / 2 end
    end
  end
  -- The answer lies in [lo + 1, hi]: pos(lo) <= from (or lo = -1), pos(hi) > from.
  local lo, hi = -1, n - 32
  while hi - lo > 1 do
    local mid = floor((lo + hi) / 2)
    if tonumber(call('LINDEX', k, 2 * mid)) > from then hi = mid else lo = mid end
  end
  return hi
end

-- has_tags reports whether the event eid of type t carries every tag of
-- tags but the one at skip, by its entry's stored tags (an event no longer
-- live carries none).
local function has_tags(t, eid, tags, skip)
  local r = call('XRANGE', skey(t), eid, eid)
  local f = r[1] and r[1][2]
  if not f or f[5] ~= '@tags' then return false end
  local joined = ',' .. f[6] .. ','
  for i, g in ipairs(tags) do
    if i ~= skip and not string.find(joined, ',' .. g .. ',', 1, true) then return false end
  end
  return true
end

-- scan_source returns the events of type t carrying every tag of tags with
-- a position above from, in position order: at most want of them, after
-- examining at most budget index pairs. It scans the shortest of the tag
-- lists and checks the other tags on each event's entry. It also returns
-- the position through which the source was examined (HUGE when
-- exhausted).
local function scan_source(t, tags, from, want, budget)
  local best, bestn = nil, nil
  for _, g in ipairs(tags) do
    local k = ixkey(t, g)
    local n = call('LLEN', k)
    if n == 0 then return {}, HUGE end
    if not bestn or n < bestn then best, bestn = k, n end
  end
  local skip
  for i, g in ipairs(tags) do
    if ixkey(t, g) == best then skip = i end
  end
  local n = bestn / 2
  local idx = ix_first(best, n, from)
  local out, through, scanned = {}, from, 0
  while true do
    if idx >= n then return out, HUGE end
    local chunk = math.min(math.max(want - #out, 64), budget - scanned)
    if chunk <= 0 then return out, through end
    local r = call('LRANGE', best, 2 * idx, 2 * (idx + chunk) - 1)
    for i = 1, #r, 2 do
      local pos, eid = tonumber(r[i]), r[i + 1]
      scanned = scanned + 1
      through = pos
      if #tags == 1 or has_tags(t, eid, tags, skip) then
        out[#out + 1] = {t, eid, pos}
        if #out >= want then return out, pos end
      end
    end
    idx = idx + #r / 2
    if #r < chunk * 2 then return out, HUGE end
  end
end

-- maybe_after reports whether some source (item x type) of items may hold
-- an event above from: one whose every tag list ends above from (an event
-- matching it lies in each). One EXISTS of a source's lists (of two tags or
-- more), then one LINDEX per list, stopping at the first that ends at or
-- below from: a condition's usual answer, "nothing since", without a
-- scan.
-- ixlast caches the last position of the lists read (0: empty); the
-- append script moves it along as it pushes.
local ixlast = {}
local function maybe_after(items, from)
  for _, it in ipairs(items) do
    for _, t in ipairs(item_types(it)) do
      local all = true
      local tags = it.tags
      if #tags > 1 then
        -- One EXISTS rules out a source with an empty list (a new tag).
        local keys = {}
        for i, g in ipairs(tags) do keys[i] = ixkey(t, g) end
        all = call('EXISTS', unpack(keys)) == #keys
      end
      if all then
        for _, g in ipairs(tags) do
          local k = ixkey(t, g)
          local last = ixlast[k]
          if not last then
            last = tonumber(call('LINDEX', k, -2) or '0')
            ixlast[k] = last
          end
          if last <= from then
            all = false
            break
          end
        end
        if all then return true end
      end
    end
  end
  return false
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
