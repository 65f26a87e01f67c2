"""Seeds no player can exploit: a client's seed, a learned seed or a fork never reveal draws.

Over HTTP on the real Redis. The ``default_app`` runs with the settings every
server gets (no seed setting at all); ``reproducible_app`` with the explicit
GAMEROOM_REPRODUCIBLE_SEEDS setting.
"""

import threading

import pytest

from gameroom import create_app
from gameroom.application.logcheck import TamperedLog, verify_log
from gameroom.config import Config
from gameroom.core import decider
from gameroom.core.rng import Seeding
from gameroom.eventstore.seed_secret import load_or_create
from gameroom.registry import build_registry
from gameroom.testing import dice

TSE = "tiny-stellar-empires"


@pytest.fixture(scope="module")
def games():
    return build_registry(extra_plugins=[("dice", dice)])


def _app(redis_server, games, **settings):
    app = create_app({"redis_url": redis_server.url, "ai_mode": "off", **settings}, games)
    app.config["TESTING"] = True
    return app


@pytest.fixture
def default_app(fast_paths, redis_server, redis_client, games):
    return _app(redis_server, games)


@pytest.fixture
def default_client(default_app):
    return default_app.test_client()


def _create(client, game, seats, seed):
    # A long dice race (about 30 rolls) so that no test's claim rests on a few dice agreeing by chance.
    options = {"goal": 60} if game == "dice-race" else {}
    r = client.post(
        "/api/matches",
        json={
            "game": game,
            "seats": [{"name": f"P{i}"} for i in range(seats)],
            "seed": seed,
            "options": options,
        },
    )
    assert r.status_code == 201, r.get_json()
    body = r.get_json()
    return body["match"]["id"], {int(k): v for k, v in body["tokens"].items()}


def _hand(client, match_id, token):
    r = client.get(f"/api/matches/{match_id}/state", headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == 200
    view = r.get_json()["view"]
    return view["hand"], view["homeworld"]


def _computed_hand(games, seed, seats=2, seat=0):
    """What a client who knows ``seed`` computes for ``seat`` with the published code."""
    game = games.get(TSE)
    setup = decider.setup_entry(game, seats, game.load_options({}), seed)
    view = game.view(decider.fold(game, [setup | {"version": 1}]).state, seat)
    return view["hand"], view["homeworld"]


def test_client_seed_on_a_default_server_does_not_deal_what_the_client_computes(default_client, games):
    m, tokens = _create(default_client, TSE, 2, "i-know-this-seed")
    assert _hand(default_client, m, tokens[0]) != _computed_hand(games, "i-know-this-seed")
    assert _hand(default_client, m, tokens[1]) != _computed_hand(games, "i-know-this-seed", seat=1)


def test_twin_match_with_the_same_client_seed_deals_differently(default_client):
    first, t1 = _create(default_client, TSE, 2, "twin")
    second, t2 = _create(default_client, TSE, 2, "twin")
    assert _hand(default_client, first, t1[1]) != _hand(default_client, second, t2[1])


def test_reproducible_seeds_are_off_unless_explicitly_set():
    assert Config().reproducible_seeds is False
    assert Config.from_env({}).reproducible_seeds is False
    assert Config.from_env({"GAMEROOM_REPRODUCIBLE_SEEDS": "1"}).reproducible_seeds is True
    assert Config.from_env({"GAMEROOM_REPRODUCIBLE_SEEDS": "0"}).reproducible_seeds is False
    with pytest.raises(ValueError, match="yes/no"):
        Config.from_env({"GAMEROOM_REPRODUCIBLE_SEEDS": "maybe"})


def test_reproducible_server_deals_what_the_seed_computes(redis_server, redis_client, games):
    client = _app(redis_server, games, reproducible_seeds=True).test_client()
    m, tokens = _create(client, TSE, 2, "tournament-7")
    assert _hand(client, m, tokens[0]) == _computed_hand(games, "tournament-7")


def test_concurrent_first_starts_agree_on_one_seed_secret_kept_in_redis(redis_server, redis_client):
    barrier, found = threading.Barrier(8), []

    def start():
        client = redis_server.client()
        barrier.wait()
        found.append(load_or_create(client))
        client.close()

    threads = [threading.Thread(target=start) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(found)) == 1 and len(found[0]) == 64
    assert load_or_create(redis_client) == found[0]  # a later start reads it back


def test_two_servers_on_one_redis_share_the_secret_and_a_configured_secret_replaces_it(
    redis_server, redis_client, games
):
    one = _app(redis_server, games).extensions["gameroom"].seeding
    two = _app(redis_server, games).extensions["gameroom"].seeding
    assert one == two and not one.is_reproducible
    configured = _app(redis_server, games, seed_secret="s" * 32).extensions["gameroom"].seeding
    assert configured.secret == b"s" * 32
    with pytest.raises(ValueError, match="at least 16"):
        _app(redis_server, games, seed_secret="short")


def _finish(client, match_id, tokens):
    while True:
        state = client.get(f"/api/matches/{match_id}/state").get_json()
        if state["status"] == "finished":
            return
        [seat] = state["active_seats"]
        r = client.post(
            f"/api/matches/{match_id}/moves",
            json={"move": {"type": "roll"}},
            headers={"Authorization": f"Bearer {tokens[seat]}"},
        )
        assert r.status_code == 201, r.get_json()


def test_finished_match_export_reveals_the_effective_seed_and_re_verifies(default_client, games):
    m, tokens = _create(default_client, "dice-race", 2, "client-seed")
    running = default_client.get(f"/api/matches/{m}/export").get_json()
    assert "seed" not in running
    _finish(default_client, m, tokens)
    doc = default_client.get(f"/api/matches/{m}/export").get_json()
    assert doc["seed"] != "client-seed" and "reseeds" not in doc
    verify_log(games.get("dice-race"), doc["entries"], 2, doc["options"], doc["seed"])
    with pytest.raises(TamperedLog):  # the client's own seed does not explain the draws
        verify_log(games.get("dice-race"), doc["entries"], 2, doc["options"], "client-seed")
    r = default_client.post("/api/matches/import", json=doc)
    assert r.status_code == 201, r.get_json()


def test_fork_draws_fresh_randomness_that_the_originals_export_does_not_reveal(default_client, games):
    m, tokens = _create(default_client, "dice-race", 2, None)
    _finish(default_client, m, tokens)
    original = default_client.get(f"/api/matches/{m}/export").get_json()
    r = default_client.post(f"/api/matches/{m}/fork", json={"version": 3})
    assert r.status_code == 201, r.get_json()
    fork = r.get_json()["match"]["id"]
    _finish(default_client, fork, {int(k): v for k, v in r.get_json()["tokens"].items()})
    doc = default_client.get(f"/api/matches/{fork}/export").get_json()
    assert doc["seed"] == original["seed"]  # the shared prefix was decided under the original's seed
    [reseed] = doc["reseeds"]
    assert reseed["version"] == 4 and reseed["seed"] != original["seed"]
    game = games.get("dice-race")
    with pytest.raises(TamperedLog):  # the fork's rolls do not follow from the original's (public) seed
        verify_log(game, doc["entries"], 2, doc["options"], original["seed"])
    verify_log(game, doc["entries"], 2, doc["options"], [[1, doc["seed"]], [4, reseed["seed"]]])
    r = default_client.post("/api/matches/import", json=doc)
    assert r.status_code == 201, r.get_json()
    forged = {**doc, "reseeds": [{"version": 4, "seed": original["seed"]}]}
    r = default_client.post("/api/matches/import", json=forged)
    assert r.status_code == 422 and r.get_json()["code"] == "tampered-log"


def test_fork_of_a_running_match_is_refused(default_client):
    m, _ = _create(default_client, "dice-race", 2, None)
    r = default_client.post(f"/api/matches/{m}/fork", json={"version": 1})
    assert r.status_code == 409 and r.get_json()["code"] == "match-not-finished"


def test_ai_randomness_is_keyed_by_the_server_secret_unless_reproducible():
    one, two = Seeding.with_secret("a" * 32), Seeding.with_secret("b" * 32)
    assert one.ai_seed("job-1") != two.ai_seed("job-1") != "job-1"
    assert one.ai_seed("job-1") == one.ai_seed("job-1")  # a retried job thinks alike
    assert Seeding.reproducible().ai_seed("job-1") == "job-1"


def test_fork_seed_is_fresh_on_a_default_server_and_derived_only_when_reproducible():
    secret = Seeding.with_secret("c" * 32)
    assert secret.fork_seed("parent", 3) != secret.fork_seed("parent", 3)
    assert "parent" not in {secret.fork_seed("parent", 3), secret.match_seed("m1", "parent")}
    assert (
        Seeding.reproducible().fork_seed("parent", 3)
        == Seeding.reproducible().fork_seed("parent", 3)
        != "parent"
    )
