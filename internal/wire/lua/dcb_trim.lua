-- dcb_trim (after dcb_unindex.lua): an exact trim of one stream that keeps
-- the queue's tag index in step (the archive's trim at its watermark).
-- KEYS: the stream, the queue's types set, its floor hash. ARGV: the
-- queue's key prefix, the stream name, strategy, threshold.
dcb_unindex(KEYS[1], ARGV[1], ARGV[2], KEYS[2], KEYS[3], ARGV[3], ARGV[4])
return redis.call('XTRIM', KEYS[1], ARGV[3], '=', ARGV[4])
