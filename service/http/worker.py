"""The API's gunicorn worker: gevent's WSGI server and handler, hardened, with the worker's own
request reader (:mod:`gameroom.http.wire`) when the fast paths are on.

The worker model is gevent: each connection is a greenlet (gunicorn's
``gevent_pywsgi`` worker, i.e. gevent's own WSGI server, as
:class:`GeventWorker` below), so an open live stream (SSE) costs a few kilobytes of memory and no
thread. Flask and redis-py are plain blocking code that gevent's monkey-patching (done by the
worker itself, before the app is loaded) makes cooperative.

What the handler (:class:`IdleClosingHandler`) adds to gevent's, whatever the setting: idle
connections closed after ``keepalive`` seconds, requests that cannot be framed safely refused
(:mod:`gameroom.http.framing`), a graceful stop that ends live streams and idle connections
(:mod:`gameroom.http.draining`). With ``GAMEROOM_FAST_PATHS`` on (the default) it also reads a
match's ordinary requests itself (:mod:`gameroom.http.wire`) and calls the same app; with it off,
gevent's handler reads every request. ``service/http/README.md`` lists what each bypass replaces
and the measurements behind it.

Over 400 lines because it is one class hierarchy of gevent's: the worker, its server and its
handler share the keep-alive, framing and draining state of one connection, and splitting them
would put gevent's private hooks in several modules instead of one.
"""

from __future__ import annotations

import contextlib
import email.parser
import logging
import re
import sys
import time
from datetime import timedelta

import gevent
import gevent.event
from gevent import pywsgi
from gunicorn.workers.ggevent import GeventPyWSGIWorker, GeventResponse, PyWSGIHandler, PyWSGIServer

from ..config import Config
from . import draining, framing, wire

#: The logger of the server's own lines (refusals, a graceful stop), named as before the move to
#: this module: deploy/README.md documents it, and log filters may name it.
log = logging.getLogger("gameroom.serving")

#: A query string in a message of gevent's (up to a space or the quote that ends a ``repr``).
_QUERY = re.compile(r"\?[^\s'\"]*")


#: Empty lines ignored before a request line (each one read in the idle timeout); one more is refused.
EMPTY_LINES = 4
#: Seconds a connection's first request line is awaited once the worker stops (it was accepted
#: just before: its request is on its way, or it is as good as idle).
DRAIN_READ_WAIT = 1.0
#: The connections waiting for a request line: their ``gevent.Timeout`` -> their greenlet.
_IDLE: dict = {}


def _closing(headers: list) -> list:
    """``headers`` saying ``Connection: close`` (and no ``Keep-Alive``)."""
    headers = [(k, v) for k, v in headers if k.lower() not in ("connection", "keep-alive")]
    headers.append(("Connection", "close"))
    return headers


def close_idle_connections() -> int:
    """End every connection waiting for its next request (the worker stops); returns how many.

    Runs in gevent's hub (``loop.run_callback``), where no other greenlet runs: a connection
    registered in :data:`_IDLE` is then certainly waiting, and the timeout thrown into it ends
    only that wait (as its idle timeout would), never a request under way.
    """
    waiting = list(_IDLE.items())
    for timer, greenlet in waiting:
        if _IDLE.get(timer) is greenlet:
            greenlet.throw(timer)
    return len(waiting)


class IdleClosingHandler(PyWSGIHandler):
    """gevent's WSGI handler (as gunicorn's ``gevent_pywsgi`` worker uses it), closing a
    connection on which no request line arrives for ``idle_timeout`` seconds, and reading an
    ordinary game request itself (:mod:`gameroom.http.wire`) when ``wire_moves`` is set (the
    fast paths are on: ``GAMEROOM_FAST_PATHS``); such a request is written to gunicorn's access
    log, when ``access_log`` is on, as gunicorn's handler writes the others.

    gevent's server keeps an idle connection forever, and gunicorn's own
    gevent worker closes it after ``keepalive`` seconds but drops the
    ``Keep-Alive`` header that would tell clients when (a hop-by-hop header,
    PEP 3333). gevent passes the header through; this handler adds the close.

    A request that cannot be framed safely (two lengths, a length and a transfer
    coding, a bare CR) or read at all (a malformed request line, one too long,
    too many or too long header lines: :mod:`gameroom.http.framing`) is refused with
    a problem+json before any app sees it, then the connection is closed, and it
    is logged in one line that never holds the query string (``?token=``).
    gevent's own answer is a bare 400 or 414, and its log line (on stderr, with
    no time) holds the whole request line, or a traceback.
    """

    idle_timeout: float = 0.0
    wire_moves: bool = False
    access_log: bool = False
    _pending_line: str | None = None

    def read_request(self, raw_requestline):
        wrong = framing.request_line_problem(raw_requestline)
        if wrong is not None:
            raise framing.Refused(wrong)
        with self._deadline():  # the header block: refused with a 408 if it takes too long
            taken = super().read_request(raw_requestline)
        # gevent reads ``Connection`` as one word; it is a list (RFC 9110 §7.6.1), and ``close``
        # anywhere in it means no further request is read on the connection (RFC 9112 §9.6)
        options = {
            word.strip().lower()
            for value in self.headers.get_all("Connection") or ()
            for word in value.split(",")
        }
        if "close" in options or (self.request_version == "HTTP/1.0" and "keep-alive" not in options):
            self.close_connection = True
        return taken

    def _deadline(self):
        """A request's headers (and, on the worker's own path, its small body) must all arrive
        within ``idle_timeout`` of its request line, as nginx's ``client_header_timeout``: a client
        that stops half-way (slowloris) would otherwise hold its connection and greenlet for ever."""
        if not self.idle_timeout:
            return contextlib.nullcontext()
        late = framing.Refused(
            f"The request did not arrive whole within {self.idle_timeout:g} s.", 408, "request-timeout"
        )
        return gevent.Timeout(self.idle_timeout, late)

    def get_environ(self):
        """gevent's environ, whose body reads (the app's, then gevent's draining of what is left)
        each wait at most ``idle_timeout`` for the client, as nginx's ``client_body_timeout``."""
        environ = super().get_environ()
        if self.idle_timeout and self.wsgi_input is not None:
            self.wsgi_input.rfile = _PatientReader(self.wsgi_input.rfile, self.idle_timeout)
        return environ

    def MessageClass(self, rfile, *args):  # noqa: N802 (gevent's name): the request's headers, parsed
        lines = framing.read_header_lines(rfile)
        wrong = framing.problem(lines, self.request_version)
        if wrong is not None:
            raise framing.Refused(wrong)
        # parsed as gevent's handler parses them (http.client.parse_headers), once they are known sound
        return email.parser.Parser(_class=pywsgi.OldMessage).parsestr(b"".join(lines).decode("latin-1"))

    def _handle_client_error(self, ex):
        if isinstance(ex, OSError) and not isinstance(ex, pywsgi._InvalidClientInput):
            return None  # the connection broke while its request came: nothing to answer
        why = ""
        if not isinstance(ex, framing.Refused):  # gevent's own: its message may quote the request line
            why = f" ({type(ex).__name__}: {_QUERY.sub('?…', str(ex))})"
            ex = framing.Refused("The request cannot be read as HTTP/1.1.")
        line = framing.redacted(self.requestline or "")
        log.info("refused %r from %s: %s%s", line, self._client(), ex.detail, why)
        response = ex.response()
        if self.environ is None:  # refused before gevent made one: what gunicorn's access log (if on) reads
            self.environ = self._refused_environ()
            self.response_headers, self.response_length = [], len(response)
        return (str(ex.status), response)

    def start_response(self, status, headers, exc_info=None):
        """gevent's, but a response that ends its connection says ``Connection: close`` (and no
        ``Keep-Alive``): one to a request that asked for the close, and one to a request whose
        chunked body could not be read, which closes the connection: where the next request starts is unknown, and reading on would take the rest
        of a malformed body (``Z`` then ``GET /…``) for a request of its own. gevent expects its
        caller to close the socket after such an error; the app answered it (a 400) instead."""
        if (
            self.close_connection
            or getattr(self.wsgi_input, "_chunked_input_error", False)
            or draining.active()  # the worker stops: no further request is read
        ):
            headers = _closing(headers)  # the connection ends after this response: say so
        return super().start_response(status, headers, exc_info)

    def log_error(self, msg, *args):
        """gevent's log of a client error, through logging (with a time), its query strings cut."""
        message = msg % args if args else msg
        log.warning("%s", _QUERY.sub("?…", message))

    def _client(self) -> str:
        address = self.client_address
        return str(address[0]) if isinstance(address, tuple) else str(address)

    def _refused_environ(self) -> dict:
        """The environ of a request refused before gevent made one, as gunicorn's access log reads it."""
        method, _, path = framing.redacted(self.requestline or "", limit=1000).partition(" ")
        return {
            "REQUEST_METHOD": method or "-",
            "RAW_URI": path or "-",
            "PATH_INFO": path or "-",
            "QUERY_STRING": "",
            "SERVER_PROTOCOL": "-",
            "REMOTE_ADDR": self._client(),
        }

    def read_requestline(self):
        """The next request line, after at most :data:`EMPTY_LINES` empty lines (RFC 9112 §2.2: a
        server SHOULD ignore one received before it, as some clients send a CRLF after a body)."""
        line, self._pending_line = self._pending_line, None
        if line is not None:  # read by handle_one_request, left to gevent
            return line
        for _ in range(EMPTY_LINES):
            line = self._read_line()
            if line not in ("\r\n", "\n"):
                return line
        return self._read_line()  # one more empty line is refused as a malformed request line

    def _read_line(self) -> str:
        """The next line, or "" (close the connection) once idle for ``idle_timeout``, or at once
        when the worker stops (:func:`close_idle_connections`)."""
        wait = self.idle_timeout or None
        if draining.active():
            wait = min(wait or DRAIN_READ_WAIT, DRAIN_READ_WAIT)
        with gevent.Timeout(wait, False) as timer:
            _IDLE[timer] = gevent.getcurrent()
            try:
                return super().read_requestline()
            finally:
                del _IDLE[timer]
        return ""  # idle: close the connection

    def handle_one_request(self):
        result = self._one_request()
        if result is True and draining.active():  # the worker stops: no further request on it
            return None
        return result

    def _one_request(self):
        self.environ = None  # not the previous request's (see _handle_client_error)
        if not self.wire_moves or self.rfile.closed:
            return self._gevent_request()
        try:
            line = self.read_requestline()
        except OSError:  # reset by the peer: nothing to answer
            return None
        try:
            with self._deadline():
                environ = wire.read_request(line, self.rfile) if line.startswith(wire.PREFIXES) else None
        except framing.Refused as late:
            self.requestline = line
            return self._handle_client_error(late)
        except OSError:  # reset while its body was coming
            return None
        if environ is None:  # gevent's handler reads and answers it, from this line on
            self._pending_line = line
            return self._gevent_request() if line else None
        if environ is wire.CLOSED:  # the peer left before its body had come: nothing to answer
            return None
        return self._answer(environ)

    def _gevent_request(self):
        """gevent's handling of one request, with its bare 414 for a request line too long made a
        problem+json like every other refusal."""
        result = super().handle_one_request()
        if isinstance(result, tuple) and result[1] is pywsgi._REQUEST_TOO_LONG_RESPONSE:
            longest = pywsgi.MAX_REQUEST_LINE - 1
            too_long = framing.Refused(
                f"The request line is longer than {longest} bytes.", 414, "uri-too-long"
            )
            return self._handle_client_error(too_long)
        return result

    def _answer(self, request: dict):
        """Call the app for a request :func:`gameroom.http.wire.read_request` read, and send its response."""
        environ = self.server.get_environ()
        environ.update(request)
        if isinstance(self.client_address, tuple):
            environ["REMOTE_ADDR"] = str(self.client_address[0])
            environ["REMOTE_PORT"] = str(self.client_address[1])
        environ["gunicorn.sock"] = self.socket
        if log.isEnabledFor(logging.DEBUG):
            log.debug("read by the worker: %s %s", environ["REQUEST_METHOD"], environ["PATH_INFO"])
        began = time.time()
        started = []

        def start_response(status, headers, exc_info=None):
            started[:] = [status, _closing(headers) if draining.active() else headers]
            return started.append  # the write() callable; an app that uses it is answered with its bytes

        try:
            result = self.server.application(environ, start_response)
            try:
                chunks = list(result)
            finally:
                getattr(result, "close", lambda: None)()
            response, close = wire.response_bytes(started[0], started[1], started[2:] + chunks)
        except Exception:  # a bug below: logged, and answered as gevent answers one (500, then close)
            log.exception("error answering %s %s", environ["REQUEST_METHOD"], environ["PATH_INFO"])
            try:
                self.socket.sendall(wire.INTERNAL_ERROR)
            except OSError:
                pass
            return None
        try:
            sent = self.socket.send(response)  # one write takes a whole small response
            if sent < len(response):
                self.socket.sendall(memoryview(response)[sent:])
        except OSError:
            return None
        if self.access_log:
            self._log_access(environ, started[0], started[1], len(response), time.time() - began)
        return None if close else True

    def _log_access(self, environ: dict, status: str, headers: list, length: int, seconds: float) -> None:
        """gunicorn's access log line of a request read here, as gunicorn's handler writes it for a
        request gevent read (``length``: the bytes sent, head and body, as gevent counts them)."""
        asked = [
            (key[5:].replace("_", "-").title(), value)
            for key, value in environ.items()
            if key.startswith("HTTP_") and isinstance(value, str)
        ]
        response = GeventResponse(status, headers, length)
        self.server.log.access(response, asked, environ, timedelta(seconds=seconds))


class _PatientReader:
    """A connection's reader as a request body's ``rfile``: each read waits at most ``seconds``."""

    def __init__(self, rfile, seconds: float):
        self._rfile, self._seconds = rfile, seconds

    def _late(self):
        return pywsgi._InvalidClientInput(f"The request's body stopped coming for {self._seconds:g} s.")

    def read(self, *args):
        with gevent.Timeout(self._seconds, self._late()):
            return self._rfile.read(*args)

    def readline(self, *args):
        with gevent.Timeout(self._seconds, self._late()):
            return self._rfile.readline(*args)


class _Server(PyWSGIServer):
    """gunicorn's gevent WSGI server, which the worker can close (stop accepting) before gunicorn
    does, as many times as it likes."""

    def close(self):
        if not self.closed:
            super().close()


class GeventWorker(GeventPyWSGIWorker):
    """The API's worker: gunicorn's ``gevent_pywsgi`` worker with idle connections closed after
    ``keepalive`` seconds (:class:`IdleClosingHandler`), the timeout that each response advertises,
    and a graceful stop that ends its live streams and idle connections (:meth:`handle_exit`)."""

    def run(self):
        servers = self._servers = []

        class Server(_Server):
            def __init__(self, *args, **kwargs):
                super().__init__(*args, **kwargs)
                servers.append(self)

        self.server_class = Server
        settings = {
            "idle_timeout": float(self.cfg.keepalive),
            "wire_moves": self._fast_paths(),
            # what gunicorn's own log checks: the requests the worker reads itself are logged too
            "access_log": getattr(self.log, "access_log_enabled", bool(self.cfg.accesslog)),
        }
        self.wsgi_handler = type("IdleClosingHandler", (IdleClosingHandler,), settings)
        try:
            super().run()
        finally:
            self._left_run = True

    _left_run = False
    _servers: list = []

    def _fast_paths(self) -> bool:
        """``GAMEROOM_FAST_PATHS`` as the served app was built with it (its ``GAMEROOM`` setting;
        the environment's for an app of another kind)."""
        config = getattr(self.wsgi, "config", {}).get("GAMEROOM")
        return (config if isinstance(config, Config) else Config.from_env()).fast_paths

    def handle_exit(self, sig, frame):
        """gunicorn's graceful stop (SIGTERM; a reload's old workers get it too): gunicorn stops
        accepting, then waits up to ``graceful_timeout`` for the open connections to end and is
        SIGKILLed by its master after that. Live streams and idle keep-alive connections never end
        by themselves that soon, so they are ended here, at once (:meth:`_drain`)."""
        super().handle_exit(sig, frame)
        gevent.spawn(self._drain)

    def _drain(self):
        """Stop accepting, end every live stream (each response completes, so EventSource
        reconnects to another process with ``Last-Event-ID``) and every idle connection; requests
        under way finish, answered with ``Connection: close``."""
        for server in self._servers:
            server.close()
        streams = draining.begin()
        closed = gevent.event.AsyncResult()
        gevent.get_hub().loop.run_callback(lambda: closed.set(close_idle_connections()))
        log.info(
            "stopping: ended %d live stream(s) and closed %d idle connection(s); requests under way finish",
            streams,
            closed.get(),
        )

    def handle_quit(self, sig, frame):
        """gunicorn's quick stop (Ctrl-C, SIGQUIT), in a greenlet as gunicorn's gevent worker does:
        the worker stops, then exits at once unless it has already left its loop. gunicorn's own
        exits regardless, and that SystemExit then reached the interpreter's shutdown (a worker with
        an open live stream leaves its loop at once) and was logged as a traceback."""
        gevent.spawn(self._quit)

    def _quit(self):
        self.alive = False
        self.cfg.worker_int(self)
        gevent.sleep(0.1)
        if not self._left_run:
            sys.exit(0)
