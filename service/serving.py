"""How gunicorn serves the app, in one place for ``gameroom serve`` and ``deploy/gunicorn.conf.py``.

gunicorn runs the API in gevent workers (:class:`gameroom.http.worker.GeventWorker`): each
connection is a greenlet, so an open live stream (SSE) costs a few kilobytes of memory and no
thread, and its Redis side is the process's one stream-hub reader
(``gameroom.eventstore.hub``), not a connection of its own. Short requests (moves, health checks)
run on greenlets of the same process and are never queued behind streams. This module holds the
settings: the worker class, the connection budget each worker has within its open-file limit,
the access log. ``bench/README.md`` has the measurements behind these choices.
"""

from __future__ import annotations

import resource
import warnings

from .config import Config, ConfigError
from .eventstore.connect import ClusterURLError, check_redis_url, refuse_cluster_queue

WORKER_CLASS = "gameroom.http.worker.GeventWorker"
#: The path without its query string: ``?token=`` must never reach a log.
ACCESS_LOG_FORMAT = '%(t)s %(h)s "%(m)s %(U)s" %(s)s %(b)s %(D)sus'
#: Connections a worker holds beside its capped streams (moves, health checks, history).
SHORT_REQUEST_HEADROOM = 1000
#: Descriptors a worker holds beside its client connections and its Redis pool: the listening
#: socket, the stream hub's reader, log files, gevent's loop and pipes, imported modules' files.
FD_RESERVE = 64


def check_served_settings(config: Config) -> None:
    """Refuse, with :class:`~gameroom.config.ConfigError`, the Redis settings every worker would
    fail to boot on (deploy/gunicorn.conf.py, before gunicorn forks; ``gameroom serve`` checks the
    same in its own words): a URL no client can use, a Redis Cluster for RQ's queue."""
    for name, url in (
        ("GAMEROOM_REDIS_URL", config.redis_url),
        ("GAMEROOM_QUEUE_REDIS_URL", config.queue_redis_url),
    ):
        if url:
            check_redis_url(url, name)
    if config.ai_mode == "rq":
        try:
            refuse_cluster_queue(config.queue_redis_url, config.redis_url)
        except ClusterURLError as exc:
            raise ConfigError(str(exc)) from None


def connection_budget(config: Config, open_files: int) -> tuple[int, int]:
    """``(live streams, short requests)`` one process serves at once with ``open_files`` descriptors.

    Streams: ``sse_max_streams``, or fewer when the descriptors would run out first (0, no cap:
    as many as fit). Every connection is a descriptor; a process that runs out accepts nothing
    more, not even a health check, and gevent logs a traceback a second. Capped to fit, the
    streams beyond are refused with 503 stream-capacity and short requests keep their room
    (:data:`SHORT_REQUEST_HEADROOM`, or a quarter of what is left beside Redis when that is less).
    """
    room = max(open_files - FD_RESERVE - config.redis_max_connections - 1, 0)
    short = min(SHORT_REQUEST_HEADROOM, room // 4)
    fit = max(room - short, 1)
    streams = min(config.sse_max_streams, fit) if config.sse_max_streams else fit
    return streams, short


def open_files_warning(config: Config, open_files: int) -> str | None:
    """What to log at start when ``open_files`` descriptors cannot hold ``sse_max_streams`` beside
    the rest (None: they can)."""
    streams, _short = connection_budget(config, open_files)
    if not config.sse_max_streams or streams >= config.sse_max_streams:
        return None
    needed = config.sse_max_streams + SHORT_REQUEST_HEADROOM + config.redis_max_connections + 1 + FD_RESERVE
    return (
        f"the open-file limit ({open_files}) cannot hold GAMEROOM_SSE_MAX_STREAMS={config.sse_max_streams} "
        f"live streams per process beside short requests and Redis ({needed} needed): each worker holds "
        f"at most {streams} streams and refuses more with 503 stream-capacity; raise `ulimit -n` "
        f"(LimitNOFILE, --ulimit nofile) to {needed} or lower GAMEROOM_SSE_MAX_STREAMS"
    )


def gunicorn_settings(config: Config, *, bind: str, workers: int) -> dict:
    """gunicorn's settings for ``workers`` processes of the API listening on ``bind``."""
    streams, short = connection_budget(config, open_files_limit())
    return {
        "bind": bind,
        "workers": workers,
        "worker_class": WORKER_CLASS,
        # gevent: the most connections (greenlets) one worker serves at once; beyond, a connection
        # waits in the listen queue.
        "worker_connections": streams + short,
        # Idle keep-alive connections stay open this long, and every response
        # says so (``Keep-Alive: timeout=N``, :mod:`gameroom.http.keepalive`), so a
        # client that honours it (Node, undici, curl) closes an idle connection
        # before the server does instead of racing it with a new request.
        "keepalive": config.http_keepalive,
        "timeout": 60,
        "graceful_timeout": 10,
        # None: no access log (GAMEROOM_ACCESS_LOG=1 turns it on); the app logs 5xx and slow
        # requests itself (gameroom.http.requestlog).
        "accesslog": "-" if config.access_log else None,
        "access_log_format": ACCESS_LOG_FORMAT,
        "loglevel": config.log_level.lower(),
        # gunicorn 27's control socket (for ``gunicornc``, which gameroom does not use) is one path
        # per user ($HOME/.gunicorn/gunicorn.ctl): every server on a host would share it, and
        # one unlinks another's; a container's user may have no home to put it in.
        "control_socket_disable": True,
    }


def open_files_limit() -> int:
    """The open-file limit :func:`raise_open_files_limit` reaches: the hard limit (65536 at
    least when there is none)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    return max(soft, 65536) if hard == resource.RLIM_INFINITY else hard


def raise_open_files_limit() -> int:
    """Raise this process's soft limit of open files to its hard limit (every open
    stream is a socket); returns the new limit. Children inherit it."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    limit = open_files_limit()
    if soft < limit:
        resource.setrlimit(resource.RLIMIT_NOFILE, (limit, hard))
    return limit


def served_stream_cap(config: Config) -> int:
    """The stream cap of this (worker) process: ``sse_max_streams`` made to fit its open-file
    limit (:func:`connection_budget`; its master warned at start when that lowers it)."""
    return connection_budget(config, resource.getrlimit(resource.RLIMIT_NOFILE)[0])[0]


def quiet_late_ssl_patch_warning() -> None:
    """Silence gevent's warning that ``ssl`` was imported before the worker patched it.

    ``gameroom serve`` imports redis-py (which imports ``ssl``) in the master
    to start the embedded Redis; each gevent worker then patches after the
    fork. The warning is about SSL objects made before patching (and a
    recursion bug of Python 3.6); the master makes none, and every Redis
    connection, TLS or not, is made in the worker after patching. The filter
    is inherited by the forked workers.
    """
    warnings.filterwarnings("ignore", message="Monkey-patching ssl after ssl has already been imported")
