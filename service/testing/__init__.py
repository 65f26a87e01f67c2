"""Testing helpers for gameroom and for game authors.

- :mod:`gameroom.testing.conformance`: the conformance kit every game must pass.
- :mod:`gameroom.testing.redis_server`: a throwaway real redis-server for tests.
- :mod:`gameroom.testing.store_contract`: the tests every event store backend must pass.
"""
