"""Record seeded random Look at the Stars matches as golden playthroughs.

Run from the repository root: ``.venv/bin/python tests/plugins/look_at_the_stars/make_golden.py``.
Re-run only when a deliberate rules change alters history (and bump rules_version).
"""
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))

from plugins.look_at_the_stars import LookAtTheStars
from service.testing.conformance import play_random_match

GOLDEN = pathlib.Path(__file__).with_name("golden")
MATCHES = [
    ("two-seats-default", 2, "golden-lats-2", {}),
    ("five-seats-galaxy", 5, "golden-lats-5", {"power_bonus_card": "galaxy", "point_bonus_card": 7,
                                               "live_score": True}),
    ("solo-new-stars", 1, "golden-lats-1", {"power_bonus_card": "new_stars", "allow_mirror": True}),
]


def main() -> None:
    game = LookAtTheStars()
    GOLDEN.mkdir(exist_ok=True)
    for name, seats, seed, options in MATCHES:
        folded, entries = play_random_match(game, seats, seed, thorough=False, options=options)
        record = {"game": game.info.slug, "num_seats": seats, "seed": seed, "options": options,
                  "entries": entries, "final_state": folded.state, "outcome": game.outcome(folded.state)}
        path = GOLDEN / f"{name}.json"
        path.write_text(json.dumps(record, separators=(",", ":")) + "\n")
        print(f"{path.name}: {len(entries)} entries, {path.stat().st_size // 1024} KB")


if __name__ == "__main__":
    main()
