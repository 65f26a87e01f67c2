"""The parts of ``bench/bench_http.py`` (the CLI users run), one concept per module.

- :mod:`.baseline`: the bare Flask + one ``XADD`` app that gameroom is measured against;
- :mod:`.servers`: gunicorn subprocesses on free loopback ports, and their CPU from ``/proc``;
- :mod:`.clients`: the keep-alive HTTP connection, the tallies, and the bots that play
  matches (``api`` and ``rules`` clients) or hit the baseline;
- :mod:`.phases`: one measured phase of N client threads, and the clean-up of what it wrote;
- :mod:`.session`: a whole run: servers up, warm-up, alternating rounds, the result;
- :mod:`.report`: medians over rounds and the printed report;
- :mod:`.profiling`: ``--profile``, cProfile of the request path in-process.

gunicorn imports :mod:`.baseline` in its workers, so this file stays empty of imports.
"""
