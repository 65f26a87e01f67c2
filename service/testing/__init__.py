"""Testing helpers for gameroom and for game authors.

- :mod:`service.testing.conformance`: the conformance kit every game must pass.
- :mod:`service.testing.redis_server`: a throwaway real redis-server for tests.
"""
