"""How gunicorn serves the app, in one place for ``gameroom serve`` and ``deploy/gunicorn.conf.py``.

The worker model is gevent: each connection is a greenlet (gunicorn's
``gevent_pywsgi`` worker, i.e. gevent's own WSGI server, as
:class:`GeventWorker` below), so an open live stream (SSE) costs a few kilobytes of memory and no
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

import gevent
from gunicorn.workers.ggevent import GeventPyWSGIWorker, PyWSGIHandler

from .config import Config

WORKER_CLASS = "gameroom.serving.GeventWorker"
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
        # Idle keep-alive connections stay open this long, and every response
        # says so (``Keep-Alive: timeout=N``, :mod:`gameroom.api.keepalive`), so a
        # client that honours it (Node, undici, curl) closes an idle connection
        # before the server does instead of racing it with a new request.
        "keepalive": config.http_keepalive,
        "timeout": 60,
        "graceful_timeout": 10,
        # None: no access log (GAMEROOM_ACCESS_LOG=1 turns it on); the app logs 5xx and slow
        # requests itself (gameroom.api.requestlog).
        "accesslog": "-" if config.access_log else None,
        "access_log_format": ACCESS_LOG_FORMAT,
        "loglevel": config.log_level.lower(),
    }


class IdleClosingHandler(PyWSGIHandler):
    """gevent's WSGI handler (as gunicorn's ``gevent_pywsgi`` worker uses it), closing a
    connection on which no request line arrives for ``idle_timeout`` seconds.

    gevent's server keeps an idle connection forever, and gunicorn's own
    gevent worker closes it after ``keepalive`` seconds but drops the
    ``Keep-Alive`` header that would tell clients when (a hop-by-hop header,
    PEP 3333). gevent passes the header through; this handler adds the close.
    """

    idle_timeout: float = 0.0

    def read_requestline(self):
        if not self.idle_timeout:
            return super().read_requestline()
        with gevent.Timeout(self.idle_timeout, False):
            return super().read_requestline()
        return ""  # idle for idle_timeout: close the connection


class GeventWorker(GeventPyWSGIWorker):
    """The API's worker: gunicorn's ``gevent_pywsgi`` worker with idle connections closed after
    ``keepalive`` seconds (:class:`IdleClosingHandler`), the timeout that each response advertises."""

    def run(self):
        self.wsgi_handler = type(
            "IdleClosingHandler", (IdleClosingHandler,), {"idle_timeout": float(self.cfg.keepalive)}
        )
        super().run()


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
