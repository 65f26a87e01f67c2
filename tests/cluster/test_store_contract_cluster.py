"""The store contract (:mod:`gameroom.testing.store_contract`) on a real Redis Cluster (3 masters, 3 replicas)."""

import pytest

from gameroom.eventstore import EventStore
from gameroom.eventstore.connect import client_from_url, is_cluster
from gameroom.eventstore.records import MatchRecords
from gameroom.testing.store_contract import Backend, EventStoreContract


class TestClusterStore(EventStoreContract):
    @pytest.fixture
    def backend(self, redis_cluster):
        redis_cluster.flushall()
        opened = []

        def connect():
            # The way gameroom connects: GAMEROOM_REDIS_URL=redis+cluster://host:port,...
            client = client_from_url(redis_cluster.url, socket_timeout=30)
            assert is_cluster(client)
            opened.append(client)
            return client

        def reconnect():
            client = connect()
            return Backend(EventStore(client), MatchRecords(client))

        client = connect()
        yield Backend(EventStore(client), MatchRecords(client), reconnect)
        for client in opened:
            client.close()
