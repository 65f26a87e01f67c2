"""HTTP below and beside the libraries: what gameroom does itself where gevent, gunicorn, Flask
and werkzeug would do it otherwise.

- :mod:`.worker`: the gunicorn worker (gevent's WSGI server and handler), hardened: idle
  connections closed, unsafe framing refused (:mod:`.framing`), a graceful stop
  (:mod:`.draining`);
- :mod:`.wire`: a match's ordinary requests read off the connection by the worker itself;
- :mod:`.lean`: the same requests answered below Flask (WSGI middleware);
- :mod:`.keepalive`, :mod:`.requestlog`, :mod:`.hangup`: the ``Keep-Alive`` header, the log of
  server errors and slow requests, a live stream's client that went away.

``README.md`` beside this file lists each one, what library behaviour it replaces and why.
"""
