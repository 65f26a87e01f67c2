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
@click.option("--ai-workers", type=int, default=1, show_default=True, help="RQ worker processes for AI seats.")
@click.pass_obj
def serve(config: Config, host, port, workers, ai_workers):
    """Serve the API, with an embedded Redis (unless GAMEROOM_REDIS_URL is set) and an AI worker.

    Each HTTP worker is a gevent process: an open live stream holds no thread
    (GAMEROOM_SSE_MAX_STREAMS caps them per worker). Stops cleanly on Ctrl-C:
    the HTTP workers, the AI worker and the embedded Redis all exit; match
    data stays in the data folder for the next start.
    """
    host = host or config.host
    port = port or config.port
    parent = os.getpid()
    with redis_url(config) as url:
        env = {**os.environ, "GAMEROOM_REDIS_URL": url}
        ai = [subprocess.Popen([sys.executable, "-m", "service.cli", "worker"], env=env)
              for _ in range(ai_workers)]
        try:
            from .serving import gunicorn_settings, quiet_late_ssl_patch_warning, raise_open_files_limit
            from .wsgi import GunicornApp

            os.environ["GAMEROOM_REDIS_URL"] = url
            click.echo(f"gameroom serving on http://{host}:{port}  (Redis: {url}; Ctrl-C to stop)", err=True)
            raise_open_files_limit()
            quiet_late_ssl_patch_warning()
            GunicornApp(gunicorn_settings(config, bind=f"{host}:{port}", workers=workers)).run()
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
    """Run an RQ worker that plays AI seats (on any host that reaches the queue's Redis).

    The game plugins are loaded once, before the worker forks a horse per job,
    and a job whose worker died is retried within about two minutes.
    """
    from .workers.worker import run

    url = url or config.redis_url
    if not url:
        raise click.UsageError("Set GAMEROOM_REDIS_URL or --url (the Redis that `gameroom serve` uses).")
    run(url, queue or config.queue, burst, config.log_level.upper())


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


@main.command()
@click.option("--game", "slug", required=True, help="Slug of the game to play (see `gameroom games`).")
@click.option("--seats", required=True, metavar="LEVEL,LEVEL[,...]",
              help="One AI level per seat, e.g. mcts,greedy. Levels: random, greedy, mcts, and any the game or "
                   "an add-on plugin provides. A level may enter twice (mcts,mcts: entrants mcts#1, mcts#2).")
@click.option("--matches", "-n", type=click.IntRange(1), default=100, show_default=True,
              help="Matches to play. Use a multiple of the number of seats, so that every entrant plays every "
                   "deal from every seat.")
@click.option("--budget", default=None, metavar="N | Ts | N/Ts",
              help="Search budget of the search levels (mcts): N iterations with no time limit (reproducible), "
                   "Ts seconds per decision (e.g. 0.5s or 300ms), or both (300/0.5s).  "
                   "[default: the game's or the platform's, the same as on the server]")
@click.option("--search", "search_settings", multiple=True, metavar="KEY=VALUE",
              help="A setting of the mcts search, overriding the game's and the platform's defaults "
                   "(repeatable): exploration (UCB constant), minimax (0..1, weight of the implicit "
                   "minimax value), rollout (steps before the evaluation), final (visits or value: how the move "
                   "is picked). See service/ai/mcts.py.")
@click.option("--jobs", "-j", type=click.IntRange(1), default=1, show_default=True,
              help="Play matches in this many processes (one per core is best for timed budgets).")
@click.option("--seed", default="tournament", show_default=True,
              help="Seed of the deals and of the AI's randomness: the same seed and an iteration budget give "
                   "the same results.")
@click.option("--options", "options_json", default=None, metavar="JSON", help="Game options, as a JSON object.")
@click.option("--chart", type=click.Path(dir_okay=False), default=None,
              help="Also write a PNG chart (win rates and mean scores with their intervals) to this file. Needs "
                   "matplotlib (pip install 'gameroom[dev]').")
@click.option("--json", "json_path", type=click.Path(dir_okay=False), default=None,
              help="Also write every match's result and the summary as JSON to this file.")
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
    from tqdm import tqdm

    from .ai import report
    from .ai import tournament as tour

    try:
        levels = [s.strip() for s in seats.split(",") if s.strip()]
        parsed = tour.parse_budget(budget) | tour.parse_search(search_settings)
        options = json.loads(options_json) if options_json else None
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None
    if chart:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            raise click.UsageError("--chart needs matplotlib: pip install 'gameroom[dev]'") from None
    labels = tour.labels_for(levels)
    with tqdm(total=matches, desc=f"{slug}: {' vs '.join(labels)}", unit="match", file=sys.stderr) as bar:
        try:
            results = tour.run(slug, levels, matches, budget=parsed, jobs=jobs, seed=seed, options=options,
                               progress=lambda result: bar.update(1))
        except ValueError as exc:
            raise click.UsageError(str(exc)) from None
    failed = [r for r in results if r.get("error")]
    rows = report.summarize(results, labels)
    steps = [r["steps"] for r in results if not r.get("error")]
    tuned = "".join(f", {s}" for s in search_settings)
    click.echo(f"{slug}: {len(results) - len(failed)} matches, {' vs '.join(labels)}, budget {budget or 'default'}"
               f"{tuned}, seed {seed!r}, mean length {sum(steps) / max(1, len(steps)):.0f} steps")
    click.echo(report.table(rows))
    for r in failed:
        click.echo(f"match {r['index']} left out: {r['error'].strip().splitlines()[-1]}", err=True)
    if chart:
        report.chart(rows, chart, f"{slug}: {' vs '.join(labels)} ({len(results) - len(failed)} matches)")
        click.echo(f"chart written to {chart}")
    if json_path:
        for r in results:
            r["decisions"] = {labels[e]: times for e, times in r["decisions"].items()}
        with open(json_path, "w") as out:
            json.dump({"game": slug, "levels": levels, "budget": budget, "search": list(search_settings),
                       "seed": seed, "summary": rows,
                       "matches": results}, out, indent=1, default=str)
    if failed:
        sys.exit(1)


if __name__ == "__main__":
    main()
