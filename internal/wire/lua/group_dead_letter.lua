
local p = redis.call('XPENDING', KEYS[1], ARGV[1], ARGV[3], ARGV[3], 1, ARGV[2])
if #p == 0 then return 0 end
local r = redis.pcall('XADD', KEYS[2], ARGV[4], unpack(ARGV, 5))
if type(r) == 'table' and r.err then return r end
redis.call('XACK', KEYS[1], ARGV[1], ARGV[3])
return 1
