"""The only code that talks to Redis about matches and events.

Nothing outside this package builds a Redis key, a pipeline or a script: the
rest of gameroom holds a store and a match-records store and calls their
methods. What those are is typed in :mod:`gameroom.eventstore.interfaces`:

- :class:`~gameroom.eventstore.interfaces.Store`, one
  :class:`EventStore`: the :class:`~gameroom.eventstore.interfaces.EventLog`
  (one append-only log per match, appended by one atomic step that also
  writes the lobby status and the outboxes' markers), a seat's
  :class:`~gameroom.eventstore.interfaces.DraftStore` (sealed steps beside the
  log, :mod:`gameroom.eventstore.drafts`) and the two
  :class:`~gameroom.eventstore.interfaces.Outbox` es, ``ai_turns`` and
  ``clocks`` (:mod:`gameroom.eventstore.outbox`, read by
  :mod:`gameroom.workers.reconciler`);
- :class:`~gameroom.eventstore.interfaces.Records`, one
  :class:`~gameroom.eventstore.records.MatchRecords`: the
  :class:`~gameroom.eventstore.interfaces.MatchRecordStore` (records, seat
  claims, tokens, the lobby, idempotency keys, rematches) and the
  :class:`~gameroom.eventstore.interfaces.UndoRequests`.

A backend (a single Redis, or a Redis Cluster named by a ``redis+cluster://``
URL: :mod:`gameroom.eventstore.connect`) provides exactly these: mypy checks
the Redis classes against the Protocols (``make lint``), and the contract suite
:class:`gameroom.testing.store_contract.EventStoreContract`
(``tests/eventstore/test_store_contract.py``,
``tests/cluster/test_store_contract_cluster.py``) checks their behaviour. The
Lua scripts are all in :mod:`gameroom.eventstore.scripts`.

The ``queue_*``/``parse_*``/``intents`` helpers and the ``redis`` attributes
are this package's own (batching; on a cluster a transaction stays in one
match's slot); code outside it does not use them. The Redis clients
themselves are made by :func:`gameroom.eventstore.connect.connect`.
"""

import redis

from .connect import connection_options
from .interfaces import Records, Store
from .redis_streams import AppendResult, EventStore

#: What a client sees when Redis is down, frozen or still loading: the API answers 503.
UNAVAILABLE = (redis.ConnectionError, redis.TimeoutError)


__all__ = ["AppendResult", "EventStore", "Records", "Store", "UNAVAILABLE", "connection_options"]
