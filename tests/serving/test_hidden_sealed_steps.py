"""LATS-H2 on every channel: no one learns how many sealed steps a seat took before the reveal.

Against a real ``gameroom serve`` (gunicorn, gevent, the stream hub) on the
real Redis. Seat A (0) takes one step; seat B (1) takes one step in one match
and five (with undos between) in another that is dealt the same. Until the
reveal, everything A and a spectator can read -- views with their ETags and
versions, legal moves, ``/events`` pages with their text, exports, the
match summary, the lobby, undo requests and live SSE frames (ids and data) --
is byte for byte the same in both (once the match id and clock times are set
aside), and within one match B's further steps and undos change none of it.
After the reveal B's drawings are public, as the rules say.
"""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request

import pytest

from gameroom.core import decider
from gameroom.core.rng import rng_for
from gameroom.registry import build_registry
from gameroom.testing.live_server import LiveServer, http

from .sse import RawStream, pump

SLUG = "look-at-the-stars"
OPTIONS = {"power_bonus_card": "new_stars"}
#: Reproducible deal in which seat 1 can take three sealed steps in turn 1 (see ``three_steps``).
SEED = "sealed-6"
CONFIRM = {"type": "confirm_turn"}
SKIP = {"type": "skip_card"}
GAME = build_registry().get(SLUG)


def three_steps(seat: int = 1) -> list[dict]:
    """Three sealed steps ``seat`` can take in turn 1 of the ``SEED`` deal: a card drawn so that
    the New Stars power fires, then its two stars (found with the pure core, as a player would)."""
    options = GAME.load_options(OPTIONS)
    state = decider.fold(GAME, [decider.setup_entry(GAME, 2, options, SEED) | {"version": 1}]).state

    def search(state, path):
        if len(path) == 3:
            return path
        for move in GAME.legal_moves(state, seat):
            if move in (CONFIRM, SKIP):
                continue
            after = state
            for event in GAME.decide(state, seat, move, rng_for(SEED, 2)):
                after = GAME.evolve(after, event)
            if not path and not after["players"][seat]["pending"]:
                continue
            found = search(after, path + [move])
            if found:
                return found
        return None

    found = search(state, [])
    assert found, "the seed no longer gives seat 1 a three-step turn"
    return found


@pytest.fixture(scope="module")
def reproducible(redis_server, tmp_path_factory):
    """Reproducible seeds (an explicit server setting), so that two matches are dealt alike."""
    env = {"GAMEROOM_REPRODUCIBLE_SEEDS": "1"}
    with LiveServer(redis_server.url, tmp_path_factory.mktemp("sealed-repro"), env=env) as live:
        yield live


@pytest.fixture(scope="module")
def shipped(redis_server, tmp_path_factory):
    """The defaults a user gets."""
    with LiveServer(redis_server.url, tmp_path_factory.mktemp("sealed-default")) as live:
        yield live


def raw(method: str, url: str, token: str | None = None, body=None) -> tuple[int, str | None, bytes]:
    """``(status, ETag, body bytes)`` of one request."""
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json"})
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, r.headers.get("ETag"), r.read()
    except urllib.error.HTTPError as err:
        return err.code, err.headers.get("ETag"), err.read()


class Match:
    def __init__(self, server, seed: str | None = SEED):
        self.server = server
        body = {"game": SLUG, "seats": [{"name": "Ana"}, {"name": "Bo"}], "options": OPTIONS}
        if seed is not None:
            body["seed"] = seed
        status, created = http("POST", server.base + "/api/matches", body)
        assert status == 201, created
        self.id = created["match"]["id"]
        self.tokens = {int(k): v for k, v in created["tokens"].items()}
        self.url = f"{server.base}/api/matches/{self.id}"

    def move(self, seat: int, move: dict, **extra):
        status, body = http("POST", self.url + "/moves", {"move": move, **extra}, token=self.tokens[seat])
        assert status == 201, body
        return body

    def undo(self, seat: int):
        status, body = http("POST", self.url + "/undo", {"steps": 1}, token=self.tokens[seat])
        assert status == 201 and body["status"] == "applied", body
        return body

    def state(self, seat: int | None):
        status, body = http("GET", self.url + "/state", token=self.tokens.get(seat))
        assert status == 200, body
        return body

    def stream(self, seat: int | None, after: int = 0) -> RawStream:
        query = f"?token={self.tokens[seat]}" if seat is not None else ""
        return RawStream(
            self.server.port, f"/api/matches/{self.id}/stream{query}", {"Last-Event-ID": str(after)}
        )

    def observe(self, seat: int | None) -> dict[str, bytes]:
        """Everything ``seat`` (None: a spectator) can read of the match now, as raw bytes."""
        token = self.tokens.get(seat)
        seen = {}
        for name, path in [
            ("state", "/state"),
            ("state+legal", "/state?include=legal_moves"),
            ("legal-moves", "/legal-moves"),
            ("events", "/events?after=0"),
            ("events-page", "/events?after=1&limit=5"),
            ("export", "/export"),
            ("undo-requests", "/undo-requests"),
        ]:
            status, etag, body = raw("GET", self.url + path, token)
            seen[name] = b"%d %s %s" % (status, (etag or "-").encode(), body)
        version = json.loads(raw("GET", self.url + "/state", token)[2])["version"]
        for past in range(1, version + 1):
            status, etag, body = raw("GET", f"{self.url}/state?version={past}", token)
            seen[f"state@{past}"] = b"%d %s %s" % (status, (etag or "-").encode(), body)
        seen["summary"] = raw("GET", self.url)[2]
        lobby = json.loads(raw("GET", f"{self.server.base}/api/matches?game={SLUG}&limit=100")[2])
        [listed] = [m for m in lobby["matches"] if m["id"] == self.id]
        seen["lobby"] = json.dumps(listed, sort_keys=True).encode()
        stream = self.stream(seat)
        try:
            assert pump([stream], lambda: stream.ids() == list(range(1, version + 1)), timeout=20)
            pump([stream], lambda: False, timeout=0.5)  # and nothing more
            seen["sse"] = stream.body
        finally:
            stream.close()
        return seen


def normalised(seen: dict[str, bytes], match_id: str) -> dict[str, bytes]:
    """``seen`` without what differs between two matches anyway: the id and clock times."""
    times = re.compile(rb'"(time|created)": ?[0-9.eE+-]+')
    return {k: times.sub(rb'"\1":0', v.replace(match_id.encode(), b"M")) for k, v in seen.items()}


def play(server, b_moves: list) -> dict:
    """A match in which A skips and B plays ``b_moves`` (a move, or ``"undo"``); what A and a
    spectator see before B confirms, after B confirms, on streams open all along, and after
    the reveal."""
    match = Match(server)
    live = {viewer: match.stream(viewer, after=1) for viewer in (0, None)}
    match.move(0, SKIP)
    for step in b_moves:
        if step == "undo":
            match.undo(1)
        else:
            assert match.move(1, step)["version"] == 1  # a sealed step: the log did not move
    b_state = match.state(1)
    out = {
        "b_view": b_state["view"],
        "b_sealed": b_state.get("sealed_steps"),
        "b_version": b_state["version"],
    }
    out["drafting"] = {v: normalised(match.observe(v), match.id) for v in (0, None)}
    match.move(1, CONFIRM)
    out["confirmed"] = {v: normalised(match.observe(v), match.id) for v in (0, None)}
    try:
        pump(list(live.values()), lambda: False, timeout=1.0)
        out["live"] = {v: normalised({"sse": s.body}, match.id)["sse"] for v, s in live.items()}
    finally:
        for s in live.values():
            s.close()
    match.move(0, CONFIRM)  # the last confirm: the turn's drawings and the next card are revealed
    out["revealed"] = {v: match.state(v) for v in (0, None)}
    return out


def test_H2_others_and_spectators_cannot_tell_one_sealed_step_from_five_until_the_reveal(reproducible):
    path = three_steps()
    short = play(reproducible, [SKIP])
    # five sealed steps, two undone on the way: B's draft holds three at its confirm
    long = play(reproducible, [path[0], path[1], "undo", path[1], "undo", path[1], path[2]])
    assert long["b_view"] != short["b_view"]  # B itself sees its own steps, and counts them
    assert (short["b_sealed"], long["b_sealed"], short["b_version"], long["b_version"]) == (1, 3, 1, 1)
    for phase in ("drafting", "confirmed"):
        for viewer in (0, None):
            one, five = short[phase][viewer], long[phase][viewer]
            assert one.keys() == five.keys()
            for channel in one:
                assert one[channel] == five[channel], (phase, viewer, channel)
    for viewer in (0, None):
        assert short["live"][viewer] == long["live"][viewer]
        # the streams opened after the setup saw exactly one entry before the reveal: B's confirm
        assert re.findall(rb"^id: (\d+)$", short["live"][viewer], re.M) == [b"2"]
    # After the reveal, B's drawings are public (H2): now they differ, as the rules say.
    for viewer in (0, None):
        one = short["revealed"][viewer]["view"]["sheets"][1]
        five = long["revealed"][viewer]["view"]["sheets"][1]
        assert one != five
        assert five["lines"] == long["b_view"]["sheets"][1]["lines"]


def test_H2_within_a_match_further_sealed_steps_and_undos_change_nothing_others_read(shipped):
    """On the shipped defaults (a fresh secret seed): B's later steps, undos and a retried
    request leave every byte A and a spectator can read as it was after B's first step."""
    match = Match(shipped, seed=None)
    live = {viewer: match.stream(viewer, after=1) for viewer in (0, None)}
    match.move(0, SKIP)
    match.move(1, SKIP)
    before = {v: match.observe(v) for v in (0, None)}
    b_etag = raw("GET", match.url + "/state", match.tokens[1])[1]
    match.undo(1)
    status, legal = http("GET", match.url + "/legal-moves", token=match.tokens[1])
    assert status == 200 and legal["version"] == 1
    # The turn's card is a constellation card or a shooting star (the secret seed decides): place it.
    place = next(m for m in legal["moves"] if m["type"] in ("place_card", "place_shooting_star"))
    placed = match.move(1, place)
    assert placed["state"]["view"] != match.state(0)["view"]["sheets"][1] and placed["version"] == 1
    assert raw("GET", match.url + "/state", match.tokens[1])[1] not in (b_etag, None)  # B's own ETag
    match.undo(1)
    retry = {"Idempotency-Key": "b-skip"}
    for duplicate in (False, True):  # a retried sealed step replays: it is not taken twice
        status, body = http(
            "POST", match.url + "/moves", {"move": SKIP}, token=match.tokens[1], headers=retry
        )
        assert status == 201 and body["duplicate"] is duplicate and body["version"] == 1, body
    assert raw("GET", match.url + "/state", match.tokens[1])[1] == b_etag  # one sealed step again
    after = {v: match.observe(v) for v in (0, None)}
    for viewer in (0, None):
        assert before[viewer].keys() == after[viewer].keys()
        for channel in before[viewer]:
            assert before[viewer][channel] == after[viewer][channel], (viewer, channel)
    pump(list(live.values()), lambda: False, timeout=1.0)
    for s in live.values():
        assert s.status == 200 and s.ids() == [] and b"event: entry" not in s.body
        s.close()
