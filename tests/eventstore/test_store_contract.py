"""The store contract (:mod:`gameroom.testing.store_contract`) on the real single redis-server."""

import pytest

from gameroom.eventstore import EventStore
from gameroom.eventstore.records import MatchRecords
from gameroom.testing.store_contract import Backend, EventStoreContract


class TestSingleRedisStore(EventStoreContract):
    @pytest.fixture
    def backend(self, redis_server, redis_client):
        opened = []

        def reconnect():
            client = redis_server.client()
            opened.append(client)
            return Backend(EventStore(client), MatchRecords(client))

        yield Backend(EventStore(redis_client), MatchRecords(redis_client), reconnect)
        for client in opened:
            client.close()
