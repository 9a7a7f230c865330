-- dcb_unindex: keep a queue's tag index in step with a trim of one of its
-- streams (prepended to the trim scripts). Before the trim removes them,
-- the entries it will remove are read in pages and their index entries
-- removed; the stream's floor (the highest position trimmed from it) is
-- raised, so that a query from below it is refused rather than answered
-- without them. An approximate trim of an indexed stream is made exact, so
-- that what is removed is exactly what was read (it removes no more than
-- the approximate one was allowed to). Streams without tagged events (not
-- in the types set) are untouched and keep the trim as asked.
--
-- dcb_unindex(key, prefix, name, types, floor, strategy, threshold)
-- returns true when the stream is indexed (trim it exactly).
local function dcb_split(eid)
  local dash = string.find(eid, '-', 1, true)
  if not dash then return tonumber(eid), 0 end
  return tonumber(string.sub(eid, 1, dash - 1)), tonumber(string.sub(eid, dash + 1))
end

local function dcb_unindex(key, prefix, name, types, floor, strategy, threshold)
  if redis.call('SISMEMBER', types, name) == 0 then return false end
  local left, bms, bseq
  if strategy == 'MAXLEN' then
    left = redis.call('XLEN', key) - tonumber(threshold)
    if left <= 0 then return true end
  else
    bms, bseq = dcb_split(threshold)
  end
  -- gone[key]: the positions of the removed events in the index list key,
  -- in order: the list's first pairs (a stream's entries are in position
  -- order, and a trim removes its oldest).
  local gone, gkeys = {}, {}
  -- drop removes the pairs of gone from their lists (after each page).
  local function drop()
    for _, k in ipairs(gkeys) do
      local g = gone[k]
      local head = redis.call('LRANGE', k, 0, #g - 1)
      local prefix_ok = #head == #g
      for i = 1, #g, 2 do
        if not prefix_ok or tonumber(head[i]) ~= g[i] or head[i + 1] ~= g[i + 1] then
          prefix_ok = false
          break
        end
      end
      if prefix_ok then
        redis.call('LTRIM', k, #g, -1)
      else
        -- Not the list's first pairs (not seen: kept for an index written
        -- otherwise): remove each pair by value (a position and an entry id
        -- are each unique in the list).
        for i = 1, #g, 2 do
          redis.call('LREM', k, 1, string.format('%.0f', g[i]))
          redis.call('LREM', k, 1, g[i + 1])
        end
      end
    end
    gone, gkeys = {}, {}
  end
  local cur, top = '-', 0
  while true do
    local n = 1000
    if left then n = math.min(n, left) end
    local page = redis.call('XRANGE', key, cur, '+', 'COUNT', n)
    local stop = #page < n
    for _, e in ipairs(page) do
      local id, f = e[1], e[2]
      if bms then
        local ms, seq = dcb_split(id)
        if ms > bms or (ms == bms and seq >= bseq) then
          stop = true
          break
        end
      end
      if f[3] == '@pos' and f[5] == '@tags' then
        local pos = tonumber(f[4])
        if pos > top then top = pos end
        for tag in string.gmatch(f[6], '[^,]+') do
          local k = prefix .. 'dcb:ix:' .. name .. ':' .. tag
          local g = gone[k]
          if not g then
            g = {}
            gone[k] = g
            gkeys[#gkeys + 1] = k
          end
          g[#g + 1] = pos
          g[#g + 1] = id
        end
      end
    end
    drop()
    if left then
      left = left - #page
      if left <= 0 then stop = true end
    end
    if stop or #page == 0 then break end
    cur = '(' .. page[#page][1]
  end
  if top > 0 and top > tonumber(redis.call('HGET', floor, name) or '0') then
    redis.call('HSET', floor, name, string.format('%.0f', top))
  end
  return true
end
