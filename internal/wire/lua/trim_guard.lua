-- trim_guard (after dcb_unindex.lua): KEYS stream, watermark cache,
-- archiver lease, the queue's tagged types set, its floor hash; ARGV
-- strategy, '~'|'=', threshold, force, the watermark read, its entry id,
-- the queue's key prefix, the stream name.

local w = redis.call('GET', KEYS[2])
if ARGV[4] == '0' then
  if w then return {'archived', w} end
  if redis.call('EXISTS', KEYS[3]) == 1 then return {'leased', ''} end
end
if ARGV[4] == '1' and (w or '') ~= ARGV[5] then return {'moved', w or ''} end
local t = redis.pcall('TYPE', KEYS[1])
if type(t) == 'table' then t = t.ok end
if t ~= 'stream' and t ~= 'none' then return redis.error_reply('WRONGTYPE Operation against a key holding the wrong kind of value') end
-- A stream with tagged events has its index entries removed with the
-- entries, and is trimmed exactly (dcb_unindex.lua).
local function trim()
  local op = ARGV[2]
  if dcb_unindex(KEYS[1], ARGV[7], ARGV[8], KEYS[4], KEYS[5], ARGV[1], ARGV[3]) then op = '=' end
  return redis.call('XTRIM', KEYS[1], ARGV[1], op, ARGV[3])
end
if ARGV[4] == '0' then return {'ok', trim(), 0} end
if not w then
  local n = trim()
  if redis.call('EXISTS', KEYS[3]) == 1 then return {'ok', n, n} end
  return {'ok', n, 0}
end
local function above()
  local n = redis.call('XLEN', KEYS[1])
  local cur = '-'
  while true do
    local page = redis.call('XRANGE', KEYS[1], cur, ARGV[6], 'COUNT', 1000)
    n = n - #page
    if #page < 1000 then return n end
    cur = '(' .. page[#page][1]
  end
end
local a0 = above()
local n = trim()
return {'ok', n, a0 - above()}
