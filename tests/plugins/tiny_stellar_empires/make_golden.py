"""Write the golden playthroughs of Tiny Stellar Empires (checked by tests/test_golden.py).

Run from the repository root::

    .venv/bin/python tests/plugins/tiny_stellar_empires/make_golden.py

Only rerun it after a deliberate rules change (and bump ``rules_version``).
"""

from pathlib import Path

from gameroom.plugins.tiny_stellar_empires import TinyStellarEmpires
from gameroom.testing.golden import write_matches

#: (file name, seats, seed, options)
MATCHES = [
    ("golden-tse-2", 2, "golden-tse-2", {}),
    (
        "golden-tse-3",
        3,
        "golden-tse-3",
        {"one_shot_timing": "any_own_turn", "ambassador_targets": "any_own_card"},
    ),
    ("golden-tse-4", 4, "golden-tse-4", {"discard_pile_public": False, "stuck_redraw": "immediate"}),
]

if __name__ == "__main__":
    write_matches(TinyStellarEmpires(), Path(__file__).with_name("golden"), MATCHES)
