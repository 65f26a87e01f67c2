"""The only code that talks to Redis about matches and events.

Nothing outside this package builds a Redis key, a pipeline or a script: the
rest of gameroom holds an :class:`EventStore` and a
:class:`~gameroom.eventstore.records.MatchRecords` and calls the methods
below. A backend (a single Redis, or a Redis Cluster named by a
``redis+cluster://`` URL: :mod:`gameroom.eventstore.connect`) provides
exactly these, and proves it by passing the contract suite
:class:`gameroom.testing.store_contract.EventStoreContract`
(``tests/eventstore/test_store_contract.py``, ``tests/cluster/test_store_contract_cluster.py``).

``EventStore`` -- one append-only log per match; versions count from 1:

- ``append(match_id, entry, expected_version, idempotency_key=None, status=None,
  fingerprint=None, ai_seats=None, clocks=None) -> AppendResult``: one atomic step that
  (a) replays the first result of an already seen ``idempotency_key``
  (``duplicate=True`` with the stored ``fingerprint``; nothing written),
  (b) raises :class:`~gameroom.errors.VersionConflict` unless the log is at
  ``expected_version``, (c) appends ``entry`` (with ``version`` added),
  records the key and fingerprint, writes ``status`` and the version to the
  match record (lobby) when given, sets the AI-turn marker to
  ``ai_seats`` or clears it, and sets the clock marker to ``clocks`` (seat ->
  deadline) or clears it.
- ``append(..., draft=DraftFlush(seat, base, count))``: the entry carries
  ``seat``'s draft (its sealed steps); conflicts unless the draft holds
  exactly ``count`` steps on ``base``, deletes it and moves its idempotency
  keys to the match's, all in the same atomic step.
- ``draft(match_id, seat) -> Draft``, ``push_draft(match_id, seat, step,
  expected_version, base, count, idempotency_key=None, fingerprint=None) ->
  DraftResult``, ``pop_draft(match_id, seat, base, count, steps,
  idempotency_key=None, fingerprint=None)``: a seat's private steps beside the
  log (see :mod:`gameroom.eventstore.drafts`); every write checks what the
  writer saw (a conflict otherwise), a repeated key replays (a pop keeps its
  key in the draft: ``Draft.undone``, and the keys of the steps it drops with
  them: ``Draft.dropped``), and a push and a pop never share a key
  (``DraftResult.reused``).
- ``read(match_id, after=0, upto=None)``, ``read_page(match_id, after, limit)``,
  ``entry(match_id, version)``, ``version(match_id)`` (0 when unknown).
- ``subscribe(match_id, after, block_ms)``: entries after ``after``, waiting up
  to ``block_ms`` for the first; ``[]`` on timeout.
- ``save_snapshot(match_id, version, snapshot)``,
  ``load_snapshot(match_id, at_most=None)``: a cache, safe to drop.
- ``ai_turn(match_id)``, ``set_ai_turn(match_id, version, seats)``: the AI
  outbox marker (see :mod:`gameroom.workers.reconciler`);
  ``note_ai_pending(match_id)``, ``ai_pending()``: the index of matches that
  may have an AI to move (an append with ``ai_seats`` adds to it first);
  ``pending_ai_turns(batch)``: its members as
  :class:`~gameroom.eventstore.redis_streams.PendingAI` (id, time of the
  mark, marker), oldest first; ``drop_ai_pending(match_id, marked_at)``:
  removes one unless it was marked again since.
- ``clock_due(match_id)``: the clock marker ``(version, {seat: deadline})``
  (see :mod:`gameroom.workers.clock_reconciler`); ``clocks_pending()``,
  ``pending_clocks(batch)`` (:class:`~gameroom.eventstore.redis_streams.PendingClock`),
  ``drop_clock_pending(match_id, marked_at)``: the index of matches that may
  have a running clock (an append with ``clocks`` adds to it first), as for AI turns;
  ``note_clock_pending(match_id)``: adds one (the claim of a clocked match, whose
  ``start`` entry follows it).
- ``ping()``: raises one of :data:`UNAVAILABLE` unless the backend answers.

``MatchRecords`` -- what is known of a match besides its log:

- ``create(record, tokens, admin_hash=None)``, ``get(match_id)`` (None when
  unknown), ``admin_hash(match_id)``;
- ``create_match(record, tokens, entry, status, ai_seats, admin_hash, clocks)``:
  ``create`` and the append of version 1, atomically;
- ``read_parts(match_id, record, token_hash, after)``: the record, a token's
  seat and the entries after a version (or the newest snapshot and the entries
  after it), in one step (a load's cache misses);
- ``claim(match_id, seat, name, token) -> bool``: exactly one of racing
  claimants of a seat wins; ``seat_of(match_id, token_hash)``: tokens are
  stored hashed only; ``set_token(match_id, seat, token)`` adds one;
- ``set_progress``/``progress``: the lobby's status and version;
- ``list(offset, limit)``: match ids, newest first;
- ``idempotent(match_id, key)``: ``(version, fingerprint)`` of a seen key;
- ``open_undo_request(match_id, request) -> bool``: a seat's one pending undo
  request (exactly one of racing openers wins); ``save_undo_request(match_id,
  request, was=None) -> bool``: writes it over, with ``was`` only if unchanged
  since read (settled ones leave the pending index; the last few are kept);
  ``undo_request(match_id, id)``, ``pending_undo_requests(match_id)``: reads
  that cost no more than the pending requests;
- ``plan_rematch(match_id, planned) -> (id, first)``, ``take_rematch_lock``,
  ``release_rematch_lock``: one rematch per match, created by one request.

The ``queue_*``/``parse_*`` helpers and the ``redis`` attributes are this
package's own (batching; on a cluster a transaction stays in one match's slot); code outside it does not use
them. The Redis clients themselves are made by
:func:`gameroom.eventstore.connect.connect`.
"""

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from .redis_streams import AppendResult, EventStore

#: What a client sees when Redis is down, frozen or still loading: the API answers 503.
UNAVAILABLE = (redis.ConnectionError, redis.TimeoutError)


def connection_options(timeout: float) -> tuple[dict, dict]:
    """redis-py options of the request path's client and of the blocking-read client.

    Both connect within ``timeout`` seconds and retry a broken connection once,
    at once (a Redis that restarted); the request path's also gives up on a
    reply after ``timeout`` seconds, and never retries a timeout.
    """

    def retry():
        return Retry(NoBackoff(), 1, supported_errors=(redis.ConnectionError,))

    request = {"socket_timeout": timeout, "socket_connect_timeout": timeout, "retry": retry()}
    blocking = {"socket_connect_timeout": timeout, "retry": retry()}
    return request, blocking


__all__ = ["AppendResult", "EventStore", "UNAVAILABLE", "connection_options"]
