-- The floor under dcb's tagged appends, for dcb's BenchmarkTaggedFloor
-- only (not embedded in any binary): see dcb/floor_bench_test.go.
local n = (#ARGV - 2) / 3
local pos = redis.call('INCRBY', KEYS[1], n) - n
for i = 1, n do
  local g, p, joined = ARGV[3*i], ARGV[3*i+1], ARGV[3*i+2]
  if ARGV[2] == 'cond' then
    -- The cheapest check of a two-item condition ("nothing since"): the
    -- last position of each source's lists.
    redis.call('LINDEX', ARGV[1] .. 'game-opened:' .. g, -2)
    redis.call('LINDEX', ARGV[1] .. 'game-closed:' .. g, -2)
    if redis.call('EXISTS', ARGV[1] .. g, ARGV[1] .. p) == 2 then
      redis.call('LINDEX', ARGV[1] .. p, -2)
    end -- the two-tag source's list
  end
  local eid = redis.call('XADD', KEYS[2], '*', 'id', 'EVT0SbzaxAGT1E', '@pos', pos + i, '@tags', joined,
    'room', 'lobby-7', 'player', 'PLR0KHTOWnGLuC', 'points', '120')
  redis.call('RPUSH', ARGV[1] .. g, pos + i, eid)
  redis.call('RPUSH', ARGV[1] .. p, pos + i, eid)
end
return pos
