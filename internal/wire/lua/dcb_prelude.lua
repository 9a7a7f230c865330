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
-- the type count, the types, the tag count, the tags. An item without
-- types covers every tagged type of the queue. It returns the items and
-- the index after the query.
local function parse_query(a)
  local n = tonumber(ARGV[a])
  a = a + 1
  local items, all = {}, nil
  for i = 1, n do
    local nt = tonumber(ARGV[a])
    local types = {unpack(ARGV, a + 1, a + nt)}
    a = a + nt + 1
    local ng = tonumber(ARGV[a])
    local tags = {unpack(ARGV, a + 1, a + ng)}
    a = a + ng + 1
    if nt == 0 then
      all = all or call('SMEMBERS', TYPES)
      types = all
    end
    items[i] = {types = types, tags = tags}
  end
  return items, a
end

-- check_position refuses a position the index cannot answer for: above
-- the queue's head (a saved position of another queue's life), or below
-- the floor of a stream the query touches (events after it were trimmed
-- with their index entries). It returns the head, or nil and the reply.
local function check_position(items, from)
  local head = tonumber(call('GET', POS) or '0')
  if from > head then return nil, {'position', 'ahead', '', num(head)} end
  for _, it in ipairs(items) do
    for _, t in ipairs(it.types) do
      local f = call('HGET', FLOOR, t)
      if f and tonumber(f) > from then return nil, {'position', 'floor', t, f} end
    end
  end
  return head
end

-- scan_source returns the events of type t carrying every tag of tags with
-- a position above from, in position order: at most want of them, after
-- examining at most budget index members. It scans the smallest of the
-- tag sets and looks the others up by member (ZSCORE). It also returns the
-- position through which the source was examined (HUGE when exhausted).
local function scan_source(t, tags, from, want, budget)
  local keys, best, bestn = {}, 1, nil
  for i, g in ipairs(tags) do
    local k = ixkey(t, g)
    keys[i] = k
    local n = call('ZCARD', k)
    if n == 0 then return {}, HUGE end
    if not bestn or n < bestn then best, bestn = i, n end
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
    for _, t in ipairs(it.types) do
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
