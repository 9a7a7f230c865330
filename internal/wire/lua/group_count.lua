
local n, last, from = 0, '', ARGV[1]
local limit = tonumber(ARGV[3])
while n < limit do
  local page = math.min(1000, limit - n)
  local r = redis.call('XRANGE', KEYS[1], from, ARGV[2], 'COUNT', page)
  n = n + #r
  if #r > 0 then
    last = r[#r][1]
    from = '(' .. last
  end
  if #r < page then break end
end
return {n, last}
