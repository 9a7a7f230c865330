
if #redis.call('XRANGE', KEYS[2], ARGV[1], ARGV[1]) == 0 then return 0 end
local r = redis.pcall('XADD', KEYS[1], ARGV[2], unpack(ARGV, 3))
if type(r) == 'table' and r.err then return r end
redis.call('XDEL', KEYS[2], ARGV[1])
return 1
