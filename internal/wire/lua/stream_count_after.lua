
local key, last, cap = KEYS[1], ARGV[1], tonumber(ARGV[2])
local function cmp(a, b)
  local am, as = string.match(a, '^(%d+)-(%d+)$')
  local bm, bs = string.match(b, '^(%d+)-(%d+)$')
  if #am ~= #bm then return #am < #bm and -1 or 1 end
  if am ~= bm then return am < bm and -1 or 1 end
  if #as ~= #bs then return #as < #bs and -1 or 1 end
  if as ~= bs then return as < bs and -1 or 1 end
  return 0
end
local t = redis.pcall('TYPE', key)
if type(t) == 'table' then t = t.ok end
if t == 'none' then return {0, 1} end
if t ~= 'stream' then return redis.error_reply('WRONGTYPE Operation against a key holding the wrong kind of value') end
local n = redis.call('XLEN', key)
if n == 0 then return {0, 1} end
if last == '' then return {n, 1} end
local top = redis.call('XREVRANGE', key, '+', '-', 'COUNT', 1)[1][1]
if cmp(last, top) >= 0 then return {0, 1} end
local first = redis.call('XRANGE', key, '-', '+', 'COUNT', 1)[1][1]
if cmp(last, first) < 0 then return {n, 1} end
local above = #redis.call('XRANGE', key, '(' .. last, '+', 'COUNT', cap)
if above < cap then return {above, 1} end
local upto = #redis.call('XRANGE', key, '-', last, 'COUNT', cap)
if upto < cap then return {n - upto, 1} end
return {cap, 0}
