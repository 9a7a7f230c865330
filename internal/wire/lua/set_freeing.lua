
redis.call('DEL', KEYS[1])
return redis.call('SET', KEYS[1], ARGV[1])
