"""gunicorn settings for the gameroom API: ``gunicorn -c deploy/gunicorn.conf.py service.wsgi:app``.

The API keeps no state of its own, so run as many processes and hosts as you
like behind any HTTP balancer. Threads (gthread) because live streams (SSE)
hold a connection open: each open stream occupies one thread.
"""
import multiprocessing
import os

bind = os.environ.get("GAMEROOM_BIND", "0.0.0.0:8000")
workers = int(os.environ.get("GAMEROOM_WEB_WORKERS", multiprocessing.cpu_count()))
worker_class = "gthread"
threads = int(os.environ.get("GAMEROOM_WEB_THREADS", 16))
timeout = 60
graceful_timeout = 10
keepalive = 5
accesslog = "-"
# Never log Authorization headers or ?token= query strings: tokens are secrets.
access_log_format = '%(h)s "%(m)s %(U)s" %(s)s %(b)s %(D)sus'
