-- The partition counts of a partitioned stream, oldest first ("4,8").
-- KEYS[1] the stream's partitions key
-- ARGV[1] "create": ARGV[2] the count; stores it when absent.
-- ARGV[1] "grow": ARGV[2] the counts the caller read, ARGV[3] the new
-- count; appends it only when the counts are still those read.
-- Returns the counts stored after the call.
local cur = redis.call('GET', KEYS[1])
if ARGV[1] == 'create' then
  if not cur then
    redis.call('SET', KEYS[1], ARGV[2])
    return ARGV[2]
  end
  return cur
end
if cur == ARGV[2] then
  cur = cur .. ',' .. ARGV[3]
  redis.call('SET', KEYS[1], cur)
end
return cur or ''
