"""Deterministic randomness derived per match and version.

A command decided at version *n* of a match always gets the same generator,
so a retried command (after a version race, or a worker retry) draws the same
outcome. The match seed is secret: it is never shown to clients, since it
would reveal every future draw.
"""
from __future__ import annotations

import hashlib
import secrets

from ..plugin_api import Rng


def new_seed() -> str:
    """A fresh 128-bit match seed."""
    return secrets.token_hex(16)


def rng_for(seed: str, version: int, purpose: str = "decide") -> Rng:
    """The generator for deciding the entry that will become ``version``."""
    def derived() -> int:  # computed on the first draw: most steps draw nothing
        digest = hashlib.sha256(f"{seed}:{purpose}:{version}".encode()).digest()
        return int.from_bytes(digest[:16], "big")

    return Rng(derived)
