"""gunicorn settings for the gameroom API: ``gunicorn -c deploy/gunicorn.conf.py gameroom.wsgi:app``.

The API keeps no state of its own, so run as many processes and hosts as you
like behind any HTTP balancer. The settings are those of ``gameroom serve``
(``service/serving.py``): gevent workers (``gameroom.http.worker.GeventWorker``), so
that an open live stream (SSE) holds no thread, and idle connections are closed
after the ``Keep-Alive: timeout`` every response advertises; ``GAMEROOM_SSE_MAX_STREAMS`` caps streams per process.
"""

import multiprocessing
import os
import sys

from gameroom.config import Config, ConfigError
from gameroom.serving import (
    check_served_settings,
    gunicorn_settings,
    open_files_warning,
    quiet_late_ssl_patch_warning,
    raise_open_files_limit,
)

# This file imports redis-py (and ssl) in the master, before the gevent workers patch: harmless
# here, and said by a warning in every worker's boot otherwise (as in ``gameroom serve``).
quiet_late_ssl_patch_warning()


def _refuse(message: str):
    """A bad setting ends gunicorn's boot with one line, as ``gameroom serve`` does, not with
    "Failed to read config file" and a traceback (gunicorn reports any exception of this file so;
    SystemExit passes through)."""
    print(f"Error: {message}", file=sys.stderr)
    raise SystemExit(2)


def _web_workers() -> int:
    raw = os.environ.get("GAMEROOM_WEB_WORKERS")
    if raw is None:
        return multiprocessing.cpu_count()
    # ASCII digits, as every GAMEROOM_* number (int() would take " 4" and "1_0"); at most 1024
    count = int(raw) if raw.isascii() and raw.isdigit() and len(raw) <= 4 else 0
    if not 1 <= count <= 1024:
        _refuse(f"GAMEROOM_WEB_WORKERS={raw!r} is not a number of processes: use from 1 to 1024.")
    return count


try:
    _config = Config.from_env()
    check_served_settings(_config)
except ConfigError as exc:
    _refuse(str(exc))
_settings = gunicorn_settings(
    _config, bind=os.environ.get("GAMEROOM_BIND", "0.0.0.0:8000"), workers=_web_workers()
)
bind = _settings["bind"]
workers = _settings["workers"]
worker_class = _settings["worker_class"]
worker_connections = _settings["worker_connections"]
threads = 1  # gevent: one greenlet per connection instead
keepalive = _settings["keepalive"]
timeout = _settings["timeout"]
graceful_timeout = _settings["graceful_timeout"]
accesslog = _settings["accesslog"]
# Never log Authorization headers or ?token= query strings: tokens are secrets.
access_log_format = _settings["access_log_format"]
loglevel = _settings["loglevel"]
control_socket_disable = _settings["control_socket_disable"]


def on_starting(server):
    """Every open stream is a socket: allow as many open files as the system lets us, and say so
    when that is too few for the stream cap (each worker then holds fewer streams)."""
    too_few = open_files_warning(_config, raise_open_files_limit())
    if too_few:
        server.log.warning("%s", too_few)
