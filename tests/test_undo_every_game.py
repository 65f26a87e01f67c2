"""The undo policy on every installed game, against an oracle read from the raw log.

Random matches are played through the application layer on the real Redis;
now and then a random seat asks to undo 1 or 2 of its steps. The oracle,
computed independently from the stored entries (who acted, which entries drew
randomness or revealed something, which were undone), says what must happen:

- the steps are the caller's own most recent, no one acted since, no barrier
  in between: applied at once (201);
- other seats acted since, but no barrier: a request (202), which is then
  approved by everyone, refused, or withdrawn by a new move;
- a barrier (a draw, a shuffle, a reveal) lies in the way: refused (409).

After every applied undo the state equals the state that was current at the
target version, and folding the whole stream from scratch equals the live state.
"""

import random
from collections import Counter

import pytest

from gameroom.core import decider
from gameroom.errors import Conflict
from gameroom.history import History
from gameroom.registry import build_registry

SHORT = {"stars-are-right": {"turn_limit": 3}}
GAMES = [g.slug for g in build_registry()]


def oracle(entries, seat, steps):
    """What undoing ``steps`` of ``seat``'s steps must do, from the raw entries alone."""
    undone = set()
    for e in entries:
        if e["kind"] == "undo":
            undone.update(e["undoes"])
    effective = [e for e in entries if e["kind"] != "undo" and e["version"] not in undone]
    if not any(e["kind"] == "move" and e["seat"] == seat for e in effective):
        return "nothing"
    mine, crossed = 0, set()
    for e in reversed(effective):
        if e["kind"] == "setup" or e.get("drew") or e.get("reveal"):
            return "refused"
        if e["seat"] == seat:
            mine += 1
            if mine == steps:
                return "request" if crossed else "applied"
        else:
            crossed.add(e["seat"])
    return "refused"


@pytest.mark.parametrize("slug", GAMES)
def test_undo_policy_on_every_game(plain_matches, slug):
    history = History(plain_matches)
    game = plain_matches.registry.get(slug)
    seen = Counter()
    for m in range(4):
        rnd = random.Random(f"{slug}-{m}")
        n = max(2, game.info.min_players) + (m % 2 if game.info.max_players > 2 else 0)
        loaded, _ = plain_matches.create(
            slug, [{"name": f"P{i}"} for i in range(n)], SHORT.get(slug), seed=f"u{m}"
        )
        match_id = loaded.record.id
        live = {1: loaded.folded.state}
        pending = None
        for _ in range(400):
            loaded = plain_matches.load(match_id)
            state = loaded.folded.state
            active = game.active_seats(state)
            if not active:
                break
            if pending and rnd.random() < 0.5:
                # Settle an open request: everyone approves, or one refuses.
                request, approve = pending, rnd.random() < 0.6
                for voter in request["votes"]:
                    request, entry = history.vote(match_id, request["id"], int(voter), approve)
                    if not approve:
                        break
                pending = None
                seen["request-" + request["status"]] += 1
                if request["status"] == "approved":
                    assert plain_matches.load(match_id).folded.state == live[request["target"]]
                live[plain_matches.load(match_id).version] = plain_matches.load(match_id).folded.state
                continue
            if rnd.random() < 0.25:
                seat, steps = rnd.randrange(n), rnd.choice([1, 1, 2])
                expected = oracle(plain_matches.store.read(match_id), seat, steps)
                try:
                    kind, result = history.undo(match_id, seat, steps)
                except Conflict as exc:
                    got = {"undo-crosses-reveal": "refused", "nothing-to-undo": "nothing"}[exc.code]
                    assert got == expected, (slug, seat, steps, exc.code)
                    seen[got] += 1
                    continue
                if kind == "applied":
                    assert expected == "applied"
                    assert plain_matches.load(match_id).folded.state == live[result["target"]]
                    if pending:  # an applied undo is a new entry: it withdraws an open request
                        assert history.request(match_id, pending["id"])["status"] == "withdrawn"
                        seen["request-withdrawn"] += 1
                        pending = None
                else:
                    assert expected == "request"
                    pending = result
                seen[kind] += 1
                live[plain_matches.load(match_id).version] = plain_matches.load(match_id).folded.state
                continue
            seat = rnd.choice(active)
            result = plain_matches.submit(match_id, seat, rnd.choice(game.legal_moves(state, seat)))
            if pending:
                assert history.request(match_id, pending["id"])["status"] == "withdrawn"
                seen["request-withdrawn"] += 1
                pending = None
            live[result.version] = result.loaded.folded.state
        # Folding the whole stream, undos included, equals the live state at every version.
        entries = plain_matches.store.read(match_id)
        for version in sorted(live):
            assert decider.fold(game, entries[:version]).state == live[version], version
    print(slug, dict(seen))
    assert seen["applied"] > 0, seen
    if game.info.hidden_information:
        assert seen["refused"] > 0, seen  # draws and reveals are barriers
