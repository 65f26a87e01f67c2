"""Deterministic randomness derived per match and version, from seeds no player can exploit.

A command decided at version *n* of a match always gets the same generator,
so a retried command (after a version race, or a worker retry) draws the same
outcome. The match seed is secret: it is never shown to clients while the
match runs, since it would reveal every future draw.

Where a match's *effective* seed comes from is :class:`Seeding`'s job: on a
normal server a client's ``seed`` is mixed with a server secret and the match
id, so neither the client who picked it nor anyone who learns it can compute
the deals; only a server set up for reproducible seeds uses it as is.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass

from ..plugin_api import Rng

#: Shortest server secret accepted (characters).
MIN_SECRET = 16


def new_seed() -> str:
    """A fresh 128-bit match seed."""
    return secrets.token_hex(16)


def rng_for(seed: str, version: int, purpose: str = "decide") -> Rng:
    """The generator for deciding the entry that will become ``version``."""

    def derived() -> int:  # computed on the first draw: most steps draw nothing
        digest = hashlib.sha256(f"{seed}:{purpose}:{version}".encode()).digest()
        return int.from_bytes(digest[:16], "big")

    return Rng(derived)


def seed_at(schedule: list, version: int) -> str:
    """The seed that decided ``version`` under ``schedule``, a list of ``[from_version, seed]``
    sorted by version (a fork's log was decided under its original's seed up to the fork)."""
    current = schedule[0][1]
    for start, seed in schedule:
        if start <= version:
            current = seed
    return current


@dataclass(frozen=True)
class Seeding:
    """How the effective seeds of matches, forks and AI decisions are made.

    ``secret`` set (the default of every server): a client's seed goes through
    HMAC-SHA256 with the secret and the match id, so the same client seed
    deals differently on every match and nobody can compute it; forks get
    fresh randomness; the AI's randomness is keyed by the secret too. ``secret``
    None (the explicit reproducible setting, for tests, tournaments and
    debugging): a client's seed is the effective seed, a fork's is derived
    from its original's, the AI's from its job id.
    """

    secret: bytes | None

    @classmethod
    def reproducible(cls) -> Seeding:
        return cls(None)

    @classmethod
    def with_secret(cls, secret: str) -> Seeding:
        if len(secret) < MIN_SECRET:
            raise ValueError(f"the seed secret must have at least {MIN_SECRET} characters")
        return cls(secret.encode())

    @classmethod
    def private(cls) -> Seeding:
        """A secret of this process only (for code that builds the application layer by hand)."""
        return cls.with_secret(secrets.token_hex(32))

    @property
    def is_reproducible(self) -> bool:
        return self.secret is None

    def _mac(self, *parts: str) -> str:
        assert self.secret is not None  # only called with a secret
        return hmac.new(self.secret, "\x00".join(parts).encode(), hashlib.sha256).hexdigest()

    def match_seed(self, match_id: str, client_seed: str | None = None) -> str:
        """The effective seed of a new match: fresh without a client seed."""
        if client_seed is None:
            return new_seed()
        if self.secret is None:
            return client_seed
        return self._mac("match", match_id, client_seed)

    def fork_seed(self, parent_seed: str, version: int) -> str:
        """The seed of a fork's entries after ``version``: never its original's, which the
        original's export reveals and which may still be deciding the original's draws."""
        if self.secret is None:
            return hashlib.sha256(f"{parent_seed}:fork:{version}".encode()).hexdigest()[:32]
        return new_seed()

    def ai_seed(self, job_id: str) -> str:
        """The key of an AI decision's randomness: a retry of a job thinks alike, and no
        player can replay the bot's thinking to infer what it holds."""
        if self.secret is None:
            return job_id
        return self._mac("ai", job_id)
