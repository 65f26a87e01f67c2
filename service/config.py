"""Configuration defaults; every value can be overridden by a GAMEROOM_* environment variable.

``Config.from_env()`` reads the environment once; ``create_app(config)``
takes a mapping of overrides on top (tests use that).
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, fields, replace


@dataclass(frozen=True)
class Config:
    #: Redis URL of the events and match data. Empty: start an embedded redis-server in ``data_dir``.
    #: ``redis+cluster://host:port[,host:port...]`` (``rediss+cluster://`` with TLS): a Redis Cluster,
    #: given by startup nodes (then ``queue_redis_url`` must name a plain Redis); any other scheme is
    #: one server (see deploy/redis.md#cluster).
    redis_url: str = ""
    #: Redis URL of RQ's queue (AI jobs, clock timeouts): a plain primary, RQ does not support
    #: Cluster. Empty: the events Redis (``redis_url``), so a single-Redis install needs nothing.
    queue_redis_url: str = ""
    #: Replicas that must confirm an append before a move is acknowledged (WAIT after every
    #: append; 0: do not wait, Redis replicates asynchronously). See deploy/redis.md.
    redis_wait_replicas: int = 0
    #: Milliseconds an append waits for those replicas; fewer in time: still accepted, reported
    #: in the Gameroom-Replicas header and logged. Keep it above 0 (0 waits forever) and below
    #: ``redis_timeout`` (the request would time out first and be answered 503).
    redis_wait_timeout_ms: int = 1000
    #: Redis connections one API process opens at most (requests beyond wait for one).
    redis_max_connections: int = 64
    #: Seconds a request waits for a free Redis connection before failing.
    redis_pool_timeout: float = 20.0
    #: Folder of the embedded Redis (AOF, socket, log).
    data_dir: str = "./var"
    #: fsync policy of the embedded Redis: "always" (an acknowledged move survives any crash; the
    #: default), "everysec" or "no" (faster; see deploy/redis.md for what each risks).
    redis_appendfsync: str = "always"
    #: Seconds a request waits for Redis (socket and connect timeout of the request path) before
    #: it is answered 503 redis-unavailable. Live streams' blocking reads are not bound by it.
    redis_timeout: float = 2.0
    host: str = "127.0.0.1"
    port: int = 8000
    #: Largest accepted request body, in bytes (413 beyond).
    max_body: int = 64 * 1024
    #: Bytes an import may add per step a game allows: POST /api/matches/import accepts
    #: ``max_body + import_step_bytes * (max_steps + 1)`` of the installed game with the most
    #: steps (the largest entries measured are ~400 bytes; Stars Are Right: ~16 MB).
    import_step_bytes: int = 1024
    #: Entries assumed for a game whose length has no bound (``max_steps`` None: The Stars Are
    #: Right without a turn limit) when sizing the import limit; a longer log cannot be imported.
    import_max_steps: int = 16_000
    #: Seconds between SSE keep-alive comments.
    sse_keepalive: float = 15.0
    #: Longest a single SSE response stays open, in seconds (clients reconnect with Last-Event-ID).
    sse_max_age: float = 300.0
    #: Open live streams one server process holds at most (503 beyond; 0: no cap).
    sse_max_streams: int = 4000
    #: Open live streams of one client address in one process at most (429 beyond; 0: no cap).
    sse_max_streams_per_client: int = 256
    #: Reverse proxies in front of the API whose ``X-Forwarded-For`` is trusted for the client
    #: address (the stream cap per client, logs): N takes the N-th address from the header's end,
    #: the one the outermost trusted proxy saw. 0: the header is ignored, the address is the
    #: socket's peer, so a client reaching the API directly cannot choose its own. Behind one
    #: proxy (the shipped nginx, an ingress) set 1, and let only that proxy reach the API.
    trusted_proxies: int = 0
    #: Seconds a client refused for a stream cap is told to wait (Retry-After).
    sse_retry_after: int = 5
    #: Origins whose pages may call the API (CORS), comma-separated, or "*"; empty: none.
    cors_origins: str = ""
    #: Seconds an idle HTTP keep-alive connection stays open (advertised to clients in Keep-Alive).
    http_keepalive: int = 75
    #: Take a snapshot every this many entries (0: never).
    snapshot_every: int = 100
    #: RQ queue that AI jobs go to.
    queue: str = "gameroom-ai"
    #: Run AI jobs: "rq" (enqueue for workers) or "off".
    ai_mode: str = "rq"
    #: Times the server retries its own append after a version race.
    append_retries: int = 20
    log_level: str = "INFO"
    #: Log every request (gunicorn's access log; paths without query strings). Off by default:
    #: a line per request adds ~18 % to a move's server CPU (bench/README.md). Server errors and
    #: slow requests are logged either way.
    access_log: bool = False
    #: Serve through the measured fast paths (service/http/README.md): the worker reads a match's
    #: ordinary requests itself, the lean path answers them below Flask, Redis commands go on
    #: gameroom's own connections. Off: Flask's routes, gevent's request handling and redis-py's
    #: client and pool serve everything, with the same responses (slower; for comparison and
    #: for ruling the fast paths out when looking for a bug).
    fast_paths: bool = True
    #: A request whose handler takes longer than this many milliseconds is logged (0: never).
    slow_request_ms: int = 500
    #: Secret mixed into every match seed. Empty: one is made on the first start and kept in Redis.
    seed_secret: str = ""
    #: Use clients' seeds as they are (tests, tournaments, debugging): anyone who knows a
    #: match's seed can compute its hidden cards. Off by default.
    reproducible_seeds: bool = False

    @classmethod
    def from_env(cls, environ=os.environ, **overrides) -> Config:
        values = {}
        for f in fields(cls):
            name = f"GAMEROOM_{f.name.upper()}"
            raw = environ.get(name)
            if raw is not None:
                try:
                    values[f.name] = _CONVERT.get(f.type, str)(raw)
                except ValueError:
                    raise ConfigError(f"{name}={raw!r} is not {_KIND.get(f.type, 'valid')}.") from None
                _check_range(name, raw, values[f.name], RANGES.get(f.name))
                _check_choice(name, raw, CHOICES.get(f.name))
        return replace(cls(**values), **overrides)


#: The words a setting of a few choices may take (compared as given, but log levels in any case):
#: a typo must not turn the AI off or the fsync policy into a boot failure later.
CHOICES: dict[str, tuple[str, ...]] = {
    "ai_mode": ("rq", "off"),
    "redis_appendfsync": ("always", "everysec", "no"),
    "log_level": ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"),
}


def _check_choice(name: str, raw: str, choices: tuple[str, ...] | None) -> None:
    if choices is None:
        return
    value = raw.upper() if name == "GAMEROOM_LOG_LEVEL" else raw
    if value not in choices:
        raise ConfigError(f"{name}={raw!r} is not one of {', '.join(choices)}.")


#: The values each numeric setting may take, ``(lowest, highest or None, unit)``, read
#: where the setting is used: beyond them a setting breaks the server rather than tunes it (a
#: keep-alive of 0 s sends keep-alive frames in a busy loop, a body limit of -1 refuses every
#: POST, 0 retries never append, an HTTP keep-alive of 0 never closes an idle connection).
#: Every one has a highest value too: a number no install needs would otherwise pass, then fail
#: where it is used (a stream cap of 10**20 crashed every worker at boot, in gevent's pool).
RANGES: dict[str, tuple[float, float | None, str]] = {
    "redis_wait_replicas": (0, 100, "replicas; 0: do not wait"),
    "redis_wait_timeout_ms": (1, 3_600_000, "milliseconds; 0 would wait forever"),
    "redis_max_connections": (1, 100_000, "connections"),
    "redis_pool_timeout": (0.01, 3600, "seconds"),
    "redis_timeout": (0.01, 3600, "seconds"),
    "port": (1, 65535, "a TCP port"),
    "max_body": (1024, 1 << 30, "bytes"),  # below: a new match with its seats may not fit
    "import_step_bytes": (0, 1 << 20, "bytes"),
    "import_max_steps": (1, 10_000_000, "entries"),
    "sse_keepalive": (0.1, 3600, "seconds"),
    "sse_max_age": (1, 86_400, "seconds"),  # shorter: every client reconnects in a loop
    "sse_max_streams": (0, 1_000_000, "streams; 0: no cap"),
    "sse_max_streams_per_client": (0, 1_000_000, "streams; 0: no cap"),
    "sse_retry_after": (1, 86_400, "seconds"),
    "trusted_proxies": (0, 10, "proxies in front of the API; 0: X-Forwarded-For is ignored"),
    "http_keepalive": (1, 86_400, "seconds"),
    "snapshot_every": (0, 1_000_000, "entries; 0: never"),
    "append_retries": (1, 1000, "attempts"),
    "slow_request_ms": (0, 86_400_000, "milliseconds; 0: never logged"),
}


def _check_range(name: str, raw: str, value, bounds) -> None:
    """Refuse a number outside its setting's :data:`RANGES` (or not finite: nan, inf)."""
    if not isinstance(value, (int, float)) or isinstance(value, bool) or bounds is None:
        return
    low, high, unit = bounds
    if math.isfinite(value) and value >= low and (high is None or value <= high):
        return
    allowed = f"from {_show(low)} to {_show(high)}" if high is not None else f"{_show(low)} or more"
    raise ConfigError(f"{name}={raw!r} is out of range: use {allowed} ({unit}).")


def _show(bound: float) -> str:
    """A bound as one would write it: 1073741824, not 1.07374e+09; 0.1, not 0.1000."""
    return str(int(bound)) if float(bound).is_integer() else f"{bound:g}"


def _flag(raw: str) -> bool:
    value = raw.strip().lower()
    if value in ("1", "true", "yes", "on"):
        return True
    if value in ("", "0", "false", "no", "off"):
        return False
    raise ValueError(f"not a yes/no setting: {raw!r} (use 1 or 0)")


#: A whole number as written in a setting: ASCII digits, maybe a minus (refused by its range then).
#: ``int()`` also takes " 10", "1_000", "+10" and other scripts' digits ("１０"); a float, "1e3".
_INTEGER = re.compile(r"-?[0-9]+")
_NUMBER = re.compile(r"-?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?|-?(?:nan|inf|infinity)", re.I)


def _integer(raw: str) -> int:
    if not _INTEGER.fullmatch(raw):
        raise ValueError(f"not a whole number: {raw!r}")
    return int(raw)  # ValueError beyond 4300 digits, as for any other non-number


def _number(raw: str) -> float:
    if not _NUMBER.fullmatch(raw):  # nan and inf pass, to be refused by the range in its own words
        raise ValueError(f"not a number: {raw!r}")
    return float(raw)


_CONVERT = {"int": _integer, "float": _number, "str": str, "bool": _flag}
_KIND = {"int": "a whole number", "float": "a number", "bool": "a yes/no setting (use 1 or 0)"}


class ConfigError(ValueError):
    """A GAMEROOM_* variable that cannot be read as its setting's type, or is out of its range."""
