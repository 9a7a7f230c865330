
local nr = tonumber(ARGV[1])
local a = 2
-- The reads are checked with one MGET per 500 keys (all on the queue's
-- slot), not a GET each.
for first = 1, nr, 500 do
  local last = math.min(first + 499, nr)
  local cur = redis.call('MGET', unpack(KEYS, first, last))
  for i = 1, last - first + 1 do
    if ARGV[a] == '1' then
      if cur[i] ~= ARGV[a + 1] then return 0 end
    elseif cur[i] then
      return 0
    end
    a = a + 2
  end
end
local ops = {}
local tops = {}
local k = nr
while a <= #ARGV do
  k = k + 1
  local kind, n = ARGV[a], tonumber(ARGV[a + 1])
  local args = {}
  for j = 1, n do args[j] = ARGV[a + 1 + j] end
  a = a + 2 + n
  if kind == 'x' or kind == 'T' then
    local key = KEYS[k]
    if tops[key] == nil then
      tops[key] = false
      -- One call: XINFO on a missing stream is an error reply ("no such
      -- key"), caught here, so no EXISTS first. Any other error (a key of
      -- another type) ends the commit before it writes anything.
      local info = redis.pcall('XINFO', 'STREAM', key)
      if type(info) == 'table' and info.err then
        if not string.find(string.lower(info.err), 'no such key', 1, true) then return info end
      else
        for i = 1, #info, 2 do
          if info[i] == 'last-generated-id' then tops[key] = info[i + 1] end
        end
      end
    end
    if tops[key] then
      local tms, tseq = string.match(tops[key], '^(%d+)-(%d+)$')
      local ms, seq = string.match(args[1], '^(%d+)-(%d+)$')
      tms, tseq, ms, seq = tonumber(tms), tonumber(tseq), tonumber(ms), tonumber(seq)
      if ms < tms or (ms == tms and seq <= tseq) then return 0 end
    end
    tops[key] = args[1]
  end
  ops[#ops + 1] = {kind, KEYS[k], args}
end
for _, op in ipairs(ops) do
  local kind, key, args = op[1], op[2], op[3]
  if kind == 's' then redis.call('SET', key, args[1])
  elseif kind == 'd' then redis.call('DEL', key)
  elseif kind == 'a' then redis.call('SADD', key, args[1])
  elseif kind == 'r' then redis.call('SREM', key, args[1])
  elseif kind == 'x' then redis.call('XADD', key, unpack(args))
  elseif kind == 'T' then
    -- A tagged event (package dcb): the queue's next position, stored in
    -- the entry and indexed per tag, as the dcb append script does.
    local eid, rc, joined, prefix, name, ng = args[1], args[2], args[3], args[4], args[5], tonumber(args[6])
    local pos = redis.call('INCR', prefix .. 'dcb:pos')
    redis.call('XADD', key, eid, 'id', rc, '@pos', pos, '@tags', joined, unpack(args, 7 + ng))
    for j = 7, 6 + ng do redis.call('RPUSH', prefix .. 'dcb:ix:' .. name .. ':' .. args[j], pos, eid) end
    redis.call('SADD', prefix .. 'dcb:types', name)
  end
end
return 1