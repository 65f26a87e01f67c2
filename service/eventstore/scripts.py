"""Every Lua script of the event store, in one place.

Each script runs atomically on the Redis that holds its keys; on a Redis
Cluster every key of one call is in one match's hash slot (``keys._match``),
which is why a cross-slot index (the pending-AI and pending-clock indexes, the
lobby) is never written by a script. Each script's comment lists its KEYS, then
its ARGV, then what it returns. The modules that call them
(:mod:`.redis_streams`, :mod:`.outbox`, :mod:`.drafts`, :mod:`.records`) build
the keys and arguments and parse the replies.
"""

# The append of one entry (EventStore.append, MatchRecords.create_match).
# KEYS[1] the match's events stream
# KEYS[2] the match's idempotency hash
# KEYS[3] the match's record hash (its denormalised status and version, for the lobby)
# KEYS[4] the match's AI-turn marker (outbox of AI turns; see outbox.py)
# KEYS[5] the match's clock marker (outbox of clock deadlines; see outbox.py)
# KEYS[6] optional: the appending seat's draft hash (see drafts.py), flushed by this entry
# ARGV[1] expected version (the stream length the writer saw)
# ARGV[2] idempotency key, or "" for none
# ARGV[3] the entry, JSON
# ARGV[4] the match status after this entry, or "" to leave the record alone
# ARGV[5] fingerprint of the request that carries the idempotency key, or ""
# ARGV[6] the AI seats to move after this entry, "1,3", or "" for none
# ARGV[7] the running clocks a person holds after this entry, "1=1700000012.5,3=...", or "" for none
# ARGV[8] with KEYS[6]: the draft's base (the barrier version it was written against)
# ARGV[9] with KEYS[6]: how many draft steps the entry carries (the draft must hold exactly these)
# Returns {"ok", version} | {"dup", "<version>[:<fingerprint>]" as stored} | {"conflict", current version}
#
# With a draft, the entry carries the seat's sealed steps (``sealed``): the draft is checked
# and deleted in the same atomic step, and its idempotency keys move to KEYS[2] with this
# entry's version, so a retried step replays instead of acting twice: its steps' keys, and
# those of the steps undone in it and of the undos that dropped them (see drafts.py), so that
# none of them is taken for a new request once the draft is gone.
#
# An idempotency record is "<version>:<fingerprint>" (just "<version>" when written
# without a fingerprint, as before fingerprints existed), so that a key reused
# with a different request can be told from a retry (see redis_streams.parse_idempotency).
APPEND_LUA = """
if ARGV[2] ~= '' then
  local prior = redis.call('HGET', KEYS[2], ARGV[2])
  if prior then return {'dup', prior} end
end
local current = redis.call('XLEN', KEYS[1])
if current ~= tonumber(ARGV[1]) then return {'conflict', current} end
local drafted = false
if KEYS[6] then
  local held = 0
  if redis.call('HGET', KEYS[6], 'base') == ARGV[8] then
    drafted = true
    held = tonumber(redis.call('HGET', KEYS[6], 'n') or '0')
  end
  if held ~= tonumber(ARGV[9]) then return {'conflict', current} end
end
local version = current + 1
redis.call('XADD', KEYS[1], version .. '-0', 'entry', ARGV[3])
if KEYS[6] then
  if drafted then
    local fields = redis.call('HGETALL', KEYS[6])
    for i = 1, #fields, 2 do
      local prefix = string.sub(fields[i], 1, 2)
      local fingerprint = nil
      if prefix == 'k:' or prefix == 'u:' then
        fingerprint = string.match(fields[i + 1], '^%d+:(.*)$')
      elseif prefix == 'd:' then
        fingerprint = string.match(fields[i + 1], '^([^:]*):')
      end
      if prefix == 'k:' or prefix == 'u:' or prefix == 'd:' then
        local record = version
        if fingerprint and fingerprint ~= '' then record = version .. ':' .. fingerprint end
        redis.call('HSETNX', KEYS[2], string.sub(fields[i], 3), record)
      end
    end
  end
  redis.call('DEL', KEYS[6])
end
if ARGV[2] ~= '' then
  local record = version
  if ARGV[5] ~= '' then record = version .. ':' .. ARGV[5] end
  redis.call('HSET', KEYS[2], ARGV[2], record)
end
if ARGV[4] ~= '' then redis.call('HSET', KEYS[3], 'status', ARGV[4], 'version', version) end
-- AI outbox: whether an AI seat is to move is recorded with the entry that made it so,
-- so a crash between this append and the enqueue of the job loses no turn.
if ARGV[6] ~= '' then
  redis.call('SET', KEYS[4], version .. ':' .. ARGV[6])
else
  redis.call('DEL', KEYS[4])
end
-- Clock outbox: likewise the deadlines of the clocks this entry left running, so a crash
-- before the timeout job is scheduled loses no timeout.
if ARGV[7] ~= '' then
  redis.call('SET', KEYS[5], version .. ':' .. ARGV[7])
else
  redis.call('DEL', KEYS[5])
end
return {'ok', version}
"""


# The compare-and-delete of an outbox's index member (see outbox.py), for AI turns and clocks.
# KEYS[1] the outbox's index (the pending-AI or the pending-clock sorted set)
# ARGV[1] match id
# ARGV[2] the score (time of the mark) the caller saw
# Removes the member only if no writer marked it again since (its score did not grow).
# Returns 1 (removed) or 0.
DROP_PENDING_LUA = """
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if score and tonumber(score) <= tonumber(ARGV[2]) then
  return redis.call('ZREM', KEYS[1], ARGV[1])
end
return 0
"""


# A step pushed on a seat's draft (see drafts.py).
# KEYS[1] the seat's draft hash
# KEYS[2] the match's events stream
# KEYS[3] the match's idempotency hash
# ARGV[1] expected version (the stream length the writer saw)
# ARGV[2] the draft's base (the barrier version the writer saw)
# ARGV[3] how many steps the writer saw in the draft
# ARGV[4] the step, JSON
# ARGV[5] idempotency key, or "" for none
# ARGV[6] fingerprint of the request that carries the key, or ""
# Returns {"ok", count} | {"dup", "<version>[:<fingerprint>]"} (the key's step is in the log)
#       | {"dupstep", "<step>[:<fingerprint>]"} (the key's step is in the draft)
#       | {"dropped", "<fingerprint>:<step JSON>"} (the key's step was undone: see POP_LUA)
#       | {"undokey", "<count left>[:<fingerprint>]"} (an undo of draft steps used the key)
#       | {"conflict", version}
PUSH_LUA = """
local same_base = redis.call('HGET', KEYS[1], 'base') == ARGV[2]
if ARGV[5] ~= '' then
  local prior = redis.call('HGET', KEYS[3], ARGV[5])
  if prior then return {'dup', prior} end
  if same_base then
    local step = redis.call('HGET', KEYS[1], 'k:' .. ARGV[5])
    if step then return {'dupstep', step} end
    local dropped = redis.call('HGET', KEYS[1], 'd:' .. ARGV[5])
    if dropped then return {'dropped', dropped} end
    local undo = redis.call('HGET', KEYS[1], 'u:' .. ARGV[5])
    if undo then return {'undokey', undo} end
  end
end
local current = redis.call('XLEN', KEYS[2])
if current ~= tonumber(ARGV[1]) then return {'conflict', current} end
local n = 0
if same_base then
  n = tonumber(redis.call('HGET', KEYS[1], 'n') or '0')
else
  redis.call('DEL', KEYS[1])
end
if n ~= tonumber(ARGV[3]) then return {'conflict', current} end
n = n + 1
redis.call('HSET', KEYS[1], 'base', ARGV[2], 'n', n, 's:' .. n, ARGV[4])
if ARGV[5] ~= '' then
  local record = tostring(n)
  if ARGV[6] ~= '' then record = n .. ':' .. ARGV[6] end
  redis.call('HSET', KEYS[1], 'k:' .. ARGV[5], record)
end
return {'ok', n}
"""


# The last steps of a seat's draft dropped (an undo; see drafts.py).
# KEYS[1] the seat's draft hash
# KEYS[2] the match's events stream
# ARGV[1] the draft's base the writer saw
# ARGV[2] how many steps the writer saw in the draft
# ARGV[3] how many of the last steps to drop
# ARGV[4] the undo's idempotency key, or "" for none: kept as ``u:<key>`` (``<count left>[:<fingerprint>]``)
# ARGV[5] fingerprint of the request that carries the key, or ""
# Returns {"ok", count left} | {"dup", "<count left>[:<fingerprint>]"} (the key's pop was done:
# nothing dropped) | {"movekey", ""} (a step of the draft, kept or dropped, used the key: nothing
# dropped) | {"conflict", version}
#
# The dropped steps' keys are not forgotten: each ``k:<key>`` becomes ``d:<key>``
# (``<fingerprint>:<step JSON>``, the fingerprint "" if none), so that a repeat of that move
# replays its step instead of taking it again.
POP_LUA = """
local current = redis.call('XLEN', KEYS[2])
if redis.call('HGET', KEYS[1], 'base') ~= ARGV[1] then return {'conflict', current} end
if ARGV[4] ~= '' then
  local prior = redis.call('HGET', KEYS[1], 'u:' .. ARGV[4])
  if prior then return {'dup', prior} end
  if redis.call('HEXISTS', KEYS[1], 'k:' .. ARGV[4]) == 1 or redis.call('HEXISTS', KEYS[1], 'd:' .. ARGV[4]) == 1 then
    return {'movekey', ''}
  end
end
local n = tonumber(redis.call('HGET', KEYS[1], 'n') or '0')
if n ~= tonumber(ARGV[2]) then return {'conflict', current} end
local keep = n - tonumber(ARGV[3])
if keep < 0 then return {'conflict', current} end
local fields = redis.call('HGETALL', KEYS[1])
for i = 1, #fields, 2 do
  if string.sub(fields[i], 1, 2) == 'k:' then
    local number = tonumber(string.match(fields[i + 1], '^%d+'))
    if number > keep then
      local fingerprint = string.match(fields[i + 1], '^%d+:(.*)$') or ''
      local step = redis.call('HGET', KEYS[1], 's:' .. number)
      redis.call('HSET', KEYS[1], 'd:' .. string.sub(fields[i], 3), fingerprint .. ':' .. step)
      redis.call('HDEL', KEYS[1], fields[i])
    end
  end
end
for i = keep + 1, n do redis.call('HDEL', KEYS[1], 's:' .. i) end
redis.call('HSET', KEYS[1], 'n', keep)
if ARGV[4] ~= '' then
  local record = tostring(keep)
  if ARGV[5] ~= '' then record = keep .. ':' .. ARGV[5] end
  redis.call('HSET', KEYS[1], 'u:' .. ARGV[4], record)
end
return {'ok', keep}
"""


# A seat claimed (MatchRecords.claim): HSETNX of the seat, then its token's hash.
# KEYS[1] the match's meta hash
# KEYS[2] the match's tokens hash
# KEYS[3] the match's events stream
# ARGV[1] ``seat:<n>``
# ARGV[2] the seat's JSON
# ARGV[3] the token's hash
# ARGV[4] n
# ARGV[5] the number of seats
# ARGV[6] the lobby's status once every seat is filled, or "" (not known)
# ARGV[7] the log's length that status holds at (0: not known)
# Returns {-1} if there is no such match, else {1 if claimed else 0, the meta hash after it,
# the log's length, 1 if the claim filled the last seat and saved that status}.
CLAIM_LUA = """
if redis.call('HEXISTS', KEYS[1], 'record') == 0 then return {-1} end
local won = redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2])
local length = redis.call('XLEN', KEYS[3])
local saved = 0
if won == 1 then
  redis.call('HSET', KEYS[2], ARGV[3], ARGV[4])
  if ARGV[6] ~= '' and length == tonumber(ARGV[7]) then
    saved = 1
    for i = 0, tonumber(ARGV[5]) - 1 do
      if redis.call('HEXISTS', KEYS[1], 'seat:' .. i) == 0 then saved = 0 break end
    end
    if saved == 1 then redis.call('HSET', KEYS[1], 'status', ARGV[6], 'version', ARGV[7]) end
  end
end
return {won, redis.call('HGETALL', KEYS[1]), length, saved}
"""


# A rematch's reservation of seat n released unless the seat is claimed (MatchRecords.release).
# KEYS[1] the match's meta hash
# ARGV[1] ``seat:<n>``
# ARGV[2] ``released:<n>``
# Returns -1 (no such match), 0 (the seat is claimed), 1 (released before) or 2 (released now).
RELEASE_LUA = """
if redis.call('HEXISTS', KEYS[1], 'record') == 0 then return -1 end
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then return 0 end
return redis.call('HSETNX', KEYS[1], ARGV[2], '1') + 1
"""


# What a load misses, at once (MatchRecords.read_parts).
# KEYS[1] the match's meta hash
# KEYS[2] its tokens hash
# KEYS[3] its events stream
# KEYS[4] its snapshots hash (all in one slot)
# ARGV[1] ``1`` to read the record
# ARGV[2] a token's hash to read its seat (``""``: none)
# ARGV[3] the version to read the entries after (``""``: none; ``snapshot``: after the newest snapshot)
# Returns {the meta hash ({} unless asked), the seat ("" if none), the entries, the newest
# snapshot ("" if none or not asked)}.
READ_PARTS_LUA = """
local meta = {}
if ARGV[1] == '1' then meta = redis.call('HGETALL', KEYS[1]) end
local seat = ''
if ARGV[2] ~= '' then seat = redis.call('HGET', KEYS[2], ARGV[2]) or '' end
local entries, snapshot = {}, ''
if ARGV[3] ~= '' then
  local after = ARGV[3]
  if after == 'snapshot' then
    after = '0'
    local newest = -1
    for _, field in ipairs(redis.call('HKEYS', KEYS[4])) do
      local n = tonumber(field)
      if n and n > newest then newest, after = n, field end
    end
    if newest >= 0 then snapshot = redis.call('HGET', KEYS[4], after) end
  end
  entries = redis.call('XRANGE', KEYS[3], (tonumber(after) + 1) .. '-0', '+')
end
return {meta, seat, entries, snapshot}
"""


# A seat's undo request opened (MatchRecords.open_undo_request), unless the seat has one.
# KEYS[1] the match's undo requests hash
# KEYS[2] its pending index (seat -> id; same slot)
# ARGV[1] the seat
# ARGV[2] the request's id
# ARGV[3] the request's JSON
# Returns 1 (saved as the seat's pending request), or 0 (nothing written).
OPEN_UNDO_LUA = """
if redis.call('HSETNX', KEYS[2], ARGV[1], ARGV[2]) == 0 then return 0 end
redis.call('HSET', KEYS[1], ARGV[2], ARGV[3])
return 1
"""


# An undo request written over (MatchRecords.save_undo_request).
# KEYS[1] the match's undo requests hash
# KEYS[2] its pending index (same slot)
# KEYS[3] its settled list (same slot)
# ARGV[1] the request's id
# ARGV[2] its JSON
# ARGV[3] its seat
# ARGV[4] ``1`` if it is settled
# ARGV[5] how many settled requests to keep
# ARGV[6] the JSON it must still have (``""``: any)
# Returns 1 (saved) or 0 (it changed since: nothing written). A settled request leaves the index
# (if it is the seat's pending one) and goes first in the settled list, whose oldest past the
# bound are deleted.
SAVE_UNDO_LUA = """
if ARGV[6] ~= '' and redis.call('HGET', KEYS[1], ARGV[1]) ~= ARGV[6] then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
if ARGV[4] == '1' then
  if redis.call('HGET', KEYS[2], ARGV[3]) == ARGV[1] then redis.call('HDEL', KEYS[2], ARGV[3]) end
  redis.call('LREM', KEYS[3], 0, ARGV[1])
  redis.call('LPUSH', KEYS[3], ARGV[1])
  while redis.call('LLEN', KEYS[3]) > tonumber(ARGV[5]) do
    redis.call('HDEL', KEYS[1], redis.call('RPOP', KEYS[3]))
  end
end
return 1
"""


# The pending undo requests of a match (MatchRecords.pending_undo_requests).
# KEYS[1] the match's undo requests hash
# KEYS[2] its pending index
# (no ARGV)
# Returns the JSON of each request in the index (at most one a seat).
PENDING_UNDO_LUA = """
local ids = redis.call('HVALS', KEYS[2])
if #ids == 0 then return {} end
return redis.call('HMGET', KEYS[1], unpack(ids))
"""


# Every undo request a match keeps (MatchRecords.kept_undo_requests).
# KEYS[1] the match's undo requests hash
# KEYS[2] its pending index
# KEYS[3] its settled list
# (no ARGV)
# Returns the JSON of every request the match keeps: the pending ones (at most one a seat),
# then the settled ones, newest first.
KEPT_UNDO_LUA = """
local ids = redis.call('HVALS', KEYS[2])
for _, id in ipairs(redis.call('LRANGE', KEYS[3], 0, -1)) do ids[#ids + 1] = id end
if #ids == 0 then return {} end
return redis.call('HMGET', KEYS[1], unpack(ids))
"""


__all__ = [
    "APPEND_LUA",
    "DROP_PENDING_LUA",
    "PUSH_LUA",
    "POP_LUA",
    "CLAIM_LUA",
    "RELEASE_LUA",
    "READ_PARTS_LUA",
    "OPEN_UNDO_LUA",
    "SAVE_UNDO_LUA",
    "PENDING_UNDO_LUA",
    "KEPT_UNDO_LUA",
]
