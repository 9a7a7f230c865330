-- dcb_read: read the events matching a query, in queue position order.
--
-- ARGV (after the prelude's ARGV[1]): from (exclusive), the page size, the
-- members each source may examine, the query.
--
-- Replies: {'ok', head, next, stream, entry id, position, fields, …} where
-- next is the position the following page starts after: the last event's
-- when the page is full, else the position through which the query was
-- examined (the head when every source was exhausted); {'position',
-- 'ahead'|'floor', stream, bound}.
local from, want, budget = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local items = parse_query(5)
local head, refusal = check_position(items, from)
if not head then return refusal end
local evs, horizon = query(items, from, want, budget)
local nxt = horizon
if #evs >= want then
  nxt = evs[#evs][3]
elseif horizon == HUGE or horizon > head then
  nxt = head
end
local out = {'ok', num(head), num(nxt)}
for _, e in ipairs(evs) do
  local r = call('XRANGE', skey(e[1]), e[2], e[2])
  if r[1] then
    out[#out + 1] = e[1]
    out[#out + 1] = e[2]
    out[#out + 1] = num(e[3])
    out[#out + 1] = r[1][2]
  end
end
return out
