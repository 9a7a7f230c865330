-- stream_append_keyed: the uncontended append of one record with an
-- idempotency key, the lean twin of stream_append for its common case.
--
-- KEYS[1] the stream; KEYS[2] the idempotency key, on the same slot.
-- ARGV: entry id, receipt, dedupe window ms, then the payload pairs.
--
-- Replies: {'ok'}; {'dup', stored receipts}; {'nonmono'} when the stream
-- top is at or above the entry id (the caller then asks stream_append,
-- which arbitrates). Other engine errors (WRONGTYPE) are returned as they
-- are. The client sends only ids it knows to be within a few milliseconds
-- of the engine's clock, so the skew door needs no TIME here.
--
-- The key is claimed first with one SET NX GET (Redis >= 7.0), which also
-- answers whether it was taken, and released when the XADD is refused:
-- two engine calls on the common path instead of GET, XADD, SET.
local v = redis.call('SET', KEYS[2], ARGV[2], 'NX', 'PX', ARGV[3], 'GET')
if v then return {'dup', v} end
local r = redis.pcall('XADD', KEYS[1], ARGV[1], 'id', ARGV[2], unpack(ARGV, 4))
if type(r) == 'table' and r.err then
  redis.call('DEL', KEYS[2])
  if string.find(r.err, 'equal or smaller than the target stream top', 1, true) then return {'nonmono'} end
  return r
end
return {'ok'}
