"""Every installed game, played to the end through HTTP only (legal-moves, then moves).

Each response is checked against openapi.yaml by the ``api`` fixture; every
view a seat or spectator gets over HTTP is exactly the game's ``view`` for that
caller, and every history entry is the game's ``redact`` for that caller.
"""

import random
import threading

import pytest

from gameroom.registry import build_registry

#: Options that keep long games short enough for HTTP tests (the rules are unchanged).
SHORT = {"stars-are-right": {"turn_limit": 2}}


def _seats(game, n):
    return [{"name": f"P{i}"} for i in range(n)]


@pytest.mark.parametrize("slug", [g.slug for g in build_registry()])
def test_complete_match_over_http_only(api, matches, slug):
    game = matches.registry.get(slug)
    n = max(2, game.info.min_players)
    match_id, tokens = api.create(slug, _seats(game, n), options=SHORT.get(slug, {}), seed=f"http-{slug}")
    rnd = random.Random(slug)
    for _ in range(game.max_steps_for(n, game.load_options(SHORT.get(slug, {})))):
        summary = api.get(f"/api/matches/{match_id}").get_json()
        if summary["status"] == "finished":
            break
        seat = rnd.choice(summary["active_seats"])
        moves = api.legal(match_id, tokens[seat])
        r = api.move(match_id, tokens[seat], rnd.choice(moves), expected_version=summary["version"])
        assert r.status_code == 201, r.get_json()
        if r.get_json()["version"] % 7 == 0:
            _http_equals_core(api, matches, match_id, tokens)
    else:
        raise AssertionError("the match did not end within max_steps")
    assert summary["outcome"]["winners"] is not None
    _http_equals_core(api, matches, match_id, tokens)


def _http_equals_core(api, matches, match_id, tokens):
    loaded = matches.load(match_id)
    game = matches.game(loaded.record)
    entries = matches.store.read(match_id)
    for seat in [None, *tokens]:
        token = tokens.get(seat) if seat is not None else None
        state = api.state(match_id, token)
        own = matches.with_draft(loaded, seat).seen  # a seat sees its own sealed steps too
        assert state["view"] == game.view(own.state, seat)
        page = api.get(f"/api/matches/{match_id}/events?limit=500", token=token).get_json()["entries"]
        assert page == matches.redact(loaded, entries[:500], seat)


def test_simultaneous_placements_from_several_seats_concurrently(app, api, matches):
    """Look at the Stars: every seat places at once, each with the version it saw; none is lost or refused."""
    slug = "look-at-the-stars"
    if slug not in matches.registry:
        pytest.skip("Look at the Stars is not installed")
    n = 5
    match_id, tokens = api.create(slug, _seats(None, n), seed="concurrent")
    rnd = random.Random(5)
    rounds = 0
    while api.get(f"/api/matches/{match_id}").get_json()["status"] != "finished" and rounds < 4:
        rounds += 1
        seen = api.state(match_id)["version"]
        # Each seat plays its whole turn (place, powers, confirm) in its own thread, all at once.
        results, errors = {}, []

        def play_turn(seat):
            client = app.test_client()
            headers = {"Authorization": f"Bearer {tokens[seat]}"}
            version = seen
            while True:
                moves = client.get(f"/api/matches/{match_id}/legal-moves", headers=headers).get_json()[
                    "moves"
                ]
                if not moves:
                    return
                move = (
                    next((m for m in moves if m["type"] == "confirm_turn"), None)
                    if len(results.get(seat, [])) > 2
                    else None
                )
                move = move or rnd.choice(moves)
                r = client.post(
                    f"/api/matches/{match_id}/moves",
                    json={"move": move, "expected_version": version},
                    headers=headers,
                )
                if r.status_code != 201:
                    errors.append((seat, move, r.status_code, r.get_json()))
                    return
                version = r.get_json()["version"]
                results.setdefault(seat, []).append(move)
                if move["type"] == "confirm_turn":
                    return

        threads = [threading.Thread(target=play_turn, args=(s,)) for s in range(n)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert errors == [], errors
        assert sorted(results) == list(range(n))
        entries = matches.store.read(match_id, seen)
        by_seat, entries_of = {}, {}
        for e in entries:
            # a seat's sealed steps reach the log with its confirm, in that one entry
            sealed = [step["move"] for step in e.get("sealed") or ()]
            by_seat.setdefault(e["seat"], []).extend(sealed + [e["move"]])
            entries_of[e["seat"]] = entries_of.get(e["seat"], 0) + 1
        for seat, moves in results.items():
            assert by_seat[seat] == moves, "a seat's accepted moves must all be in the log, in order, once"
            assert entries_of[seat] == 1, "one entry per seat and turn: the log does not count its steps"
