"""The ``gameroom`` command: serve, worker, games, replay, openapi, tournament."""
from __future__ import annotations

import contextlib
import json
import logging
import os
import subprocess
import sys

import click

from .config import Config

log = logging.getLogger("gameroom")


def _setup_logging(level: str) -> None:
    logging.basicConfig(level=level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s")


@contextlib.contextmanager
def redis_url(config: Config):
    """The configured Redis URL; with none, an embedded redis-server in ``data_dir`` for the duration.

    If a gameroom server already runs an embedded Redis in ``data_dir``, use it.
    """
    if config.redis_url:
        yield config.redis_url
        return
    from .eventstore.embedded import EmbeddedRedis, EmbeddedRedisError

    server = EmbeddedRedis(config.data_dir)
    try:
        server.start()
    except EmbeddedRedisError as exc:
        if "already running" in str(exc) and os.path.exists(server.socket_path):
            click.echo(f"Using the running embedded Redis in {config.data_dir}.", err=True)
            yield server.url
            return
        raise click.ClickException(str(exc)) from None
    try:
        yield server.url
    finally:
        server.stop()


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--log-level", default="INFO", show_default=True, envvar="GAMEROOM_LOG_LEVEL",
              help="Logging level: DEBUG, INFO, WARNING, ERROR.")
@click.pass_context
def main(ctx, log_level):
    """gameroom: an event-sourced REST game server.

    Configuration comes from GAMEROOM_* environment variables (GAMEROOM_REDIS_URL,
    GAMEROOM_DATA_DIR, GAMEROOM_PORT, ...). With no GAMEROOM_REDIS_URL a private
    redis-server is started with its data in GAMEROOM_DATA_DIR (default ./var).
    """
    _setup_logging(log_level)
    ctx.obj = Config.from_env()


@main.command()
@click.option("--host", default=None, help="Interface to listen on  [default: 127.0.0.1]")
@click.option("--port", type=int, default=None, help="Port to listen on  [default: 8000]")
@click.option("--workers", type=int, default=2, show_default=True, help="gunicorn worker processes.")
@click.option("--threads", type=int, default=8, show_default=True,
              help="Threads per worker (each open live stream holds one).")
@click.option("--ai-workers", type=int, default=1, show_default=True, help="RQ worker processes for AI seats.")
@click.pass_obj
def serve(config: Config, host, port, workers, threads, ai_workers):
    """Serve the API, with an embedded Redis (unless GAMEROOM_REDIS_URL is set) and an AI worker.

    Stops cleanly on Ctrl-C: the HTTP workers, the AI worker and the embedded
    Redis all exit; match data stays in the data folder for the next start.
    """
    host = host or config.host
    port = port or config.port
    parent = os.getpid()
    with redis_url(config) as url:
        env = {**os.environ, "GAMEROOM_REDIS_URL": url}
        ai = [subprocess.Popen([sys.executable, "-m", "service.cli", "worker"], env=env)
              for _ in range(ai_workers)]
        try:
            from .wsgi import GunicornApp

            os.environ["GAMEROOM_REDIS_URL"] = url
            click.echo(f"gameroom serving on http://{host}:{port}  (Redis: {url}; Ctrl-C to stop)", err=True)
            GunicornApp({"bind": f"{host}:{port}", "workers": workers, "threads": threads,
                         "worker_class": "gthread", "timeout": 60, "graceful_timeout": 5,
                         "accesslog": "-", "loglevel": config.log_level.lower(),
                         # the path without its query string: ?token= must never reach a log
                         "access_log_format": '%(h)s "%(m)s %(U)s" %(s)s %(b)s %(D)sus'}).run()
        except SystemExit:
            if os.getpid() != parent:
                raise  # a gunicorn worker exiting: the arbiter cleans up, not us
        finally:
            if os.getpid() == parent:  # not in a gunicorn worker unwinding after fork
                _stop_all(ai)
                click.echo("gameroom stopped.", err=True)


def _stop_all(processes, timeout: float = 15) -> None:
    for proc in processes:
        if proc.poll() is None:
            proc.terminate()
    for proc in processes:
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()


@main.command()
@click.option("--url", default=None, help="Redis URL of the queue  [default: GAMEROOM_REDIS_URL]")
@click.option("--queue", default=None, help="Queue name  [default: gameroom-ai]")
@click.option("--burst", is_flag=True, help="Exit when the queue is empty.")
@click.pass_obj
def worker(config: Config, url, queue, burst):
    """Run an RQ worker that plays AI seats (on any host that reaches the queue's Redis)."""
    import redis
    from rq import Worker
    from rq.serializers import JSONSerializer

    url = url or config.redis_url
    if not url:
        raise click.UsageError("Set GAMEROOM_REDIS_URL or --url (the Redis that `gameroom serve` uses).")
    connection = redis.Redis.from_url(url)
    w = Worker([queue or config.queue], connection=connection, serializer=JSONSerializer)
    w.work(burst=burst, logging_level=config.log_level.upper(), with_scheduler=True)


@main.command()
def games():
    """List installed games with their distribution and version."""
    from .registry import build_registry

    registry = build_registry()
    for g in registry:
        info = g.game.info
        click.echo(f"{info.slug:24} {info.title:28} {info.min_players}-{info.max_players} players  "
                   f"{g.distribution} {g.version}")


@main.command()
@click.argument("match_id")
@click.option("--steps", is_flag=True, help="Print every entry as a sentence, step by step.")
@click.option("--json", "as_json", is_flag=True, help="Print the final state and outcome as JSON.")
@click.pass_obj
def replay(config: Config, match_id, steps, as_json):
    """Rebuild MATCH_ID from its event log and print its final state and outcome."""
    import redis
    from tqdm import tqdm

    from .core import decider
    from .core.matches import redact_entry
    from .eventstore import EventStore
    from .eventstore.records import MatchRecords
    from .registry import build_registry

    with redis_url(config) as url:
        client = redis.Redis.from_url(url)
        record = MatchRecords(client).get(match_id)
        if record is None:
            raise click.ClickException(f"No match {match_id}.")
        game = build_registry().get(record.game)
        store = EventStore(client)
        total = store.version(match_id)
        folded = decider.Folded()
        after = 0
        with tqdm(total=total, desc=f"replaying {match_id}", unit="entry", disable=total < 500 or steps,
                  file=sys.stderr) as bar:
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
    outcome = game.outcome(folded.state)
    if as_json:
        click.echo(json.dumps({"version": folded.version, "state": folded.state, "outcome": outcome}, indent=2))
        return
    click.echo(f"{game.info.title} match {match_id}: version {folded.version}")
    click.echo(json.dumps(game.view(folded.state, None), indent=2))
    click.echo(f"outcome: {json.dumps(outcome)}")


@main.command()
def openapi():
    """Print the OpenAPI document (YAML) generated from the schemas."""
    from .openapi import spec_yaml

    click.echo(spec_yaml(), nl=False)


if __name__ == "__main__":
    main()
