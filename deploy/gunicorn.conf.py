"""gunicorn settings for the gameroom API: ``gunicorn -c deploy/gunicorn.conf.py gameroom.wsgi:app``.

The API keeps no state of its own, so run as many processes and hosts as you
like behind any HTTP balancer. The settings are those of ``gameroom serve``
(``service/serving.py``): gevent workers (``gameroom.serving.GeventWorker``), so
that an open live stream (SSE) holds no thread, and idle connections are closed
after the ``Keep-Alive: timeout`` every response advertises; ``GAMEROOM_SSE_MAX_STREAMS`` caps streams per process.
"""

import multiprocessing
import os

from gameroom.config import Config
from gameroom.serving import gunicorn_settings, quiet_late_ssl_patch_warning, raise_open_files_limit

# This file imports redis-py (and ssl) in the master, before the gevent workers patch: harmless
# here, and said by a warning in every worker's boot otherwise (as in ``gameroom serve``).
quiet_late_ssl_patch_warning()

_settings = gunicorn_settings(
    Config.from_env(),
    bind=os.environ.get("GAMEROOM_BIND", "0.0.0.0:8000"),
    workers=int(os.environ.get("GAMEROOM_WEB_WORKERS", multiprocessing.cpu_count())),
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
    """Every open stream is a socket: allow as many open files as the system lets us."""
    raise_open_files_limit()
