"""A fork's deal entry in the pure core: folded as a barrier, re-derived on import, refused when forged."""

import random

import pytest

from gameroom.application.logcheck import TamperedLog, verified_log
from gameroom.core import decider
from gameroom.testing.conformance import play_random_match

SAR = "stars-are-right"
OPTIONS = {"turn_limit": 4}


@pytest.fixture
def sar(registry):
    return registry.get(SAR)


def _fork_log(game, original: list, version: int, seed: str, *, deal: bool = True) -> list:
    """A fork's log as the server writes it: ``original``'s first ``version`` entries, its deal
    (unless ``deal`` is false, as forks were written before deals), then random moves to the end."""
    entries = [dict(e) for e in original[:version]]
    folded = decider.fold(game, entries)
    dealt = decider.deal_entry(game, folded, seed)
    if deal and dealt is not None:
        entries.append({**dealt, "version": version + 1})
        folded = decider.apply_entry(game, folded, entries[-1])
    rnd = random.Random(seed)
    while game.outcome(folded.state) is None:
        [seat] = game.active_seats(folded.state)
        move = rnd.choice(game.legal_moves(folded.state, seat))
        entry = decider.decide(game, folded, seat, move, seed)
        entries.append({**entry, "version": folded.version + 1})
        folded = decider.apply_entry(game, folded, entries[-1])
    return entries


def _original(game):
    _, entries = play_random_match(game, 2, "original", thorough=False, options=OPTIONS)
    return entries


def test_a_deal_is_a_barrier_that_no_undo_crosses(sar):
    entries = _original(sar)
    folded = decider.fold(sar, entries[:9])
    deal = decider.deal_entry(sar, folded, "fork-seed")
    assert (
        deal["kind"] == "deal" and deal["seat"] is None and deal["drew"] is True and deal["reveal"] is False
    )
    after = decider.apply_entry(sar, folded, {**deal, "version": 10})
    assert after.checkpoints == [(10, None, decider.BASE)] and decider.barrier(after) == 10
    assert after.movers == folded.movers  # the platform's entry: no seat moved
    assert decider.deal_entry(sar, decider.fold(sar, entries), "fork-seed") is None  # over: nothing to deal


def test_a_forks_log_re_verifies_with_its_deal_and_without_one(sar):
    """Forks made before deals existed have none after the copied history: still logs the server wrote."""
    original = _original(sar)
    opts = sar.load_options(OPTIONS)
    schedule = [[1, "original"], [13, "fork-seed"]]
    with_deal = _fork_log(sar, original, 12, "fork-seed")
    assert with_deal[12]["kind"] == "deal"
    folded, log = verified_log(sar, with_deal, 2, opts, schedule)
    assert log[12]["kind"] == "deal" and log[12]["events"] == with_deal[12]["events"]
    assert sar.outcome(folded.state) is not None
    old = _fork_log(sar, original, 12, "fork-seed", deal=False)
    assert all(e["kind"] != "deal" for e in old)
    verified_log(sar, old, 2, opts, schedule)


@pytest.mark.parametrize(
    "forge, why",
    [
        (lambda e: e | {"seat": 0}, "seat"),
        (lambda e: e | {"drew": False}, "drew"),
        (lambda e: e | {"events": [{**e["events"][0], "order": e["events"][0]["order"][::-1]}]}, "not what"),
        (lambda e: e | {"events": []}, "not what"),
        (lambda e: e | {"move": {"type": "end_turn"}}, "never writes"),
    ],
)
def test_a_forged_deal_is_refused_at_its_version(sar, forge, why):
    original = _original(sar)
    entries = _fork_log(sar, original, 12, "fork-seed")
    entries[12] = forge(entries[12])
    with pytest.raises(TamperedLog, match=why) as refused:
        verified_log(sar, entries, 2, sar.load_options(OPTIONS), [[1, "original"], [13, "fork-seed"]])
    assert refused.value.extra["version"] == 13


def test_a_deal_where_no_fork_began_is_refused(sar):
    """Only where the seed changes (a fork's first own entry) may the log hold a deal: anywhere
    else it would let a log re-deal the cards at will."""
    original = _original(sar)
    entries = _fork_log(sar, original, 12, "original")
    with pytest.raises(TamperedLog, match="where its seed changes") as refused:
        verified_log(sar, entries, 2, sar.load_options(OPTIONS), "original")
    assert refused.value.extra["version"] == 13
