"""Two Redis roles: RQ's queue on its own redis-server, the events on another (issue 19, item 2).

Two real redis-servers, the API's application layer built by ``create_app``
with ``queue_redis_url``, and a real ``gameroom worker`` process told both
URLs by the environment, as a deployment would.
"""

import re

import pytest
import redis
from rq.job import Job, JobStatus
from rq.serializers import JSONSerializer

from gameroom import create_app
from gameroom.composition import matches_on
from gameroom.core import lifecycle
from gameroom.eventstore import keys
from gameroom.testing.polling import wait_until
from gameroom.testing.served import Served, http_json

from .conftest import QUEUE
from .test_ai_jobs import _create, _entries, _human_plays_until_ai_turn


def _keys(client) -> list[str]:
    return sorted(k.decode() for k in client.keys("*"))


@pytest.fixture
def two_role_worker(gameroom_workers, redis_server, queue_redis_server):
    """Start ``gameroom worker`` with the events on ``redis_server`` and the queue on ``queue_redis_server``."""

    def start():
        return gameroom_workers(
            {
                "GAMEROOM_REDIS_URL": redis_server.url,
                "GAMEROOM_QUEUE_REDIS_URL": queue_redis_server.url,
                "GAMEROOM_QUEUE": QUEUE,
                "GAMEROOM_LOG_LEVEL": "INFO",
            }
        )

    return start


@pytest.fixture
def two_role_matches(redis_server, redis_client, queue_redis_server, queue_redis_client, registry):
    """The API's application layer (``create_app``) with the events and the queue on two servers."""
    app = create_app(
        {
            "redis_url": redis_server.url,
            "queue_redis_url": queue_redis_server.url,
            "queue": QUEUE,
            "ai_mode": "rq",
            "reproducible_seeds": True,
        },
        registry,
    )
    return app.extensions["gameroom"]


def _finished(matches, match_id) -> bool:
    loaded = matches.load(match_id)
    return lifecycle.outcome(matches.game(loaded.record), loaded.folded) is not None


def _assert_roles_kept_apart(redis_client, queue_redis_client, match_id):
    """Each Redis holds its own role's keys only."""
    events, queue = _keys(redis_client), _keys(queue_redis_client)
    # The events Redis: the match's keys (stream, record, ...), and not one key of RQ.
    assert keys.events(match_id) in events, events
    assert not [key for key in events if key.startswith("rq:")], events
    # The queue Redis: RQ's keys (the match's jobs among them), and not one key of a match.
    assert any(key.startswith("rq:job:") and match_id in key for key in queue), queue
    assert not [key for key in queue if not key.startswith("rq:")], queue


def test_an_ai_match_through_a_worker_process_keeps_queue_and_events_on_their_own_redis(
    two_role_matches, redis_client, queue_redis_client, two_role_worker
):
    matches = two_role_matches
    match_id = _create(matches, "nim", [None, "greedy"], seed="two-roles")
    worker = two_role_worker()
    ai_moves = 0
    while not _finished(matches, match_id):
        loaded = _human_plays_until_ai_turn(matches, match_id)
        if _finished(matches, match_id):
            break
        # The API enqueued the AI's turn on the queue Redis, never on the events Redis.
        job_key = Job.key_for(keys.ai_job_id(match_id, loaded.version, 1))
        assert queue_redis_client.exists(job_key) or matches.store.version(match_id) > loaded.version
        assert not redis_client.exists(job_key)
        wait_until(lambda: matches.store.version(match_id) > loaded.version, 60, "the AI's move")  # noqa: B023
        ai_moves += 1
    assert ai_moves >= 1
    entries = _entries(matches, match_id)
    assert [e["actor"] for e in entries if e.get("seat") == 1] == ["ai:greedy"] * ai_moves
    _assert_roles_kept_apart(redis_client, queue_redis_client, match_id)
    assert worker.poll() is None


def test_the_reconciler_recovers_a_lost_ai_turn_with_the_queue_on_another_redis(
    two_role_matches, redis_client, queue_redis_client, registry, two_role_worker
):
    lost = matches_on(redis_client, registry)  # no enqueue at all
    match_id = _create(lost, "nim", [None, "greedy"], seed="lost-turn")
    loaded = _human_plays_until_ai_turn(lost, match_id)
    job_id = keys.ai_job_id(match_id, loaded.version, 1)
    assert lost.store.ai_turns.marker(match_id) == (loaded.version, [1])  # the outbox, on the events Redis
    assert not queue_redis_client.exists(Job.key_for(job_id))  # the enqueue was lost

    worker = two_role_worker()  # its upkeep reads the outbox on the events Redis, enqueues on the queue's
    wait_until(lambda: lost.store.version(match_id) > loaded.version, 60, "the AI's move")
    entries = _entries(lost, match_id)
    assert entries[loaded.version]["seat"] == 1 and entries[loaded.version]["actor"] == "ai:greedy"
    job = wait_until(
        lambda: (
            (j := Job.fetch(job_id, connection=queue_redis_client, serializer=JSONSerializer)).get_status()
            == JobStatus.FINISHED
            and j
        ),
        30,
        "the job's end",
    )
    assert job.return_value()["status"] == "applied"
    assert not redis_client.exists(Job.key_for(job_id))
    _assert_roles_kept_apart(redis_client, queue_redis_client, match_id)
    assert worker.poll() is None


@pytest.mark.timeout(300)
def test_serve_with_the_embedded_events_redis_and_a_queue_redis_plays_an_ai_match(
    tmp_path, queue_redis_server, queue_redis_client
):
    # The events: serve's embedded Redis; the queue: another server.
    with Served(
        tmp_path, workers=1, ai_workers=1, env={"GAMEROOM_QUEUE_REDIS_URL": queue_redis_server.url}
    ) as server:
        base = server.base
        seats = [{"name": "G", "ai": "greedy"}, {"name": "R", "ai": "random"}]
        match_id = http_json("POST", base + "/api/matches", {"game": "nim", "seats": seats})[1]["match"]["id"]
        wait_until(
            lambda: http_json("GET", f"{base}/api/matches/{match_id}")[1]["status"] == "finished",
            120,
            "the end",
        )
        events_url = re.search(r"Redis: (\S+);", server.log()).group(1)
        assert events_url != queue_redis_server.url
        events = redis.Redis.from_url(events_url)
        try:
            _assert_roles_kept_apart(events, queue_redis_client, match_id)
        finally:
            events.close()


def test_a_clock_timeout_scheduled_on_the_queue_redis_is_enforced_on_the_events_redis(
    two_role_matches, redis_client, queue_redis_client, two_role_worker
):
    matches = two_role_matches
    settings = {
        "clock": {"per_move": 2, "bank": None, "increment": 0},
        "timeout": {"action": "ai-turn", "level": "greedy"},
    }
    loaded, _tokens = matches.create(
        "nim", [{"name": "Ana"}, {"name": "Bo"}], {"piles": [1]}, settings=settings
    )
    match_id = loaded.record.id
    silent = matches.game(loaded.record).active_seats(loaded.folded.state)[0]
    timeout_job = Job.key_for(keys.timeout_job_id(match_id, loaded.version, silent))
    assert queue_redis_client.exists(timeout_job) and not redis_client.exists(timeout_job)
    worker = two_role_worker()  # its RQ scheduler (on the queue Redis) fires the timeout at the deadline
    wait_until(lambda: _finished(matches, match_id), 60, "the timeout and the AI's move")
    entries = _entries(matches, match_id)
    assert [(e["kind"], e.get("action"), e.get("seat")) for e in entries] == [
        ("setup", None, None),
        ("lifecycle", "timeout", silent),
        ("move", None, silent),
    ]
    assert entries[1]["time"] >= entries[0]["time"] + 2.0
    _assert_roles_kept_apart(redis_client, queue_redis_client, match_id)
    assert worker.poll() is None


def test_worker_help_explains_both_redis_roles():
    from click.testing import CliRunner

    from gameroom.cli import main

    result = CliRunner().invoke(main, ["worker", "--help"], terminal_width=200)
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    for expected in (
        "--url",
        "GAMEROOM_REDIS_URL",
        "--queue-url",
        "GAMEROOM_QUEUE_REDIS_URL",
        "events Redis",
    ):
        assert expected in text, text
