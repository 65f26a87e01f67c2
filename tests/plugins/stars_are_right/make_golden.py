"""Write the golden playthroughs of The Stars Are Right.

Run from the repository root::

    .venv/bin/python tests/plugins/stars_are_right/make_golden.py

Only rerun it after a deliberate rules change (and bump ``rules_version``).
The matches use ``turn_limit`` so that each file stays small.
"""

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))

from plugins.stars_are_right import StarsAreRight
from service.testing.conformance import play_random_match

GOLDEN = Path(__file__).with_name("golden")
MATCHES = [
    (2, "golden-sar-2", {"turn_limit": 60}),
    (3, "golden-sar-3", {"turn_limit": 25, "allow_mirror": True, "first_player": "seat_0"}),
    (4, "golden-sar-4", {"turn_limit": 15, "no_cancel_checks": "abd",
                         "limit_discard_may_choose_new": False, "dark_cells_may_overhang": True}),
]


def main():
    game = StarsAreRight()
    GOLDEN.mkdir(exist_ok=True)
    for n, seed, options in MATCHES:
        folded, entries = play_random_match(game, n, seed, thorough=False, options=options)
        record = {
            "game": game.info.slug,
            "num_seats": n,
            "seed": seed,
            "options": game.load_options(options),
            "entries": entries,
            "final_state": folded.state,
            "outcome": game.outcome(folded.state),
        }
        path = GOLDEN / f"{seed}.json"
        path.write_text(json.dumps(record, separators=(",", ":"), sort_keys=True))
        print(path, path.stat().st_size, len(entries), folded.state["end"])


if __name__ == "__main__":
    main()
