"""Drafts: a seat's sealed steps, kept beside the log until the seat confirms.

Where a game declares a seat's steps sealed (``Game.sealed_steps``: private
until the seat confirms, as in Look at the Stars' simultaneous turn, H2), each
such step would leak *how many* steps the seat took if it were an entry of its
own: every version number, ETag, SSE id and history page counts entries. So a
sealed step goes to the seat's draft instead (one hash per match and seat, in
the match's slot, ``keys.draft``), which only that seat's token reads; the
seat's confirming step then appends the whole draft and itself as one entry
(``sealed`` in the entry), in the append script that deletes the draft
(:meth:`EventStore.append` with a :class:`DraftFlush`).

A draft is written against a *base*: the version of the match's last barrier
(a draw, a reveal or a lifecycle entry) when its first step was taken. A
draft whose base is not the match's current barrier is stale (a takeover or a
resignation came between) and counts as empty; the next push replaces it.

Every write is one Lua script that checks what the writer saw (the log's
version for a push, the draft's base and length for both), so racing writers
of one seat cannot both add a step on the same draft, and an idempotency key
replays its step instead of adding it twice.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import redis

from .. import jsoncodec
from ..errors import VersionConflict
from . import keys

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


@dataclass(frozen=True)
class Draft:
    """A seat's draft as stored: ``base`` (None: there is none) and its steps, oldest first."""

    base: int | None = None
    steps: list = field(default_factory=list)
    #: idempotency key -> (its step's number, the fingerprint stored with it or None)
    keys: dict = field(default_factory=dict)
    #: idempotency key of an undo of draft steps -> (the steps it left, its fingerprint or None)
    undone: dict = field(default_factory=dict)
    #: idempotency key of a step an undo dropped -> (its fingerprint or None, the step)
    dropped: dict = field(default_factory=dict)

    def current(self, barrier: int) -> list:
        """The steps, if the draft was written against ``barrier`` (else none: it is stale)."""
        return list(self.steps) if self.base == barrier else []


@dataclass(frozen=True)
class DraftFlush:
    """What an append that carries a seat's draft expects of it (see ``EventStore.append``)."""

    seat: int
    base: int
    count: int


@dataclass(frozen=True)
class DraftResult:
    """The outcome of a push or a pop: the draft's new length, or a replay of an idempotency key.

    ``duplicate``: the key was seen; for a push, ``step`` is its step's number in the draft, or
    ``version`` the entry that carries it once the draft was flushed, or ``dropped`` the step
    itself once an undo dropped it; for a pop, ``count`` the steps its first use left;
    ``fingerprint`` is the one stored with the key (None if none). ``reused``: the key is the
    other kind's (a push found an undo's, a pop a step's): nothing was done, and the caller
    refuses the request (idempotency-key-reused).
    """

    count: int = 0
    duplicate: bool = False
    step: int | None = None
    version: int | None = None
    fingerprint: str | None = None
    dropped: dict | None = None
    reused: bool = False


def _dropped(raw) -> tuple[str | None, dict]:
    fingerprint, _, step = _text(raw).partition(":")
    return fingerprint or None, json.loads(step)


def _text(raw) -> str:
    return raw.decode() if isinstance(raw, bytes) else str(raw)


def _split(raw) -> tuple[int, str | None]:
    number, _, fingerprint = _text(raw).partition(":")
    return int(number), fingerprint or None


class Drafts:
    """The draft scripts on one redis-py client (``decode_responses=False``)."""

    def __init__(self, client: redis.Redis):
        self.redis = client
        self._push = client.register_script(PUSH_LUA)
        self._pop = client.register_script(POP_LUA)

    def read(self, match_id: str, seat: int) -> Draft:
        found = {_text(k): v for k, v in self.redis.hgetall(keys.draft(match_id, seat)).items()}
        if "base" not in found:
            return Draft()
        count = int(found.get("n", 0))
        steps = [json.loads(found[f"s:{i}"]) for i in range(1, count + 1)]
        seen = {k[2:]: _split(v) for k, v in found.items() if k.startswith("k:")}
        undone = {k[2:]: _split(v) for k, v in found.items() if k.startswith("u:")}
        dropped = {k[2:]: _dropped(v) for k, v in found.items() if k.startswith("d:")}
        return Draft(int(found["base"]), steps, seen, undone, dropped)

    def push(
        self,
        match_id: str,
        seat: int,
        step: dict,
        expected_version: int,
        base: int,
        count: int,
        idempotency_key: str | None = None,
        fingerprint: str | None = None,
    ) -> DraftResult:
        """Add ``step`` as step ``count + 1`` of ``seat``'s draft on ``base``.

        Raises :class:`VersionConflict` unless the log is at ``expected_version`` and
        the draft holds ``count`` steps on ``base`` (a draft on another base is
        replaced when ``count`` is 0). A seen ``idempotency_key`` adds nothing and
        returns a duplicate result (``reused`` if an undo of the draft used it).
        """
        outcome, value = self._push(
            keys=[keys.draft(match_id, seat), keys.events(match_id), keys.idempotency(match_id)],
            args=[
                expected_version,
                base,
                count,
                jsoncodec.dumps(step),
                idempotency_key or "",
                fingerprint or "",
            ],
        )
        outcome = _text(outcome)
        if outcome == "conflict":
            raise VersionConflict(int(value))
        if outcome == "dup":
            version, stored = _split(value)
            return DraftResult(duplicate=True, version=version, fingerprint=stored)
        if outcome == "dupstep":
            number, stored = _split(value)
            return DraftResult(duplicate=True, step=number, fingerprint=stored)
        if outcome == "dropped":
            stored, dropped = _dropped(value)
            return DraftResult(duplicate=True, dropped=dropped, fingerprint=stored)
        if outcome == "undokey":
            return DraftResult(duplicate=True, reused=True, fingerprint=_split(value)[1])
        return DraftResult(int(value))

    def pop(
        self,
        match_id: str,
        seat: int,
        base: int,
        count: int,
        steps: int,
        idempotency_key: str | None = None,
        fingerprint: str | None = None,
    ) -> DraftResult:
        """Drop the last ``steps`` steps of a draft that holds ``count`` on ``base``; returns how
        many are left (``count``). :class:`VersionConflict` if the draft is not as the caller saw it.
        ``idempotency_key``: the undo's, kept in the draft with the pop (:attr:`Draft.undone`); a
        draft that has it drops nothing and returns a duplicate result (with the fingerprint), as
        does one where a step used it (``reused``)."""
        outcome, value = self._pop(
            keys=[keys.draft(match_id, seat), keys.events(match_id)],
            args=[base, count, steps, idempotency_key or "", fingerprint or ""],
        )
        outcome = _text(outcome)
        if outcome == "conflict":
            raise VersionConflict(int(value))
        if outcome == "dup":
            left, stored = _split(value)
            return DraftResult(left, duplicate=True, fingerprint=stored)
        if outcome == "movekey":
            return DraftResult(duplicate=True, reused=True)
        return DraftResult(int(value))
