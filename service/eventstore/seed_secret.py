"""The server's seed secret, kept in Redis with the matches it protects.

Made on the first start against a Redis (SET NX: concurrent first starts
agree on one), read on every later one, so every API process and worker of
a deployment mixes the same secret into seeds (:class:`gameroom.core.rng.Seeding`).
``GAMEROOM_SEED_SECRET`` replaces it; ``GAMEROOM_REPRODUCIBLE_SEEDS=1``
turns seeding reproducible instead (tests, tournaments, debugging).

The same secret derives the tokens of seat claims sent with an Idempotency-Key
(:func:`gameroom.core.matches.claim_token`), reproducible seeds or not: those make
draws repeatable, never tokens.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any

import redis

from ..core.rng import Seeding
from . import keys


def load_or_create(client: redis.Redis) -> str:
    """The secret stored in ``client``'s Redis; the first caller creates it."""
    key = keys.seed_secret()
    client.set(key, secrets.token_hex(32), nx=True)
    value: Any = client.get(key)  # set just above: bytes (the client does not decode)
    return value.decode()


def seeding_for(config, client: redis.Redis) -> Seeding | Callable[[], Seeding]:
    """The :class:`Seeding` a server with ``config`` uses on ``client``.

    A configured secret is checked now; the stored one is read only when first
    needed (a callable), so that building the app never waits for Redis.
    """
    if config.reproducible_seeds:
        return Seeding.reproducible()
    if config.seed_secret:
        return Seeding.with_secret(config.seed_secret)
    return lambda: Seeding.with_secret(load_or_create(client))


def token_secret_for(config, client: redis.Redis) -> Callable[[], bytes]:
    """What :class:`gameroom.application.Matches` derives claim tokens with on ``client``: the
    configured secret, else the stored one (read, or made, when first needed)."""
    if config.seed_secret:
        secret = config.seed_secret.encode()
        return lambda: secret
    return lambda: load_or_create(client).encode()
