"""The undo policy on every installed game, against an oracle read from the raw log.

Random matches are played through the application layer on the real Redis;
now and then a random seat asks to undo 1 or 2 of its steps. The oracle,
computed independently from the stored entries (who acted, which entries drew
randomness or revealed something, which were undone, which confirmed their
seat's steps) and from the game's own declarations (``independent_steps`` on
the state each step was decided in, ``confirms`` on its events), says what
must happen:

- the steps are the caller's own most recent, no one acted since, no barrier
  in between: applied at once (201);
- other seats acted since, but every step in between (the caller's and the
  others') was independent: a *selective* undo, applied at once (201), which
  cancels only the caller's steps and keeps the others';
- other seats acted since otherwise, but no barrier: a request (202), which is
  then approved by everyone, refused, or withdrawn by a new move;
- a barrier (a draw, a shuffle, a reveal) lies in the way: refused (409);
- the setup (the caller has not that many steps) or a lifecycle entry lies in the
  way: ``short`` (409, ``bad-undo-steps``);
- the caller's steps include one that confirmed them: refused (409,
  ``undo-crosses-confirm``), as is a request that would cancel another seat's
  confirmed step.

Where the game seals a seat's steps (``sealed_steps``: Look at the Stars), they
wait in the seat's draft, out of the log, until it confirms: undoing up to as
many steps as the draft holds drops them (201, nothing appended: ``drafted``),
more is refused; once the seat's last entry confirmed (it carries the sealed
steps before it), any undo of its steps is ``undo-crosses-confirm``.

After every applied undo the state equals the game's own fold of every entry
still in effect (from the setup, from scratch), and folding the whole stream
from scratch equals the live state at every version.
"""

import random
from collections import Counter

import pytest

from gameroom.application import History, has_drafts
from gameroom.core import decider
from gameroom.errors import Conflict
from gameroom.registry import build_registry

SHORT = {"stars-are-right": {"turn_limit": 3}}
GAMES = [g.slug for g in build_registry()]


def effective_entries(entries):
    undone = set()
    for e in entries:
        if e["kind"] == "undo":
            undone.update(e["undoes"])
    return [e for e in entries if e["kind"] != "undo" and e["version"] not in undone]


def confirms(game, e):
    return any(game.confirms(ev) for ev in e["events"])


def oracle(game, entries, states, seat, steps, draft=None):
    """What undoing ``steps`` of ``seat``'s steps must do, and the versions it cancels,
    from the raw entries alone (``states[v]``: the state at version ``v``) and, for a
    game with sealed steps, the length of the seat's ``draft``."""
    effective = effective_entries(entries)
    if draft:
        if steps <= draft:
            return "drafted", ()
        base = [e for e in effective if e["kind"] == "setup" or e.get("drew") or e.get("reveal")][-1]
        return ("short" if base["kind"] == "setup" else "refused"), ()
    if draft is not None:  # sealed steps: its last entry since the barrier holds them all
        for e in reversed(effective):
            if e["kind"] != "move" or e.get("drew") or e.get("reveal"):
                break
            if e["seat"] == seat:
                if confirms(game, e):
                    return "confirmed", ()
                break
    if not any(e["kind"] == "move" and e["seat"] == seat for e in effective):
        return "nothing", ()
    mine, span = 0, []
    for e in reversed(effective):  # span: the entries from the caller's first undone step on
        if e["kind"] in ("setup", "lifecycle"):
            return "short", ()  # the caller has no more steps, or not since a seat changed hands
        if e["kind"] != "move" or e.get("drew") or e.get("reveal"):
            return "refused", ()  # a draw or a reveal
        span.append(e)
        if e["seat"] == seat:
            mine += 1
            if mine == steps:
                break
    else:
        return "refused", ()
    span.reverse()
    if any(confirms(game, e) for e in span if e["seat"] == seat):
        return "confirmed", ()
    if all(e["seat"] == seat for e in span):
        return "applied", tuple(e["version"] for e in span)
    if all(game.independent_steps(states[e["version"] - 1], e["seat"]) for e in span):
        return "selective", tuple(e["version"] for e in span if e["seat"] == seat)
    if any(confirms(game, e) for e in span):
        return "confirmed", ()
    return "request", tuple(e["version"] for e in span)


def refold(game, entries, cancelled=()):
    """The game's own fold of every entry still in effect, from scratch."""
    state = None
    for e in effective_entries(entries):
        if e["version"] not in cancelled:
            for event in decider.sealed_events(e) + e["events"]:
                state = game.evolve(state, event)
    return state


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
                before = plain_matches.store.read(match_id)
                for voter in request["votes"]:
                    request, entry = history.vote(match_id, request["id"], int(voter), approve)
                    if not approve:
                        break
                pending = None
                seen["request-" + request["status"]] += 1
                if request["status"] == "approved":
                    assert plain_matches.load(match_id).folded.state == refold(
                        game, before, request["undoes"]
                    )
                live[plain_matches.load(match_id).version] = plain_matches.load(match_id).folded.state
                continue
            if rnd.random() < 0.25:
                seat, steps = rnd.randrange(n), rnd.choice([1, 1, 2])
                before = plain_matches.store.read(match_id)
                mine = plain_matches.with_draft(plain_matches.load(match_id), seat)
                draft = len(mine.draft) if has_drafts(game) else None
                expected, cancels = oracle(game, before, live, seat, steps, draft)
                try:
                    kind, result = history.undo(match_id, seat, steps)
                except Conflict as exc:
                    got = {
                        "undo-crosses-reveal": "refused",
                        "nothing-to-undo": "nothing",
                        "bad-undo-steps": "short",
                        "undo-crosses-confirm": "confirmed",
                    }[exc.code]
                    assert got == expected, (slug, seat, steps, exc.code)
                    assert plain_matches.store.version(match_id) == len(before)  # a refusal changes nothing
                    seen[got] += 1
                    continue
                if kind == "applied" and result is None:  # a draft's steps: nothing appended
                    assert expected == "drafted", (slug, seat, steps, expected)
                    assert plain_matches.store.version(match_id) == len(before)
                    now = plain_matches.with_draft(plain_matches.load(match_id), seat)
                    assert now.draft == mine.draft[:-steps]
                    assert now.seen.state == decider.with_steps(game, mine.folded, now.draft).state
                    seen[expected] += 1
                elif kind == "applied":
                    assert expected in ("applied", "selective"), (slug, seat, steps, expected)
                    assert tuple(result["undoes"]) == cancels
                    assert ("keeps" in result) == (expected == "selective")
                    assert plain_matches.load(match_id).folded.state == refold(game, before, cancels)
                    if pending:  # an applied undo is a new entry: it withdraws an open request
                        assert history.request(match_id, pending["id"])["status"] == "withdrawn"
                        seen["request-withdrawn"] += 1
                        pending = None
                    seen[expected] += 1
                else:
                    assert expected == "request"
                    assert tuple(result["undoes"]) == cancels
                    pending = result
                    seen[kind] += 1
                live[plain_matches.load(match_id).version] = plain_matches.load(match_id).folded.state
                continue
            seat = rnd.choice(active)
            own = plain_matches.with_draft(loaded, seat).seen.state  # with its draft, if any
            result = plain_matches.submit(match_id, seat, rnd.choice(game.legal_moves(own, seat)))
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
    if game.info.hidden_information:
        assert seen["refused"] > 0, seen  # draws and reveals are barriers
    if has_drafts(game):
        # Look at the Stars: R2.3, each seat undoes its own (sealed) steps until it confirms
        assert seen["drafted"] > 0 and seen["confirmed"] > 0 and seen["requested"] == 0, seen
    elif game.overrides("independent_steps"):
        assert seen["applied"] > 0 and seen["selective"] > 0 and seen["confirmed"] > 0, seen
    else:
        assert seen["applied"] > 0 and seen["selective"] == 0, seen  # the consent flow
