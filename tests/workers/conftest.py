"""Fixtures for AI jobs on real RQ workers and the session's real redis-server."""

import logging
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from rq import Worker
from rq.registry import StartedJobRegistry
from rq.serializers import JSONSerializer

from gameroom.composition import compose, shared_clients
from gameroom.config import Config
from gameroom.core.rng import Seeding
from gameroom.registry import build_registry
from gameroom.testing import broken_ai, dice, sealed, slow_ai
from gameroom.workers import jobs
from gameroom.workers.scheduler import queue_for

QUEUE = "gameroom-ai-test"
GAMEROOM = Path(sys.executable).with_name("gameroom")


@pytest.fixture
def gameroom_workers(tmp_path):
    """``start(env)``: a ``gameroom worker`` process with ``env`` (no GAMEROOM_* of the test run's
    own), logging to ``worker<n>.log`` in ``tmp_path``; every one is stopped after the test."""
    started = []

    def start(env: dict):
        full = {k: v for k, v in os.environ.items() if not k.startswith("GAMEROOM_")}
        full.update(env)
        log = open(tmp_path / f"worker{len(started)}.log", "wb")
        proc = subprocess.Popen(
            [str(GAMEROOM), "worker"], env=full, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
        started.append(proc)
        return proc

    yield start
    for proc in started:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


@pytest.fixture(scope="session")
def ai_registry():
    """Installed games plus the dice race, sealed cards (simultaneous, hidden hands), the slow level
    and the broken and killed levels."""
    return build_registry(
        extra_plugins=[("dice", dice), ("sealed", sealed), ("slow-ai", slow_ai), ("broken-ai", broken_ai)]
    )


@pytest.fixture
def ai_matches(redis_client, ai_registry):
    """The application layer with AI scheduling on the test queue; jobs in this process use the same games."""
    matches = compose(
        Config(queue=QUEUE),
        ai_registry,
        clients=shared_clients(redis_client),
        scheduling=True,
        seeding=Seeding.reproducible(),
    ).matches
    previous = jobs._REGISTRY
    jobs.use_registry(ai_registry)
    yield matches
    jobs.use_registry(previous)


@pytest.fixture
def queue(redis_client):
    return queue_for(redis_client, QUEUE)


@pytest.fixture
def settled(redis_client):
    """``settled()``: whether the test queue has nothing left to do: no job queued, none taken
    off the queue and not yet started, none running, none scheduled to be due within a second.
    Poll it (``wait_until(settled, ...)``) before asserting that something happened only once:
    whatever else was due has run by then, however long the machine took."""
    queue = queue_for(redis_client, QUEUE)
    started = StartedJobRegistry(QUEUE, connection=redis_client, serializer=JSONSerializer)

    def check() -> bool:
        # (raw counts: the registries' own count would run their cleanup, the workers' business)
        if redis_client.llen(queue.key) or redis_client.llen(queue.intermediate_queue_key):
            return False
        if redis_client.zcard(started.key):
            return False
        return not queue.scheduled_job_registry.get_jobs_to_schedule(int(time.time()) + 1)

    return check


@pytest.fixture
def work(redis_client):
    """Run a real RQ worker (it forks a work horse per job) until the queue is empty."""

    def run() -> bool:
        worker = Worker([QUEUE], connection=redis_client, serializer=JSONSerializer)
        return worker.work(burst=True, logging_level="WARNING")

    return run


@pytest.fixture
def retry_at_once(ai_matches):
    """AI jobs enqueued by ``ai_matches`` are retried without waiting (a burst worker runs every attempt)."""
    ai_matches.after_append[0].retry_intervals = [0]
    return ai_matches


@pytest.fixture
def error_log(tmp_path):
    """ERROR records of ``gameroom.workers``, also from forked work horses: returns a reader of their lines."""
    path = tmp_path / "errors.log"
    handler = logging.FileHandler(path)
    handler.setLevel(logging.ERROR)
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s %(message)s"))
    logger = logging.getLogger("gameroom.workers")
    logger.addHandler(handler)
    yield lambda: path.read_text().splitlines() if path.exists() else []
    logger.removeHandler(handler)
    handler.close()


@pytest.fixture
def slow(tmp_path, redis_server, gameroom_workers):
    """Environment and starter for ``gameroom worker`` processes that know the ``slow`` level."""
    folder = tmp_path / "slow"
    folder.mkdir()
    site = slow_ai.install_entry_point(tmp_path / "site")
    env = {
        "GAMEROOM_REDIS_URL": redis_server.url,
        "GAMEROOM_QUEUE": QUEUE,
        "GAMEROOM_LOG_LEVEL": "WARNING",
        "GAMEROOM_TEST_SLOW_DIR": str(folder),
        "PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep),
    }

    def start_worker():
        return gameroom_workers(env)

    start_worker.folder = folder
    return start_worker
