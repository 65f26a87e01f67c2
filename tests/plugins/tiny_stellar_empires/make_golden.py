"""Write the golden playthroughs of Tiny Stellar Empires.

Run from the repository root::

    .venv/bin/python tests/plugins/tiny_stellar_empires/make_golden.py

Only rerun it after a deliberate rules change (and bump ``rules_version``).
"""

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))

from plugins.tiny_stellar_empires import TinyStellarEmpires  # noqa: E402
from service.testing.conformance import play_random_match  # noqa: E402

GOLDEN = Path(__file__).with_name("golden")
MATCHES = [
    (2, "golden-tse-2", {}),
    (3, "golden-tse-3", {"one_shot_timing": "any_own_turn", "ambassador_targets": "any_own_card"}),
    (4, "golden-tse-4", {"discard_pile_public": False, "stuck_redraw": "immediate"}),
]


def main():
    game = TinyStellarEmpires()
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
        print(path, path.stat().st_size)


if __name__ == "__main__":
    main()
