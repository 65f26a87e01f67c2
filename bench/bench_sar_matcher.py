"""Benchmark: The Stars Are Right constellation matcher, fast vs naive.

The hot path of rules and AI is "which cards of this hand are summonable on
this sky". This script times it for the bitmask matcher
(``gameroom.plugins.stars_are_right.matcher``: precomputed placements, one AND and
compare per placement, backtracking for disjoint groups) and, in the same run
on the same random skies, for the naive reference
(``gameroom.plugins.stars_are_right.naive``: rotate, anchor and compare cell by cell).
Machines are noisy, so only the printed ratio is meaningful.

Usage (from the repository root)::

    .venv/bin/python bench/bench_sar_matcher.py [--skies 200] [--mirror]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gameroom.plugins.stars_are_right.matcher import pack_sky, visible
from gameroom.plugins.stars_are_right.naive import naive_visible


def random_skies(count: int, seed: int = 1) -> list[tuple[list, list]]:
    rnd = random.Random(seed)
    skies = []
    for _ in range(count):
        sky = list(range(25))
        rnd.shuffle(sky)
        skies.append((sky, [rnd.randrange(2) for _ in range(25)]))
    return skies


def run(skies, cards, opts, fast: bool) -> tuple[float, int, int]:
    """Time ``len(skies) * len(cards)`` checks; returns (seconds, checks, visible)."""
    found = 0
    start = time.perf_counter()
    if fast:
        for sky, faces in skies:
            packed = pack_sky(sky, faces)  # counted: the caller packs once per sky
            for card in cards:
                found += visible(card, packed, opts)
    else:
        for sky, faces in skies:
            for card in cards:
                found += naive_visible(
                    card, sky, faces, opts["allow_mirror"], opts["dark_cells_may_overhang"]
                )
    return time.perf_counter() - start, len(skies) * len(cards), found


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skies", type=int, default=200)
    parser.add_argument("--mirror", action="store_true")
    args = parser.parse_args(argv)
    opts = {"allow_mirror": args.mirror, "dark_cells_may_overhang": False}
    skies = random_skies(args.skies)
    cards = list(range(1, 76))  # every card type: GOO, Greater, Lesser, Minion
    run(skies[:5], cards, opts, True)  # warm the placement caches
    fast_t, checks, fast_found = run(skies, cards, opts, True)
    naive_t, _, naive_found = run(skies, cards, opts, False)
    assert fast_found == naive_found, "the matchers disagree"
    fast_rate, naive_rate = checks / fast_t, checks / naive_t
    print(f"skies={len(skies)} cards={len(cards)} checks={checks} mirror={args.mirror} visible={fast_found}")
    print(f"fast  matcher: {fast_rate:12,.0f} checks/s")
    print(f"naive matcher: {naive_rate:12,.0f} checks/s")
    print(f"ratio fast/naive: {fast_rate / naive_rate:.1f}x")
    # Per hand: the AI asks for a whole hand at once (5 cards).
    hands = [random.Random(i).sample(cards, 5) for i in range(len(skies))]
    start = time.perf_counter()
    for (sky, faces), hand in zip(skies, hands):
        packed = pack_sky(sky, faces)
        [c for c in hand if visible(c, packed, opts)]
    per_hand = (time.perf_counter() - start) / len(skies)
    print(f"fast: {1 / per_hand:,.0f} five-card hands/s (pack + 5 checks)")


if __name__ == "__main__":
    main()
