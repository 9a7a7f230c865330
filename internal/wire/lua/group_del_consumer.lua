
local s = redis.pcall('XPENDING', KEYS[1], ARGV[1])
if type(s) == 'table' and s.err then return s end
if s[4] then
  for _, c in ipairs(s[4]) do
    if c[1] == ARGV[2] then return {0, tonumber(c[2])} end
  end
end
for _, c in ipairs(redis.call('XINFO', 'CONSUMERS', KEYS[1], ARGV[1])) do
  for i = 1, #c, 2 do
    if c[i] == 'name' and c[i + 1] == ARGV[2] then
      redis.call('XGROUP', 'DELCONSUMER', KEYS[1], ARGV[1], ARGV[2])
      return {1, 0}
    end
  end
end
return {2, 0}
