"""A fork deals anew what no seat could see at the fork, over HTTP on the real Redis.

The original is finished, so its export (public) shows every event and the seed: without
the fork's ``deal`` entry anyone could read the fork's coming draws from it. These tests
replay the QA's attack: a client builds a finished log with a seed of its own choosing,
imports it (201) and forks it with two human seats. Then the fork's hidden pile is a new
permutation of the original's, which no seat nor spectator sees while the fork runs (state,
history, stream); the fork's export re-imports, a tampered deal is refused; the summary
says what the match was forked from.
"""

import json
import random

import pytest

from gameroom import create_app
from gameroom.core import decider
from gameroom.testing.conformance import play_random_match

from .conftest import problem

SAR, TSE, LATS = "stars-are-right", "tiny-stellar-empires", "look-at-the-stars"

#: Options that keep each original short enough to build, import and fork in a test.
OPTIONS = {SAR: {"turn_limit": 4}, TSE: {}, LATS: {}}

#: The cards no seat can see, in pile order: a draw pile (SAR), the deck without the cards
#: a seat put under it with Look (TSE), the unrevealed night cards with the removed ones (LATS).
PILES = {
    SAR: lambda s: list(s["deck"]),
    TSE: lambda s: [c for c in s["deck"] if c not in {card for card, _ in s["bottom"]}],
    LATS: lambda s: list(s["deck"][s["turn"] :]),
}

#: A pile this long is never dealt in the same order again by chance (1 in 12! at most).
LONG_PILE = 12


def _imported_original(api, registry, slug: str, seed: str) -> tuple[str, dict, list]:
    """The QA's attack, step one: a finished log built by the client with the seed it likes,
    imported. Returns the import's id, its export and the game's states after each version."""
    game = registry.get(slug)
    options = game.load_options(OPTIONS[slug])
    folded, entries = play_random_match(game, 2, seed, thorough=False, options=options)
    doc = {
        "format": "gameroom-match",
        "format_version": 1,
        "game": slug,
        "rules_version": game.info.rules_version,
        "complete": True,
        "seats": [{"name": "Ana", "ai": None}, {"name": "Bo", "ai": None}],
        "options": options,
        "created": 0,
        "version": len(entries),
        "outcome": game.outcome(folded.state),
        "seed": seed,
        "entries": entries,
    }
    r = api.post("/api/matches/import", doc)
    assert r.status_code == 201, r.get_json()
    match_id = r.get_json()["match"]["id"]
    export = api.get(f"/api/matches/{match_id}/export").get_json()
    states = [None]
    for i in range(1, len(export["entries"]) + 1):
        states.append(decider.fold(game, export["entries"][:i]).state)
    return match_id, export, states


def _fork_points(slug: str, states: list, count: int = 3) -> list[int]:
    """Versions spread over the match where the hidden pile is long and the match not over."""
    candidates = [
        v for v in range(1, len(states) - 1) if len(PILES[slug](states[v])) >= LONG_PILE and states[v + 1]
    ]
    step = max(1, len(candidates) // count)
    return candidates[::step][:count]


def _fork(api, match_id: str, version: int) -> tuple[str, dict]:
    r = api.post(
        f"/api/matches/{match_id}/fork",
        {"version": version, "seats": [{"name": "Cheater"}, {"name": "Victim"}]},
    )
    assert r.status_code == 201, r.get_json()
    body = r.get_json()
    return body["match"]["id"], {int(k): v for k, v in body["tokens"].items()}


def _lists(data):
    """Every list anywhere in ``data``."""
    if isinstance(data, dict):
        for value in data.values():
            yield from _lists(value)
    elif isinstance(data, list):
        yield data
        for value in data:
            yield from _lists(value)


def _shows_order(data, pile: list) -> bool:
    """Whether any list in ``data`` holds the first five cards of ``pile`` in their pile order."""
    head = pile[:5]
    return any(seen[i : i + 5] == head for seen in _lists(data) for i in range(len(seen)))


@pytest.mark.parametrize("slug", [SAR, TSE, LATS])
def test_a_fork_deals_what_no_seat_could_see_anew_and_shows_none_of_it(api, matches, registry, slug):
    original, export, states = _imported_original(api, registry, slug, f"chosen-by-the-client-{slug}")
    versions = _fork_points(slug, states)
    assert len(versions) == 3, versions
    for version in versions:
        predicted = PILES[slug](states[version])  # what the original's public export tells anyone
        fork, tokens = _fork(api, original, version)
        twin, _ = _fork(api, original, version)
        dealt = PILES[slug](matches.load(fork).folded.state)
        # (a) the same cards, in a new order that the export did not tell (nor a second fork's)
        assert sorted(dealt) == sorted(predicted) and dealt != predicted
        assert dealt[:5] != predicted[:5], "the next draw would have been predictable"
        assert PILES[slug](matches.load(twin).folded.state) != dealt
        # What the seats held at the fork stays: each seat's view is its view of the original there.
        summary = api.get(f"/api/matches/{fork}").get_json()
        assert summary["version"] == version + 1 and summary["status"] == "active"
        for seat in (0, 1):
            then = json.loads(json.dumps(registry.get(slug).view(states[version], seat)))
            assert api.state(fork, tokens[seat])["view"] == then
        # (c) the deal entry is the platform's (seat None), and nobody sees what it dealt
        for token in (tokens[0], tokens[1], None):
            seen = {
                "state": api.state(fork, token),
                "events": api.get(f"/api/matches/{fork}/events", token=token).get_json(),
                "export": api.get(f"/api/matches/{fork}/export", token=token).get_json(),
            }
            assert not _shows_order(seen, dealt)
            assert _shows_order(matches.store.entry(fork, version + 1), dealt)  # (the check sees it)
            [deal] = seen["events"]["entries"][version:]
            assert deal["kind"] == "deal" and deal["seat"] is None and deal["version"] == version + 1
            assert deal["text"] and "fork" in " ".join(deal["text"])
            assert seen["export"]["complete"] is False and "seed" not in seen["export"]
        # (e) everyone sees where the fork comes from; the original is no fork
        assert summary["forked_from"] == {"match": original, "version": version}
        listed = api.get(f"/api/matches?game={slug}&limit=200").get_json()["matches"]
        assert {"match": original, "version": version} in [m.get("forked_from") for m in listed]
    assert "forked_from" not in api.get(f"/api/matches/{original}").get_json()


@pytest.mark.parametrize("slug", [SAR, TSE, LATS])
def test_no_stream_shows_the_forks_deal(redis_server, registry, api, matches, slug):
    original, _, states = _imported_original(api, registry, slug, f"stream-{slug}")
    [version] = _fork_points(slug, states, count=1)
    fork, tokens = _fork(api, original, version)
    dealt = PILES[slug](matches.load(fork).folded.state)
    app = create_app({"redis_url": redis_server.url, "ai_mode": "off", "sse_max_age": 0.3}, registry)
    client = app.test_client()
    frames = {}
    for name, token in (("seat0", tokens[0]), ("seat1", tokens[1]), ("spectator", None)):
        path = f"/api/matches/{fork}/stream?after={version}" + (f"&token={token}" if token else "")
        body = client.get(path).get_data(as_text=True)
        frames[name] = [
            json.loads(line[len("data: ") :])
            for block in body.split("\n\n")
            if "event: entry" in block
            for line in block.splitlines()
            if line.startswith("data: ")
        ]
        history = api.get(f"/api/matches/{fork}/events?after={version}", token=token).get_json()["entries"]
        assert frames[name] == history and history[0]["kind"] == "deal", name
        assert not _shows_order(frames[name], dealt), name
    # Every viewer gets the same deal frame: nothing in it is any seat's.
    assert frames["seat0"] == frames["seat1"] == frames["spectator"]


def _play_to_the_end(api, match_id: str, tokens: dict, rnd: random.Random, limit: int = 3000) -> None:
    for _ in range(limit):
        summary = api.get(f"/api/matches/{match_id}").get_json()
        if summary["status"] == "finished":
            return
        seat = rnd.choice(summary["active_seats"])
        move = rnd.choice(api.legal(match_id, tokens[seat]))
        assert api.move(match_id, tokens[seat], move).status_code == 201
    raise AssertionError(f"match {match_id} did not end within {limit} moves")


@pytest.mark.parametrize("slug", [SAR, TSE, LATS])
def test_a_finished_forks_export_re_imports_and_a_tampered_deal_is_refused(api, matches, registry, slug):
    original, _, states = _imported_original(api, registry, slug, f"export-{slug}")
    [version] = _fork_points(slug, states, count=1)
    fork, tokens = _fork(api, original, version)
    dealt = PILES[slug](matches.load(fork).folded.state)
    _play_to_the_end(api, fork, tokens, random.Random(slug))
    doc = api.get(f"/api/matches/{fork}/export").get_json()
    assert doc["complete"] and [r["version"] for r in doc["reseeds"]] == [version + 1]
    deal = doc["entries"][version]
    assert deal["kind"] == "deal" and deal["drew"] is True and deal["reveal"] is False
    assert _shows_order(deal, dealt)  # over: the deal is public now
    r = api.post("/api/matches/import", doc)
    assert r.status_code == 201, r.get_json()
    assert api.state(r.get_json()["match"]["id"])["view"] == api.state(fork)["view"]
    # Another order than the fork's seed deals: refused at the deal.
    tampered = json.loads(json.dumps(doc))
    event = tampered["entries"][version]["events"][0]
    hidden = next(key for key in ("order", "deck", "unrevealed") if key in event)
    event[hidden][0], event[hidden][-1] = event[hidden][-1], event[hidden][0]
    assert problem(api.post("/api/matches/import", tampered), 422, "tampered-log")["version"] == version + 1
    # A deal where no fork began: refused there too.
    moved = json.loads(json.dumps(doc))
    moved["reseeds"] = [{"version": version + 2, "seed": doc["reseeds"][0]["seed"]}]
    assert problem(api.post("/api/matches/import", moved), 422, "tampered-log")["version"] == version + 1


def test_the_victims_next_draw_is_not_the_one_the_originals_export_predicts(api, matches, registry):
    """The QA's prediction, re-run: fold the original's export to the fork's version, read the
    draw pile there, play the fork to its first draw and compare."""
    original, _, states = _imported_original(api, registry, SAR, "prediction")
    rnd = random.Random(3)
    compared = []
    for version in _fork_points(SAR, states, count=3):
        predicted = PILES[SAR](states[version])
        fork, tokens = _fork(api, original, version)
        dealt = PILES[SAR](matches.load(fork).folded.state)
        drawn = None
        while drawn is None:
            [seat] = api.get(f"/api/matches/{fork}").get_json()["active_seats"]
            legal = api.legal(fork, tokens[seat])
            move = next((m for m in legal if m["type"] == "end_turn"), None) or rnd.choice(legal)
            r = api.move(fork, tokens[seat], move)
            assert r.status_code == 201, r.get_json()
            drawn = next((e["cards"] for e in r.get_json()["events"] if e["type"] == "drew"), None)
        assert drawn == dealt[: len(drawn)]  # the fork draws from its own deal ...
        compared.append((drawn, predicted[: len(drawn)]))
    assert len(compared) == 3 and any(d != p for d, p in compared)  # ... not from the original's order


def test_a_perfect_information_fork_gets_no_deal(api):
    match_id, tokens = api.create("nim", options={"piles": [2, 2]})
    while (summary := api.get(f"/api/matches/{match_id}").get_json())["status"] != "finished":
        [seat] = summary["active_seats"]
        assert api.move(match_id, tokens[seat], api.legal(match_id, tokens[seat])[0]).status_code == 201
    fork, _ = _fork(api, match_id, 2)
    entries = api.get(f"/api/matches/{fork}/events").get_json()["entries"]
    assert [e["kind"] for e in entries] == ["setup", "move"]
    assert api.get(f"/api/matches/{fork}").get_json()["forked_from"] == {"match": match_id, "version": 2}


def test_undo_never_crosses_a_forks_deal(api, registry, expect_problem):
    original, _, states = _imported_original(api, registry, SAR, "undo")
    # A turn's start after both seats moved (a seat that never moved has nothing to undo at all).
    version = next(
        v for v in range(2, len(states) - 1) if states[v]["phase"] == "invoke" and states[v]["turn"] >= 2
    )
    fork, tokens = _fork(api, original, version)
    [seat] = api.get(f"/api/matches/{fork}").get_json()["active_seats"]
    expect_problem(
        api.post(f"/api/matches/{fork}/undo", {"steps": 1}, token=tokens[seat]), 409, "undo-crosses-reveal"
    )
    assert api.move(fork, tokens[seat], {"type": "skip_invoke"}).status_code == 201
    r = api.post(f"/api/matches/{fork}/undo", {"steps": 1}, token=tokens[seat])
    assert r.status_code == 201 and r.get_json()["entry"]["target"] == version + 1
    expect_problem(
        api.post(f"/api/matches/{fork}/undo", {"steps": 1}, token=tokens[seat]), 409, "undo-crosses-reveal"
    )


class _Clock:
    def __init__(self, t):
        self.t = t

    def __call__(self):
        return self.t


def test_a_clocked_forks_deal_charges_no_seats_time(api, matches):
    """The deal comes before the fork's clocks start: the time since the original ended is
    nobody's, so each seat's bank is what it was at the fork's version."""
    matches.clock = clock = _Clock(5_000_000.0)
    match_id, tokens = api.create(
        SAR, options={"first_player": "seat_0", "turn_limit": 2}, clock={"bank": 60}
    )
    clock.t += 10
    assert api.move(match_id, tokens[0], {"type": "skip_invoke"}).status_code == 201
    clock.t += 1
    assert api.post(f"/api/matches/{match_id}/resign", token=tokens[1]).status_code == 201
    clock.t += 1000
    fork, _ = _fork(api, match_id, 2)
    summary = api.get(f"/api/matches/{fork}").get_json()
    entries = api.get(f"/api/matches/{fork}/events").get_json()["entries"]
    assert [e["kind"] for e in entries[2:]] == ["deal", "lifecycle"] and entries[3]["action"] == "start"
    [running] = [s for s in summary["clock"]["seats"] if s["running"]]
    assert running["seat"] == 0 and running["bank"] == 50.0 and running["deadline"] == clock.t + 50


def _resigned_nim(api, **clock):
    match_id, tokens = api.create("nim", options={"piles": [2, 2]}, **clock)
    [seat] = api.get(f"/api/matches/{match_id}").get_json()["active_seats"]
    assert api.move(match_id, tokens[seat], api.legal(match_id, tokens[seat])[0]).status_code == 201
    assert api.post(f"/api/matches/{match_id}/resign", token=tokens[seat]).status_code == 201
    return match_id, len(api.get(f"/api/matches/{match_id}/events").get_json()["entries"])


@pytest.mark.parametrize("clock", [{}, {"clock": {"bank": 60}}], ids=["no clock", "clock"])
def test_a_fork_of_a_finished_match_starts_no_clocks(api, clock):
    """Only a fork whose clocks can run gets a ``start`` entry: not one with no clock (a
    resignation or a leave in its history made the overlay), nor one that is over."""
    match_id, last = _resigned_nim(api, **clock)
    fork, _ = _fork(api, match_id, last)
    entries = api.get(f"/api/matches/{fork}/events").get_json()["entries"]
    assert len(entries) == last and entries[-1]["action"] == "resign"
    export = api.get(f"/api/matches/{fork}/export").get_json()
    assert api.post("/api/matches/import", export).status_code == 201


def test_a_fork_after_a_leave_gives_the_seat_back_to_the_forks_player(api):
    """The original's takeover does not carry over: the fork's ``start`` hands every seat to the
    fork's own players, with or without a clock."""
    match_id, tokens = api.create("nim", options={"piles": [2, 2]})
    r = api.post(f"/api/matches/{match_id}/leave", {}, token=tokens[0])
    assert r.status_code == 201, r.get_json()
    assert api.post(f"/api/matches/{match_id}/resign", token=tokens[1]).status_code == 201
    fork, _ = _fork(api, match_id, 2)
    entries = api.get(f"/api/matches/{fork}/events").get_json()["entries"]
    assert [e.get("action") for e in entries] == [None, "leave", "start"]
    assert not any(s["takeover"] for s in api.get(f"/api/matches/{fork}").get_json()["seat_control"])


def test_a_clocked_fork_before_the_end_starts_its_clocks(api):
    match_id, last = _resigned_nim(api, clock={"bank": 60})
    fork, _ = _fork(api, match_id, last - 1)
    entries = api.get(f"/api/matches/{fork}/events").get_json()["entries"]
    assert entries[-1]["kind"] == "lifecycle" and entries[-1]["action"] == "start"
