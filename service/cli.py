"""The ``gameroom`` command: serve, worker, games, replay, openapi, tournament.

Over 400 lines because it is the one place that declares every subcommand and its options
(click's decorators) and the process plumbing of ``serve`` (embedded Redis, gunicorn, the AI
worker, the stop signals); each subcommand hands its work to the module that does it.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import os
import signal
import socket
import subprocess
import sys

import click

from .config import Config, ConfigError
from .errors import GameroomError, PluginError

log = logging.getLogger("gameroom")


class BadConfig(click.ClickException):
    """A setting (a GAMEROOM_* variable, a URL, the data folder) that cannot be used: one ``Error:``
    line and exit code 2, as click ends a bad option (bad usage and bad configuration alike)."""

    exit_code = 2


class _Group(click.Group):
    """Start-up failures of plugins, and a Redis that cannot be reached, end every command with
    their message, not a traceback."""

    def invoke(self, ctx):
        import redis
        from redis.exceptions import RedisClusterException

        from .eventstore.cluster import ClusterUnavailable

        try:
            return super().invoke(ctx)
        except PluginError as exc:
            raise click.ClickException(str(exc)) from None
        except ConfigError as exc:
            raise BadConfig(str(exc)) from None
        except ClusterUnavailable as exc:  # a cluster URL whose nodes do not answer (a ConnectionError)
            raise click.ClickException(
                f"Cannot reach the Redis Cluster ({exc}). Check GAMEROOM_REDIS_URL."
            ) from None
        except redis.ConnectionError as exc:
            raise click.ClickException(
                f"Cannot reach Redis ({exc}). Check GAMEROOM_REDIS_URL, or unset it to use an embedded Redis."
            ) from None
        except RedisClusterException as exc:  # the startup nodes of a cluster URL: none answered
            raise click.ClickException(
                f"Cannot reach the Redis Cluster ({exc}). Check GAMEROOM_REDIS_URL."
            ) from None


def _setup_logging(level: str) -> None:
    logging.basicConfig(level=level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s")


def _data_folder(config: Config, *, create: bool) -> str:
    """The absolute path of the data folder, checked (and with ``create``, made) before anything
    starts; a folder that cannot be used is one error line saying why, not an OSError."""
    path = os.path.abspath(config.data_dir)
    if os.path.isdir(path):
        return path
    if os.path.lexists(path):
        raise BadConfig(f"GAMEROOM_DATA_DIR: cannot use {path} as the data folder: it is not a folder.")
    if not create:
        raise BadConfig(f"No data folder at {path}; set GAMEROOM_DATA_DIR or GAMEROOM_REDIS_URL.")
    try:
        os.makedirs(path, mode=0o700)
    except OSError as exc:
        raise BadConfig(
            f"GAMEROOM_DATA_DIR: cannot create the data folder {path}: {exc.strerror or exc}."
        ) from None
    return path


def _data_folder_with_matches(config: Config) -> str:
    """The data folder of a server that has run (``replay``): one with an append-only file, so
    that reading never starts a Redis, and so never writes files, in a folder of something else."""
    path = _data_folder(config, create=False)
    if not any(os.path.exists(os.path.join(path, name)) for name in ("appendonlydir", "appendonly.aof")):
        raise BadConfig(
            f"No match data in {path} (no appendonly file: `gameroom serve` has not used it); "
            "set GAMEROOM_DATA_DIR or GAMEROOM_REDIS_URL."
        )
    return path


def _where(config: Config) -> str:
    """Where the commands read matches, for messages: the Redis URL (no password) or the data folder."""
    from .eventstore.urls import without_password

    if config.redis_url:
        return f"the Redis at {without_password(config.redis_url)}"
    return f"the embedded Redis of the data folder {os.path.abspath(config.data_dir)}"


@contextlib.contextmanager
def redis_url(config: Config):
    """The configured Redis URL; with none, the data folder's embedded Redis for the duration.

    A reader's (``replay``): the embedded Redis of a gameroom server running in
    ``data_dir`` if there is one, else one started on its data. The data folder
    must hold a server's data: none is created. (``serve`` runs its own under a
    keeper: :func:`_served_redis`.)
    """
    if config.redis_url:
        yield config.redis_url
        return
    from .eventstore.embedded import EmbeddedRedis, EmbeddedRedisError

    _data_folder_with_matches(config)
    try:
        server = EmbeddedRedis(config.data_dir, appendfsync=config.redis_appendfsync)
    except EmbeddedRedisError as exc:
        raise click.ClickException(f"GAMEROOM_REDIS_APPENDFSYNC: {exc}") from None
    try:
        server.start()
    except EmbeddedRedisError as exc:
        if "already running" in str(exc) and os.path.exists(server.socket_path):
            log.info("using the running embedded Redis in %s", os.path.abspath(config.data_dir))
            yield server.url
            return
        raise click.ClickException(str(exc)) from None
    try:
        yield server.url
    finally:
        server.stop()


@contextlib.contextmanager
def data_dir_lock(config: Config):
    """Hold an exclusive lock on ``data_dir/serve.lock`` while serving; refuse if another server holds it.

    flock(2): the kernel drops the lock when the last process holding the file
    (this one, and the gunicorn workers it forks) is gone, however it died.
    """
    if config.redis_url:
        yield  # no embedded Redis: the data folder is not used
        return
    folder = _data_folder(config, create=True)
    path = os.path.join(folder, "serve.lock")
    try:
        handle = open(path, "a+")
    except OSError as exc:
        raise BadConfig(
            f"GAMEROOM_DATA_DIR: cannot use the data folder {folder}: {exc.strerror or exc}."
        ) from None
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.seek(0)
        holder = handle.read().strip() or "?"
        handle.close()
        raise click.ClickException(
            f"Another gameroom server (pid {holder}) is serving the data folder {folder}. "
            "Stop it first, or set GAMEROOM_DATA_DIR to another folder."
        ) from None
    handle.seek(0)
    handle.truncate()
    handle.write(f"{os.getpid()}\n")
    handle.flush()
    try:
        yield
    finally:
        handle.close()


def _check_port_free(host: str, port: int) -> None:
    """Fail at once, before anything starts, when ``host:port`` cannot be bound (as gunicorn binds it)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise click.ClickException(f"Cannot listen on {host}:{port}: {exc}") from None
    family, _type, _proto, _name, address = infos[0]
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as exc:
            raise click.ClickException(
                f"Cannot listen on {host}:{port}: {exc.strerror}. Is another server running there? "
                "Choose another port with --port or GAMEROOM_PORT."
            ) from None


def _check_redis_url(url: str, name: str) -> None:
    """Refuse a Redis URL that no client can use, before anything starts (one error line, exit 2)."""
    from .eventstore.connect import check_redis_url

    try:
        check_redis_url(url, name)
    except ConfigError as exc:
        raise BadConfig(str(exc)) from None


def _refuse_cluster_queue(queue_url: str | None, events_url: str) -> None:
    """RQ's queue on a Redis Cluster: one error line (exit 2), from ``serve`` as from ``worker``,
    naming the setting that makes it one (``queue_url``, or ``events_url`` when none is set)."""
    from .eventstore.connect import ClusterURLError, refuse_cluster_queue

    try:
        refuse_cluster_queue(queue_url, events_url)
    except ClusterURLError as exc:
        raise BadConfig(str(exc)) from None


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--log-level",
    default="INFO",
    show_default=True,
    envvar="GAMEROOM_LOG_LEVEL",
    type=click.Choice(["DEBUG", "INFO", "WARNING", "ERROR"], case_sensitive=False),
    help="Logging level.",
)
@click.pass_context
def main(ctx, log_level):
    """gameroom: an event-sourced REST game server.

    Configuration comes from GAMEROOM_* environment variables (GAMEROOM_REDIS_URL,
    GAMEROOM_DATA_DIR, GAMEROOM_PORT, ...). With no GAMEROOM_REDIS_URL a private
    redis-server is started with its data in GAMEROOM_DATA_DIR (default ./var).
    """
    _setup_logging(log_level)
    try:
        ctx.obj = Config.from_env()
    except ConfigError as exc:
        raise BadConfig(str(exc)) from None


@main.command()
@click.option("--host", default=None, help="Interface to listen on  [default: 127.0.0.1]")
@click.option(
    "--port", type=click.IntRange(1, 65535), default=None, help="Port to listen on  [default: 8000]"
)
@click.option(
    "--workers", type=click.IntRange(1), default=2, show_default=True, help="gunicorn worker processes."
)
@click.option(
    "--ai-workers",
    type=click.IntRange(0),
    default=1,
    show_default=True,
    help="RQ worker processes for AI seats (0: none; run `gameroom worker` elsewhere).",
)
@click.pass_obj
def serve(config: Config, host, port, workers, ai_workers):
    """Serve the API, with an embedded Redis (unless GAMEROOM_REDIS_URL is set) and AI workers.

    Each HTTP worker is a gevent process: an open live stream holds no thread
    (GAMEROOM_SSE_MAX_STREAMS caps them per worker). The AI workers are
    supervised: one that dies is started again (with a growing wait while it
    keeps dying), and they die with the server, even if it is killed. RQ's
    queue is on the same Redis unless GAMEROOM_QUEUE_REDIS_URL names another;
    the AI workers are given both. The embedded Redis is supervised too: one
    that dies is logged and started again on the same data folder (nothing
    acknowledged is lost; the API answers 503 meanwhile), and when it cannot be
    (it keeps dying, its data folder is gone) serve stops and exits non-zero.
    Stops cleanly on Ctrl-C: the HTTP workers, the AI workers and the embedded Redis
    all exit; match data stays in the data folder for the next start.

    Exits non-zero when it cannot start: the port is taken, or another server
    already serves the data folder (GAMEROOM_DATA_DIR; it is locked while in use);
    with 2 when a setting cannot be used (a GAMEROOM_* value out of its range, a
    Redis URL, a data folder that is not a folder), before anything starts.
    """
    from .eventstore.urls import without_password

    host = host or config.host
    port = port if port is not None else config.port  # GAMEROOM_PORT: range-checked by Config
    if config.redis_url:
        _check_redis_url(config.redis_url, "GAMEROOM_REDIS_URL")
    if config.queue_redis_url:
        _check_redis_url(config.queue_redis_url, "GAMEROOM_QUEUE_REDIS_URL")
    if config.ai_mode == "rq" or ai_workers > 0:
        # The embedded Redis is never a cluster: only a configured URL can be refused, so before it starts.
        _refuse_cluster_queue(config.queue_redis_url, config.redis_url)
    parent = os.getpid()
    _check_port_free(host, port)

    with data_dir_lock(config), _served_redis(config) as (url, kept):
        queue_url = config.queue_redis_url or url
        env = {**os.environ, "GAMEROOM_REDIS_URL": url, "GAMEROOM_QUEUE_REDIS_URL": queue_url}
        supervisor = _start_supervisor(ai_workers, env) if ai_workers > 0 else None
        if kept is not None:
            kept.watch(_stop_serving)
        try:
            from .serving import (
                gunicorn_settings,
                open_files_warning,
                quiet_late_ssl_patch_warning,
                raise_open_files_limit,
            )
            from .wsgi import GunicornApp

            os.environ["GAMEROOM_REDIS_URL"] = url
            log.info(
                "serving on http://%s:%s  (Redis: %s; Ctrl-C to stop)", host, port, without_password(url)
            )
            too_few = open_files_warning(config, raise_open_files_limit())
            if too_few:
                log.warning("%s", too_few)
            quiet_late_ssl_patch_warning()
            GunicornApp(gunicorn_settings(config, bind=f"{host}:{port}", workers=workers)).run()
        finally:
            # gunicorn ends its arbiter and its workers with SystemExit: its code (non-zero when it
            # could not start) is serve's. Only the arbiter, not a worker unwinding after fork, cleans up.
            if os.getpid() == parent:
                _stop_all([supervisor] if supervisor else [])
                if kept is not None:
                    kept.stop()  # last: the HTTP and AI workers are gone
                if kept is not None and kept.gave_up:
                    raise click.ClickException(
                        "The embedded Redis could not be kept running (see the log above); "
                        "the server stopped. Start it again once its data folder is sound."
                    )
                log.info("stopped")


@contextlib.contextmanager
def _served_redis(config: Config):
    """``(url, kept)``: the configured Redis URL and None, or the embedded Redis of ``serve`` and its
    keeper (:mod:`gameroom.eventstore.keeper`: restarts it if it dies, ends the server if it cannot)."""
    if config.redis_url:
        yield config.redis_url, None
        return
    from .eventstore.embedded import EmbeddedRedisError
    from .eventstore.keeper import Kept

    _data_folder(config, create=True)
    try:
        kept = Kept(config.data_dir, config.redis_appendfsync, logging.getLevelName(log.getEffectiveLevel()))
    except EmbeddedRedisError as exc:
        raise click.ClickException(str(exc)) from None
    try:
        yield kept.url, kept
    finally:
        kept.stop()  # already stopped by serve's arbiter; this is for a forked worker or a failed start


def _stop_serving() -> None:
    """The keeper gave up: stop gunicorn as Ctrl-C does (its workers could only answer 503 now)."""
    log.error("the embedded Redis is gone for good; stopping the server")
    os.kill(os.getpid(), signal.SIGINT)


def _start_supervisor(count: int, env: dict) -> subprocess.Popen:
    """The AI workers' supervisor (gameroom.workers.supervisor): restarts them, dies with this process."""
    from .workers.supervisor import die_with_parent

    return subprocess.Popen(
        [sys.executable, "-m", "gameroom.workers.supervisor", "--count", str(count)],
        env=env,
        preexec_fn=die_with_parent(signal.SIGTERM),
    )


def _stop_all(processes, timeout: float = 30) -> None:
    for proc in processes:
        if proc.poll() is None:
            proc.terminate()
    for proc in processes:
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()


@main.command()
@click.option(
    "--url",
    default=None,
    help="Redis URL of the events and match data, the one the API uses  [default: GAMEROOM_REDIS_URL]",
)
@click.option(
    "--queue-url",
    default=None,
    help="Redis URL of the queue the jobs come from  [default: GAMEROOM_QUEUE_REDIS_URL, "
    "else the events Redis]",
)
@click.option("--queue", default=None, help="Queue name  [default: gameroom-ai]")
@click.option("--burst", is_flag=True, help="Exit when the queue is empty.")
@click.pass_obj
def worker(config: Config, url, queue_url, queue, burst):
    """Run an RQ worker that plays AI seats (on any host that reaches both Redis roles).

    Two Redis roles: jobs come from the queue's Redis (--queue-url,
    GAMEROOM_QUEUE_REDIS_URL: a plain primary, RQ does not support Cluster);
    each job reads the match from, and appends its move to, the events Redis
    (--url, GAMEROOM_REDIS_URL). Without a queue URL the events Redis holds
    the queue too.

    The game plugins are loaded once, before the worker forks a horse per job.
    A job whose worker died is retried within about 20 seconds, and every AI
    turn recorded in the log that has no job is enqueued (at start and every
    few seconds), so no AI turn is lost to a crash. The worker outlives Redis
    outages: it reconnects with backoff instead of quitting.
    """
    from .workers.worker import run

    url_name = "--url" if url else "GAMEROOM_REDIS_URL"
    queue_url_name = "--queue-url" if queue_url else "GAMEROOM_QUEUE_REDIS_URL"
    url, queue_url = url or config.redis_url, queue_url or config.queue_redis_url
    if not url:
        raise BadConfig("Set GAMEROOM_REDIS_URL or --url (the Redis that `gameroom serve` uses).")
    _check_redis_url(url, url_name)
    if queue_url:
        _check_redis_url(queue_url, queue_url_name)
    _refuse_cluster_queue(queue_url, url)
    run(url, queue or config.queue, burst, config.log_level.upper(), queue_url or None)


@main.command()
def games():
    """List installed games with their distribution and version."""
    from .registry import build_registry

    registry = build_registry()
    for g in registry:
        info = g.game.info
        click.echo(
            f"{info.slug:24} {info.title:28} {info.min_players}-{info.max_players} players  "
            f"{g.distribution} {g.version}"
        )


@main.command()
@click.argument("match_id")
@click.option("--steps", is_flag=True, help="Print every entry as a sentence, step by step.")
@click.option("--json", "as_json", is_flag=True, help="Print the final state and outcome as JSON.")
@click.pass_obj
def replay(config: Config, match_id, steps, as_json):
    """Rebuild MATCH_ID from its event log and print its final state and outcome.

    Reads the match from the Redis at GAMEROOM_REDIS_URL; with none, from the
    data folder of `gameroom serve` (GAMEROOM_DATA_DIR, default ./var): the
    embedded Redis of a server running there, else one started on its data for
    the replay. It never creates a data folder, nor starts a Redis in a folder
    that holds no server's data.
    """
    from dataclasses import replace

    from tqdm import tqdm

    from .composition import compose
    from .core import decider, lifecycle
    from .core.matches import redact_entry

    if config.redis_url:
        _check_redis_url(config.redis_url, "GAMEROOM_REDIS_URL")
    with redis_url(config) as url:
        matches = compose(replace(config, redis_url=url), scheduling=False).matches
        record = matches.records.get(match_id)
        if record is None:
            raise click.ClickException(f"No match {match_id} in {_where(config)}.")
        game = matches.game(record)
        store = matches.store
        total = store.version(match_id)
        folded = decider.Folded()
        after = 0
        with tqdm(
            total=total,
            desc=f"replaying {match_id}",
            unit="entry",
            disable=total < 500 or steps,
            file=sys.stderr,
        ) as bar:
            while after < total:
                page = store.read_page(match_id, after, 1000)
                for entry in page:
                    folded = decider.apply_entry(game, folded, entry)
                    if steps:
                        shown = redact_entry(game, entry, None, record.names(), public=True)
                        for text in shown["text"]:
                            click.echo(f"v{entry['version']:>5}  {text}")
                after = page[-1]["version"]
                bar.update(len(page))
    outcome = lifecycle.outcome(game, folded)  # a resignation's or forfeit's, else the game's
    if as_json:
        click.echo(
            json.dumps({"version": folded.version, "state": folded.state, "outcome": outcome}, indent=2)
        )
        return
    click.echo(f"{game.info.title} match {match_id}: version {folded.version}")
    click.echo(json.dumps(game.view(folded.state, None), indent=2))
    click.echo(f"outcome: {json.dumps(outcome)}")


@main.command()
def openapi():
    """Print the OpenAPI document (YAML) generated from the schemas."""
    from .openapi import spec_yaml

    click.echo(spec_yaml(), nl=False)


@main.command()
@click.option("--game", "slug", required=True, help="Slug of the game to play (see `gameroom games`).")
@click.option(
    "--seats",
    required=True,
    metavar="LEVEL,LEVEL[,...]",
    help="One AI level per seat, e.g. mcts,greedy. Levels: random, greedy, mcts, and any the game or "
    "an add-on plugin provides. A level may enter twice (mcts,mcts: entrants mcts#1, mcts#2).",
)
@click.option(
    "--matches",
    "-n",
    type=click.IntRange(1),
    default=100,
    show_default=True,
    help="Matches to play. Use a multiple of the number of seats, so that every entrant plays every "
    "deal from every seat.",
)
@click.option(
    "--budget",
    default=None,
    metavar="N | Ts | N/Ts",
    help="Search budget of the search levels (mcts): N iterations with no time limit (reproducible), "
    "Ts seconds per decision (e.g. 0.5s or 300ms), or both (300/0.5s).  "
    "[default: the game's or the platform's, the same as on the server]",
)
@click.option(
    "--search",
    "search_settings",
    multiple=True,
    metavar="KEY=VALUE",
    help="A setting of the mcts search, overriding the game's and the platform's defaults "
    "(repeatable): exploration (UCB constant), minimax (0..1, weight of the implicit "
    "minimax value), rollout (steps before the evaluation), final (visits or value: how the move "
    "is picked). See the mcts_* attributes of gameroom.plugin_api.Game.",
)
@click.option(
    "--jobs",
    "-j",
    type=click.IntRange(1),
    default=1,
    show_default=True,
    help="Play matches in this many processes (one per core is best for timed budgets).",
)
@click.option(
    "--seed",
    default="tournament",
    show_default=True,
    help="Seed of the deals and of the AI's randomness: the same seed and an iteration budget give "
    "the same results.",
)
@click.option(
    "--options", "options_json", default=None, metavar="JSON", help="Game options, as a JSON object."
)
@click.option(
    "--chart",
    type=click.Path(dir_okay=False),
    callback=lambda ctx, param, value: _output_file(value),
    default=None,
    help="Also write a PNG chart (win rates and mean scores with their intervals) to this file. Needs "
    "matplotlib (pip install 'gameroom[dev]').",
)
@click.option(
    "--json",
    "json_path",
    type=click.Path(dir_okay=False),
    callback=lambda ctx, param, value: _output_file(value),
    default=None,
    help="Also write every match's result and the summary as JSON to this file.",
)
def tournament(slug, seats, matches, budget, search_settings, jobs, seed, options_json, chart, json_path):
    """Play AI levels against each other locally and print their strength.

    Matches are played in this process (or --jobs processes) through the same
    pure core the server uses, with no HTTP and no Redis; each seat's policy
    sees only its own view of the match and its legal moves. Seat order is
    swapped fairly: in match i entrant k takes seat (k + i) mod n, and the n
    rotations of one round share a deal.

    Printed per entrant: wins (a win shared by k seats counts 1/k, so a
    two-player tie is half a win), win rate with its 95% Wilson interval, mean
    final score and mean score margin (own score minus the best other seat's)
    with 95% normal intervals, and decision times (mean, 95th percentile,
    max). Matches that fail or run past the game's step limit are reported and
    left out of the figures.

    Example: gameroom tournament --game nim --seats mcts,greedy -n 200 -j 2 --chart nim.png
    """
    from marshmallow import ValidationError
    from tqdm import tqdm

    from .ai import tournament as tour

    levels, parsed, options = _tournament_arguments(seats, budget, search_settings, options_json, chart)
    labels = tour.labels_for(levels)
    with tqdm(total=matches, desc=f"{slug}: {' vs '.join(labels)}", unit="match", file=sys.stderr) as bar:
        try:
            results = tour.run(
                slug,
                levels,
                matches,
                budget=parsed,
                jobs=jobs,
                seed=seed,
                options=options,
                progress=lambda result: bar.update(1),
            )
        except (ValueError, GameroomError, ValidationError) as exc:  # an unknown game, bad options
            raise click.UsageError(str(getattr(exc, "detail", None) or exc)) from None
    failed = _report_tournament(
        results, slug, labels, levels, budget, search_settings, seed, chart, json_path
    )
    if failed:
        sys.exit(1)


def _output_file(value: str | None) -> str | None:
    """An output file of ``tournament``, checked before the matches are played: a path whose
    folder is missing or read-only would otherwise fail only after the whole run."""
    if value is None:
        return None
    path = os.path.abspath(value)
    folder = os.path.dirname(path)
    if not os.path.isdir(folder):
        raise click.BadParameter(f"{value}: there is no folder {folder}.")
    if os.path.isdir(path):
        raise click.BadParameter(f"{value} is a folder; give a file name.")
    if not os.access(path if os.path.exists(path) else folder, os.W_OK):
        raise click.BadParameter(f"{value} cannot be written here (permission denied).")
    return value


def _report_tournament(results, slug, labels, levels, budget, search, seed, chart, json_path) -> list:
    """Print (and with ``chart`` or ``json_path``, write) a tournament's figures; returns the failed matches.

    The figures are printed first and the results file written before the chart, so a file that
    still cannot be written (a full disk) loses as little as it can, and ends with one error line.
    """
    from .ai import report

    failed = [r for r in results if r.get("error")]
    rows = report.summarize(results, labels)
    click.echo(report.headline(slug, results, labels, budget, search, seed))
    click.echo(report.table(rows))
    for r in failed:
        click.echo(f"match {r['index']} left out: {r['error'].strip().splitlines()[-1]}", err=True)
    unwritten = []
    if json_path:
        meta = {"game": slug, "levels": levels, "budget": budget, "search": list(search), "seed": seed}
        try:
            report.write_json(json_path, meta, rows, results, labels)
        except OSError as exc:
            unwritten.append(f"the results to {json_path} ({exc.strerror or exc})")
    if chart:
        title = f"{slug}: {' vs '.join(labels)} ({len(results) - len(failed)} matches)"
        try:
            report.chart(rows, chart, title)
            click.echo(f"chart written to {chart}")
        except (OSError, ValueError) as exc:  # ValueError: a file name matplotlib has no format for
            unwritten.append(f"the chart to {chart} ({getattr(exc, 'strerror', None) or exc})")
    if unwritten:
        raise click.ClickException(f"Cannot write {' and '.join(unwritten)}.")
    return failed


def _tournament_arguments(seats: str, budget, search_settings, options_json, chart) -> tuple:
    """``(levels, budget and search settings, options)`` from ``tournament``'s options, or a usage error."""
    from .ai import tournament as tour

    levels = [s.strip() for s in seats.split(",") if s.strip()]
    parsed = {}
    for hint, parse, value in (
        ("--budget", tour.parse_budget, budget),
        ("--search", tour.parse_search, search_settings),
    ):
        try:
            parsed |= parse(value)
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint=hint) from None
    try:
        options = json.loads(options_json) if options_json else None
    except ValueError as exc:
        raise click.BadParameter(f"not JSON: {exc}", param_hint="--options") from None
    if chart:
        try:
            from matplotlib.figure import Figure
        except ImportError:
            raise click.UsageError("--chart needs matplotlib: pip install 'gameroom[dev]'") from None
        kinds = Figure().canvas.get_supported_filetypes()
        suffix = os.path.splitext(chart)[1].lstrip(".").lower()
        if suffix not in kinds:
            raise click.BadParameter(
                f"{chart}: a chart is an image file; end its name with one of "
                f"{', '.join('.' + k for k in sorted(kinds))} (.png is usual).",
                param_hint="--chart",
            )
    return levels, parsed, options


if __name__ == "__main__":
    main()
