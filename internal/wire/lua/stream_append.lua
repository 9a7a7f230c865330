-- stream_append: append records to one stream, the engine arbitrating ids.
--
-- KEYS[1] the stream; KEYS[2] (optional) the idempotency key, on the same slot.
-- ARGV: mode ('a' arbitrate, 'h' arbitrate on a contended stream: read the
-- top first instead of trying the proposal blind, 'i' the caller's id as
-- given), node, max skew ms,
-- lead ms, expected top ('' none, '-' empty, else an entry id), dedupe window
-- ms, record count, then per record: entry id, receipt, field count, fields.
--
-- Replies (arrays): {'ok', sec, usec, refused, foreign, receipt...}, foreign
-- 1 when a proposal fell at or below a top of another node (another writer
-- is above this one: the stream is contended), else 0; {'dup', sec,
-- usec, receipts}; {'conflict', sec, usec, top entry id or ''}; {'skew', sec,
-- usec, 'id'|'top', instant ms}; {'nonmono', sec, usec}. Other engine errors
-- (WRONGTYPE) are returned as they are.
--
-- Law: an id chosen here is the smallest one above the stream's top that is
-- not earlier than the engine's clock, keeping the writer's node bits when it
-- can; it runs at most one millisecond ahead of the clock unless the top
-- itself is ahead (then it follows the top, up to max skew).
if redis.replicate_commands then pcall(redis.replicate_commands) end

local EPOCH = 1704067200000
local TAILMAX = 4194303
local ALPHA = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
local NONMONO = 'The ID specified in XADD is equal or smaller than the target stream top item'

local key = KEYS[1]
local mode, node = ARGV[1], tonumber(ARGV[2])
local maxskew, lead = tonumber(ARGV[3]), tonumber(ARGV[4])
local expect, window, n = ARGV[5], tonumber(ARGV[6]), tonumber(ARGV[7])

local t = redis.call('TIME')
local sec, usec = t[1], t[2]
local now = tonumber(sec) * 1000 + math.floor(tonumber(usec) / 1000)

-- The branded receipt of the A1 entry id (ms, tail): EVT + 11 base62 digits
-- of (ms - EPOCH) << 22 | tail, by long division in two limbs, since Lua
-- numbers are doubles and a snowflake has 63 bits.
local function receipt(ms, tail)
  local hi, lo = ms - EPOCH, tail
  local out = {}
  for i = 11, 1, -1 do
    local r = hi % 62
    hi = (hi - r) / 62
    local x = r * 4194304 + lo
    local d = x % 62
    lo = (x - d) / 62
    out[i] = string.sub(ALPHA, d + 1, d + 1)
  end
  return 'EVT' .. table.concat(out)
end

local function parse(eid)
  local ms, seq = string.match(eid, '^(%d+)-(%d+)$')
  return tonumber(ms), tonumber(seq)
end

local function is_nonmono(err)
  return string.find(err, NONMONO, 1, true) ~= nil
end

local function last_entry()
  local r = redis.call('XREVRANGE', key, '+', '-', 'COUNT', 1)
  if #r == 0 then return nil end
  return r[1][1]
end

local function last_generated()
  if redis.call('EXISTS', key) == 0 then return '0-0' end
  local info = redis.call('XINFO', 'STREAM', key)
  if info['last-generated-id'] then return info['last-generated-id'] end
  for i = 1, #info, 2 do
    if info[i] == 'last-generated-id' then return info[i + 1] end
  end
  return '0-0'
end

-- above returns the smallest entry id above (tms, ttail) and not before now,
-- with this writer's node bits when they fit.
local function above(tms, ttail)
  local ms = math.max(now, tms)
  local own = node * 4096
  if ms > tms or own > ttail then return ms, own end
  if math.floor(ttail / 4096) == node and ttail % 4096 < 4095 then return ms, ttail + 1 end
  if ms <= now then return ms + 1, own end
  if ttail < TAILMAX then return ms, ttail + 1 end
  return ms + 1, own
end

local function add(eid, rc, a, nf)
  local args = {'XADD', key, eid, 'id', rc}
  for j = 1, nf do args[5 + j] = ARGV[a + j - 1] end
  return redis.pcall(unpack(args))
end

-- foreign_top notes whether the top a proposal fell below was written by
-- another node: then another writer is above this one (a top of this
-- writer's own node is one of its own later appends).
local foreign = 0
local function note_top(ttail)
  if math.floor(math.min(ttail, TAILMAX) / 4096) ~= node then foreign = 1 end
end

local function failed(r)
  return type(r) == 'table' and r.err ~= nil
end

if KEYS[2] then
  local v = redis.call('GET', KEYS[2])
  if v then return {'dup', sec, usec, v} end
end

-- top is the id the next record must exceed, when known: nil until read.
local top = nil
if expect ~= '' then
  local last = last_entry()
  if (expect == '-' and last ~= nil) or (expect ~= '-' and last ~= expect) then
    return {'conflict', sec, usec, last or ''}
  end
  top = last or last_generated()
end

local out = {'ok', sec, usec, 0, 0}
local refused = 0
local a = 8
for i = 1, n do
  local eid, rc, nf = ARGV[a], ARGV[a + 1], tonumber(ARGV[a + 2])
  a = a + 3
  local pms = tonumber(string.sub(eid, 1, string.find(eid, '-', 1, true) - 1))
  if mode == 'i' then
    if pms > now + maxskew then return {'skew', sec, usec, 'id', pms} end
    local r = add(eid, rc, a, nf)
    if failed(r) then
      if is_nonmono(r.err) then return {'nonmono', sec, usec} end
      return redis.error_reply(r.err)
    end
  else
    local ok = false
    if mode == 'h' and top == nil then
      top = last_entry() or last_generated()
    end
    local ahead = false
    if top ~= nil and pms <= now + lead then
      local tms, ttail = parse(top)
      local _, ptail = parse(eid)
      ahead = pms > tms or (pms == tms and ptail > ttail)
    end
    if top ~= nil and not ahead then
      refused = refused + 1
      if pms <= now + lead then note_top(select(2, parse(top))) end
    end
    if pms <= now + lead and (top == nil or ahead) then
      local r = add(eid, rc, a, nf)
      if not failed(r) then
        ok = true
      elseif not is_nonmono(r.err) then
        return redis.error_reply(r.err)
      else
        refused = refused + 1
      end
    end
    if not ok then
      if top == nil then top = last_entry() or last_generated() end
      for _ = 1, 2 do
        local tms, ttail = parse(top)
        note_top(ttail)
        if tms > now + maxskew then return {'skew', sec, usec, 'top', tms} end
        local ms, tail
        if ttail > TAILMAX then ms, tail = above(tms, TAILMAX) else ms, tail = above(tms, ttail) end
        eid = string.format('%.0f-%.0f', ms, tail)
        rc = receipt(ms, tail)
        local r = add(eid, rc, a, nf)
        if not failed(r) then ok = true break end
        if not is_nonmono(r.err) then return redis.error_reply(r.err) end
        -- The last entry was deleted: XADD compares with the last generated id.
        refused = refused + 1
        top = last_generated()
      end
      if not ok then return redis.error_reply('ERR ' .. NONMONO) end
    end
  end
  top = eid
  out[#out + 1] = rc
  a = a + nf
end
out[4] = refused
out[5] = foreign
if KEYS[2] then
  redis.call('SET', KEYS[2], table.concat(out, '', 6), 'PX', window)
end
return out
