"""How gunicorn serves the app, in one place for ``gameroom serve`` and ``deploy/gunicorn.conf.py``.

The worker model is gunicorn's ``gevent`` worker: each connection is a
greenlet, so an open live stream (SSE) costs a few kilobytes of memory and no
thread, and its Redis side is the process's one stream-hub reader
(``gameroom.eventstore.hub``), not a connection of its own. Short requests
(moves, health checks) run on greenlets of the same process and are never
queued behind streams; Flask and redis-py are plain blocking code that
gevent's monkey-patching (done by the worker itself, before the app is
loaded) makes cooperative. ``bench/README.md`` has the measurements behind
this choice.
"""

from __future__ import annotations

import resource
import warnings

from .config import Config

WORKER_CLASS = "gevent"
#: The path without its query string: ``?token=`` must never reach a log.
ACCESS_LOG_FORMAT = '%(t)s %(h)s "%(m)s %(U)s" %(s)s %(b)s %(D)sus'
#: Connections a worker holds beside its capped streams (moves, health checks, history).
SHORT_REQUEST_HEADROOM = 1000


def gunicorn_settings(config: Config, *, bind: str, workers: int) -> dict:
    """gunicorn's settings for ``workers`` processes of the API listening on ``bind``."""
    streams = config.sse_max_streams or 10_000
    return {
        "bind": bind,
        "workers": workers,
        "worker_class": WORKER_CLASS,
        # gevent: the most connections (greenlets) one worker serves at once.
        "worker_connections": streams + SHORT_REQUEST_HEADROOM,
        # Idle keep-alive connections stay open this long. gunicorn drops a
        # Keep-Alive response header (hop-by-hop, PEP 3333), so the timeout
        # cannot be advertised; a long one (nginx's default) keeps clients'
        # own idle timeouts (Node: 5 s, browsers: 60 s and more) below it, so
        # the client, not the server, closes an idle connection.
        "keepalive": config.http_keepalive,
        "timeout": 60,
        "graceful_timeout": 10,
        # None: no access log (GAMEROOM_ACCESS_LOG=1 turns it on); the app logs 5xx and slow
        # requests itself (gameroom.api.requestlog).
        "accesslog": "-" if config.access_log else None,
        "access_log_format": ACCESS_LOG_FORMAT,
        "loglevel": config.log_level.lower(),
    }


def raise_open_files_limit() -> int:
    """Raise this process's soft limit of open files to its hard limit (every open
    stream is a socket); returns the new limit. Children inherit it."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY:
        hard = max(soft, 65536)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return hard


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
